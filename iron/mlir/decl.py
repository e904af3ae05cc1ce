"""How an op is declared: its fields, its mlir-aie syntax and its transaction-word layout.

Each op class carries one declaration (``@declare(mlir=..., txn=...)``) and the
generic code reads it: the printer and reader (:mod:`iron.mlir.printer`,
:mod:`iron.mlir.reader`) use ``MLIR``, the TXN encoder, decoder, range checks and
``iron inspect``'s formatter (:mod:`iron.mlir.txn_codec`) use ``TXN``. An op that exists
in both worlds (``aiex.npu.sync`` is the firmware's TCT op word for word) is one
class with both. The model is xDSL's ``irdl_op_definition``, much smaller.

Example, ``aiex.npu.sync`` / TCT::

    @dataclass
    @declare(
        mlir=Syntax("aiex.npu.sync", [Attr("column", operand=True), ...]),
        txn=Layout("TCT", "Sync", "SYNC", "col {column} ...", [SIZE, [Bits("direction", 0, 8), ...], ...]),
    )
    class Sync: ...

(``@dataclass`` goes above ``@declare`` so that it sees the range check of a TXN-only op.)
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

from iron.errors import IronError


class TxnError(IronError, ValueError):
    """A transaction binary or op is malformed or out of range."""


# --------------------------------------------------------------------------- mlir syntax
#: An SSA value or symbol name after ``%`` or ``@``, as every reader of mlir-aie text
#: accepts it (a regex fragment; wider than MLIR's bare-id, so ``%0`` and ``@in-1`` read).
NAME = r"[A-Za-z0-9_$.\-]+"
#: ``Attr.default`` of an attribute the old attribute form must spell out.
REQUIRED = object()


@dataclass(frozen=True)
class Attr:
    """One field of an npu op as mlir-aie spells it.

    ``type``: ``i32``, ``ui32``, ``sym`` (``@name``) or ``int`` (an operand typed
    i32 when the value fits, else i64; AIEX.td ``AnyTypeOf<[I32, I64]>``).
    ``operand``: today's syntax passes it as an SSA operand fed by an
    ``arith.constant`` (older files spell it as an attribute; the reader takes both).
    ``default``: its value when the attribute form leaves it out (``None``: the field
    is optional and printed only when set). ``word``: a 32-bit register word, kept
    modulo 2**32 when read (MLIR prints i32 constants signed).
    """

    name: str
    type: str = "i32"
    operand: bool = False
    default: object = REQUIRED
    word: bool = False


@dataclass(frozen=True)
class Syntax:
    """The textual form of an op: ``name(%operands) {attributes} : types``.

    ``typed_operands``: operands print as ``(%x : i32)`` with no trailing type list
    (``aiex.npu.address_patch``). ``ignored``: legacy attributes the reader drops.
    ``bag``: the op keeps its fields in one ``fields`` dict (``aiex.npu.writebd``).
    """

    name: str
    attrs: tuple[Attr, ...]
    typed_operands: bool = False
    ignored: tuple[str, ...] = ()
    bag: bool = False

    def __post_init__(self):
        object.__setattr__(self, "attrs", tuple(self.attrs))
        # Derived once (the reader runs per op): operand fields, and the attribute names each
        # form may spell (today's SSA form passes the operands as operands).
        object.__setattr__(self, "operands", tuple(a for a in self.attrs if a.operand))
        object.__setattr__(self, "attr_names", frozenset(a.name for a in self.attrs))
        object.__setattr__(self, "ssa_attr_names", frozenset(a.name for a in self.attrs if not a.operand))

    def value(self, op, name: str):
        return op.fields[name] if self.bag else getattr(op, name)


# --------------------------------------------------------------------------- txn layout
@dataclass(frozen=True)
class Bits:
    """Bits ``[at, at + width)`` of a word hold bits ``[lo, lo + width)`` of field ``field``."""

    field: str
    at: int = 0
    width: int = 32
    lo: int = 0


#: A word of a layout holding the op's size in bytes.
SIZE = "size"


@dataclass(frozen=True)
class Layout:
    """Where an op's fields sit in its transaction words (all little-endian u32).

    Word 0 is ``opcode | head`` (aie-rt's ``XAie_OpHdr`` column/row bytes are left 0 by
    mlir-aie and ignored on decode). ``words`` are words 1.. in order, each either an
    int (a fixed word, 0 = reserved), :data:`SIZE`, or a list of :class:`Bits`; bits of
    a field word outside its fields must be 0. ``tail`` names a field holding the op's
    remaining words (its size word then counts them). ``sizes``: the byte sizes a
    decoder accepts (default: exactly the fixed words); words past the fixed ones are
    padding. ``name``: the op as error messages name it; ``label`` and ``fmt`` (a
    ``str.format`` template over the fields and :func:`iron.mlir.txn_codec.format_op`'s
    derived names) make its ``iron inspect`` line.
    """

    opcode: str
    name: str
    label: str
    fmt: str
    words: tuple = ()
    head: tuple[Bits, ...] = ()
    tail: str | None = None
    sizes: tuple[int, ...] | None = None

    def __post_init__(self):
        object.__setattr__(self, "words", tuple(tuple(w) if isinstance(w, list) else w for w in self.words))
        object.__setattr__(self, "head", tuple(self.head))
        # Derived once (the codec runs per op): each field's largest value, from its bits.
        limits: dict[str, int] = {}
        for bits in self.head + tuple(b for w in self.words if isinstance(w, tuple) for b in w):
            limits[bits.field] = max(limits.get(bits.field, 0), (1 << (bits.lo + bits.width)) - 1)
        object.__setattr__(self, "limits", limits)


def check_int(owner: str, field: str, value, limit: int) -> int:
    """``value`` as an int in ``[0, limit]``, else :class:`TxnError` naming ``owner.field``."""
    if type(value) is not int:
        try:
            value = operator.index(value)
        except TypeError:
            raise TxnError(f"{owner}.{field} must be an integer, got {value!r}") from None
    if value < 0 or value > limit:
        raise TxnError(f"{owner}.{field} = {value} does not fit an unsigned {limit.bit_length()}-bit field")
    return value


def check_fields(op, layout: Layout, assign: bool = True) -> None:
    """Range-check every field of ``op`` against the bits it occupies; with ``assign``,
    store the checked ints back (numpy integers become ints; frozen-safe)."""
    name = layout.name
    for field, limit in layout.limits.items():
        value = getattr(op, field)
        if type(value) is int and 0 <= value <= limit:
            continue
        checked = check_int(name, field, value, limit)
        if assign and checked is not value:
            object.__setattr__(op, field, checked)
    if layout.tail:
        data = getattr(op, layout.tail)
        if not isinstance(data, tuple):
            data = tuple(data.tolist()) if hasattr(data, "tolist") else tuple(data)
        if data and not (all(type(d) is int for d in data) and 0 <= min(data) and max(data) <= 0xFFFFFFFF):
            data = tuple(check_int(name, f"{layout.tail}[{i}]", d, 0xFFFFFFFF) for i, d in enumerate(data))
        if assign:
            object.__setattr__(op, layout.tail, data)


#: Declared classes by their mlir op name, and by their TXN opcode name.
BY_MLIR: dict[str, type] = {}
BY_OPCODE: dict[str, type] = {}


def declare(mlir: Syntax | None = None, txn: Layout | None = None):
    """Class decorator: attach ``MLIR``/``TXN`` and register the op.

    An op only the binary has range-checks its fields on construction (a bad value fails
    where it is made). An npu op that is also a TXN op keeps MLIR's wider range (a signed
    ``arg_plus``) until the encoder checks it.
    """

    def wrap(cls):
        cls.MLIR, cls.TXN = mlir, txn
        if mlir is not None:
            BY_MLIR[mlir.name] = cls
        if txn is not None:
            BY_OPCODE[txn.opcode] = cls
            if mlir is None:
                cls.__post_init__ = lambda self: check_fields(self, txn)
        return cls

    return wrap
