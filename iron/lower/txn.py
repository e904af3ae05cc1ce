"""NPU transaction (TXN) binary, format v0.1: encode, decode, pretty-print.

This is the instruction stream XRT hands to the NPU firmware with each kernel
call (the ``insts.bin`` of an mlir-aie build). It is a 16-byte header followed
by variable-length ops; every word is a little-endian u32.

Header (``XAie_TxnHeader``)::

    byte 0 major (0)  1 minor (1)  2 device generation  3 rows
    byte 4 columns    5 memtile rows   6-7 padding
    word 2 number of ops              word 3 total bytes incl. header

Op layouts, in words (``w0`` low byte is the opcode; ``XAie_OpHdr`` Col/Row
bytes 1-2 are left 0 by mlir-aie and ignored on decode)::

    WRITE       6   op, 0, address, 0 (address high), value, 24
    BLOCKWRITE  4+n op, col | row << 8, address, 16 + 4n, payload[n]
    MASKWRITE   7   op, 0, address, 0, value, mask, 28
    MASKPOLL    7   same layout as MASKWRITE
    NOOP        1   op
    PREEMPT     1   op | level << 8
    LOADPDI     4   op | pdi_id << 16, size, address low, address high
    TCT (sync)  4   op, 16, dir | row << 8 | col << 16,
                    row_num << 8 | col_num << 16 | channel << 24
    DDR_PATCH  12   op, 48, 0, 0, 0, action (0), address, 0, arg_idx, 0,
                    arg_plus low, arg_plus high

Sources: struct layouts from Xilinx/aie-rt ``driver/src/global/xaiegbl.h``;
word placement as written by Xilinx/mlir-aie ``include/aie/Runtime/TxnEncoding.h``
and ``lib/Targets/AIETargetNPU.cpp``; checked against mlir-aie's lit tests
under ``test/Targets/NPU`` (see ``iron/tests/test_txn.py``).

aie-rt's natural ``sizeof(XAie_MaskWrite32Hdr)`` is 32 (u64 alignment pads
the 28-byte struct), so decode also accepts MASKWRITE/MASKPOLL ops whose size
word says 32; encode always writes mlir-aie's 28.
"""

from __future__ import annotations

import operator
import re
import sys
from array import array
from dataclasses import dataclass
from typing import Sequence, Union

from iron.errors import IronError
from iron.target.geometry import MEMTILE_ROWS, TARGETS
from iron.target.registers import split_address
from iron.target.shim_dma import DIRECTION_OF_CODE


class TxnError(IronError, ValueError):
    """A transaction binary or op is malformed or out of range."""


# ---------------------------------------------------------------------------
# The opcode table. Source: Xilinx/mlir-aie include/aie/Runtime/TxnEncoding.h
# (enum TxnOpcode). aie-rt's own xaie_txn.h numbers opcodes >= 5 differently
# on older branches; mlir-aie's header is what the current firmware expects.
OPCODES: dict[str, int] = {
    "WRITE": 0,
    "BLOCKWRITE": 1,
    "BLOCKSET": 2,
    "MASKWRITE": 3,
    "MASKPOLL": 4,
    "NOOP": 5,
    "PREEMPT": 6,
    "MASKPOLL_BUSY": 7,
    "LOADPDI": 8,
    "LOAD_PM_START": 9,
    "CREATE_SCRATCHPAD": 10,
    "UPDATE_STATE_TABLE": 11,
    "UPDATE_REG": 12,
    "UPDATE_SCRATCH": 13,
    "CONFIG_SHIMDMA_BD": 14,
    "CONFIG_SHIMDMA_DMABUF_BD": 15,
    "TCT": 0x80,
    "DDR_PATCH": 0x81,
    "READ_REGS": 0x82,
    "RECORD_TIMER": 0x83,
    "MERGE_SYNC": 0x84,
    "LOAD_PM_END_INTERNAL": 200,
}
OPCODE_NAMES: dict[int, str] = {v: k for k, v in OPCODES.items()}

