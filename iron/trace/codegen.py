"""Trace codegen: thread ``trace_size`` and ``trace_max_tiles`` into one design.

:func:`instrument` returns a copy of a design with

* one ``aie.packet_flow`` per traced unit (unit trace port -> shim ``DMA : 1``),
* a trailing ``memref<trace_size x i8>`` argument on its runtime sequence,
* the register program at the start of the sequence: per unit Trace_Control0/1,
  Trace_Event0/1, port selection, Timer_Control; on the shim the drain BD, its
  address patch (against the sequence's own trace argument; fusion translates
  it), channel control, task queue, and the start broadcast,
* the stop broadcast at the end of the sequence.

Values follow DESIGN.md section 4 and match mlir-aie's for the same
configuration (tested against ``test/parse-trace/test1/aie.mlir``).
"""

from __future__ import annotations

import copy
import warnings
from dataclasses import dataclass

from iron.design import Design
from iron.errors import IronError
from iron.mlir import ir
from iron.options import TraceOptions
from iron.target import events, registers, shim_dma
from iron.target.geometry import MEMTILE_ROW, Target
from iron.trace.manifest import TraceUnit

START_BROADCAST = 15
STOP_BROADCAST = 14
TRACE_BD = 15  # shim BD used by the drain (BDs 0..14 are left to data DMAs)
TRACE_CHANNEL = 1  # shim S2MM channel the trace packets drain through
TRACE_BURST = 64  # bytes
TRACE_CONTROLLER_ID = 15
MAX_PACKET_ID = 31

# Trace port of each unit kind on its tile's stream switch (mlir-aie: Trace : 1 is
# the core tile's memory module).
_TRACE_PORT = {"core": 0, "mem": 1, "memtile": 0, "shim": 0}

# Stream-switch port monitored by PORT_*_n events: n -> (port id, master).
# Core tile: id 1 is DMA 0 (master = into the tile's S2MM, slave = out of its MM2S),
# id 2 DMA 1; memtile DMA n is id n. Port 0/1 on a core reproduce mlir-aie's 0x121.
_PORT_MAP = {
    "core": [(1, True), (1, False), (2, True), (2, False), (3, True), (3, False), (4, True), (4, False)],
    "memtile": [(0, True), (0, False), (1, True), (1, False), (2, True), (2, False), (3, True), (3, False)],
}


@dataclass
class TracedDesign:
    """A design with tracing added, and what the manifest needs to know about it."""

    design: Design
    units: list[TraceUnit]
    trace_arg: int  # index of the trace argument in the design's runtime sequence
    shim_column: int


def instrument(design: Design, options: TraceOptions, target: Target) -> TracedDesign:
    """Add trace units, routing, the trace argument and the register program."""
    if not options.enabled:
        raise IronError("instrument() needs tracing enabled (options.size > 0)")
    device = copy.deepcopy(design.device)
    shim = _shim_tile(device)
    units = _choose_units(design, device, options, shim)
    _assign_packet_ids(device, units)

    # Routing: flows go after existing flows (or tiles), before the sequences.
    flows = [
        ir.PacketFlow(
            unit.packet_id,
            ir.PacketEnd(device.tile_at(unit.column, unit.row).name, "Trace", _TRACE_PORT[unit.kind]),
            ir.PacketEnd(shim.name, "DMA", TRACE_CHANNEL),
        )
        for unit in units
    ]
    at = min(i for i, op in enumerate(device.body) if isinstance(op, ir.RuntimeSequence))
    device.body[at:at] = flows

    sequence = device.sequence(design.sequence)
    trace_arg = len(sequence.args)
    sequence.args.append(ir.Argument(_fresh_arg_name(sequence), ir.MemRefType((options.size,), "i8")))
    start = _unit_program(units) + _drain_program(shim.col, trace_arg, options.size, units[0].packet_id)
    start += _shim_broadcast(shim.col, START_BROADCAST, events.user_event("shim", 1), timer=True)
    stop = _shim_broadcast(shim.col, STOP_BROADCAST, events.user_event("shim", 0), timer=False)
    sequence.body[:0] = start
    sequence.body.extend(stop)

    traced = Design(device, list(design.streams), design.sequence, list(design.compute_tiles))
    return TracedDesign(traced, units, trace_arg, shim.col)


def _shim_tile(device: ir.Device) -> ir.Tile:
    shims = sorted((t for t in device.tiles if t.row == 0), key=lambda t: t.col)
    if not shims:
        raise IronError(f"design {device.symbol or device.target} has no shim tile to drain the trace")
    return shims[0]


