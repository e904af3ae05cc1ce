"""Structural ops (tiles, shim allocations, kernel declarations, ``aiex.run`` ...) declared once.

Each :class:`Op` of :data:`OPS` names the :mod:`iron.mlir.ir` class, its text as a
:class:`~iron.mlir.form.Form` (the same template language as the core-body ops:
``%{x}`` SSA value, ``@{x}`` symbol, ``{x:kind}`` another field, ``[?`` ... ``?]`` optional,
``{{``/``}}`` a literal brace), the field holding its SSA result, where it stands (a device
body or a runtime sequence) and the older spellings the reader still accepts. The printer
(:func:`format_structural`) and the reader (:func:`read_structural`) are generic over the
table; adding an op whose fields are its text's fields is one row.

An op whose IR fields differ from its text's (a shim allocation names its tile in the text
and keeps the column) adds two small functions: ``read(values, ctx)`` turns the fields read
into the class's arguments, or None to keep the op opaque; ``write(op, ctx)`` gives the
text's fields of an op (raising :class:`IronError` for what cannot be printed). The reader's
``ctx`` has ``tiles`` (the device's tiles by SSA name) and ``scope`` (the runtime sequence's
memref values by SSA name); the printer's (:class:`PrintContext`) ``device`` and ``scope``.
A form may span lines (``\n`` in its text): the printer indents each line alike, the reader
takes any whitespace.

Sources: ``aie.tile`` / ``aie.shim_dma_allocation`` / ``func.func`` as mlir-aie's lit tests
write them (``iron/tests/data/upstream``, e.g. ``dma_operand_widths.mlir``; the older shim
allocation ``@sym(MM2S, 0, 0)`` before PR #2727), ``aiex.run`` as
``test/dialect/AIEX/trace/test_trace_configure_run.mlir``, ``aie.objectfifo.link`` as
``test/objectFifo-stateful-transform`` (``[@a] -> [@b, @c]([] [0, 256])``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from iron import limits
from iron.errors import IronError
from iron.mlir import ir
from iron.mlir.decl import NAME
from iron.mlir.form import Form, match_text, print_text

_RE_MEMREF = re.compile(r"^memref<((?:\d+x)+)(\w+)>$")
#: ``[%result = ]op.name rest``
_RE_HEAD = re.compile(rf"^(?:%({NAME})\s*=\s*)?([A-Za-z_][\w.$]*)(?=[\s(\[@]|$)(.*)$", re.S)


def memref_type(text: str) -> ir.MemRefType | None:
    """``memref<4x8xi32>`` as an :class:`ir.MemRefType` (None: not a memref of a known element type)."""
    m = _RE_MEMREF.match(text.strip())
    if not m or m.group(2) not in ir.ELEMENT_BYTES:
        return None
    return ir.MemRefType(tuple(int(d) for d in m.group(1).split("x")[:-1]), m.group(2))


@dataclass(frozen=True)
class Op:
    """One structural op: see the module docstring. ``readable=False``: printed from the
    declaration, but a read op stays opaque (its users read the text). ``exact``: read only
    when it prints back byte for byte, else kept opaque, or, with a ``verbatim`` field, read
    with its text kept there (printed as read: a foreign op keeps its spelling)."""

    cls: type
    form: Form
    where: str = "device"
    result: str | None = None
    older: tuple[Form, ...] = ()
    read: Callable | None = None
    write: Callable | None = None
    readable: bool = True
    exact: bool = False
    verbatim: str | None = None

    @property
    def name(self) -> str:
        return self.form.names[0]


class _Fields:
    def __init__(self, values: dict):
        self.__dict__.update(values)


@dataclass
class PrintContext:
    """What a ``write`` function may ask of the printer: the device printed, the sequence's
    memref values by SSA name."""

    device: ir.Device | None = None
    scope: dict | None = None


# ------------------------------------------------------------------ per-op conversions
def _shim_read(values: dict, ctx) -> dict | None:
    """Today's form names the shim tile (its column kept); the older form names the column
    and prints in today's form only once a shim tile of that column is declared."""
    if values["direction"] not in ("MM2S", "S2MM"):
        return None
    if "tile" not in values:
        known = any(t.row == 0 and t.col == values["column"] for t in ctx.tiles.values())
        return values if known else None
    tile, packet = ctx.tiles.get(values.pop("tile")), values["packet"]
    if tile is None or (packet is not None and not (packet.startswith("<") and packet.endswith(">"))):
        return None
    values["packet"] = " ".join(packet.split()) if packet else None
    return {**values, "column": tile.col}


def _shim_write(op: ir.ShimDmaAllocation, ctx: PrintContext) -> dict:
    device = ctx.device
    if op.direction not in ("MM2S", "S2MM"):
        raise IronError(f"aie.shim_dma_allocation @{op.symbol}: direction must be MM2S or S2MM")
    tile = device.tile_at(op.column, 0) if device is not None else None
    if tile is None:
        raise IronError(
            f"aie.shim_dma_allocation @{op.symbol}: the device has no shim tile in column {op.column}"
        )
    return {**vars(op), "tile": tile.name}


