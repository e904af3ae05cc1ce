"""Lower shim DMA tasks (``aiex.dma_configure_task_for`` / ``dma_start_task`` /
``dma_await_task``) for iron's built-in lowering (and so for what aiecc receives: iron
materializes before handing the module over).

mlir-aie designs written with the ``aie.iron`` API move host data with DMA tasks
instead of ``dma_memcpy_nd``. The reader keeps them as opaque text; this module splits
each at its brackets (:func:`split_task`: the head, the region, and the attribute
dictionary after the region, string literals and nested brackets respected) and hands
the forms that move one contiguous host window through a shim channel to
:mod:`iron.lower.dma` as the equivalent transfer:

* ``%t = aiex.dma_configure_task_for @alloc { aie.dma_bd(%arg : T offset = O len = N) ... }``
  (also ``aie.dma_bd(%arg : T, O, N[, [<size = s, stride = t>, ...]])``, ``sizes = [...]
  strides = [...]`` after ``len``, a BD over several lines, and ``{bd_id = k}`` /
  ``{burst_length = 0}``), then ``{issue_token = true, repeat_count = N : i32}`` or none;
* ``%t = aiex.dma_configure_task(%shim_tile, MM2S|S2MM, ch) {...}`` on a shim tile;
* ``aiex.dma_start_task(%t)`` pushes it, ``aiex.dma_await_task(%t)`` waits for its
  token, ``aiex.dma_free_task(%t)`` does nothing here.

As mlir-aie's ``-aie-dma-tasks-to-npu`` (lib/Dialect/AIEX/Transforms/AIEDMATasksToNPU.cpp):
the push asks for a token exactly when the task says ``issue_token`` and repeats
``repeat_count`` times; awaiting a task without a token is an error (the sync would wait
forever). BD ids the design does not give are taken lowest first, skipping every BD id the
sequence already names (its ``dma_memcpy_nd`` ids, its ``writebd``s, e.g. the trace
drain's), as aiecc's allocator avoids BDs in use. Tasks on core or memtile DMAs, chained
BDs, locks and other attributes of shim tasks need aiecc: one clear error names the op.
Tasks on memtiles and compute tiles (BD chains, locks, ``aie.buffer`` addresses) are
lowered by :mod:`iron.lower.tile_task`. A BD's
dimensions (``[<size, stride>, ...]`` or ``sizes = [...] strides = [...]``) become BD fields as
``dma_memcpy_nd``'s do (:func:`task_pattern`, :func:`iron.lower.dma.hardware_fields`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from iron.errors import IronError
from iron.lower import dma
from iron.mlir import ir, storage
from iron.mlir.decl import NAME as _NAME
from iron.lower.task_text import (
    TaskText,
    first_line,
    one_line,
    parse_bd,
    region_ops,
    split_task,
    task_attributes,
    task_attributes_bd,
    task_pattern,
)
from iron.lower.tile_task import TileTask, TileTaskLowering
from iron.target.geometry import SHIM_ROW, target_for_device
from iron.target import shim_dma, tile_dma
from iron.target.shim_dma import SHIM_BD_COUNT

_RE_HEAD_FOR = re.compile(rf"^%({_NAME})\s*=\s*aiex\.dma_configure_task_for\s+@({_NAME})\s*$")
_RE_HEAD = re.compile(
    rf"^%({_NAME})\s*=\s*aiex\.dma_configure_task\s*\(\s*%({_NAME})\s*,\s*(MM2S|S2MM)\s*,\s*(\d+)\s*\)\s*$"
)
_RE_SET_LOCK = re.compile(rf"^aiex\.set_lock\s*\(\s*%({_NAME})\s*,\s*(-?(?:0x)?[0-9a-fA-F]+)\s*\)")
_RE_TASK_USE = re.compile(rf"^aiex\.dma_(start|await|free)_task\s*\(\s*%({_NAME})\s*\)$")
#: Sequence ops a foreign design may hold that act on state sim does not model
#: (core-tile buffers and locks); the built-in lowering of a foreign design skips them.
SKIPPABLE = ("arith.constant", "aie.end", "aiex.npu.rtp_write", "aiex.set_lock", "aie.trace.")


@dataclass
class _Task:
    arg: str
    offset: int  # elements
    length: int  # elements
    alloc: ir.ShimDmaAllocation
    bd_id: int | None
    issue_token: bool
    repeat_count: int
    text: str
    dims: tuple[tuple[int, int], ...] = ()  # (size, stride) outermost first; () linear


class TaskLowering:
    """Lowers the DMA-task ops of one inlined runtime sequence, in order."""

    def __init__(self, device: ir.Device, sequence: ir.RuntimeSequence, allocations, resolve, foreign: bool):
        self.device = device
        self.where = f"@{device.symbol}::@{sequence.name}"
        self.allocations = allocations  # () -> {symbol: ShimDmaAllocation}
        self.resolve = resolve
        self.foreign = foreign
        self.tasks: dict[str, _Task | TileTask] = {}
        self._tile_tasks: TileTaskLowering | None = None
        self.skipped: list[str] = []
        used: dict[int, set[int]] = {}
        for op in sequence.body:
            if isinstance(op, ir.WriteBd) and op["row"] == 0:  # shim BDs only: other tiles' BDs are their own
                used.setdefault(op["column"], set()).add(op["bd_id"])
            elif isinstance(op, ir.DmaMemcpyNd):
                used.setdefault(-1, set()).add(op.id)  # column known only through the allocation
        self.used = used

    def lower(self, op: ir.Opaque) -> list | None:
        """npu ops for ``op``, ``[]`` for a skipped op, ``None`` when it is not a DMA-task op."""
        text = op.text.strip()
        parts = split_task(text)
        if parts is not None:
            if m := _RE_HEAD_FOR.match(parts.head):
                name, symbol = m.groups()
                alloc = self.allocations().get(symbol)
                if alloc is None:
                    raise IronError(
                        f"{self.where}: `{first_line(text)}`: no shim allocation or object FIFO @{symbol}"
                    )
            elif m := _RE_HEAD.match(parts.head):
                name, tile_name, direction, channel = m.groups()
                tile = self.device.tile(tile_name)
                if tile.row != SHIM_ROW:
                    task, ops = self._tiles().configure(text, parts, tile, direction, int(channel))
                    self.tasks[name] = task
                    return ops
                alloc = ir.ShimDmaAllocation(f"{name}_task", direction, int(channel), tile.col)
            else:
                raise IronError(f"{self.where}: cannot read `{parts.head}`")
            self.tasks[name] = self._task(text, parts, alloc)
            return []
        if m := _RE_TASK_USE.match(text):
            verb, name = m.groups()
            task = self.tasks.get(name)
            if task is None:
                raise IronError(f"{self.where}: `{text}` names no task configured before it")
            if isinstance(task, TileTask):
                return {"start": self._tiles().start, "await": lambda t: [self._tiles().wait(t, text)]}.get(
                    verb, lambda _t: []
                )(task)
            if verb == "start":
                return self._start(task)
            if verb == "await":
                if not task.issue_token:
                    # As mlir-aie's -aie-dma-tasks-to-npu: the await would wait for a token
                    # the push never asks for (a dispatch that never finishes).
                    raise IronError(
                        f"{self.where}: `{text}` awaits a task configured without a token; add "
                        f"{{issue_token = true}} after the region of `{first_line(task.text)}`"
                    )
                return [dma.lower_wait(ir.DmaWait(task.alloc.symbol), task.alloc)]
            return []
        if text.startswith("aiex.set_lock") and (ops := self._set_lock(text)) is not None:
            return ops
        if self.foreign and (
            text.startswith(SKIPPABLE) or re.match(rf"^%{_NAME}\s*=\s*arith\.constant\b", text)
        ):
            self.skipped.append(first_line(text))
            return []
        return None

    def _set_lock(self, text: str) -> list | None:
        """``aiex.set_lock(%lock, v)`` on a memtile or compute tile: a write32 of the lock's value
        register, as mlir-aie's ``AIELowerSetLock.cpp`` (None: a shim lock, skipped as before)."""
        m = _RE_SET_LOCK.match(one_line(text))
        lock = next((lk for op in self.device.body if isinstance(op, ir.Opaque)
                     if (lk := storage.read_lock(op.text.strip())) is not None and m and lk.name == m.group(1)),
                    None)  # fmt: skip
        if lock is None:
            raise IronError(f"{self.where}: `{first_line(text)}` names no aie.lock of the device")
        tile = self.device.tile(lock.tile)
        if tile.row == SHIM_ROW:
            return None
        reg = tile_dma.lock_register(tile_dma.kind_of_row(tile.row), lock.id)
        return [ir.Write32(reg, int(m.group(2), 0), column=tile.col, row=tile.row)]

    def _tiles(self) -> TileTaskLowering:
        """The lowering of tasks on memtiles and compute tiles (:mod:`iron.lower.tile_task`)."""
        if self._tile_tasks is None:
            self._tile_tasks = TileTaskLowering(
                self.device, self.where, target_for_device(self.device.target).name
            )
        return self._tile_tasks

    def _task(self, text: str, parts: TaskText, alloc) -> _Task:
        what = f"{self.where}: `{first_line(text)}`"
        bds, others = region_ops(parts.region)
        if len(bds) != 1 or others:
            extra = f" and {', '.join(f'`{o}`' for o in others)}" if others else ""
            raise IronError(
                f"{what} holds {len(bds)} aie.dma_bd ops{extra}; iron's built-in lowering handles one BD "
                "per task, without locks or next_bd (compile chained tasks with aiecc)"
            )
        bd = bds[0]
        arg, _mtype, offset, length, dims = parse_bd(bd, self.where)
        bd_attrs = task_attributes_bd(bd.attrs, f"{self.where}: `{one_line(bd.text)}`")
        attrs = task_attributes(parts.attrs, what)
        return _Task(
            arg,
            offset,
            length,
            alloc,
            bd_attrs.get("bd_id"),
            attrs["issue_token"],
            attrs["repeat_count"],
            text,
            tuple(dims),
        )

    def _start(self, task: _Task) -> list:
        bd = task.bd_id if task.bd_id is not None else self._free_bd(task.alloc.column)
        self.used.setdefault(task.alloc.column, set()).add(bd)
        sizes, strides, inner = task_pattern(
            task.dims, task.length, f"{self.where}: `{first_line(task.text)}`"
        )
        memcpy = ir.DmaMemcpyNd(
            task.arg, (0, 0, 0, task.offset), sizes, strides, task.alloc.symbol, bd, task.issue_token, inner,
        )  # fmt: skip
        controller = dma.shim_controller(self.device, task.alloc.column)
        ops = dma.lower_memcpy(memcpy, task.alloc, self.resolve, task.repeat_count, controller)
        # -aie-dma-tasks-to-npu also writes the byte offset into the BD's address word
        # (AIEDMATasksToNPU.cpp: NpuWriteBdOp buffer_offset = offset; dma_memcpy_nd's is 0);
        # the address patch then overwrites that word with the buffer's address + offset
        offset = dma.offset_in_bytes(memcpy, self.resolve(task.arg)[2])
        for op in ops:
            if isinstance(op, ir.WriteBd):
                op.fields["buffer_offset"] = offset
        if not task.issue_token:
            ops = _without_token(ops, task.alloc, bd, task.repeat_count)
        return ops

    def _free_bd(self, column: int) -> int:
        taken = self.used.get(column, set()) | self.used.get(-1, set())
        for bd in range(SHIM_BD_COUNT):
            if bd not in taken:
                return bd
        raise IronError(
            f"{self.where}: every shim BD of column {column} is in use; no BD left for a DMA task"
        )


def _without_token(ops: list, alloc: ir.ShimDmaAllocation, bd: int, repeat: int) -> list:
    """A task push exactly as its task says: no token unless ``issue_token`` (mlir-aie's
    -aie-dma-tasks-to-npu takes the task's flag; only ``dma_memcpy_nd`` S2MM always asks for
    one). :func:`iron.lower.dma.lower_memcpy` gives S2MM pushes a token and the controller-id
    write that goes with it; both are taken back here."""
    queue = shim_dma.task_queue(alloc.direction.lower(), alloc.channel)
    ctrl = shim_dma.channel_ctrl(alloc.direction.lower(), alloc.channel)
    out = []
    for op in ops:
        if isinstance(op, ir.MaskWrite32) and op.address == ctrl:
            continue
        if isinstance(op, ir.Write32) and op.address == queue:
            op = ir.Write32(queue, shim_dma.pack_task_queue(bd, repeat, False), column=op.column, row=op.row)
        out.append(op)
    return out
