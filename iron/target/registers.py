"""Trace-related registers of AIE2/AIE2P tiles and their fields.

Source: docs/design.md section 4 (mlir-aie ``lib/Dialect/AIE/Util/aie_registers_aie2.json``
and aie-rt ``driver/src/global/xaiemlgbl_params.h``); the worked example is the
core tile of mlir-aie ``test/parse-trace/test1/aie.mlir``. The memtile's
Event_Generate (0x94008) and port selection (0xB0F00) were checked in XRT's
``xdp/profile/plugin/aie_debug/generations/*_registers.h``. mlir-aie uses the
same trace registers for AIE2P.
"""

from __future__ import annotations


from iron.errors import IronError
from iron.target.stream_switch import EVENT_PORTS
from iron.target.trace_unit import SLOTS
from iron.record import Record

#: Broadcast channels a module has (Event_Broadcast0..15).
BROADCAST_CHANNELS = 16

COL_SHIFT = 25
ROW_SHIFT = 20
OFFSET_MASK = (1 << ROW_SHIFT) - 1


class TraceRegisters(Record, frozen=True):
    """Offsets (tile-relative) of one module's trace registers."""

    timer_control: int
    event_generate: int
    event_broadcast0: int  # Event_Broadcast n is at event_broadcast0 + 4 * n
    trace_control0: int
    trace_control1: int
    trace_event0: int
    trace_event1: int
    port_select0: int | None  # stream-switch event port selection 0 / 1 (+4)

    def event_broadcast(self, n: int) -> int:
        if not 0 <= n < BROADCAST_CHANNELS:
            raise IronError(f"broadcast channel {n} out of range 0..{BROADCAST_CHANNELS - 1}")
        return self.event_broadcast0 + 4 * n

    @property
    def port_select1(self) -> int | None:
        return None if self.port_select0 is None else self.port_select0 + 4


#: One table: unit kind -> registers. "mem" is the core tile's memory module,
#: whose PORT_RUNNING events use the core tile's stream switch (port_select None).
TRACE_REGISTERS = {
    "core": TraceRegisters(0x34000, 0x34008, 0x34010, 0x340D0, 0x340D4, 0x340E0, 0x340E4, 0x3FF00),
    "mem": TraceRegisters(0x14000, 0x14008, 0x14010, 0x140D0, 0x140D4, 0x140E0, 0x140E4, None),
    "memtile": TraceRegisters(0x94000, 0x94008, 0x94010, 0x940D0, 0x940D4, 0x940E0, 0x940E4, 0xB0F00),
    "shim": TraceRegisters(0x34000, 0x34008, 0x34010, 0x340D0, 0x340D4, 0x340E0, 0x340E4, 0x3FF00),
}

EVENT_ID_MASK = 0x7F
#: Event ids are 7 bits wide in core, memory and shim modules, 8 bits in memtiles
#: (their ids reach 160); the register fields hold a whole byte either way.
MEMTILE_EVENT_ID_MASK = 0xFF


def event_mask(kind: str) -> int:
    """Mask of an event id field in a ``kind`` module's trace/timer registers."""
    return MEMTILE_EVENT_ID_MASK if kind == "memtile" else EVENT_ID_MASK


def tile_address(col: int, row: int, offset: int) -> int:
    """Absolute register address ``col << 25 | row << 20 | offset``."""
    if not 0 <= offset <= OFFSET_MASK:
        raise IronError(f"register offset {offset:#x} exceeds 20 bits")
    return (col << COL_SHIFT) | (row << ROW_SHIFT) | offset


def split_address(address: int) -> tuple[int, int, int]:
    """Inverse of :func:`tile_address`: ``(col, row, offset)``."""
    return (address >> COL_SHIFT) & 0x7F, (address >> ROW_SHIFT) & 0x1F, address & OFFSET_MASK


def _event(value: int, what: str, kind: str) -> int:
    if not 0 <= value <= event_mask(kind):
        raise IronError(f"{what} event id {value} out of range 0..{event_mask(kind)} for a {kind} module")
    return value


