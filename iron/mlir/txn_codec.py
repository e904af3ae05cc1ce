"""NPU transaction (TXN) binary, format v0.1: encode, decode, pretty-print.

This is the instruction stream XRT hands to the NPU firmware with each kernel
call (the ``insts.bin`` of an mlir-aie build): a 16-byte header followed by
variable-length ops, every word a little-endian u32. Opcodes and header facts are
:mod:`iron.target.txn`; each op's word layout is declared with the op
(:class:`~iron.mlir.decl.Layout`): here for the ops only the binary has, in
:mod:`iron.mlir.ir` for the ones that are npu ops as they stand (``Sync`` = TCT,
``DdrPatch`` = ``AddressPatch``). Encoder, decoder, range checks and
:func:`format_op` read those declarations.

Sources: struct layouts from Xilinx/aie-rt ``driver/src/global/xaiegbl.h``;
word placement as written by Xilinx/mlir-aie ``include/aie/Runtime/TxnEncoding.h``
and ``lib/Targets/AIETargetNPU.cpp``; checked against mlir-aie's lit tests
under ``test/Targets/NPU`` (see ``iron/tests/test_txn.py``).
"""

from __future__ import annotations

import re
import sys
from array import array
from dataclasses import dataclass, fields
from typing import Sequence, Union

from iron.mlir import ir
from iron.mlir.decl import BY_OPCODE, SIZE, Bits, Layout, TxnError, check_fields, check_int, declare
from iron.target.geometry import MEMTILE_ROWS, TARGETS
from iron.target.registers import split_address
from iron.target.txn import HEADER_WORDS, MASK_OP_SIZES, OPCODE_NAMES, OPCODES, VERSION
from iron.target.shim_dma import DIRECTION_OF_CODE

__all__ = ["OPCODES", "OPCODE_NAMES", "TxnError"]  # re-exported with the ops below

_BYTE = 8  # bits
_WHERE = "  {where}"
_ADDRESS_VALUE = [0, [Bits("address")], 0, [Bits("value")]]


@dataclass(frozen=True)
@declare(txn=Layout("WRITE", "Write", "WRITE", "0x{address:08x} = 0x{value:08x}" + _WHERE,
                    [*_ADDRESS_VALUE, SIZE]))  # fmt: skip
class Write:
    """WRITE: store ``value`` at absolute register ``address`` (op, 0, address, 0, value, 24)."""

    address: int
    value: int


@dataclass(frozen=True)
@declare(txn=Layout("BLOCKWRITE", "BlockWrite", "BLOCKWRITE",
                    "0x{address:08x} <- {count} words [{shown}]" + _WHERE,
                    [[Bits("column", 0, _BYTE), Bits("row", 8, _BYTE)], [Bits("address")], SIZE], tail="data"))  # fmt: skip
class BlockWrite:
    """BLOCKWRITE: store ``data`` words at consecutive addresses from ``address``
    (op, col | row << 8, address, 16 + 4n, payload[n]).

    ``column``/``row`` fill the op's tile word (mlir-aie sets them when the
    op names a tile, else 0); the address itself is already absolute.
    """

    address: int
    data: tuple[int, ...]
    column: int = 0
    row: int = 0


def _mask_layout(opcode: str, name: str, relation: str) -> Layout:
    """MASKWRITE and MASKPOLL share one layout: op, 0, address, 0, value, mask, 28."""
    fmt = f"0x{{address:08x}} {relation} 0x{{value:08x}} mask 0x{{mask:08x}}" + _WHERE
    return Layout(opcode, name, opcode, fmt, [*_ADDRESS_VALUE, [Bits("mask")], SIZE], sizes=MASK_OP_SIZES)


@dataclass(frozen=True)
@declare(txn=_mask_layout("MASKWRITE", "MaskWrite", "="))
class MaskWrite:
    """MASKWRITE: ``*address = (*address & ~mask) | (value & mask)``."""

    address: int
    value: int
    mask: int


@dataclass(frozen=True)
@declare(txn=_mask_layout("MASKPOLL", "MaskPoll", "=="))
class MaskPoll:
    """MASKPOLL: wait until ``*address & mask == value``."""

    address: int
    value: int
    mask: int


