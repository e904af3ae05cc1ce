"""mlir-aie's timing model: one unit's folded frames -> the B/E events its parser emits.

mlir-aie's ``convert_commands_to_json`` times frames differently from iron's
model (:mod:`iron.trace.decode.timing`); :mod:`iron.trace.export.mlir_aie`
writes these events so that its output matches mlir-aie's record for record.
"""

from __future__ import annotations

import functools

from iron.target import frames as F
from iron.record import Record
from iron.trace.decode.timing import OP_EVENT, OP_REPEAT, OP_SYNC, OPS_FIELDS, Ops, ops_of
from iron.trace.engine import NUMBA, NUMPY
from iron.trace.jit import jit, kernel, np
from iron.trace.words import TraceInputError

#: mlir-aie records one unit may expand to; past it decoding to that format is refused
#: (it must match mlir-aie's parser record for record, so it is never truncated).
MAX_MLIR_AIE_RECORDS_PER_UNIT = 1 << 24


@functools.cache
def _slots_of_mask() -> tuple:
    """Per slot mask (256): its slots in order (row ``8 * mask`` of a flat table, padded)
    and how many there are."""
    table, count = np.zeros(256 * F.SLOTS, np.uint8), np.zeros(256, np.int64)
    for m in range(256):
        slots = [s for s in range(F.SLOTS) if m >> s & 1]
        table[F.SLOTS * m : F.SLOTS * m + len(slots)] = slots
        count[m] = len(slots)
    return table, count


CHUNK_OPS = 1 << 16  # folded ops per step of the streamed outputs (bounds their memory)


def mlir_aie_events(ops: Ops) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """B/E events exactly as mlir-aie's ``convert_commands_to_json`` emits them
    for one unit: arrays ``(ts, phase, slot)`` in output order, phase 0 = "E",
    1 = "B". Its quirks are kept: Event_Sync and Start frames do not move the
    timer; a Repeat after a zero-cycle frame only advances the timer; a Repeat
    after a frame with cycles re-begins only the last *Single* frame's slot,
    and nothing when the last frame was a Multiple of several slots.
    All at once; :func:`mlir_aie_event_chunks` gives the same in pieces."""
    parts = list(mlir_aie_event_chunks(ops))
    if not parts:
        z = np.zeros(0, np.int64)
        return z, z.astype(np.uint8), z.astype(np.uint8)
    return tuple(np.concatenate(c) for c in zip(*parts))


class _MlirAieState(Record):
    """What mlir-aie's timing carries from one chunk of ops to the next."""

    timer: int = 0
    base: tuple | None = None  # (mask, cycles, single) of the last event frame
    single_mask: int = 0  # slot mask of the last Single frame
    active: int = 0  # slots the last setter left begun


def mlir_aie_event_chunks(ops: Ops, chunk_ops: int = CHUNK_OPS):
    """:func:`mlir_aie_events` as a sequence of ``(ts, phase, slot)`` chunks,
    ``chunk_ops`` folded ops at a time (memory bounded by a chunk's events)."""
    parts = (
        Ops(*(getattr(ops, f)[a : a + chunk_ops] for f in OPS_FIELDS)) for a in range(0, len(ops), chunk_ops)
    )
    return mlir_aie_event_stream(parts)


def _too_many() -> TraceInputError:
    return TraceInputError(
        f"one unit's Repeat frames expand to more mlir-aie records than the limit "
        f"({MAX_MLIR_AIE_RECORDS_PER_UNIT}); decode to --format perfetto (truncated with a note) "
        "or summary instead"
    )


def mlir_aie_event_stream(op_chunks, engine=NUMPY):
    """:func:`mlir_aie_events` of the ops given in consecutive chunks (e.g.
    :meth:`iron.trace.decode.DecodedUnit.op_chunks`: a unit parsed again piece by
    piece), as ``(ts, phase, slot)`` chunks. A chunk may open with Repeat frames
    of the previous chunk's last event (an OP_REPEAT of their own): replayed
    frame by frame, they give the events of the folded replay. ``engine``
    NUMBA: the same events by one compiled pass (:func:`_mlir_aie_scan`);
    PLAIN: that pass as plain Python (lists)."""
    if engine != NUMPY:
        yield from _compiled_stream(op_chunks, engine)
        return
    st = _MlirAieState()
    for ops in op_chunks:
        if not len(ops):
            continue
        out = _mlir_aie_chunk(ops.split(), st)
        if len(out[0]):
            yield out


