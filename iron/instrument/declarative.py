"""Trace units from mlir-aie's declarative ``aie.trace`` ops (source-level MLIR).

mlir-aie lets a design say what to trace before any register is written
(``test/dialect/AIE/trace/test_trace_parse.mlir``,
``test/dialect/AIEX/trace/test_trace_end_to_end.mlir``)::

    aie.trace @t(%tile_0_2) {
      aie.trace.mode "Event-Time"
      aie.trace.packet id=1 type=core
      aie.trace.event<"INSTR_EVENT_0"> label="kernel_start"
      aie.trace.start broadcast=15
      aie.trace.stop broadcast=14
    }

``-aie-trace-to-config`` gives the events slots in op order (slot 0 first);
unused slots are NONE. ``aie.trace.port<n> port = B channel = c direction = D``
(``test/dialect/AIE/trace/test_trace_port_parse.mlir``; older tests spell the
direction ``master = true|false``) names the stream-switch port slot n of the
unit's port selection watches: S2MM is the master port, MM2S the slave
(``test_trace_port_to_config.mlir``: ``Port_0_Master_Slave`` 1 for S2MM). iron's MLIR reader keeps these ops as opaque text in the
device body; this module reads them so a capture decodes with the MLIR the
user wrote, not only with aiecc's lowered intermediate.

It is the one reader of ``aie.trace`` syntax (which ops are trace ops is
:mod:`iron.mlir.trace_ops`): the host buffer size of ``aie.trace.host_config``
(:func:`host_buffer_size`), the units, and what a design declares for one runtime
sequence (:func:`declared_trace`), which :mod:`iron.instrument.codegen` lowers for a
foreign design that keeps its configuration.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from iron.errors import IronError
from iron.limits import IntegerError, parse_int
from iron.mlir import ir
from iron.mlir.decl import NAME as _NAME
from iron.mlir.trace_ops import is_trace_op, strip_trace_ops  # noqa: F401 (this module's API too)
from iron.target import events as EV
from iron.target import stream_switch
from iron.target.geometry import MEMTILE_ROW, SHIM_ROW
from iron.artifact.manifest import TraceUnit
from iron.target.trace_modes import mode_number
from iron.target.trace_unit import SLOTS

_RE_TRACE = re.compile(rf"^aie\.trace\s+@({_NAME})\s*\(\s*%({_NAME})\s*\)\s*\{{(.*)\}}\s*$", re.S)
#: An event as ``TraceEventAttr`` spells it (AIETraceOps.td: "strings or enum values"):
#: ``<"INSTR_EVENT_0">`` or ``<CoreEventAIE2::INSTR_EVENT_0>``.
_EVENT = r'<\s*(?:"\w+"|(?:\w+::)?\w+)\s*>'
_RE_EVENT = re.compile(rf"^aie\.trace\.event\s*{_EVENT}")
_RE_MODE = re.compile(r'^aie\.trace\.mode\s+"?([\w-]+)"?')
_RE_PACKET = re.compile(r"^aie\.trace\.packet\s+(.*)$")
_RE_START_STOP = re.compile(r"^aie\.trace\.(start|stop)\s+(.*)$")
_RE_PORT = re.compile(r"^aie\.trace\.port\s*<\s*(\d+)\s*>\s*(.*)$")
_RE_KV = re.compile(rf'(\w+)\s*=\s*({_EVENT}|"[^"]*"|[\w-]+)')

#: ``aie.trace.packet type=...`` spellings (mlir-aie ``PacketType``) -> iron's module kind.
PACKET_KINDS = {"core": "core", "mem": "mem", "shim": "shim", "shimtile": "shim", "memtile": "memtile"}


#: ``aie.trace.host_config buffer_size = N`` (upstream's insert-trace-flows tests) and the
#: attribute form ``aie.trace.host_config {buffer_size = N : i32}`` (its fuse tests).
#: The value is one integer token as MLIR reads it (``0x2000`` is 8192, ``-8192`` negative:
#: the callers validate it with :func:`iron.options.site_size`).
_RE_HOST_CONFIG = re.compile(
    r"^aie\.trace\.host_config\b[^\n]*?\bbuffer_size\s*=\s*(-?\s*[0-9][0-9A-Za-z_]*)"
)


def host_buffer_size(seq: ir.RuntimeSequence) -> int | None:
    """Bytes a runtime sequence's ``aie.trace.host_config`` asks for (None: it has none); one
    whose ``buffer_size`` is not an integer is a :class:`DeclarativeTraceError`, never ignored."""
    for op in seq.body:
        text = op.text.lstrip() if is_trace_op(op) else ""
        if not text.startswith("aie.trace.host_config"):
            continue
        m = _RE_HOST_CONFIG.match(text)
        try:
            return parse_int(m.group(1)) if m else _no_size(text)
        except IntegerError as exc:
            raise DeclarativeTraceError(f"`{' '.join(text.split())[:120]}`: buffer_size {exc}") from None
    return None


def _no_size(text: str):
    raise DeclarativeTraceError(
        f"`{' '.join(text.split())[:120]}`: no buffer_size = N read; accepted: buffer_size = an integer "
        "(decimal or 0x hex, as MLIR reads integers)"
    )


class DeclarativeTraceError(IronError):
    """An ``aie.trace`` op iron cannot read."""


def _event_name(spelled: str) -> str:
    """``<"NAME">`` / ``<Enum::NAME>`` / ``"NAME"`` / ``NAME`` -> NAME."""
    return spelled.strip('"<> ').split("::")[-1].strip('"')


def _kv(text: str) -> dict[str, str]:
    return {k: _event_name(v) for k, v in _RE_KV.findall(text)}


def _number(text: str, what: str) -> int:
    """An integer field, read as MLIR reads it (:func:`iron.limits.parse_int`: ``08`` is 8)."""
    try:
        return parse_int(text)
    except IntegerError as exc:
        raise DeclarativeTraceError(f"{what}: {exc}") from None


def _kind_of_row(row: int) -> str:
    return "shim" if row == SHIM_ROW else "memtile" if row == MEMTILE_ROW else "core"


def _boundary_event(kind: str, spec: dict[str, str], what: str, arch: str) -> int:
    if "broadcast" in spec:
        return EV.broadcast_event(kind, _number(spec["broadcast"], f"{what}: broadcast"))
    if "event" in spec:
        return EV.event_id(kind, spec["event"], arch)
    raise DeclarativeTraceError(f'{what}: expected broadcast=N or event=<"NAME">')


@dataclass
class DeclaredTrace:
    """One ``aie.trace`` op: its symbol, the unit it configures, and its start/stop in
    the spelling of :mod:`iron.options` (``broadcast=N`` | ``event=NAME``; None: not given)."""

    name: str
    unit: TraceUnit
    start: str | None
    stop: str | None


_RE_BROADCAST_EVENT = re.compile(r"^BROADCAST_(\d+)$")


def _boundary_spec(spec: dict[str, str]) -> str | None:
    """The start/stop in :mod:`iron.options` spelling. ``event=<"BROADCAST_N">`` is the
    event ``broadcast=N`` names (``AIETraceOps.td``: either attribute gives the unit's
    start/stop event), so both read as ``broadcast=N``."""
    if "broadcast" in spec:
        return f"broadcast={_number(spec['broadcast'], 'broadcast')}"
    if "event" in spec:
        m = _RE_BROADCAST_EVENT.match(spec["event"])
        return f"broadcast={int(m.group(1))}" if m else f"event={spec['event']}"
    return None


def design_boundary(traces: list["DeclaredTrace"], where: str) -> tuple[str, str]:
    """The start and stop the design as a whole needs raised, from its started traces'
    own forms, which may differ per trace (upstream's event_trace example: broadcasts on
    the core, memory and memtile units, ``TRUE``/``NONE`` on the shim's).

    Each unit keeps its own start/stop event. What the host must do once for all of them
    follows the forms that need raising: a broadcast (raised by the drain shim) wins, then
    a ``USER_EVENT_n`` (generated on every traced module); ``TRUE``, ``NONE`` and other
    events need nothing raised. Two different broadcasts, or two different user events,
    for the start (or the stop) are one error: iron raises one of each."""
    out = []
    for which in ("start", "stop"):
        specs = list(dict.fromkeys(getattr(t, which) for t in traces))
        for prefix in ("broadcast=", "event=USER_EVENT_"):
            raised = [s for s in specs if s.startswith(prefix)]
            if len(raised) > 1:
                listed = "; ".join(f"@{t.name}: {getattr(t, which)}" for t in traces)
                raise DeclarativeTraceError(
                    f"{where}: its aie.trace ops {which} on different events that must be raised ({listed}); "
                    f"iron raises one broadcast and one user event per {which}"
                )
            if raised:
                out.append(raised[0])
                break
        else:
            out.append(specs[0])
    return out[0], out[1]


def parse_trace_op(text: str, tiles: dict[str, ir.Tile], arch: str = "aie2") -> TraceUnit | None:
    """The unit one ``aie.trace`` op configures (None if ``text`` is not one)."""
    found = parse_trace(text, tiles, arch)
    return found.unit if found else None


@dataclass(frozen=True)
class TraceHeader:
    """What an ``aie.trace`` op says before its events: symbol, tile, unit kind, packet id
    (0: none given)."""

    name: str
    column: int
    row: int
    kind: str
    packet_id: int


def _header(text: str, tiles: dict[str, ir.Tile]) -> tuple[TraceHeader, list[str]] | None:
    """``(header, body lines)`` of one ``aie.trace`` op (None if ``text`` is not one)."""
    m = _RE_TRACE.match(text.strip())
    if not m:
        return None
    name, tile_name, body = m.groups()
    what = f"aie.trace @{name}"
    tile = tiles.get(tile_name)
    if tile is None:
        raise DeclarativeTraceError(f"{what}: %{tile_name} is not an aie.tile of this device")
    kind, packet_id = _kind_of_row(tile.row), 0
    lines = [ln.strip() for ln in body.splitlines() if ln.strip() and not ln.strip().startswith("//")]
    for ln in lines:  # kind first: event names are looked up in its table
        pm = _RE_PACKET.match(ln)
        if pm:
            spec = _kv(pm.group(1))
            if "type" in spec:
                kind = PACKET_KINDS.get(spec["type"].lower())
                if kind is None:
                    raise DeclarativeTraceError(
                        f"{what}: packet type {spec['type']!r}; accepted: {', '.join(PACKET_KINDS)}"
                    )
            packet_id = _number(spec.get("id", "0"), f"{what}: packet id")
    home = _kind_of_row(tile.row)
    allowed = ("core", "mem") if home == "core" else (home,)
    if kind not in allowed:  # a core unit at row 0 would decode nothing, silently
        raise DeclarativeTraceError(
            f"{what}: packet type {kind} on %{tile_name} = aie.tile({tile.col}, {tile.row}), a "
            f"{'compute' if home == 'core' else home} tile; accepted there: {', '.join(allowed)}"
        )
    return TraceHeader(name, tile.col, tile.row, kind, packet_id), lines


def parse_trace(text: str, tiles: dict[str, ir.Tile], arch: str = "aie2") -> DeclaredTrace | None:
    """One ``aie.trace`` op read whole (None if ``text`` is not one)."""
    found = _header(text, tiles)
    if found is None:
        return None
    head, lines = found
    name, kind, packet_id, mode, names = head.name, head.kind, head.packet_id, 0, []
    what = f"aie.trace @{name}"
    start = stop = None
    specs: dict[str, str | None] = {"start": None, "stop": None}
    ports: dict[int, list] = {}
    for ln in lines:
        if em := _RE_EVENT.match(ln):
            names.append(_event_name(em.group(0)[len("aie.trace.event") :]))
        elif pm := _RE_PORT.match(ln):
            slot, port = _port(kind, int(pm.group(1)), _kv(pm.group(2)), f"{what}: {ln}")
            if slot in ports:
                raise DeclarativeTraceError(f"{what}: port slot {slot} is selected twice")
            ports[slot] = port
        elif mm := _RE_MODE.match(ln):
            mode = mode_number(mm.group(1), f"{what}: aie.trace.mode")
        elif sm := _RE_START_STOP.match(ln):
            ev = _boundary_event(kind, _kv(sm.group(2)), f"{what}: {ln}", arch)
            specs[sm.group(1)] = _boundary_spec(_kv(sm.group(2)))
            start, stop = (ev, stop) if sm.group(1) == "start" else (start, ev)
    if len(names) > SLOTS:
        raise DeclarativeTraceError(f"{what}: {len(names)} events; a trace unit has {SLOTS} slots")
    ids = [EV.event_id(kind, n, arch) for n in names] + [0] * (SLOTS - len(names))
    unit = TraceUnit(
        column=head.column,
        row=head.row,
        kind=kind,
        packet_type=EV.PACKET_TYPE[kind],
        packet_id=packet_id,
        events=[EV.event_name(kind, e, arch) for e in ids],
        event_ids=ids,
        start_event=start or 0,
        stop_event=stop or 0,
        mode=mode,
        ports=[ports[slot] for slot in sorted(ports)],
    )
    return DeclaredTrace(name, unit, specs["start"], specs["stop"])


#: ``direction =`` / ``master =`` spellings -> the manifest's direction (S2MM: master port).
_DIRECTIONS = {"S2MM": "S2MM", "MM2S": "MM2S", "true": "S2MM", "false": "MM2S"}


def _port(kind: str, slot: int, spec: dict[str, str], what: str) -> tuple[int, list]:
    """``(slot, [slot, bundle, channel, direction])`` of one ``aie.trace.port`` op, checked
    against the tile kind's stream-switch ports."""
    if not 0 <= slot < stream_switch.EVENT_PORTS:
        raise DeclarativeTraceError(f"{what}: slot {slot}; accepted: 0 to {stream_switch.EVENT_PORTS - 1}")
    direction = _DIRECTIONS.get(spec.get("direction", spec.get("master", "")))
    bundle = stream_switch.bundle_name(spec.get("port", ""))
    channel = spec.get("channel", "")
    if direction is None or bundle is None or not channel.isdigit():
        raise DeclarativeTraceError(
            f"{what}: expected port = BUNDLE channel = N direction = S2MM|MM2S (or master = true|false)"
        )
    try:
        stream_switch.port_index(kind, bundle, int(channel), direction == "S2MM")
    except IronError as exc:
        raise DeclarativeTraceError(f"{what}: {exc}") from None
    return slot, [slot, bundle, int(channel), direction]


def declared_units(device: ir.Device, arch: str = "aie2") -> list[TraceUnit]:
    """Units of every ``aie.trace`` op of ``device``, in op order."""
    tiles = {t.name: t for t in device.tiles}
    out = []
    for op in device.body:
        if is_trace_op(op) and op.text.lstrip().startswith("aie.trace "):
            unit = parse_trace_op(op.text, tiles, arch)
            if unit is not None:
                out.append(unit)
    return out


_RE_START_CONFIG = re.compile(rf"^aie\.trace\.start_config\s+@({_NAME})")


@dataclass
class KeptTrace:
    """The trace configuration a design declares for one of its runtime sequences."""

    traces: list[DeclaredTrace]  # the aie.trace ops the sequence starts, in start order
    size: int | None  # its aie.trace.host_config buffer_size (None: it has none)
    declared: list[TraceHeader]  # every aie.trace op of the device, in op order


def declared_trace(device: ir.Device, sequence: str, arch: str = "aie2") -> KeptTrace | None:
    """What ``device`` declares for runtime sequence ``sequence``: the ``aie.trace`` ops its
    ``aie.trace.start_config @name`` ops start (as ``-aie-inline-trace-config`` inlines
    them there), read whole, with its host_config; the others only as far as their
    header (the packet ids they hold). None when the device has no ``aie.trace`` op."""
    tiles = {t.name: t for t in device.tiles}
    texts: dict[str, str] = {}
    declared = []
    for op in device.body:
        if is_trace_op(op) and op.text.lstrip().startswith("aie.trace "):
            found = _header(op.text, tiles)
            if found is not None:
                declared.append(found[0])
                texts[found[0].name] = op.text
    if not declared:
        return None
    seq = device.sequence(sequence)
    started: list[DeclaredTrace] = []
    for op in seq.body:
        if is_trace_op(op) and (m := _RE_START_CONFIG.match(op.text.lstrip())):
            if m.group(1) not in texts:
                raise DeclarativeTraceError(
                    f"@{seq.name}: aie.trace.start_config @{m.group(1)} names no aie.trace op of the device "
                    f"(it has: {', '.join('@' + n for n in texts)})"
                )
            if all(t.name != m.group(1) for t in started):
                started.append(parse_trace(texts[m.group(1)], tiles, arch))
    return KeptTrace(started, host_buffer_size(seq), declared)
