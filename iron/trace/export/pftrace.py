"""Perfetto's native trace format (protobuf ``Trace``): what ui.perfetto.dev loads fastest.

Layout (the same tracks and intervals as iron's Perfetto JSON): per slice a
process track (pid = slice index + 1, named like the JSON's process); under it,
per unit its kernel track and one track per slot (:func:`iron.trace.export.perfetto.unit_tracks`),
in that order. Times are nanoseconds on the slices' shared axis
(:mod:`iron.trace.export.timeline`).

Every track has a packet sequence of its own. The sequence's first packet
describes the track, clears the sequence's incremental state, interns the
track's one event name (iid 1) and makes the track the default of its
TrackEvents. So an event packet carries only its timestamp, the sequence id and
a TrackEvent of type SLICE_BEGIN (with the name iid) or SLICE_END: about 30
bytes an interval. Those packets, the bulk, are rendered from the interval
arrays (:mod:`iron.trace.export.textout`) in chunks.

The protobuf wire format is simple (a key varint ``number << 3 | wire type``,
then a varint or a length and the bytes), so the few messages iron writes are
encoded here from :data:`PROTO`, their field numbers: the ``protobuf`` module
(about 0.2 s and 8 MiB to import) is not needed. Fields are written in field
number order, as protobuf's own serializers do (the tests parse the output with
the ``perfetto`` package's protos and serialize it again to the same bytes).
"""

from __future__ import annotations

from iron.trace.decode import DecodedSlice
from iron.trace.engine import NUMPY
from iron.trace.export.bound import IntervalBudget
from iron.trace.export.perfetto import Track, process_name, track_stream
from iron.trace.export.textout import Varint, output_engine, render, render_parts, scaled, varint, varint_size
from iron.trace.jit import np
from iron.trace.export.timeline import slice_spans

#: The messages and fields iron writes: message -> field -> (field number, type); a type
#: is "varint" (integers and enums), "string", or the name of a nested message. Source:
#: google/perfetto ``protos/perfetto/trace/`` (``trace.proto``, ``trace_packet.proto``,
#: ``trace_packet_defaults.proto``, ``interned_data/interned_data.proto``,
#: ``track_event/{track_descriptor,process_descriptor,track_event}.proto``), as
#: compiled into the ``perfetto`` Python package 0.59.1 (``perfetto_trace_pb2``),
#: against whose descriptors the tests check every entry.
PROTO = {
    "Trace": {"packet": (1, "TracePacket")},
    "TracePacket": {
        "timestamp": (8, "varint"),
        "trusted_packet_sequence_id": (10, "varint"),
        "track_event": (11, "TrackEvent"),
        "interned_data": (12, "InternedData"),
        "sequence_flags": (13, "varint"),
        "trace_packet_defaults": (59, "TracePacketDefaults"),
        "track_descriptor": (60, "TrackDescriptor"),
    },
    "TrackDescriptor": {
        "uuid": (1, "varint"),
        "name": (2, "string"),
        "process": (3, "ProcessDescriptor"),
        "parent_uuid": (5, "varint"),
        "child_ordering": (11, "varint"),
        "sibling_order_rank": (12, "varint"),
        "description": (14, "string"),
    },
    "ProcessDescriptor": {"pid": (1, "varint"), "process_name": (6, "string")},
    "InternedData": {"event_names": (2, "EventName")},
    "EventName": {"iid": (1, "varint"), "name": (2, "string")},
    "TracePacketDefaults": {"track_event_defaults": (11, "TrackEventDefaults")},
    "TrackEventDefaults": {"track_uuid": (11, "varint")},
    "TrackEvent": {"type": (9, "varint"), "name_iid": (10, "varint")},
}
#: Enum values (same source): TrackEvent.Type, TracePacket.SequenceFlags,
#: TrackDescriptor.ChildTracksOrdering.
TYPE_SLICE_BEGIN, TYPE_SLICE_END = 1, 2
SEQ_INCREMENTAL_STATE_CLEARED = 1
EXPLICIT = 3

NAME_IID = 1  # the one interned event name of a track's sequence


def tag(message: str, field: str) -> bytes:
    """The key bytes of ``field`` of ``message``: its number and wire type (0 varint, 2 length-delimited)."""
    number, kind = PROTO[message][field]
    return varint(number << 3 | (0 if kind == "varint" else 2))