@dataclass(frozen=True)
@declare(txn=Layout("NOOP", "Noop", "NOOP", ""))
class Noop:
    """NOOP: one word, does nothing."""


@dataclass(frozen=True)
@declare(txn=Layout("PREEMPT", "Preempt", "PREEMPT", "level {level}", head=[Bits("level", 8, _BYTE)]))
class Preempt:
    """PREEMPT: a preemption point at ``level`` (aie-rt XAie_Preempt_level), op | level << 8."""

    level: int


@dataclass(frozen=True)
@declare(txn=Layout("LOADPDI", "LoadPdi", "LOADPDI", "id {pdi_id} size {size} addr 0x{address:x}",
                    [[Bits("size")], [Bits("address")], [Bits("address", lo=32)]],
                    head=[Bits("pdi_id", 16, 16)]))  # fmt: skip
class LoadPdi:
    """LOADPDI: load PDI ``pdi_id`` (``size`` bytes at 64-bit ``address``):
    op | pdi_id << 16, size, address low, address high."""

    pdi_id: int
    size: int = 0
    address: int = 0


Sync = ir.Sync  # TCT
DdrPatch = ir.AddressPatch  # DDR_PATCH

TxnOp = Union[Write, BlockWrite, MaskWrite, MaskPoll, Noop, Preempt, LoadPdi, Sync, DdrPatch]

# --------------------------------------------------------------------------- header
#: Header words 0 and 1 (aie-rt ``XAie_TxnHeader``); words 2 and 3 are the op count
#: and the total byte size.
_HEADER = (
    (Bits("major", 0, _BYTE), Bits("minor", 8, _BYTE), Bits("dev_gen", 16, _BYTE), Bits("rows", 24, _BYTE)),
    (Bits("columns", 0, _BYTE), Bits("memtile_rows", 8, _BYTE)),
)


@dataclass(frozen=True)
class TxnHeader:
    """The 16-byte header; op count and total size are computed by encode."""

    dev_gen: int
    rows: int
    columns: int
    memtile_rows: int
    major: int = VERSION[0]
    minor: int = VERSION[1]

    def __post_init__(self):
        for f in fields(self):
            object.__setattr__(self, f.name, check_int("TxnHeader", f.name, getattr(self, f.name), 0xFF))


def header_for(target_name: str, columns: int) -> TxnHeader:
    """The v0.1 header for an iron target (``"npu1"``/``"npu2"``, or an
    mlir-aie device name such as ``"npu2_1col"``) with ``columns`` columns."""
    m = re.fullmatch(r"(npu[12])(?:_\d+col)?", target_name)
    if not m:
        raise TxnError(f"unknown NPU target {target_name!r}; expected one of {sorted(TARGETS)}")
    target = TARGETS[m.group(1)]
    return TxnHeader(dev_gen=target.dev_gen, rows=target.rows, columns=columns, memtile_rows=MEMTILE_ROWS)


# --------------------------------------------------------------------------- bits <-> words
def _compiled(parts) -> tuple:
    """``(field, at, mask, lo)`` of each part, and the mask of all bits the parts cover."""
    parts = tuple((b.field, b.at, (1 << b.width) - 1, b.lo) for b in parts)
    return parts, sum(mask << at for _f, at, mask, _lo in parts)


def _pack(parts, values: dict) -> int:
    word = 0
    for field, at, mask, lo in parts:
        word |= ((values[field] >> lo) & mask) << at
    return word


def _unpack(parts, word: int, values: dict) -> None:
    for field, at, mask, lo in parts:
        values[field] = values.get(field, 0) | ((word >> at) & mask) << lo


class _Plan:
    """A layout made ready for the codec: word kinds and bit tuples resolved once."""

    def __init__(self, cls, layout: Layout):
        self.cls, self.layout = cls, layout
        self.opcode = OPCODES[layout.opcode]
        self.head = _compiled(layout.head)[0]
        #: words 1..: ("fixed", value), ("size", None) or ("bits", (parts, covered))
        self.words = tuple(
            ("size", None) if w is SIZE else ("fixed", w) if isinstance(w, int) else ("bits", _compiled(w))
            for w in layout.words
        )
        self.fixed = 1 + len(self.words)
        self.size_word = 1 + layout.words.index(SIZE) if SIZE in layout.words else None
        self.check = cls.MLIR is not None  # npu ops as they stand: checked when encoded (decl.declare)


