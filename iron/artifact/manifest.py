"""The trace manifest: everything needed to decode a capture without MLIR or a build dir.

It is embedded in every traced artifact (ELF section ``.iron.trace``) and copied
into every saved capture. JSON, versioned by :data:`SCHEMA_VERSION`; readers
reject newer schemas with a clear error.

This module owns the schema: :func:`validate` checks a loaded JSON object once,
field by field (types, ranges, the kinds of trace unit, 8 event slots per unit,
slices inside the buffer and not overlapping), and the first violation raises one
:class:`ManifestError` naming the field, its value and what is accepted. Code
past ``from_dict`` / ``from_json`` can trust every field.
"""

from __future__ import annotations

import math
from iron.errors import IronError
from iron.record import Default, Record
from iron.target.stream_switch import EVENT_PORTS
from iron.target.trace_unit import SLOTS

SCHEMA_VERSION = 1


def kernel_name(device: str, sequence: str) -> str:
    """iron's name of the kernel that runs ``sequence`` of ``device`` (slices record it);
    aiebu names the kernels of a full ELF the same way, so the XRT runner asks for this name."""
    return f"{device}:{sequence}"


class ManifestError(IronError):
    """A manifest is malformed or of an unsupported schema version."""


class TraceUnit(Record):
    """One traced module. ``column`` is design-relative; add the manifest's
    ``column_offset`` for the absolute column that packet headers carry."""

    column: int
    row: int
    kind: str  # core | mem | shim | memtile
    packet_type: int
    packet_id: int
    events: list[str]  # 8 slot names ("NONE" for unused slots)
    event_ids: list[int]  # 8 slot ids
    start_event: int
    stop_event: int
    mode: int = 0  # Trace_Control0 [1:0]: 0 event-time, 1 event-PC, 2 execution (iron.target.trace_modes)
    #: the stream-switch port each PORT_*_<slot> event watches, ``[slot, bundle, channel,
    #: "S2MM" | "MM2S"]`` (S2MM: the master port), for the slots the unit's selection sets
    ports: list[list] = Default(list)

    @property
    def label(self) -> str:
        return f"{self.kind}({self.column},{self.row})"


class Slice(Record):
    """The region of the trace buffer written by one traced call site."""

    index: int  # call-site index in program order (all call sites, traced or not)
    #: what the call site ran, as labels show it: the operator's class name (iron.build), or the
    #: callee device's symbol (a module wired by ``iron trace wire``, upstream's trace_slices)
    operator: str
    call: int  # how many earlier call sites ran the same operator
    device: str
    sequence: str
    offset: int  # bytes from the start of the trace buffer
    size: int  # bytes of this slice: the call site's trace size (the build's trace plan, iron.fuse.plan)
    units: list[TraceUnit] = Default(list)
    kernel: str = ""  # kernel whose control code drains into this slice
    arg_index: int = -1  # that kernel's trace argument (separate dispatch binds a sub-buffer there)
    upstream_index: int = -1  # index in upstream mlir-aie's trace_slices (>= 0: read from that attribute)

    @property
    def label(self) -> str:
        return f"{self.index}:{self.operator}#{self.call}"


class Manifest(Record):
    target: str
    columns: int
    column_offset: int
    clock_mhz: float
    kernel: str  # "<device>:<sequence>" of the dispatched kernel
    trace_arg_index: int
    total_size: int  # bytes of the whole trace buffer: every slice (iron.instrument.layout.total_size)
    slices: list[Slice] = Default(list)
    sources: dict[str, str] = Default(dict)  # synthetic name -> text
    schema: int = SCHEMA_VERSION

    def to_dict(self) -> dict:
        """The JSON object of this manifest: nested records as objects, lists and
        dicts copied (``dataclasses.asdict``)."""
        return _plain(self)

    def to_json(self, indent: int | None = None) -> str:
        import json  # here: a decode reads MLIR or a capture, rarely a JSON manifest

        return json.dumps(self.to_dict(), indent=indent, sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict) -> "Manifest":
        """A manifest from its JSON object, validated (:func:`validate`)."""
        validate(data)
        slices = [
            Slice(**{**sl, "units": [TraceUnit(**u) for u in sl.get("units", [])]})
            for sl in data.get("slices", [])
        ]
        return cls(**{k: v for k, v in data.items() if k != "slices"}, slices=slices)

    @classmethod
    def from_json(cls, text: str | bytes) -> "Manifest":
        import json

        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
            raise ManifestError(f"trace manifest is not valid JSON: {exc}") from None
        return cls.from_dict(data)


