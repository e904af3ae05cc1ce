"""Trace codegen: thread the trace size and tile count into one design.

Both come from the build options (``IRON_TRACE_SIZE`` / ``IRON_TRACE_NTILES``, or
``iron.build(..., trace_size=, ntiles=)``).

:func:`instrument` returns a copy of a design with

* one ``aie.packet_flow`` per traced unit (unit trace port -> shim ``DMA : 1``),
* a trailing ``memref<trace_size x i8>`` argument on its runtime sequence,
* the register program at the start of the sequence: per unit Trace_Control0 (with
  the unit's mode: event-PC for core units when the options ask), Trace_Control1,
  Trace_Event0/1, port selection, Timer_Control; on the shim the drain BD, its
  address patch (against the sequence's own trace argument; fusion translates
  it), channel control, task queue, and the start broadcast,
* the stop broadcast at the end of the sequence.

A foreign design that keeps its own ``aie.trace`` configuration gets that instead of
iron's units: :func:`instrument` lowers the ops its sequence starts (docs/guide.md, "Foreign
designs").

Start and stop follow ``IRON_TRACE_START`` / ``IRON_TRACE_STOP`` (:mod:`iron.options`):
a broadcast pair (default 15/14, raised by the drain shim from its user events 1/0),
``TRUE`` (the unit starts when its Trace_Control0 is written, so that register is
written last), ``NONE`` (never: the unit streams until the device is reconfigured),
or a user event that iron raises with Event_Generate on every traced module.

Values follow docs/design.md section 4 and match mlir-aie's for the same
configuration (tested against ``test/parse-trace/test1/aie.mlir``).
"""

from __future__ import annotations

import copy
import dataclasses
import warnings
from dataclasses import dataclass

from iron.design import Design
from iron.errors import IronError
from iron.mlir import ir
from iron.options import DEFAULT_MEMTILE_EVENTS, DEFAULT_START, DEFAULT_STOP, TraceOptions
from iron.target import events, registers, shim_dma, stream_switch
from iron.target.geometry import MEMTILE_ROW, SHIM_ROW, Target
from iron.target.trace_unit import (
    PACKET_IDS,
    SLOTS,
    START_USER_EVENT,
    STOP_USER_EVENT,
    TRACE_BD,
    TRACE_BURST,
    TRACE_CHANNEL,
    TRACE_PORT,
)
from iron.instrument import layout, routes
from iron.artifact.manifest import TraceUnit
from iron.instrument.declarative import KeptTrace, declared_trace, design_boundary, strip_trace_ops
from iron.instrument.resources import used_packet_ids, used_shim_resources


@dataclass
class TracedDesign:
    """A design with tracing added, and what the manifest needs to know about it."""

    design: Design
    units: list[TraceUnit]
    trace_arg: int  # index of the trace argument in the design's runtime sequence
    shim_column: int


def instrument(
    design: Design, options: TraceOptions, target: Target, size: int | None = None
) -> TracedDesign:
    """Add trace units, routing, the trace argument and the register program. ``size``:
    bytes of this design's trace argument (its call site's slice, from the build's trace
    plan, :mod:`iron.fuse.plan`); None: ``options.size``."""
    size = options.size if size is None else size
    if not options.enabled or size <= 0:
        raise IronError(
            "instrument() needs tracing enabled (options.size > 0) and a slice of at least 1 byte"
        )
    device = copy.deepcopy(design.device)
    kept = declared_trace(device, design.sequence, target.arch)
    if kept is not None and not any(t.row == 0 for t in device.tiles):
        # As -aie-insert-trace-flows: a design without a shim tile drains through (0, 0).
        names = {t.name for t in device.tiles}
        device.body.insert(
            0, ir.Tile(next(n for n in ("tile_0_0", "trace_shim_0_0") if n not in names), 0, 0)
        )
    shim, channel = _drain_endpoint(device, design)
    if kept is None:
        units = _choose_units(design, device, options, shim)
        start, stop = options.start, options.stop
    else:  # the design's own aie.trace configuration, lowered here instead of by aiecc
        units, start, stop = _kept_units(device, design.sequence, kept, shim)
        strip_trace_ops(device)
    _assign_packet_ids(device, units)

    # Routing: flows go after existing flows (or tiles), before the sequences.
    flows = [
        ir.PacketFlow(
            unit.packet_id,
            ir.PacketEnd(device.tile_at(unit.column, unit.row).name, "Trace", TRACE_PORT[unit.kind]),
            ir.PacketEnd(shim.name, "DMA", channel),
        )
        for unit in units
    ]
    at = min(i for i, op in enumerate(device.body) if isinstance(op, ir.RuntimeSequence))
    device.body[at:at] = flows

    trace_arg = program_sequence(
        device.sequence(design.sequence), units, shim.col, channel, size, start, stop
    )

    traced = dataclasses.replace(design, device=device, streams=list(design.streams))
    return TracedDesign(traced, units, trace_arg, shim.col)