_PLANS = {cls: _Plan(cls, cls.TXN) for cls in BY_OPCODE.values()}
_HEADER_PARTS = tuple(_compiled(word)[0] for word in _HEADER)


# --------------------------------------------------------------------------- encode
def _words_of(op, plan: _Plan, out: list) -> None:
    values = vars(op)
    tail = values[plan.layout.tail] if plan.layout.tail else ()
    size = 4 * (plan.fixed + len(tail))
    out.append(plan.opcode | _pack(plan.head, values))
    for kind, spec in plan.words:
        out.append(size if kind == "size" else spec if kind == "fixed" else _pack(spec[0], values))
    out += tail


def _to_bytes(ws: list) -> bytes:
    arr = array("I", ws)
    if sys.byteorder != "little":
        arr.byteswap()
    return arr.tobytes()


def encode(header: TxnHeader, ops: Sequence[TxnOp]) -> bytes:
    """The v0.1 transaction binary for ``ops``: header (with op count and total
    byte size filled in) followed by each op, as little-endian u32 words."""
    if (header.major, header.minor) != VERSION:
        raise TxnError(f"only TXN format v0.1 is supported, header says v{header.major}.{header.minor}")
    out: list[int] = [_pack(_HEADER_PARTS[0], vars(header)), _pack(_HEADER_PARTS[1], vars(header)), 0, 0]
    plans = _PLANS
    for i, op in enumerate(ops):
        plan = plans.get(type(op))
        if plan is None:
            raise TxnError(f"TXN op #{i} is not a TxnOp: {op!r}")
        if plan.check:
            check_fields(op, plan.layout, assign=False)
        _words_of(op, plan, out)
    total = 4 * len(out)
    if total > 0xFFFFFFFF or len(ops) > 0xFFFFFFFF:
        raise TxnError(f"transaction too large: {len(ops)} ops, {total} bytes")
    out[2] = len(ops)
    out[3] = total
    return _to_bytes(out)


# --------------------------------------------------------------------------- decode
def words(data: bytes) -> list[int]:
    """``data`` as a list of little-endian u32 words."""
    return _words_array(data).tolist()


def _words_array(data: bytes) -> array:
    if len(data) % 4:
        raise TxnError(f"TXN binary length {len(data)} is not a multiple of 4 bytes")
    arr = array("I")
    arr.frombytes(bytes(data))
    if sys.byteorder != "little":
        arr.byteswap()
    return arr


#: opcode -> plan of every op the decoder reads.
_DECODABLE = {plan.opcode: plan for plan in _PLANS.values()}


def _decode_op(w, pos: int, end: int, fail) -> tuple[object, int]:
    """The op at word ``pos`` and the position after it; ``fail(msg)`` raises."""
    opc = w[pos] & 0xFF
    plan = _DECODABLE.get(opc)
    if plan is None:
        fail("opcode not supported by iron's decoder" if opc in OPCODE_NAMES else "unknown opcode")
    layout, fixed = plan.layout, plan.fixed
    n = fixed
    if pos + n <= end and plan.size_word is not None:
        k = plan.size_word
        size = w[pos + k]
        if layout.tail:
            if size < 4 * fixed or size % 4:
                fail(f"size word {k} is {size}, expected {4 * fixed} + 4 * payload words")
        elif size not in (layout.sizes or (4 * fixed,)):
            fail(f"size word {k} is {size}, expected {' or '.join(map(str, layout.sizes or (4 * fixed,)))}")
        n = size // 4
    if pos + n > end:
        fail(f"truncated: needs {4 * n} bytes, {4 * (end - pos)} left before end of stream")
    values: dict[str, int] = {}
    _unpack(plan.head, w[pos], values)
    for k, (kind, spec) in enumerate(plan.words, 1):
        word = w[pos + k]
        if kind == "fixed":
            if word != spec:
                fail(f"reserved word {k} is 0x{word:08x}, expected {spec}")
        elif kind == "bits":
            parts, covered = spec
            if word & ~covered:
                fail(
                    f"word {k} is 0x{word:08x}: bits outside its fields ({', '.join(p[0] for p in parts)}) set"
                )
            _unpack(parts, word, values)
    if layout.tail:
        values[layout.tail] = tuple(w[pos + fixed : pos + n])
    # Every field came out of its bits, so it is in range: skip the constructor's check.
    op = object.__new__(plan.cls)
    op.__dict__.update(values)
    return op, pos + n


