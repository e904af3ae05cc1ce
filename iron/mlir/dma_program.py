"""DMA programs written statically in a design: ``aie.mem``, ``aie.memtile_dma``, ``aie.shim_dma``.

Read from the text iron keeps these region ops in (``ir.Opaque``), as mlir-aie's ``AIEOps.td``
(andrej/mlir-aie a9e39faeb1447025b504ac10a28098fcdd467255) declares them:

* ``%x = aie.dma_start(S2MM, 0, ^bb1, ^bb3[, repeat_count = N])``: channel direction and index,
  the block of its first BD and the block holding the next ``dma_start`` (or ``aie.end``);
* blocks ``^bbN:`` holding ``aie.use_lock(%l, AcquireGreaterEqual | Acquire | Release, n)``, one
  ``aie.dma_bd(%buf : memref<..> [offset = o] [len = n] [sizes = [..] strides = [..]] [pad [..]])
  {bd_id, next_bd_id, packet = #aie.packet_info<..>, iteration = #aie.bd_iteration<..>}`` (the
  older ``(%buf : memref<..>, offset, len[, [<size = s, stride = t>, ..]])`` form too), an optional
  ``aie.dma_bd_packet(type, id)`` and ``aie.next_bd ^bbM`` (or ``cf.br``) / ``aie.end``;
* the region form ``aie.dma(MM2S, 0) {loop, repeat_count, pad_value} [{ bd }, { bd }]``: its BDs
  chain in order, the last back to the first unless ``loop = false``;
* ``aie.buffer`` / ``aie.lock`` declared inside the region (:mod:`iron.mlir.storage`).

Offsets, lengths, sizes and strides are in elements of the buffer's type. What the reader does not
know is listed in :attr:`DmaRegion.unmodelled` as ``"<op> at <file>:<line>"``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from iron.mlir import storage
from iron.mlir.decl import NAME

REGION_OPS = ("aie.mem", "aie.memtile_dma", "aie.shim_dma")

_RE_HEAD = re.compile(
    rf"^(?:%({NAME})\s*=\s*)?(aie\.mem|aie\.memtile_dma|aie\.shim_dma)\s*\(\s*%({NAME})\s*\)"
)
_RE_LABEL = re.compile(r"^\^(\w+)\s*(?:\(.*\))?\s*:")
_RE_CONST = re.compile(rf"^%({NAME})\s*=\s*arith\.constant\s+(-?\d+)\s*:")
_RE_START = re.compile(
    r"aie\.dma_start\s*\(\s*\"?(S2MM|MM2S)\"?\s*,\s*(\d+)\s*,\s*\^(\w+)\s*,\s*\^(\w+)\s*"
    r"(?:,\s*repeat_count\s*=\s*(\d+)\s*)?\)(.*)$"
)
_RE_DMA = re.compile(r"aie\.dma\s*\(\s*\"?(S2MM|MM2S)\"?\s*,\s*(\d+)\s*\)\s*(\{[^\[]*\})?\s*\[\s*\{?\s*$")
_RE_LOCK = re.compile(
    rf"^aie\.use_lock\s*\(\s*%({NAME})\s*,\s*\"?(\w+)\"?\s*,\s*(%{NAME}|-?\d+)\s*(?:,\s*\w+\s*)?\)"
)
_RE_BD = re.compile(rf"^aie\.dma_bd\s*\(\s*%({NAME})\s*:\s*(memref<[^>]*>)(.*)\)\s*(\{{.*\}})?\s*$")
_RE_BD_PACKET = re.compile(r"^aie\.dma_bd_packet\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)")
_RE_NEXT = re.compile(r"^(?:aie\.next_bd|cf\.br|br)\s+\^(\w+)")
_RE_INT_ATTR = r"\b{}\s*=\s*(-?\d+)"
_RE_LIST = r"\b{}\s*=\s*\[([^\]]*)\]"
_RE_OLD_DIM = re.compile(r"<\s*size\s*=\s*(\d+)\s*,\s*stride\s*=\s*(\d+)\s*>")
_RE_PAD = re.compile(r"<\s*const_pad_before\s*=\s*(\d+)\s*,\s*const_pad_after\s*=\s*(\d+)\s*>")
_RE_PACKET = re.compile(r"packet_info\s*<\s*(pkt_\w+)\s*=\s*(\d+)\s*,\s*(pkt_\w+)\s*=\s*(\d+)\s*>")
_RE_ITER = re.compile(
    r"bd_iteration\s*<\s*(?:size\s*=\s*)?(\d+)\s*,\s*(?:stride\s*=\s*)?(\d+)(?:\s*,\s*(?:current\s*=\s*)?(\d+))?"
)


@dataclass(frozen=True)
class UseLock:
    """``aie.use_lock``: the lock's SSA name, its action and value."""

    lock: str
    action: str  # "Acquire" | "AcquireGreaterEqual" | "Release"
    value: int


