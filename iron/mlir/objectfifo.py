"""The shim DMA allocations mlir-aie's object-FIFO lowering creates, derived the same way.

A design names a shim transfer by its object FIFO (``dma_memcpy_nd {metadata =
@in}``); ``aiecc`` lowers every FIFO with a shim endpoint to
``aie.shim_dma_allocation @<fifo>_shim_alloc(%shim, MM2S|S2MM, channel)`` itself
and fails on a hand-made one of that name. iron therefore declares none and
derives them here for its built-in lowering, following
``lib/Dialect/AIE/Transforms/AIEObjectFifoStatefulTransform.cpp``:

* channels that declared ``aie.shim_dma_allocation`` ops already hold are used;
* FIFOs are visited in program order, the producer end first (MM2S on its tile),
  then each consumer end (S2MM on its tile); each end takes the lowest free
  channel of its tile and direction (a shim has 2 per direction);
* the allocation is named after the FIFO (``<fifo>_shim_alloc``), also for a
  shim consumer; further shim ends of one FIFO get MLIR's unique suffixes
  (``<fifo>_shim_alloc_0`` ...), and a transfer naming the FIFO uses the last one
  (``test/objectFifo-stateful-transform/data_movement_patterns/broadcast_to_two_shim_tiles.mlir``);
* an allocation the design declares under the FIFO's own name is that FIFO's shim
  end: nothing is created for it (``dma_channel_alloc/shimtileDMA_allocOp_test.mlir``).
"""

from __future__ import annotations

from iron.errors import IronError
from iron.mlir import ir
from iron.target.geometry import SHIM_ROW
from iron.target.shim_dma import SHIM_DMA_CHANNELS

SUFFIX = "_shim_alloc"


def shim_allocations(device: ir.Device) -> dict[str, ir.ShimDmaAllocation]:
    """Every shim allocation of ``device`` by each symbol a transfer may name it with:
    declared ones by their symbol, derived ones by ``<fifo>_shim_alloc`` and ``<fifo>``."""
    out = {a.symbol: a for a in device.allocations}
    channels = SHIM_DMA_CHANNELS
    used = {(a.column, a.direction, a.channel) for a in device.allocations}
    tiles = {t.name: t for t in device.tiles}

    def take(tile: ir.Tile, direction: str, fifo: str) -> int:
        for ch in range(channels):
            if (tile.col, direction, ch) not in used:
                used.add((tile.col, direction, ch))
                return ch
        word = "output" if direction == "MM2S" else "input"
        raise IronError(
            f"object FIFO @{fifo}: shim tile ({tile.col}, 0) has no free {direction} channel "
            f"(mlir-aie: 'number of {word} DMA channel exceeded')"
        )

    declared = set(out)
    for fifo in (op for op in device.body if isinstance(op, ir.ObjectFifo)):
        if fifo.name in declared:
            continue  # the design bound this FIFO's shim end itself
        ends = [(fifo.producer, "MM2S")] + [(c, "S2MM") for c in fifo.consumers]
        n = 0
        for name, direction in ends:
            tile = tiles.get(name)
            if tile is None:
                raise IronError(f"object FIFO @{fifo.name}: unknown tile %{name}")
            if tile.row != SHIM_ROW:
                continue
            symbol = fifo.name + SUFFIX + (f"_{n - 1}" if n else "")
            n += 1
            if symbol in declared:
                raise IronError(
                    f"object FIFO @{fifo.name}: the design declares @{symbol}, which mlir-aie's "
                    f"object-FIFO lowering creates itself (duplicate symbol)"
                )
            alloc = ir.ShimDmaAllocation(symbol, direction, take(tile, direction, fifo.name), tile.col)
            out[symbol] = out[fifo.name] = alloc
    return out
