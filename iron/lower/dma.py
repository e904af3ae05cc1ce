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
from iron.target.geometry import SHIM_ROW

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
    bd = ir.WriteBd(
        {"bd_id": op.id, "buffer_length": nbytes // 4, "column": col, "row": SHIM_ROW, "valid_bd": 1}
    )
    word1 = registers.tile_address(col, SHIM_ROW, shim_dma.bd_address_low(op.id))
    direction = alloc.direction.lower()
    # As AIEDmaToNpu.cpp: S2MM pushes always issue a token; a token-issuing push first
    # names the shim's controller id (aiecc gives every shim tile one) in the channel Ctrl.
    token = op.issue_token or direction == "s2mm"
    ops = [bd, ir.AddressPatch(word1, index, base + offset)]
    if token:
        ctrl = shim_dma.channel_ctrl(direction, alloc.channel)
        value = shim_dma.SHIM_CONTROLLER_ID << shim_dma.CTRL_CONTROLLER_ID_SHIFT
        ops.append(ir.MaskWrite32(ctrl, value, shim_dma.AIECC_CONTROLLER_ID_MASK, column=col, row=SHIM_ROW))
    queue = shim_dma.task_queue(direction, alloc.channel)
    push = shim_dma.pack_task_queue(op.id, repeat=repeat - 1, issue_token=token)
    return ops + [ir.Write32(queue, push, column=col, row=SHIM_ROW)]


def lower_wait(op: ir.DmaWait, alloc: ir.ShimDmaAllocation) -> ir.Sync:
    return ir.Sync(
        alloc.column, SHIM_ROW, shim_dma.DIRECTION_CODE[alloc.direction.lower()], alloc.channel, 1, 1
    )
