"""AIE2 memtile and compute-tile DMAs: BD layouts, channel registers, locks, address maps.

The shim's table is :mod:`iron.target.shim_dma`; this is the one table for the two other
DMA kinds. Sources, each named once here:

* BD word layouts: Xilinx/mlir-aie ``lib/Dialect/AIEX/Transforms/AIEDmaToNpu.cpp`` at
  0155ebd7c8b77cd6846781dd0597a7adee9a7620, ``WriteBdToBlockWritePattern``: how an
  ``aiex.npu.writebd`` at a memtile row (8 words) or a compute-tile row (6 words) becomes
  the BD image, field by field. Field names are the writebd attribute names. The memtile
  ``d2_size`` ("TODO: D2Size") is left out on purpose, as mlir-aie leaves it out (a value
  given is ignored, so iron writes the same words: test/Targets/NPU/npu_blockwrite_instgen.mlir
  gives ``d2_size = 1`` and CHECKs word 4 without it). The static (CDO) path writes it, and the
  fourth dimension's step ``d3_stride``: ``D2_Wrap`` word 4 [26:17], ``D3_Stepsize`` word 5
  [16:0], as the real compiler's ``--convert-aie-to-transaction`` (andrej/mlir-aie a9e39fae)
  writes a 4-D memtile ``aie.dma_bd`` (iron/tests/test_sim_static_dma.py compares them).
* BD addresses: memtile BD n at ``0xA0000 + 0x20 * n`` (48 BDs), compute-tile BD n at
  ``0x1D000 + 0x20 * n`` (16 BDs), the ``getDmaBdAddress`` offsets of mlir-aie's AIE2 target
  model; the word an address is patched or mask-written into (``getDmaBdAddressOffset``):
  memtile word 1 (``Base_Address`` [18:0], 32-bit words), compute tile word 0
  (``Base_Address`` [27:14], 32-bit words), as ``AIEDMATasksToNPU.cpp`` (same commit,
  ``setAddressForSingleBD``) masks them: ``0x0007FFFF`` and ``0x0FFFC000``.
* Channel registers: memtile ``DMA_S2MM_<c>_Ctrl`` at ``0xA0600 + 8c`` with its
  ``Start_Queue`` at +4, ``DMA_MM2S_<c>_Ctrl`` at ``0xA0630 + 8c`` (6 channels each way),
  as upstream's hand-written passthrough (programming_examples/basic/passthrough_dmas/
  aie.mlir@b8c192b1: S2MM_0 Ctrl 0xA0600, queue 0xA0604, S2MM_1 0xA0608/0xA060C, MM2S_0 queue
  0xA0634) and unrolled_repeat_pass.mlir@ef798b0d (656900 = 0xA0604, 656948 = 0xA0634)
  program them; compute-tile memory module ``DMA_S2MM_<c>_Ctrl`` at ``0x1DE00 + 8c``,
  ``DMA_MM2S_<c>_Ctrl`` at ``0x1DE10 + 8c`` (2 channels each way; andrej/mlir-aie
  programming_examples/reconfig/another-test/aie.mlir resets them at 0x1DE00 ... 0x1DE18).
  Start_Queue fields as the shim's (:mod:`iron.target.shim_dma`), except that the start BD
  is 6 bits on a memtile (48 BDs) and 4 bits on a compute tile (mlir-aie PR #3393,
  ``PushQueuetoWrite32Pattern``: "START_BD_ID is 6 bits on a mem tile"). Ctrl bits sim
  reads: ``Enable_Out_of_Order`` [3] (the shim's bit, set by passthrough_dmas/aie.mlir's
  0x308 / 0x408) and the channel ``Reset`` [1] that memtile and compute-tile channels have
  (docs/design.md "Running an artifact many times", option 1; mlir-aie
  ``AIELowerDmaChannelReset.cpp`` pulses it).
* Locks: a memtile DMA names its own tile's locks 64..127 (west neighbour 0..63, east
  128..191): mlir-aie test/bd-chains-and-dma-tasks/dma-tasks-to-npu/dma_task_with_locks.mlir
  ("Memtile internal locks are accessed at base index = getNumLocks() (64), so logical lock
  ID 0 becomes physical lock ID 64"). A compute-tile DMA names its 16 locks 0..15.
  ``lock_acq_val`` / ``lock_rel_val`` are 7-bit two's complement: a negative acquire value
  ``-v`` waits until the lock holds at least ``v`` and takes ``v`` ("For AcquireGreaterEqual,
  negate the value to signal the hardware to use >= comparison instead of == comparison",
  AIEDMATasksToNPU.cpp); so ``lock_acq_val = 127`` is -1. A non-negative acquire value waits
  for the lock to equal it (sim then leaves the value as it is: an assumption, no public
  source says more); a release adds its value.
* Memtile address map: on AIE2 (npu1) a memtile DMA addresses its own memory from 0; on
  AIE2P (npu2) the west neighbour is at 0, its own memory at one memtile size (0x80000 bytes)
  and the east neighbour after that (AIEDMATasksToNPU.cpp ``setAddressForSingleBD``: "On AIE2
  (NPU1), memtile DMAs address local memory directly starting at 0. Only add the offset for
  AIE2p."). sim models the own memory only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from iron.errors import IronError
from iron.target.geometry import CORE_DATA_MEMORY, MEMTILE_DMA_CHANNELS, MEMTILE_MEMORY, MEMTILE_ROW, SHIM_ROW
from iron.target.shim_dma import BdField

MEMTILE_BD_BASE = 0xA0000
TILE_BD_BASE = 0x1D000
BD_STRIDE = 0x20

_MEMTILE_FIELDS = (
    BdField("buffer_length", 0, 0, 17),
    BdField("out_of_order_id", 0, 17, 6),
    BdField("packet_id", 0, 23, 5),
    BdField("packet_type", 0, 28, 3),
    BdField("enable_packet", 0, 31, 1),
    BdField("buffer_offset", 1, 0, 19),  # Base_Address, 32-bit words
    BdField("use_next_bd", 1, 19, 1),
    BdField("next_bd", 1, 20, 6),
    BdField("d0_zero_before", 1, 26, 6),
    BdField("d0_stride", 2, 0, 17),
    BdField("d0_size", 2, 17, 10),
    BdField("d1_stride", 3, 0, 17),
    BdField("d1_size", 3, 17, 10),
    BdField("d1_zero_before", 3, 27, 5),
    BdField("d2_stride", 4, 0, 17),
    BdField("d2_size", 4, 17, 10),  # D2_Wrap: written by the CDO path only (MEMTILE_UNWRITTEN)
    BdField("d2_zero_before", 4, 27, 4),
    BdField("d3_stride", 5, 0, 17),  # D3_Stepsize: the fourth dimension, no wrap (runs to the length)
    BdField("d0_zero_after", 5, 17, 6),
    BdField("d1_zero_after", 5, 23, 5),
    BdField("d2_zero_after", 5, 28, 4),
    BdField("iteration_stride", 6, 0, 17),
    BdField("iteration_size", 6, 17, 6),
    BdField("iteration_current", 6, 23, 6),
    BdField("lock_acq_id", 7, 0, 8),
    BdField("lock_acq_val", 7, 8, 7),
    BdField("lock_acq_enable", 7, 15, 1),
    BdField("lock_rel_id", 7, 16, 8),
    BdField("lock_rel_val", 7, 24, 7),
    BdField("valid_bd", 7, 31, 1),
)
_TILE_FIELDS = (
    BdField("buffer_length", 0, 0, 14),
    BdField("buffer_offset", 0, 14, 14),  # Base_Address, 32-bit words (writebd gives bytes)
    BdField("packet_type", 1, 16, 3),
    BdField("packet_id", 1, 19, 5),
    BdField("out_of_order_id", 1, 24, 6),
    BdField("enable_packet", 1, 30, 1),
    BdField("d0_stride", 2, 0, 13),
    BdField("d1_stride", 2, 13, 13),
    BdField("d2_stride", 3, 0, 13),
    BdField("d0_size", 3, 13, 8),
    BdField("d1_size", 3, 21, 8),
    BdField("iteration_stride", 4, 0, 13),
    BdField("iteration_size", 4, 13, 6),
    BdField("iteration_current", 4, 19, 6),
    BdField("lock_acq_id", 5, 0, 4),
    BdField("lock_acq_val", 5, 5, 7),
    BdField("lock_acq_enable", 5, 12, 1),
    BdField("lock_rel_id", 5, 13, 4),
    BdField("lock_rel_val", 5, 18, 7),
    BdField("valid_bd", 5, 25, 1),
    BdField("use_next_bd", 5, 26, 1),
    BdField("next_bd", 5, 27, 4),
)
#: Fields whose writebd value is a signed 7-bit number (two's complement in the register).
SIGNED = ("lock_acq_val", "lock_rel_val")


@dataclass(frozen=True)
class DmaKind:
    """The DMA of one tile kind: its BDs, channels, locks and memory."""

    name: str  # "memtile" or "tile"
    bd_base: int
    bd_count: int
    words: int
    fields: tuple[BdField, ...]
    address_word: int  # the BD word holding Base_Address
    address_mask: int
    s2mm_ctrl: int
    mm2s_ctrl: int
    channels: int
    start_bd_bits: int
    locks: int
    own_lock_base: int  # lock number of the tile's own lock 0 as its DMA names it
    memory: int  # bytes
    offset_in_bytes: bool  # the writebd buffer_offset counts bytes (compute tile) or words
    #: Dimensions a BD's address pattern may have (mlir-aie ``DMABDOp::verify``: 4 on a memtile,
    #: 3 on a compute tile). The outermost one has a step and no wrap: with all of them given,
    #: the BD's length, not that dimension's size, ends the transfer (upstream's whole_array
    #: matmul streams a 3072-element object with a 4-D memtile pattern of 768 elements).
    pattern_dims: int = 3

    def field(self, name: str) -> BdField:
        return next(f for f in self.fields if f.name == name)


MEMTILE = DmaKind(
    "memtile", MEMTILE_BD_BASE, 48, 8, _MEMTILE_FIELDS, 1, 0x0007FFFF, 0xA0600, 0xA0630,
    MEMTILE_DMA_CHANNELS, 6, 64, 64, MEMTILE_MEMORY, False, 4,
)  # fmt: skip
TILE = DmaKind(
    "tile", TILE_BD_BASE, 16, 6, _TILE_FIELDS, 0, 0x0FFFC000, 0x1DE00, 0x1DE10, 2, 4, 16, 0,
    CORE_DATA_MEMORY, True, 3,
)  # fmt: skip
#: Largest value an AIE2 lock holds (mlir-aie ``AIE2TargetModel::getMaxLockValue`` = 0x3F,
#: include/aie/Dialect/AIE/IR/AIETargetModel.h at a9e39faeb1447025b504ac10a28098fcdd467255).
LOCK_VALUE_MAX = 0x3F
#: Fields mlir-aie's writebd lowering leaves out of a memtile BD (ignored, as there; the static
#: path, aie-rt's ``XAie_DmaSetMultiDimAddr`` through ``configureBdInBlock``, writes them).
MEMTILE_UNWRITTEN = ("d2_size",)
#: Fields a compute-tile BD does not have (memtile-only padding, d2 wrap).
TILE_ABSENT = ("d0_zero_before", "d1_zero_before", "d2_zero_before", "d0_zero_after",
               "d1_zero_after", "d2_zero_after", "d2_size")  # fmt: skip
#: writebd fields mlir-aie reads for shim BDs only (ignored on other tiles).
SHIM_ONLY = ("burst_length",)

#: Bytes of one memtile's memory (the npu2 own-memory base, see the module docstring).
MEMTILE_OWN_BASE = {"npu1": 0, "npu2": MEMTILE_MEMORY}
#: The own-memory base the static (CDO) path writes into a memtile BD on every target: mlir-aie's
#: ``configureBdInBlock`` (lib/Targets/AIERT.cpp, andrej/mlir-aie a9e39faeb1447025b504ac10a28098fcdd467255)
#: adds ``getMemLocalBaseAddress`` (own memtile: ``getMemTileSize()``) on AIE2 too, unlike the
#: DMA-task path above; the real compiler's ``--convert-aie-to-transaction`` writes it
#: (iron/tests/test_sim_static_dma.py). A DMA reading an npu1 BD address past one memtile takes it so.
STATIC_MEMTILE_OWN_BASE = MEMTILE_MEMORY


#: Bytes of a core's stack below its buffers (mlir-aie ``CoreOp`` ``stack_size`` default, 0x400) and
#: the banks of a tile's data memory (``getNumBanks``: 4 on a core tile, 8 on a memtile), which
#: ``aie-assign-buffer-addresses`` places buffers in round-robin; seen in the real compiler's output
#: (andrej/mlir-aie a9e39fae): add_one_using_dma's core buffers at 1024, 16384, 32768, 49152, its
#: memtile buffers at 0, 65536, 131072, 196608.
STACK_SIZE = 0x400
MEMORY_BANKS = {"tile": 4, "memtile": 8}


#: Lock value registers (``Lock<n>_value``): compute tile ``0x1F000 + 0x10 n``, memtile
#: ``0xC0000 + 0x10 n`` (mlir-aie ``AIE2TargetModel::getLocalLockAddress``,
#: lib/Dialect/AIE/IR/AIETargetModel.cpp at a9e39faeb1447025b504ac10a28098fcdd467255, which
#: ``aiex.set_lock`` lowers to a write32 of, AIELowerSetLock.cpp).
LOCK_VALUE_BASE = {"tile": 0x1F000, "memtile": 0xC0000}
LOCK_VALUE_STRIDE = 0x10


def lock_register(kind: DmaKind, lock_id: int) -> int:
    """Offset of the value register of the tile's own lock ``lock_id``."""
    if not 0 <= lock_id < kind.locks:
        raise IronError(f"{kind.name} lock id {lock_id} out of range 0..{kind.locks - 1}")
    return LOCK_VALUE_BASE[kind.name] + LOCK_VALUE_STRIDE * lock_id


