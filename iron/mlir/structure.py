"""How a structural op (device, tile, flow, object FIFO, configure, run ...) is declared, and
the generic code that prints and reads it.

The core-body ops are declared with :class:`~iron.mlir.form.Form` on their class
(:mod:`iron.mlir.body`); the structural ops are declared with the same forms in one table,
:mod:`iron.mlir.structural_ops`, one :class:`Op` row each: the :mod:`iron.mlir.ir` class, its
text after the op name (``%{x}`` SSA value, ``@{x}`` symbol, ``{x:kind}`` another field,
``[?`` ... ``?]`` optional, ``{{``/``}}`` a literal brace, ``\n`` a line break: the printer
indents each line alike, the reader takes any whitespace), the field holding its SSA result,
where it stands (``"module"``, ``"device"`` or ``"sequence"``), the field of its region, and the
older spellings the reader still accepts (``Op.older``). The printer (:func:`format_structural`)
and the reader (:func:`read_structural`) are generic over the table: an op whose IR fields are
its text's fields is one row.

An op whose IR fields differ from its text's (a shim allocation names its tile in the text and
keeps the column) adds two small functions to its row: ``read(values, ctx)`` turns the fields
read into the class's arguments, or None to keep the op opaque; ``write(op, ctx)`` gives the
text's fields of an op (raising :class:`~iron.errors.IronError` for what cannot be printed).
The reader's ``ctx`` has ``tiles`` (the device's tiles by SSA name) and ``scope`` (the runtime
sequence's memref values by SSA name); the printer's is a :class:`PrintContext`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

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
    """One structural op: see the module docstring. ``region``: the field holding the ops of
    its region (the declaration gives the header; the body is read and printed where it stands:
    a device's ops, a configure block's runtime ops). ``readable=False``: printed from the
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
    region: str | None = None

    @property
    def name(self) -> str:
        return self.form.names[0]


class ReadError(Exception):
    """Raised by a ``read`` function for text that is no MLIR (not merely an op iron keeps
    opaque): the reader reports it at ``file:line:column`` of ``key`` in the line."""

    def __init__(self, msg: str, key: str | None = None):
        super().__init__(msg)
        self.key = key


class _Fields:
    def __init__(self, values: dict):
        self.__dict__.update(values)


@dataclass
class PrintContext:
    """What a ``write`` function may ask of the printer: the device printed, the sequence's
    memref values by SSA name."""

    device: ir.Device | None = None
    scope: dict | None = None


BY_CLASS: dict[type, Op] = {}
#: Readable declarations by where they stand, then by op name (every spelling's).
BY_NAME: dict[str, dict[str, Op]] = {"module": {}, "device": {}, "sequence": {}}
#: The op names read where they stand, for a quick ``str.startswith`` before reading.
STARTS: dict[str, tuple[str, ...]] = {"module": (), "device": (), "sequence": ()}


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
    if decl.region:
        values[decl.region] = []
    if decl.read:
        values = decl.read(values, ctx)
    op = None if values is None else decl.cls(**values)
    if op is None or not decl.exact or format_structural(op) == code:
        return op
    if decl.verbatim:
        setattr(op, decl.verbatim, code)
        return op
    return None
