"""Event intervals -> trace-unit records (:func:`runs`, :func:`pc_samples`, :func:`code_range`).

sim's trace units record what the executed design did (:mod:`iron.runtime.sim.engine`
produces the intervals); :func:`runs` and :func:`pc_samples` turn intervals into what a
unit with given slots keeps. The rest of this module (:func:`intervals`, :func:`duration`)
is the earlier synthetic activity model, no longer used by the device; kept for tools
that plot an operator's nominal :class:`iron.design.Activity`.

The synthetic model, not a performance model. From the operator's :class:`iron.design.Activity`
(kernel invocations of ``cycles`` each, vector and stall fractions) it makes a
plausible, deterministic timeline per tile and module kind. Events are what the
hardware raises: pulses (INSTR_EVENT_0/1 from the kernels' event0()/event1(),
DMA task starts) and levels that stay asserted for many cycles (INSTR_VECTOR
while vector instructions issue, stalls, PORT_RUNNING while a stream moves
data). A level held for n cycles fires on each of them, which the trace unit
encodes as one frame plus repeats. Events the hardware does not produce in the
trace window are never made (see :func:`iron.target.events.caveat`): no
memory-module or memtile DMA START_TASK/FINISHED_TASK on these object-FIFO
designs, and lock events only for lock 0, the lock every selection block
watches after reset. The seed comes from the device symbol, how
many times that device ran and the tile, so a traced run is reproducible.

For a core unit in EVENT_PC mode (trace mode 1) :func:`pc_samples` adds the
program counter: sim has no core ELF, so each kernel gets a synthetic code
range (:func:`code_range`) that every invocation walks from its first
instruction (at INSTR_EVENT_0) to its last (at INSTR_EVENT_1); a core outside
an invocation waits in its lock loop at the range's base, and an event held
for several cycles stays at one PC (a stalled core does not advance), which
the encoder turns into Repeat frames.
"""

from __future__ import annotations

import zlib

import numpy as np

from iron.design import Activity
from iron.target import events
from iron.target.trace_unit import SLOTS

#: Cycles between the moment the data tasks are queued and the first kernel call.
DMA_LATENCY = 64
#: Idle cycles between kernel invocations (lock handshake, loop).
INVOCATION_GAP = 16
#: Cap on invocations modelled per tile, to keep sim fast for big operators.
MAX_INVOCATIONS = 256

Interval = tuple[int, int, str]  # (first cycle, cycles asserted, event name)

#: Bytes of a kernel's synthetic code range, and the bases it may get: 128 bases 64
#: bytes apart from byte 256, so every range ends inside the 14-bit PC of EVENT_PC
#: frames (iron.target.frames.PC_BITS). sim's own choice, no hardware address.
CODE_SPAN = 768
CODE_BASES = range(256, 256 + 128 * 64, 64)


def seed_for(device: str, call: int, column: int = 0, row: int = 0) -> int:
    """Stable seed (independent of Python's hash randomisation)."""
    return zlib.crc32(f"{device}#{call}@{column},{row}".encode())


def duration(activity: Activity) -> int:
    """Cycles the modelled call takes (all tiles run in parallel)."""
    n = min(activity.invocations, MAX_INVOCATIONS)
    return DMA_LATENCY + n * (max(int(activity.cycles), 8) + INVOCATION_GAP) + DMA_LATENCY


def intervals(activity: Activity, kind: str, seed: int) -> list[Interval]:
    """Event intervals of one module, sorted by first cycle.

    Cycles count from the moment the call's data tasks were queued.
    """
    rng = np.random.default_rng(seed)
    out: list[Interval] = []
    cycles = max(int(activity.cycles), 8)
    t = DMA_LATENCY
    for i in range(min(activity.invocations, MAX_INVOCATIONS)):
        start = t + int(rng.integers(0, 4))
        end = start + cycles
        out += _invocation(kind, i, start, end, activity, rng)
        t = end + INVOCATION_GAP
    out.sort()
    return out


