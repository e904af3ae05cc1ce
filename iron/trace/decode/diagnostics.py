"""Diagnostics of decoding: the frame counters of a unit, a slice's totals and status.

Bad data never raises: it becomes these counts. Per unit: ``frames``,
``unknown_frames``, ``truncated_frames``, ``start_frames``, ``sync_frames``
(and, per mode, more); per slice: the packet counts of
:func:`iron.trace.decode.packets.packet_table`, the sums of the unit counts and
a status (:data:`STATUSES`).
"""

from __future__ import annotations

#: What each slice status means, and whether a check (:func:`iron.testing.check_slices`,
#: ``iron demo``) fails on it. This is the one place that says so.
#:
#: * ``ok``: the units wrote packets and the buffer did not fill.
#: * ``empty``: no unit wrote a word into the slice: its wiring, its start or its drain
#:   failed. An error.
#: * ``full``: the slice's last word is data: the buffer filled and what the units wrote
#:   after that was dropped. The packets it holds decode as they are; it is the legitimate
#:   outcome of a size too small for the run (``IRON_TRACE_SIZE`` / ``IRON_TRACE_SIZES``
#:   chosen by the user, more traced tiles sharing it), so a check warns
#:   (:class:`iron.testing.TraceFullWarning`) and does not fail.
#: * ``bad_headers``: packets whose header names no configured unit: the stream is not
#:   what the slice's units write. An error.
STATUSES = ("ok", "empty", "full", "bad_headers")
#: Statuses a check fails on (see :data:`STATUSES`); ``full`` only warns.
FAILED_STATUSES = ("empty", "bad_headers")
FRAME_COUNTERS = ("frames", "unknown_frames", "truncated_frames", "start_frames", "sync_frames")


def no_frames() -> dict:
    """The frame counters of a unit with no frames (a new dict)."""
    return dict.fromkeys(FRAME_COUNTERS, 0)


def slice_status(words, diag: dict) -> str:
    if diag.get("used_bytes", 0) == 0:
        return "empty"
    if diag.get("bad_headers", 0):
        return "bad_headers"
    if len(words) and words[-1] != 0:
        return "full"
    return "ok"


def add_unit_totals(diag: dict, done: list) -> None:
    """Sum the units' counters into the slice's ``diag``; ``done``: (decoded unit,
    idle words) pairs. Per-unit notes (mode mismatches, undecoded units) are listed."""
    totals = {"frames": 0, "unknown_frames": 0, "truncated_frames": 0, "unconfigured_units": 0}
    for du, idle in done:
        diag["idle_words"] += idle
        totals["unconfigured_units"] += du.unit is None
        if du.diagnostics.get("dropped_intervals"):  # the truncation note (see INTERVALS_PER_BYTE)
            diag["dropped_intervals"] = diag.get("dropped_intervals", 0) + du.diagnostics["dropped_intervals"]
        for k in ("frames", "unknown_frames", "truncated_frames"):
            totals[k] += du.diagnostics[k]
        for k in ("mode_mismatch", "undecoded"):
            if k in du.diagnostics:
                diag.setdefault(k, []).append({"unit": du.label, **du.diagnostics[k]})
    diag.update(totals)
