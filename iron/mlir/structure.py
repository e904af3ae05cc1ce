"""Structural ops (tiles, shim allocations, kernel declarations, ``aiex.run`` ...) declared once.

Each :class:`Op` of :data:`OPS` names the :mod:`iron.mlir.ir` class, its text as a
:class:`~iron.mlir.form.Form` (the same template language as the core-body ops:
``%{x}`` SSA value, ``@{x}`` symbol, ``{x:kind}`` another field, ``[?`` ... ``?]`` optional,
``{{``/``}}`` a literal brace), the field holding its SSA result, where it stands (a device
body or a runtime sequence) and the older spellings the reader still accepts. The printer
(:func:`format_structural`) and the reader (:func:`read_structural`) are generic over the
table; adding an op whose fields are its text's fields is one row.

An op whose IR fields differ from its text's (a shim allocation names its tile in the text
and keeps the column) adds two small functions: ``read(values, tiles)`` turns the fields read
(``tiles``: the device's tiles by SSA name) into the class's arguments, or None to keep the op
opaque; ``write(op, device)`` gives the text's fields of an op (raising :class:`IronError`
for what cannot be printed).

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
    when it prints back byte for byte (else kept verbatim, so a foreign op keeps its spacing)."""

    cls: type
    form: Form
    where: str = "device"
    result: str | None = None
    older: tuple[Form, ...] = ()
    read: Callable | None = None
    write: Callable | None = None
    readable: bool = True
    exact: bool = False

    @property
    def name(self) -> str:
        return self.form.names[0]


class _Fields:
    def __init__(self, values: dict):
        self.__dict__.update(values)


# ------------------------------------------------------------------ per-op conversions
def _shim_read(values: dict, tiles: dict) -> dict | None:
    """Today's form names the shim tile (its column kept); the older form names the column
    and prints in today's form only once a shim tile of that column is declared."""
    if values["direction"] not in ("MM2S", "S2MM"):
        return None
    if "tile" not in values:
        known = any(t.row == 0 and t.col == values["column"] for t in tiles.values())
        return values if known else None
    tile, packet = tiles.get(values.pop("tile")), values["packet"]
    if tile is None or (packet is not None and not (packet.startswith("<") and packet.endswith(">"))):
        return None
    values["packet"] = " ".join(packet.split()) if packet else None
    return {**values, "column": tile.col}


def _shim_write(op: ir.ShimDmaAllocation, device: ir.Device | None) -> dict:
    if op.direction not in ("MM2S", "S2MM"):
        raise IronError(f"aie.shim_dma_allocation @{op.symbol}: direction must be MM2S or S2MM")
    tile = device.tile_at(op.column, 0) if device is not None else None
    if tile is None:
        raise IronError(
            f"aie.shim_dma_allocation @{op.symbol}: the device has no shim tile in column {op.column}"
        )
    return {**vars(op), "tile": tile.name}


def _run_read(values: dict, _tiles) -> dict | None:
    types = [memref_type(t) for t in values["types"]]
    if None in types or len(types) != len(values["args"]):
        return None
    return {**values, "args": list(values["args"]), "types": types}


def _run_write(op: ir.Run, _device) -> dict:
    if len(op.args) != len(op.types):
        raise IronError(f"aiex.run @{op.sequence}: {len(op.args)} arguments but {len(op.types)} types")
    return {"sequence": op.sequence, "args": tuple(op.args), "types": tuple(str(t) for t in op.types)}


# ------------------------------------------------------------------ the table
OPS: tuple[Op, ...] = (
    Op(ir.Tile, Form("aie.tile", "({col:uint}, {row:uint})[? {attrs:dict}?]"), result="name"),
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
BY_CLASS: dict[type, Op] = {op.cls: op for op in OPS}
#: Readable declarations by where they stand, then by op name.
BY_NAME: dict[str, dict[str, Op]] = {
    where: {op.name: op for op in OPS if op.where == where and op.readable}
    for where in ("device", "sequence")
}


def format_structural(op, device: ir.Device | None = None) -> str:
    """The line of a declared structural op (``device``: the device it stands in, for ops
    that name a tile by its place)."""
    decl = BY_CLASS[type(op)]
    fields = _Fields(decl.write(op, device)) if decl.write else op
    head = f"%{getattr(op, decl.result)} = " if decl.result else ""
    return head + decl.name + print_text(decl.form, fields, decl.name)


def read_structural(where: str, code: str, tiles: dict):
    """The declared op ``code`` spells where it stands (``"device"`` or ``"sequence"``;
    ``tiles``: the device's tiles by SSA name), or None: not declared there, or text its
    forms do not read (the caller keeps it opaque)."""
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
        values = decl.read(values, tiles)
    op = None if values is None else decl.cls(**values)
    return None if op is None or (decl.exact and format_structural(op) != code) else op