def _kept_units(device: ir.Device, sequence: str, kept: KeptTrace, shim: ir.Tile):
    """``(units, start, stop)`` of a configuration the design declares (``aie.trace``),
    lowered as mlir-aie's ``-aie-insert-trace-flows`` does: the ops the sequence starts,
    with their packet ids (or :func:`_auto_packet_ids`), events, ports and modes; one
    start/stop form for the design (iron raises it once from the drain shim); the drain
    shim's own unit listens to the user events that raise the broadcasts."""
    where = f"design {device.symbol or device.target}, @{sequence}"
    if not kept.traces:
        raise IronError(
            f"{where}: keeps its trace configuration (existing_trace='keep') but starts none of its "
            "aie.trace ops (no aie.trace.start_config); start one or use existing_trace='replace'"
        )
    for t in kept.traces:
        missing = [what for what, spec in (("start", t.start), ("stop", t.stop)) if spec is None]
        if missing:
            raise IronError(f"{where}: aie.trace @{t.name} has no aie.trace.{missing[0]}")
    start, stop = design_boundary(kept.traces, where)  # each unit keeps its own form
    auto = _auto_packet_ids(device, kept)
    units = []
    for t in kept.traces:
        units.append(copy.deepcopy(t.unit))
        units[-1].packet_id = units[-1].packet_id or auto[t.name]
        u = units[-1]
        if u.kind == "shim" and u.column == shim.col:
            u.start_event = boundary_event("shim", t.start, events.user_event("shim", 1), drain=True)
            u.stop_event = boundary_event("shim", t.stop, events.user_event("shim", 0), drain=True)
    return units, start, stop


def _auto_packet_ids(device: ir.Device, kept: KeptTrace) -> dict[str, int]:
    """Packet ids of the device's ``aie.trace`` ops that name none, as
    ``-aie-insert-trace-flows`` hands them out: over every trace op of the device (started
    or not) in (column, row) order, from 1, skipping explicit ids and ids the design holds."""
    held = used_packet_ids(device) | {t.packet_id for t in kept.declared if t.packet_id}
    out, nxt = {}, 1
    for t in sorted((t for t in kept.declared if not t.packet_id), key=lambda t: (t.column, t.row)):
        while nxt in held:
            nxt += 1
        if nxt not in PACKET_IDS:
            raise IronError(
                f"design {device.symbol or device.target}: its aie.trace ops need more packet ids than "
                f"{PACKET_IDS[0]}..{PACKET_IDS[-1]} leave free ({len(held)} held)"
            )
        out[t.name] = nxt
        nxt += 1
    return out


def _shim_tile(device: ir.Device) -> ir.Tile:
    shims = sorted((t for t in device.tiles if t.row == SHIM_ROW), key=lambda t: t.col)
    if not shims:
        raise IronError(f"design {device.symbol or device.target} has no shim tile to drain the trace")
    return shims[0]


