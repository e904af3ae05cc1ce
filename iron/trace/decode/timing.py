"""Events of one unit: the timing-relevant frames (:class:`Ops`) and iron's timing model.

iron's model (step 4 of :mod:`iron.trace.decode`): a unit's timer starts at 0;
a Single/Multiple frame with ``c`` cycles advances it by ``1 + c`` and asserts
its slots at the new time; a Repeat of ``r`` replays the last Single/Multiple
frame ``r`` times; Event_Sync advances by 0x3FFFF cycles (``frames.SYNC_CYCLES``).
The result is a list of runs (:class:`Runs`) ``(time, mask, count, step)``:
``mask`` asserted at ``time + i * step`` for ``i < count``, each for one cycle.
"""

from __future__ import annotations

import functools

from iron.target import frames as F
from iron.trace.engine import NUMBA
from iron.trace.decode.record import Record
from iron.trace.jit import jit, kernel, np

# Op kinds kept per unit (the frames that matter for timing).
OP_EVENT, OP_REPEAT, OP_SYNC = 0, 1, 2


class Ops(Record):
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

    def __init__(self, kind, mask, value, reps, single):
        self.kind, self.mask, self.value, self.reps, self.single = kind, mask, value, reps, single

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


def join_ops(kind: np.ndarray, mask: np.ndarray, value: np.ndarray, single: np.ndarray) -> Ops:
    """One op per frame (OP_REPEAT value = count) -> folded :class:`Ops` (any stream; the
    numpy scan folds the common one, every Repeat after an event frame, itself:
    :func:`iron.trace.decode.scan._fold_words`)."""
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
OPS_DTYPES = ("uint8", "uint8", "uint32", "uint32", "bool")  # of the fields, in order


def ops_of(*columns) -> "Ops":
    """:class:`Ops` from one sequence per field (in :data:`OPS_FIELDS` order), each
    in its field's dtype (tiny inputs: warm-ups, tests)."""
    return Ops(*(np.asarray(c, dt) for c, dt in zip(columns, OPS_DTYPES)))


def empty_ops() -> Ops:
    """:class:`Ops` without ops, as numpy arrays."""
    return ops_of(*([],) * len(OPS_FIELDS))


#: :class:`Ops` without ops, without numpy (every field an empty tuple): a unit's ops
#: until it keeps some.
NO_OPS = Ops((), (), (), (), ())