def _bursts(rng, start: int, end: int, total: int, pieces: int) -> list[tuple[int, int]]:
    """``pieces`` disjoint (first, length) stretches inside [start, end) adding up to ~``total``."""
    span = end - start
    total = min(max(total, 0), span)
    if total == 0 or pieces <= 0:
        return []
    pieces = min(pieces, total)
    lengths = np.full(pieces, total // pieces)
    lengths[: total % pieces] += 1
    slack = span - total
    gaps = np.sort(rng.integers(0, slack + 1, size=pieces)) if slack else np.zeros(pieces, np.int64)
    firsts = start + gaps + np.concatenate([[0], np.cumsum(lengths)[:-1]])
    return [(int(f), int(n)) for f, n in zip(firsts, lengths)]


def _invocation(kind: str, i: int, start: int, end: int, act: Activity, rng) -> list[Interval]:
    body = end - start
    transfer = max(body // 4, 2)  # cycles a tile's input/output stream runs per invocation
    if kind == "core":
        wait = DMA_LATENCY // 2 if i == 0 else 3  # the first call waits for its data
        ev = [
            (start - transfer - 2, transfer, "PORT_RUNNING_0"),
            (start - wait - 2, 1, "INSTR_LOCK_ACQUIRE_REQ"),
            (start - wait - 1, wait, "LOCK_STALL"),
            (start, 1, "INSTR_EVENT_0"),
            (start + 1, 1, "INSTR_CALL"),
            (end - 1, 1, "INSTR_RETURN"),
            (end, 1, "INSTR_EVENT_1"),
            (end + 1, 1, "INSTR_LOCK_RELEASE_REQ"),
            (end + 2, transfer, "PORT_RUNNING_1"),
        ]
        inner = (start + 2, end - 2)
        vec = round(body * act.vector_fraction)
        stall = round(body * act.stall_fraction)
        ev += [(f, n, "INSTR_VECTOR") for f, n in _bursts(rng, *inner, vec, 6)]
        ev += [(f, n, "MEMORY_STALL") for f, n in _bursts(rng, *inner, stall * 2 // 3, 3)]
        ev += [(f, n, "STREAM_STALL") for f, n in _bursts(rng, *inner, stall // 3, 1)]
        return ev
    if kind == "mem":
        # Object-FIFO BD rings are queued once at load: no START_TASK/FINISHED_TASK in the
        # window, one FINISHED_BD per buffer. Every lock-selection block watches lock 0 (no
        # Locks_Event_Selection program), so lock 0's acquire and release raise all of them.
        return [
            (start - 3, 1, "DMA_S2MM_0_FINISHED_BD"), (end + 2 + transfer, 1, "DMA_MM2S_0_FINISHED_BD"),
            *_lock0(start - 1, "LOCK_SEL{}_ACQ_GE"), *_lock0(end, "LOCK_{}_REL"),
        ]  # fmt: skip
    if kind == "memtile":
        # Its BD rings are started at load the same way: FINISHED_BD per buffer, no task events.
        return [
            (start - transfer, 1, "DMA_S2MM_SEL0_FINISHED_BD"), (start - 2 * transfer, transfer, "PORT_RUNNING_0"),
            (start - 1, 1, "DMA_MM2S_SEL0_FINISHED_BD"), (start - transfer, transfer, "PORT_RUNNING_1"),
            (end + 3 + transfer, 1, "DMA_S2MM_SEL1_FINISHED_BD"),
        ]  # fmt: skip
    if kind == "shim":
        return [
            (start - 3 * transfer, 1, "DMA_MM2S_0_START_TASK"), (start - 3 * transfer, transfer, "PORT_RUNNING_0"),
            (end + 2 * transfer, 1, "DMA_S2MM_0_START_TASK"), (end + 2 * transfer, transfer, "PORT_RUNNING_1"),
        ]  # fmt: skip
    return []


def _lock0(first: int, fmt: str) -> list[Interval]:
    """One lock-0 pulse as every lock-selection block reports it (8 blocks per module)."""
    return [(first, 1, fmt.format(n)) for n in range(events.LOCK_SELECTION_BLOCKS)]


def runs(ivs: list[Interval], kind: str, slot_ids: list[int], origin: int) -> list[tuple[int, int, int, int]]:
    """What a trace unit with these slots records: ``(cycle - origin, slot mask, cycles, 1)`` runs.

    Events in no slot (and slot id 0, NONE) are dropped, as the unit only sees
    its 8 slots. Where intervals overlap, each cycle's mask holds every slot
    asserted then; a run is a stretch of cycles with one mask.
    """
    table = events.event_table(kind)
    bits: dict[int, int] = {}
    for slot, eid in enumerate(slot_ids):
        if eid:
            bits[eid] = bits.get(eid, 0) | (1 << slot)
    firsts, lasts, masks = [], [], []
    for first, n, name in ivs:
        mask = bits.get(table.get(name, -1), 0)
        if mask:
            # The decoder's timer starts at 0 and a frame advances it by >= 1.
            lo = max(first - origin, 1)
            hi = first - origin + n
            if hi > lo:
                firsts.append(lo)
                lasts.append(hi)
                masks.append(mask)
    if not masks:
        return []
    points = np.unique(np.concatenate([firsts, lasts]))
    # Per slot, +1 where an interval begins and -1 where it ends; a running sum
    # tells which slots are asserted on each stretch between points.
    delta = np.zeros((len(points), SLOTS), np.int64)
    m = np.array(masks, np.int64)[:, None] >> np.arange(SLOTS) & 1
    np.add.at(delta, np.searchsorted(points, firsts), m)
    np.add.at(delta, np.searchsorted(points, lasts), -m)
    active = np.cumsum(delta, axis=0)[:-1] > 0
    seg_mask = (active * (1 << np.arange(SLOTS))).sum(axis=1)
    keep = seg_mask > 0
    t = points[:-1][keep]
    n = np.diff(points)[keep]
    return [(int(a), int(b), int(c), 1) for a, b, c in zip(t, seg_mask[keep], n)]


def code_range(kernel: str) -> tuple[int, int]:
    """``[lo, hi)`` program-counter range modelled for ``kernel``'s code (stable per name)."""
    lo = CODE_BASES[zlib.crc32(kernel.encode()) % len(CODE_BASES)]
    return lo, lo + CODE_SPAN


def pc_samples(
    ivs: list[Interval], records: list[tuple[int, int, int, int]], origin: int, code: tuple[int, int]
) -> list[tuple[int, int, int]]:
    """EVENT_PC samples ``(mask, pc, cycles)`` of the runs :func:`runs` made from ``ivs``.

    ``origin`` is the one given to :func:`runs` (records are cycles since it);
    ``code`` is the kernel's :func:`code_range`. A run's PC is the one at its
    first cycle: inside an invocation (INSTR_EVENT_0 .. INSTR_EVENT_1) the PC
    advances linearly from ``lo`` to ``hi - 4``; outside, the core is at ``lo``.
    """
    lo, hi = code
    starts = np.array(sorted(f for f, _n, name in ivs if name == "INSTR_EVENT_0"), np.int64)
    ends = np.array(sorted(f for f, _n, name in ivs if name == "INSTR_EVENT_1"), np.int64)
    words = (hi - lo) // 4 - 1
    out = []
    for t, mask, n, _step in records:
        c = t + origin
        k = int(np.searchsorted(starts, c, side="right")) - 1
        pc = lo
        if 0 <= k < len(ends) and c <= ends[k]:
            pc = lo + 4 * (int(c - starts[k]) * words // max(int(ends[k] - starts[k]), 1))
        out.append((int(mask), pc, int(n)))
    return out
