"""The trace manifest: everything needed to decode a capture without MLIR or a build dir.

It is embedded in every traced artifact (ELF section ``.iron.trace``) and copied
into every saved capture. JSON, versioned by :data:`SCHEMA_VERSION`; readers
reject newer schemas with a clear error.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from iron.errors import IronError

SCHEMA_VERSION = 1


class ManifestError(IronError):
    """A manifest is malformed or of an unsupported schema version."""


@dataclass
class TraceUnit:
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
    mode: int = 0  # Trace_Control0 [1:0]: 0 event-time, 1 event-PC, 2 execution (iron.trace.modes)
    #: the stream-switch port each PORT_*_<slot> event watches, ``[slot, bundle, channel,
    #: "S2MM" | "MM2S"]`` (S2MM: the master port), for the slots the unit's selection sets
    ports: list[list] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"{self.kind}({self.column},{self.row})"


@dataclass
class Slice:
    """The region of the trace buffer written by one traced call site."""

    index: int  # call-site index in program order (all call sites, traced or not)
    operator: str  # operator class name
    call: int  # how many earlier call sites ran the same operator
    device: str
    sequence: str
    offset: int  # bytes from the start of the trace buffer
    size: int
    units: list[TraceUnit] = field(default_factory=list)
    kernel: str = ""  # kernel whose control code drains into this slice
    arg_index: int = -1  # that kernel's trace argument (separate dispatch binds a sub-buffer there)
    upstream_index: int = -1  # index in upstream mlir-aie's trace_slices (>= 0: read from that attribute)

    @property
    def label(self) -> str:
        return f"{self.index}:{self.operator}#{self.call}"


@dataclass
class Manifest:
    target: str
    columns: int
    column_offset: int
    clock_mhz: float
    kernel: str  # "<device>:<sequence>" of the dispatched kernel
    trace_arg_index: int
    total_size: int
    slices: list[Slice] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)  # synthetic name -> text
    schema: int = SCHEMA_VERSION

    def to_dict(self) -> dict:
        return asdict(self)

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent, sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict) -> "Manifest":
        if not isinstance(data, dict):
            raise ManifestError("trace manifest: expected a JSON object")
        schema = data.get("schema")
        if not isinstance(schema, int) or schema < 1:
            raise ManifestError(f"trace manifest: missing or invalid schema version {schema!r}")
        if schema > SCHEMA_VERSION:
            raise ManifestError(
                f"trace manifest schema {schema} is newer than this iron supports ({SCHEMA_VERSION}); upgrade iron"
            )
        try:
            slices = [
                Slice(**{**s, "units": [TraceUnit(**u) for u in s.get("units", [])]})
                for s in data.get("slices", [])
            ]
            fields = {k: v for k, v in data.items() if k != "slices"}
            return cls(**fields, slices=slices)
        except TypeError as exc:
            raise ManifestError(f"trace manifest: {exc}") from None

    @classmethod
    def from_json(cls, text: str | bytes) -> "Manifest":
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ManifestError(f"trace manifest is not valid JSON: {exc}") from None
        return cls.from_dict(data)