_OP_WRITE = OPCODES["WRITE"]
_OP_BLOCKWRITE = OPCODES["BLOCKWRITE"]
_OP_MASKWRITE = OPCODES["MASKWRITE"]
_OP_MASKPOLL = OPCODES["MASKPOLL"]
_OP_NOOP = OPCODES["NOOP"]
_OP_PREEMPT = OPCODES["PREEMPT"]
_OP_LOADPDI = OPCODES["LOADPDI"]
_OP_TCT = OPCODES["TCT"]
_OP_DDR_PATCH = OPCODES["DDR_PATCH"]


_U8 = 0xFF
_U16 = 0xFFFF
_U32 = 0xFFFFFFFF
_U64 = (1 << 64) - 1

_HEADER_WORDS = 4
_MASK_SIZES = (28, 32)  # mlir-aie writes 28; aie-rt's padded sizeof is 32


def _check(op: str, field: str, value, limit: int):
    """Return ``value`` as an int in ``[0, limit]`` or raise TxnError."""
    if type(value) is not int:
        try:
            value = operator.index(value)
        except TypeError:
            raise TxnError(f"{op}.{field} must be an integer, got {value!r}") from None
    if value < 0 or value > limit:
        bits = limit.bit_length()
        raise TxnError(f"{op}.{field} = {value} does not fit an unsigned {bits}-bit field")
    return value


def _set_checked(obj, fields: Sequence[tuple[str, int]]):
    name = type(obj).__name__
    for field, limit in fields:
        value = getattr(obj, field)
        checked = _check(name, field, value, limit)
        if checked is not value:
            object.__setattr__(obj, field, checked)


# ---------------------------------------------------------------------------
# Header and ops


@dataclass(frozen=True)
class TxnHeader:
    """The 16-byte header; op count and total size are computed by encode."""

    dev_gen: int
    rows: int
    columns: int
    memtile_rows: int
    major: int = 0
    minor: int = 1

    def __post_init__(self):
        _set_checked(
            self,
            [
                (f, _U8)
                for f in (
                    "dev_gen",
                    "rows",
                    "columns",
                    "memtile_rows",
                    "major",
                    "minor",
                )
            ],
        )


@dataclass(frozen=True)
class Write:
    """WRITE: store ``value`` at absolute register ``address``."""

    address: int
    value: int

    def __post_init__(self):
        _set_checked(self, (("address", _U32), ("value", _U32)))


@dataclass(frozen=True)
class BlockWrite:
    """BLOCKWRITE: store ``data`` words at consecutive addresses from ``address``.

    ``column``/``row`` fill the op's tile word (mlir-aie sets them when the
    op names a tile, else 0); the address itself is already absolute.
    """

    address: int
    data: tuple[int, ...]
    column: int = 0
    row: int = 0

    def __post_init__(self):
        _set_checked(self, (("address", _U32), ("column", _U8), ("row", _U8)))
        data = self.data
        if not isinstance(data, tuple):
            data = tuple(data.tolist()) if hasattr(data, "tolist") else tuple(data)
            object.__setattr__(self, "data", data)
        if data and not all(type(d) is int for d in data):
            data = tuple(_check("BlockWrite", f"data[{i}]", d, _U32) for i, d in enumerate(data))
            object.__setattr__(self, "data", data)
        if data and (min(data) < 0 or max(data) > _U32):
            i = next(i for i, d in enumerate(data) if d < 0 or d > _U32)
            _check("BlockWrite", f"data[{i}]", data[i], _U32)


@dataclass(frozen=True)
class MaskWrite:
    """MASKWRITE: ``*address = (*address & ~mask) | (value & mask)``."""

    address: int
    value: int
    mask: int

    def __post_init__(self):
        _set_checked(self, (("address", _U32), ("value", _U32), ("mask", _U32)))


@dataclass(frozen=True)
class MaskPoll:
    """MASKPOLL: wait until ``*address & mask == value``."""

    address: int
    value: int
    mask: int

    def __post_init__(self):
        _set_checked(self, (("address", _U32), ("value", _U32), ("mask", _U32)))


@dataclass(frozen=True)
class Noop:
    """NOOP: one word, does nothing."""


@dataclass(frozen=True)
class Preempt:
    """PREEMPT: a preemption point at ``level`` (aie-rt XAie_Preempt_level)."""

    level: int

    def __post_init__(self):
        _set_checked(self, (("level", _U8),))


