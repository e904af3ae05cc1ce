"""iron's Perfetto JSON (Trace Event Format); mlir-aie's JSON: :mod:`iron.trace.export.mlir_aie`.

``{"traceEvents": [...], "displayTimeUnit": "ns", "metadata": {...}}``
with ``ts``/``dur`` in microseconds (cycles / AIE clock MHz), one process per
slice ("<index>: <operator> #<call>"), per unit a kernel track (one event per
invocation) and one thread per slot, complete ``X`` events (name, ``ts``,
``dur``, pid, tid: a cycle within the slice follows from ``ts`` and the slice's
offset in ``metadata``), name and sort-index metadata, slice diagnostics in
``metadata``; compact separators. Slices sit one after another
(:mod:`iron.trace.export.timeline`).

It is written by a streaming writer: the events of one unit at a time, made
into text a chunk of rows at a time from the numpy arrays (:mod:`iron.trace.export.textout`).
Event-PC units (no cycles) become instants in capture order (:func:`perfetto_pc_events`).
"""

from __future__ import annotations

import functools
import io
import json
from collections import namedtuple  # not typing's NamedTuple: typing costs a decode ~2 ms (issue 37)

from iron.target.trace_unit import SLOTS
from iron.trace.decode import DecodedSlice, DecodedUnit, SlotIntervals
from iron.trace.decode.modes import slot_occurrences
from iron.trace.decode.timing import bound_runs
from iron.trace.engine import NUMPY
from iron.trace.export.ahead import ahead
from iron.trace.export.bound import IntervalBudget
from iron.target.events import KERNEL_END, KERNEL_START
from iron.trace.export.summary import invocations
from iron.trace.export.textout import ROWS, Fixed, output_engine, render_parts, scaled
from iron.trace.export.timeline import slice_spans
from iron.trace.jit import np


# --------------------------------------------------------------------------- iron
def unit_tracks(du: DecodedUnit, operator: str | None, engine=NUMPY, budget: IntervalBudget | None = None):
    """The tracks of one unit: ``(track index, label, event name, chunks)``, where
    ``chunks`` gives the track's ``(begin, end)`` arrays in order (cycles
    slice-relative, end exclusive). Track 0 is the kernel track (one event per
    INSTR_EVENT_0 -> INSTR_EVENT_1 invocation, named after the operator) when
    both events are traced; track 1 + slot holds a slot's intervals (a slot
    named NONE without events has no track). ``engine`` NUMBA: the slots'
    intervals by compiled passes over the ops parsed again piece by piece
    (:class:`iron.trace.decode.SlotIntervals`: memory bounded by a group of
    slots' intervals, not the unit's), unless the unit keeps its runs; PLAIN:
    those passes as plain Python (lists: a plain decode, :mod:`iron.trace.engine`).

    ``budget`` (:class:`~iron.trace.export.bound.IntervalBudget`, shared by every unit
    of the output): the chunks stop where it runs out and the rest is counted as
    dropped; the runs are bounded before they are expanded, so memory follows the
    bound, not the pulses the Repeat frames stand for."""
    budget = budget or IntervalBudget(None)
    if engine != NUMPY and "runs" not in du.__dict__:
        si = SlotIntervals(du.op_chunks, du.interval_counts, engine)
        begins, chunks, count = si.begins, si.chunks, lambda slot: int(si.counts[slot])
    else:
        runs = du.runs_unkept()
        if budget.left is not None:
            runs, cut = bound_runs(runs, budget.left)  # never expand past what may be written
            budget.drop(cut)
        intervals = _kernel_slots_kept(runs.intervals, du.events)
        begins = lambda slot: intervals(slot)[0]  # noqa: E731
        chunks = lambda slot: [intervals(slot)]  # noqa: E731
        count = lambda slot: len(intervals(slot)[0])  # noqa: E731
    names = list(du.events)
    if KERNEL_START in names and KERNEL_END in names:
        first, last = names.index(KERNEL_START), names.index(KERNEL_END)
        if budget.fits(count(first)) and budget.fits(count(last)):  # begins() holds a slot whole
            begin, end = invocations(begins(first), begins(last))
            end = [e + 1 for e in end] if engine.plain else end + 1
            yield 0, f"{du.label} kernel", operator or "kernel", _bounded([(begin, end)], budget)
        else:
            budget.drop(min(count(first), count(last)))
    for slot in range(SLOTS):
        if names[slot] != "NONE" or count(slot):
            yield 1 + slot, f"{du.label} {names[slot]}", names[slot], _bounded(chunks(slot), budget)


