"""Summary of decoded traces: per unit kernel invocations, stalls, extent; per slice status.

Kernel invocations pair INSTR_EVENT_0 with the next INSTR_EVENT_1 the way
mlir-aie's ``get_cycles_summary`` does (the rule's events and which events are stalls:
:mod:`iron.target.events`): the first event0 after an invocation
ends starts the next one, the first event1 after it ends it, extra ones are
ignored. All times are cycles since the slice's trace start.
"""

from __future__ import annotations

import bisect
import functools

from iron.target import frames as F
from iron.target.events import KERNEL_END, KERNEL_START, is_stall
from iron.target.frames import SYNC_CYCLES
from iron.trace.decode import (
    NO_OPS,
    OP_EVENT,
    OP_REPEAT,
    OP_SYNC,
    DecodedSlice,
    DecodedUnit,
    IntervalCounter,
    Ops,
    empty_ops,
    ops_to_runs,
)
from iron.trace.decode.packets import gather_payload, warm_gather
from iron.trace.decode.scan import CHUNK_OPS as SCAN_CHUNK_OPS
from iron.trace.decode.scan import scan_ops, compiled_scan, parse_stream, scan_pieces, warm_ops
from iron.trace import engine as E
from iron.trace.engine import NUMPY, PlainOverflow, as_engine, for_stream, plain_output
from iron.trace.jit import jit, kernel, np


def invocations(starts, ends):
    """``(begin, end)`` cycles of the start -> end pairs (see module docstring; a
    start and an end at the same cycle: the start first). Memory: 9 bytes per
    start beyond the result; inputs in time order (slot intervals are) are not sorted again.
    Lists (a plain decode, :mod:`iron.trace.jit`) give lists, by the same rule."""
    if isinstance(starts, list):
        return _plain_invocations(starts, ends)
    starts, ends = (_in_order(np.asarray(a, np.int64)) for a in (starts, ends))
    before = np.searchsorted(ends, starts, side="left")  # ends before each start
    # a start opens an invocation when an end came since the previous start (or it is the first)
    opens = np.ones(len(starts), dtype=bool)
    opens[1:] = before[1:] != before[:-1]
    opens &= before < len(ends)  # ... and an end follows it
    return starts[opens], ends[before[opens]]


def _plain_invocations(starts: list, ends: list) -> tuple[list, list]:
    """:func:`invocations` of lists, start by start."""
    ends = sorted(ends)
    begin, end, last = [], [], -1
    for t in sorted(starts):
        before = bisect.bisect_left(ends, t)  # ends before this start
        if before != last and before < len(ends):
            begin.append(t)
            end.append(ends[before])
        last = before
    return begin, end


def _in_order(t):
    return t if len(t) < 2 or bool((t[1:] >= t[:-1]).all()) else np.sort(t)