@dataclass
class Bd:
    """One ``aie.dma_bd``, its numbers in elements of ``type`` (sizes / strides outermost first)."""

    buffer: str
    type: str
    offset: int = 0
    length: int | None = None  # None: the whole buffer
    sizes: tuple[int, ...] = ()
    strides: tuple[int, ...] = ()
    pad: tuple[tuple[int, int], ...] = ()  # (before, after) per dimension, outermost first
    packet: tuple[int, int] | None = None  # (pkt_type, pkt_id)
    iteration: tuple[int, int, int] | None = None  # (size, stride, current)
    bd_id: int | None = None
    next_bd_id: int | None = None
    line: int = 0
    burst_length: int = 0  # bytes (a shim BD's); 0: the target's default


@dataclass
class Block:
    """One basic block of a DMA region: its locks, BD and successor."""

    label: str
    line: int
    locks: list[UseLock] = field(default_factory=list)
    bd: Bd | None = None
    next: str | None = None  # the block ``aie.next_bd`` jumps to (None: the chain ends)


@dataclass
class Start:
    """One channel the region starts: ``aie.dma_start`` or ``aie.dma``."""

    direction: str  # "s2mm" | "mm2s"
    channel: int
    first: str  # label of the block of its first BD
    repeat_count: int = 0
    pad_value: int = 0
    line: int = 0


@dataclass
class DmaRegion:
    """One ``aie.mem`` / ``aie.memtile_dma`` / ``aie.shim_dma`` and what it programs."""

    op: str
    tile: str
    line: int
    starts: list[Start] = field(default_factory=list)
    blocks: dict[str, Block] = field(default_factory=dict)
    buffers: list[storage.Buffer] = field(default_factory=list)
    locks: list[storage.Lock] = field(default_factory=list)
    unmodelled: list[str] = field(default_factory=list)  # "<op> at <file>:<line>"


def is_region(text: str) -> bool:
    """True if ``text`` is one of :data:`REGION_OPS`."""
    return _RE_HEAD.match(text.strip()) is not None


def read_region(text: str, where: str = "<input>", line: int = 1) -> DmaRegion | None:
    """The DMA program of region op ``text`` (None: not one); ``line``: its first line in ``where``."""
    lines = text.strip().split("\n")
    head = _RE_HEAD.match(lines[0].strip())
    if head is None:
        return None
    region = DmaRegion(head.group(2), head.group(3), line)
    state = _State(region, where, line)
    for k, raw in enumerate(lines[1:-1], start=1):
        state.line = line + k
        state.feed(raw.split("//", 1)[0].strip())
    state.close_dma()
    return region