def _choose_units(design: Design, device: ir.Device, options: TraceOptions, shim: ir.Tile) -> list[TraceUnit]:
    tiles = list(design.compute_tiles)
    if options.ntiles > len(tiles):
        warnings.warn(
            f"{options.origin('ntiles')}={options.ntiles} but {design.device.symbol or 'the design'} has {len(tiles)} compute tile(s); "
            f"tracing all {len(tiles)}",
            stacklevel=3,
        )
    chosen = tiles[: options.ntiles]
    places: list[tuple[str, int, int]] = []
    for col, row in chosen:
        for kind in ("core", "mem"):
            if options.events_for(kind):
                places.append((kind, col, row))
    if options.events_for("memtile"):
        columns = sorted({col for col, _ in chosen})
        places += [("memtile", c, MEMTILE_ROW) for c in columns if device.tile_at(c, MEMTILE_ROW)]
    if options.events_for("shim"):
        places.append(("shim", shim.col, 0))
    units = []
    for kind, col, row in places:
        names = list(options.events_for(kind))
        ids = [events.event_id(kind, n) for n in names]
        names += ["NONE"] * (8 - len(names))
        ids += [0] * (8 - len(ids))
        if kind == "shim":
            # The shim raises the start/stop broadcasts itself from its user events.
            start, stop = events.user_event("shim", 1), events.user_event("shim", 0)
        else:
            start = events.broadcast_event(kind, START_BROADCAST)
            stop = events.broadcast_event(kind, STOP_BROADCAST)
        units.append(TraceUnit(col, row, kind, events.PACKET_TYPE[kind], 0, names, ids, start, stop))
    return units


def _assign_packet_ids(device: ir.Device, units: list[TraceUnit]) -> None:
    """Packet ids 1..31, unique per device, skipping ids the design already routes."""
    taken = {flow.id for flow in device.packet_flows}
    free = (i for i in range(1, MAX_PACKET_ID + 1) if i not in taken)
    for unit in units:
        unit.packet_id = next(free, None)
        if unit.packet_id is None:
            raise IronError(
                f"too many trace units ({len(units)}) for device {device.symbol or device.target}: "
                f"packet ids are 5 bits (1..{MAX_PACKET_ID}) and {len(taken)} are in use; lower IRON_TRACE_NTILES"
            )


def _fresh_arg_name(sequence: ir.RuntimeSequence) -> str:
    names = {a.name for a in sequence.args}
    i = len(sequence.args)
    while f"arg{i}" in names:
        i += 1
    return f"arg{i}"


def _write(col: int, row: int, offset: int, value: int) -> ir.Write32:
    return ir.Write32(offset, value, column=col, row=row)


def _unit_program(units: list[TraceUnit]) -> list:
    ops = []
    for u in units:
        regs = registers.TRACE_REGISTERS[u.kind]
        ev0, ev1 = registers.trace_events(u.event_ids, u.kind)
        ops += [
            _write(
                u.column,
                u.row,
                regs.trace_control0,
                registers.trace_control0(u.start_event, u.stop_event, kind=u.kind),
            ),
            _write(
                u.column, u.row, regs.trace_control1, registers.trace_control1(u.packet_type, u.packet_id)
            ),
            _write(u.column, u.row, regs.trace_event0, ev0),
            _write(u.column, u.row, regs.trace_event1, ev1),
        ]
        if regs.port_select0 is not None and u.kind in _PORT_MAP:
            sel0, sel1 = registers.port_selection(_ports(u))
            ops += [
                _write(u.column, u.row, regs.port_select0, sel0),
                _write(u.column, u.row, regs.port_select1, sel1),
            ]
        if u.kind != "shim":  # the shim timer is reset by the start broadcast program
            ops.append(
                _write(u.column, u.row, regs.timer_control, registers.timer_control(u.start_event, u.kind))
            )
    return ops


def _ports(unit: TraceUnit) -> list[tuple[int, bool]]:
    """Ports watched by the PORT_* events in the unit's slots; unused ports stay 0."""
    used = set()
    for name in unit.events:
        if name.startswith("PORT_") and name[-1].isdigit():
            used.add(int(name.rsplit("_", 1)[1]))
    top = max(used, default=-1)
    return [_PORT_MAP[unit.kind][n] if n in used else (0, False) for n in range(top + 1)]


def _drain_program(col: int, trace_arg: int, size: int, packet_id: int) -> list:
    """Shim S2MM channel 1 writes the packets into the trace argument through BD 15.

    The BD carries the first unit's packet id, as mlir-aie's trace setup (and the
    hardware capture in shared/golden) does.
    """
    bd = ir.WriteBd(
        {
            "bd_id": TRACE_BD,
            "buffer_length": size // 4,  # the BD counts 32-bit words
            "burst_length": TRACE_BURST,
            "column": col,
            "enable_packet": 1,
            "packet_id": packet_id,
            "row": 0,
            "valid_bd": 1,
        }
    )
    ctrl = shim_dma.channel_ctrl("s2mm", TRACE_CHANNEL)
    return [
        bd,
        ir.AddressPatch(registers.tile_address(col, 0, shim_dma.bd_address(TRACE_BD) + 4), trace_arg, 0),
        ir.MaskWrite32(
            ctrl,
            TRACE_CONTROLLER_ID << shim_dma.CTRL_CONTROLLER_ID_SHIFT,
            shim_dma.CTRL_CONTROLLER_ID_MASK,
            column=col,
            row=0,
        ),
        _write(col, 0, shim_dma.task_queue("s2mm", TRACE_CHANNEL), shim_dma.pack_task_queue(TRACE_BD)),
    ]


def _shim_broadcast(col: int, channel: int, user_event: int, timer: bool) -> list:
    """Raise broadcast ``channel`` from the shim by generating ``user_event``."""
    regs = registers.TRACE_REGISTERS["shim"]
    ops = [_write(col, 0, regs.timer_control, registers.timer_control(user_event))] if timer else []
    ops += [
        _write(col, 0, regs.event_broadcast(channel), user_event),
        _write(col, 0, regs.event_generate, user_event),
    ]
    return ops