def invocation_cycles(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Durations of start -> end pairs (see module docstring)."""
    begin, end = invocations(starts, ends)
    return end - begin


@functools.cache
def _bits():
    """(256, 8) float64: the slots of each mask (slot 0 first)."""
    return np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little").astype(
        np.float64
    )


def slot_cycles(hist) -> list[int]:
    """Asserted cycles per slot from the occurrences of each mask (``hist[mask]``, 256)."""
    counts = hist.tolist() if hasattr(hist, "tolist") else hist
    return [sum(c for m, c in enumerate(counts) if m >> s & 1) for s in range(F.SLOTS)]


CHUNK_OPS = 1 << 16  # ops per step of :func:`unit_figures` (bounds its memory: ~1 MB per int64 temporary)


def unit_figures(ops: Ops, slots: tuple[int, ...] = ()) -> dict:
    """First/last event time, asserted cycles per slot and, for ``slots``, the
    start times of their intervals, straight from the folded frames in chunks
    (no per-occurrence arrays; memory bounded by :data:`CHUNK_OPS`). Same timing
    model as :func:`iron.trace.decode.ops_to_runs`."""
    if not len(ops):
        ops = empty_ops()  # numpy arrays, whatever the unit held
    out = _no_figures(slots)
    if (ops.kind == OP_REPEAT).any():  # replays after an Event_Sync: rare, take the exact general path
        return _run_figures(ops, slots, out)
    offset = 0
    counts = np.zeros(F.SLOTS, np.int64)  # occurrences per slot of the event frames themselves
    hist = np.zeros(256, np.float64)  # ... and of their replays, per mask
    prev = None  # (mask, last occurrence) of the previous event
    for a in range(0, len(ops), CHUNK_OPS):
        events, offset = _chunk_events(ops, a, offset)
        if events is None:
            continue
        t, reps, step, mask = events
        for slot in range(F.SLOTS):  # a count per slot beats a histogram of masks (bincount casts)
            counts[slot] += np.count_nonzero(mask & np.uint8(1 << slot))
        more = np.flatnonzero(reps)
        if len(more):
            hist += np.bincount(mask.take(more), weights=reps.take(more).astype(np.float64), minlength=256)
        last = t + reps * step
        if out["first"] is None:
            out["first"] = int(t[0])
        out["last"] = int(last[-1])
        if slots:
            # an event continues the previous one's last replay (when both assert a slot)
            touch = np.empty(len(t), bool)
            touch[0] = prev is not None and prev[1] == t[0] - 1
            np.equal(last[:-1], t[1:] - 1, out=touch[1:])
            gapped = (reps > 0) & (step > 1)  # replays of a frame with cycles are separate pulses
            for slot in slots:
                pbit = prev is not None and (prev[0] >> slot) & 1
                out["starts"][slot].append(_slot_starts(t, reps, step, mask, touch, gapped, slot, pbit))
        prev = (int(mask[-1]), int(last[-1]))
    # exact in float64 (integers below 2**53): the same sums as one histogram of all occurrences
    out["cycles"] = counts + (hist @ _bits()).round().astype(np.int64)
    out["starts"] = (
        {s: np.concatenate(v) if len(v) else np.zeros(0, np.int64) for s, v in out["starts"].items()}
        if slots
        else {}
    )
    return out


def last_event_time(ops: Ops) -> int | None:
    """``unit_figures(ops)["last"]`` without the figures: the time the unit's last event
    frame (and its replays) ends at, by one sum of the timer's steps up to it."""
    if not len(ops):
        return None
    if (ops.kind == OP_REPEAT).any():  # replays after an Event_Sync: the general path
        return unit_figures(ops)["last"]
    event = ops.kind == OP_EVENT
    last = len(event) - 1 - int(np.argmax(event[::-1]))
    if not event[last]:
        return None
    # The sum of (value + 1) * (reps + 1) over the events and SYNC_CYCLES per Event_Sync,
    # as sums that need no temporaries the size of the ops (an Event_Sync's value and reps
    # are 0: it counts 1, plus SYNC_CYCLES - 1); products only where reps is not 0 (few).
    k = last + 1
    value, reps = ops.value[:k], ops.reps[:k]
    total = k + int(value.sum(dtype=np.int64)) + int(reps.sum(dtype=np.int64))
    more = np.flatnonzero(reps)
    total += int(np.dot(value.take(more).astype(np.int64), reps.take(more).astype(np.int64)))
    return total + (k - int(np.count_nonzero(event[:k]))) * (SYNC_CYCLES - 1)


def _no_figures(slots: tuple[int, ...]) -> dict:
    """:func:`unit_figures` of a unit without events."""
    return {
        "first": None,
        "last": None,
        "cycles": np.zeros(F.SLOTS, np.int64),
        "starts": {s: [] for s in slots},
    }


def _run_figures(ops: Ops, slots: tuple[int, ...], out: dict) -> dict:
    """:func:`unit_figures` by the general timing model (:func:`ops_to_runs`), into ``out``."""
    r = ops_to_runs(ops)
    if len(r):
        out.update(first=int(r.time[0]), last=r.last_time(), cycles=_cycles(r.mask, r.count))
    out["starts"] = {s: r.intervals(s)[0] for s in slots}
    return out


def _chunk_events(ops: Ops, a: int, offset: int):
    """The event frames among ops ``a`` to ``a + CHUNK_OPS`` (no OP_REPEAT in ``ops``):
    ``((time, replays, step between replays, mask), the timer after the chunk)``, the
    first None when the chunk holds no event frame. ``offset``: the timer before it."""
    kind = ops.kind[a : a + CHUNK_OPS]
    value = ops.value[a : a + CHUNK_OPS].astype(np.int64)
    value += 1  # step between replays
    reps = ops.reps[a : a + CHUNK_OPS].astype(np.int64)
    tail = reps * value
    mask = ops.mask[a : a + CHUNK_OPS]
    if (kind == OP_EVENT).all():
        cum = value + tail
        np.cumsum(cum, out=cum)
        cum += offset
        offset = int(cum[-1])
        cum -= tail  # an event occurs 1 + c cycles after the previous op's end
        return (cum, reps, value, mask), offset
    ev = np.flatnonzero(kind == OP_EVENT)
    cum = np.cumsum(np.where(kind == OP_EVENT, value + tail, SYNC_CYCLES))
    cum += offset
    offset = int(cum[-1])
    if not len(ev):
        return None, offset
    return ((cum - tail).take(ev), reps.take(ev), value.take(ev), mask.take(ev)), offset


def _slot_starts(t, reps, step, mask, touch, gapped, slot, pbit) -> np.ndarray:
    """Interval start times of ``slot`` among these events: where it is asserted and does
    not continue the previous event's last replay (``touch``, ``pbit``: the previous event,
    the one before the chunk for the first, asserted it), and each replay of an event
    whose replays are separate pulses (``gapped``)."""
    bit = (mask & np.uint8(1 << slot)) != 0
    cont = np.empty(len(t), bool)
    cont[0] = pbit
    cont[1:] = bit[:-1]
    cont &= touch
    starts = t.take(np.flatnonzero(bit > cont))  # asserted, not a continuation
    gaps = np.flatnonzero(bit & gapped)
    if len(gaps):
        n = reps.take(gaps)
        i = np.arange(int(n.sum()), dtype=np.int64) - np.repeat(np.cumsum(n) - n, n) + 1
        starts = np.concatenate([starts, np.repeat(t.take(gaps), n) + i * np.repeat(step.take(gaps), n)])
    return starts


def _cycles(mask: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Asserted cycles per slot: each occurrence asserts its slots for one cycle."""
    hist = np.bincount(mask, weights=np.asarray(count, dtype=np.float64), minlength=256)
    return (hist @ _bits()).round().astype(np.int64)


def kernel_slots(names: list[str]) -> tuple[int, int] | None:
    """Slots of the kernel start/end events, None unless both are traced."""
    if KERNEL_START in names and KERNEL_END in names:
        return names.index(KERNEL_START), names.index(KERNEL_END)
    return None


def unit_summary(du: DecodedUnit) -> dict:
    """Per-unit figures (a plain dict, JSON-ready)."""
    if du.summary is not None:
        return du.summary
    slots = kernel_slots(du.events)
    fig = unit_figures(du.ops, slots or ())
    kernel = None
    if slots:
        kernel = kernel_stats(invocation_cycles(fig["starts"][slots[0]], fig["starts"][slots[1]]))
    return _summary(du, fig, kernel)


def _summary(du: DecodedUnit, fig: dict, kernel: dict | None) -> dict:
    cycles = fig["cycles"]
    # Only event-time frames carry cycles: an event-PC (or undecoded) unit has no
    # asserted-cycle or stall figures, not figures of 0 (its counts are in "event_pc").
    events = {
        f"{slot}:{name}": int(cycles[slot])
        for slot, name in enumerate(du.events)
        if du.mode == 0 and (name != "NONE" or cycles[slot])
    }
    return {
        "unit": du.label,
        "kind": du.kind,
        "column": du.column,
        "row": du.row,
        "configured": du.unit is not None,
        "packets": du.packets,
        "frames": du.frames,
        "first": fig["first"],
        "last": fig["last"],
        "start_timer": du.start_timer,
        "kernel": kernel,
        "stalls": {k.split(":", 1)[1]: v for k, v in events.items() if is_stall(k.split(":", 1)[1])},
        "cycles": events,
        **_mode_summary(du),
    }


def _mode_summary(du: DecodedUnit) -> dict:
    """Extra figures of a unit not in event-time mode (mode 1: events per slot
    and, with the core ELF, event samples per function; mode 2: bytes left undecoded)."""
    if du.mode == 0:
        return {}
    out = {"mode": du.mode}
    if du.pc_events is not None:
        from iron.trace.decode.modes import slot_occurrences

        _occ, slot, pc = slot_occurrences(du.pc_events)
        counts = np.bincount(slot, minlength=F.SLOTS)
        out["event_pc"] = {f"{i}:{n}": int(counts[i]) for i, n in enumerate(du.events) if counts[i]}
        if du.pcmap is not None:
            from iron.trace.pcmap import function_counts

            out["functions"] = function_counts(du.pcmap, du.pc_events.expand()[1])
    if "undecoded" in du.diagnostics:
        out["undecoded_bytes"] = du.diagnostics["undecoded"]["bytes"]
    return out


def slice_summary(ds: DecodedSlice) -> dict:
    d = ds.diagnostics
    return {
        "slice": ds.label,
        "status": ds.status,
        "used_bytes": d.get("used_bytes", 0),
        "size_bytes": d.get("size_bytes", 0),
        "column_shift": ds.column_shift,
        "diagnostics": dict(d),
        "units": [unit_summary(u) for u in ds.units],
    }


def summary_dict(slices: list[DecodedSlice]) -> dict:
    return {"slices": [slice_summary(s) for s in slices]}


def _fmt(v) -> str:
    return "-" if v is None else (f"{v:.1f}" if isinstance(v, float) else str(v))


def summary_text(slices: list[DecodedSlice]) -> str:
    """A plain-text table per slice."""
    lines = []
    for s in summary_dict(slices)["slices"]:
        used, size = s["used_bytes"], s["size_bytes"]
        pct = f" ({100 * used / size:.0f}%)" if size else ""
        lines.append(f"slice {s['slice']}: status {s['status']}, {used} of {size} bytes used{pct}")
        d = s["diagnostics"]
        problems = [
            f"{k}={d[k]}"
            for k in (
                "bad_headers",
                "orphan_packets",
                "truncated_packets",
                "skipped_segments",
                "unknown_frames",
                "truncated_frames",
                "unconfigured_units",
            )
            if d.get(k)
        ]
        problems += [
            f"mode mismatch {m['unit']}: configured {m['configured']}, Start frame {m['start_frame']}"
            for m in d.get("mode_mismatch", ())
        ]
        problems += [
            f"{m['unit']} in mode {m['mode']} ({m['mode_name']}): not decoded, {m['bytes']} bytes"
            for m in d.get("undecoded", ())
        ]
        if problems:
            lines.append("  diagnostics: " + ", ".join(problems))
        if not s["units"]:
            lines.append("  (no trace packets)")
            continue
        head = f"  {'unit':<18}{'packets':>8}{'frames':>9}{'first':>10}{'last':>12}  kernel n/min/median/max"
        lines.append(head)
        for u in s["units"]:
            k = u["kernel"]
            kern = "-" if not k else "/".join(_fmt(k.get(x)) for x in ("count", "min", "median", "max"))
            label = u["unit"] + ("" if u["configured"] else " (unconfigured)")
            lines.append(
                f"  {label:<18}{u['packets']:>8}{u['frames']:>9}{_fmt(u['first']):>10}{_fmt(u['last']):>12}  {kern}"
            )
            if u["stalls"]:
                lines.append("    stall cycles: " + ", ".join(f"{n} {c}" for n, c in u["stalls"].items()))
            if "event_pc" in u:
                lines.append(
                    "    event-PC events: " + ", ".join(f"{n} {c}" for n, c in u["event_pc"].items())
                )
            if u.get("functions"):
                lines.append(
                    "    samples per function: " + ", ".join(f"{n} {c}" for n, c in u["functions"].items())
                )
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- straight from the bytes
def summarize_unit(du: DecodedUnit, data, engine=None, count: bool = False) -> None:
    """``analyze`` hook of :func:`iron.trace.decode.decode_words`: fill ``du``'s
    frame diagnostics and ``du.summary`` from its payload bytes, keeping no
    per-frame arrays: with numba (and a big stream) the compiled frame scan
    hands the folded ops a chunk at a time to the compiled :func:`_fold_figures`;
    with ``engine`` PLAIN (:mod:`iron.trace.engine`) the same scan and fold run as plain
    Python (``data`` bytes); else the numpy frame parse and :func:`unit_figures` (None:
    numba for a big stream, :func:`iron.trace.engine.for_stream`). ``count``: the
    scan also counts each slot's intervals (``du.interval_counts``, not on the numpy path);
    plain, it raises :class:`~iron.trace.engine.PlainOverflow` once they, or their count so
    far projected over the unit's bytes, pass what a plain decode writes
    (:func:`~iron.trace.engine.plain_output`)."""
    slots = kernel_slots(du.events)
    engine = as_engine(engine) or for_stream(len(data), _fold_figures)
    fold = None if engine == NUMPY else kernel(_fold_figures, engine)
    if fold is None:
        du.ops, du.start_timer, du.diagnostics = parse_stream(data, NUMPY)
        du.frames = du.diagnostics["frames"]
        if count and keeps_ops(len(data)):  # the event writers: of the summary only the last time
            du.last = last_event_time(du.ops)  # (the summary is made from the kept ops on demand)
            return
        du.summary = unit_summary(du)
        du.ops = NO_OPS  # the writers parse it again (see keeps_ops)
        return
    acc = _Figures(fold, *(slots or (-1, -1)), plain=engine.plain)
    accumulate, counter = acc, IntervalCounter(engine) if count else None
    if counter is not None:
        accumulate = lambda ops: (acc(ops), counter(ops))  # noqa: E731
    chunk, progress = SCAN_CHUNK_OPS, None
    if counter is not None and engine.plain:  # small chunks: a plain decode that will not do stops early

        def progress(pos: int) -> None:
            if not plain_output(sum(counter.counts()) * len(data) // max(pos, 1)):
                raise PlainOverflow(du.label)  # its intervals, counted or projected, are too many

        chunk = PLAIN_CHECK_OPS
    if engine.compiled:
        data = np.ascontiguousarray(data, np.uint8)
    du.diagnostics, du.start_timer = compiled_scan(data, accumulate, chunk, engine, progress)
    if counter is not None:
        du.interval_counts = counter.counts()
    _compiled_summary(du, acc)


def keeps_ops(nbytes: int) -> bool:
    """Whether :func:`summarize_counting` on the numpy path keeps the ops of a unit of
    ``nbytes`` payload bytes for the event writers (one scan per unit) rather than
    letting them parse it again: below :data:`~iron.trace.engine.COMPILED_BYTES`, where
    the numpy path runs anyway. Above it (numba missing) the ops, about 6 bytes per
    payload byte, would break the 2-bytes-per-raw-byte memory bound."""
    return nbytes < E.COMPILED_BYTES


def _summarize_pieces(du: DecodedUnit, pieces, count: bool = False) -> None:
    """:func:`summarize_unit` (compiled) of a unit's payload handed over in pieces
    (:func:`iron.trace.decode.scan.scan_pieces`): not even its bytes whole in memory.
    ``count``: also count each slot's intervals (``du.interval_counts``) in the same pass."""
    acc = _Figures(jit(_fold_figures), *(kernel_slots(du.events) or (-1, -1)))
    counter = IntervalCounter() if count else None
    report: dict = {}
    from iron.trace.export.ahead import ahead, reuse_after  # big units only: a thread, a queue

    # The scan runs on a thread ahead of the folds (both compiled, GIL released),
    # into buffer sets used in turn, none rewritten while a fold may still read it.
    chunks = scan_pieces(pieces, AHEAD_OPS, report=report, buffers=reuse_after(AHEAD_DEPTH))
    for ops in ahead(chunks, AHEAD_DEPTH):
        acc(ops)
        if counter is not None:
            counter(ops)
    du.start_timer = report.pop("start_timer")
    du.diagnostics = report
    if counter is not None:
        du.interval_counts = counter.counts()
    _compiled_summary(du, acc)


#: Ops per chunk of a plain scan that counts intervals (how soon a big unit is given up).
PLAIN_CHECK_OPS = 2048
#: Ops per chunk the scan hands the summary's folds across threads, and chunks queued.
AHEAD_OPS = 1 << 16
AHEAD_DEPTH = 4


def _compiled_summary(du: DecodedUnit, acc: "_Figures") -> None:
    slots = kernel_slots(du.events)
    du.frames = du.diagnostics["frames"]
    st = acc.state
    first, last = int(st[_FIRST]), int(st[_LAST_RUNS] if st[_LOOSE] else st[_LAST_FOLDED])
    fig = {
        "first": None if first < 0 else first,
        "last": None if last < 0 else last,
        "cycles": slot_cycles(acc.hist),
    }
    kernel = kernel_stats(acc.durations[: st[_ND]], int(st[_ZEROS])) if slots else None
    du.summary = _summary(du, fig, kernel)


# What :func:`_fold_figures` carries from one chunk of ops to the next (indices into its state).
_T, _BASE_MASK, _BASE_STEP, _LOOSE, _FIRST, _LAST_FOLDED, _LAST_RUNS = range(7)
_END0, _END1, _PAIR, _BEGIN, _ZEROS, _ND = range(7, 13)


class _Figures:
    """The summary's accumulator of the frame scan: each chunk of folded ops
    goes through the compiled :func:`_fold_figures` (``plain``: the same as plain
    Python, on lists); the state, the mask histogram and the invocation durations
    stay here between chunks."""

    def __init__(self, fold, s0: int, s1: int, plain: bool = False):
        self.fold, self.s0, self.s1, self.plain = fold, s0, s1, plain
        state = [0] * 13
        state[_BASE_STEP] = 1
        state[_FIRST] = state[_LAST_FOLDED] = state[_LAST_RUNS] = state[_PAIR] = -1
        state[_END0] = state[_END1] = -2
        self.state = state if plain else np.array(state, np.int64)
        self.hist = [0] * 256 if plain else np.zeros(256, np.int64)
        self.durations = [] if plain else np.empty(0, np.int64)

    def __call__(self, ops: Ops) -> None:
        nd = int(self.state[_ND])
        need = nd + 4 * len(ops)  # an op closes at most 4 invocations
        if need > len(self.durations):
            if self.plain:
                self.durations += [0] * (need - len(self.durations))
            else:
                grown = np.empty(max(need, 2 * len(self.durations)), np.int64)
                grown[:nd] = self.durations[:nd]
                self.durations = grown
        self.fold(
            ops.kind, ops.mask, ops.value, ops.reps, self.s0, self.s1, self.state, self.hist, self.durations
        )


def _warm_figures() -> None:
    warm_gather()
    warm_ops()
    fold = jit(_fold_figures)
    if fold is not None:
        compiled_scan(np.zeros(1, np.uint8), _Figures(fold, 0, 1))


summarize_unit.pieces = _summarize_pieces  # decode_words hands big units over in pieces
summarize_unit.warm = _warm_figures  # decode_words loads the kernels early with this
summarize_unit.kernels = lambda: [
    jit(gather_payload),
    jit(scan_ops),
    jit(_fold_figures),
]  # ... and checks these are cached


def summarize_counting(du: DecodedUnit, data, engine=None) -> None:
    """:func:`summarize_unit` that, on the compiled and plain paths, also counts
    each slot's intervals (``du.interval_counts``) in the same scan: the event
    writers' :class:`~iron.trace.decode.SlotIntervals` then skip their counting pass."""
    summarize_unit(du, data, engine, count=True)


summarize_counting.pieces = lambda du, pieces: _summarize_pieces(du, pieces, count=True)
summarize_counting.warm = _warm_figures
summarize_counting.kernels = summarize_unit.kernels


def kernel_stats(durations, zeros: int = 0) -> dict:
    """count/min/median/max of invocation durations (an array or a list):
    ``durations`` plus ``zeros`` more durations of 0 (the same figures as numpy
    on the joined array)."""
    n = len(durations) + zeros
    out = {"count": n}
    if not n:
        return out
    order = [(n - 1) // 2, n // 2]  # the middle element(s) of the sorted durations
    rest = [j - zeros for j in order if j >= zeros]  # zeros sort first (durations are never negative)
    mid = [0] * (2 - len(rest)) + _ranked(durations, rest)
    low, high = _ranked(durations, [0, len(durations) - 1]) if len(durations) else (0, 0)
    out.update(min=0 if zeros else low, median=(float(mid[0]) + float(mid[1])) / 2, max=high)  # numpy's mean
    return out


def _ranked(durations, ranks: list[int]) -> list[int]:
    """The durations of the given ranks (0: the smallest)."""
    if not ranks:
        return []
    if isinstance(durations, list):
        ordered = sorted(durations)
        return [ordered[r] for r in ranks]
    return np.partition(durations, ranks)[ranks].tolist()


_SYNC_CYCLES = SYNC_CYCLES  # a plain global: numba freezes it into the kernel


def _fold_figures(kind, mask, value, reps, s0, s1, state, hist, durations):
    """Compiled summary accumulator (numba): one chunk of folded ops -> the
    figures of :func:`unit_figures` and :func:`invocation_cycles`, with the
    timing model of :func:`iron.trace.decode.ops_to_runs`.

    An event op is a run of one occurrence, then (its folded Repeat frames) a
    run of ``reps`` occurrences ``1 + cycles`` apart; an orphan Repeat op (after
    a sync or opening the stream) replays the last event the same way.
    ``hist[mask]`` counts occurrences; interval starts of slots ``s0``/``s1``
    (kernel start/end; -1: none) feed the invocation pairing as they come, in
    time order: each closed invocation's duration goes to ``durations``
    (``state[_ND]`` of them), invocations of 0 cycles from a replayed pair of
    both slots are only counted (``state[_ZEROS]``)."""
    t = state[_T]  # timer: end of the last op
    base_mask = state[_BASE_MASK]  # slots and step of the last event (what a Repeat replays)
    base_step = state[_BASE_STEP]
    loose = state[_LOOSE]  # an orphan Repeat was seen: the last time is the last run's
    first = state[_FIRST]
    last_folded = state[_LAST_FOLDED]  # last occurrence of the folded ops (mask-0 replays count)
    last_runs = state[_LAST_RUNS]  # last occurrence of a run (ops_to_runs)
    # Invocation pairing (invocation_cycles): a kernel start (type 0) after an
    # end (type 1) begins an invocation, the next end closes it.
    end0 = state[_END0]  # last cycle slot s0 / s1 was asserted
    end1 = state[_END1]
    pair = state[_PAIR]  # type of the last interval start seen
    begin = state[_BEGIN]
    zeros = state[_ZEROS]
    nd = state[_ND]
    for i in range(len(kind)):
        kd = kind[i]
        if kd == OP_SYNC:
            t += _SYNC_CYCLES
            continue
        r = np.int64(reps[i])
        if kd == OP_EVENT:
            m = np.int64(mask[i])
            step = 1 + np.int64(value[i])
            base_mask, base_step = m, step
            t += step
            last_folded = t
            last_runs = t
            if first < 0:
                first = t
            pieces = 2 if r > 0 else 1  # the frame itself, then its replays
        else:
            loose = 1
            m, step = base_mask, base_step
            pieces = 1 if r > 0 else 0
        for piece in range(pieces):
            if kd == OP_EVENT and piece == 0:
                at = t
                count = np.int64(1)
            else:  # `r` replays of the last event
                at = t + step
                count = r
                t += r * step
                last_folded = t
                if m == 0:
                    continue
                last_runs = t
            hist[m] += count
            if s0 < 0:
                continue
            b_0 = (m >> s0) & 1
            b_1 = (m >> s1) & 1
            # Interval starts: the first occurrence starts one unless it
            # continues the slot's last interval; with gaps (step > 1) every
            # occurrence does, and from the third on (when both slots are
            # set) each is a zero-cycle invocation. Selects, not branches:
            # these bits are unpredictable.
            for p in range(1 if step == 1 or count == 1 else 2):
                x = at + p * step
                start0 = b_0 & ((p > 0) | (end0 != x - 1)) & (pair != 0)
                begin = x if start0 else begin
                pair = 0 if start0 else pair
                start1 = b_1 & ((p > 0) | (end1 != x - 1))
                durations[nd] = x - begin  # kept if this closes an invocation
                nd += start1 & (pair == 0)
                pair = 1 if start1 else pair
            if step > 1 and count > 2 and b_0 and b_1:
                zeros += count - 2
            end = at + (count - 1) * step
            end0 = end if b_0 else end0
            end1 = end if b_1 else end1
    # back in the order of the state's indices (_T ... _ND), for the next chunk
    kept = (t, base_mask, base_step, loose, first, last_folded, last_runs, end0, end1, pair, begin, zeros, nd)
    for j in range(len(kept)):
        state[j] = kept[j]
    return 0