def lock_of_register(kind: DmaKind, offset: int) -> int | None:
    """The lock whose value register ``offset`` is (None: not one)."""
    rel = offset - LOCK_VALUE_BASE[kind.name]
    if rel < 0 or rel % LOCK_VALUE_STRIDE or rel // LOCK_VALUE_STRIDE >= kind.locks:
        return None
    return rel // LOCK_VALUE_STRIDE


def memtile_own_address(arch: str, address: int) -> int:
    """Byte offset in a memtile's own memory of a BD address (either path's convention)."""
    base = MEMTILE_OWN_BASE.get(arch, 0)
    if base == 0 and address >= STATIC_MEMTILE_OWN_BASE:
        base = STATIC_MEMTILE_OWN_BASE
    return address - base


CTRL_RESET_BIT = 1
CTRL_ENABLE_OUT_OF_ORDER_BIT = 3
_QUEUE_OFFSET = 4
_REPEAT_SHIFT = 16
_REPEAT_MASK = 0xFF
_TOKEN_BIT = 31


def kind_of_row(row: int) -> DmaKind:
    """The DMA kind of a non-shim row."""
    if row == SHIM_ROW:
        raise IronError("row 0 holds shim DMAs: see iron.target.shim_dma")
    return MEMTILE if row == MEMTILE_ROW else TILE


