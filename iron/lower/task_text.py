"""Reading the text of DMA-task ops: ``aiex.dma_configure_task[_for]`` split at its
brackets (:func:`split_task`: head, region, attribute dictionary; string literals and
nested brackets respected), the ops of a region (:func:`region_ops`), one ``aie.dma_bd``
(:func:`parse_bd`), the task's and a BD's attribute dictionaries, and the
``dma_memcpy_nd`` pattern of a BD's dimensions (:func:`task_pattern`). Shared by the shim
task lowering (:mod:`iron.lower.dma_task`) and the memtile / compute-tile one
(:mod:`iron.lower.tile_task`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from iron.errors import IronError
from iron.mlir.decl import NAME as _NAME
from iron.mlir.reader import memref_type, split_top

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
        raise IronError(f"`{first_line(text)}`: a DMA task needs a region {{ aie.dma_bd(...) aie.end }}")
    close = _closing(masked, open_at)
    if close < 0:
        raise IronError(f"`{first_line(text)}`: its region is never closed")
    rest = text[close + 1 :].strip()
    attrs = ""
    if rest.startswith("attributes"):
        rest = rest[len("attributes") :].strip()
    if rest:
        end = _closing(_masked(rest), 0) if rest[0] == "{" else -1
        if end < 0 or rest[end + 1 :].strip():
            raise IronError(
                f"`{first_line(text)}`: unexpected `{rest.splitlines()[0]}` after the task's region "
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


def parse_bd(bd: BdText, where: str) -> tuple[str, str, int, int, list[tuple[int, int]]]:
    """``(buffer name, memref type, offset, len, dims)`` of an ``aie.dma_bd`` (offset and len in
    elements; dims ``(size, stride)`` outermost first, ``[]`` for a linear transfer)."""
    head = _RE_BD_HEAD.match(bd.operands)
    mtype_end = _type_end(bd.operands, head.end()) if head else -1
    if mtype_end < 0:
        raise IronError(f"{where}: cannot read `{one_line(bd.text)}`")
    arg, mtype = head.group(1), bd.operands[head.end() : mtype_end]
    rest = " ".join(bd.operands[mtype_end:].split())
    dims: list[tuple[int, int]] = []
    if new := _RE_BD_NEW.match(rest):
        offset, length = int(new.group(1)), int(new.group(2))
        if new.group(3) is not None:
            sizes = [int(x) for x in new.group(3).split(",") if x.strip()]
            strides = [int(x) for x in new.group(4).split(",") if x.strip()]
            if len(sizes) != len(strides):
                raise IronError(f"{where}: `{one_line(bd.text)}`: sizes and strides differ in length")
            dims = list(zip(sizes, strides))
    elif old := _RE_BD_OLD.match(rest):
        offset, length = int(old.group(1)), int(old.group(2))
        inner = old.group(3) or ""
        dims = [(int(sz), int(st)) for sz, st in _RE_DIM.findall(inner)]
        if _RE_DIM.sub("", inner).replace(",", "").strip():
            raise IronError(
                f"{where}: `{one_line(bd.text)}`: only <size = s, stride = t> dimensions are read "
                "(padding needs aiecc)"
            )
    elif not rest:
        typ = memref_type(mtype)
        if typ is None:
            raise IronError(f"{where}: `{one_line(bd.text)}`: cannot read the buffer type {mtype!r}")
        offset, length = 0, typ.numel
    else:
        raise IronError(f"{where}: cannot read `{one_line(bd.text)}`")
    if dims and _contiguous(dims, length):
        dims = []  # a linear transfer writes no dimensions
    return arg, mtype, offset, length, dims


def first_line(text: str) -> str:
    """The first line of an op's text, stripped: how errors quote a task."""
    return text.splitlines()[0].strip()


def one_line(text: str) -> str:
    """An op's text on one line (runs of whitespace as one space), to quote or match it."""
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


def task_pattern(dims, length: int, what: str) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """``dma_memcpy_nd`` sizes, outer strides and innermost stride of a task BD's dimensions, for
    :func:`iron.lower.dma.hardware_fields` (mlir-aie's ``AIEDMATasksToNPU.cpp`` applies the
    same ``getHardwareStridesWraps``): a fourth dimension with stride 0 is no BD iteration
    (the push's ``repeat_count`` repeats the BD), and the lowest three dimensions must move
    the BD's ``len`` ("Buffer descriptor length does not match length of transfer expressed
    by lowest three dimensions")."""
    if not dims:
        return (1, 1, 1, length), (0, 0, 0), 1
    if len(dims) > 4:
        raise IronError(f"{what}: at most four BD dimensions (mlir-aie)")
    dims = [(1, 0)] * (4 - len(dims)) + list(dims)
    (s3, t3), (s2, t2), (s1, t1), (s0, t0) = dims
    if s0 * s1 * s2 != length:
        raise IronError(
            f"{what}: BD length {length} does not match the {s0 * s1 * s2} "
            "elements of its lowest three dimensions (do not count the fourth, the repeat)"
        )
    return (s3 if t3 else 1, s2, s1, s0), (t3, t2, t1), t0


def _contiguous(dims: list[tuple[int, int]], length: int) -> bool:
    """``[<size, stride>...]`` outermost first: one run of stride 1, every other size 1."""
    *outer, (size, stride) = dims
    return stride == 1 and size == length and all(s == 1 for s, _t in outer)