def decode(data: bytes) -> tuple[TxnHeader, list[TxnOp]]:
    """Parse a v0.1 transaction binary into its header and ops.

    Walks the ops by each opcode's layout; the walk must end exactly at the
    header's total size and produce the header's op count. Raises TxnError
    naming the byte offset and opcode on an unknown or unsupported opcode, a
    truncated op, a wrong size word, a non-zero reserved word or a size/count
    mismatch.
    """
    if len(data) < 4 * HEADER_WORDS:
        raise TxnError(f"TXN binary truncated: {len(data)} bytes, header needs {4 * HEADER_WORDS}")
    w = _words_array(data)
    values: dict[str, int] = {}
    _unpack(_HEADER_PARTS[0], w[0], values)
    _unpack(_HEADER_PARTS[1], w[1], values)
    num_ops, total = w[2], w[3]
    if (values["major"], values["minor"]) != VERSION:
        raise TxnError(
            f"unsupported TXN format v{values['major']}.{values['minor']} at byte offset 0; only v0.1 is supported"
        )
    header = TxnHeader(**values)
    if total % 4 or total < 4 * HEADER_WORDS:
        raise TxnError(f"TXN header total size {total} bytes is invalid (byte offset 12)")
    if total > len(data):
        raise TxnError(f"TXN binary truncated: header says {total} bytes, got {len(data)}")
    if total < len(data):
        raise TxnError(
            f"TXN size mismatch: header says {total} bytes, got {len(data)} "
            f"({len(data) - total} trailing bytes)"
        )
    end = total // 4
    ops: list[TxnOp] = []
    pos = HEADER_WORDS

    def fail(msg: str):
        opc = w[pos] & 0xFF
        raise TxnError(
            f"TXN op #{len(ops)} at byte offset {4 * pos} (0x{4 * pos:x}), "
            f"opcode 0x{opc:02x} ({OPCODE_NAMES.get(opc, 'unknown')}): {msg}"
        )

    while pos < end:
        op, pos = _decode_op(w, pos, end, fail)
        ops.append(op)
    if len(ops) != num_ops:
        raise TxnError(f"TXN op count mismatch: header says {num_ops} ops, the stream holds {len(ops)}")
    return header, ops


# --------------------------------------------------------------------------- format
_DIRECTIONS = {code: d.upper() for code, d in DIRECTION_OF_CODE.items()}
_SHOWN_WORDS = 8


def _derived(op) -> dict:
    """Names a layout's ``fmt`` may use besides the op's fields."""
    out = {}
    address = getattr(op, "address", getattr(op, "addr", None))
    if address is not None:
        col, row, offset = split_address(address)
        out["where"] = f"(col {col} row {row} +0x{offset:x})"
    if hasattr(op, "direction"):
        out["direction_name"] = _DIRECTIONS.get(op.direction, f"dir {op.direction}")
    data = getattr(op, "data", None)
    if data is not None:
        more = " ..." if len(data) > _SHOWN_WORDS else ""
        out["count"] = len(data)
        out["shown"] = " ".join(f"0x{d:08x}" for d in data[:_SHOWN_WORDS]) + more
    return out


def format_op(op: TxnOp) -> str:
    """One readable line for ``op``, as ``iron inspect`` prints it."""
    layout = getattr(type(op), "TXN", None)
    if layout is None:
        raise TxnError(f"not a TxnOp: {op!r}")
    if not layout.fmt:
        return layout.label
    values = {f.name: getattr(op, f.name) for f in fields(op)}
    return f"{layout.label:<10} " + layout.fmt.format(**values, **_derived(op))


def describe(op: TxnOp) -> str:
    """``Name(format_op line)``: how error messages quote an op."""
    return f"{type(op).TXN.name}({format_op(op)})"