def bd_address(kind: DmaKind, bd_id: int) -> int:
    """Tile-relative offset of word 0 of BD ``bd_id``."""
    if not 0 <= bd_id < kind.bd_count:
        raise IronError(f"{kind.name} BD id {bd_id} out of range 0..{kind.bd_count - 1}")
    return kind.bd_base + BD_STRIDE * bd_id


def address_register(kind: DmaKind, bd_id: int) -> int:
    """Offset of the BD word holding the buffer address (mask-written by DMA tasks)."""
    return bd_address(kind, bd_id) + 4 * kind.address_word


def channel_ctrl(kind: DmaKind, direction: str, channel: int) -> int:
    """Offset of DMA_<DIR>_<channel>_Ctrl."""
    d = str(direction).lower()
    if d not in ("s2mm", "mm2s") or not 0 <= channel < kind.channels:
        raise IronError(
            f"no {kind.name} DMA channel {direction!r} {channel}; directions s2mm/mm2s, "
            f"channels 0..{kind.channels - 1}"
        )
    return (kind.s2mm_ctrl if d == "s2mm" else kind.mm2s_ctrl) + 8 * channel


def start_queue(kind: DmaKind, direction: str, channel: int) -> int:
    """Offset of DMA_<DIR>_<channel>_Start_Queue."""
    return channel_ctrl(kind, direction, channel) + _QUEUE_OFFSET


