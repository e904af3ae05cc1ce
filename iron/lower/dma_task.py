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
BDs, locks and other attributes need aiecc: one clear error names the op. A BD's
dimensions (``[<size, stride>, ...]`` or ``sizes = [...] strides = [...]``) become BD fields as
``dma_memcpy_nd``'s do (:func:`task_pattern`, :func:`iron.lower.dma.hardware_fields`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from iron.errors import IronError
from iron.lower import dma
from iron.mlir import ir
from iron.mlir.decl import NAME as _NAME
from iron.mlir.reader import split_top
from iron.target.geometry import SHIM_ROW
from iron.target import shim_dma
from iron.target.shim_dma import SHIM_BD_COUNT

_RE_HEAD_FOR = re.compile(rf"^%({_NAME})\s*=\s*aiex\.dma_configure_task_for\s+@({_NAME})\s*$")
_RE_HEAD = re.compile(
    rf"^%({_NAME})\s*=\s*aiex\.dma_configure_task\s*\(\s*%({_NAME})\s*,\s*(MM2S|S2MM)\s*,\s*(\d+)\s*\)\s*$"
)
_RE_TASK_USE = re.compile(rf"^aiex\.dma_(start|await|free)_task\s*\(\s*%({_NAME})\s*\)$")
_RE_BD_HEAD = re.compile(rf"^\s*%({_NAME})\s*:\s*")
_RE_BD_NEW = re.compile(
    r"^offset\s*=\s*(\d+)\s+len\s*=\s*(\d+)"
    r"(?:\s+sizes\s*=\s*\[([\d,\s]*)\]\s+strides\s*=\s*\[([\d,\s]*)\])?\s*$"
)
_RE_BD_OLD = re.compile(r"^,\s*(\d+)\s*,\s*(\d+)\s*(?:,\s*\[(.*)\])?\s*$", re.S)
_RE_DIM = re.compile(r"<\s*size\s*=\s*(\d+)\s*,\s*stride\s*=\s*(\d+)\s*>")
_RE_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_RE_INT_VALUE = re.compile(r"^(\d+)\s*(?::\s*i\d+)?$")
#: The task attributes (after the region) iron's built-in lowering reads, as
#: ``aiex.dma_configure_task[_for]`` declares them (mlir-aie ``AIEX.td``); any other
#: attribute (``interleave``, ...) needs aiecc.
TASK_ATTRS = ("issue_token", "repeat_count")
#: ``aie.dma_bd`` attributes the built-in lowering accepts (``burst_length = 0``: the default).
BD_ATTRS = ("bd_id", "burst_length")

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


@dataclass(frozen=True)
class TaskText:
    """One ``aiex.dma_configure_task[_for]`` op split at its brackets (not by pattern):
    the text before the region, the region's body, and the attribute dictionary that
    follows the region (``""`` when there is none)."""

    head: str
    region: str
    attrs: str


def _masked(text: str) -> str:
    """``text`` with string literals blanked (same length), so brackets in them do not count."""
    return _RE_STRING.sub(lambda m: " " * len(m.group(0)), text)


def _closing(masked: str, start: int) -> int:
    """Index of the bracket closing the one at ``start`` (any of ``{([<``), or -1."""
    pairs = {"{": "}", "(": ")", "[": "]", "<": ">"}
    stack = []
    for i in range(start, len(masked)):
        c = masked[i]
        if c in pairs:
            stack.append(pairs[c])
        elif c in "})]>":
            if c == ">" and masked[i - 1 : i] == "-":
                continue  # an arrow ``->``, not a bracket
            if not stack or stack.pop() != c:
                return -1
            if not stack:
                return i
    return -1


def split_task(text: str) -> TaskText | None:
    """The parts of a DMA-task op (None when ``text`` is no ``dma_configure_task[_for]``)."""
    text = text.strip()
    if not re.match(rf"^%{_NAME}\s*=\s*aiex\.dma_configure_task(_for)?\b", text):
        return None
    masked = _masked(text)
    depth, open_at = 0, -1
    for i, c in enumerate(masked):  # the region opens at the first '{' outside the operands
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "{" and depth == 0:
            open_at = i
            break
    if open_at < 0:
        raise IronError(f"`{_first(text)}`: a DMA task needs a region {{ aie.dma_bd(...) aie.end }}")
    close = _closing(masked, open_at)
    if close < 0:
        raise IronError(f"`{_first(text)}`: its region is never closed")
    rest = text[close + 1 :].strip()
    attrs = ""
    if rest.startswith("attributes"):
        rest = rest[len("attributes") :].strip()
    if rest:
        end = _closing(_masked(rest), 0) if rest[0] == "{" else -1
        if end < 0 or rest[end + 1 :].strip():
            raise IronError(
                f"`{_first(text)}`: unexpected `{rest.splitlines()[0]}` after the task's region "
                "(expected an attribute dictionary such as {issue_token = true})"
            )
        attrs = rest[: end + 1]
    return TaskText(text[:open_at].strip(), text[open_at + 1 : close], attrs)


