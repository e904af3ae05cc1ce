"""Trace unit modes: the one table of their numbers and names.

A unit's mode is Trace_Control0 bits [1:0] (AM025; mlir-aie
``python/utils/trace/__init__.py`` documents 00 event-time, 01 event-PC,
10 execution) and is repeated in the low bits of every Start frame the unit
sends (first byte ``0xF0 | mode``, ``+4`` for a mid-stream re-anchor; seen in
FIM43-Redeye/xdna-emu's Phoenix captures). The declarative ``aie.trace.mode``
op names them "Event-Time", "Event-PC" and "Execution".
"""

from __future__ import annotations

from iron.errors import IronError

EVENT_TIME, EVENT_PC, EXECUTION = 0, 1, 2
MODES = {EVENT_TIME: "event-time", EVENT_PC: "event-pc", EXECUTION: "execution"}


def mode_number(name: str | int, what: str = "trace mode") -> int:
    """0/1/2 from a number or a name in any of the spellings above
    ("Event-PC", "event_pc", "EventPC", "execution", ...)."""
    if isinstance(name, int) and not isinstance(name, bool):
        if name in MODES:
            return name
    elif isinstance(name, str):
        key = name.strip().lower().replace("-", "").replace("_", "")
        for number, canonical in MODES.items():
            if key in (canonical.replace("-", ""), str(number)):
                return number
    raise IronError(
        f"{what} {name!r} is not a trace mode; accepted: 0 or event-time, 1 or event-pc, 2 or execution"
    )


def start_frame_mode(first_byte: int) -> int | None:
    """The mode a Start frame announces, or None if the byte is not a Start frame."""
    if first_byte & 0xF8 == 0xF0 and first_byte & 3 != 3:
        return first_byte & 3
    return None