def _run_read(values: dict, _ctx) -> dict | None:
    types = [memref_type(t) for t in values["types"]]
    if None in types or len(types) != len(values["args"]):
        return None
    return {**values, "args": list(values["args"]), "types": types}


def _run_write(op: ir.Run, _ctx) -> dict:
    if len(op.args) != len(op.types):
        raise IronError(f"aiex.run @{op.sequence}: {len(op.args)} arguments but {len(op.types)} types")
    return {"sequence": op.sequence, "args": tuple(op.args), "types": tuple(str(t) for t in op.types)}


def _packet_flow_read(values: dict, _ctx) -> dict | None:
    """``{keep_pkt_header = true|false}`` is the one attribute modelled (else opaque)."""
    keep = values.pop("attrs") or "{keep_pkt_header = false}"
    m = _RE_KEEP.fullmatch(keep)
    try:
        number = limits.parse_int(values.pop("id"))
    except ValueError:
        return None
    if m is None:
        return None
    ends = [ir.PacketEnd(values[f"{e}_tile"], values[f"{e}_bundle"], values[f"{e}_channel"]) for e in "sd"]
    return {"id": number, "source": ends[0], "dest": ends[1], "keep_pkt_header": m.group(1) == "true"}


def _packet_flow_write(op: ir.PacketFlow, _ctx) -> dict:
    s, d = op.source, op.dest
    return {
        "id": str(op.id),
        **{f"s_{k}": getattr(s, k) for k in ("tile", "bundle", "channel")},
        **{f"d_{k}": getattr(d, k) for k in ("tile", "bundle", "channel")},
        "attrs": "{keep_pkt_header = true}" if op.keep_pkt_header else None,
    }


#: The object-FIFO attribute dictionary iron reads (anything else keeps the op opaque).
_RE_FIFO_ATTRS = re.compile(r"^\{\s*runtimeDmas\s*=\s*(true|false)\s*\}$")
_RE_FIFO_CONSUMER = re.compile(rf"^%({NAME})\b(.*)$", re.S)
#: ``dimensionsToStream`` / ``dimensionsFromStream``; ``toStream`` / ``fromStream`` is the older
#: spelling (e.g. generated whole_array matmul MLIR in mlir-aie's build folders, 2024); iron prints today's.
_RE_DIMS = re.compile(
    r"^(?:(?:dimensionsToStream|dimensionsFromStream|toStream|fromStream)\s*\[(.*)\])?$", re.S
)
_RE_DIM = re.compile(r"<\s*size\s*=\s*(\d+)\s*,\s*stride\s*=\s*(\d+)\s*>")


def _dims(text: str) -> tuple[tuple[int, int], ...] | None:
    """``dimensionsToStream [<size = 4, stride = 8>, ...]`` -> ((4, 8), ...); "" -> (); None: other text."""
    m = _RE_DIMS.match(text.strip())
    if m is None:
        return None
    if m.group(1) is None:
        return ()
    dims = _RE_DIM.findall(m.group(1))
    if _RE_DIM.sub("", m.group(1)).replace(",", "").strip():
        return None
    return tuple((int(n), int(st)) for n, st in dims)


def _dims_text(keyword: str, dims) -> str:
    """``dimensionsToStream [<size = 4, stride = 8>, ...]`` (empty for no dimensions)."""
    if not dims:
        return ""
    return f"{keyword} [" + ", ".join(f"<size = {n}, stride = {st}>" for n, st in dims) + "]"


def _fifo_read(values: dict, ctx) -> dict | None:
    """Endpoints on declared tiles, stream dimensions and ``{runtimeDmas = ..}`` modelled (else opaque)."""
    to_stream = _dims(values.pop("to_stream") or "")
    entries = [_RE_FIFO_CONSUMER.match(c) for c in values["consumers"]]
    if to_stream is None or not entries or not all(entries):
        return None
    consumers = tuple(e.group(1) for e in entries)
    from_stream = tuple(_dims(e.group(2)) for e in entries)
    if any(d is None for d in from_stream) or not {*consumers, values["producer"]} <= set(ctx.tiles):
        return None
    if values["attrs"] and not _RE_FIFO_ATTRS.match(values["attrs"]):
        return None  # other attributes (transport, repeat_count, ...) change what it does: opaque
    from_stream = from_stream if any(from_stream) else ()
    return {**values, "consumers": consumers, "dims_to_stream": to_stream, "dims_from_stream": from_stream}


def _fifo_write(op: ir.ObjectFifo, _ctx) -> dict:
    from_stream = op.dims_from_stream or ((),) * len(op.consumers)
    consumers = tuple(
        f"%{c} {_dims_text('dimensionsFromStream', d)}".rstrip() for c, d in zip(op.consumers, from_stream)
    )
    to_stream = _dims_text("dimensionsToStream", op.dims_to_stream) or None
    return {**vars(op), "to_stream": to_stream, "consumers": consumers}


