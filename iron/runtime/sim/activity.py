"""Event intervals -> trace-unit records (:func:`runs`, :func:`pc_samples`, :func:`code_range`).

sim's trace units record what the executed design did: :mod:`iron.runtime.sim.engine`
produces the event intervals (kernel calls, lock waits, DMA transfers), and :func:`runs`
and :func:`pc_samples` turn them into what a unit with given slots keeps. A level event
held for n cycles fires on each of them, which the trace unit encodes as one frame plus
repeats.

For a core unit in EVENT_PC mode (trace mode 1) :func:`pc_samples` adds the
program counter: sim has no core ELF, so each kernel gets a synthetic code
range (:func:`code_range`) that every invocation walks from its first
instruction (at INSTR_EVENT_0) to its last (at INSTR_EVENT_1); a core outside
an invocation waits in its lock loop at the range's base, and an event held
for several cycles stays at one PC (a stalled core does not advance), which
the encoder turns into Repeat frames.
"""

from __future__ import annotations

import functools
import zlib

import numpy as np

from iron.target import events
from iron.target.trace_unit import SLOTS

Interval = tuple[int, int, str]  # (first cycle, cycles asserted, event name)

#: Bytes of a kernel's synthetic code range, and the bases it may get: 128 bases 64
#: bytes apart from byte 256, so every range ends inside the 14-bit PC of EVENT_PC
#: frames (iron.target.frames.PC_BITS). sim's own choice, no hardware address.
CODE_SPAN = 768
CODE_BASES = range(256, 256 + 128 * 64, 64)


def runs(ivs: list[Interval], kind: str, slot_ids: list[int], origin: int) -> list[tuple[int, int, int, int]]:
    """What a trace unit with these slots records: ``(cycle - origin, slot mask, cycles, 1)`` runs.

    Events in no slot (and slot id 0, NONE) are dropped, as the unit only sees
    its 8 slots. Where intervals overlap, each cycle's mask holds every slot
    asserted then; a run is a stretch of cycles with one mask.
    """
    # The records depend on the intervals' times relative to the origin only: a design
    # configured again (a sequence's repeated step) records the same, computed once.
    rel = tuple((first - origin, n, name) for first, n, name in ivs)
    return list(_runs(rel, kind, tuple(slot_ids)))


@functools.lru_cache(maxsize=512)
def _runs(ivs: tuple, kind: str, slot_ids: tuple) -> tuple:
    origin = 0
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
        return ()
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
    return tuple((int(a), int(b), int(c), 1) for a, b, c in zip(t, seg_mask[keep], n))


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