@dataclass(frozen=True)
class LoadPdi:
    """LOADPDI: load PDI ``pdi_id`` (``size`` bytes at 64-bit ``address``)."""

    pdi_id: int
    size: int = 0
    address: int = 0

    def __post_init__(self):
        _set_checked(self, (("pdi_id", _U16), ("size", _U32), ("address", _U64)))


@dataclass(frozen=True)
class Sync:
    """TCT sync: wait for a task-completion token from a DMA channel.

    ``direction`` 0 = S2MM, 1 = MM2S (aie-rt XAie_DmaDirection).
    """

    column: int
    row: int
    direction: int
    channel: int
    column_num: int
    row_num: int

    def __post_init__(self):
        _set_checked(
            self,
            [
                (f, _U8)
                for f in (
                    "column",
                    "row",
                    "direction",
                    "channel",
                    "column_num",
                    "row_num",
                )
            ],
        )


@dataclass(frozen=True)
class DdrPatch:
    """DDR_PATCH: write (address of kernel argument ``arg_idx``) + ``arg_plus``
    to register ``address`` (a shim BD's address word). ``arg_plus`` is 64-bit."""

    address: int
    arg_idx: int
    arg_plus: int

    def __post_init__(self):
        _set_checked(self, (("address", _U32), ("arg_idx", _U32), ("arg_plus", _U64)))


TxnOp = Union[Write, BlockWrite, MaskWrite, MaskPoll, Noop, Preempt, LoadPdi, Sync, DdrPatch]


def header_for(target_name: str, columns: int) -> TxnHeader:
    """The v0.1 header for an iron target (``"npu1"``/``"npu2"``, or an
    mlir-aie device name such as ``"npu2_1col"``) with ``columns`` columns."""
    m = re.fullmatch(r"(npu[12])(?:_\d+col)?", target_name)
    if not m:
        raise TxnError(f"unknown NPU target {target_name!r}; expected one of {sorted(TARGETS)}")
    target = TARGETS[m.group(1)]
    return TxnHeader(dev_gen=target.dev_gen, rows=target.rows, columns=columns, memtile_rows=MEMTILE_ROWS)


# ---------------------------------------------------------------------------
# Encode


def _enc_write(op: Write, out: list):
    out += (_OP_WRITE, 0, op.address, 0, op.value, 24)


def _enc_blockwrite(op: BlockWrite, out: list):
    out += (
        _OP_BLOCKWRITE,
        op.column | op.row << 8,
        op.address,
        16 + 4 * len(op.data),
    )
    out += op.data


def _enc_maskwrite(op: MaskWrite, out: list):
    out += (_OP_MASKWRITE, 0, op.address, 0, op.value, op.mask, 28)


def _enc_maskpoll(op: MaskPoll, out: list):
    out += (_OP_MASKPOLL, 0, op.address, 0, op.value, op.mask, 28)


def _enc_noop(op: Noop, out: list):
    out.append(_OP_NOOP)


def _enc_preempt(op: Preempt, out: list):
    out.append(_OP_PREEMPT | op.level << 8)


def _enc_loadpdi(op: LoadPdi, out: list):
    out += (_OP_LOADPDI | op.pdi_id << 16, op.size, op.address & _U32, op.address >> 32)


def _enc_sync(op: Sync, out: list):
    out += (
        _OP_TCT,
        16,
        op.direction | op.row << 8 | op.column << 16,
        op.row_num << 8 | op.column_num << 16 | op.channel << 24,
    )


def _enc_ddr_patch(op: DdrPatch, out: list):
    out += (
        _OP_DDR_PATCH,
        48,
        0,
        0,
        0,
        0,  # action: 0 = patch
        op.address,
        0,
        op.arg_idx,
        0,
        op.arg_plus & _U32,
        op.arg_plus >> 32,
    )


_ENCODERS = {
    Write: _enc_write,
    BlockWrite: _enc_blockwrite,
    MaskWrite: _enc_maskwrite,
    MaskPoll: _enc_maskpoll,
    Noop: _enc_noop,
    Preempt: _enc_preempt,
    LoadPdi: _enc_loadpdi,
    Sync: _enc_sync,
    DdrPatch: _enc_ddr_patch,
}


def _to_bytes(ws: list) -> bytes:
    arr = array("I", ws)
    if sys.byteorder != "little":
        arr.byteswap()
    return arr.tobytes()