# --------------------------------------------------------------------------- schema
#: Event ids are whole bytes in the Trace_Event registers.
MAX_EVENT_ID = 0xFF
#: Byte sizes and offsets: a trace buffer never reaches this (it bounds the arithmetic).
MAX_BYTES = 1 << 48


def _header_max(name: str) -> int:
    from iron.target.frames import HEADER_FIELDS

    return (1 << HEADER_FIELDS[name][1]) - 1


def _fail(where: str, value, accepted: str):
    shown = repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    raise ManifestError(f"trace manifest: {where} = {shown}: accepted: {accepted}")


def _int(lo: int, hi: int, multiple: int = 1):
    accepted = f"an integer from {lo} to {hi}" + (f", a multiple of {multiple}" if multiple > 1 else "")

    def check(value, where):
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi or value % multiple:
            _fail(where, value, accepted)

    return check


def _str(value, where):
    if not isinstance(value, str):
        _fail(where, value, "a string")


#: AIE clocks iron renders (MHz). NPUs run at 1-2 GHz; below 1 MHz a cycle is more than
#: 1e6 ps and the picosecond timestamps of the writers (Perfetto: integer ps in int64)
#: overflow within hours of cycles; 1e-300 put every event at one timestamp.
MIN_CLOCK_MHZ = 1.0
MAX_CLOCK_MHZ = 1e4


def _clock(value, where):
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or not MIN_CLOCK_MHZ <= value <= MAX_CLOCK_MHZ:
        _fail(where, value, f"a clock frequency in MHz from {MIN_CLOCK_MHZ:g} to {MAX_CLOCK_MHZ:g}")


def _one_of(options_of):
    def check(value, where):
        accepted = options_of()
        if value not in accepted:
            _fail(where, value, ", ".join(accepted))

    return check


def _unit_kinds():
    from iron.target.events import MODULE_KINDS

    return MODULE_KINDS


def _target_names():
    from iron.target.geometry import TARGETS

    return tuple(TARGETS)


def _event_names(value, where):
    if not isinstance(value, list) or len(value) != SLOTS or not all(isinstance(v, str) for v in value):
        _fail(where, value, f'a list of {SLOTS} event names ("NONE" for unused slots)')


def _event_ids(value, where):
    if (
        not isinstance(value, list)
        or len(value) != SLOTS
        or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_EVENT_ID for v in value)
    ):
        _fail(where, value, f"a list of {SLOTS} event ids from 0 to {MAX_EVENT_ID}")


def _ports(value, where):
    ok = isinstance(value, list) and all(
        isinstance(p, list)
        and len(p) == 4
        and isinstance(p[0], int)
        and not isinstance(p[0], bool)
        and 0 <= p[0] < EVENT_PORTS
        and isinstance(p[1], str)
        and isinstance(p[2], int)
        and not isinstance(p[2], bool)
        and p[2] >= 0
        and p[3] in ("S2MM", "MM2S")
        for p in value
    )
    if not ok:
        _fail(where, value, f'a list of [slot 0..{EVENT_PORTS - 1}, bundle, channel, "S2MM" | "MM2S"]')


def _sources(value, where):
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        _fail(where, value, "an object of name -> text")


_UNIT = {
    "column": _int(0, _header_max("column")),
    "row": _int(0, _header_max("row")),
    "kind": _one_of(_unit_kinds),
    "packet_type": _int(0, _header_max("packet_type")),
    "packet_id": _int(0, _header_max("packet_id")),
    "events": _event_names,
    "event_ids": _event_ids,
    "start_event": _int(0, MAX_EVENT_ID),
    "stop_event": _int(0, MAX_EVENT_ID),
    "mode": _int(0, 3),  # Trace_Control0 [1:0]
    "ports": _ports,
}
_SLICE = {
    "index": _int(0, 1 << 31),
    "operator": _str,
    "call": _int(0, 1 << 31),
    "device": _str,
    "sequence": _str,
    "offset": _int(0, MAX_BYTES, 4),
    "size": _int(0, MAX_BYTES, 4),
    "units": None,  # checked below
    "kernel": _str,
    "arg_index": _int(-1, 1 << 31),
    "upstream_index": _int(-1, 1 << 31),
}
_MANIFEST = {
    "target": _one_of(_target_names),
    "columns": _int(1, _header_max("column") + 1),
    "column_offset": _int(0, _header_max("column")),
    "clock_mhz": _clock,
    "kernel": _str,
    "trace_arg_index": _int(-1, 1 << 31),
    "total_size": _int(0, MAX_BYTES, 4),
    "slices": None,  # checked below
    "sources": _sources,
    "schema": _int(1, SCHEMA_VERSION),
}


