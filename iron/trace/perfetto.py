"""Trace Event Format outputs: mlir-aie compatible B/E list, and iron's Perfetto JSON.

mlir-aie format (``python/utils/trace/parse.py``): a JSON list; first, per
configured unit (packet types 0..3, units in configuration order) a
``process_name`` record "<core|mem|shim|memtile>_trace for tile<row>,<col>" and
8 ``thread_name`` records (one per slot, named by its event); then per unit
seen in the data (types 0..3, first-seen order) its B/E records with ``ts`` in
cycles. Its CLI writes one record per line: :func:`dumps_mlir_aie`.

iron format: ``{"traceEvents": [...], "displayTimeUnit": "ns", "metadata": {...}}``
with ``ts``/``dur`` in microseconds (cycles / AIE clock MHz), one process per
slice ("<index>: <operator> #<call>"), per unit a kernel track (one event per
invocation) and one thread per slot, complete ``X`` events, name and sort-index
metadata, slice diagnostics in ``metadata``. Slices sit one after another
(:mod:`iron.trace.timeline`).
"""

from __future__ import annotations

import json

import numpy as np

from iron.target.events import MODULE_KINDS
from iron.trace.decode import DecodedSlice, mlir_aie_events
from iron.trace.event_pc import mlir_aie_pc_records, perfetto_pc_events
from iron.trace.summary import KERNEL_END, KERNEL_START, invocations
from iron.trace.timeline import slice_spans

SLOTS = 8


def mlir_aie_records(slices: list[DecodedSlice]) -> list[dict]:
    """mlir-aie's JSON list for decoded slices (pids continue across slices)."""
    out: list[dict] = []
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
            out.append(
                {
                    "name": "process_name",
                    "ph": "M",
                    "pid": pid,
                    "args": {"name": f"{u.kind}_trace for tile{u.row},{col}"},
                }
            )
            for tid in range(SLOTS):
                out.append(
                    {
                        "name": "thread_name",
                        "ph": "M",
                        "pid": pid,
                        "tid": tid,
                        "args": {"name": u.events[tid]},
                    }
                )
        units = sorted(ds.units, key=lambda du: du.packet_type)  # stable: first-seen order within a type
        for du in units:
            hit = pids.get((du.packet_type, du.column, du.row))
            if hit is None:
                continue  # not configured: counted in the slice diagnostics
            pid, u = hit
            if du.mode != 0:  # event-PC instants (iron.trace.event_pc); execution trace: not decoded
                out.extend(mlir_aie_pc_records(du, pid, u.events))
                continue
            ts, ph, slot = mlir_aie_events(du.ops)
            names = u.events
            phs = ("E", "B")
            out.extend(
                {"name": names[s], "ts": t, "ph": phs[p], "pid": pid, "tid": s, "args": {}}
                for t, p, s in zip(ts.tolist(), ph.tolist(), slot.tolist())
            )
        pid0 += len(pids)
    return out


def dumps_mlir_aie(records: list[dict]) -> str:
    """The text mlir-aie's parse.py writes: one record per line, newline at the end."""
    return json.dumps(records).replace(", {", ",\n{") + "\n"


# --------------------------------------------------------------------------- iron
def _track(pid, tid, label, name, kind, begin, end, offset, us) -> list[dict]:
    """Metadata of one track and its complete (``X``) events; ``args.cycle`` is slice-relative."""
    out = [
        {"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": label}},
        {"name": "thread_sort_index", "ph": "M", "pid": pid, "tid": tid, "args": {"sort_index": tid}},
    ]
    ts = np.round((offset + begin) * us, 6).tolist()
    dur = np.round((end - begin) * us, 6).tolist()
    out.extend(
        {
            "name": name,
            "cat": kind,
            "ph": "X",
            "ts": t,
            "dur": d,
            "pid": pid,
            "tid": tid,
            "args": {"cycle": c},
        }
        for t, d, c in zip(ts, dur, begin.tolist())
    )
    return out


def perfetto_trace(slices: list[DecodedSlice], clock_mhz: float, meta: dict | None = None) -> dict:
    """iron's Perfetto JSON object for decoded slices.

    Per unit: a "kernel" track with one event per invocation (INSTR_EVENT_0 ->
    INSTR_EVENT_1, named after the slice's operator) when both events are
    traced, then one track per slot.
    """
    events: list[dict] = []
    us = 1.0 / float(clock_mhz)
    for si, (ds, (offset, _length)) in enumerate(zip(slices, slice_spans(slices))):
        pid = si + 1
        s = ds.slice
        pname = f"{s.index}: {s.operator} #{s.call}" if s else f"{si}: trace"
        events.append({"name": "process_name", "ph": "M", "pid": pid, "args": {"name": pname}})
        events.append({"name": "process_sort_index", "ph": "M", "pid": pid, "args": {"sort_index": si}})
        for ui, du in enumerate(ds.units):
            base = ui * (SLOTS + 1) + 1
            names = list(du.events)
            if du.mode != 0:  # event-PC instants and function slices; execution trace: metadata only
                events += perfetto_pc_events(du, pid, base, offset, us)
                continue
            if KERNEL_START in names and KERNEL_END in names:
                begin, end = invocations(
                    du.runs.intervals(names.index(KERNEL_START))[0],
                    du.runs.intervals(names.index(KERNEL_END))[0],
                )
                kernel = s.operator if s else "kernel"
                events += _track(pid, base, f"{du.label} kernel", kernel, du.kind, begin, end + 1, offset, us)
            for slot in range(SLOTS):
                begin, end = du.runs.intervals(slot)
                if len(begin) or names[slot] != "NONE":
                    label = f"{du.label} {names[slot]}"
                    events += _track(
                        pid, base + 1 + slot, label, names[slot], du.kind, begin, end, offset, us
                    )
    metadata = {
        "clock_mhz": clock_mhz,
        "time_origin": "slices in program order, each from its own trace start (timers reset by the start "
        "broadcast), a small gap between slices; args.cycle is the cycle within the slice",
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
    return {"traceEvents": events, "displayTimeUnit": "ns", "metadata": metadata}