def encode(message: str, fields: dict) -> bytes:
    """The protobuf bytes of one ``message`` (a name in :data:`PROTO`) with ``fields``
    (field name -> a non-negative int, a str, a dict for a nested message, or a list of
    them for a repeated field), in field number order."""
    out = bytearray()
    for field in sorted(fields, key=lambda f: PROTO[message][f][0]):
        kind = PROTO[message][field][1]
        values = fields[field]
        for value in values if isinstance(values, list) else [values]:
            out += tag(message, field)
            if kind == "varint":
                if not 0 <= value < 1 << 64:
                    raise ValueError(f"{message}.{field} = {value}: iron writes only integers 0 .. 2**64 - 1")
                out += varint(value)
                continue
            body = value.encode() if kind == "string" else encode(kind, value)
            out += varint(len(body)) + body
    return bytes(out)


class _EventBytes:
    """The constant bytes around the timestamps of one sequence's event packets."""

    def __init__(self, seq: int):
        body_b = encode("TrackEvent", {"type": TYPE_SLICE_BEGIN, "name_iid": NAME_IID})
        body_e = encode("TrackEvent", {"type": TYPE_SLICE_END})
        self.packet = tag("Trace", "packet")
        self.ts = tag("TracePacket", "timestamp")
        seq_field = encode("TracePacket", {"trusted_packet_sequence_id": seq})
        event = tag("TracePacket", "track_event")
        self.after_b = seq_field + event + varint(len(body_b)) + body_b
        self.after_e = seq_field + event + varint(len(body_e)) + body_e
        # packet length = timestamp key + its varint (k bytes) + the rest, then the key:
        # what goes before a timestamp of k bytes
        self.head_b = [varint(len(self.ts) + k + len(self.after_b)) + self.ts for k in range(11)]
        self.head_e = [varint(len(self.ts) + k + len(self.after_e)) + self.ts for k in range(11)]

    def rows(self, begin, end, offset: int, ns_per_cycle: float, engine=NUMPY) -> list:
        """Begin and end packets of each interval, in order: timestamps
        ``round((offset + cycle) * ns_per_cycle)``; buffers to write in order
        (:func:`~iron.trace.export.textout.render_parts`)."""
        if engine == NUMPY and len(begin):
            return [self._fixed_rows(_ns(begin, offset, ns_per_cycle), _ns(end, offset, ns_per_cycle))]
        return render_parts(
            len(begin),
            [
                self.packet,
                Varint(begin, offset, ns_per_cycle, self.head_b),
                self.after_b,
                self.packet,
                Varint(end, offset, ns_per_cycle, self.head_e),
                self.after_e,
            ],
            engine,
        )

    def _fixed_rows(self, ts_b, ts_e):
        """:meth:`rows` by numpy for timestamps ``ts_b``/``ts_e`` (ns): the rows cut
        where the byte counts of their two timestamps change (timestamps grow along a
        track: a few cuts), each piece's rows of one width laid out as a matrix, column
        by column; no mask of used bytes to pack (what :func:`render` needs for rows of
        mixed widths)."""
        kb, ke = varint_size(ts_b), varint_size(ts_e)
        cut = np.flatnonzero((kb[1:] != kb[:-1]) | (ke[1:] != ke[:-1])) + 1
        if len(cut) > MAX_PIECES:  # timestamps out of order: the general renderer
            return render(
                len(ts_b),
                [
                    self.packet,
                    Varint(ts_b, sized=self.head_b),
                    self.after_b,
                    self.packet,
                    Varint(ts_e, sized=self.head_e),
                    self.after_e,
                ],
            )
        bounds = [0, *cut.tolist(), len(ts_b)]
        return b"".join(
            self._piece(ts_b[a:z], ts_e[a:z], int(kb[a]), int(ke[a])).data for a, z in zip(bounds, bounds[1:])
        )

    def _piece(self, ts_b, ts_e, nb: int, ne: int):
        """Rows whose begin timestamps are ``nb``-byte varints and end ones ``ne``-byte: an
        (rows, width) uint8 matrix."""
        head_b = self.packet + self.head_b[nb]
        head_e = self.after_b + self.packet + self.head_e[ne]
        layout = [head_b, nb, head_e, ne, self.after_e]
        width = sum(p if isinstance(p, int) else len(p) for p in layout)
        buf = np.empty((len(ts_b), width), np.uint8)
        col, values = 0, iter((ts_b, ts_e))
        for p in layout:
            if isinstance(p, bytes):
                buf[:, col : col + len(p)] = np.frombuffer(p, np.uint8)
                col += len(p)
                continue
            v = next(values).astype(np.uint64)
            for k in range(p):  # 7 bits a byte, the high bit set on all but the last
                byte = (v >> np.uint64(7 * k)).astype(np.uint8) & np.uint8(0x7F)
                buf[:, col + k] = byte | np.uint8(0x80) if k < p - 1 else byte
            col += p
        return buf


