"""Trace Event Format outputs: mlir-aie compatible B/E list, and iron's Perfetto JSON.

mlir-aie format (``python/utils/trace/parse.py``): a JSON list; first, per
configured unit (packet types 0..3, units in configuration order) a
``process_name`` record "<core|mem|shim|memtile>_trace for tile<row>,<col>" and
8 ``thread_name`` records (one per slot, named by its event); then per unit
seen in the data (types 0..3, first-seen order) its B/E records with ``ts`` in
cycles. Its CLI writes one record per line; :func:`write_mlir_aie` writes
the same bytes.

iron format: ``{"traceEvents": [...], "displayTimeUnit": "ns", "metadata": {...}}``
with ``ts``/``dur`` in microseconds (cycles / AIE clock MHz), one process per
slice ("<index>: <operator> #<call>"), per unit a kernel track (one event per
invocation) and one thread per slot, complete ``X`` events (name, ``ts``,
``dur``, pid, tid: a cycle within the slice follows from ``ts`` and the slice's
offset in ``metadata``), name and sort-index metadata, slice diagnostics in
``metadata``; compact separators. Slices sit one after another
(:mod:`iron.trace.export.timeline`).

Both are written by streaming writers: the events of one unit at a time, made
into text a chunk of rows at a time from the numpy arrays (:mod:`iron.trace.export.textout`).
"""

from __future__ import annotations

import io
import json

import numpy as np

from iron.target.events import MODULE_KINDS
from iron.target.trace_unit import SLOTS
from iron.trace.decode import DecodedSlice, DecodedUnit, SlotIntervals, mlir_aie_event_chunks
from iron.trace.event_pc import mlir_aie_pc_records, perfetto_pc_events
from iron.trace.export.summary import KERNEL_END, KERNEL_START, invocations
from iron.trace.export.textout import Choice, Fixed, render, render_method
from iron.trace.export.timeline import slice_spans

ROWS = 1 << 16  # rows per rendered chunk of the streamed writers


def output_method(slices: list[DecodedSlice]) -> str:
    """How the streamed writers render rows for these slices (:func:`iron.trace.export.textout.render_method`
    of the raw bytes decoded)."""
    return render_method(sum(int(ds.diagnostics.get("size_bytes", 0)) for ds in slices))


def _mlir_aie_layout(slices: list[DecodedSlice]):
    """mlir-aie's record order: ``("meta", record)`` and ``("unit", pid, names, unit)`` items."""
    pid0 = 0
    for ds in slices:
        pids = {}
        # pids: packet types 0..3, units in configuration order within a type
        order = sorted(range(len(ds.config)), key=lambda i: MODULE_KINDS.index(ds.config[i].kind))
        for i in order:
            u = ds.config[i]
            col = ds.config_columns[i]
            key = (MODULE_KINDS.index(u.kind), col, u.row)
            if key in pids:
                continue
            pid = pid0 + len(pids)
            pids[key] = (pid, u)
            yield "meta", {
                "name": "process_name",
                "ph": "M",
                "pid": pid,
                "args": {"name": f"{u.kind}_trace for tile{u.row},{col}"},
            }
            for tid in range(SLOTS):
                yield "meta", {
                    "name": "thread_name",
                    "ph": "M",
                    "pid": pid,
                    "tid": tid,
                    "args": {"name": u.events[tid]},
                }
        units = sorted(ds.units, key=lambda du: du.packet_type)  # stable: first-seen order within a type
        for du in units:
            hit = pids.get((du.packet_type, du.column, du.row))
            if hit is not None:  # not configured: counted in the slice diagnostics
                yield "unit", hit[0], hit[1].events, du
        pid0 += len(pids)


def write_mlir_aie(slices: list[DecodedSlice], f) -> None:
    """Write the text mlir-aie's ``parse.py`` writes (a JSON list, one record per
    line) to the binary file ``f``, rendered from the event arrays a chunk at a time."""
    sep = b"["
    method = output_method(slices)
    for item in _mlir_aie_layout(slices):
        if item[0] == "meta":
            f.write(sep + json.dumps(item[1]).encode())
            sep = b",\n"
            continue
        _, pid, names, du = item
        if du.mode != 0:  # event-PC instants (iron.trace.event_pc); execution trace: not decoded
            for rec in mlir_aie_pc_records(du, pid, names):
                f.write(sep + json.dumps(rec).encode())
                sep = b",\n"
            continue
        # per slot: the record up to its time; per (phase, slot): the rest
        head = [b'{"name": %s, "ts": ' % json.dumps(n).encode() for n in names]
        tail = [
            b', "ph": "%c", "pid": %d, "tid": %d, "args": {}}' % (ph, pid, s)
            for ph in b"EB"
            for s in range(SLOTS)
        ]
        for ts, ph, slot in mlir_aie_event_chunks(du.load_ops()):
            for a in range(0, len(ts), ROWS):
                sl = slice(a, a + ROWS)
                rows = render(
                    len(ts[sl]),
                    [
                        b",\n",
                        Choice(slot[sl], head),
                        ts[sl],
                        Choice(ph[sl].astype(np.int64) * SLOTS + slot[sl], tail),
                    ],
                    method,
                )
                if sep == b"[":  # the document's first record
                    f.write(sep)
                    rows = rows[2:]
                f.write(rows)
                sep = b",\n"
    f.write(b"[]\n" if sep == b"[" else b"]\n")


