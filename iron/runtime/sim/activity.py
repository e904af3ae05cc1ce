"""Activity model: what the traced tiles of one operator call do, as event occurrences.

Not a performance model. From the operator's :class:`iron.design.Activity`
(kernel invocations of ``cycles`` each, vector and stall fractions) it makes a
plausible, deterministic timeline per tile and module kind: every kernel
invocation is bracketed by INSTR_EVENT_0 / INSTR_EVENT_1 (the kernels' event0()
/ event1()), with vector instructions, memory/lock/stream stalls and DMA port
activity in between. The seed comes from the device symbol and how many times
that device ran, so a traced run is reproducible.
"""

from __future__ import annotations

import zlib

import numpy as np

from iron.design import Activity
from iron.target import events

#: Cycles between the moment the data tasks are queued and the first kernel call.
DMA_LATENCY = 64
#: Idle cycles between kernel invocations (lock handshake, loop).
INVOCATION_GAP = 16
#: Cap on invocations modelled per tile, to keep sim fast for big operators.
MAX_INVOCATIONS = 256


def seed_for(device: str, call: int, column: int = 0, row: int = 0) -> int:
    """Stable seed (independent of Python's hash randomisation)."""
    return zlib.crc32(f"{device}#{call}@{column},{row}".encode())


def duration(activity: Activity) -> int:
    """Cycles the modelled call takes (all tiles run in parallel)."""
    n = min(activity.invocations, MAX_INVOCATIONS)
    return DMA_LATENCY + n * (activity.cycles + INVOCATION_GAP) + DMA_LATENCY


def occurrences(activity: Activity, kind: str, seed: int) -> list[tuple[int, str]]:
    """Event occurrences ``(cycle, event name)`` of one module, sorted by cycle.

    ``cycle`` counts from the moment the call's data tasks were queued.
    """
    rng = np.random.default_rng(seed)
    out: list[tuple[int, str]] = []
    cycles = max(int(activity.cycles), 8)
    t = DMA_LATENCY
    for _ in range(min(activity.invocations, MAX_INVOCATIONS)):
        jitter = int(rng.integers(0, 4))
        start, end = t + jitter, t + jitter + cycles
        out += _invocation(kind, start, end, activity, rng)
        t = end + INVOCATION_GAP
    out.sort(key=lambda e: e[0])
    return out


def _spread(rng, start: int, end: int, count: int) -> list[int]:
    if count <= 0 or end - start < 2:
        return []
    return sorted(int(x) for x in rng.integers(start + 1, end, size=count))


def _invocation(kind: str, start: int, end: int, act: Activity, rng) -> list[tuple[int, str]]:
    span = end - start
    n_vec = max(1, round(8 * act.vector_fraction))
    n_stall = max(1, round(8 * act.stall_fraction))
    if kind == "core":
        ev = [(start - 4, "PORT_RUNNING_0"), (start, "INSTR_EVENT_0"), (start + 1, "INSTR_CALL")]
        ev += [(c, "INSTR_VECTOR") for c in _spread(rng, start + 2, end - 2, n_vec)]
        stalls = ("MEMORY_STALL", "LOCK_STALL", "STREAM_STALL")
        ev += [(c, stalls[i % 3]) for i, c in enumerate(_spread(rng, start + 2, end - 2, n_stall))]
        ev += [(end - 1, "INSTR_RETURN"), (end, "INSTR_EVENT_1"), (end + 2, "PORT_RUNNING_1")]
        return ev
    if kind == "mem":
        return [
            (start - 8, "DMA_S2MM_0_START_TASK"), (start - 2, "DMA_S2MM_0_FINISHED_BD"),
            (start - 1, "LOCK_SEL0_ACQ_GE"), (end, "LOCK_1_REL"),
            (end + 1, "DMA_MM2S_0_START_TASK"), (end + 1 + span // 8, "DMA_MM2S_0_FINISHED_BD"),
        ]  # fmt: skip
    if kind == "memtile":
        return [
            (start - 12, "DMA_S2MM_SEL0_START_TASK"), (start - 6, "DMA_MM2S_SEL0_START_TASK"),
            (start - 5, "PORT_RUNNING_0"), (end + 3, "DMA_S2MM_SEL1_START_TASK"), (end + 6, "PORT_RUNNING_1"),
        ]  # fmt: skip
    if kind == "shim":
        return [
            (start - 16, "DMA_MM2S_0_START_TASK"), (start - 10, "PORT_RUNNING_0"),
            (end + 8, "DMA_S2MM_0_START_TASK"), (end + 12, "DMA_S2MM_0_FINISHED_BD"),
        ]  # fmt: skip
    return []


def records(occ: list[tuple[int, str]], kind: str, slot_ids: list[int], origin: int) -> list[tuple[int, int]]:
    """Keep the occurrences a trace unit's slots select: ``(cycle - origin, slot mask)``.

    Occurrences at the same cycle merge into one mask; events in no slot (and
    slot id 0, NONE) are dropped, as the trace unit only sees its 8 slots.
    """
    table = events.event_table(kind)
    by_id: dict[int, int] = {}
    for slot, eid in enumerate(slot_ids):
        if eid:
            by_id[eid] = by_id.get(eid, 0) | (1 << slot)
    merged: dict[int, int] = {}
    for cycle, name in occ:
        mask = by_id.get(table.get(name, -1), 0)
        rel = cycle - origin
        if mask and rel >= 1:  # the decoder's timer starts at 0; a frame advances it >= 1
            merged[rel] = merged.get(rel, 0) | mask
    return sorted(merged.items())