def program_sequence(
    sequence: ir.RuntimeSequence,
    units: list[TraceUnit],
    col: int,
    channel: int,
    slice_size: int,
    start_spec: str = DEFAULT_START,
    stop_spec: str = DEFAULT_STOP,
) -> int:
    """Give ``sequence`` a trailing trace argument and the register program of ``units``
    draining through shim ``col`` S2MM ``channel`` (one more sequence of a device that
    :func:`instrument` already routed). ``slice_size``: bytes of the trace argument, one call
    site's slice. Returns the trace argument's index."""
    trace_arg = layout.appended_trace_arg(len(sequence.args))
    sequence.args.append(ir.Argument(fresh_arg_name(sequence), ir.MemRefType((slice_size,), "i8")))
    start = _unit_program(units, start_spec) + _drain_program(col, trace_arg, slice_size, channel)
    start += _raise(start_spec, units, col, events.user_event("shim", START_USER_EVENT), timer=True)
    stop = _raise(stop_spec, units, col, events.user_event("shim", STOP_USER_EVENT), timer=False)
    sequence.body[:0] = start
    sequence.body.extend(stop)
    return trace_arg


def _raise(spec: str, units: list[TraceUnit], col: int, shim_user: int, timer: bool) -> list:
    """What makes a start/stop ``spec`` happen: the drain shim raising its broadcast, or
    the user event generated on every traced module; nothing for TRUE and NONE."""
    form, _, value = spec.partition("=")
    if form == "broadcast":
        return _shim_broadcast(col, int(value), shim_user, timer=timer)
    if not value.startswith("USER_EVENT_"):
        return []
    ops = []
    for c, r, kind in dict.fromkeys((u.column, u.row, u.kind) for u in units):
        regs = registers.TRACE_REGISTERS[kind]
        ops.append(_write(c, r, regs.event_generate, events.event_id(kind, value)))
    return ops


def boundary_event(kind: str, spec: str, shim_user: int, drain: bool) -> int:
    """Event id a ``kind`` unit starts/stops on for ``spec`` (``broadcast=N`` | ``event=NAME``).
    The drain shim's own unit listens to the user event that raises the broadcast."""
    form, _, value = spec.partition("=")
    if form == "broadcast":
        return shim_user if kind == "shim" and drain else events.broadcast_event(kind, int(value))
    return events.event_id(kind, value)


def _drain_endpoint(device: ir.Device, design: Design) -> tuple[ir.Tile, int]:
    """The shim tile and S2MM channel the trace drains through, with BD :data:`TRACE_BD`.

    iron's operators leave S2MM :data:`TRACE_CHANNEL` and BD 15 of their first shim
    free. A foreign design may use them: the first shim tile (by column) whose BD 15
    is free and one of whose S2MM channels (TRACE_CHANNEL first) is free is taken.
    """
    shims = sorted((t for t in device.tiles if t.row == SHIM_ROW), key=lambda t: t.col)
    if not shims:
        _shim_tile(device)  # raises the usual error
    channels, bds = used_shim_resources(device, design.sequence)
    for tile in shims:
        if (tile.col, TRACE_BD) in bds:
            continue
        for ch in (TRACE_CHANNEL, 1 - TRACE_CHANNEL):
            if (tile.col, ch) not in channels:
                return tile, ch
    taken = [f"({c},0) S2MM {ch} by {who}" for (c, ch), who in sorted(channels.items())]
    taken += [f"({c},0) BD {bd} by {who}" for (c, bd), who in sorted(bds.items()) if bd == TRACE_BD]
    raise IronError(
        f"design {device.symbol or device.target}: no shim tile has a free S2MM channel and BD {TRACE_BD} "
        f"for the trace drain; in use: {'; '.join(taken)}"
    )


def _chosen_places(device: ir.Device, options: TraceOptions) -> list[tuple[str, int, int]]:
    """``IRON_TRACE_UNITS`` places, each checked against the device's tiles."""
    missing = [f"{k}({c},{r})" for k, c, r in options.units if device.tile_at(c, r) is None]
    if missing:
        have = ", ".join(f"({t.col},{t.row})" for t in sorted(device.tiles, key=lambda t: (t.col, t.row)))
        raise IronError(
            f"IRON_TRACE_UNITS / trace_units: {', '.join(missing)}: no such tile in design "
            f"{device.symbol or device.target} (its tiles: {have})"
        )
    return list(options.units)


