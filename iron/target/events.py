"""AIE2 trace event tables: event name <-> 7/8-bit event id, per trace unit.

Source (the one table of these numbers in iron): Xilinx/mlir-aie
``lib/Dialect/AIE/Util/events_database.json`` at commit
a7b08f2b09f733a5a5e30c132597a834a01d6ee2, sections ``aie2`` (prefix
``XAIEML_EVENTS_``) and ``aie2p`` (``XAIE2P_EVENTS_``); that file is generated
from the aie-rt event headers and is also what the ``CoreEventAIE2`` /
``MemEventAIE2`` / ``ShimTileEventAIE2`` / ``MemTileEventAIE2`` enums of
``aie.dialects._aie_enum_gen`` hold.

Module kinds, in trace packet type order (mlir-aie ``PacketType``):
``core`` = core module (``core`` table), ``mem`` = core-tile memory module
(``memory``), ``shim`` = shim/PL module (``pl``), ``memtile`` (``mem_tile``).

AIE2P (npu2): the ``aie2p`` section has the same ids and names as ``aie2`` in
all four modules except core id 70 (AIE2 ``DECOMPRESSION_UNDERFLOW``, AIE2P
``SPARSITY_OVERFLOW``). Pass ``arch="aie2p"`` to get the AIE2P name. Note that
mlir-aie's trace parser (``python/utils/trace/events/__init__.py``,
``get_events_for_device``) selects the AIE2P enums only when the device string
contains ``"npu2p"``, so for ``npu2`` designs it names events with the AIE2
table; the default ``arch="aie2"`` reproduces its output.

Naming in mlir-aie's parser (``python/utils/trace/parse.py``,
``lookup_event_name_by_type``): packet type 0 -> core enum, 1 -> mem enum,
2 -> shim tile enum (older parsers: ``PLEvent``, same names), 3 -> memtile enum;
an id that is not in the enum is named ``"Unknown"``. :func:`event_name`
mirrors that exactly (see :data:`UNKNOWN_EVENT`).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping  # not typing's: a decode does not import typing (issue 37)
from types import MappingProxyType

from iron.errors import IronError

MODULE_KINDS: tuple[str, ...] = ("core", "mem", "shim", "memtile")
PACKET_TYPE: dict[str, int] = {kind: i for i, kind in enumerate(MODULE_KINDS)}
ARCHES: tuple[str, ...] = ("aie2", "aie2p")
UNKNOWN_EVENT = "Unknown"  # what mlir-aie's parser names ids missing from the enum


def _run(start: int, *names: str) -> list[tuple[int, str]]:
    """Consecutive ids from ``start``."""
    return [(start + i, name) for i, name in enumerate(names)]


def _numbered(start: int, fmt: str, count: int) -> list[tuple[int, str]]:
    return [(start + i, fmt.format(i)) for i in range(count)]


def _groups(start: int, fmts: tuple[str, ...], count: int) -> list[tuple[int, str]]:
    """Interleaved families, e.g. PORT_IDLE_n, PORT_RUNNING_n, ... for n < count."""
    out = []
    for n in range(count):
        for j, fmt in enumerate(fmts):
            out.append((start + len(fmts) * n + j, fmt.format(n)))
    return out


_PORT = ("PORT_IDLE_{}", "PORT_RUNNING_{}", "PORT_STALLED_{}", "PORT_TLAST_{}")
_DMA4 = ("DMA_S2MM_0_{}", "DMA_S2MM_1_{}", "DMA_MM2S_0_{}", "DMA_MM2S_1_{}")
_SEL4 = ("DMA_S2MM_SEL0_{}", "DMA_S2MM_SEL1_{}", "DMA_MM2S_SEL0_{}", "DMA_MM2S_SEL1_{}")


def _each(start: int, fmts: tuple[str, ...], word: str) -> list[tuple[int, str]]:
    return [(start + i, f.format(word)) for i, f in enumerate(fmts)]


_COMMON_HEAD = _run(0, "NONE", "TRUE", "GROUP_0", "TIMER_SYNC", "TIMER_VALUE_REACHED")

# events_database.json "aie2" -> "core" (127 entries; id 54 unused)
_CORE = (
    _COMMON_HEAD
    + _numbered(5, "PERF_CNT_{}", 4)
    + _numbered(9, "COMBO_EVENT_{}", 4)
    + _numbered(13, "EDGE_DETECTION_EVENT_{}", 2)
    + _run(15, "GROUP_PC_EVENT", "PC_0", "PC_1", "PC_2", "PC_3")
    + _run(20, "PC_RANGE_0_1", "PC_RANGE_2_3", "GROUP_STALL", "MEMORY_STALL")
    + _run(24, "STREAM_STALL", "CASCADE_STALL", "LOCK_STALL", "DEBUG_HALTED")
    + _run(28, "ACTIVE", "DISABLED", "ECC_ERROR_STALL", "ECC_SCRUBBING_STALL")
    + _run(32, "GROUP_PROGRAM_FLOW", "INSTR_EVENT_0", "INSTR_EVENT_1", "INSTR_CALL")
    + _run(36, "INSTR_RETURN", "INSTR_VECTOR", "INSTR_LOAD", "INSTR_STORE")
    + _run(40, "INSTR_STREAM_GET", "INSTR_STREAM_PUT", "INSTR_CASCADE_GET")
    + _run(43, "INSTR_CASCADE_PUT", "INSTR_LOCK_ACQUIRE_REQ", "INSTR_LOCK_RELEASE_REQ")
    + _run(46, "GROUP_ERRORS_0", "GROUP_ERRORS_1", "SRS_OVERFLOW", "UPS_OVERFLOW")
    + _run(50, "FP_HUGE", "INT_FP_0", "FP_INVALID", "FP_INF")
    + _run(55, "PM_REG_ACCESS_FAILURE", "STREAM_PKT_PARITY_ERROR")
    + _run(57, "CONTROL_PKT_ERROR", "AXI_MM_SLAVE_ERROR", "INSTR_DECOMPRSN_ERROR")
    + _run(60, "DM_ADDRESS_OUT_OF_RANGE", "PM_ECC_ERROR_SCRUB_CORRECTED")
    + _run(62, "PM_ECC_ERROR_SCRUB_2BIT", "PM_ECC_ERROR_1BIT", "PM_ECC_ERROR_2BIT")
    + _run(65, "PM_ADDRESS_OUT_OF_RANGE", "DM_ACCESS_TO_UNAVAILABLE")
    + _run(67, "LOCK_ACCESS_TO_UNAVAILABLE", "INSTR_WARNING", "INSTR_ERROR")
    + _run(70, "DECOMPRESSION_UNDERFLOW", "STREAM_SWITCH_PORT_PARITY_ERROR")
    + _run(72, "PROCESSOR_BUS_ERROR", "GROUP_STREAM_SWITCH")
    + _groups(74, _PORT, 8)
    + _run(106, "GROUP_BROADCAST")
    + _numbered(107, "BROADCAST_{}", 16)
    + _run(123, "GROUP_USER_EVENT")
    + _numbered(124, "USER_EVENT_{}", 4)
)

#: Lock-selection blocks per memory module / memtile (LOCK_SELn_*, LOCK_n_REL for n < 8).
LOCK_SELECTION_BLOCKS = 8

# "aie2" -> "memory" (122 entries; ids 13, 14, 85, 103-105 unused)
_MEM = (
    _COMMON_HEAD
    + _numbered(5, "PERF_CNT_{}", 2)
    + _numbered(7, "COMBO_EVENT_{}", 4)
    + _numbered(11, "EDGE_DETECTION_EVENT_{}", 2)
    + _run(15, "GROUP_WATCHPOINT", "WATCHPOINT_0", "WATCHPOINT_1", "GROUP_DMA_ACTIVITY")
    + _each(19, _DMA4, "START_TASK")
    + _each(23, _DMA4, "FINISHED_BD")
    + _each(27, _DMA4, "FINISHED_TASK")
    + _each(31, _DMA4, "STALLED_LOCK")
    + _run(35, "DMA_S2MM_0_STREAM_STARVATION", "DMA_S2MM_1_STREAM_STARVATION")
    + _run(37, "DMA_MM2S_0_STREAM_BACKPRESSURE", "DMA_MM2S_1_STREAM_BACKPRESSURE")
    + _run(39, "DMA_S2MM_0_MEMORY_BACKPRESSURE", "DMA_S2MM_1_MEMORY_BACKPRESSURE")
    + _run(41, "DMA_MM2S_0_MEMORY_STARVATION", "DMA_MM2S_1_MEMORY_STARVATION")
    + _run(43, "GROUP_LOCK")
    + _groups(
        44,
        (
            "LOCK_SEL{}_ACQ_EQ",
            "LOCK_SEL{}_ACQ_GE",
            "LOCK_{}_REL",
            "LOCK_SEL{}_EQUAL_TO_VALUE",
        ),
        LOCK_SELECTION_BLOCKS,
    )
    + _run(76, "GROUP_MEMORY_CONFLICT")
    + _numbered(77, "CONFLICT_DM_BANK_{}", 8)
    + _run(86, "GROUP_ERRORS", "DM_ECC_ERROR_SCRUB_CORRECTED", "DM_ECC_ERROR_SCRUB_2BIT")
    + _run(89, "DM_ECC_ERROR_1BIT", "DM_ECC_ERROR_2BIT")
    + [(91 + i, f"DM_PARITY_ERROR_BANK_{i + 2}") for i in range(6)]
    + _each(97, _DMA4, "ERROR")
    + _run(101, "LOCK_ERROR", "DMA_TASK_TOKEN_STALL")
    + _run(106, "GROUP_BROADCAST")
    + _numbered(107, "BROADCAST_{}", 16)
    + _run(123, "GROUP_USER_EVENT")
    + _numbered(124, "USER_EVENT_{}", 4)
)

# "aie2" -> "pl" (shim tile; 128 entries)
_SHIM = (
    _COMMON_HEAD
    + _numbered(5, "PERF_CNT_{}", 2)
    + _numbered(7, "COMBO_EVENT_{}", 4)
    + _numbered(11, "EDGE_DETECTION_EVENT_{}", 2)
    + _run(13, "GROUP_DMA_ACTIVITY")
    + _each(14, _DMA4, "START_TASK")
    + _each(18, _DMA4, "FINISHED_BD")
    + _each(22, _DMA4, "FINISHED_TASK")
    + _each(26, _DMA4, "STALLED_LOCK")
    + _run(30, "DMA_S2MM_0_STREAM_STARVATION", "DMA_S2MM_1_STREAM_STARVATION")
    + _run(32, "DMA_MM2S_0_STREAM_BACKPRESSURE", "DMA_MM2S_1_STREAM_BACKPRESSURE")
    + _run(34, "DMA_S2MM_0_MEMORY_BACKPRESSURE", "DMA_S2MM_1_MEMORY_BACKPRESSURE")
    + _run(36, "DMA_MM2S_0_MEMORY_STARVATION", "DMA_MM2S_1_MEMORY_STARVATION")
    + _run(38, "GROUP_LOCK")
    + _groups(
        39,
        ("LOCK_{}_ACQ_EQ", "LOCK_{}_ACQ_GE", "LOCK_{}_REL", "LOCK_{}_EQUAL_TO_VALUE"),
        6,
    )
    + _run(63, "GROUP_ERRORS", "AXI_MM_SLAVE_ERROR", "CONTROL_PKT_ERROR")
    + _run(66, "STREAM_SWITCH_PARITY_ERROR", "AXI_MM_DECODE_NSU_ERROR")
    + _run(68, "AXI_MM_SLAVE_NSU_ERROR", "AXI_MM_UNSUPPORTED_TRAFFIC")
    + _run(70, "AXI_MM_UNSECURE_ACCESS_IN_SECURE_MODE", "AXI_MM_BYTE_STROBE_ERROR")
    + _run(72, "DMA_S2MM_ERROR", "DMA_MM2S_ERROR", "LOCK_ERROR", "DMA_TASK_TOKEN_STALL")
    + _run(76, "GROUP_STREAM_SWITCH")
    + _groups(77, _PORT, 8)
    + _run(109, "GROUP_BROADCAST_A")
    + _numbered(110, "BROADCAST_A_{}", 16)
    + _numbered(126, "USER_EVENT_{}", 2)
)

# "aie2" -> "mem_tile" (161 entries, ids 0..160)
_MEMTILE = (
    _COMMON_HEAD
    + _numbered(5, "PERF_CNT{}_EVENT", 4)
    + _numbered(9, "COMBO_EVENT_{}", 4)
    + _numbered(13, "EDGE_DETECTION_EVENT_{}", 2)
    + _run(15, "GROUP_WATCHPOINT")
    + _numbered(16, "WATCHPOINT_{}", 4)
    + _run(20, "GROUP_DMA_ACTIVITY")
    + _each(21, _SEL4, "START_TASK")
    + _each(25, _SEL4, "FINISHED_BD")
    + _each(29, _SEL4, "FINISHED_TASK")
    + _each(33, _SEL4, "STALLED_LOCK")
    + _run(37, "DMA_S2MM_SEL0_STREAM_STARVATION", "DMA_S2MM_SEL1_STREAM_STARVATION")
    + _run(39, "DMA_MM2S_SEL0_STREAM_BACKPRESSURE", "DMA_MM2S_SEL1_STREAM_BACKPRESSURE")
    + _run(41, "DMA_S2MM_SEL0_MEMORY_BACKPRESSURE", "DMA_S2MM_SEL1_MEMORY_BACKPRESSURE")
    + _run(43, "DMA_MM2S_SEL0_MEMORY_STARVATION", "DMA_MM2S_SEL1_MEMORY_STARVATION")
    + _run(45, "GROUP_LOCK")
    + _groups(
        46,
        (
            "LOCK_SEL{}_ACQ_EQ",
            "LOCK_SEL{}_ACQ_GE",
            "LOCK_SEL{}_REL",
            "LOCK_SEL{}_EQUAL_TO_VALUE",
        ),
        LOCK_SELECTION_BLOCKS,
    )
    + _run(78, "GROUP_STREAM_SWITCH")
    + _groups(79, _PORT, 8)
    + _run(111, "GROUP_MEMORY_CONFLICT")
    + _numbered(112, "CONFLICT_DM_BANK_{}", 16)
    + _run(128, "GROUP_ERRORS", "DM_ECC_ERROR_SCRUB_CORRECTED", "DM_ECC_ERROR_SCRUB_2BIT")
    + _run(131, "DM_ECC_ERROR_1BIT", "DM_ECC_ERROR_2BIT", "DMA_S2MM_ERROR")
    + _run(134, "DMA_MM2S_ERROR", "STREAM_SWITCH_PARITY_ERROR", "STREAM_PKT_ERROR")
    + _run(137, "CONTROL_PKT_ERROR", "AXI_MM_SLAVE_ERROR", "LOCK_ERROR")
    + _run(140, "DMA_TASK_TOKEN_STALL", "GROUP_BROADCAST")
    + _numbered(142, "BROADCAST_{}", 16)
    + _run(158, "GROUP_USER_EVENT")
    + _numbered(159, "USER_EVENT_{}", 2)
)

# The only difference of the "aie2p" section: core id 70.
_AIE2P_OVERRIDES = {"core": {70: "SPARSITY_OVERFLOW"}}


def _build(entries: list[tuple[int, str]], override: dict[int, str]) -> dict[str, int]:
    by_id = dict(entries)
    if len(by_id) != len(entries):  # a typo above would silently shadow an id
        raise AssertionError("duplicate event id in table")
    by_id.update(override)
    table = {name: eid for eid, name in sorted(by_id.items())}
    if len(table) != len(by_id):
        raise AssertionError("duplicate event name in table")
    return table


_RAW = {"core": _CORE, "mem": _MEM, "shim": _SHIM, "memtile": _MEMTILE}
_BY_NAME: dict[tuple[str, str], Mapping[str, int]] = {}
_BY_ID: dict[tuple[str, str], dict[int, str]] = {}
for _arch in ARCHES:
    for _kind, _entries in _RAW.items():
        _over = _AIE2P_OVERRIDES.get(_kind, {}) if _arch == "aie2p" else {}
        _t = _build(_entries, _over)
        _BY_NAME[_arch, _kind] = MappingProxyType(_t)
        _BY_ID[_arch, _kind] = {v: k for k, v in _t.items()}

# Highest BROADCAST_n / USER_EVENT_n per kind, and the broadcast name stem.
_BROADCAST_STEM = {
    "core": "BROADCAST_",
    "mem": "BROADCAST_",
    "shim": "BROADCAST_A_",
    "memtile": "BROADCAST_",
}
_USER_EVENTS = {"core": 4, "mem": 4, "shim": 2, "memtile": 2}


def _check(kind: str, arch: str) -> None:
    if kind not in PACKET_TYPE:
        raise IronError(f"unknown trace module kind {kind!r}; expected one of {MODULE_KINDS}")
    if arch not in ARCHES:
        raise IronError(f"unknown architecture {arch!r}; expected one of {ARCHES}")


def event_table(kind: str, arch: str = "aie2") -> Mapping[str, int]:
    """Read-only mapping event name -> id for one module kind."""
    _check(kind, arch)
    return _BY_NAME[arch, kind]


def event_id(kind: str, name: str, arch: str = "aie2") -> int:
    """Id of event ``name`` (e.g. ``"INSTR_EVENT_0"``) in module ``kind``."""
    table = event_table(kind, arch)
    try:
        return table[name]
    except KeyError:
        import difflib  # here: only a misspelt name needs it (a decode's imports, issue 37)

        close = difflib.get_close_matches(str(name), list(table), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise IronError(
            f"no trace event {name!r} in the {kind!r} module{hint} "
            f"(iron.target.events.event_table({kind!r}) lists all {len(table)} names)"
        ) from None


def event_name(kind: str, eid: int, arch: str = "aie2") -> str:
    """Name of event id ``eid`` in module ``kind``; ``"Unknown"`` if unassigned.

    ``"Unknown"`` is exactly what mlir-aie's trace parser prints for ids
    missing from its enum, so thread names match its JSON output.
    """
    _check(kind, arch)
    return _BY_ID[arch, kind].get(int(eid), UNKNOWN_EVENT)


def broadcast_event(kind: str, n: int) -> int:
    """Id of broadcast event ``n`` (0..15) as seen by module ``kind``.

    The shim module names them ``BROADCAST_A_n`` (110 + n); core and memory
    modules ``BROADCAST_n`` (107 + n); memtiles ``BROADCAST_n`` (142 + n).
    """
    _check(kind, "aie2")
    if not 0 <= n <= 15:
        raise IronError(f"broadcast channel {n} out of range 0..15")
    return _BY_NAME["aie2", kind][f"{_BROADCAST_STEM[kind]}{n}"]


def user_event(kind: str, n: int) -> int:
    """Id of ``USER_EVENT_n`` in module ``kind`` (core/mem have 4, shim/memtile 2)."""
    _check(kind, "aie2")
    count = _USER_EVENTS[kind]
    if not 0 <= n < count:
        raise IronError(f"{kind!r} module has USER_EVENT_0..{count - 1}; got {n}")
    return _BY_NAME["aie2", kind][f"USER_EVENT_{n}"]


# ---- what a decoded event means to a reader ----------------------------------
#: The kernel-invocation rule's events: a kernel call runs from an INSTR_EVENT_0 to the next
#: INSTR_EVENT_1 (mlir-aie ``python/utils/trace/utils.py`` ``get_cycles_summary`` pairs them;
#: iron's kernels and sim raise event 0 on entry and 1 on exit, as upstream's kernels do).
KERNEL_START, KERNEL_END = "INSTR_EVENT_0", "INSTR_EVENT_1"


def is_stall(name: str) -> bool:
    """Whether event ``name`` is a stall *state* of its module (``MEMORY_STALL``,
    ``STREAM_STALL``, ``LOCK_STALL``, ``CASCADE_STALL``, ``DMA_TASK_TOKEN_STALL`` ...: the
    table's names ending in ``_STALL``), whose cycles the summary reports as stall cycles.
    Not ``PORT_STALLED_<n>`` (a watched stream port's backpressure, a port event) nor a
    DMA channel's ``*_STALLED_LOCK`` (a DMA waiting on a lock, a DMA event)."""
    return name.endswith("_STALL")


# ---- selections that read misleadingly on hardware ---------------------------
# Facts: docs/design.md 9.3 (FIM43-Redeye/xdna-emu hardware runs on Phoenix and their notes).
# Every iron design is an object-FIFO design (iron/operators/_dataflow.py): the tiles'
# BD rings are started by the PDI at load and loop forever.

_OBJECT_FIFO_TASK = (
    "does not fire inside the trace window on object-FIFO designs (every iron design): the "
    "BD ring is queued once at load and never finishes; {bd} fires once per buffer"
)
_LOCK_SELECTION = (
    "is raised by lock-selection block {n} (Locks_Event_Selection_{n}), not by lock {n}: every "
    "block watches lock 0 after reset and iron programs no selection, so it shows lock 0's activity"
)
_SHIM_MM2S_LEVEL = (
    "is an MM2S-direction level event in a shim slot, reported to wedge Phoenix's management "
    "firmware after about 30 runs (xdna-emu hardware notes); prefer the S2MM or FINISHED_BD events"
)


def caveat(kind: str, name: str) -> str | None:
    """Why selecting event ``name`` on a ``kind`` unit would mislead (None: it does not).

    Memory-module and memtile DMA ``START_TASK``/``FINISHED_TASK`` never fire inside the
    trace window of an object-FIFO design; ``LOCK_n_REL`` / ``LOCK_SELn_*`` watch lock 0
    whatever ``n`` without a lock-selection program; MM2S-direction level events
    (stalls, backpressure, starvation) in shim slots are reported to wedge Phoenix.
    """
    _check(kind, "aie2")
    if kind in ("mem", "memtile"):
        m = re.fullmatch(r"DMA_(S2MM|MM2S)_(SEL)?([01])_(START_TASK|FINISHED_TASK)", name)
        if m:
            return _OBJECT_FIFO_TASK.format(bd=f"DMA_{m[1]}_{m[2] or ''}{m[3]}_FINISHED_BD")
        m = re.fullmatch(r"LOCK_SEL(\d)_\w+|LOCK_(\d)_REL", name)
        if m:
            return _LOCK_SELECTION.format(n=m[1] or m[2])
    if kind == "shim" and re.fullmatch(
        r"DMA_MM2S_[01]_(STALLED_LOCK|STREAM_BACKPRESSURE|MEMORY_STARVATION)", name
    ):
        return _SHIM_MM2S_LEVEL
    return None


def warn_misleading(kind: str, names, stacklevel: int = 2) -> None:
    """A UserWarning naming each selected event whose :func:`caveat` applies."""
    for name in names:
        why = caveat(kind, name)
        if why:
            warnings.warn(f"trace event {name} on {kind} units {why}", UserWarning, stacklevel=stacklevel + 1)