class _State:
    """Line-by-line reading of one region's body."""

    def __init__(self, region: DmaRegion, where: str, line: int):
        self.region, self.where, self.line = region, where, line
        self.consts: dict[str, int] = {}
        self.block: Block | None = None
        self.dma: list | None = None  # [Start, loop, labels] of an open aie.dma region form

    def at(self) -> str:
        return f"{self.where}:{self.line}"

    def new_block(self, label: str) -> None:
        self.block = self.region.blocks.setdefault(label, Block(label, self.line))

    def feed(self, s: str) -> None:
        if not s:
            return
        if self.dma is not None and s.startswith("}"):
            self.dma_next(s)
            return
        if m := _RE_LABEL.match(s):
            self.new_block(m.group(1))
            s = s[m.end() :].strip()
            if not s:
                return
        if self.block is None:
            self.new_block("bb0")
        self.op(s)

    def op(self, s: str) -> None:
        body = s.split("=", 1)[1].strip() if s.startswith("%") and "=" in s.split("(")[0] else s
        if m := _RE_CONST.match(s):
            self.consts[m.group(1)] = int(m.group(2))
        elif (buf := storage.read_buffer(s)) is not None:
            self.region.buffers.append(buf)
        elif (lk := storage.read_lock(s)) is not None:
            self.region.locks.append(lk)
        elif m := _RE_START.match(body):
            self.start(m)
        elif m := _RE_DMA.match(body):
            self.open_dma(m)
        elif m := _RE_LOCK.match(body):
            v = m.group(3)
            value = self.consts.get(v[1:]) if v.startswith("%") else int(v)
            if value is None:
                self.region.unmodelled.append(f"aie.use_lock with a non-constant value {v} at {self.at()}")
                return
            self.block.locks.append(UseLock(m.group(1), m.group(2), value))
        elif m := _RE_BD.match(body):
            self.block.bd = self.bd(m)
        elif m := _RE_BD_PACKET.match(body):
            if self.block.bd is not None:
                self.block.bd.packet = (int(m.group(1)), int(m.group(2)))
            else:
                self.pending_packet = (int(m.group(1)), int(m.group(2)))
        elif m := _RE_NEXT.match(body):
            self.block.next = m.group(1)
        elif body.startswith("aie.end"):
            pass
        else:
            word = body.split("(")[0].split()[0]
            self.region.unmodelled.append(f"{word} at {self.at()}")

    def start(self, m: re.Match) -> None:
        rest = m.group(6) or ""
        repeat = m.group(5) or _int_attr(rest, "repeat_count") or 0
        self.region.starts.append(
            Start(m.group(1).lower(), int(m.group(2)), m.group(3), int(repeat),
                  int(_int_attr(rest, "pad_value") or 0), self.line)
        )  # fmt: skip
        self.new_block(m.group(4))

    def bd(self, m: re.Match) -> Bd:
        args, attrs = m.group(3), m.group(4) or ""
        bd = Bd(m.group(1), m.group(2), line=self.line)
        if args.strip().startswith(","):  # the older positional form: , offset, len[, dims]
            parts = [p.strip() for p in args.strip()[1:].split(",", 2)]
            bd.offset, bd.length = int(parts[0]), int(parts[1])
            dims = _RE_OLD_DIM.findall(parts[2]) if len(parts) > 2 else []
            bd.sizes, bd.strides = tuple(int(s) for s, _ in dims), tuple(int(t) for _, t in dims)
        else:
            bd.offset = int(_int_attr(args, "offset") or 0)
            length = _int_attr(args, "len")
            bd.length = int(length) if length is not None else None
            bd.sizes, bd.strides = _int_list(args, "sizes"), _int_list(args, "strides")
            dims = _RE_OLD_DIM.findall(args)
            if dims and not bd.sizes:
                bd.sizes, bd.strides = tuple(int(s) for s, _ in dims), tuple(int(t) for _, t in dims)
        bd.pad = tuple((int(a), int(b)) for a, b in _RE_PAD.findall(args + attrs))
        if p := _RE_PACKET.search(attrs):
            named = {p.group(1): int(p.group(2)), p.group(3): int(p.group(4))}
            bd.packet = (named.get("pkt_type", 0), named.get("pkt_id", 0))
        elif getattr(self, "pending_packet", None):
            bd.packet, self.pending_packet = self.pending_packet, None
        if it := _RE_ITER.search(attrs):
            bd.iteration = (int(it.group(1)), int(it.group(2)), int(it.group(3) or 0))
        for name in ("bd_id", "next_bd_id"):
            value = _int_attr(attrs, name)
            setattr(bd, name, int(value) if value is not None else None)
        bd.burst_length = int(_int_attr(attrs, "burst_length") or 0)
        return bd

    # -- the aie.dma region form: one block per {...}, chained in order
    def open_dma(self, m: re.Match) -> None:
        attrs = m.group(3) or ""
        start = Start(m.group(1).lower(), int(m.group(2)), "", int(_int_attr(attrs, "repeat_count") or 0),
                      int(_int_attr(attrs, "pad_value") or 0), self.line)  # fmt: skip
        self.region.starts.append(start)
        self.dma = [start, "loop = false" not in attrs, []]
        self.dma_block()

    def dma_block(self) -> None:
        start, _loop, labels = self.dma
        label = f"dma{len(self.region.starts) - 1}_{len(labels)}"
        labels.append(label)
        self.new_block(label)
        if not start.first:
            start.first = label

    def dma_next(self, s: str) -> None:
        if s.replace(" ", "").startswith("},{"):
            self.dma_block()
            return
        self.close_dma()

    def close_dma(self) -> None:
        if self.dma is None:
            return
        _start, loop, labels = self.dma
        for a, b in zip(labels, labels[1:] + ([labels[0]] if loop else [None])):
            self.region.blocks[a].next = b
        self.dma, self.block = None, None


def _int_attr(text: str, name: str) -> str | None:
    m = re.search(_RE_INT_ATTR.format(name), text)
    return m.group(1) if m else None


def _int_list(text: str, name: str) -> tuple[int, ...]:
    m = re.search(_RE_LIST.format(name), text)
    return tuple(int(x) for x in m.group(1).split(",") if x.strip()) if m else ()


def chain(region: DmaRegion, start: Start) -> list[Block]:
    """The blocks a channel's task runs, in order, each once (a chain that loops back stops there)."""
    out, label = [], start.first
    while label is not None and label in region.blocks and region.blocks[label] not in out:
        block = region.blocks[label]
        if block.bd is None:
            break
        out.append(block)
        label = block.next
    return out


def read_use_lock(text: str) -> UseLock | None:
    """``aie.use_lock`` of op ``text`` (None: not one); a value given as an SSA name stays ``"%name"``."""
    m = _RE_LOCK.match(" ".join(text.split()))
    if m is None:
        return None
    v = m.group(3)
    return UseLock(m.group(1), m.group(2), v if v.startswith("%") else int(v))