def _choose_units(design: Design, device: ir.Device, options: TraceOptions, shim: ir.Tile) -> list[TraceUnit]:
    if options.units is not None:
        places = _chosen_places(device, options)
        blocked = [why for p in places if (why := routes.why_blocked(device, p))]
        if blocked:
            raise IronError(f"IRON_TRACE_UNITS / trace_units: no route to a shim: {'; '.join(blocked)}")
        return _make_units(places, options, shim)
    tiles = list(design.compute_tiles)
    if options.ntiles > len(tiles):
        warnings.warn(
            f"{options.origin('ntiles')}={options.ntiles} but {design.device.symbol or 'the design'} has {len(tiles)} compute tile(s); "
            f"tracing all {len(tiles)}",
            stacklevel=3,
        )
    # Core and memory-module units only at tiles whose trace packets can get past the
    # design's circuits (mlir-aie's router refuses the others): the first ``ntiles`` of those.
    leave = not (options.events_for("core") or options.events_for("mem"))
    routable = [t for t in tiles if leave or routes.blocked_boundary(device, t[1]) is None]
    chosen = routable[: options.ntiles]
    skipped = [t for t in tiles[: options.ntiles] if t not in routable]
    if skipped:
        return _fallback_units(design, device, options, shim, chosen, skipped)
    return _make_units(_places(device, options, chosen, shim), options, shim)


def _places(
    device: ir.Device, options: TraceOptions, chosen: list, shim: ir.Tile
) -> list[tuple[str, int, int]]:
    """Units of the kinds ``options`` trace at compute tiles ``chosen``, their columns'
    memtiles and the drain shim."""
    places: list[tuple[str, int, int]] = []
    for col, row in chosen:
        for kind in ("core", "mem"):
            if options.events_for(kind):
                places.append((kind, col, row))
    if options.events_for("memtile"):
        columns = sorted({col for col, _ in chosen})
        places += [("memtile", c, MEMTILE_ROW) for c in columns if device.tile_at(c, MEMTILE_ROW)]
    if options.events_for("shim"):
        places.append(("shim", shim.col, SHIM_ROW))
    return places


def _fallback_units(
    design: Design,
    device: ir.Device,
    options: TraceOptions,
    shim: ir.Tile,
    chosen: list[tuple[int, int]],
    skipped: list[tuple[int, int]],
) -> list[TraceUnit]:
    """Units when compute tiles among the first ``ntiles`` cannot send their trace out
    (``skipped``): the next ones that can (``chosen``), with a warning; when none can, the
    memtiles of the skipped tiles' columns instead (with
    :data:`~iron.options.DEFAULT_MEMTILE_EVENTS` unless the build lists memtile events)."""
    why = routes.why_blocked(device, ("core", *skipped[0]))
    name = design.device.symbol or "the design"
    if chosen:
        shown = ", ".join(f"({c},{r})" for c, r in chosen)
        warnings.warn(f"{name}: tracing compute tile(s) {shown} instead: {why}", stacklevel=4)
        return _make_units(_places(device, options, chosen, shim), options, shim)
    if not options.events_for("memtile"):
        options = dataclasses.replace(options, events=options.events + (("memtile", DEFAULT_MEMTILE_EVENTS),))
    places = _places(device, options, [], shim)
    places[:0] = [
        ("memtile", c, MEMTILE_ROW) for c in sorted({c for c, _ in skipped}) if device.tile_at(c, MEMTILE_ROW)
    ]
    blocked = [w for p in places if (w := routes.why_blocked(device, p))]
    if blocked or not places:
        raise IronError(f"{name}: no trace unit can reach a shim: {why}; {'; '.join(blocked)}")
    warnings.warn(f"{name}: tracing its memtile(s) instead of its cores: {why}", stacklevel=4)
    return _make_units(places, options, shim)


def _make_units(places: list[tuple[str, int, int]], options: TraceOptions, shim: ir.Tile) -> list[TraceUnit]:
    for kind in dict.fromkeys(kind for kind, _c, _r in places):
        events.warn_misleading(kind, options.events_for(kind), stacklevel=3)
    units = []
    for kind, col, row in places:
        names = list(options.events_for(kind))
        ids = [events.event_id(kind, n) for n in names]
        names += ["NONE"] * (SLOTS - len(names))
        ids += [0] * (SLOTS - len(ids))
        # The drain shim raises the start/stop broadcasts itself from its user events.
        drain = kind == "shim" and col == shim.col
        start = boundary_event(kind, options.start, events.user_event("shim", START_USER_EVENT), drain)
        stop = boundary_event(kind, options.stop, events.user_event("shim", STOP_USER_EVENT), drain)
        mode = options.mode_for(kind)
        unit = TraceUnit(col, row, kind, events.PACKET_TYPE[kind], 0, names, ids, start, stop, mode)
        unit.ports = _watched_ports(kind, names, options.ports_for(kind))
        units.append(unit)
    return units