def encode(header: TxnHeader, ops: Sequence[TxnOp]) -> bytes:
    """The v0.1 transaction binary for ``ops``: header (with op count and total
    byte size filled in) followed by each op, as little-endian u32 words."""
    if (header.major, header.minor) != (0, 1):
        raise TxnError(f"only TXN format v0.1 is supported, header says v{header.major}.{header.minor}")
    out: list[int] = [
        header.major | header.minor << 8 | header.dev_gen << 16 | header.rows << 24,
        header.columns | header.memtile_rows << 8,
        0,
        0,
    ]
    encoders = _ENCODERS
    for i, op in enumerate(ops):
        enc = encoders.get(type(op))
        if enc is None:
            raise TxnError(f"TXN op #{i} is not a TxnOp: {op!r}")
        enc(op, out)
    total = 4 * len(out)
    if total > _U32 or len(ops) > _U32:
        raise TxnError(f"transaction too large: {len(ops)} ops, {total} bytes")
    out[2] = len(ops)
    out[3] = total
    return _to_bytes(out)


# ---------------------------------------------------------------------------
# Decode


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


def _opname(opc: int) -> str:
    return OPCODE_NAMES.get(opc, "unknown")


def decode(data: bytes) -> tuple[TxnHeader, list[TxnOp]]:
    """Parse a v0.1 transaction binary into its header and ops.

    Walks the ops by each opcode's layout; the walk must end exactly at the
    header's total size and produce the header's op count. Raises TxnError
    naming the byte offset and opcode on an unknown or unsupported opcode, a
    truncated op, a wrong size word, a non-zero reserved word or a size/count
    mismatch.
    """
    if len(data) < 16:
        raise TxnError(f"TXN binary truncated: {len(data)} bytes, header needs 16")
    w = _words_array(data)
    h0, h1, num_ops, total = w[0], w[1], w[2], w[3]
    major, minor = h0 & 0xFF, (h0 >> 8) & 0xFF
    if (major, minor) != (0, 1):
        raise TxnError(f"unsupported TXN format v{major}.{minor} at byte offset 0; only v0.1 is supported")
    header = TxnHeader(
        dev_gen=(h0 >> 16) & 0xFF,
        rows=h0 >> 24,
        columns=h1 & 0xFF,
        memtile_rows=(h1 >> 8) & 0xFF,
        major=major,
        minor=minor,
    )
    if total % 4 or total < 16:
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
    append = ops.append
    pos = _HEADER_WORDS

    def fail(msg: str):
        opc = w[pos] & 0xFF
        raise TxnError(
            f"TXN op #{len(ops)} at byte offset {4 * pos} (0x{4 * pos:x}), "
            f"opcode 0x{opc:02x} ({_opname(opc)}): {msg}"
        )

    def need(n: int):
        if pos + n > end:
            fail(f"truncated: needs {4 * n} bytes, {4 * (end - pos)} left before end of stream")

    def zero(*idx: int):
        for k in idx:
            if w[pos + k]:
                fail(f"reserved word {k} is 0x{w[pos + k]:08x}, expected 0")

    def size_is(k: int, expected):
        got = w[pos + k]
        if got not in expected:
            fail(f"size word {k} is {got}, expected {' or '.join(map(str, expected))}")
        return got

    while pos < end:
        opc = w[pos] & 0xFF
        if opc == _OP_WRITE:
            need(6)
            size_is(5, (24,))
            zero(1, 3)
            append(Write(w[pos + 2], w[pos + 4]))
            pos += 6
        elif opc == _OP_BLOCKWRITE:
            need(4)
            size = w[pos + 3]
            if size < 16 or size % 4:
                fail(f"size word 3 is {size}, expected 16 + 4 * payload words")
            n = size // 4
            need(n)
            tile = w[pos + 1]
            if tile >> 16:
                fail(f"tile word 1 is 0x{tile:08x}, expected col | row << 8")
            append(
                BlockWrite(
                    w[pos + 2],
                    tuple(w[pos + 4 : pos + n]),
                    column=tile & 0xFF,
                    row=(tile >> 8) & 0xFF,
                )
            )
            pos += n
        elif opc == _OP_MASKWRITE or opc == _OP_MASKPOLL:
            need(7)
            size = size_is(6, _MASK_SIZES)
            need(size // 4)
            zero(1, 3)
            cls = MaskWrite if opc == _OP_MASKWRITE else MaskPoll
            append(cls(w[pos + 2], w[pos + 4], w[pos + 5]))
            pos += size // 4
        elif opc == _OP_TCT:
            need(4)
            size_is(1, (16,))
            a, b = w[pos + 2], w[pos + 3]
            if a >> 24 or b & 0xFF:
                fail("reserved bits set in the sync words")
            append(
                Sync(
                    column=(a >> 16) & 0xFF,
                    row=(a >> 8) & 0xFF,
                    direction=a & 0xFF,
                    channel=b >> 24,
                    column_num=(b >> 16) & 0xFF,
                    row_num=(b >> 8) & 0xFF,
                )
            )
            pos += 4
        elif opc == _OP_DDR_PATCH:
            need(12)
            size_is(1, (48,))
            zero(2, 3, 4, 7, 9)
            if w[pos + 5]:
                fail(f"patch action is {w[pos + 5]}, only 0 (patch) is supported")
            append(DdrPatch(w[pos + 6], w[pos + 8], w[pos + 10] | w[pos + 11] << 32))
            pos += 12
        elif opc == _OP_NOOP:
            append(Noop())
            pos += 1
        elif opc == _OP_PREEMPT:
            append(Preempt((w[pos] >> 8) & 0xFF))
            pos += 1
        elif opc == _OP_LOADPDI:
            need(4)
            append(LoadPdi(w[pos] >> 16, w[pos + 1], w[pos + 2] | w[pos + 3] << 32))
            pos += 4
        elif opc in OPCODE_NAMES:
            fail("opcode not supported by iron's decoder")
        else:
            fail("unknown opcode")

    if len(ops) != num_ops:
        raise TxnError(f"TXN op count mismatch: header says {num_ops} ops, the stream holds {len(ops)}")
    return header, ops


# ---------------------------------------------------------------------------
# Pretty-printing


_DIRECTIONS = {code: d.upper() for code, d in DIRECTION_OF_CODE.items()}


def _where(address: int) -> str:
    col, row, offset = split_address(address)
    return f"(col {col} row {row} +0x{offset:x})"


def format_op(op: TxnOp) -> str:
    """One readable line for ``op``, as ``iron inspect`` prints it."""
    t = type(op)
    if t is Write:
        return f"{'WRITE':<10} 0x{op.address:08x} = 0x{op.value:08x}  {_where(op.address)}"
    if t is MaskWrite:
        return (
            f"{'MASKWRITE':<10} 0x{op.address:08x} = 0x{op.value:08x} mask 0x{op.mask:08x}"
            f"  {_where(op.address)}"
        )
    if t is MaskPoll:
        return (
            f"{'MASKPOLL':<10} 0x{op.address:08x} == 0x{op.value:08x} mask 0x{op.mask:08x}"
            f"  {_where(op.address)}"
        )
    if t is BlockWrite:
        shown = " ".join(f"0x{d:08x}" for d in op.data[:8])
        more = " ..." if len(op.data) > 8 else ""
        return (
            f"{'BLOCKWRITE':<10} 0x{op.address:08x} <- {len(op.data)} words [{shown}{more}]"
            f"  {_where(op.address)}"
        )
    if t is DdrPatch:
        return (
            f"{'DDR_PATCH':<10} 0x{op.address:08x} <- &arg{op.arg_idx} + 0x{op.arg_plus:x}"
            f"  {_where(op.address)}"
        )
    if t is Sync:
        return (
            f"{'SYNC':<10} col {op.column} row {op.row} "
            f"{_DIRECTIONS.get(op.direction, f'dir {op.direction}')}"
            f" ch {op.channel} ncols {op.column_num} nrows {op.row_num}"
        )
    if t is LoadPdi:
        return f"{'LOADPDI':<10} id {op.pdi_id} size {op.size} addr 0x{op.address:x}"
    if t is Preempt:
        return f"{'PREEMPT':<10} level {op.level}"
    if t is Noop:
        return "NOOP"
    raise TxnError(f"not a TxnOp: {op!r}")