def mlir_aie_text(slices: list[DecodedSlice]) -> bytes:
    """:func:`write_mlir_aie` into memory."""
    buf = io.BytesIO()
    write_mlir_aie(slices, buf)
    return buf.getvalue()


def mlir_aie_records(slices: list[DecodedSlice]) -> list[dict]:
    """mlir-aie's JSON list for decoded slices (pids continue across slices), as
    Python objects (one dict per event: for small traces; big ones stream with
    :func:`write_mlir_aie`)."""
    return json.loads(mlir_aie_text(slices))


def dumps_mlir_aie(records: list[dict]) -> str:
    """The text mlir-aie's parse.py writes for ``records``: one record per line, newline at the end."""
    return json.dumps(records).replace(", {", ",\n{") + "\n"


# --------------------------------------------------------------------------- iron
def unit_tracks(du: DecodedUnit, operator: str | None, method: str = "numpy"):
    """The tracks of one unit: ``(track index, label, event name, begin, end)``,
    cycles slice-relative, end exclusive. Track 0 is the kernel track (one event
    per INSTR_EVENT_0 -> INSTR_EVENT_1 invocation, named after the operator)
    when both events are traced; track 1 + slot holds a slot's intervals (a slot
    named NONE without events has no track). ``method`` "numba": the slots'
    intervals by compiled passes over the ops (:class:`iron.trace.decode.SlotIntervals`:
    only the ops and a slot's intervals in memory), unless the unit keeps its runs."""
    if method == "numba" and "runs" not in du.__dict__:
        intervals = SlotIntervals(du.load_ops())
    else:
        intervals = du.runs_unkept().intervals
    names = list(du.events)
    if KERNEL_START in names and KERNEL_END in names:
        begin, end = invocations(
            intervals(names.index(KERNEL_START))[0],
            intervals(names.index(KERNEL_END))[0],
        )
        yield 0, f"{du.label} kernel", operator or "kernel", begin, end + 1
    for slot in range(SLOTS):
        begin, end = intervals(slot)
        if len(begin) or names[slot] != "NONE":
            yield 1 + slot, f"{du.label} {names[slot]}", names[slot], begin, end


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


def write_perfetto_json(slices: list[DecodedSlice], clock_mhz: float, f, meta: dict | None = None) -> None:
    """Write iron's Perfetto JSON (module docstring) to the binary file ``f``:
    compact, the events rendered from the interval arrays a chunk at a time.

    Per slice a process; per unit a kernel track then one track per slot (see
    :func:`unit_tracks`), each a thread with a name and a sort index; complete
    ``X`` events with ``ts``/``dur`` in microseconds."""
    ps_per_cycle = 1e6 / float(clock_mhz)  # ts in us with 6 decimals: integer picoseconds
    f.write(b'{"traceEvents":[')
    sep = b""
    method = output_method(slices)
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
            for track, label, name, begin, end in unit_tracks(du, operator, method):
                tid = ui * (SLOTS + 1) + 1 + track
                for rec in (
                    {"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": label}},
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
                for a in range(0, len(begin), ROWS):
                    b, e = begin[a : a + ROWS], end[a : a + ROWS]
                    ts = np.rint((offset + b) * ps_per_cycle).astype(np.int64)
                    dur = np.rint((e - b) * ps_per_cycle).astype(np.int64)
                    f.write(render(len(b), [head, Fixed(ts, 6), b',"dur":', Fixed(dur, 6), tail], method))
    f.write(b'],"displayTimeUnit":"ns","metadata":' + _meta(trace_metadata(slices, clock_mhz, meta)) + b"}\n")


def perfetto_trace(slices: list[DecodedSlice], clock_mhz: float, meta: dict | None = None) -> dict:
    """iron's Perfetto JSON object for decoded slices (as Python objects: for
    small traces; big ones stream with :func:`write_perfetto_json`)."""
    buf = io.BytesIO()
    write_perfetto_json(slices, clock_mhz, buf, meta)
    return json.loads(buf.getvalue())