def _kernel_slots_kept(intervals, events):
    """``intervals(slot)``, kept after the first call for the kernel track's two slots
    (counted, paired and written: made once, not three times); other slots made when asked."""
    keep = {events.index(e) for e in (KERNEL_START, KERNEL_END) if e in events}
    kept: dict = {}

    def of(slot: int):
        if slot not in keep:
            return intervals(slot)
        if slot not in kept:
            kept[slot] = intervals(slot)
        return kept[slot]

    return of


def _bounded(chunks, budget: IntervalBudget):
    """``chunks`` cut to what ``budget`` allows; the chunks past it are counted, not made."""
    for begin, end in chunks:
        if budget.left == 0:
            budget.drop(len(begin))
            continue
        begin, end = budget.take(begin, end)
        if len(begin):
            yield begin, end


#: A track of :func:`track_stream` (its rows follow it): ``index`` (int), ``label``, ``name``.
Track = namedtuple("Track", "index label name")


def track_stream(
    du: DecodedUnit,
    operator: str | None,
    engine=NUMPY,
    rows: int = ROWS,
    budget: IntervalBudget | None = None,
    convert=None,
):
    """:func:`unit_tracks` flattened: per track a :class:`Track`, then its
    ``(begin, end)`` arrays of at most ``rows`` intervals (``convert(begin, end)`` of them when
    given). With ``engine`` NUMBA they are made on a thread ahead of the caller
    (:func:`~iron.trace.export.ahead.ahead`): the passes over the ops, and ``convert``, overlap
    the caller's rendering (numpy's: not, measured at 1 MiB: +30 MB and no faster on a busy machine)."""

    def items():
        for index, label, name, chunks in unit_tracks(du, operator, engine, budget):
            yield Track(index, label, name)
            pieces = track_rows(chunks, rows)
            yield from (convert(b, e) for b, e in pieces) if convert else pieces

    return ahead(items()) if engine.compiled else items()


def track_rows(chunks, rows: int):
    """A track's ``(begin, end)`` chunks cut into pieces of at most ``rows``."""
    for begin, end in chunks:
        for a in range(0, len(begin), rows):
            yield begin[a : a + rows], end[a : a + rows]


def process_name(ds: DecodedSlice, si: int) -> str:
    s = ds.slice
    return f"{s.index}: {s.operator} #{s.call}" if s else f"{si}: trace"


def trace_metadata(slices: list[DecodedSlice], clock_mhz: float, meta: dict | None) -> dict:
    """The slice diagnostics and time axis description written beside the events."""
    us = 1.0 / float(clock_mhz)
    return {
        "clock_mhz": clock_mhz,
        "time_origin": "slices in program order, each from its own trace start (timers reset by the start "
        "broadcast), a small gap between slices; an event's cycle within its slice is "
        "ts * clock_mhz - the slice's offset",
        "slice_offsets_us": [round(off * us, 6) for off, _ in slice_spans(slices)],
        "slices": [
            {
                "label": ds.label,
                "status": ds.status,
                "column_shift": ds.column_shift,
                "diagnostics": ds.diagnostics,
                "units": [
                    {
                        "unit": du.label,
                        "column": du.column,
                        "row": du.row,
                        "packets": du.packets,
                        "frames": du.frames,
                    }
                    for du in ds.units
                ],
            }
            for ds in slices
        ],
        **(meta or {}),
    }


def _meta(obj: dict) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


