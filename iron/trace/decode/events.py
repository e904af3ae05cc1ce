"""Events of one unit: the timing-relevant frames (:class:`Ops`) and iron's timing model.

iron's model (step 4 of :mod:`iron.trace.decode`): a unit's timer starts at 0;
a Single/Multiple frame with ``c`` cycles advances it by ``1 + c`` and asserts
its slots at the new time; a Repeat of ``r`` replays the last Single/Multiple
frame ``r`` times; Event_Sync advances by 0x3FFFF cycles (``frames.SYNC_CYCLES``).
The result is a list of runs (:class:`Runs`) ``(time, mask, count, step)``:
``mask`` asserted at ``time + i * step`` for ``i < count``, each for one cycle.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iron.target import frames as F
from iron.trace.jit import jit

# Op kinds kept per unit (the frames that matter for timing).
OP_EVENT, OP_REPEAT, OP_SYNC = 0, 1, 2


@dataclass
class Ops:
    """The timing-relevant frames of one unit, in stream order.

    Repeat frames are folded into the op they replay: an OP_EVENT's ``reps``
    counts the Repeat frames that follow it (with only fillers or Start frames
    between). A Repeat that follows an Event_Sync (or opens the stream) stays
    an OP_REPEAT of ``reps`` replays of the last event before it.
    """

    kind: np.ndarray  # uint8 OP_EVENT / OP_REPEAT / OP_SYNC
    mask: np.ndarray  # uint8 slot mask (OP_EVENT; 0 otherwise)
    value: np.ndarray  # uint32 cycle field (OP_EVENT; 0 otherwise)
    reps: np.ndarray  # uint32 replays (OP_EVENT: of itself; OP_REPEAT: of the last event)
    single: np.ndarray  # bool: OP_EVENT came from a Single frame

    def __len__(self) -> int:
        return len(self.kind)

    def split(self) -> "Ops":
        """One op per frame again: every OP_EVENT with replays is followed by an
        OP_REPEAT; ``value`` of an OP_REPEAT then holds its count."""
        has = (self.kind == OP_EVENT) & (self.reps > 0)
        cnt = 1 + has.astype(np.int64)
        idx = np.repeat(np.arange(len(self.kind)), cnt)
        second = np.zeros(len(idx), dtype=bool)
        second[(np.cumsum(cnt) - 1)[has]] = True
        k = self.kind[idx]
        value = np.where(second | (k == OP_REPEAT), self.reps[idx], self.value[idx]).astype(np.uint32)
        return Ops(
            np.where(second, OP_REPEAT, k).astype(np.uint8),
            np.where(second, 0, self.mask[idx]).astype(np.uint8),
            value,
            np.zeros(len(idx), np.uint32),
            np.where(second, False, self.single[idx]),
        )


def _join(kind: np.ndarray, mask: np.ndarray, value: np.ndarray, single: np.ndarray) -> Ops:
    """One op per frame (OP_REPEAT value = count) -> folded :class:`Ops`."""
    is_rep = kind == OP_REPEAT
    heads = np.flatnonzero(~is_rep)
    g = np.cumsum(~is_rep) - 1  # group = a non-repeat op and the repeats after it; -1: leading repeats
    sel = is_rep & (g >= 0)
    rsum = np.bincount(g[sel], weights=value[sel], minlength=len(heads)).astype(np.int64)
    rcnt = np.bincount(g[sel], minlength=len(heads))
    hk = kind[heads]
    orphan = (hk == OP_SYNC) & (rcnt > 0)  # repeats after a sync: kept as their own op
    lead = is_rep & (g < 0)
    cnt = 1 + orphan.astype(np.int64)
    idx = np.repeat(np.arange(len(heads)), cnt)
    second = np.zeros(len(idx), dtype=bool)
    second[(np.cumsum(cnt) - 1)[orphan]] = True
    h = heads[idx]
    k = np.where(second, OP_REPEAT, kind[h]).astype(np.uint8)
    ops = Ops(
        k,
        np.where(second, 0, mask[h]).astype(np.uint8),
        np.where(k == OP_EVENT, value[h], 0).astype(np.uint32),
        np.where(second | (k == OP_EVENT), rsum[idx], 0).astype(np.uint32),
        np.where(second, False, single[h]),
    )
    if lead.any():
        first = Ops(
            np.array([OP_REPEAT], np.uint8),
            np.zeros(1, np.uint8),
            np.zeros(1, np.uint32),
            np.array([value[lead].sum()], np.uint32),
            np.zeros(1, bool),
        )
        ops = Ops(*(np.concatenate([getattr(first, f), getattr(ops, f)]) for f in OPS_FIELDS))
    return ops


OPS_FIELDS = ("kind", "mask", "value", "reps", "single")


@dataclass
class Runs:
    """Events of one unit: ``mask`` asserted at ``time + i*step`` for ``i < count``."""

    time: np.ndarray  # int64 cycles since trace start
    mask: np.ndarray  # uint8
    count: np.ndarray  # int64
    step: np.ndarray  # int64

    def __len__(self) -> int:
        return len(self.time)

    def expand(self) -> tuple[np.ndarray, np.ndarray]:
        """Every occurrence: ``(times int64, masks uint8)``, in time order."""
        n = self.count.astype(np.int64)
        idx = np.repeat(np.arange(len(n)), n)
        first = np.cumsum(n) - n
        i = np.arange(int(n.sum()), dtype=np.int64) - np.repeat(first, n)
        return self.time[idx] + i * self.step[idx], self.mask[idx]

    def records(self) -> list[tuple[int, int]]:
        t, m = self.expand()
        return list(zip(t.tolist(), m.tolist()))

    def last_time(self) -> int | None:
        if not len(self.time):
            return None
        return int((self.time + (self.count - 1) * self.step).max())

    def intervals(self, slot: int) -> tuple[np.ndarray, np.ndarray]:
        """Maximal runs of consecutive cycles in which ``slot`` is asserted:
        ``(begin, end)`` arrays, end exclusive."""
        sel = ((self.mask >> np.uint8(slot)) & 1).astype(bool)
        t, n, s = self.time[sel], self.count[sel], self.step[sel]
        dense = s == 1
        # A run of step 1 is one stretch; wider steps are separate 1-cycle pulses.
        if dense.all():
            begin, end = t, t + n
        else:
            nn = np.where(dense, 1, n)
            idx = np.repeat(np.arange(len(t)), nn)
            first = np.cumsum(nn) - nn
            i = np.arange(int(nn.sum()), dtype=np.int64) - np.repeat(first, nn)
            begin = t[idx] + i * s[idx]
            end = np.where(dense[idx], begin + n[idx], begin + 1)
        if not len(begin):
            return begin, end
        new = np.ones(len(begin), dtype=bool)
        new[1:] = begin[1:] != end[:-1]
        starts = np.flatnonzero(new)
        return begin[starts], np.maximum.reduceat(end, starts)


class SlotIntervals:
    """``ops_to_runs(ops).intervals(slot)`` of every slot by compiled passes over
    the folded ops (numba): one pass counts every slot's intervals, then one pass
    per asked slot fills its arrays. No per-run arrays: a unit's streamed output
    holds its ops and a slot's intervals."""

    def __init__(self, ops: Ops):
        self.ops = ops
        self.counts = np.zeros(F.SLOTS, np.int64)
        z = np.zeros(0, np.int64)
        jit(_scan_intervals)(*self._args(-1), self.counts, z, z)

    def _args(self, slot: int):
        o = self.ops
        return (o.kind, o.mask, o.value, o.reps, np.int64(slot), np.int64(F.SYNC_CYCLES))

    def __call__(self, slot: int) -> tuple[np.ndarray, np.ndarray]:
        n = int(self.counts[slot])
        begin, end = np.empty(n, np.int64), np.empty(n, np.int64)
        if n:
            jit(_scan_intervals)(*self._args(slot), self.counts, begin, end)
        return begin, end