def channel_registers(kind: DmaKind) -> dict[int, tuple[str, int, str]]:
    """Every Ctrl / Start_Queue offset -> (direction, channel, "ctrl" | "queue")."""
    out = {}
    for d in ("s2mm", "mm2s"):
        for c in range(kind.channels):
            out[channel_ctrl(kind, d, c)] = (d, c, "ctrl")
            out[start_queue(kind, d, c)] = (d, c, "queue")
    return out


def pack_start_queue(kind: DmaKind, start_bd: int, repeat: int = 0, issue_token: bool = False) -> int:
    """Start_Queue value: run BD chain ``start_bd`` 1 + ``repeat`` times."""
    if not 0 <= start_bd < min(kind.bd_count, 1 << kind.start_bd_bits):
        raise IronError(f"{kind.name} start_bd={start_bd} out of range 0..{kind.bd_count - 1}")
    if not 0 <= repeat <= _REPEAT_MASK:
        raise IronError(f"repeat={repeat} out of range 0..{_REPEAT_MASK}")
    return start_bd | repeat << _REPEAT_SHIFT | int(bool(issue_token)) << _TOKEN_BIT


def unpack_start_queue(kind: DmaKind, value: int) -> dict:
    """Fields of a Start_Queue value (start BD, repeat, issue_token)."""
    return {
        "start_bd": value & ((1 << kind.start_bd_bits) - 1),
        "repeat": value >> _REPEAT_SHIFT & _REPEAT_MASK,
        "issue_token": bool(value >> _TOKEN_BIT & 1),
    }