#: Trace_Control0 [1:0]: the unit's trace mode (numbers in iron.target.trace_modes). Only the
#: core module has this field (mlir-aie AIETraceToConfig.cpp emits "Mode" for core
#: traces only), so other kinds must keep it 0 (event-time).
TRACE_MODE_MASK = 0x3


def trace_control0(start_event: int, stop_event: int, mode: int = 0, kind: str = "core") -> int:
    """Trace_Control0: stop event [30:24], start event [22:16], mode [1:0] (0 = event-time,
    1 = event-PC, 2 = execution; non-zero only for ``kind="core"``)."""
    if mode not in (0, 1, 2):
        raise IronError(f"trace mode {mode} not in 0 (event-time), 1 (event-PC), 2 (execution)")
    if mode and kind != "core":
        raise IronError(f"trace mode {mode} on a {kind} module: only core modules have a mode field")
    return _event(stop_event, "stop", kind) << 24 | _event(start_event, "start", kind) << 16 | mode


def trace_control1(packet_type: int, packet_id: int) -> int:
    """Trace_Control1: packet type [14:12], packet id [4:0]."""
    if not 0 <= packet_type <= 7 or not 0 <= packet_id <= 31:
        raise IronError(f"packet type {packet_type} / id {packet_id} out of range (0..7 / 0..31)")
    return packet_type << 12 | packet_id


def trace_events(event_ids: list[int], kind: str = "core") -> tuple[int, int]:
    """Trace_Event0/1 for up to 8 slots; slot 0 in the low byte of Trace_Event0."""
    if len(event_ids) > SLOTS:
        raise IronError(f"{len(event_ids)} events; a trace unit has {SLOTS} slots")
    ids = [_event(e, "trace", kind) for e in event_ids] + [0] * (SLOTS - len(event_ids))
    pack = lambda four: sum(e << (8 * i) for i, e in enumerate(four))  # noqa: E731
    return pack(ids[:4]), pack(ids[4:])


def unpack_trace_events(event0: int, event1: int, kind: str = "core") -> list[int]:
    """The 8 slot event ids held by Trace_Event0/1."""
    return [(w >> (8 * i)) & event_mask(kind) for w in (event0, event1) for i in range(4)]


def port_selection(ports: list[tuple[int, bool]]) -> tuple[int, int]:
    """Stream-switch event port selection 0/1: per port id [4:0], master bit [5]."""
    if len(ports) > EVENT_PORTS:
        raise IronError(f"{len(ports)} ports; {EVENT_PORTS} can be monitored")
    fields = [(pid & 0x1F) | (0x20 if master else 0) for pid, master in ports]
    fields += [0] * (EVENT_PORTS - len(fields))
    pack = lambda four: sum(f << (8 * i) for i, f in enumerate(four))  # noqa: E731
    return pack(fields[:4]), pack(fields[4:])


#: Timer_Control: Reset_Event from this bit.
TIMER_RESET_EVENT_SHIFT = 8


def timer_control(reset_event: int, kind: str = "core") -> int:
    """Timer_Control with Reset_Event from bit 8 (0x7A00 = reset on event 122)."""
    return _event(reset_event, "timer reset", kind) << TIMER_RESET_EVENT_SHIFT


def unpack_timer_control(value: int, kind: str = "core") -> int:
    """The Reset_Event of a Timer_Control value (0 = none)."""
    return (value >> TIMER_RESET_EVENT_SHIFT) & event_mask(kind)


def unpack_trace_control0(value: int, kind: str = "core") -> dict:
    mask = event_mask(kind)
    return {"mode": value & TRACE_MODE_MASK, "start": (value >> 16) & mask, "stop": (value >> 24) & mask}


def unpack_trace_control1(value: int) -> dict:
    return {"packet_type": (value >> 12) & 7, "packet_id": value & 0x1F}
