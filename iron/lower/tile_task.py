"""Lower DMA tasks on memtiles and compute tiles (``aiex.dma_configure_task(%tile, S2MM, 0)``
with the tile at row >= 1), as mlir-aie's ``-aie-dma-tasks-to-npu``
(lib/Dialect/AIEX/Transforms/AIEDMATasksToNPU.cpp at 0155ebd7c8b77cd6846781dd0597a7adee9a7620):

* each block of the task's region holds one ``aie.dma_bd`` on an ``aie.buffer`` of that
  tile (with its ``address``: mlir-aie's "Cannot lower buffer without associated address"
  otherwise), optionally an acquire and a release ``aie.use_lock``, and ends in ``aie.end``
  or ``aie.next_bd ^block`` (or the BD's ``next_bd_id``); ``bd_id`` must be given;
* at the configure op: per BD an ``aiex.npu.writebd`` (``buffer_offset`` = the BD offset in
  bytes, ``buffer_length`` in 32-bit words, dimensions as ``dma_memcpy_nd``'s via
  :func:`iron.lower.dma_task.task_pattern`, lock ids as the tile's DMA names them, an
  ``AcquireGreaterEqual`` value negated) and a ``maskwrite32`` of the buffer's address into
  the BD's address word (:mod:`iron.target.tile_dma`);
* ``dma_start_task``: a Start_Queue write (with the tile's controller id first when the push
  asks for a token and the tile has one); ``dma_await_task``: an ``aiex.npu.sync`` on the
  tile's channel (refused without a token, as upstream).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from iron.errors import IronError
from iron.lower import dma
from iron.lower.task_text import parse_bd, region_ops, task_attributes, task_pattern
from iron.mlir import ir, storage
from iron.mlir.decl import NAME as _NAME
from iron.target import shim_dma, tile_dma

_RE_CONST = re.compile(rf"^%({_NAME})\s*=\s*arith\.constant\s+(-?\d+)\s*:\s*\w+$")
_RE_USE_LOCK = re.compile(
    rf"^aie\.use_lock\s*\(\s*%({_NAME})\s*,\s*(AcquireGreaterEqual|Acquire|Release)\s*,\s*(%{_NAME}|-?\d+)\s*\)$"
)
_RE_NEXT = re.compile(rf"^aie\.next_bd\s+\^({_NAME})$")
_RE_LABEL = re.compile(rf"^\s*\^({_NAME})\s*(?:\([^)]*\))?\s*:", re.M)


@dataclass
class TileTask:
    """A configured task on a memtile / compute-tile channel."""

    tile: ir.Tile
    direction: str  # "s2mm" | "mm2s"
    channel: int
    first_bd: int
    issue_token: bool
    repeat_count: int
    text: str


def buffers_and_locks(device: ir.Device) -> tuple[dict, dict]:
    """``{buffer: (tile, address or None, type)}`` and ``{lock: (tile, id)}`` of the device."""
    buffers, locks = {}, {}
    for op in device.body:
        if not isinstance(op, ir.Opaque):
            continue
        if b := storage.read_buffer(op.text):
            buffers[b.name] = (b.tile, b.address, b.type)
        elif lk := storage.read_lock(op.text):
            locks[lk.name] = (lk.tile, lk.id)
    return buffers, locks


def blocks(region: str) -> list[tuple[str, str]]:
    """``(label, body)`` of each block of a task region (the first one's label is "")."""
    marks = list(_RE_LABEL.finditer(region))
    starts = [(0, "")] + [(m.end(), m.group(1)) for m in marks]
    ends = [m.start() for m in marks] + [len(region)]
    return [(label, region[s:e]) for (s, label), e in zip(starts, ends)]


class TileTaskLowering:
    """Configure / start / await of tasks on one device's memtiles and compute tiles."""

    def __init__(self, device: ir.Device, where: str, arch: str):
        self.device, self.where, self.arch = device, where, arch
        self.buffers, self.locks = buffers_and_locks(device)

    def configure(
        self, text: str, parts, tile: ir.Tile, direction: str, channel: int
    ) -> tuple[TileTask, list]:
        what = f"{self.where}: `{text.splitlines()[0].strip()}`"
        kind = tile_dma.kind_of_row(tile.row)
        parsed = []
        for label, body in blocks(parts.region):
            bds, others = region_ops(body)
            if not bds and not [o for o in others if not _RE_CONST.match(o)]:
                continue  # an empty entry block (mlir-aie skips it)
            if len(bds) != 1:
                raise IronError(
                    f"{what}: block ^{label or 'entry'} holds {len(bds)} aie.dma_bd ops; exactly one is needed"
                )
            parsed.append((label, bds[0], others))
        if not parsed:
            raise IronError(f"{what}: its region holds no aie.dma_bd")
        ids = {label: self._bd_id(bd, what) for label, bd, _o in parsed}
        ops = []
        for label, bd, others in parsed:
            ops += self._bd_ops(what, kind, tile, bd, others, ids)
        attrs = task_attributes(parts.attrs, what)
        task = TileTask(tile, direction.lower(), channel, ids[parsed[0][0]], attrs["issue_token"],
                        attrs["repeat_count"], text)  # fmt: skip
        return task, ops

    def _bd_id(self, bd, what: str) -> int:
        m = re.search(r"\bbd_id\s*=\s*(\d+)", bd.attrs)
        if m is None:
            raise IronError(
                f"{what}: `{' '.join(bd.text.split())}` has no bd_id; iron's built-in lowering needs it given "
                "(mlir-aie assigns one in --aie-assign-runtime-sequence-bd-ids)"
            )
        return int(m.group(1))

    def _bd_ops(self, what, kind, tile: ir.Tile, bd, others: list[str], ids: dict) -> list:
        arg, mtype, offset, length, dims = parse_bd(bd, what)
        buf = self.buffers.get(arg)
        if buf is None or buf[0] != tile.name:
            raise IronError(
                f"{what}: %{arg} is no aie.buffer of tile %{tile.name} (DDR arguments are for shim tiles)"
            )
        if buf[1] is None:
            raise IronError(
                f'{what}: aie.buffer %{arg} has no address; give it one (mlir-aie: "Cannot lower buffer without '
                'associated address. Run pass --aie-assign-buffer-addresses first")'
            )
        mref = _memref(mtype)
        elem = ir.ELEMENT_BYTES[mref.dtype]
        fields = self._dims_fields(what, arg, mref, offset, length, dims)
        fields.update(self._lock_fields(what, kind, tile, others))
        nxt = self._next(bd, others, ids, what)
        fields.update(bd_id=self._bd_id(bd, what), column=tile.col, row=tile.row, valid_bd=1,
                      buffer_offset=offset * elem, next_bd=nxt or 0, use_next_bd=int(nxt is not None))  # fmt: skip
        address = buf[1] + offset * elem
        if kind is tile_dma.MEMTILE:
            address += tile_dma.MEMTILE_OWN_BASE.get(self.arch, 0)
        word = tile_dma.address_register(kind, fields["bd_id"])
        field = kind.field("buffer_offset")
        value = (address // 4) << field.lsb
        return [ir.WriteBd(fields), ir.MaskWrite32(word, value, field.mask, column=tile.col, row=tile.row)]

    def _dims_fields(self, what, arg, mref, offset, length, dims) -> dict:
        sizes, strides, inner = task_pattern(dims, length, what)
        op = ir.DmaMemcpyNd(arg, (0, 0, 0, offset), sizes, strides, "task", 0, False, inner)
        fields = dma.hardware_fields(op, mref, shim=False)  # only shim BDs fold contiguous scans
        fields.pop("repeat_count")
        if len(dims) > 2:
            fields["d2_size"] = sizes[1]  # mlir-aie sets it for memtiles; the BD words leave it out
        return fields

    def _lock_fields(self, what, kind, tile: ir.Tile, others: list[str]) -> dict:
        consts = {m.group(1): int(m.group(2)) for o in others if (m := _RE_CONST.match(o))}
        fields = {}
        for o in others:
            m = _RE_USE_LOCK.match(o)
            if m is None:
                continue
            name, action, value = m.groups()
            if value.startswith("%") and value[1:] not in consts:
                # e.g. `arith.constant --1`: mlir-aie's parser refuses it before any pass runs
                raise IronError(f"{what}: `{o}`: {value} is no integer `arith.constant` of its block")
            value = consts[value[1:]] if value.startswith("%") else int(value)
            lock = self.locks.get(name)
            if lock is None or lock[0] != tile.name:
                raise IronError(f"{what}: `{o}` names no aie.lock of tile %{tile.name} with an id")
            lock_id = lock[1] + kind.own_lock_base
            if action == "Release":
                fields.update(lock_rel_id=lock_id, lock_rel_val=value)
            else:
                fields.update(lock_acq_enable=1, lock_acq_id=lock_id,
                              lock_acq_val=-value if action == "AcquireGreaterEqual" else value)  # fmt: skip
        return fields

    def _next(self, bd, others: list[str], ids: dict, what: str) -> int | None:
        m = re.search(r"\bnext_bd_id\s*=\s*(\d+)", bd.attrs)
        jump = next((n.group(1) for o in others if (n := _RE_NEXT.match(o))), None)
        if m and jump:
            raise IronError(f"{what}: a BD gives both next_bd_id and aie.next_bd (mlir-aie refuses both)")
        if jump is not None:
            if jump not in ids:
                raise IronError(f"{what}: aie.next_bd ^{jump} names no block of the task")
            return ids[jump]
        return int(m.group(1)) if m else None

    def start(self, task: TileTask) -> list:
        kind = tile_dma.kind_of_row(task.tile.row)
        col, row = task.tile.col, task.tile.row
        ops = []
        controller = dma.controller_id(task.tile)
        if task.issue_token and controller is not None:
            ctrl = tile_dma.channel_ctrl(kind, task.direction, task.channel)
            value = controller << shim_dma.CTRL_CONTROLLER_ID_SHIFT
            ops.append(ir.MaskWrite32(ctrl, value, shim_dma.AIECC_CONTROLLER_ID_MASK, column=col, row=row))
        queue = tile_dma.start_queue(kind, task.direction, task.channel)
        push = tile_dma.pack_start_queue(kind, task.first_bd, task.repeat_count, task.issue_token)
        return ops + [ir.Write32(queue, push, column=col, row=row)]

    def wait(self, task: TileTask, text: str) -> ir.Sync:
        if not task.issue_token:
            raise IronError(
                f"{self.where}: `{text}` awaits a task configured without a token; add {{issue_token = true}} "
                f"after the region of `{task.text.splitlines()[0].strip()}`"
            )
        code = shim_dma.DIRECTION_CODE[task.direction]
        return ir.Sync(task.tile.col, task.tile.row, code, task.channel, 1, 1)


def _memref(text: str) -> ir.MemRefType:
    from iron.mlir.reader import memref_type as read

    mref = read(text)
    if mref is None:
        raise IronError(f"cannot read the buffer type {text!r}")
    return mref