def _watched_ports(kind: str, names: list[str], explicit: dict[int, tuple[str, int, bool]]) -> list[list]:
    """``[slot, bundle, channel, direction]`` of every slot the unit's port selection sets:
    the slots ``trace_ports`` names, and those its PORT_*_<n> events use (watching
    :data:`~iron.target.stream_switch.DEFAULT_PORTS` unless named)."""
    if kind not in stream_switch.PORTS:
        return []
    defaults = stream_switch.DEFAULT_PORTS.get(kind, ())
    used = {int(n.rsplit("_", 1)[1]) for n in names if n.startswith("PORT_") and n[-1].isdigit()}
    out = []
    for slot in sorted(used | set(explicit)):
        port = explicit.get(slot) or (defaults[slot] if slot < len(defaults) else None)
        if port is not None:
            out.append([slot, port[0], port[1], "S2MM" if port[2] else "MM2S"])
    return out


def _assign_packet_ids(device: ir.Device, units: list[TraceUnit]) -> None:
    """Packet ids 1..31, unique per device, skipping ids the design already routes; a
    unit that comes with an id (a kept ``aie.trace.packet id=N``) keeps it."""
    taken = used_packet_ids(device)
    own = [u.packet_id for u in units if u.packet_id]
    for pid in own:
        if pid in taken or own.count(pid) > 1:
            raise IronError(
                f"device {device.symbol or device.target}: trace packet id {pid} (aie.trace.packet) is "
                "already used by "
                + ("another trace unit" if own.count(pid) > 1 else "a packet flow of the design")
            )
    taken |= set(own)
    free = (i for i in PACKET_IDS if i not in taken)
    for unit in units:
        if unit.packet_id:
            continue
        unit.packet_id = next(free, None)
        if unit.packet_id is None:
            raise IronError(
                f"too many trace units ({len(units)}) for device {device.symbol or device.target}: "
                f"packet ids are 5 bits ({PACKET_IDS[0]}..{PACKET_IDS[-1]}) and {len(taken)} are in use; lower IRON_TRACE_NTILES"
            )


def fresh_arg_name(sequence: ir.RuntimeSequence) -> str:
    """The name the trace argument gets: ``arg<N>`` for the first free N from the argument count."""
    names = {a.name for a in sequence.args}
    i = len(sequence.args)
    while f"arg{i}" in names:
        i += 1
    return f"arg{i}"


def _write(col: int, row: int, offset: int, value: int) -> ir.Write32:
    return ir.Write32(offset, value, column=col, row=row)


def unit_writes(u: TraceUnit) -> list[ir.Write32]:
    """The trace unit's own registers, as mlir-aie's ``-aie-trace-to-config
    -aie-trace-pack-reg-writes -aie-inline-trace-config`` write them for an ``aie.trace`` op:
    Trace_Control0 (mode, start, stop), Trace_Control1 (packet), Trace_Event0 and, only when
    something uses them, Trace_Event1 (slots 4-7) and the port selection (both registers: the
    passes write selection 1 only when slots 4-7 are used). Checked against the real a9e39fae
    passes in ``iron/tests/test_real_trace_config.py``."""
    regs = registers.TRACE_REGISTERS[u.kind]
    ev0, ev1 = registers.trace_events(u.event_ids, u.kind)
    control0 = registers.trace_control0(u.start_event, u.stop_event, mode=u.mode, kind=u.kind)
    ops = [
        _write(u.column, u.row, regs.trace_control0, control0),
        _write(u.column, u.row, regs.trace_control1, registers.trace_control1(u.packet_type, u.packet_id)),
        _write(u.column, u.row, regs.trace_event0, ev0),
    ]
    if any(u.event_ids[4:]):
        ops.append(_write(u.column, u.row, regs.trace_event1, ev1))
    if regs.port_select0 is not None and u.ports:
        sel0, sel1 = registers.port_selection(port_fields(u))
        # Both selection registers, as mlir-aie's Python trace utilities write them (test1's
        # golden); the declarative passes leave selection 1 out while slots 4-7 are unused
        # (one deliberate difference: it writes the reset value 0 there).
        ops += [
            _write(u.column, u.row, regs.port_select0, sel0),
            _write(u.column, u.row, regs.port_select1, sel1),
        ]
    return ops