class Runs(Record):
    """Events of one unit: ``mask`` asserted at ``time + i*step`` for ``i < count``."""

    time: np.ndarray  # int64 cycles since trace start
    mask: np.ndarray  # uint8
    count: np.ndarray  # int64
    step: np.ndarray  # int64

    #: Made by the timing model (:func:`ops_to_runs`): the runs occupy disjoint, increasing
    #: cycles, which lets :meth:`intervals` join a slot's runs without gathering them.
    _ordered = False

    def __init__(self, time, mask, count, step):
        self.time, self.mask, self.count, self.step = time, mask, count, step

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
        ``(begin, end)`` arrays, end exclusive. The last two slots asked for are
        kept (the writers ask for a slot's count, then its rows; the kernel track
        for two slots at once): never more than two slots' intervals."""
        cache = self.__dict__.setdefault("_interval_cache", {})
        if slot not in cache:
            if len(cache) >= 2:
                del cache[next(iter(cache))]  # the oldest
            cache[slot] = self._intervals(slot)
        return cache[slot]

    def _intervals(self, slot: int) -> tuple[np.ndarray, np.ndarray]:
        if self._ordered:
            bit = (self.mask & np.uint8(1 << slot)) != 0
            touch, pulses = self._stretches
            if pulses is None or not (bit & pulses).any():
                # The runs occupy disjoint, increasing cycles: a run continues the slot's interval
                # only when the run before it asserts the slot too and ends where it begins (``touch``).
                apart = bit[1:] & bit[:-1]
                apart &= touch
                np.logical_not(apart, out=apart)  # not joined to the run before
                first, last = bit.copy(), bit
                first[1:] &= apart
                last[:-1] &= apart
                last = np.flatnonzero(last)
                return self.time.take(np.flatnonzero(first)), self.time.take(last) + self.count.take(last)
        return self._pulse_intervals(slot)

    @functools.cached_property
    def _stretches(self):
        """Per run, kept for every slot (a bool each): whether the next run begins where it
        ends as one stretch, and which runs are pulses (step > 1, more than one; None: none)."""
        pulses = (self.step != 1) & (self.count > 1)
        touch = self.time[1:] == (self.time[:-1] + self.count[:-1])
        return touch, (pulses if pulses.any() else None)

    def _pulse_intervals(self, slot: int) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`_intervals` of any runs (and of a slot some pulse runs assert: every pulse an
        interval) from the runs that assert the slot, gathered."""
        sel = np.flatnonzero(self.mask & np.uint8(1 << slot))  # one scan, then gathers of the few
        t, n, s = self.time.take(sel), self.count.take(sel), self.step.take(sel)
        # A run of step 1 is one stretch; wider steps are separate 1-cycle pulses
        # (a run of one pulse is both).
        pulses = (s != 1) & (n > 1)
        if not pulses.any():
            begin, end = t, t + n
        else:
            begin, end = _pulses(t, n, s, pulses)
        if not len(begin):
            return begin, end
        new = np.ones(len(begin), dtype=bool)
        new[1:] = begin[1:] != end[:-1]
        starts = np.flatnonzero(new)
        if len(starts) == len(begin):  # nothing touches
            return begin, end
        return begin[starts], np.maximum.reduceat(end, starts)


def _pulses(t, n, s, pulses):
    """The stretches of runs ``(t, n, s)`` whose ``pulses`` (step > 1, more than one) are
    expanded into 1-cycle pulses: ``(begin, end)``. The begins are a running sum: each
    run's first begin after the previous run's last, then its step per pulse."""
    nn = np.where(pulses, n, 1)
    first = np.cumsum(nn)
    total = int(first[-1])
    first -= nn
    d = np.repeat(s, nn)  # a pulse's begin: the previous begin plus its run's step ...
    d[first[0]] = t[0]
    d[first[1:]] = t[1:] - (t[:-1] + (nn[:-1] - 1) * s[:-1])  # ... a run's first: from the last one's
    begin = np.cumsum(d)
    width = np.ones(total, np.int64)
    width[first] = np.where(pulses, 1, n)  # one run of step 1 (or of one pulse): its n cycles
    return begin, begin + width


#: Intervals (16 bytes each) :class:`SlotIntervals` holds at most at a time for a
#: group of slots; a slot with more is streamed a chunk at a time instead.
HELD_INTERVAL_BYTES = 64 << 20
_STATE = 3 + 2 * F.SLOTS  # timer, last event's mask and cycles, per slot the open interval (begin, end)
_ALL_SLOTS = (1 << F.SLOTS) - 1


def _new_state(engine=NUMBA):
    state = engine.zeros(_STATE, "int64")
    state[3:] = [-1] * (_STATE - 3)  # no open interval
    return state


def _run_kernel(ops: Ops, track: int, state, k, base=None, out_b=None, out_e=None, engine=NUMBA) -> None:
    """:func:`_scan_intervals` over one chunk; with no ``out_b``/``out_e`` it only counts.
    ``engine``: NUMBA (compiled, numpy arrays) or PLAIN (Python, lists)."""
    fill = out_b is not None
    z = engine.zeros(0, "int64")
    kernel(_scan_intervals, engine)(
        ops.kind,
        ops.mask,
        ops.value,
        ops.reps,
        track,
        fill,
        F.SYNC_CYCLES,
        state,
        k,
        base if fill else k,
        out_b if fill else z,
        out_e if fill else z,
    )


def _open(state, slot: int) -> tuple[int, int] | None:
    """The interval ``slot`` still has open at the end of the ops (closed by the stream's end)."""
    b = int(state[3 + slot])
    return (b, int(state[3 + F.SLOTS + slot])) if b >= 0 else None


class IntervalCounter:
    """Counts every slot's intervals from ops handed over a chunk at a time (a
    scan's accumulator, e.g. beside the summary's in one pass)."""

    def __init__(self, engine=NUMBA):
        self.engine = engine
        self.state, self.k = _new_state(engine), engine.zeros(F.SLOTS, "int64")

    def __call__(self, ops: Ops) -> None:
        _run_kernel(ops, _ALL_SLOTS, self.state, self.k, engine=self.engine)

    def counts(self):
        """Each slot's intervals so far (an interval still open counts); a list (plain) or an array."""
        if self.engine.plain:
            return [k + (b >= 0) for k, b in zip(self.k, self.state[3 : 3 + F.SLOTS])]
        return self.k + (self.state[3 : 3 + F.SLOTS] >= 0)


def warm_intervals() -> None:
    """Compile (or load) :func:`_scan_intervals` on tiny inputs (see :func:`iron.trace.jit.load_kernels`)."""
    if jit(_scan_intervals) is not None:
        ops = ops_of([0], [1], [0], [0], [True])
        IntervalCounter()(ops)
        held_intervals([ops], [0], interval_counts([ops]))  # the filling variant


def interval_counts(op_chunks, engine=NUMBA):
    """Every slot's number of intervals, by one compiled (or ``engine`` PLAIN) pass over the ops chunks."""
    counter = IntervalCounter(engine)
    for ops in op_chunks:
        counter(ops)
    return counter.counts()


def held_intervals(op_chunks, slots, counts, engine=NUMBA) -> dict:
    """``(begin, end)`` of each of ``slots`` (``counts``: :func:`interval_counts`), by
    one compiled pass filling arrays of the known sizes (``engine`` PLAIN: a Python
    pass filling lists)."""
    n = [int(counts[s]) if s in slots else 0 for s in range(F.SLOTS)]
    base = engine.zeros(F.SLOTS, "int64")
    for s in range(1, F.SLOTS):
        base[s] = base[s - 1] + n[s - 1]
    out_b, out_e = engine.zeros(sum(n), "int64"), engine.zeros(sum(n), "int64")
    state, k = _new_state(engine), engine.zeros(F.SLOTS, "int64")
    track = sum(1 << s for s in slots)
    for ops in op_chunks:
        _run_kernel(ops, track, state, k, base, out_b, out_e, engine)
    out = {}
    for s in slots:
        last = _open(state, s)
        if last is not None:
            out_b[base[s] + k[s]], out_e[base[s] + k[s]] = last
        out[s] = (out_b[base[s] : base[s] + n[s]], out_e[base[s] : base[s] + n[s]])
    return out


def streamed_intervals(op_chunks, slot: int):
    """``slot``'s ``(begin, end)`` a chunk of ops at a time (memory: one chunk's
    intervals): per chunk a counting run on a copy of the carried state sizes the
    arrays that the filling run writes."""
    state, k, base = _new_state(), np.zeros(F.SLOTS, np.int64), np.zeros(F.SLOTS, np.int64)
    for ops in op_chunks:  # compiled only: a plain decode holds every slot
        trial = state.copy()
        k[:] = 0
        _run_kernel(ops, 1 << slot, trial, k)
        if not k[slot]:
            state = trial  # same state as a filling run: nothing closed in this chunk
            continue
        begin, end = np.empty(int(k[slot]), np.int64), np.empty(int(k[slot]), np.int64)
        k[:] = 0
        _run_kernel(ops, 1 << slot, state, k, base, begin, end)
        yield begin, end
    last = _open(state, slot)
    if last is not None:
        yield np.array([last[0]]), np.array([last[1]])


class SlotIntervals:
    """``ops_to_runs(ops).intervals(slot)`` of every slot by compiled passes over a
    unit's ops, never all of them nor every slot's intervals in memory.

    ``op_chunks()`` gives the ops afresh for each pass, in chunks (e.g. parsed again
    piece by piece: :meth:`iron.trace.decode.DecodedUnit.op_chunks`). One pass counts
    every slot's intervals (unless ``counts`` are given); then a slot's intervals
    come from a pass that fills the arrays of it and of the next slots that fit
    :data:`HELD_INTERVAL_BYTES` together (slots too big are skipped), or, when the
    slot alone does not fit, are streamed a chunk at a time. ``engine`` PLAIN: the
    same passes in Python over lists (small inputs: every slot is held)."""

    def __init__(self, op_chunks, counts=None, engine=NUMBA):
        self.op_chunks, self.engine = op_chunks, engine
        # ``counts``: :func:`interval_counts` already taken (saves that pass)
        self.counts = interval_counts(op_chunks(), engine) if counts is None else counts
        self._held: dict = {}

    def _fits(self, n: int) -> bool:
        return self.engine.plain or 16 * n <= HELD_INTERVAL_BYTES

    def _hold_from(self, slot: int) -> None:
        """One pass filling ``slot`` and the next slots (skipping those streamed)
        while they fit together."""
        group, total = [], 0
        for s in range(slot, F.SLOTS):
            n = int(self.counts[s])
            if s in self._held or not n or not self._fits(n):
                continue  # a slot too big to hold alone is streamed: the group goes on past it
            if group and not self._fits(total + n):
                break
            group.append(s)
            total += n
        self._held.update(held_intervals(self.op_chunks(), group, self.counts, self.engine))

    def _none(self):
        return self.engine.zeros(0, "int64")

    def begins(self, slot: int):
        """``slot``'s interval begins, all at once (8 bytes per interval); its
        intervals stay held for :meth:`chunks` when they fit."""
        if not self.counts[slot]:
            return self._none()
        if slot not in self._held and self._fits(int(self.counts[slot])):
            self._hold_from(slot)
        if slot in self._held:
            return self._held[slot][0]
        return np.concatenate([b for b, _e in streamed_intervals(self.op_chunks(), slot)])

    def chunks(self, slot: int):
        """``slot``'s ``(begin, end)`` arrays in order, a piece at a time."""
        if not self.counts[slot]:
            return [(self._none(), self._none())]
        if slot not in self._held and self._fits(int(self.counts[slot])):
            self._hold_from(slot)
        if slot in self._held:
            return [self._held.pop(slot)]
        return streamed_intervals(self.op_chunks(), slot)

    def __call__(self, slot: int):
        """``slot``'s intervals whole."""
        parts = list(self.chunks(slot))
        if self.engine.plain:
            return [x for b, _ in parts for x in b], [x for _, e in parts for x in e]
        return np.concatenate([b for b, _ in parts]), np.concatenate([e for _, e in parts])


def slot_intervals(ops: Ops, slot: int, engine=NUMBA):
    """``ops_to_runs(ops).intervals(slot)`` by compiled (or plain) passes (:class:`SlotIntervals`)."""
    return SlotIntervals(lambda: [ops], engine=engine)(slot)


def _scan_intervals(kind, mask, value, reps, track, fill, sync_cycles, state, k, base, out_b, out_e):
    """Compiled :class:`SlotIntervals`: iron's timing model (:func:`ops_to_runs`)
    and the merge of touching stretches (:meth:`Runs.intervals`) in one pass over
    a chunk of ops, for the slots of the bit mask ``track``. ``state`` (see
    :data:`_STATE`) carries the timer, the last event and the open intervals from
    one chunk to the next; ``k[s]`` counts the intervals of slot ``s`` closed,
    written (``fill``) at ``out_b/out_e[base[s] + k[s]]``."""
    nslot = len(k)
    timer = state[0]
    b_mask = state[1]  # the last event (an orphan Repeat replays it)
    b_cyc = state[2]
    for i in range(len(kind)):
        kd = kind[i]
        if kd == OP_SYNC:
            timer += sync_cycles
            continue
        if kd == OP_EVENT:
            v = np.int64(value[i])
            timer += 1 + v
            b_mask = np.int64(mask[i])
            b_cyc = v
            t0 = timer  # the event itself, then its replays
            r = np.int64(reps[i]) + 1
            timer += (r - 1) * (1 + v)
        else:  # an orphan Repeat of the last event
            v = b_cyc
            t0 = timer + 1 + v
            r = np.int64(reps[i])
            timer += r * (1 + v)
        hit = b_mask & track
        if hit == 0 or r == 0:
            continue
        pieces = 1 if v == 0 else r  # replays on consecutive cycles: one stretch
        for s in range(nslot):
            if not (hit >> s) & 1:
                continue
            ob, oe = 3 + s, 3 + nslot + s
            for j in range(pieces):
                b = t0 + j * (1 + v)
                e = b + (r if v == 0 else 1)
                if state[ob] >= 0 and b == state[oe]:
                    state[oe] = e
                    continue
                if state[ob] >= 0:
                    if fill:
                        out_b[base[s] + k[s]] = state[ob]
                        out_e[base[s] + k[s]] = state[oe]
                    k[s] += 1
                state[ob] = b
                state[oe] = e
    state[0] = timer
    state[1] = b_mask
    state[2] = b_cyc
    return 0


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
    runs = _model_runs(ops)
    runs._ordered = True
    return runs


def _model_runs(ops: Ops) -> Runs:
    if not len(ops):
        z = np.zeros(0, np.int64)
        return Runs(z, np.zeros(0, np.uint8), z, z)
    if not (ops.kind == OP_REPEAT).any():  # no orphan Repeat (the common stream): one pass less
        return _event_runs(ops)
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


def _event_runs(ops: Ops) -> Runs:
    """:func:`ops_to_runs` of ops without OP_REPEAT, without splitting them: per event op
    a run of itself, then (replays, of a mask that sets slots) a run of its ``reps``."""
    step = ops.value.astype(np.int64)
    step += 1
    reps = ops.reps.astype(np.int64)
    event = ops.kind == OP_EVENT
    syncs = not event.all()
    time = reps + 1  # in place from here: the timer's steps, their sum, each event's time
    time *= step
    if syncs:  # Event_Syncs: only time passes
        time[~event] = F.SYNC_CYCLES
    np.cumsum(time, out=time)
    time -= reps * step  # the event itself: its replays follow
    if syncs:
        at = np.flatnonzero(event)
        time, step, reps, mask = time.take(at), step.take(at), reps.take(at), ops.mask.take(at)
    else:
        mask = ops.mask
    second = (reps > 0) & (mask != 0)
    extra = np.flatnonzero(second)
    if not len(extra):
        return Runs(time, mask, np.ones(len(time), np.int64), step)
    # Each event's run, then (``second``) the run of its replays: the output's runs gathered
    # from the events (``take``: much faster than scattering into them), the replay runs fixed.
    at = extra + np.arange(1, len(extra) + 1)  # where the replay runs go
    is_replay = np.zeros(len(time) + len(extra), bool)
    is_replay[at] = True
    src = np.arange(len(is_replay))
    src -= np.cumsum(is_replay)
    out_time, out_mask, out_step = time.take(src), mask.take(src), step.take(src)
    out_time[at] += step.take(extra)
    out_count = np.ones(len(src), np.int64)
    out_count[at] = reps.take(extra)
    return Runs(out_time, out_mask, out_count, out_step)


def bound_runs(runs: Runs, limit: int) -> tuple[Runs, int]:
    """The earliest runs whose per-slot intervals fit ``limit`` (a dense run of step 1
    is one interval per slot, a run of wider steps ``count`` of them), and how many
    intervals were dropped. Bounds what Perfetto output and plots expand to: a few KB
    of Repeat frames can stand for hundreds of millions of pulses."""
    # The total first, without run-sized temporaries: a slot's interval per run, plus
    # ``count - 1`` more per slot of the runs of wider steps (few: replays of frames with cycles).
    slots = np.bitwise_count(runs.mask)
    total = int(slots.sum(dtype=np.int64))
    wide = np.flatnonzero((runs.count != 1) & (runs.step != 1))
    if len(wide):
        total += int(np.dot(slots.take(wide).astype(np.int64), runs.count.take(wide) - 1))
    if total <= limit:
        return runs, 0
    pulses = slots.astype(np.int64)
    cost = pulses * np.where(runs.step == 1, 1, runs.count)
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
    cut._ordered = runs._ordered  # the earliest runs of ordered runs (the last one cut shorter)
    return cut, total - used