def write_perfetto_json(
    slices: list[DecodedSlice], clock_mhz: float, f, meta: dict | None = None, all_intervals: bool = False
) -> int:
    """Write iron's Perfetto JSON (module docstring) to the binary file ``f``:
    compact, the events rendered from the interval arrays a chunk at a time.

    Per slice a process; per unit a kernel track then one track per slot (see
    :func:`unit_tracks`), each a thread with a name and a sort index; complete
    ``X`` events with ``ts``/``dur`` in microseconds. At most the trace's interval
    bound is written (:mod:`iron.trace.export.bound`; ``all_intervals``: no bound);
    returns how many intervals were dropped (also in the metadata, ``output_bound``)."""
    budget = IntervalBudget.for_slices(slices, bounded=not all_intervals)
    ps_per_cycle = 1e6 / float(clock_mhz)  # ts in us with 6 decimals: integer picoseconds
    f.write(b'{"traceEvents":[')
    sep = b""
    engine = output_engine(slices)
    for si, (ds, (offset, _length)) in enumerate(zip(slices, slice_spans(slices))):
        pid = si + 1
        for rec in (
            {"name": "process_name", "ph": "M", "pid": pid, "args": {"name": process_name(ds, si)}},
            {"name": "process_sort_index", "ph": "M", "pid": pid, "args": {"sort_index": si}},
        ):
            f.write(sep + _meta(rec))
            sep = b","
        operator = ds.slice.operator if ds.slice else None
        for ui, du in enumerate(ds.units):
            if du.mode != 0:  # event-PC instants and function slices; execution trace: metadata only
                for rec in perfetto_pc_events(du, pid, ui * (SLOTS + 1) + 1, offset, 1.0 / float(clock_mhz)):
                    f.write(sep + _meta(rec))
                    sep = b","
                continue
            head = tail = b""  # the event bytes of the track whose rows follow
            times = functools.partial(_event_times, offset=offset, ps_per_cycle=ps_per_cycle, engine=engine)
            for item in track_stream(du, operator, engine, budget=budget, convert=times):
                if not isinstance(item, Track):
                    ts, dur, places = item
                    pieces = [head, Fixed(ts, places), b',"dur":', Fixed(dur, places), tail]
                    for part in render_parts(len(ts), pieces, engine):
                        f.write(part)
                    continue
                tid = ui * (SLOTS + 1) + 1 + item.index
                label, name = item.label, item.name
                for rec in (
                    _thread_name(pid, tid, label),
                    {
                        "name": "thread_sort_index",
                        "ph": "M",
                        "pid": pid,
                        "tid": tid,
                        "args": {"sort_index": tid},
                    },
                ):
                    f.write(sep + _meta(rec))
                head = b',{"name":%s,"ph":"X","ts":' % json.dumps(name).encode()
                tail = b',"pid":%d,"tid":%d}' % (pid, tid)
    meta = {**(meta or {}), **budget.metadata()}
    f.write(b'],"displayTimeUnit":"ns","metadata":' + _meta(trace_metadata(slices, clock_mhz, meta)) + b"}\n")
    return budget.dropped


def _event_times(begin, end, offset: int, ps_per_cycle: float, engine):
    """Intervals (cycles, slice-relative) as the events' ``ts`` and ``dur`` in microseconds:
    ``(ts, dur, places)``, integers of ``10**-places`` us. Integer picoseconds (6 places),
    or, when a cycle is a whole number of picoseconds ending in zeros (800 ps at 1.25 GHz,
    1000 at 1 GHz), those zeros left out (fewer places: the same decimals, written with
    fewer digits to make and no trailing zeros to drop; numpy's renderer: the compiled one
    keeps 6 places, whose divisor it has as a literal). A whole number of picoseconds a
    cycle: integer products, no float rounding (about 3x faster than :func:`scaled`)."""
    step, places = _cycle_step(ps_per_cycle)
    if engine != NUMPY:
        step, places = step * 10 ** (6 - places), 6
    if not engine.plain and step and isinstance(offset, int) and len(begin):
        begin = begin.astype(np.int64, copy=False)
        ts, dur = begin + offset, end.astype(np.int64, copy=False) - begin
        ts *= step  # in place: a new temporary costs its page faults
        dur *= step
        # the same values as scaled()'s while float64 holds its picoseconds exactly (below 2**53)
        lim = (1 << 53) // 10 ** (6 - places)
        if -lim < min(int(ts.min()), int(dur.min())) and max(int(ts.max()), int(dur.max())) < lim:
            return ts, dur, places
    return scaled(begin, offset, ps_per_cycle, engine), scaled(end, 0, ps_per_cycle, engine, minus=begin), 6


