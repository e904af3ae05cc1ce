"""Lower shim data transfers (``dma_memcpy_nd`` / ``dma_wait``) to npu register ops.

Like mlir-aie's ``-aie-dma-to-npu`` (``lib/Dialect/AIEX/Transforms/AIEDmaToNpu.cpp``,
``DmaToNpuPattern``, static path): a transfer becomes a ``writebd`` of its BD, an
``address_patch`` of BD word 1 against the host buffer (``arg_plus`` = byte
offset), and a push of the BD on the channel's task queue; a wait becomes an
``aiex.npu.sync`` on the channel.

Sizes and strides become BD fields as ``getHardwareStridesWraps`` computes them
(:func:`iron.target.shim_dma.transfer_fields`, which owns the rules and the field limits;
a contiguous row-major scan becomes a linear BD, as ``DmaToNpuPattern``'s ``isLinear``);
``packet = <pkt_type, pkt_id>`` sets the BD's packet header fields.
The byte offset is ``getOffsetInBytes``: offsets index the memref's
own shape, innermost first.
"""

from __future__ import annotations

import re
from typing import Callable

from iron.errors import IronError
from iron.mlir import ir
from iron.target import registers, shim_dma
from iron.target.geometry import SHIM_ROW

#: Resolves a sequence argument name to (host-buffer index, byte offset, type).
Resolver = Callable[[str], tuple[int, int, ir.MemRefType]]

_RE_CONTROLLER = re.compile(r"controller_id\s*=\s*#aie\.packet_info<[^>]*pkt_id\s*=\s*(\d+)")


def controller_id(tile: ir.Tile | None) -> int | None:
    """The packet id a tile's ``controller_id = #aie.packet_info<..>`` attribute names (None:
    the design gives it none). AIEDmaToNpu.cpp's token-issuing push writes exactly this id."""
    m = _RE_CONTROLLER.search(tile.attrs or "") if tile is not None else None
    return int(m.group(1)) if m else None


def shim_controller(device: ir.Device, column: int) -> int:
    """The controller id a token-issuing push on ``column``'s shim names: the one the design
    wrote on that tile, else the one aiecc's pipeline gives a shim tile."""
    written = controller_id(device.tile_at(column, SHIM_ROW))
    return shim_dma.SHIM_CONTROLLER_ID if written is None else written


def hardware_fields(op: ir.DmaMemcpyNd, mtype: ir.MemRefType, shim: bool = True) -> dict[str, int]:
    """The ``writebd`` dimension fields and ``repeat_count`` of ``op`` (see the module docstring;
    the rules and field limits are :func:`iron.target.shim_dma.transfer_fields`). ``shim``:
    the BD is a shim tile's, where a contiguous scan lowers to a linear BD."""
    elem = ir.ELEMENT_BYTES[mtype.dtype]
    where = f"dma_memcpy_nd on @{op.metadata}"
    return shim_dma.transfer_fields(
        op.sizes, op.strides, elem, where, inner_stride=op.inner_stride, shim=shim
    )


def offset_in_bytes(op: ir.DmaMemcpyNd, mtype: ir.MemRefType) -> int:
    """``getOffsetInBytes``: offsets (innermost first) index the memref's shape."""
    elem = ir.ELEMENT_BYTES[mtype.dtype]
    offsets = list(reversed(op.offsets))
    shape = mtype.shape
    stride, total = 1, 0
    for i in range(len(shape)):  # a memref of more dimensions than offsets: its outer ones are at 0
        total += (offsets[i] if i < len(offsets) else 0) * stride * elem
        stride *= shape[len(shape) - i - 1]
    return total


def packet_fields(op: ir.DmaMemcpyNd) -> dict[str, int]:
    """The BD's packet header fields (``DmaToNpuPattern``: ``packet = <..>`` sets
    ``enable_packet``, ``packet_type`` and ``packet_id``); the widths are the BD's
    (:data:`iron.target.shim_dma.BD_FIELDS`), checked as ``NpuDmaMemcpyNdOp::verify`` does."""
    if op.packet is None:
        return {}
    kind, pid = op.packet
    for name, value, what in (("packet_type", kind, "Packet type"), ("packet_id", pid, "Packet ID")):
        width = shim_dma.field_width(name)
        if not 0 <= value < 1 << width:
            raise IronError(
                f"dma_memcpy_nd on @{op.metadata}: packet {name.split('_')[1]} {value}: {what} field can "
                f"only hold {width} bits (mlir-aie's verifier); accepted: 0 .. {(1 << width) - 1}"
            )
    return {"enable_packet": 1, "packet_type": kind, "packet_id": pid}


def lower_memcpy(
    op: ir.DmaMemcpyNd,
    alloc: ir.ShimDmaAllocation,
    resolve: Resolver,
    repeat: int | None = None,
    controller: int = shim_dma.SHIM_CONTROLLER_ID,
) -> list:
    """``repeat``: the push's repeat count when it is not ``size3 - 1`` (a DMA task's
    ``repeat_count``); ``controller``: the shim's controller id (:func:`shim_controller`)."""
    index, base, mtype = resolve(op.arg)
    fields = hardware_fields(op, mtype)
    size3_repeat = fields.pop("repeat_count")
    repeat = size3_repeat if repeat is None else repeat
    offset = offset_in_bytes(op, mtype)
    if offset % 4:
        raise IronError(f"dma_memcpy_nd on @{op.metadata}: offset {offset} bytes is not 4-byte aligned")
    col = alloc.column
    bd = ir.WriteBd(
        {"bd_id": op.id, "column": col, "row": SHIM_ROW, "valid_bd": 1, **fields, **packet_fields(op)}
    )
    word1 = registers.tile_address(col, SHIM_ROW, shim_dma.bd_address_low(op.id))
    direction = alloc.direction.lower()
    # As AIEDmaToNpu.cpp: S2MM pushes always issue a token; a token-issuing push first
    # names the shim's controller id (aiecc gives every shim tile one) in the channel Ctrl.
    token = op.issue_token or direction == "s2mm"
    ops = [bd, ir.AddressPatch(word1, index, base + offset)]
    if token:
        ctrl = shim_dma.channel_ctrl(direction, alloc.channel)
        value = controller << shim_dma.CTRL_CONTROLLER_ID_SHIFT
        ops.append(ir.MaskWrite32(ctrl, value, shim_dma.AIECC_CONTROLLER_ID_MASK, column=col, row=SHIM_ROW))
    queue = shim_dma.task_queue(direction, alloc.channel)
    push = shim_dma.pack_task_queue(op.id, repeat=repeat, issue_token=token)
    return ops + [ir.Write32(queue, push, column=col, row=SHIM_ROW)]


def lower_wait(op: ir.DmaWait, alloc: ir.ShimDmaAllocation) -> ir.Sync:
    return ir.Sync(
        alloc.column, SHIM_ROW, shim_dma.DIRECTION_CODE[alloc.direction.lower()], alloc.channel, 1, 1
    )