def task_attributes(attrs: str, what: str) -> dict[str, object]:
    """``{issue_token = true, repeat_count = 2 : i32}`` -> {"issue_token": True, "repeat_count": 2}."""
    out: dict[str, object] = {"issue_token": False, "repeat_count": 0}
    inner = attrs.strip()[1:-1].strip() if attrs.strip() else ""
    for part in _split_top(inner) if inner else []:
        key, eq, value = (x.strip() for x in part.partition("="))
        if key not in TASK_ATTRS:
            raise IronError(
                f"{what}: task attribute `{part.strip()}`: iron's built-in lowering reads "
                f"{', '.join(TASK_ATTRS)} only (compile with aiecc)"
            )
        if key == "issue_token":
            if value not in ("true", "false", ""):
                raise IronError(f"{what}: issue_token = {value!r}; expected true or false")
            out[key] = value != "false"
        else:
            m = _RE_INT_VALUE.match(value)
            if not eq or m is None:
                raise IronError(f"{what}: repeat_count = {value!r}; expected an integer (e.g. 2 : i32)")
            out[key] = int(m.group(1))
    return out


def _split_top(s: str) -> list[str]:
    """The non-empty parts of ``s`` between top-level commas (the reader's rule)."""
    return [p for p in split_top(s) if p.strip()]


@dataclass(frozen=True)
class BdText:
    """One ``aie.dma_bd(...) {attrs}`` of a task region, split at its brackets."""

    operands: str
    attrs: str
    text: str


def region_ops(region: str) -> tuple[list[BdText], list[str]]:
    """The ``aie.dma_bd`` ops of a task region and the first lines of its other ops
    (``aie.end`` left out)."""
    masked = _masked(region)
    bds: list[BdText] = []
    others: list[str] = []
    i, n = 0, len(region)
    while i < n:
        if masked[i].isspace():
            i += 1
            continue
        if masked.startswith("//", i):
            i = masked.find("\n", i) if "\n" in masked[i:] else n
            continue
        if masked.startswith("aie.dma_bd", i) and masked[i + 10 : i + 11] in ("(", " ", "\t"):
            open_at = masked.index("(", i)
            close = _closing(masked, open_at)
            if close < 0:
                raise IronError(f"`{region[i:].splitlines()[0]}`: unbalanced parentheses")
            j = close + 1
            while j < n and masked[j].isspace():
                j += 1
            attrs = ""
            if j < n and masked[j] == "{":
                end = _closing(masked, j)
                attrs, j = region[j : end + 1], end + 1
            bds.append(BdText(region[open_at + 1 : close], attrs, region[i:j]))
            i = j
            continue
        end = masked.find("\n", i)
        end = n if end < 0 else end
        line = region[i:end].strip()
        if line != "aie.end":
            others.append(line)
        i = end
    return bds, others


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
        parts = split_task(text)
        if parts is not None:
            if m := _RE_HEAD_FOR.match(parts.head):
                name, symbol = m.groups()
                alloc = self.allocations().get(symbol)
                if alloc is None:
                    raise IronError(
                        f"{self.where}: `{_first(text)}`: no shim allocation or object FIFO @{symbol}"
                    )
            elif m := _RE_HEAD.match(parts.head):
                name, tile_name, direction, channel = m.groups()
                tile = self.device.tile(tile_name)
                if tile.row != SHIM_ROW:
                    raise IronError(
                        f"{self.where}: `{_first(text)}` configures a DMA task on tile ({tile.col}, {tile.row}); "
                        "iron's built-in lowering handles shim tasks only (compile with aiecc)"
                    )
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
            if verb == "start":
                return self._start(task)
            if verb == "await":
                if not task.issue_token:
                    # As mlir-aie's -aie-dma-tasks-to-npu: the await would wait for a token
                    # the push never asks for (a dispatch that never finishes).
                    raise IronError(
                        f"{self.where}: `{text}` awaits a task configured without a token; add "
                        f"{{issue_token = true}} after the region of `{_first(task.text)}`"
                    )
                return [dma.lower_wait(ir.DmaWait(task.alloc.symbol), task.alloc)]
            return []
        if self.foreign and (
            text.startswith(SKIPPABLE) or re.match(rf"^%{_NAME}\s*=\s*arith\.constant\b", text)
        ):
            self.skipped.append(_first(text))
            return []
        return None

    def _task(self, text: str, parts: TaskText, alloc) -> _Task:
        what = f"{self.where}: `{_first(text)}`"
        bds, others = region_ops(parts.region)
        if len(bds) != 1 or others:
            extra = f" and {', '.join(f'`{o}`' for o in others)}" if others else ""
            raise IronError(
                f"{what} holds {len(bds)} aie.dma_bd ops{extra}; iron's built-in lowering handles one BD "
                "per task, without locks or next_bd (compile chained tasks with aiecc)"
            )
        bd = bds[0]
        head = _RE_BD_HEAD.match(bd.operands)
        mtype_end = _type_end(bd.operands, head.end()) if head else -1
        if mtype_end < 0:
            raise IronError(f"{self.where}: cannot read `{_one_line(bd.text)}`")
        arg, mtype = head.group(1), bd.operands[head.end() : mtype_end]
        rest = " ".join(bd.operands[mtype_end:].split())
        dims: list[tuple[int, int]] = []
        if new := _RE_BD_NEW.match(rest):
            offset, length = int(new.group(1)), int(new.group(2))
            if new.group(3) is not None:
                sizes = [int(x) for x in new.group(3).split(",") if x.strip()]
                strides = [int(x) for x in new.group(4).split(",") if x.strip()]
                if len(sizes) != len(strides):
                    raise IronError(
                        f"{self.where}: `{_one_line(bd.text)}`: sizes and strides differ in length"
                    )
                dims = list(zip(sizes, strides))
        elif old := _RE_BD_OLD.match(rest):
            offset, length = int(old.group(1)), int(old.group(2))
            inner = old.group(3) or ""
            dims = [(int(sz), int(st)) for sz, st in _RE_DIM.findall(inner)]
            if _RE_DIM.sub("", inner).replace(",", "").strip():
                raise IronError(
                    f"{self.where}: `{_one_line(bd.text)}`: only <size = s, stride = t> dimensions are read "
                    "(padding needs aiecc)"
                )
        elif not rest:
            offset, length = 0, _numel(mtype)
        else:
            raise IronError(f"{self.where}: cannot read `{_one_line(bd.text)}`")
        if dims and _contiguous(dims, length):
            dims = []  # a linear transfer writes no dimensions
        bd_attrs = task_attributes_bd(bd.attrs, f"{self.where}: `{_one_line(bd.text)}`")
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
        sizes, strides = task_pattern(task, self.where)
        memcpy = ir.DmaMemcpyNd(
            task.arg, (0, 0, 0, task.offset), sizes, strides, task.alloc.symbol, bd, task.issue_token,
        )  # fmt: skip
        ops = dma.lower_memcpy(memcpy, task.alloc, self.resolve, repeat=task.repeat_count)
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