def _cycle_step(ps_per_cycle: float) -> tuple[int, int]:
    """``(step, places)``: a cycle is ``step`` units of ``10**-places`` us, places as few as
    exact (6: picoseconds; ``step`` 0 when a cycle is no whole number of picoseconds)."""
    if not float(ps_per_cycle).is_integer() or ps_per_cycle <= 0:
        return 0, 6
    step, places = int(ps_per_cycle), 6
    while places > 0 and step % 10 == 0:
        step, places = step // 10, places - 1
    return step, places


def perfetto_trace(slices: list[DecodedSlice], clock_mhz: float, meta: dict | None = None) -> dict:
    """iron's Perfetto JSON object for decoded slices (as Python objects: for
    small traces; big ones stream with :func:`write_perfetto_json`)."""
    buf = io.BytesIO()
    write_perfetto_json(slices, clock_mhz, buf, meta)
    return json.loads(buf.getvalue())


def perfetto_pc_events(du, pid: int, base_tid: int, offset: int, us: float) -> list[dict]:
    """iron Perfetto events of a mode-1 unit: per slot a track of instants
    (``args.pc``, and ``args.function`` with the core ELF), and with the ELF a
    track of function slices. Positions are capture order (one cycle apart
    from the slice start), as EVENT_PC frames carry no time."""
    if du.pc_events is None:
        return []
    occ, slot, pc = slot_occurrences(du.pc_events)
    fn = du.pcmap.functions(pc) if du.pcmap is not None else None
    out = []
    for s in sorted(set(slot.tolist())):
        out.append(_thread_name(pid, base_tid + 1 + s, f"{du.label} {du.events[s]} (event-PC)"))
    for i, (o, s, p) in enumerate(zip(occ.tolist(), slot.tolist(), pc.tolist())):
        args = {"pc": p, "order": o}
        if fn is not None:
            args["function"] = fn[i]
        out.append(
            {
                "name": du.events[s],
                "cat": du.kind,
                "ph": "i",
                "s": "t",
                "ts": round((offset + o) * us, 6),
                "pid": pid,
                "tid": base_tid + 1 + s,
                "args": args,
            }
        )
    if du.pcmap is not None:
        out += _function_slices(du, pid, base_tid, offset, us)
    return out


def _thread_name(pid: int, tid: int, name: str) -> dict:
    """The metadata record naming track ``tid`` of process ``pid``."""
    return {"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": name}}


def _function_slices(du, pid: int, base_tid: int, offset: int, us: float) -> list[dict]:
    """The function track of a mode-1 unit whose core ELF is known (its PC map): one
    slice per run of samples in one function, on track ``base_tid``."""
    from iron.trace.pcmap import function_runs

    out = [_thread_name(pid, base_tid, f"{du.label} functions")]
    for name, a, b in function_runs(du.pcmap, du.pc_events.expand()[1]):
        out.append(
            {
                "name": name,
                "cat": du.kind,
                "ph": "X",
                "ts": round((offset + a) * us, 6),
                "dur": round((b - a) * us, 6),
                "pid": pid,
                "tid": base_tid,
                "args": {"samples": b - a},
            }
        )
    return out


#: The export registry's entry (:data:`iron.trace.export.FORMATS`).
write = write_perfetto_json