def _mlir_aie_chunk(ops: Ops, st: _MlirAieState) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One chunk (ops in :meth:`Ops.split` form); updates ``st`` for the next."""
    f = _chunk_frames(ops, st)
    items = _frame_items(ops, f) + _replay_items(f)
    return _in_output_order(items)


class _Frames(Record):
    """Per op of one chunk, what mlir-aie's timing sees (arrays, one entry per op)."""

    idx: np.ndarray  # op index in the chunk
    is_ev: np.ndarray  # an event frame
    rep: np.ndarray  # a Repeat that replays (the last event frame had cycles)
    r: np.ndarray  # a Repeat's count (0 for other ops)
    cb: np.ndarray  # cycles of the last event frame
    before: np.ndarray  # the timer before the op
    after: np.ndarray  # ... and after it
    x: np.ndarray  # the slots a replay re-begins (the last Single frame's, unless a Multiple of several)
    a: np.ndarray  # the slots begun when the op comes


def _chunk_frames(ops: Ops, st: _MlirAieState) -> _Frames:
    """The timer and the begun slots at every op of the chunk, starting from ``st``;
    ``st`` is left as the next chunk starts."""
    n = len(ops)
    idx = np.arange(n)
    is_ev = ops.kind == OP_EVENT
    base = np.maximum.accumulate(np.where(is_ev, idx, -1))
    hb, bi = base >= 0, np.maximum(base, 0)
    b_mask, b_cyc, b_single = st.base if st.base is not None else (0, 0, False)
    cb = np.where(hb, ops.value[bi], b_cyc).astype(np.int64)
    bmask = np.where(hb, ops.mask[bi], b_mask).astype(np.uint8)
    bsingle = np.where(hb, ops.single[bi], b_single)
    bhas = hb | (st.base is not None)
    v = ops.value.astype(np.int64)
    delta = np.where(is_ev, 1 + v, np.where(ops.kind == OP_REPEAT, v * (1 + cb), 0))
    after = np.cumsum(delta) + st.timer
    before = after - delta
    # `event`: slot of the last Single frame; `multiple_list`: slots of the last event frame.
    last_single = np.maximum.accumulate(np.where(is_ev & ops.single, idx, -1))
    ev_mask = np.where(last_single >= 0, ops.mask[np.maximum(last_single, 0)], st.single_mask)
    ml_len = np.where(~bhas, 0, np.where(bsingle, 1, np.bitwise_count(bmask)))
    x = np.where(ml_len <= 1, ev_mask, 0).astype(np.uint8)
    r = np.where(ops.kind == OP_REPEAT, ops.value, 0).astype(np.int64)
    rep = (ops.kind == OP_REPEAT) & (cb > 0) & (r >= 1)
    setter = is_ev | rep
    new_a = np.where(is_ev, ops.mask, x).astype(np.uint8)
    ps = np.maximum.accumulate(np.where(setter, idx, -1))
    prev = np.concatenate([[-1], ps[:-1]])
    a = np.where(prev >= 0, new_a[np.maximum(prev, 0)], st.active).astype(np.uint8)
    # carried to the next chunk
    st.timer = int(after[-1])
    if base[-1] >= 0:
        st.base = (int(ops.mask[base[-1]]), int(ops.value[base[-1]]), bool(ops.single[base[-1]]))
    st.single_mask = int(ev_mask[-1])
    if ps[-1] >= 0:
        st.active = int(new_a[ps[-1]])
    return _Frames(idx, is_ev, rep, r, cb, before, after, x, a)


# An item: (op, replay iteration, phase, slot mask, ts) arrays, E phase 0, B phase 1.
def _frame_items(ops: Ops, f: _Frames) -> list[tuple]:
    """The E and B items of every event frame, and of every Repeat's first replay."""
    m = ops.mask
    c = np.where(f.is_ev, ops.value, 0)
    e_mask = np.where(c > 0, f.a, f.a & ~m)[f.is_ev]
    b_mask = np.where(c > 0, m, m & ~f.a)[f.is_ev]
    ev_i = f.idx[f.is_ev]
    zero = np.zeros(len(ev_i), np.int64)
    items = [
        (ev_i, zero, np.zeros(len(ev_i), np.uint8), e_mask, f.before[f.is_ev] + 1),
        (ev_i, zero, np.ones(len(ev_i), np.uint8), b_mask, f.after[f.is_ev]),
    ]
    rp = f.idx[f.rep]
    step = 1 + f.cb[f.rep]
    zero = np.zeros(len(rp), np.int64)
    items += [
        (rp, zero, np.zeros(len(rp), np.uint8), f.a[f.rep], f.before[f.rep] + 1),
        (rp, zero, np.ones(len(rp), np.uint8), f.x[f.rep], f.before[f.rep] + step),
    ]
    return items