def _required(cls) -> set[str]:
    return set(cls._fields) - set(cls._defaults)


def _plain(value):
    """``value`` with every record in it a dict of its fields, and lists, tuples and
    dicts copied (what ``dataclasses.asdict`` made of a manifest)."""
    if isinstance(value, Record):
        return {n: _plain(getattr(value, n)) for n in value._fields}
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    return value  # JSON's scalars: str, int, float, bool, None


def _object(data, spec: dict, cls, where: str) -> None:
    if not isinstance(data, dict):
        _fail(where or "manifest", data, "a JSON object")
    unknown = sorted(set(data) - set(spec), key=str)
    if unknown:
        raise ManifestError(
            f"trace manifest: unknown field {(where + '.') if where else ''}{unknown[0]!r}; "
            f"accepted: {', '.join(spec)}"
        )
    missing = sorted(_required(cls) - set(data))
    if missing:
        raise ManifestError(f"trace manifest: {(where + '.' if where else '') + missing[0]} is missing")
    for name, check in spec.items():
        if check is not None and name in data:
            check(data[name], f"{where}.{name}" if where else name)


def _list(value, where: str) -> list:
    if not isinstance(value, list):
        _fail(where, value, "a list")
    return value


def validate(data) -> None:
    """Check a manifest's JSON object against the schema; raise one :class:`ManifestError`
    naming the first bad field, its value and what is accepted."""
    if not isinstance(data, dict):
        raise ManifestError("trace manifest: expected a JSON object")
    schema = data.get("schema")
    if isinstance(schema, int) and not isinstance(schema, bool) and schema > SCHEMA_VERSION:
        raise ManifestError(
            f"trace manifest schema {schema} is newer than this iron supports ({SCHEMA_VERSION}); upgrade iron"
        )
    if "schema" not in data:
        raise ManifestError(f"trace manifest: schema is missing; accepted: 1 to {SCHEMA_VERSION}")
    _object(data, _MANIFEST, Manifest, "")
    spans = []
    for i, sl in enumerate(_list(data.get("slices", []), "slices")):
        where = f"slices[{i}]"
        _object(sl, _SLICE, Slice, where)
        for j, unit in enumerate(_list(sl.get("units", []), f"{where}.units")):
            _object(unit, _UNIT, TraceUnit, f"{where}.units[{j}]")
        end = sl["offset"] + sl["size"]
        if end > data["total_size"]:
            _fail(f"{where}.offset + size", end, f"at most total_size ({data['total_size']})")
        spans.append((sl["offset"], end, i))
    spans.sort()
    for (_, end_a, a), (start_b, _, b) in zip(spans, spans[1:]):
        if start_b < end_a:
            _fail(
                f"slices[{b}].offset",
                start_b,
                f"a region not overlapping slices[{a}] (which ends at {end_a})",
            )
    _unicode(data, "")


def _unicode(node, where: str) -> None:
    """Every string (key or value) is Unicode text every output can encode: JSON's
    ``"\\ud800"`` escape gives a lone surrogate, which no UTF-8 writer (Perfetto's protobuf,
    summaries) can write."""
    listed = isinstance(node, list)
    items = node.items() if isinstance(node, dict) else enumerate(node) if listed else ()
    for key, value in items:
        at = f"{where}[{key}]" if listed else f"{where}.{key}" if where else str(key)
        for text in (key, value):
            if isinstance(text, str) and not text.isascii():
                try:
                    text.encode("utf-8")
                except UnicodeEncodeError as exc:
                    _fail(
                        at, text, f"Unicode text (it holds the lone surrogate U+{ord(text[exc.start]):04X})"
                    )
        _unicode(value, at)
