"""Lower shim DMA tasks (``aiex.dma_configure_task_for`` / ``dma_start_task`` /
``dma_await_task``) for iron's built-in lowering.

mlir-aie designs written with the ``aie.iron`` API move host data with DMA tasks
instead of ``dma_memcpy_nd``. The reader keeps them as opaque text; this module reads
the few forms that move one contiguous host window through a shim channel and hands
them to :mod:`iron.lower.dma` as the equivalent transfer:

* ``%t = aiex.dma_configure_task_for @alloc { aie.dma_bd(%arg : T offset = O len = N) ... }``
  (also ``aie.dma_bd(%arg : T, O, N[, [<size = s, stride = t>, ...]])`` and a
  ``{bd_id = k}`` attribute), optionally ``{issue_token = true}``;
* ``%t = aiex.dma_configure_task(%shim_tile, MM2S|S2MM, ch) {...}`` on a shim tile;
* ``aiex.dma_start_task(%t)`` pushes it, ``aiex.dma_await_task(%t)`` waits for its
  token, ``aiex.dma_free_task(%t)`` does nothing here.

BD ids the design does not give are taken lowest first, skipping every BD id the
sequence already names (its ``dma_memcpy_nd`` ids, its ``writebd``s, e.g. the trace
drain's), as aiecc's allocator avoids BDs in use. Tasks on core or memtile DMAs,
chained BDs and strided patterns need aiecc: one clear error names the op.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from iron.errors import IronError
from iron.lower import dma
from iron.mlir import ir
from iron.mlir.decl import NAME as _NAME
from iron.target.geometry import SHIM_ROW
from iron.target.shim_dma import SHIM_BD_COUNT

_RE_CONFIGURE_FOR = re.compile(
    rf"^%({_NAME})\s*=\s*aiex\.dma_configure_task_for\s+@({_NAME})\s*\{{(.*)\}}(.*)$", re.S
)
_RE_CONFIGURE = re.compile(
    rf"^%({_NAME})\s*=\s*aiex\.dma_configure_task\s*\(\s*%({_NAME})\s*,\s*(MM2S|S2MM)\s*,\s*(\d+)\s*\)\s*\{{(.*)\}}(.*)$",
    re.S,
)
_RE_TASK_USE = re.compile(rf"^aiex\.dma_(start|await|free)_task\s*\(\s*%({_NAME})\s*\)$")
_RE_BD = re.compile(
    rf"aie\.dma_bd\s*\(\s*%({_NAME})\s*:\s*(memref<[^>]*>)\s*(.*?)\)\s*(\{{[^{{}}]*\}})?\s*$", re.M
)
_RE_BD_NEW = re.compile(r"^offset\s*=\s*(\d+)\s+len\s*=\s*(\d+)\s*$")
_RE_BD_OLD = re.compile(r"^,\s*(\d+)\s*,\s*(\d+)\s*(?:,\s*\[(.*)\])?\s*$", re.S)
_RE_DIM = re.compile(r"<\s*size\s*=\s*(\d+)\s*,\s*stride\s*=\s*(\d+)\s*>")
_RE_ATTR_INT = r"\b{}\s*=\s*(\d+)"

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
    text: str


class TaskLowering:
    """Lowers the DMA-task ops of one inlined runtime sequence, in order."""

    def __init__(self, device: ir.Device, sequence: ir.RuntimeSequence, allocations, resolve, foreign: bool):
        self.device = device
        self.where = f"@{device.symbol}::@{sequence.name}"
        self.allocations = allocations  # () -> {symbol: ShimDmaAllocation}
        self.resolve = resolve
        self.foreign = foreign
        self.tasks: dict[str, _Task] = {}
        self.skipped: list[str] = []
        used: dict[int, set[int]] = {}
        for op in sequence.body:
            if isinstance(op, ir.WriteBd):
                used.setdefault(op["column"], set()).add(op["bd_id"])
            elif isinstance(op, ir.DmaMemcpyNd):
                used.setdefault(-1, set()).add(op.id)  # column known only through the allocation
        self.used = used

    def lower(self, op: ir.Opaque) -> list | None:
        """npu ops for ``op``, ``[]`` for a skipped op, ``None`` when it is not a DMA-task op."""
        text = op.text.strip()
        if m := _RE_CONFIGURE_FOR.match(text):
            name, symbol, region, tail = m.groups()
            alloc = self.allocations().get(symbol)
            if alloc is None:
                raise IronError(
                    f"{self.where}: `{_first(text)}`: no shim allocation or object FIFO @{symbol}"
                )
            self.tasks[name] = self._task(text, region, tail, alloc)
            return []
        if m := _RE_CONFIGURE.match(text):
            name, tile_name, direction, channel, region, tail = m.groups()
            tile = self.device.tile(tile_name)
            if tile.row != SHIM_ROW:
                raise IronError(
                    f"{self.where}: `{_first(text)}` configures a DMA task on tile ({tile.col}, {tile.row}); "
                    "iron's built-in lowering handles shim tasks only (compile with aiecc)"
                )
            alloc = ir.ShimDmaAllocation(f"{name}_task", direction, int(channel), tile.col)
            self.tasks[name] = self._task(text, region, tail, alloc)
            return []
        if m := _RE_TASK_USE.match(text):
            verb, name = m.groups()
            task = self.tasks.get(name)
            if task is None:
                raise IronError(f"{self.where}: `{text}` names no task configured before it")
            if verb == "start":
                return self._start(task)
            if verb == "await":
                return [dma.lower_wait(ir.DmaWait(task.alloc.symbol), task.alloc)]
            return []
        if self.foreign and (
            text.startswith(SKIPPABLE) or re.match(rf"^%{_NAME}\s*=\s*arith\.constant\b", text)
        ):
            self.skipped.append(_first(text))
            return []
        return None

    def _task(self, text: str, region: str, tail: str, alloc) -> _Task:
        bds = list(_RE_BD.finditer(region))
        if len(bds) != 1:
            raise IronError(
                f"{self.where}: `{_first(text)}` holds {len(bds)} aie.dma_bd ops; iron's built-in lowering "
                "handles one BD per task (compile chained tasks with aiecc)"
            )
        arg, mtype, rest, attrs = bds[0].groups()
        rest = rest.strip()
        if new := _RE_BD_NEW.match(rest):
            offset, length = int(new.group(1)), int(new.group(2))
        elif old := _RE_BD_OLD.match(rest):
            offset, length = int(old.group(1)), int(old.group(2))
            dims = [(int(s), int(t)) for s, t in _RE_DIM.findall(old.group(3) or "")]
            if dims and not _contiguous(dims, length):
                raise IronError(
                    f"{self.where}: `{bds[0].group(0).strip()}`: strided BD dimensions; iron's built-in "
                    "lowering handles contiguous transfers only (compile with aiecc)"
                )
        elif not rest:
            offset, length = 0, _numel(mtype)
        else:
            raise IronError(f"{self.where}: cannot read `{bds[0].group(0).strip()}`")
        bd_id = _int_attr(attrs or "", "bd_id")
        token = bool(re.search(r"issue_token\s*=\s*true", tail))
        return _Task(arg, offset, length, alloc, bd_id, token, text)

    def _start(self, task: _Task) -> list:
        bd = task.bd_id if task.bd_id is not None else self._free_bd(task.alloc.column)
        self.used.setdefault(task.alloc.column, set()).add(bd)
        memcpy = ir.DmaMemcpyNd(
            task.arg, (0, 0, 0, task.offset), (1, 1, 1, task.length), (0, 0, 0), task.alloc.symbol, bd,
            task.issue_token,
        )  # fmt: skip
        return dma.lower_memcpy(memcpy, task.alloc, self.resolve)

    def _free_bd(self, column: int) -> int:
        taken = self.used.get(column, set()) | self.used.get(-1, set())
        for bd in range(SHIM_BD_COUNT):
            if bd not in taken:
                return bd
        raise IronError(
            f"{self.where}: every shim BD of column {column} is in use; no BD left for a DMA task"
        )


def _first(text: str) -> str:
    return text.splitlines()[0].strip()


def _numel(mtype: str) -> int:
    dims = re.findall(r"(\d+)x", mtype)
    n = 1
    for d in dims:
        n *= int(d)
    return n


def _contiguous(dims: list[tuple[int, int]], length: int) -> bool:
    """``[<size, stride>...]`` outermost first: one run of stride 1, every other size 1."""
    *outer, (size, stride) = dims
    return stride == 1 and size == length and all(s == 1 for s, _t in outer)


def _int_attr(attrs: str, key: str) -> int | None:
    m = re.search(_RE_ATTR_INT.format(key), attrs)
    return int(m.group(1)) if m else None