def _replay_items(f: _Frames) -> list[tuple]:
    """The items of the Repeats' further replays (each re-begins ``x``); refused past
    :data:`MAX_MLIR_AIE_RECORDS_PER_UNIT` records."""
    more = f.rep & (f.x != 0) & (f.r > 1)
    if not more.any():
        return []
    cnt = f.r[more] - 1
    expanded = 2 * int((cnt * np.bitwise_count(f.x[more]).astype(np.int64)).sum())
    if expanded > MAX_MLIR_AIE_RECORDS_PER_UNIT:
        raise _too_many()
    ops_i = np.repeat(f.idx[more], cnt)
    first = np.cumsum(cnt) - cnt
    iters = np.arange(int(cnt.sum()), dtype=np.int64) - np.repeat(first, cnt) + 1
    st_ = 1 + f.cb[ops_i]
    t0 = f.before[ops_i] + iters * st_
    xm = f.x[ops_i]
    return [
        (ops_i, iters, np.zeros(len(ops_i), np.uint8), xm, t0 + 1),
        (ops_i, iters, np.ones(len(ops_i), np.uint8), xm, t0 + st_),
    ]


def _in_output_order(items: list[tuple]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The items' events, one per slot of each mask, as ``(ts, phase, slot)`` in mlir-aie's
    order: op, then replay iteration, then E before B, then slot."""
    it_op, it_it, it_ph, it_mask, it_ts = zip(*items)
    op_a = np.concatenate(it_op).astype(np.int64)
    it_a = np.concatenate(it_it)
    ph_a = np.concatenate(it_ph)
    mk_a = np.concatenate(it_mask).astype(np.uint8)
    ts_a = np.concatenate(it_ts).astype(np.int64)
    iters = int(it_a.max()) + 1 if len(it_a) else 1
    # (op, iteration, phase) is one item's alone: the items in order, then each one's slots
    order = np.argsort((op_a * iters + it_a) * 2 + ph_a, kind="stable")
    table, count = _slots_of_mask()
    mk = mk_a[order].astype(np.int64)
    cnt = count[mk]
    item = np.repeat(order, cnt)
    within = np.arange(len(item)) - np.repeat(np.cumsum(cnt) - cnt, cnt)
    slot = table[np.repeat(F.SLOTS * mk, cnt) + within]
    return ts_a[item], ph_a[item], slot


# --------------------------------------------------------------------------- compiled
#: Events one call of :func:`_mlir_aie_scan` writes at most (unless one op needs more).
EVENTS_PER_CALL = 1 << 18
PLAIN_EVENTS_PER_CALL = 1 << 12  # the same, plain (lists: allocating them costs more)
# What the compiled scan carries from one call to the next (indices into its state):
# timer, whether an event frame was seen, that frame's mask / cycles / Single flag,
# the last Single frame's mask, the slots left begun, replay records of this chunk.
_TIMER, _HAS, _BMASK, _BCYC, _BSINGLE, _SMASK, _ACTIVE, _EXPANDED = range(8)


def _compiled_stream(op_chunks, engine=NUMBA):
    """:func:`mlir_aie_event_stream` by :func:`_mlir_aie_scan`, ``EVENTS_PER_CALL``
    events (or the one op that needs more) at a time (``engine`` PLAIN: lists)."""
    scan = kernel(_mlir_aie_scan, engine)
    st = engine.zeros(8, "int64")
    cap = base = PLAIN_EVENTS_PER_CALL if engine.plain else EVENTS_PER_CALL
    for ops in op_chunks:
        st[_EXPANDED] = 0  # the limit counts per chunk of ops, as the vectorized path does
        i, n = 0, len(ops)
        while i < n:
            out = _event_buffers(cap, engine)
            i, k, need = scan(
                ops.kind,
                ops.mask,
                ops.value,
                ops.reps,
                ops.single,
                i,
                st,
                MAX_MLIR_AIE_RECORDS_PER_UNIT,
                *out,
            )
            if need < 0:
                raise _too_many()
            if k:
                yield out[0][:k], out[1][:k], out[2][:k]
            cap = max(base, need)  # the next op alone may need more


def _event_buffers(cap: int, engine) -> tuple:
    """Buffers of ``cap`` events (ts, phase, slot) for :func:`_mlir_aie_scan`."""
    if engine.plain:
        return [0] * cap, [0] * cap, [0] * cap
    return np.empty(cap, np.int64), np.empty(cap, np.uint8), np.empty(cap, np.uint8)


def warm_mlir_aie() -> None:
    """Compile (or load) :func:`_mlir_aie_scan` on tiny inputs (see :func:`iron.trace.jit.load_kernels`)."""
    if jit(_mlir_aie_scan) is not None:
        ops = ops_of([0], [1], [0], [1], [True])
        list(_compiled_stream([ops]))


def _mlir_aie_scan(kind, mask, value, reps, single, i, st, limit, o_ts, o_ph, o_slot):
    """Compiled :func:`_mlir_aie_chunk` (numba) on folded ops: mlir-aie's
    ``convert_commands_to_json`` op by op (an event frame ends the begun slots
    at ``timer + 1``, all when it has cycles, else those it does not set, and
    begins its slots at ``timer + 1 + cycles``; its Repeat frames, when the last
    event frame had cycles, end everything and re-begin the last Single frame's
    slot once per replay, unless that frame was a Multiple of several slots),
    from op ``i`` until the ops end or the next op's events may not fit the
    ``o_*`` arrays. ``st`` carries the state between calls. Returns ``(next op,
    events written, events the next op may need)``; need -1: the replays of
    this chunk (``st[_EXPANDED]``) would pass ``limit``."""
    n = len(kind)
    cap = len(o_ts)
    timer, has, bmask, bcyc, bsingle = st[_TIMER], st[_HAS], st[_BMASK], st[_BCYC], st[_BSINGLE]
    smask, active, expanded = st[_SMASK], st[_ACTIVE], st[_EXPANDED]
    # an op's first events (at most 4 masks: its frame's ends and begins, its first replay's)
    e_mask = np.zeros(4, np.int64)
    e_ts = np.zeros(4, np.int64)
    k = 0
    need = 0
    while i < n:
        kd = kind[i]
        if kd == OP_SYNC:
            i += 1
            continue
        r = np.int64(reps[i])
        ev = kd == OP_EVENT
        m = np.int64(mask[i])
        v = np.int64(value[i])
        one = np.int64(single[i])
        # the state the op's replays see (after its own event frame)
        r_has = 1 if ev else has
        r_cyc = v if ev else (bcyc if has else 0)
        r_single = one if ev else bsingle
        r_bmask = m if ev else bmask
        r_smask = m if ev and one else smask
        bits = 0
        t = r_bmask
        while t:
            bits += t & 1
            t >>= 1
        x = r_smask if r_has == 0 or r_single or bits <= 1 else 0
        x_bits = 0
        t = x
        while t:
            x_bits += t & 1
            t >>= 1
        replays = r > 0 and r_cyc > 0
        add = 2 * (r - 1) * x_bits if replays and r > 1 else 0
        if expanded + add > limit:
            need = -1
            break
        need = (16 if ev else 0) + (9 + add if replays else 0)
        if k + need > cap:
            break
        ne = 0  # E (even entries) and B (odd) masks of the frame and the first replay
        if ev:
            e_mask[0] = active if v > 0 else active & ~m
            e_ts[0] = timer + 1
            timer += 1 + v
            e_mask[1] = m if v > 0 else m & ~active
            e_ts[1] = timer
            ne = 2
            active = m
            has, bmask, bcyc, bsingle, smask = 1, m, v, one, r_smask
        if replays:
            step = 1 + r_cyc
            e_mask[ne] = active
            e_ts[ne] = timer + 1
            e_mask[ne + 1] = x
            e_ts[ne + 1] = timer + step
            ne += 2
            timer += step
            active = x
        for e in range(ne):
            for s in range(_SLOTS):
                if (e_mask[e] >> s) & 1:
                    o_ts[k] = e_ts[e]
                    o_ph[k] = e & 1
                    o_slot[k] = s
                    k += 1
        if replays:
            if x != 0:
                for _j in range(r - 1):  # the other replays: end and re-begin x
                    for ph in range(2):
                        for s in range(_SLOTS):
                            if (x >> s) & 1:
                                o_ts[k] = timer + 1 if ph == 0 else timer + step
                                o_ph[k] = ph
                                o_slot[k] = s
                                k += 1
                    timer += step
            else:
                timer += (r - 1) * step
            expanded += add
        else:
            timer += r * (1 + r_cyc)  # cycles 0 (or no replays): the timer moves only
        need = 0
        i += 1
    st[_TIMER], st[_HAS], st[_BMASK], st[_BCYC], st[_BSINGLE] = timer, has, bmask, bcyc, bsingle
    st[_SMASK], st[_ACTIVE], st[_EXPANDED] = smask, active, expanded
    return i, k, need


_SLOTS = F.SLOTS  # a plain global: numba freezes it into the kernel