def slot_intervals(ops: Ops, slot: int) -> tuple[np.ndarray, np.ndarray]:
    """``ops_to_runs(ops).intervals(slot)`` by compiled passes (:class:`SlotIntervals`)."""
    return SlotIntervals(ops)(slot)


def _scan_intervals(kind, mask, value, reps, slot, sync_cycles, counts, out_b, out_e):
    """Compiled :class:`SlotIntervals`: iron's timing model (:func:`ops_to_runs`)
    and the merge of touching stretches (:meth:`Runs.intervals`) in one pass.
    ``slot`` < 0: count every slot's intervals into ``counts``; else fill that
    slot's ``out_b``/``out_e``."""
    timer = np.int64(0)
    b_mask = 0  # the last event (an orphan Repeat replays it)
    b_cyc = np.int64(0)
    nslot = counts.shape[0]
    cur_b = np.full(nslot, -1, np.int64)  # per slot the open interval (-1: none)
    cur_e = np.full(nslot, -1, np.int64)
    k = np.zeros(nslot, np.int64)
    lo, hi = (0, nslot) if slot < 0 else (slot, slot + 1)
    for i in range(kind.shape[0]):
        kd = kind[i]
        if kd == OP_SYNC:
            timer += sync_cycles
            continue
        if kd == OP_EVENT:
            v = np.int64(value[i])
            timer += 1 + v
            b_mask = mask[i]
            b_cyc = v
            t0 = timer  # the event itself, then its replays
            r = np.int64(reps[i]) + 1
            timer += (r - 1) * (1 + v)
        else:  # an orphan Repeat of the last event
            v = b_cyc
            t0 = timer + 1 + v
            r = np.int64(reps[i])
            timer += r * (1 + v)
        if b_mask == 0 or r == 0:
            continue
        pieces = 1 if v == 0 else r  # replays on consecutive cycles: one stretch
        for s in range(lo, hi):
            if not (b_mask >> s) & 1:
                continue
            for j in range(pieces):
                b = t0 + j * (1 + v)
                e = b + (r if v == 0 else 1)
                if cur_b[s] >= 0 and b == cur_e[s]:
                    cur_e[s] = e
                    continue
                if cur_b[s] >= 0:
                    if slot >= 0:
                        out_b[k[s]] = cur_b[s]
                        out_e[k[s]] = cur_e[s]
                    k[s] += 1
                cur_b[s] = b
                cur_e[s] = e
    for s in range(lo, hi):
        if cur_b[s] >= 0:
            if slot >= 0:
                out_b[k[s]] = cur_b[s]
                out_e[k[s]] = cur_e[s]
            k[s] += 1
        if slot < 0:
            counts[s] = k[s]
    return 0


