"""AIE2 shim NOC tile DMA: buffer descriptors, channel control, task queues.

Register layout source (one table each below): Xilinx/aie-rt
``driver/src/global/xaiemlgbl_params.h`` at commit
9cf0725e743517a33d7e366f20122ae592d5c83a, ``XAIEMLGBL_NOC_MODULE_DMA_BD<n>_<w>``,
``..._DMA_{S2MM,MM2S}_<c>_CTRL``, ``..._TASK_QUEUE`` and ``..._STATUS_<c>``.
Checked against mlir-aie's ``aiex.npu.writebd`` lowering
(``lib/Dialect/AIEX/Transforms/AIEDmaToNpu.cpp``, ``WriteBdToBlockWritePattern``),
which places every attribute value into its field as given.

Field values are the ``aiex.npu.writebd`` attribute values, i.e. already in
hardware encoding: ``dN_stride`` and ``iteration_stride`` are the step minus
one, ``iteration_size`` is the wrap minus one, ``d0_size``/``d1_size`` are the
wrap counts as is, and ``buffer_length`` counts 32-bit words. (mlir-aie's
``dma_memcpy_nd`` lowering does those subtractions before creating the
writebd; iron callers do them too.) ``buffer_offset`` is the byte address low
word (BD word 1): mlir-aie writes the buffer offset there and the later
``address_patch`` adds the host buffer address. Two fields are not raw:

* ``burst_length`` is in bytes (64/128/256, and 512 on npu2); 0 picks the
  largest, as mlir-aie does. Encoding: 64 -> 0, 128 -> 1, 256 -> 2, 512 -> 3
  (``getShimBurstEncodingsAndLengths`` of the AIE2 and NPU2 target models).
* ``axcache`` defaults to 2 (not 0): mlir-aie always writes AxCache = 2
  ("enable upsizing in NoC"), hard-coded in older releases and as the
  attribute default in newer ones.

All other missing fields default to 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from iron.errors import IronError

#: Largest ``buffer_length`` (32-bit words) a drain BD can be given: the register field
#: is 32 bits, but mlir-aie's ``aiex.npu.writebd`` carries every field as an ``i32``
#: attribute (iron.mlir.printer prints it so), which holds at most 2**31 - 1.
BD_LENGTH_MAX_WORDS = (1 << 31) - 1
#: Largest byte offset a trace patch adds to the trace buffer's address: the ``arg_plus``
#: of ``aiex.npu.address_patch`` (and the DDR patch iron lowers it to) is an ``i32``.
PATCH_OFFSET_MAX = (1 << 31) - 1

SHIM_BD_BASE = 0x1D000
SHIM_BD_STRIDE = 0x20
SHIM_BD_COUNT = 16
SHIM_BD_WORDS = 8


@dataclass(frozen=True)
class BdField:
    """One BD field: bits [lsb + width - 1 : lsb] of BD word ``word``."""

    name: str
    word: int
    lsb: int
    width: int

    @property
    def mask(self) -> int:
        return ((1 << self.width) - 1) << self.lsb


# aie-rt name in the comment where it differs from the writebd attribute name.
BD_FIELDS: tuple[BdField, ...] = (
    BdField("buffer_length", 0, 0, 32),
    BdField("buffer_offset", 1, 0, 32),  # BASE_ADDRESS_LOW [31:2], byte address
    BdField("address_high", 2, 0, 16),  # BASE_ADDRESS_HIGH
    BdField("packet_type", 2, 16, 3),
    BdField("packet_id", 2, 19, 5),
    BdField("out_of_order_id", 2, 24, 6),  # OUT_OF_ORDER_BD_ID
    BdField("enable_packet", 2, 30, 1),
    BdField("d0_stride", 3, 0, 20),  # D0_STEPSIZE
    BdField("d0_size", 3, 20, 10),  # D0_WRAP
    BdField("secure_access", 3, 30, 1),
    BdField("d1_stride", 4, 0, 20),  # D1_STEPSIZE
    BdField("d1_size", 4, 20, 10),  # D1_WRAP
    BdField("burst_length", 4, 30, 2),  # encoded; API value in bytes
    BdField("d2_stride", 5, 0, 20),  # D2_STEPSIZE
    BdField("axqos", 5, 20, 4),
    BdField("axcache", 5, 24, 4),
    BdField("smid", 5, 28, 4),
    BdField("iteration_stride", 6, 0, 20),  # ITERATION_STEPSIZE
    BdField("iteration_size", 6, 20, 6),  # ITERATION_WRAP
    BdField("iteration_current", 6, 26, 6),
    BdField("lock_acq_id", 7, 0, 4),
    BdField("lock_acq_val", 7, 5, 7),  # LOCK_ACQ_VALUE, 7-bit two's complement in hw
    BdField("lock_acq_enable", 7, 12, 1),
    BdField("lock_rel_id", 7, 13, 4),
    BdField("lock_rel_val", 7, 18, 7),  # LOCK_REL_VALUE, 7-bit two's complement in hw
    BdField("valid_bd", 7, 25, 1),
    BdField("use_next_bd", 7, 26, 1),
    BdField("next_bd", 7, 27, 4),
    BdField("tlast_suppress", 7, 31, 1),
)
_FIELDS = {f.name: f for f in BD_FIELDS}
#: BD words holding the buffer address: low bits (what address patches write) and high bits.
ADDRESS_LOW_WORD = _FIELDS["buffer_offset"].word
ADDRESS_HIGH_WORD = _FIELDS["address_high"].word
BD_DEFAULTS: dict[str, int] = {"axcache": 2}

#: Limits of the BD's dimension fields (mlir-aie ``AIEXDialect.cpp`` ``verifyStridesWraps``;
#: the D0/D1 wrap fields are 10 bits, steps 20 bits, the iteration wrap 6 bits, above).
WRAP_MAX = (1 << 10) - 1
STEP_MAX = 1 << 20
ITER_MAX = 1 << 6


def field_width(name: str) -> int:
    """Bits of BD field ``name`` (:data:`BD_FIELDS`)."""
    return _FIELDS[name].width


def is_contiguous(sizes, strides, inner_stride: int = 1) -> bool:
    """True when ``sizes`` (4) and ``strides`` (3 outer, ``inner_stride`` the innermost),
    outermost first, scan the lower three dimensions row-major without a gap: innermost
    stride 1 and each outer stride the product of the sizes inside it (a size-1 dimension's
    stride never applies). The repeat dimension (size 3) is left out. mlir-aie a9e39fae
    ``AIEX::isContiguousTransfer`` (``lib/Dialect/AIEX/IR/AIEXDialect.cpp``)."""
    _s3, s2, s1, s0 = sizes
    _t3, t2, t1 = strides
    return inner_stride == 1 and (s1 == 1 or t1 == s0) and (s2 == 1 or t2 == s0 * s1)


def transfer_fields(
    sizes, strides, elem: int, where: str, inner_stride: int = 1, shim: bool = True
) -> dict[str, int]:
    """The ``writebd`` dimension fields and ``repeat_count`` of a 4-D shim transfer, as
    mlir-aie's ``getHardwareStridesWraps`` (``AIEXDialect.cpp``; the arithmetic is
    ``encodeHardwareStridesWraps`` in ``include/aie/Dialect/AIEX/Utils/BdLowering.h``)
    computes them.

    ``sizes`` (4) and ``strides`` (3, outer) count elements of ``elem`` bytes, outermost
    first; ``inner_stride`` is the innermost. In 32-bit words: ``d0_size = size0 * elem / 4``,
    ``dN_stride = strideN * elem / 4 - 1`` (0 where the size is 1, and for ``d0`` when
    ``stride0 * elem`` is under a word or the elements are wider than one; a stride of
    partial words is refused, as ``verifyStridesWraps`` refuses it), ``iteration_size = size3 - 1`` and ``iteration_stride = stride3 * elem / 4
    - 1`` when ``stride3 > 0`` (with ``stride3 = 0`` the repeat is the push's repeat count
    only), ``buffer_length = d0_size * size1 * size2``.

    A linear transfer writes no d0/d1/d2 fields (only ``buffer_length`` and the iteration):
    ``[*, 1, 1, n][*, 0, 0, 1]`` on any tile and, on a ``shim`` (NOC) tile, any contiguous
    row-major scan (:func:`is_contiguous`, e.g. ``[2, 1, 64, 64][0, 64, 64, 1]``), as
    mlir-aie a9e39fae lowers them (``AIEDmaToNpu.cpp`` ``DmaToNpuPattern``: ``isLinear``;
    ``AIEDMATasksToNPU.cpp``: ``treatAsLinear``). A value the fields cannot hold raises an
    :class:`IronError` that starts with ``where`` and names the limit."""
    s3, s2, s1, s0 = sizes
    t3, t2, t1 = strides
    t0 = inner_stride
    if min(sizes) <= 0:
        raise IronError(f"{where}: sizes {list(sizes)} must be positive")
    if s0 * elem % 4:
        raise IronError(
            f"{where}: {s0} elements of {elem} bytes is not a multiple of 4 bytes (shim BDs move words)"
        )
    if t0 != 1 and (t0 * elem % 4 or elem > 4):
        raise IronError(
            f"{where}: innermost stride {t0} of {elem}-byte elements is not a whole number of words"
        )
    plain = (s1, s2) == (1, 1) and (t1, t2) == (0, 0) and t0 == 1  # AIEX::isLinearTransfer
    linear = plain or (shim and is_contiguous(sizes, strides, t0))
    f = {"d0_size": 0, "d0_stride": 0, "d1_size": 0, "d1_stride": 0, "d2_stride": 0}
    f.update(iteration_size=0, iteration_stride=0)
    words = lambda stride: stride * elem // 4  # noqa: E731
    if not linear:
        f.update(_dimension_fields((s2, s1, s0), (t2, t1, t0), elem, where))
    if s3 > 1:
        if s3 - 1 > ITER_MAX:
            raise IronError(f"{where}: size 3 = {s3} exceeds the BD's [1:{ITER_MAX}] iteration range")
        if t3 < 0:
            raise IronError(f"{where}: stride 3 must be non-negative")
        if t3 > 0:
            f["iteration_size"] = s3 - 1
            f["iteration_stride"] = words(t3) - 1
    f["buffer_length"] = s0 * elem // 4 * s1 * s2
    f["repeat_count"] = s3 - 1
    return f


def _dimension_fields(sizes, strides, elem: int, where: str) -> dict[str, int]:
    """The d0/d1/d2 fields of a transfer that is not linear (:func:`transfer_fields`):
    ``sizes`` and ``strides`` of dimensions 2, 1, 0 in elements of ``elem`` bytes."""
    (s2, s1, s0), (t2, t1, t0) = sizes, strides
    for i, (size, stride) in enumerate(((s0, t0), (s1, t1), (s2, t2))):
        if size > 1 and stride < 1:
            raise IronError(f"{where}: stride {i} must be a positive integer (size {size})")
        if i and stride * elem % 4:
            raise IronError(f"{where}: stride {i} of {stride} elements is not a multiple of 4 bytes")
    words = lambda stride: stride * elem // 4  # noqa: E731
    f = {
        "d0_size": s0 * elem // 4,
        "d0_stride": 0 if t0 * elem < 4 or elem > 4 else words(t0) - 1,
        "d1_size": s1,
        "d1_stride": words(t1) - 1 if s1 > 1 else 0,
        "d2_stride": words(t2) - 1 if s2 > 1 else 0,
    }
    if f["d0_size"] > WRAP_MAX or f["d1_size"] > WRAP_MAX:
        raise IronError(f"{where}: size 0 or 1 exceeds the BD's [0:{WRAP_MAX}] wrap range")
    if max(f["d1_stride"], f["d2_stride"]) > STEP_MAX:
        raise IronError(f"{where}: a stride exceeds the BD's [1:{STEP_MAX}] step range")
    return f


# Burst length in bytes -> 2-bit encoding, per device family.
BURST_ENCODING: dict[str, dict[int, int]] = {
    "npu1": {64: 0, 128: 1, 256: 2},
    "npu2": {64: 0, 128: 1, 256: 2, 512: 3},
}


def bd_address(bd_id: int) -> int:
    """Tile-relative register offset of word 0 of shim BD ``bd_id``."""
    if not 0 <= bd_id < SHIM_BD_COUNT:
        raise IronError(f"shim BD id {bd_id} out of range 0..{SHIM_BD_COUNT - 1}")
    return SHIM_BD_BASE + SHIM_BD_STRIDE * bd_id


def bd_word(bd_id: int, word: int) -> int:
    """Tile-relative register offset of word ``word`` (0..7) of shim BD ``bd_id``."""
    if not 0 <= word < SHIM_BD_WORDS:
        raise IronError(f"shim BD word {word} out of range 0..{SHIM_BD_WORDS - 1}")
    return bd_address(bd_id) + 4 * word


def bd_address_low(bd_id: int) -> int:
    """Offset of the word holding BD ``bd_id``'s buffer address low bits (word 1): the
    word an ``aiex.npu.address_patch`` adds the host buffer address to (0x1D1E4 for BD 15)."""
    return bd_word(bd_id, ADDRESS_LOW_WORD)


def bd_of_address_low(offset: int) -> int | None:
    """The BD whose address-low word (:func:`bd_address_low`) is at ``offset``, or None."""
    rel = offset - SHIM_BD_BASE - 4 * ADDRESS_LOW_WORD
    if 0 <= rel < SHIM_BD_STRIDE * SHIM_BD_COUNT and rel % SHIM_BD_STRIDE == 0:
        return rel // SHIM_BD_STRIDE
    return None


def _bursts(arch: str) -> dict[int, int]:
    try:
        return BURST_ENCODING[arch]
    except KeyError:
        raise IronError(f"unknown arch {arch!r}; expected one of {tuple(BURST_ENCODING)}") from None


def pack_bd(*, arch: str = "npu1", **fields: int) -> tuple[int, ...]:
    """Pack writebd-style field values into the 8 BD words (see module doc)."""
    bursts = _bursts(arch)
    unknown = sorted(set(fields) - set(_FIELDS))
    if unknown:
        raise IronError(f"unknown shim BD field(s) {unknown}; valid fields: {sorted(_FIELDS)}")
    words = [0] * SHIM_BD_WORDS
    for f in BD_FIELDS:
        value = fields.get(f.name, BD_DEFAULTS.get(f.name, 0))
        if isinstance(value, bool):
            value = int(value)
        if not isinstance(value, int):
            raise IronError(f"shim BD field {f.name} must be an int, got {value!r}")
        if f.name == "burst_length":
            if value == 0:
                value = max(bursts)
            if value not in bursts:
                raise IronError(
                    f"shim BD field burst_length={value} not supported on {arch}; "
                    f"use 0 (largest) or one of {sorted(bursts)} bytes"
                )
            value = bursts[value]
        elif not 0 <= value < (1 << f.width):
            raise IronError(f"shim BD field {f.name}={value} out of range 0..{(1 << f.width) - 1}")
        elif f.name == "buffer_offset" and value % 4:
            # Word 1 bits [1:0] are not part of the address field.
            raise IronError(f"shim BD field buffer_offset={value} must be a multiple of 4 bytes")
        words[f.word] |= value << f.lsb
    return tuple(words)


def unpack_bd(words: Iterable[int], *, arch: str = "npu1") -> dict[str, int]:
    """Inverse of :func:`pack_bd`; ``burst_length`` comes back in bytes.

    Reserved bits (word 1 [1:0], word 2 [31], word 3 [31], word 7 [17] and
    [4]) are ignored.
    """
    words = [int(w) & 0xFFFFFFFF for w in words]
    if len(words) != SHIM_BD_WORDS:
        raise IronError(f"a shim BD has {SHIM_BD_WORDS} words, got {len(words)}")
    by_code = {code: size for size, code in _bursts(arch).items()}
    out = {}
    for f in BD_FIELDS:
        value = (words[f.word] & f.mask) >> f.lsb
        if f.name == "burst_length":
            if value not in by_code:
                raise IronError(f"burst length encoding {value} is not defined on {arch}")
            value = by_code[value]
        out[f.name] = value
    return out


# ---- channel registers (shim NOC module) -----------------------------------

DIRECTIONS = ("s2mm", "mm2s")
SHIM_DMA_CHANNELS = 2
# Ctrl register per (direction, channel); the Task_Queue register follows at +4.
_CTRL = {
    ("s2mm", 0): 0x1D200,
    ("s2mm", 1): 0x1D208,
    ("mm2s", 0): 0x1D210,
    ("mm2s", 1): 0x1D218,
}
_TASK_QUEUE_OFFSET = 4
_STATUS = {
    ("s2mm", 0): 0x1D220,
    ("s2mm", 1): 0x1D224,
    ("mm2s", 0): 0x1D228,
    ("mm2s", 1): 0x1D22C,
}

# Ctrl fields. The shim NOC channels have no reset or (de)compression bits;
# Enable_Out_of_Order and FoT_Mode exist on S2MM only (MM2S Ctrl mask 0x0000FF06,
# S2MM 0x0003FF0E).
CTRL_PAUSE_MEM_BIT = 1
CTRL_PAUSE_STREAM_BIT = 2
CTRL_ENABLE_OUT_OF_ORDER_BIT = 3
CTRL_CONTROLLER_ID_SHIFT = 8
CTRL_CONTROLLER_ID_MASK = 0xFF << CTRL_CONTROLLER_ID_SHIFT
#: The mask today's aiecc writes a controller id with, before a token-issuing push
#: (AIEDmaToNpu.cpp ``PushQueuetoWrite32Pattern``) and in the trace drain (the 2026
#: aiecc output in ``shared/external/xdna-emu-vecscalar-hw/input_with_addresses.mlir``:
#: ``mask = 7936``); older ``-aie-insert-trace-flows`` tests wrote the whole 8-bit field.
AIECC_CONTROLLER_ID_MASK = 0x1F << CTRL_CONTROLLER_ID_SHIFT
#: Controller id aiecc's pipeline gives a shim tile (``controller_id =
#: #aie.packet_info<pkt_type = 0, pkt_id = 15>`` in its input_with_addresses.mlir).
SHIM_CONTROLLER_ID = 15
#: Direction code of a channel direction (aie-rt ``XAie_DmaDirection``: ``DMA_S2MM`` 0,
#: ``DMA_MM2S`` 1), as the ``aiex.npu.sync`` direction operand and the TXN SYNC op carry it
#: (mlir-aie test/Conversion/DmaToNpu/dma_to_npu.mlir).
DIRECTION_CODE = {"s2mm": 0, "mm2s": 1}
DIRECTION_OF_CODE = {code: d for d, code in DIRECTION_CODE.items()}
CTRL_FOT_MODE_SHIFT = 16
CTRL_FOT_MODE_MASK = 0x3 << CTRL_FOT_MODE_SHIFT

# Task queue depth: tasks a channel holds (the running one included), per aie-rt
# ``XAIE_DMA_MAX_QUEUE_SIZE 4U`` (driver/src/dma/xaie_dma.c) and ``StartQSizeMax = 4U``
# of ``AieMlShimDmaChProp`` (driver/src/global/xaie2ipugbl_reginit.c, commit
# 0118cd870a985f29456f6f882b79c8b2536c520e). A push onto a full queue is dropped and
# sets the sticky ``task_queue_overflow`` status bit. The same ChProp has a Reset
# field of 0 and ``XAie_DmaChannelReset`` refuses SHIMNOC tiles ("Returns error for
# SHIMNOC tiles"): a queued shim task cannot be dropped by a register write (pausing
# keeps it), only by reconfiguration. Xilinx/mlir-aie PR #3734 (2026-09, open; not in
# a9e39fae) confirms on Strix: "four deep", a push onto a full queue "does not stall or error:
# the hardware drops the push"; whether it happens depends on how fast the queue drains (eight
# 1 KiB pushes pass, as test/npu-xrt/shim_dma_bd_reuse does on hardware; 8 KiB ones overflow).
TASK_QUEUE_DEPTH = 4

# Task_Queue fields.
TQ_START_BD_MASK = 0xF
TQ_REPEAT_SHIFT = 16
TQ_REPEAT_MASK = 0xFF << TQ_REPEAT_SHIFT
TQ_ENABLE_TOKEN_ISSUE_BIT = 31

# Status fields: name -> (lsb, width); the S2MM/MM2S-only ones are separate.
_STATUS_COMMON = {
    "status": (0, 2),
    "stalled_lock_acq": (2, 1),
    "stalled_lock_rel": (3, 1),
    "error_bd_invalid": (11, 1),
    "axi_mm_decode_error": (16, 1),
    "axi_mm_slave_error": (17, 1),
    "task_queue_overflow": (18, 1),
    "channel_running": (19, 1),
    "task_queue_size": (20, 3),
    "cur_bd": (24, 4),
}
STATUS_FIELDS: dict[str, dict[str, tuple[int, int]]] = {
    "s2mm": {
        **_STATUS_COMMON,
        "stalled_stream_starvation": (4, 1),
        "stalled_tct_or_count_fifo_full": (5, 1),
        "error_bd_unavailable": (10, 1),
        "error_fot_length_exceeded": (12, 1),
        "error_fot_bds_per_task": (13, 1),
    },
    "mm2s": {
        **_STATUS_COMMON,
        "stalled_stream_backpressure": (4, 1),
        "stalled_tct": (5, 1),
    },
}


def _key(direction: str, channel: int) -> tuple[str, int]:
    d = str(direction).lower()
    if d not in DIRECTIONS or channel not in (0, 1):
        raise IronError(
            f"no shim DMA channel {direction!r} {channel}; directions {DIRECTIONS}, channels 0..1"
        )
    return d, channel


def channel_ctrl(direction: str, channel: int) -> int:
    """Offset of DMA_<DIR>_<channel>_Ctrl (e.g. S2MM 1 -> 0x1D208)."""
    return _CTRL[_key(direction, channel)]


def task_queue(direction: str, channel: int) -> int:
    """Offset of DMA_<DIR>_<channel>_Task_Queue (e.g. S2MM 1 -> 0x1D20C)."""
    return _CTRL[_key(direction, channel)] + _TASK_QUEUE_OFFSET


def channel_status(direction: str, channel: int) -> int:
    """Offset of DMA_<DIR>_Status_<channel> (S2MM 0x1D220/4, MM2S 0x1D228/C)."""
    return _STATUS[_key(direction, channel)]


def pack_ctrl(
    controller_id: int = 0,
    *,
    pause_mem: bool = False,
    pause_stream: bool = False,
    enable_out_of_order: bool = False,
    fot_mode: int = 0,
    direction: str = "s2mm",
) -> int:
    """Value of a channel Ctrl register."""
    d, _ = _key(direction, 0)
    if not 0 <= controller_id <= 0xFF:
        raise IronError(f"controller_id={controller_id} out of range 0..255")
    if not 0 <= fot_mode <= 3:
        raise IronError(f"fot_mode={fot_mode} out of range 0..3")
    if d == "mm2s" and (enable_out_of_order or fot_mode):
        raise IronError("enable_out_of_order and fot_mode exist on S2MM channels only")
    return (
        (controller_id << CTRL_CONTROLLER_ID_SHIFT)
        | (int(pause_mem) << CTRL_PAUSE_MEM_BIT)
        | (int(pause_stream) << CTRL_PAUSE_STREAM_BIT)
        | (int(enable_out_of_order) << CTRL_ENABLE_OUT_OF_ORDER_BIT)
        | (fot_mode << CTRL_FOT_MODE_SHIFT)
    )


def unpack_ctrl(value: int) -> dict:
    """Fields of a Ctrl register value."""
    return {
        "controller_id": (value & CTRL_CONTROLLER_ID_MASK) >> CTRL_CONTROLLER_ID_SHIFT,
        "pause_mem": bool(value >> CTRL_PAUSE_MEM_BIT & 1),
        "pause_stream": bool(value >> CTRL_PAUSE_STREAM_BIT & 1),
        "enable_out_of_order": bool(value >> CTRL_ENABLE_OUT_OF_ORDER_BIT & 1),
        "fot_mode": (value & CTRL_FOT_MODE_MASK) >> CTRL_FOT_MODE_SHIFT,
    }


def pack_task_queue(start_bd: int, repeat: int = 0, issue_token: bool = False) -> int:
    """Task_Queue value: run BD chain ``start_bd`` 1 + ``repeat`` times.

    ``issue_token`` asks for a task-complete token (what ``npu.sync`` waits on).
    """
    if not 0 <= start_bd < SHIM_BD_COUNT:
        raise IronError(f"start_bd={start_bd} out of range 0..{SHIM_BD_COUNT - 1}")
    if not 0 <= repeat <= 0xFF:
        raise IronError(f"repeat={repeat} out of range 0..255")
    return start_bd | (repeat << TQ_REPEAT_SHIFT) | (int(bool(issue_token)) << TQ_ENABLE_TOKEN_ISSUE_BIT)


def unpack_task_queue(value: int) -> dict:
    """Inverse of :func:`pack_task_queue`."""
    return {
        "start_bd": value & TQ_START_BD_MASK,
        "repeat": (value & TQ_REPEAT_MASK) >> TQ_REPEAT_SHIFT,
        "issue_token": bool(value >> TQ_ENABLE_TOKEN_ISSUE_BIT & 1),
    }


def unpack_status(direction: str, value: int) -> dict[str, int]:
    """Fields of a DMA_<DIR>_Status_<c> value (``cur_bd``, ``task_queue_size``, ...)."""
    d, _ = _key(direction, 0)
    return {n: (value >> lsb) & ((1 << w) - 1) for n, (lsb, w) in STATUS_FIELDS[d].items()}
