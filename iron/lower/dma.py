"""Lower shim data transfers (``dma_memcpy_nd`` / ``dma_wait``) to npu register ops.

Like mlir-aie's ``-aie-dma-to-npu``: a transfer becomes a ``writebd`` of its BD,
an ``address_patch`` of BD word 1 against the host buffer (``arg_plus`` = byte
offset), and a push of the BD on the channel's task queue; a wait becomes an
``aiex.npu.sync`` on the channel. iron's built-in lowering handles contiguous
transfers (what iron's operators emit); strided patterns need aiecc.
"""

from __future__ import annotations

from typing import Callable

from iron.errors import IronError
from iron.mlir import ir
from iron.target import registers, shim_dma

#: Resolves a sequence argument name to (host-buffer index, byte offset, type).
Resolver = Callable[[str], tuple[int, int, ir.MemRefType]]


def lower_memcpy(op: ir.DmaMemcpyNd, alloc: ir.ShimDmaAllocation, resolve: Resolver) -> list:
    index, base, mtype = resolve(op.arg)
    elem = ir.ELEMENT_BYTES[mtype.dtype]
    repeat, s2, s1, s0 = op.sizes
    if s2 != 1 or s1 != 1 or op.offsets[:3] != (0, 0, 0):
        raise IronError(
            f"dma_memcpy_nd on @{op.metadata}: sizes {list(op.sizes)} offsets {list(op.offsets)}; "
            "iron's built-in lowering supports contiguous transfers only (use aiecc for strided ones)"
        )
    nbytes = s0 * elem
    offset = op.offsets[3] * elem
    if nbytes % 4 or offset % 4:
        raise IronError(
            f"dma_memcpy_nd on @{op.metadata}: {nbytes} bytes at {offset}: shim BDs move 32-bit words"
        )
    if offset + nbytes > mtype.nbytes:
        raise IronError(
            f"dma_memcpy_nd on @{op.metadata}: bytes {offset}..{offset + nbytes} exceed %{op.arg} ({mtype})"
        )
    col = alloc.column
    bd = ir.WriteBd({"bd_id": op.id, "buffer_length": nbytes // 4, "column": col, "row": 0, "valid_bd": 1})
    word1 = registers.tile_address(col, 0, shim_dma.bd_address(op.id) + 4)
    direction = alloc.direction.lower()
    queue = shim_dma.task_queue(direction, alloc.channel)
    push = shim_dma.pack_task_queue(op.id, repeat=repeat - 1, issue_token=op.issue_token)
    return [bd, ir.AddressPatch(word1, index, base + offset), ir.Write32(queue, push, column=col, row=0)]


def lower_wait(op: ir.DmaWait, alloc: ir.ShimDmaAllocation) -> ir.Sync:
    direction = 0 if alloc.direction == "S2MM" else 1
    return ir.Sync(alloc.column, 0, direction, alloc.channel, 1, 1)


def allocations(device: ir.Device) -> dict[str, ir.ShimDmaAllocation]:
    return {a.symbol: a for a in device.allocations}


def allocation(device: ir.Device, symbol: str) -> ir.ShimDmaAllocation:
    try:
        return allocations(device)[symbol]
    except KeyError:
        raise IronError(f"device @{device.symbol}: no aie.shim_dma_allocation @{symbol}") from None
