"""iron's built-in stand-in for a device's PDI: what the array is configured with.

On hardware a PDI holds the cores' programs, the DMA and lock configuration and
the stream-switch routes. The built-in path stores, per ``aie.device``, what sim
needs to play that role: the device's MLIR as iron prints it (``mlir``: sim re-reads
it with :func:`iron.mlir.reader.parse` and executes its object FIFOs, links and core
bodies), the kernel objects its ``func.func ... {link_with}`` declarations name
(``kernels``: name, source, arch, defines; a ``func.call`` resolves to its kernel
model through them; a foreign design's own objects have source ``""`` and the defines
``from_mlir(kernel_defines=)`` gave), which shim channel carries which argument, the tiles and the
packet routes. The operator's name and parameters are kept for messages and
manifests only: sim never computes with an operator's reference. Trace registers
are *not* here: sim learns them from the control stream, as the hardware does.

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
from iron.target.geometry import target_for_device
from iron.target.kernels import ARCH


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
    mlir: str = ""  # the aie.device as iron prints it ("" for the reset device)
    #: [name, source, arch, [[define, value], ...]] per kernel object the cores link
    kernels: list = field(default_factory=list)

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
    from iron.mlir.printer import print_device  # build side only: the runtime reads payloads

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
        mlir=print_device(device),
        kernels=[[k.name, k.source, k.arch, [list(d) for d in k.defines]] for k in design.kernels]
        + [[name, "", _arch(device), [list(d) for d in defines]] for name, defines in design.linked],
    )


def _arch(device: ir.Device) -> str:
    return ARCH[target_for_device(device.target).name]
