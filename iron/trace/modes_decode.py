"""Decoding of units whose trace mode is not event-time (called by :func:`iron.trace.decode.decode_words`).

* mode 1 (event-PC): :mod:`iron.trace.event_pc`; the unit keeps ``pc_events``
  and no mode-0 ops.
* mode 2 (execution trace): no public description of its format exists, so the
  unit is reported as not decoded with its byte count (``undecoded``
  diagnostic), never turned into events.
"""

from __future__ import annotations

import numpy as np

from iron.target.trace_modes import EVENT_PC, MODES


def decode_other_mode(du, data: np.ndarray, mode_diag: dict) -> None:
    """Fill ``du`` (a :class:`~iron.trace.decode.DecodedUnit` with ``du.mode`` set) from ``data``."""
    base = {"frames": 0, "unknown_frames": 0, "truncated_frames": 0, "start_frames": 0, "sync_frames": 0}
    if du.mode == EVENT_PC:
        from iron.trace.event_pc import parse_event_pc, start_timer_of

        du.pc_events, commands, diag = parse_event_pc(data)
        du.start_timer = start_timer_of(commands)
        du.diagnostics = {**base, **diag, **mode_diag}
        du.frames = diag["frames"]
        return
    du.diagnostics = {
        **base,
        **mode_diag,
        "undecoded": {"mode": du.mode, "mode_name": MODES.get(du.mode, "unknown"), "bytes": int(len(data))},
    }
