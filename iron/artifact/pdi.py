"""iron's built-in stand-in for a device's PDI: what the array is configured with.

On hardware a PDI holds the cores' programs and the stream-switch routes. The
built-in path stores, per ``aie.device``, the facts sim needs to play that role:
the operator (to compute with its numpy reference and drive its activity model),
which shim channel carries which argument, the tiles and the packet routes.
Trace registers are *not* here: sim learns them from the control stream, as the
hardware does.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from iron.design import Design, operator_params
from iron.mlir.objectfifo import shim_allocations
from iron.mlir import ir

_FOREIGN = "<foreign>"  # operator name of a foreign design (iron.operators.foreign) in a payload


@dataclass
class DevicePayload:
    symbol: str
    device: str  # mlir-aie device name, e.g. npu2_1col
    operator: str | None = None  # operator class name (None: empty reset device)
    params: dict = field(default_factory=dict)
    arg_types: list = field(default_factory=list)  # [[shape...], dtype] per sequence argument
    streams: list = field(default_factory=list)  # [arg index, allocation symbol]
    allocations: list = field(default_factory=list)  # [symbol, "MM2S"|"S2MM", channel, column]
    packet_flows: list = field(default_factory=list)  # {"id", "source": [col,row,bundle,ch], "dest": [...]}
    tiles: list = field(default_factory=list)  # [col, row]

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str | bytes) -> "DevicePayload":
        return cls(**json.loads(text))

    @property
    def operator_name(self) -> str:
        """The operator's name for messages (a foreign design's own name)."""
        if self.operator == _FOREIGN:
            return repr(self.params.get("name", "?"))
        return str(self.operator)

    def build_operator(self):
        """Rebuild the operator object (``None`` for the reset device)."""
        if self.operator is None:
            return None
        if self.operator == _FOREIGN:
            from iron.operators.foreign import rebuild

            return rebuild(self.params)
        from iron.operators import OPERATORS

        params = {k: tuple(v) if isinstance(v, list) else v for k, v in self.params.items()}
        return OPERATORS[self.operator](**params)


def payload_for(symbol: str, design: Design | None, op) -> DevicePayload:
    """Payload of one device of a fused module (``design=None``: the reset device)."""
    if design is None:
        return DevicePayload(symbol, "")
    device = design.device
    tiles = {t.name: t for t in device.tiles}

    def end(e: ir.PacketEnd):
        t = tiles[e.tile]
        return [t.col, t.row, e.bundle, e.channel]

    return DevicePayload(
        symbol=symbol,
        device=device.target,
        # A foreign design (iron.operators.foreign) describes itself: its reference is not data.
        operator=_FOREIGN if hasattr(op, "payload_params") else type(op).__name__,
        params=op.payload_params() if hasattr(op, "payload_params") else operator_params(op),
        arg_types=[[list(a.type.shape), a.type.dtype] for a in design.runtime_sequence.args],
        streams=[[s.arg, s.symbol] for s in design.streams],
        allocations=[[s, a.direction, a.channel, a.column] for s, a in shim_allocations(device).items()],
        packet_flows=[
            {"id": f.id, "source": end(f.source), "dest": end(f.dest)} for f in device.packet_flows
        ],
        tiles=[[t.col, t.row] for t in device.tiles],
    )
