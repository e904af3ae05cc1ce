"""Lower shim data transfers (``dma_memcpy_nd`` / ``dma_wait``) to npu register ops.

Like mlir-aie's ``-aie-dma-to-npu`` (``lib/Dialect/AIEX/Transforms/AIEDmaToNpu.cpp``,
``DmaToNpuPattern``, static path): a transfer becomes a ``writebd`` of its BD, an
``address_patch`` of BD word 1 against the host buffer (``arg_plus`` = byte
offset), and a push of the BD on the channel's task queue; a wait becomes an
``aiex.npu.sync`` on the channel.

Sizes and strides become BD fields as ``getHardwareStridesWraps``
(``lib/Dialect/AIEX/IR/AIEXDialect.cpp``; the arithmetic is ``encodeHardwareStridesWraps``
in ``include/aie/Dialect/AIEX/Utils/BdLowering.h``) computes them, in 32-bit words: ``d0_size
= size0 * bytes / 4``, ``dN_stride = strideN * bytes / 4 - 1`` (0 where the size is
1, and for ``d0`` when ``stride0 * bytes`` is under a word or the elements are wider than
one), ``iteration_size =
size3 - 1`` and ``iteration_stride = stride3 * bytes / 4 - 1`` when ``stride3 > 0``
(with ``stride3 = 0`` the repeat is the push's repeat count only), ``buffer_length =
d0_size * size1 * size2``; a linear transfer (``[1, 1, 1, n][0, 0, 0, 1]``) writes
no dimensions. The byte offset is ``getOffsetInBytes``: offsets index the memref's
own shape, innermost first.
"""

from __future__ import annotations

from typing import Callable

from iron.errors import IronError
from iron.mlir import ir
from iron.target import registers, shim_dma
from iron.target.geometry import SHIM_ROW

#: Resolves a sequence argument name to (host-buffer index, byte offset, type).
Resolver = Callable[[str], tuple[int, int, ir.MemRefType]]

#: Shim BD field widths (AIEXDialect.cpp verifyStridesWraps, XAIEMLGBL_NOC_MODULE_DMA_BD0_3_*).
_WRAP_MAX = (1 << 10) - 1
_STEP_MAX = 1 << 20
_ITER_MAX = 1 << 6


def hardware_fields(op: ir.DmaMemcpyNd, mtype: ir.MemRefType) -> dict[str, int]:
    """The ``writebd`` dimension fields and ``repeat_count`` of ``op`` (see the module docstring)."""
    where = f"dma_memcpy_nd on @{op.metadata}"
    elem = ir.ELEMENT_BYTES[mtype.dtype]
    s3, s2, s1, s0 = op.sizes
    t3, t2, t1 = op.strides
    t0 = op.inner_stride
    if min(op.sizes) <= 0:
        raise IronError(f"{where}: sizes {list(op.sizes)} must be positive")
    if s0 * elem % 4:
        raise IronError(
            f"{where}: {s0} elements of {elem} bytes is not a multiple of 4 bytes (shim BDs move words)"
        )
    if t0 != 1 and (t0 * elem % 4 or elem > 4):
        # verifyStridesWraps: a stride must be whole words; wider elements copy every byte
        raise IronError(
            f"{where}: innermost stride {t0} of {elem}-byte elements is not a whole number of words"
        )
    linear = (s1, s2, s3) == (1, 1, 1) and (t1, t2, t3) == (0, 0, 0) and t0 == 1
    f = {"d0_size": 0, "d0_stride": 0, "d1_size": 0, "d1_stride": 0, "d2_stride": 0}
    f.update(iteration_size=0, iteration_stride=0)
    words = lambda stride: stride * elem // 4  # noqa: E731
    if not linear:
        for i, (size, stride) in enumerate(((s0, t0), (s1, t1), (s2, t2))):
            if size > 1 and stride < 1:
                raise IronError(f"{where}: stride {i} must be a positive integer (size {size})")
            if i and stride * elem % 4:
                raise IronError(f"{where}: stride {i} of {stride} elements is not a multiple of 4 bytes")
        f["d0_size"] = s0 * elem // 4
        f["d0_stride"] = 0 if t0 * elem < 4 or elem > 4 else words(t0) - 1
        f["d1_size"] = s1
        f["d1_stride"] = words(t1) - 1 if s1 > 1 else 0
        f["d2_stride"] = words(t2) - 1 if s2 > 1 else 0
        if f["d0_size"] > _WRAP_MAX or f["d1_size"] > _WRAP_MAX:
            raise IronError(f"{where}: size 0 or 1 exceeds the BD's [0:{_WRAP_MAX}] wrap range")
        if max(f["d1_stride"], f["d2_stride"]) > _STEP_MAX:
            raise IronError(f"{where}: a stride exceeds the BD's [1:{_STEP_MAX}] step range")
    if s3 > 1:
        if s3 - 1 > _ITER_MAX:
            raise IronError(f"{where}: size 3 = {s3} exceeds the BD's [1:{_ITER_MAX}] iteration range")
        if t3 < 0:
            raise IronError(f"{where}: stride 3 must be non-negative")
        if t3 > 0:
            f["iteration_size"] = s3 - 1
            f["iteration_stride"] = words(t3) - 1
    f["buffer_length"] = s0 * elem // 4 * s1 * s2
    f["repeat_count"] = s3 - 1
    return f


def offset_in_bytes(op: ir.DmaMemcpyNd, mtype: ir.MemRefType) -> int:
    """``getOffsetInBytes``: offsets (innermost first) index the memref's shape."""
    elem = ir.ELEMENT_BYTES[mtype.dtype]
    offsets = list(reversed(op.offsets))
    shape = mtype.shape
    stride, total = 1, 0
    for i in range(len(shape)):
        total += offsets[i] * stride * elem
        stride *= shape[len(shape) - i - 1]
    return total


def lower_memcpy(
    op: ir.DmaMemcpyNd, alloc: ir.ShimDmaAllocation, resolve: Resolver, repeat: int | None = None
) -> list:
    """``repeat``: the push's repeat count when it is not ``size3 - 1`` (a DMA task's
    ``repeat_count``)."""
    index, base, mtype = resolve(op.arg)
    fields = hardware_fields(op, mtype)
    size3_repeat = fields.pop("repeat_count")
    repeat = size3_repeat if repeat is None else repeat
    offset = offset_in_bytes(op, mtype)
    if offset % 4:
        raise IronError(f"dma_memcpy_nd on @{op.metadata}: offset {offset} bytes is not 4-byte aligned")
    col = alloc.column
    bd = ir.WriteBd({"bd_id": op.id, "column": col, "row": SHIM_ROW, "valid_bd": 1, **fields})
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
    push = shim_dma.pack_task_queue(op.id, repeat=repeat, issue_token=token)
    return ops + [ir.Write32(queue, push, column=col, row=SHIM_ROW)]


def lower_wait(op: ir.DmaWait, alloc: ir.ShimDmaAllocation) -> ir.Sync:
    return ir.Sync(
        alloc.column, SHIM_ROW, shim_dma.DIRECTION_CODE[alloc.direction.lower()], alloc.channel, 1, 1
    )