def _unit_program(units: list[TraceUnit], start_spec: str = DEFAULT_START) -> list:
    ops = []
    # A unit whose start event is TRUE starts the moment Trace_Control0 holds it: its
    # packet id and slots must be in place by then, so Trace_Control0 goes last.
    for u in units:
        immediate = start_spec == "event=TRUE" or u.start_event == events.event_id(u.kind, "TRUE")
        control0, *rest = unit_writes(u)
        ops += [*([] if immediate else [control0]), *rest]
        # The drain shim's timer is reset by the start broadcast program (mlir-aie's
        # -aie-insert-trace-flows, "timer sync"); TRUE and NONE are no reset events (TRUE
        # would hold the timer at 0).
        if u.kind != "shim" and u.start_event not in (events.event_id(u.kind, "TRUE"), 0):
            regs = registers.TRACE_REGISTERS[u.kind]
            ops.append(
                _write(u.column, u.row, regs.timer_control, registers.timer_control(u.start_event, u.kind))
            )
        if immediate:
            ops.append(control0)
    return ops


def port_fields(unit: TraceUnit) -> list[tuple[int, bool]]:
    """(port index, master) per selection slot up to the highest the unit sets; slots it
    does not set stay 0."""
    fields = [(0, False)] * (max(p[0] for p in unit.ports) + 1)
    for slot, bundle, channel, direction in unit.ports:
        master = direction == "S2MM"
        fields[slot] = (stream_switch.port_index(unit.kind, bundle, channel, master), master)
    return fields


def _drain_program(col: int, trace_arg: int, slice_size: int, channel: int = TRACE_CHANNEL) -> list:
    """Shim S2MM channel 1 writes the packets into the trace argument through BD 15.

    Field for field what today's aiecc emits (``shared/external/xdna-emu-vecscalar-hw/
    input_with_addresses.mlir``): no packet id in the BD (an S2MM BD does not filter on
    it), the shim's controller id in the channel Ctrl, and a push that issues a token.
    """
    bd = ir.WriteBd(
        {
            "bd_id": TRACE_BD,
            "buffer_length": slice_size // 4,  # the BD counts 32-bit words
            "burst_length": TRACE_BURST,
            "column": col,
            "enable_packet": 1,
            "row": SHIM_ROW,
            "valid_bd": 1,
        }
    )
    ctrl = shim_dma.channel_ctrl("s2mm", channel)
    controller = shim_dma.SHIM_CONTROLLER_ID << shim_dma.CTRL_CONTROLLER_ID_SHIFT
    push = shim_dma.pack_task_queue(TRACE_BD, issue_token=True)
    return [
        bd,
        ir.AddressPatch(
            registers.tile_address(col, SHIM_ROW, shim_dma.bd_address_low(TRACE_BD)), trace_arg, 0
        ),
        ir.MaskWrite32(ctrl, controller, shim_dma.AIECC_CONTROLLER_ID_MASK, column=col, row=SHIM_ROW),
        _write(col, SHIM_ROW, shim_dma.task_queue("s2mm", channel), push),
    ]


def _shim_broadcast(col: int, channel: int, user_event: int, timer: bool) -> list:
    """Raise broadcast ``channel`` from the shim by generating ``user_event``."""
    regs = registers.TRACE_REGISTERS["shim"]
    ops = [_write(col, SHIM_ROW, regs.timer_control, registers.timer_control(user_event))] if timer else []
    ops += [
        _write(col, SHIM_ROW, regs.event_broadcast(channel), user_event),
        _write(col, SHIM_ROW, regs.event_generate, user_event),
    ]
    return ops