def _raw(name: str, value: int, f: BdField, kind: DmaKind) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise IronError(f"{kind.name} BD field {name} must be an int, got {value!r}")
    if name in SIGNED:
        if not -(1 << (f.width - 1)) <= value < (1 << f.width):
            raise IronError(f"{kind.name} BD field {name}={value} out of range -64..127")
        return value & ((1 << f.width) - 1)
    if not 0 <= value < (1 << f.width):
        raise IronError(f"{kind.name} BD field {name}={value} out of range 0..{(1 << f.width) - 1}")
    return value


def pack_bd(kind: DmaKind, **fields: int) -> tuple[int, ...]:
    """BD words of writebd-style field values (missing ones 0). A compute tile's
    ``buffer_offset`` is in bytes (mlir-aie divides it by 4), a memtile's in words."""
    if kind is TILE:
        extra = sorted(k for k in fields if k in TILE_ABSENT and fields[k])
        if extra:
            raise IronError(f"aiex.npu.writebd: a compute-tile BD has no {', '.join(extra)}")
    known = {f.name for f in kind.fields}
    unknown = sorted(set(fields) - known - set(TILE_ABSENT) - set(MEMTILE_UNWRITTEN) - set(SHIM_ONLY))
    if unknown:
        raise IronError(f"unknown {kind.name} BD field(s) {unknown}; valid fields: {sorted(known)}")
    words = [0] * kind.words
    for f in kind.fields:
        value = fields.get(f.name, 0)
        if f.name == "buffer_offset" and kind.offset_in_bytes:
            if value % 4:
                raise IronError(f"{kind.name} BD buffer_offset={value} must be a multiple of 4 bytes")
            value //= 4
        words[f.word] |= _raw(f.name, value, f, kind) << f.lsb
    return tuple(words)


def unpack_bd(kind: DmaKind, words: Iterable[int]) -> dict[str, int]:
    """Field values of a BD image: lock values signed, ``buffer_offset`` as the register
    holds it (32-bit words) for both kinds."""
    words = [int(w) & 0xFFFFFFFF for w in words]
    if len(words) != kind.words:
        raise IronError(f"a {kind.name} BD has {kind.words} words, got {len(words)}")
    out = {}
    for f in kind.fields:
        value = (words[f.word] & f.mask) >> f.lsb
        if f.name in SIGNED and value >> (f.width - 1):
            value -= 1 << f.width
        out[f.name] = value
    return out


def own_lock(kind: DmaKind, lock_id: int) -> int | None:
    """The tile-local lock a DMA lock number names (None: a neighbour's lock)."""
    local = lock_id - kind.own_lock_base
    return local if 0 <= local < kind.locks else None
