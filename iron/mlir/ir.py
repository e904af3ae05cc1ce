"""A small IR for the subset of mlir-aie that iron emits, transforms and reads.

Structured ops are the ones iron must understand (tiles, packet flows, shim DMA
allocations, object FIFOs, runtime sequences and their npu ops, configure/run) and
the ones iron's own designs are made of (FIFO links, kernel declarations, cores).
Everything else read from a file (dma tasks, cores of foreign designs ...) is kept
as :class:`Opaque` text and printed back verbatim.

SSA values are referred to by name without the ``%``.
"""

from __future__ import annotations

import re

from dataclasses import dataclass, field
from typing import Union

import numpy as np

from iron.errors import IronError
from iron.mlir.decl import REQUIRED, SIZE, Attr, Bits, Layout, Syntax, declare
from iron.target.txn import PATCH_ACTION

#: MLIR element type -> numpy dtype.
DTYPES = {
    "i8": np.int8,
    "i16": np.int16,
    "i32": np.int32,
    "i64": np.int64,
    "ui8": np.uint8,
    "ui16": np.uint16,
    "ui32": np.uint32,
    "f32": np.float32,
    "bf16": None,  # numpy has no bfloat16: iron stores bf16 as uint16 bit patterns
}
ELEMENT_BYTES = {"i8": 1, "ui8": 1, "i16": 2, "ui16": 2, "bf16": 2, "i32": 4, "ui32": 4, "f32": 4, "i64": 8}