def _ns(cycles, offset: int, ns_per_cycle: float):
    """``round((offset + cycle) * ns_per_cycle)`` of each cycle (int64, as
    :func:`~iron.trace.export.textout.scaled`); at 1 ns a cycle (a 1 GHz clock: NPU2) in
    integers, the same values while float64 holds them exactly (below 2**53)."""
    if ns_per_cycle == 1.0 and isinstance(offset, int) and len(cycles):
        ns = cycles + offset
        if -(1 << 53) < int(ns.min()) and int(ns.max()) < 1 << 53:
            return ns.astype(np.int64, copy=False)
    return scaled(cycles, offset, ns_per_cycle, NUMPY)


#: Pieces of one width :meth:`_EventBytes._fixed_rows` cuts rows into at most.
MAX_PIECES = 64


def _write_packet(f, packet: dict) -> None:
    """One TracePacket (as :func:`encode` takes it) as a ``Trace.packet`` entry."""
    f.write(encode("Trace", {"packet": packet}))


def write_pftrace(
    slices: list[DecodedSlice], clock_mhz: float, f, meta: dict | None = None, all_intervals: bool = False
) -> int:
    """Write the native Perfetto trace of decoded slices to the binary file ``f``
    (layout: module docstring). ``meta`` (target, kernel) names the first process.
    At most the trace's interval bound is written (:mod:`iron.trace.export.bound`;
    ``all_intervals``: no bound); returns how many intervals were dropped (also in the
    first process's description)."""
    budget = IntervalBudget.for_slices(slices, bounded=not all_intervals)
    ns_per_cycle = 1000.0 / float(clock_mhz)
    uuid, seq = 0, 0
    engine = output_engine(slices)
    for si, (ds, (offset, _length)) in enumerate(zip(slices, slice_spans(slices))):
        uuid += 1
        process_uuid = uuid
        track = {
            "uuid": process_uuid,
            "process": {"pid": si + 1, "process_name": process_name(ds, si)},
            "child_ordering": EXPLICIT,
        }
        if meta and si == 0:
            track["description"] = ", ".join(f"{k} {v}" for k, v in meta.items())
        _write_packet(f, {"track_descriptor": track})
        rank = 0
        operator = ds.slice.operator if ds.slice else None
        for du in ds.units:
            ev = None  # the event bytes of the track whose rows follow
            for item in track_stream(du, operator, engine, budget=budget):
                if not isinstance(item, Track):
                    begin, end = item
                    for part in ev.rows(begin, end, offset, ns_per_cycle, engine):
                        f.write(part)
                    continue
                uuid += 1
                seq += 1
                _write_packet(f, _track_packet(seq, uuid, process_uuid, rank, item))
                rank += 1
                ev = _EventBytes(seq)
    if budget.dropped:  # the bound's note: a track of its own, after every event
        note = f"iron: output bounded at {budget.limit} intervals, {budget.dropped} later intervals dropped"
        _write_packet(f, {"track_descriptor": {"uuid": uuid + 1, "name": note}})
    return budget.dropped


def _track_packet(seq: int, uuid: int, parent: int, rank: int, track: Track) -> dict:
    """The first packet of a track's sequence: the track, its one interned event
    name, the track as its TrackEvents' default; the sequence's state cleared."""
    return {
        "trusted_packet_sequence_id": seq,
        "sequence_flags": SEQ_INCREMENTAL_STATE_CLEARED,
        "track_descriptor": {
            "uuid": uuid,
            "parent_uuid": parent,
            "name": track.label,
            "sibling_order_rank": rank,
        },
        "interned_data": {"event_names": [{"iid": NAME_IID, "name": track.name}]},
        "trace_packet_defaults": {"track_event_defaults": {"track_uuid": uuid}},
    }


#: The export registry's entry (:data:`iron.trace.export.FORMATS`).
write = write_pftrace
