"""The structural ops' declarations: one :class:`~iron.mlir.structure.Op` row each (see
:mod:`iron.mlir.structure` for the template language and the ``read``/``write`` hooks).
Registered on import; the reader and printer import this module.

Sources (what each form is checked against): ``aie.tile`` / ``aie.shim_dma_allocation`` /
``aie.packet_flow`` / ``func.func`` / ``aie.objectfifo`` as mlir-aie's lit tests write them
(``iron/tests/data/upstream``, its SOURCES.md; e.g. ``dma_operand_widths.mlir``; the older shim
allocation ``@sym(MM2S, 0, 0)`` before PR #2727), ``aiex.configure`` / ``aiex.run`` as
``test/dialect/AIEX/trace/test_trace_configure_run.mlir``, ``aie.objectfifo.link`` as
``test/objectFifo-stateful-transform`` (``[@a] -> [@b, @c]([] [0, 256])``).
"""

from __future__ import annotations

import re

from iron import limits
from iron.errors import IronError
from iron.mlir import ir
from iron.mlir.decl import NAME
from iron.mlir.form import Form
from iron.mlir.structure import Op, PrintContext, ReadError, declare, memref_type


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


def _device_read(values: dict, _ctx) -> dict:
    return {**values, "symbol": values["symbol"] or ir.DEFAULT_DEVICE}


def _device_write(op: ir.Device, _ctx) -> dict:
    return {"target": op.target, "symbol": op.symbol if op.symbol != ir.DEFAULT_DEVICE else None}


_RE_ARG = re.compile(rf"%({NAME})\s*:\s*(.+)", re.S)
_RE_BAD_MEMREF = re.compile(r"\s*memref<(?:\s*(?:\d+|\?)\s*x)*\s*-")


def _sequence_read(values: dict, _ctx) -> dict | None:
    """Memref arguments (else opaque: scalars ...); a memref with a malformed size is an error."""
    args = []
    for part in values["args"]:
        am = _RE_ARG.fullmatch(part)
        typ = memref_type(am.group(2)) if am else None
        if typ is None and am and _RE_BAD_MEMREF.match(am.group(2)):
            # not MLIR (a memref size is a non-negative integer or ?): say so here,
            # not later as "no runtime sequence"
            raise ReadError(
                f"runtime sequence argument %{am.group(1)}: {am.group(2).strip()!r} is not a memref "
                "type (a dimension is a non-negative integer)",
                am.group(2).strip(),
            )
        if typ is None:
            return None
        args.append(ir.Argument(am.group(1), typ))
    return {**values, "name": values["name"] or ir.DEFAULT_SEQUENCE, "args": args}


def _sequence_write(op: ir.RuntimeSequence, _ctx) -> dict:
    return {
        "name": op.name if op.name != ir.DEFAULT_SEQUENCE else None,
        "args": tuple(f"%{a.name}: {a.type}" for a in op.args),
        "attributes": op.attributes,
    }


# ------------------------------------------------------------------ the table
_SEQUENCE = "[? @{name}?]({args:text,})[? attributes {attributes:dict}?]"
OPS: tuple[Op, ...] = (
    Op(
        ir.Device,
        Form("aie.device", "({target:word})[? @{symbol}?]"),
        where="module",
        region="body",
        read=_device_read,
        write=_device_write,
    ),
    Op(
        ir.RuntimeSequence,
        Form("aie.runtime_sequence", _SEQUENCE),
        older=(Form("aiex.runtime_sequence", _SEQUENCE),),  # the aiex spelling (2024 .prj files)
        region="body",
        read=_sequence_read,
        write=_sequence_write,
    ),
    Op(ir.Configure, Form("aiex.configure", " @{device}"), where="sequence", region="body"),
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
for _op in OPS:
    declare(_op)
