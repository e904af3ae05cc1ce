"""Vectorized trace decoder: raw words + configuration -> per-unit events.

Pipeline per slice (each step reproduces mlir-aie's ``parse.py``/``utils.py``
rules so that :mod:`iron.trace.export.mlir_aie` output matches it record for
record), one module per step:

1. and 2. :mod:`~iron.trace.decode.packets`: segments (split at runs of zero
   words, cut at the end marker), packets (header every 8th word) and each
   unit's payload bytes;
3. :mod:`~iron.trace.decode.scan`: the one frame scanner, bytes -> the
   timing-relevant frames (:class:`Ops`), numpy or compiled;
4. :mod:`~iron.trace.decode.timing`: iron's timing model, ops -> runs
   ``(time, mask, count, step)``; :mod:`~iron.trace.decode.mlir_aie_timing`:
   mlir-aie's timing model, ops -> its B/E events;

and :mod:`~iron.trace.decode.units` (a slice's units, :func:`decode_words`),
:mod:`~iron.trace.decode.modes` (event-PC and execution-trace units),
:mod:`~iron.trace.decode.diagnostics` (the counters bad data becomes: it never
raises). Frame and packet formats: :mod:`iron.target.frames`.

This package imports the names below, so ``from iron.trace.decode import X``
works for each; their modules own them (mlir-aie's timing model's on first use).
"""

from __future__ import annotations

from iron.trace.decode.diagnostics import FAILED_STATUSES, STATUSES, slice_status
from iron.trace.decode.timing import (
    NO_OPS,
    OP_EVENT,
    OP_REPEAT,
    OP_SYNC,
    OPS_FIELDS,
    IntervalCounter,
    Ops,
    Runs,
    SlotIntervals,
    bound_runs,
    empty_ops,
    ops_to_runs,
    slot_intervals,
)
from iron.trace.decode.modes import PcEvents, parse_event_pc, unit_mode
from iron.trace.decode.packets import Packets, packet_table, segments, unit_key, unit_payload
from iron.trace.decode.scan import field_table, frame_diagnostics, frame_starts, parse_stream
from iron.trace.decode.units import (
    INTERVALS_PER_BYTE,
    MIN_INTERVALS_PER_UNIT,
    PARALLEL_BYTES,
    DecodedSlice,
    DecodedUnit,
    column_shift,
    decode_words,
    unit_packet_type,
)

#: Names imported from their module on first use: a summary never needs mlir-aie's timing model.
_LAZY = {
    "MAX_MLIR_AIE_RECORDS_PER_UNIT": "iron.trace.decode.mlir_aie_timing",
    "mlir_aie_event_chunks": "iron.trace.decode.mlir_aie_timing",
    "mlir_aie_events": "iron.trace.decode.mlir_aie_timing",
}


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value  # once
    return value


__all__ = [
    "IntervalCounter",
    "NO_OPS",
    "INTERVALS_PER_BYTE",
    "MAX_MLIR_AIE_RECORDS_PER_UNIT",
    "MIN_INTERVALS_PER_UNIT",
    "OPS_FIELDS",
    "OP_EVENT",
    "OP_REPEAT",
    "OP_SYNC",
    "PARALLEL_BYTES",
    "STATUSES",
    "DecodedSlice",
    "DecodedUnit",
    "Ops",
    "Packets",
    "PcEvents",
    "Runs",
    "SlotIntervals",
    "bound_runs",
    "column_shift",
    "decode_words",
    "empty_ops",
    "field_table",
    "frame_diagnostics",
    "frame_starts",
    "mlir_aie_event_chunks",
    "mlir_aie_events",
    "ops_to_runs",
    "packet_table",
    "parse_event_pc",
    "parse_stream",
    "segments",
    "slice_status",
    "FAILED_STATUSES",
    "slot_intervals",
    "unit_key",
    "unit_mode",
    "unit_packet_type",
    "unit_payload",
]
