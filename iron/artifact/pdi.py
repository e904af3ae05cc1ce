"""iron's built-in stand-in for a device's PDI: what the array is configured with.

On hardware a PDI holds the cores' programs and the stream-switch routes. The
built-in path stores, per ``aie.device``, the facts sim needs to play that role:
the operator by name and parameters (sim computes with its numpy reference and
drives its activity model), which shim channel carries which argument, the tiles
and the packet routes. Trace registers are *not* here: sim learns them from the
control stream, as the hardware does.

The payload names the operator; it does not import one. The operator library
says how an operator is named and rebuilt (:func:`iron.operators.payload_identity`,
:func:`iron.operators.from_payload`), and whoever loads an artifact hands sim that
resolver (:func:`iron.load`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from iron.mlir.objectfifo import shim_allocations
from iron.mlir import ir


@dataclass
class DevicePayload:
    symbol: str
    device: str  # mlir-aie device name, e.g. npu2_1col
    operator: str | None = None  # iron.operators.payload_identity name (None: empty reset device)
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


def payload_for(
    symbol: str, design, operator: str | None = None, params: dict | None = None
) -> DevicePayload:
    """Payload of one device of a fused module: its :class:`iron.design.Design` and the
    operator's payload name and parameters (``design=None``: the reset device)."""
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
        operator=operator,
        params=dict(params or {}),
        arg_types=[[list(a.type.shape), a.type.dtype] for a in design.runtime_sequence.args],
        streams=[[s.arg, s.symbol] for s in design.streams],
        allocations=[[s, a.direction, a.channel, a.column] for s, a in shim_allocations(device).items()],
        packet_flows=[
            {"id": f.id, "source": end(f.source), "dest": end(f.dest)} for f in device.packet_flows
        ],
        tiles=[[t.col, t.row] for t in device.tiles],
    )