EMPTY_OPS = Ops(
    np.zeros(0, np.uint8),
    np.zeros(0, np.uint8),
    np.zeros(0, np.uint32),
    np.zeros(0, np.uint32),
    np.zeros(0, bool),
)


# --------------------------------------------------------------------------- iron's timing model
def _base_event(ops: Ops) -> np.ndarray:
    """Index of the last OP_EVENT at or before each op (-1: none)."""
    n = len(ops)
    return (
        np.maximum.accumulate(np.where(ops.kind == OP_EVENT, np.arange(n), -1))
        if n
        else np.zeros(0, np.int64)
    )


def _timer(ops: Ops, sync_cycles: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(timer before, timer after, base event index, base cycles) per op of
    :meth:`Ops.split` form."""
    base = _base_event(ops)
    has = base >= 0
    cb = np.where(has, ops.value[np.maximum(base, 0)], 0).astype(np.int64)
    is_ev = ops.kind == OP_EVENT
    v = ops.value.astype(np.int64)
    delta = np.where(is_ev, 1 + v, np.where(ops.kind == OP_REPEAT, v * (1 + cb), sync_cycles))
    after = np.cumsum(delta)
    return after - delta, after, base, cb


def ops_to_runs(ops: Ops) -> Runs:
    """iron's timing model (module docstring): folded ops -> runs."""
    if not len(ops):
        z = np.zeros(0, np.int64)
        return Runs(z, np.zeros(0, np.uint8), z, z)
    ops = ops.split()
    before, after, base, cb = _timer(ops, F.SYNC_CYCLES)
    is_ev = ops.kind == OP_EVENT
    mb = np.where(base >= 0, ops.mask[np.maximum(base, 0)], 0).astype(np.uint8)
    rep = (ops.kind == OP_REPEAT) & (ops.value > 0) & (mb != 0)
    keep = is_ev | rep
    v = ops.value.astype(np.int64)
    time = np.where(is_ev, after, before + 1 + cb)[keep]
    mask = np.where(is_ev, ops.mask, mb)[keep]
    count = np.where(is_ev, 1, v)[keep]
    step = np.where(is_ev, 1 + v, 1 + cb)[keep]
    return Runs(time.astype(np.int64), mask.astype(np.uint8), count.astype(np.int64), step.astype(np.int64))


def bound_runs(runs: Runs, limit: int) -> tuple[Runs, int]:
    """The earliest runs whose per-slot intervals fit ``limit`` (a dense run of step 1
    is one interval per slot, a run of wider steps ``count`` of them), and how many
    intervals were dropped. Bounds what Perfetto output and plots expand to: a few KB
    of Repeat frames can stand for hundreds of millions of pulses."""
    pulses = np.bitwise_count(runs.mask).astype(np.int64)
    cost = pulses * np.where(runs.step == 1, 1, runs.count)
    total = int(cost.sum())
    if total <= limit:
        return runs, 0
    fits = np.cumsum(cost) <= limit
    k = int(fits.sum())  # runs[:k] fit whole; run k is cut
    used = int(cost[:k].sum())
    keep = [runs.time[:k], runs.mask[:k], runs.count[:k], runs.step[:k]]
    if k < len(runs) and runs.step[k] != 1 and pulses[k]:
        part = (limit - used) // int(pulses[k])
        if part:
            keep = [np.append(a, v) for a, v in zip(keep, (runs.time[k], runs.mask[k], part, runs.step[k]))]
            used += part * int(pulses[k])
    cut = Runs(
        *(np.asarray(a, dtype=d.dtype) for a, d in zip(keep, (runs.time, runs.mask, runs.count, runs.step)))
    )
    return cut, total - used