@dataclass(frozen=True)
class MemRefType:
    """``memref<4x8xbf16>``: a static shape and an element type."""

    shape: tuple[int, ...]
    dtype: str

    def __post_init__(self):
        if self.dtype not in ELEMENT_BYTES:
            raise IronError(f"unsupported element type {self.dtype!r}; accepted: {', '.join(ELEMENT_BYTES)}")

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) * ELEMENT_BYTES[self.dtype]

    @property
    def numel(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def __str__(self) -> str:
        return "memref<" + "".join(f"{d}x" for d in self.shape) + self.dtype + ">"


@dataclass
class Opaque:
    """An op kept verbatim (may span several lines; printed re-indented)."""

    text: str


@dataclass
class Tile:
    name: str  # SSA name, e.g. "tile_0_2"
    col: int
    row: int
    attrs: str | None = None  # trailing attribute dict kept verbatim, e.g. "{controller_id = ...}"


@dataclass(frozen=True)
class PacketEnd:
    tile: str  # SSA name of the tile
    bundle: str  # "Trace", "DMA", ...
    channel: int


@dataclass
class PacketFlow:
    id: int
    source: PacketEnd
    dest: PacketEnd
    keep_pkt_header: bool = True


@dataclass
class ShimDmaAllocation:
    """``aie.shim_dma_allocation @sym(MM2S, channel, col)``: binds a symbol to a shim channel."""

    symbol: str
    direction: str  # "MM2S" or "S2MM"
    channel: int
    column: int
    packet: str | None = None  # ``<pkt_type = 0, pkt_id = 1>`` of a packet-routed channel, verbatim
    attrs: str | None = None  # trailing attribute dictionary, verbatim


@dataclass
class ObjectFifo:
    """``aie.objectfifo @name(%producer, {%consumer, ...}, depth : i32) : !aie.objectfifo<type>``.

    iron reads the endpoints of every object FIFO (the shim allocations mlir-aie's
    lowering creates follow from them, :mod:`iron.mlir.objectfifo`); a FIFO read from
    a foreign file keeps its ``text`` verbatim (dimensions, attributes ...).
    """

    name: str
    producer: str  # SSA name of the producer tile
    consumers: tuple[str, ...]
    depth: int = 2
    type: str = ""  # the element type, e.g. ``memref<1024xbf16>``
    text: str | None = None  # verbatim op text of a foreign FIFO (printed as is)
    #: ``dimensionsToStream``: how the producer's DMA reads each object, outermost first,
    #: as ``(size, stride)`` pairs in elements (mlir-aie ``BDDimLayoutAttr``).
    dims_to_stream: tuple[tuple[int, int], ...] = ()
    #: ``dimensionsFromStream`` per consumer (same order as ``consumers``; ``()``: none).
    dims_from_stream: tuple[tuple[tuple[int, int], ...], ...] = ()
    #: the attribute dictionary after the operands, verbatim (``{runtimeDmas = true}``)
    attrs: str | None = None

    @property
    def runtime_dmas(self) -> bool:
        """``{runtimeDmas = true}``: the runtime sequence programs this FIFO's memtile DMA
        (upstream passthrough_dmas/unrolled_repeat_pass.mlir); see docs/guide.md "Foreign designs"."""
        return bool(self.attrs) and re.search(r"\bruntimeDmas\s*=\s*true\b", self.attrs) is not None


@dataclass
class ObjectFifoLink:
    """``aie.objectfifo.link [@a] -> [@b, @c]([] [0, 256])``: a memtile joins or splits FIFOs
    (mlir-aie's ``ObjectFifo.split``/``join``/``forward``); offsets count elements."""

    sources: tuple[str, ...]
    dests: tuple[str, ...]
    source_offsets: tuple[int, ...] = ()
    dest_offsets: tuple[int, ...] = ()


@dataclass
class FuncDecl:
    """``func.func private @name(types) attributes {link_with = "obj.o"}``: a kernel function
    cores call, and the object file that defines it."""

    name: str
    types: tuple[str, ...]
    link_with: str | None = None


@dataclass
class Core:
    """``%name = aie.core(%tile) { body } {attrs}``: the program of one compute tile
    (mlir-aie's ``Worker``).

    ``body`` holds the region's ops: the declared core-body ops of :mod:`iron.mlir.body`
    (regions nested) and :class:`Opaque` for any other op. ``attrs``: the attribute
    dictionary after the region (``{link_with = "k.o"}``), verbatim. ``text``: the verbatim
    text of a core read from a file whose spelling (comments, blank lines, indentation,
    spacing) the generic printer would not reproduce; it is printed as is, so a foreign
    design prints byte for byte as read (its ``body`` is still read, for sim).
    """

    name: str | None
    tile: str
    body: list
    attrs: str | None = None
    text: str | None = None

    @property
    def link_with(self) -> str | None:
        """The object file of the core-level ``link_with`` (the older spelling), or None."""
        m = re.search(r'\blink_with\s*=\s*"([^"]*)"', self.attrs or "")
        return m.group(1) if m else None


@dataclass
class MemrefGlobal:
    """``memref.global "private" constant @sym : memref<8xi32> = dense<[...]>`` (blockwrite data)."""

    symbol: str
    values: tuple[int, ...]


# --------------------------------------------------------------------------- runtime ops
# The npu ops' mlir-aie syntax (AIEX.td) and, for the ops the firmware runs as they
# are, their transaction layout: one declaration each (iron.mlir.decl).
_COL_ROW = (Attr("column", default=None), Attr("row", default=None))


@dataclass
@declare(
    mlir=Syntax(
        "aiex.npu.write32",
        [Attr("address", operand=True, word=True), Attr("value", operand=True, word=True), *_COL_ROW],
    )
)
class Write32:
    address: int
    value: int
    column: int | None = None
    row: int | None = None


@dataclass
@declare(
    mlir=Syntax(
        "aiex.npu.maskwrite32",
        [
            Attr("address", operand=True, word=True),
            Attr("value", operand=True, word=True),
            Attr("mask", operand=True, word=True),
            *_COL_ROW,
        ],
    )
)
class MaskWrite32:
    address: int
    value: int
    mask: int
    column: int | None = None
    row: int | None = None


@dataclass
class BlockWrite:
    """``aiex.npu.blockwrite``; ``data`` is the referenced memref.global's payload."""

    address: int
    data: tuple[int, ...]
    column: int | None = None
    row: int | None = None
    symbol: str | None = None  # name of the memref.global (assigned by the printer if None)


#: Attributes of ``aiex.npu.writebd`` in the order mlir-aie prints them (alphabetical).
WRITEBD_FIELDS = (
    "bd_id",
    "buffer_length",
    "buffer_offset",
    "burst_length",
    "column",
    "d0_size",
    "d0_stride",
    "d0_zero_after",
    "d0_zero_before",
    "d1_size",
    "d1_stride",
    "d1_zero_after",
    "d1_zero_before",
    "d2_size",
    "d2_stride",
    "d2_zero_after",
    "d2_zero_before",
    "enable_packet",
    "iteration_current",
    "iteration_size",
    "iteration_stride",
    "lock_acq_enable",
    "lock_acq_id",
    "lock_acq_val",
    "lock_rel_id",
    "lock_rel_val",
    "next_bd",
    "out_of_order_id",
    "packet_id",
    "packet_type",
    "row",
    "use_next_bd",
    "valid_bd",
)
_WRITEBD_REQUIRED = ("bd_id", "buffer_length", "column", "row")


@dataclass
@declare(
    mlir=Syntax(
        "aiex.npu.writebd",
        [Attr(k, default=REQUIRED if k in _WRITEBD_REQUIRED else 0) for k in WRITEBD_FIELDS],
        ignored=("ddr_id",),  # legacy field, ignored by mlir-aie
        bag=True,
    )
)
class WriteBd:
    """``aiex.npu.writebd``: a whole shim BD. ``buffer_length`` counts 32-bit words."""

    fields: dict[str, int]

    def __post_init__(self):
        unknown = set(self.fields) - set(WRITEBD_FIELDS)
        if unknown:
            raise IronError(f"aiex.npu.writebd: unknown field(s) {sorted(unknown)}")
        self.fields = {k: int(self.fields.get(k, 0)) for k in WRITEBD_FIELDS}

    def __getitem__(self, key: str) -> int:
        return self.fields[key]


@dataclass
@declare(
    mlir=Syntax(
        "aiex.npu.address_patch",
        [Attr("addr", "ui32", word=True), Attr("arg_idx"), Attr("arg_plus", "int", operand=True, default=0)],
        typed_operands=True,
    ),
    # DDR_PATCH: op, 48, 0, 0, 0, action, address, 0, arg_idx, 0, arg_plus low, arg_plus high
    txn=Layout(
        "DDR_PATCH",
        "DdrPatch",
        "DDR_PATCH",
        "0x{addr:08x} <- &arg{arg_idx} + 0x{arg_plus:x}  {where}",
        [
            SIZE,
            0,
            0,
            0,
            PATCH_ACTION,
            [Bits("addr")],
            0,
            [Bits("arg_idx")],
            0,
            [Bits("arg_plus")],
            [Bits("arg_plus", lo=32)],
        ],
    ),
)
class AddressPatch:
    """Firmware writes ``address(host buffer arg_idx) + arg_plus`` (bytes) into ``addr``.

    The same op is the transaction binary's DDR_PATCH (``arg_plus`` is 64-bit there).
    """

    addr: int
    arg_idx: int
    arg_plus: int = 0


_BYTE = 8  # bits


@dataclass
@declare(
    mlir=Syntax(
        "aiex.npu.sync",
        [
            Attr(f, operand=True, default=1 if f.endswith("_num") else REQUIRED)
            for f in ("column", "row", "direction", "channel", "column_num", "row_num")
        ],
    ),
    # TCT: op, 16, direction | row << 8 | column << 16, row_num << 8 | column_num << 16 | channel << 24
    txn=Layout(
        "TCT",
        "Sync",
        "SYNC",
        "col {column} row {row} {direction_name} ch {channel} ncols {column_num} nrows {row_num}",
        [
            SIZE,
            [Bits("direction", 0, _BYTE), Bits("row", 8, _BYTE), Bits("column", 16, _BYTE)],
            [Bits("row_num", 8, _BYTE), Bits("column_num", 16, _BYTE), Bits("channel", 24, _BYTE)],
        ],
    ),
)
class Sync:
    """``aiex.npu.sync``: wait for a task-complete token. direction 0 = S2MM, 1 = MM2S.

    The same op is the transaction binary's TCT (task-completion token) sync.
    """

    column: int
    row: int
    direction: int
    channel: int
    column_num: int = 1
    row_num: int = 1


@dataclass
@declare(mlir=Syntax("aiex.npu.load_pdi", [Attr("device_ref", "sym")]))
class LoadPdi:
    device_ref: str


@dataclass
class DmaMemcpyNd:
    """``aiex.npu.dma_memcpy_nd``: a shim transfer of host buffer ``arg`` on the
    channel bound to ``metadata``; offsets/sizes/strides in elements, outermost first.
    ``packet``: ``(pkt_type, pkt_id)`` of ``packet = <pkt_type = .., pkt_id = ..>``: the BD
    sends its data as one packet with that header (None: a circuit-switched transfer)."""

    arg: str
    offsets: tuple[int, int, int, int]
    sizes: tuple[int, int, int, int]
    strides: tuple[int, int, int]  # outer three; the innermost is ``inner_stride``
    metadata: str
    id: int
    issue_token: bool = False
    inner_stride: int = 1
    packet: tuple[int, int] | None = None


@dataclass
@declare(mlir=Syntax("aiex.npu.dma_wait", [Attr("symbol", "sym")]))
class DmaWait:
    symbol: str


@dataclass
class Run:
    """``aiex.run @sequence(args) : (types)`` inside a configure block."""

    sequence: str
    args: list[str]  # SSA names (block arguments or View results)
    types: list[MemRefType]


@dataclass
class Configure:
    """``aiex.configure @device { ... }``: reconfigure the array, then run the body."""

    device: str
    body: list


@dataclass
class View:
    """A typed window of a sequence argument, printed as ``memref.subview`` +
    ``memref.reinterpret_cast``. ``offset`` counts elements of the source."""

    name: str  # SSA name of the result
    source: str
    offset: int
    type: MemRefType


RuntimeOp = Union[
    Write32, MaskWrite32, BlockWrite, WriteBd, AddressPatch, Sync, LoadPdi,
    DmaMemcpyNd, DmaWait, Configure, Run, View, Opaque,
]  # fmt: skip


@dataclass
class Argument:
    name: str  # SSA name, e.g. "arg0"
    type: MemRefType


@dataclass
class RuntimeSequence:
    name: str
    args: list[Argument]
    body: list = field(default_factory=list)
    #: ``{...}`` after ``attributes`` in the header, verbatim (e.g. upstream's ``trace_slices``)
    attributes: str | None = None

    def arg_index(self, name: str) -> int:
        """Host-buffer index of argument ``name`` (all iron arguments are memrefs)."""
        for i, a in enumerate(self.args):
            if a.name == name:
                return i
        raise IronError(f"runtime sequence @{self.name} has no argument %{name}")


from iron.mlir.names import DEFAULT_DEVICE, DEFAULT_SEQUENCE  # noqa: E402,F401 (ir's names too)


@dataclass
class Device:
    """``aie.device(target) @symbol { body }``.

    ``body`` holds, in order, Tile / PacketFlow / ShimDmaAllocation / ObjectFifo /
    ObjectFifoLink / FuncDecl / Core / MemrefGlobal / Opaque / RuntimeSequence items,
    exactly as printed.
    """

    target: str  # "npu1_1col", "npu2" ...
    symbol: str | None = None
    body: list = field(default_factory=list)

    @property
    def tiles(self) -> list[Tile]:
        return [op for op in self.body if isinstance(op, Tile)]

    @property
    def packet_flows(self) -> list[PacketFlow]:
        return [op for op in self.body if isinstance(op, PacketFlow)]

    @property
    def sequences(self) -> list[RuntimeSequence]:
        return [op for op in self.body if isinstance(op, RuntimeSequence)]

    @property
    def allocations(self) -> list[ShimDmaAllocation]:
        return [op for op in self.body if isinstance(op, ShimDmaAllocation)]

    def sequence(self, name: str | None = None) -> RuntimeSequence:
        seqs = self.sequences
        for s in seqs:
            if name is None or s.name == name:
                return s
        raise IronError(f"device @{self.symbol} has no runtime sequence {name!r}")

    def tile(self, name: str) -> Tile:
        for t in self.tiles:
            if t.name == name:
                return t
        raise IronError(f"device @{self.symbol} has no tile %{name}")

    def tile_at(self, col: int, row: int) -> Tile | None:
        for t in self.tiles:
            if (t.col, t.row) == (col, row):
                return t
        return None


@dataclass
class Module:
    devices: list[Device] = field(default_factory=list)
    #: module-level ops other than devices (read from foreign files), printed first
    extra: list = field(default_factory=list)
    header: str = "module"  # ``module @name attributes {...}`` of a foreign file, verbatim
    #: symbols of devices read from a user's design (:mod:`iron.operators.foreign`); not printed
    foreign: set = field(default_factory=set, compare=False)

    def device(self, symbol: str) -> Device:
        for d in self.devices:
            if d.symbol == symbol:
                return d
        raise IronError(f"module has no aie.device @{symbol}")


def walk(ops: list):
    """Yield runtime ops depth-first, descending into configure blocks."""
    for op in ops:
        yield op
        if isinstance(op, Configure):
            yield from walk(op.body)