def _first(text: str) -> str:
    return text.splitlines()[0].strip()


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _type_end(operands: str, start: int) -> int:
    """End of the ``memref<...>`` type starting at ``start`` (-1 if there is none)."""
    if not operands.startswith("memref<", start):
        return -1
    end = _closing(_masked(operands), start + len("memref"))
    return -1 if end < 0 else end + 1


def task_attributes_bd(attrs: str, what: str) -> dict[str, int]:
    """An ``aie.dma_bd``'s ``{bd_id = 7 : i32, burst_length = 0 : i32}``."""
    out: dict[str, int] = {}
    inner = attrs.strip()[1:-1].strip() if attrs.strip() else ""
    for part in _split_top(inner) if inner else []:
        key, _eq, value = (x.strip() for x in part.partition("="))
        m = _RE_INT_VALUE.match(value)
        if key not in BD_ATTRS or m is None or (key == "burst_length" and int(m.group(1)) != 0):
            raise IronError(
                f"{what}: BD attribute `{part.strip()}`: iron's built-in lowering reads bd_id and "
                "burst_length = 0 only (compile with aiecc)"
            )
        out[key] = int(m.group(1))
    return out


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


def _numel(mtype: str) -> int:
    dims = re.findall(r"(\d+)x", mtype)
    n = 1
    for d in dims:
        n *= int(d)
    return n


def task_pattern(task: _Task, where: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``dma_memcpy_nd`` sizes and strides of a task BD's dimensions, for
    :func:`iron.lower.dma.hardware_fields` (mlir-aie's ``AIEDMATasksToNPU.cpp`` applies the
    same ``getHardwareStridesWraps``): a fourth dimension with stride 0 is no BD iteration
    (the push's ``repeat_count`` repeats the BD), and the lowest three dimensions must move
    the BD's ``len`` ("Buffer descriptor length does not match length of transfer expressed
    by lowest three dimensions")."""
    if not task.dims:
        return (1, 1, 1, task.length), (0, 0, 0)
    if len(task.dims) > 4:
        raise IronError(f"{where}: `{_first(task.text)}`: at most four BD dimensions (mlir-aie)")
    dims = [(1, 0)] * (4 - len(task.dims)) + list(task.dims)
    (s3, t3), (s2, t2), (s1, t1), (s0, t0) = dims
    if t0 != 1:
        raise IronError(
            f"{where}: `{_first(task.text)}`: innermost BD stride {t0}; iron's built-in lowering "
            "handles stride 1 there (compile with aiecc)"
        )
    if s0 * s1 * s2 != task.length:
        raise IronError(
            f"{where}: `{_first(task.text)}`: BD length {task.length} does not match the {s0 * s1 * s2} "
            "elements of its lowest three dimensions (do not count the fourth, the repeat)"
        )
    return (s3 if t3 else 1, s2, s1, s0), (t3, t2, t1)


def _contiguous(dims: list[tuple[int, int]], length: int) -> bool:
    """``[<size, stride>...]`` outermost first: one run of stride 1, every other size 1."""
    *outer, (size, stride) = dims
    return stride == 1 and size == length and all(s == 1 for s, _t in outer)