_RE_KEEP = re.compile(r"\{\s*keep_pkt_header\s*=\s*(true|false)\s*\}")


# ------------------------------------------------------------------ the table
OPS: tuple[Op, ...] = (
    Op(ir.Tile, Form("aie.tile", "({col:uint}, {row:uint})[? {attrs:dict}?]"), result="name"),
    Op(
        ir.PacketFlow,
        Form(
            "aie.packet_flow",
            "({id:lit}) {{\n"
            "  aie.packet_source<%{s_tile}, {s_bundle:word} : {s_channel:uint}>\n"
            "  aie.packet_dest<%{d_tile}, {d_bundle:word} : {d_channel:uint}>\n"
            "}}[? {attrs:dict}?]",
        ),
        read=_packet_flow_read,
        write=_packet_flow_write,
    ),
    Op(
        ir.ShimDmaAllocation,
        Form(
            "aie.shim_dma_allocation",
            " @{symbol}(%{tile}, {direction:word}, {channel:uint}[?, {packet}?])[? {attrs:dict}?]",
        ),
        older=(
            Form("aie.shim_dma_allocation", " @{symbol}({direction:word}, {channel:uint}, {column:uint})"),
        ),
        read=_shim_read,
        write=_shim_write,
    ),
    Op(
        ir.ObjectFifo,
        Form(
            "aie.objectfifo",
            " @{name}(%{producer}[? {to_stream}?], {{{consumers:text,}}}, {depth:int} : i32)[? {attrs:dict}?]"
            " : !aie.objectfifo<{type}>",
        ),
        read=_fifo_read,
        write=_fifo_write,
        exact=True,
        verbatim="text",
    ),
    Op(
        ir.FuncDecl,
        Form("func.func", ' private @{name}({types:text,})[? attributes {{link_with = "{link_with:str}"}}?]'),
        exact=True,
    ),
    Op(
        ir.ObjectFifoLink,
        Form(
            "aie.objectfifo.link",
            " [{sources:@,}] -> [{dests:@,}]([{source_offsets:int,}] [{dest_offsets:int,}])",
        ),
        readable=False,
    ),
    Op(
        ir.Run,
        Form("aiex.run", " @{sequence}({args:%,}) : ({types:text,})"),
        where="sequence",
        read=_run_read,
        write=_run_write,
    ),
)
BY_CLASS: dict[type, Op] = {}
#: Readable declarations by where they stand, then by op name (every spelling's).
BY_NAME: dict[str, dict[str, Op]] = {"device": {}, "sequence": {}}
#: The op names read where they stand, for a quick ``str.startswith`` before reading.
STARTS: dict[str, tuple[str, ...]] = {"device": (), "sequence": ()}


def declare(op: Op) -> Op:
    """Register ``op`` (the table's rows are registered on import)."""
    BY_CLASS[op.cls] = op
    if op.readable:
        for form in (op.form, *op.older):
            BY_NAME[op.where][form.names[0]] = op
        STARTS[op.where] = tuple(BY_NAME[op.where])
    return op


def undeclare(op: Op) -> None:
    """Remove ``op`` (what :func:`declare` added; for tests that declare an op of their own)."""
    BY_CLASS.pop(op.cls, None)
    names = BY_NAME[op.where]
    for name in [n for n, o in names.items() if o is op]:
        del names[name]
    STARTS[op.where] = tuple(names)


for _op in OPS:
    declare(_op)


def format_structural(op, ctx: PrintContext | None = None) -> str:
    """The text of a declared structural op (lines joined by ``\n``, unindented)."""
    decl = BY_CLASS[type(op)]
    fields = _Fields(decl.write(op, ctx or PrintContext())) if decl.write else op
    head = f"%{getattr(op, decl.result)} = " if decl.result else ""
    return head + decl.name + print_text(decl.form, fields, decl.name)


def read_structural(where: str, code: str, ctx):
    """The declared op ``code`` spells where it stands (``"device"`` or ``"sequence"``;
    ``ctx``: see the module docstring), or None: not declared there, or text its forms do
    not read (the caller keeps it opaque)."""
    m = _RE_HEAD.match(code)
    decl = BY_NAME[where].get(m.group(2)) if m else None
    if decl is None or (m.group(1) is None) != (decl.result is None):
        return None
    for form in (decl.form, *decl.older):
        values = match_text(form, m.group(3))
        if values is not None:
            break
    else:
        return None
    if decl.result:
        values[decl.result] = m.group(1)
    if decl.read:
        values = decl.read(values, ctx)
    op = None if values is None else decl.cls(**values)
    if op is None or not decl.exact or format_structural(op) == code:
        return op
    if decl.verbatim:
        setattr(op, decl.verbatim, code)
        return op
    return None
