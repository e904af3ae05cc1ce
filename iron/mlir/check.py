"""A design checked against its device before anything is built from it or cached.

mlir-aie's verifiers refuse these before lowering (``lib/Dialect/AIE/IR/AIEDialect.cpp``:
``TileOp::verify`` "column index ... must be less than the number of columns" / rows,
``CoreOp::verify`` "CoreOp cannot be created on shim tile" / "on mem tile"; MLIR's parser:
"redefinition of SSA value", "use of undeclared SSA value"). iron reads the same designs
with its tolerant reader (:mod:`iron.mlir.reader`), so :func:`check_module` applies them
itself: every tile inside its device's columns and rows (:mod:`iron.target.geometry`), every
core on a compute tile, every tile named by a core, packet flow, object FIFO or shim
allocation defined once, no ``dimensionsToStream`` / ``dimensionsFromStream`` on an object
FIFO's shim end (``ObjectFifoCreateOp::verify``). :func:`iron.build` and ``iron trace wire`` call it, so nothing
invalid is lowered, stored in the cache, or handed to sim.
"""

from __future__ import annotations

import re

from iron.errors import IronError
from iron.mlir import ir
from iron.mlir.check_dma import check_storage
from iron.mlir.check_fifo import check_fifos
from iron.mlir.decl import NAME
from iron.target.geometry import (
    FIRST_COMPUTE_ROW,
    SHIM_ROW,
    TARGETS,
    device_columns,
    target_for_device,
    tile_kind,
)

#: ``[%c = ]aie.core(%tile)`` at the start of an op kept verbatim.
_RE_CORE = re.compile(rf"(?:%{NAME}\s*=\s*)?aie\.core\s*\(\s*%({NAME})\s*\)")


class DesignCheckError(IronError):
    """A design its device cannot hold; the message names the device, the op and the value."""


def check_module(module: ir.Module, where: str = "design") -> None:
    """Check every NPU device of ``module`` (see the module docstring); ``where`` names the
    design (a file name) in the error. Devices of other targets are left alone."""
    for dev in module.devices:
        if dev.target.split("_", 1)[0] in TARGETS:
            check_device(dev, where)


def check_device(dev: ir.Device, where: str = "design") -> None:
    """Check one device (see the module docstring); raises :class:`DesignCheckError`."""
    name = f"{where}: aie.device({dev.target})" + (f" @{dev.symbol}" if dev.symbol else "")
    try:
        target = target_for_device(dev.target)
        columns = device_columns(dev.target)
    except IronError as exc:
        raise DesignCheckError(f"{name}: {exc}") from None
    if not 1 <= columns <= target.max_columns:
        raise DesignCheckError(f"{name}: {columns} columns; {target.name} has 1 to {target.max_columns}")
    tiles: dict[str, ir.Tile] = {}
    for t in dev.tiles:
        if t.name in tiles:
            raise DesignCheckError(
                f"{name}: %{t.name} is defined twice (aie.tile ops); an SSA name is defined once"
            )
        tiles[t.name] = t
        if not (0 <= t.col < columns and 0 <= t.row < target.rows):
            raise DesignCheckError(
                f"{name}: %{t.name} = aie.tile({t.col}, {t.row}) is outside the device: columns 0 to "
                f"{columns - 1}, rows 0 to {target.rows - 1}"
            )

    check_storage(name, dev, tiles, DesignCheckError)
    check_fifos(name, dev, tiles, DesignCheckError)

    def tile(ssa: str, op: str) -> ir.Tile:
        if ssa not in tiles:
            raise DesignCheckError(f"{name}: {op} names %{ssa}, which is not an aie.tile of this device")
        return tiles[ssa]

    for op in dev.body:
        core = op.tile if isinstance(op, ir.Core) else None
        if isinstance(op, ir.Opaque) and (m := _RE_CORE.match(op.text.lstrip())):
            core = m.group(1)  # a foreign core, kept verbatim
        if core is not None:
            t = tile(core, "aie.core")
            if t.row < FIRST_COMPUTE_ROW:
                raise DesignCheckError(
                    f"{name}: aie.core(%{t.name}) on aie.tile({t.col}, {t.row}), a {tile_kind(t.row)} tile; "
                    f"cores run on compute tiles (rows {FIRST_COMPUTE_ROW} to {target.rows - 1})"
                )
        elif isinstance(op, ir.PacketFlow):
            tile(op.source.tile, f"aie.packet_flow({op.id}) source")
            tile(op.dest.tile, f"aie.packet_flow({op.id}) dest")
        elif isinstance(op, ir.ObjectFifo):
            _check_fifo(name, op, tile)
        elif isinstance(op, ir.ShimDmaAllocation) and not 0 <= op.column < columns:
            raise DesignCheckError(
                f"{name}: aie.shim_dma_allocation @{op.symbol} at column {op.column}; columns 0 to {columns - 1}"
            )


def _check_fifo(name: str, op: ir.ObjectFifo, tile) -> None:
    """An object FIFO's tiles exist, and no data layout transformation sits on a shim end:
    mlir-aie's ``ObjectFifoCreateOp::verify`` (lib/Dialect/AIE/IR/AIEDialect.cpp at
    49edccc8ce7b7e2de2aa60adeb11de6eabd24407, "data layout transformations on shim tiles are
    handled by runtime operations"; lit test test/dialect/AIE/objectfifo_invalid_shim_dims.mlir
    at 1351c7a5fbce6b925c5570838246c597904a99d6) refuses both with these messages."""
    what = f"aie.objectfifo @{op.name}"
    if tile(op.producer, what).row == SHIM_ROW and op.dims_to_stream:
        raise DesignCheckError(
            f"{name}: {what}: `dimensionsToStream` data layout transformations are not supported on shim "
            "tile producers (mlir-aie's verifier; the runtime sequence's BD dimensions set the shim's pattern)"
        )
    from_stream = op.dims_from_stream or ((),) * len(op.consumers)
    for c, dims in zip(op.consumers, from_stream):
        if tile(c, what).row == SHIM_ROW and dims:
            raise DesignCheckError(
                f"{name}: {what}: `dimensionsFromStreamPerConsumer` data layout transformations are not "
                "supported on shim tile consumers (mlir-aie's verifier; the runtime sequence's BD dimensions "
                "set the shim's pattern)"
            )
