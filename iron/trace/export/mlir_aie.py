"""mlir-aie's JSON (``python/utils/trace/parse.py``), written byte for byte as its parser does.

A JSON list; first, per configured unit (packet types 0..3, units in
configuration order) a ``process_name`` record "<core|mem|shim|memtile>_trace
for tile<row>,<col>" and 8 ``thread_name`` records (one per slot, named by its
event); then per unit seen in the data (types 0..3, first-seen order) its B/E
records with ``ts`` in cycles, timed by mlir-aie's model
(:mod:`iron.trace.decode.mlir_aie_timing`). Its CLI writes one record per line;
:func:`write_mlir_aie` writes the same bytes, streamed: the events of one unit
at a time, rendered a chunk of rows at a time (:mod:`iron.trace.export.textout`).
"""

from __future__ import annotations

import io
import json

from iron.target.events import MODULE_KINDS
from iron.target.frames import SLOTS
from iron.trace.decode import DecodedSlice
from iron.trace.export.bound import RecordBudget
from iron.trace.decode.mlir_aie_timing import CHUNK_OPS, mlir_aie_event_chunks, mlir_aie_event_stream
from iron.trace.decode.modes import slot_occurrences
from iron.trace.export.ahead import ahead
from iron.trace.export.textout import ROWS, Choice, output_engine, render_parts
from iron.trace.jit import np


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


def write_mlir_aie(slices: list[DecodedSlice], f, budget: RecordBudget | None = None) -> None:
    """Write the text mlir-aie's ``parse.py`` writes (a JSON list, one record per
    line) to the binary file ``f``, rendered from the event arrays a chunk at a time.
    ``budget``: the records allowed across every unit of the output (one
    :class:`~iron.trace.export.bound.RecordBudget` shared by the files of one trace);
    past it a :class:`~iron.trace.words.TraceInputError`, never a truncated file."""
    budget = budget or RecordBudget()
    sep = b"["
    engine = output_engine(slices)
    for item in _mlir_aie_layout(slices):
        if item[0] == "meta":
            f.write(sep + json.dumps(item[1]).encode())
            sep = b",\n"
            continue
        _, pid, names, du = item
        if du.mode != 0:  # event-PC instants (mlir_aie_pc_records); execution trace: not decoded
            for rec in mlir_aie_pc_records(du, pid, names):
                f.write(sep + json.dumps(rec).encode())
                sep = b",\n"
            continue
        sep = _write_unit_events(f, sep, du, pid, names, engine, budget)
    f.write(b"[]\n" if sep == b"[" else b"]\n")


def _write_unit_events(f, sep: bytes, du, pid: int, names, engine, budget: RecordBudget) -> bytes:
    """Write a unit's B/E records after ``sep`` (``b"["``: none written yet); returns the next
    separator. A row is rendered as the previous record's tail, the separator and this record's
    head (one string of a table: :func:`_junctions`), then its time; the unit's last tail after."""
    junctions, tails = _junctions(names, pid)
    prev = -1  # the tail (phase * SLOTS + slot) of the unit's last record written, -1: none yet
    for ts, ph, slot in _unit_events(du, engine):
        budget.add(len(ts))  # across all units: 4 units no longer give 4x the bound
        for a in range(0, len(ts), ROWS):
            sl = slice(a, a + ROWS)
            tail = _tail_index(ph[sl], slot[sl])
            parts = render_parts(
                len(ts[sl]), [Choice(_junction_index(prev, tail, slot[sl]), junctions), ts[sl]], engine
            )
            if sep == b"[":  # the document's first record
                f.write(sep)
                parts[0] = parts[0][2:]
            for part in parts:
                f.write(part)
            sep, prev = b",\n", int(tail[-1])
    if prev >= 0:
        f.write(tails[prev])
    return sep


def _junctions(names, pid: int) -> tuple[list[bytes], list[bytes]]:
    """A unit's record tails (per phase, slot: "E" first) and the strings between two records'
    times: the previous record's tail (none: the unit's first), the separator, the record's head
    (per slot), at ``(previous tail + 1) * SLOTS + slot``."""
    heads = [b'{"name": %s, "ts": ' % json.dumps(n).encode() for n in names]
    tails = [
        b', "ph": "%c", "pid": %d, "tid": %d, "args": {}}' % (ph, pid, s)
        for ph in b"EB"
        for s in range(SLOTS)
    ]
    return [t + b",\n" + h for t in [b"", *tails] for h in heads], tails


def _junction_index(prev: int, tail, slot):
    """Per row, its string among :func:`_junctions`: the tail of the row before (``prev`` before
    the first) and the row's slot."""
    if isinstance(tail, list):
        return [(t + 1) * SLOTS + s for t, s in zip([prev, *tail[:-1]], slot)]
    index = np.empty(len(tail), np.int64)
    index[0], index[1:] = prev + 1, tail[:-1]
    index[1:] += 1
    # in place: a new temporary per step costs its page faults (0.53 -> 0.06 ms a chunk)
    index *= SLOTS
    index += slot
    return index


def _tail_index(ph, slot):
    """Per event, its record's tail among the tail strings (phase-major)."""
    if isinstance(ph, list):
        return [p * SLOTS + s for p, s in zip(ph, slot)]
    index = ph.astype("int64")
    index *= SLOTS
    index += slot
    return index


def _unit_events(du, engine):
    """mlir-aie's events of a unit in chunks; compiled: its ops parsed again piece
    by piece (memory: a chunk, not the unit's ops), on a thread ahead of the rendering;
    plain: the compiled pass as plain Python (a plain decode: lists)."""
    if engine.compiled:
        return ahead(mlir_aie_event_stream(du.op_chunks(CHUNK_OPS), engine))
    if engine.plain:
        return mlir_aie_event_stream(du.op_chunks(CHUNK_OPS), engine)
    return mlir_aie_event_chunks(du.load_ops())


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


def mlir_aie_pc_records(du, pid: int, names: list[str]) -> list[dict]:
    """mlir-aie format records of a mode-1 unit: one thread-scoped instant
    (``"ph": "i", "s": "t"``) per fired slot, in capture order (``ts`` = position in
    the stream, since the frames carry no cycles), the PC in ``args.pc``; fields in
    the order parse.py writes them (mlir-aie ``convert_commands_to_json`` at
    93d0a7cc, PR #3504). Empty for a mode-2 unit."""
    if du.pc_events is None:
        return []
    occ, slot, pc = slot_occurrences(du.pc_events)
    return [
        {"name": names[s], "ts": o, "ph": "i", "s": "t", "pid": pid, "tid": s, "args": {"pc": p}}
        for o, s, p in zip(occ.tolist(), slot.tolist(), pc.tolist())
    ]


def write(
    slices: list[DecodedSlice], clock_mhz: float, f, meta: dict | None = None, all_intervals=False
) -> int:
    """The export registry's entry (:data:`iron.trace.export.FORMATS`): mlir-aie's JSON has no
    clock or metadata; it is never truncated, and refused past two records per interval of the
    trace's bound (``all_intervals``: past the format's own bound; :meth:`RecordBudget.for_slices`)."""
    write_mlir_aie(slices, f, RecordBudget.for_slices(slices, not all_intervals))
    return 0
