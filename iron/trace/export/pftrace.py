"""Perfetto's native trace format (protobuf ``Trace``): what ui.perfetto.dev loads fastest.

Layout (the same tracks and intervals as iron's Perfetto JSON): per slice a
process track (pid = slice index + 1, named like the JSON's process); under it,
per unit its kernel track and one track per slot (:func:`iron.trace.export.perfetto.unit_tracks`),
in that order. Times are nanoseconds on the slices' shared axis
(:mod:`iron.trace.export.timeline`).

Every track has a packet sequence of its own. The sequence's first packet
(built with the ``perfetto`` package's protos) describes the track, clears the
sequence's incremental state, interns the track's one event name (iid 1) and
makes the track the default of its TrackEvents. So an event packet carries only
its timestamp, the sequence id and a TrackEvent of type SLICE_BEGIN (with the
name iid) or SLICE_END: about 30 bytes an interval. Those packets, the bulk,
are rendered from the interval arrays (:mod:`iron.trace.export.textout`) in chunks,
with the field numbers taken from the protos' descriptors.
"""

from __future__ import annotations

import numpy as np

from iron.trace.decode import DecodedSlice
from iron.trace.export.bound import IntervalBudget
from iron.trace.export.perfetto import Track, process_name, track_stream
from iron.trace.export.textout import Choice, Varint, output_method, render, varint, varint_size
from iron.trace.export.timeline import slice_spans

NAME_IID = 1  # the one interned event name of a track's sequence


def _pb():
    # The protobuf module takes ~0.2 s to import: only when this format is written.
    from perfetto.protos.perfetto.trace import perfetto_trace_pb2

    return perfetto_trace_pb2


def _tag(message, field: str) -> bytes:
    """The key bytes of ``field`` of a proto message class (wire type from its type)."""
    fd = message.DESCRIPTOR.fields_by_name[field]
    wire = 2 if fd.type in (fd.TYPE_MESSAGE, fd.TYPE_STRING, fd.TYPE_BYTES) else 0
    return varint(fd.number << 3 | wire)


class _EventBytes:
    """The constant bytes around the timestamps of one sequence's event packets."""

    def __init__(self, pb, seq: int):
        te = pb.TrackEvent
        body_b = _tag(te, "type") + varint(te.TYPE_SLICE_BEGIN) + _tag(te, "name_iid") + varint(NAME_IID)
        body_e = _tag(te, "type") + varint(te.TYPE_SLICE_END)
        pk = pb.TracePacket
        self.packet = _tag(pb.Trace, "packet")
        self.ts = _tag(pk, "timestamp")
        seq_field = _tag(pk, "trusted_packet_sequence_id") + varint(seq)
        self.after_b = seq_field + _tag(pk, "track_event") + varint(len(body_b)) + body_b
        self.after_e = seq_field + _tag(pk, "track_event") + varint(len(body_e)) + body_e
        # packet length = timestamp key + its varint + the rest; one byte while < 128
        self.len_b = [varint(len(self.ts) + k + len(self.after_b)) for k in range(11)]
        self.len_e = [varint(len(self.ts) + k + len(self.after_e)) for k in range(11)]

    def rows(self, t_begin: np.ndarray, t_end: np.ndarray, method: str = "numpy") -> np.ndarray:
        """Begin and end packets of each interval, in order."""
        return render(
            len(t_begin),
            [
                self.packet,
                Choice(varint_size(t_begin), self.len_b),
                self.ts,
                Varint(t_begin),
                self.after_b,
                self.packet,
                Choice(varint_size(t_end), self.len_e),
                self.ts,
                Varint(t_end),
                self.after_e,
            ],
            method,
        )


def _write_packet(pb, f, packet) -> None:
    trace = pb.Trace()
    trace.packet.append(packet)
    f.write(trace.SerializeToString())


def write_pftrace(
    slices: list[DecodedSlice], clock_mhz: float, f, meta: dict | None = None, all_intervals: bool = False
) -> int:
    """Write the native Perfetto trace of decoded slices to the binary file ``f``
    (layout: module docstring). ``meta`` (target, kernel) names the first process.
    At most the trace's interval bound is written (:mod:`iron.trace.export.bound`;
    ``all_intervals``: no bound); returns how many intervals were dropped (also in the
    first process's description)."""
    budget = IntervalBudget.for_slices(slices, bounded=not all_intervals)
    pb = _pb()
    ns_per_cycle = 1000.0 / float(clock_mhz)
    uuid, seq = 0, 0
    method = output_method(slices)
    for si, (ds, (offset, _length)) in enumerate(zip(slices, slice_spans(slices))):
        uuid += 1
        process_uuid = uuid
        pkt = pb.TracePacket()
        td = pkt.track_descriptor
        td.uuid = process_uuid
        td.process.pid = si + 1
        td.process.process_name = process_name(ds, si)
        td.child_ordering = pb.TrackDescriptor.EXPLICIT
        if meta and si == 0:
            td.description = ", ".join(f"{k} {v}" for k, v in meta.items())
        _write_packet(pb, f, pkt)
        rank = 0
        operator = ds.slice.operator if ds.slice else None
        for du in ds.units:
            ev = None  # the event bytes of the track whose rows follow
            for item in track_stream(du, operator, method, budget=budget):
                if not isinstance(item, Track):
                    begin, end = item
                    tb = np.rint((offset + begin) * ns_per_cycle).astype(np.uint64)
                    te = np.rint((offset + end) * ns_per_cycle).astype(np.uint64)
                    f.write(ev.rows(tb, te, method))
                    continue
                uuid += 1
                seq += 1
                pkt = pb.TracePacket()
                pkt.trusted_packet_sequence_id = seq
                pkt.sequence_flags = pb.TracePacket.SEQ_INCREMENTAL_STATE_CLEARED
                pkt.track_descriptor.uuid = uuid
                pkt.track_descriptor.parent_uuid = process_uuid
                pkt.track_descriptor.name = item.label
                pkt.track_descriptor.sibling_order_rank = rank
                pkt.interned_data.event_names.add(iid=NAME_IID, name=item.name)
                pkt.trace_packet_defaults.track_event_defaults.track_uuid = uuid
                _write_packet(pb, f, pkt)
                rank += 1
                ev = _EventBytes(pb, seq)
    if budget.dropped:  # the bound's note: a track of its own, after every event
        pkt = pb.TracePacket()
        pkt.track_descriptor.uuid = uuid + 1
        pkt.track_descriptor.name = (
            f"iron: output bounded at {budget.limit} intervals, {budget.dropped} later intervals dropped"
        )
        _write_packet(pb, f, pkt)
    return budget.dropped
