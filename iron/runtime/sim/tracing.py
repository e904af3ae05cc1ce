"""Trace units: configured by register writes, started and stopped by events.

A unit exists for a module (core, core-tile memory module, memtile, shim) once
its Trace_Control0 holds a start event. Its configuration is read from the
register file when it starts (registers: :data:`iron.target.registers.TRACE_REGISTERS`):
start/stop events from Trace_Control0, packet type and id from Trace_Control1,
the 8 slot event ids from Trace_Event0/1, the mode from Trace_Control0 [1:0].
A running unit keeps the activity events that match its slots (in EVENT_PC
mode with the program counter of each); on its stop event it hands its frames,
encoded in its mode and packetized with the real header, to the device for
routing. A
reconfiguration wipes the registers and drops every unit: a unit whose
registers were never (re)written records nothing.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from iron.target import registers
from iron.target.geometry import MEMTILE_ROW, SHIM_ROW

UnitKey = tuple[int, int, str]  # (column, row, kind), design-relative column

_REGS = registers.TRACE_REGISTERS


def module_kinds(row: int) -> tuple[str, ...]:
    """Module kinds with trace units on a tile of ``row``."""
    if row == SHIM_ROW:
        return ("shim",)
    if row == MEMTILE_ROW:
        return ("memtile",)
    return ("core", "mem")


def register_kind(row: int, offset: int) -> str | None:
    """The module kind whose trace/event register sits at ``offset`` (None: not one)."""
    for kind in module_kinds(row):
        r = _REGS[kind]
        if r.timer_control <= offset <= r.trace_event1 + 4:  # through Trace_Event1's last byte
            return kind
    return None


@dataclass
class Unit:
    """A started trace unit and what it recorded."""

    column: int
    row: int
    kind: str
    start_event: int
    stop_event: int
    packet_type: int
    packet_id: int
    slot_ids: list[int]
    origin: int  # device cycle of the start event
    start_timer: int  # the module timer at start (carried by the Start frame)
    records: list[tuple[int, int, int, int]] = field(default_factory=list)  # (cycles since start, mask, n, 1)
    running: bool = True
    mode: int = 0  # Trace_Control0 [1:0] (iron.target.trace_modes)
    pc_samples: list[tuple[int, int, int]] = field(default_factory=list)  # EVENT_PC: (mask, pc, cycles)

    @property
    def key(self) -> UnitKey:
        return self.column, self.row, self.kind


def configured(tile_regs: dict[int, int], kind: str) -> dict | None:
    """The unit configuration held by one module's registers (None: no start event)."""
    r = _REGS[kind]
    c0 = tile_regs.get(r.trace_control0, 0)
    ctl0 = registers.unpack_trace_control0(c0, kind)
    if ctl0["start"] == 0:
        return None
    ctl1 = registers.unpack_trace_control1(tile_regs.get(r.trace_control1, 0))
    slots = registers.unpack_trace_events(
        tile_regs.get(r.trace_event0, 0), tile_regs.get(r.trace_event1, 0), kind
    )
    return {
        "start": ctl0["start"],
        "stop": ctl0["stop"],
        "mode": ctl0["mode"],
        "packet_type": ctl1["packet_type"],
        "packet_id": ctl1["packet_id"],
        "slots": slots,
    }


def timer_reset_event(tile_regs: dict[int, int], kind: str) -> int:
    """Reset event of the module's Timer_Control (Reset_Event from bit 8; 0 = none)."""
    return registers.unpack_timer_control(tile_regs.get(_REGS[kind].timer_control, 0), kind)


def packet_words(unit: Unit, column_offset: int) -> np.ndarray:
    """The unit's trace as 8-word packets (header with the absolute column; read-only)."""
    from iron.runtime.sim.errors import SimError
    from iron.target.trace_modes import EVENT_PC, EVENT_TIME, MODES

    if unit.mode not in (EVENT_PC, EVENT_TIME):
        raise SimError(
            f"{unit.kind}({unit.column},{unit.row}): trace mode {unit.mode} ({MODES.get(unit.mode, '?')}) "
            "is not modelled by sim (event-time and event-pc are)"
        )
    samples = unit.pc_samples if unit.mode == EVENT_PC else unit.records
    header = (unit.column + column_offset, unit.row, unit.packet_type, unit.packet_id)
    return _packets(unit.mode, tuple(samples), unit.start_timer, header)


@functools.lru_cache(maxsize=256)
def _packets(mode: int, samples: tuple, start_timer: int, header: tuple) -> np.ndarray:
    # A sequence's repeated step records the same in each configuration: encoded once.
    from iron.trace import encode
    from iron.target.trace_modes import EVENT_PC

    if mode == EVENT_PC:
        payload = encode.encode_event_pc_unit(list(samples), start_timer=start_timer)
    else:
        payload = encode.encode_unit(list(samples), start_timer=start_timer)
    words = np.array(encode.packetize(*header, payload), dtype=np.uint32)
    words.flags.writeable = False
    return words
