"""NPU geometry: columns, rows, tile kinds, DMA resources.

Source: mlir-aie ``include/aie/Dialect/AIE/IR/AIETargetModel.h`` (npu1 = AIE2
Phoenix/Hawk Point, npu2 = AIE2P Strix/Krackan; both 6 rows: shim, memtile,
4 compute rows).
"""

from __future__ import annotations


from iron.errors import IronError
from iron.record import Record

SHIM_ROW = 0
MEMTILE_ROW = 1
MEMTILE_ROWS = 1  # rows of memtiles (TXN header field)

# Memories and memtile DMA (AIE2/AIE2P models alike: local memory 0x10000,
# memtile 0x80000, 6 memtile DMA channels per direction).
CORE_DATA_MEMORY = 64 * 1024
CORE_STACK = 1024  # aie.core default stack_size
MEMTILE_MEMORY = 512 * 1024
MEMTILE_DMA_CHANNELS = 6
FIRST_COMPUTE_ROW = 2


class Target(Record, frozen=True):
    """One NPU generation.

    ``column_offset`` is the absolute column of the partition's first column:
    trace packet headers carry absolute columns, so decoding shifts by it.
    Phoenix (npu1) starts user partitions at column 1 (column 0 has no NOC).
    """

    name: str
    max_columns: int
    rows: int
    dev_gen: int  # TXN header device generation (docs/design.md section 6)
    column_offset: int
    clock_mhz: float  # AIE clock used to turn cycles into microseconds
    full_elf: bool  # one full ELF with several devices (aiex.configure) is npu2 only
    shim_bds: int = 16
    tile_bds: int = 16
    memtile_bds: int = 48
    arch: str = "aie2"  # event table (iron.target.events.ARCHES) of this generation's tiles

    def device_name(self, columns: int) -> str:
        """mlir-aie ``aie.device`` name for a design using ``columns`` columns."""
        self.check_columns(columns)
        return self.name if columns == self.max_columns else f"{self.name}_{columns}col"

    def check_columns(self, columns: int) -> None:
        if not isinstance(columns, int) or not 1 <= columns <= self.max_columns:
            raise IronError(
                f"{self.name} has {self.max_columns} columns; got columns={columns!r} "
                f"(accepted: 1..{self.max_columns})"
            )

    @property
    def compute_rows(self) -> range:
        return range(FIRST_COMPUTE_ROW, self.rows)


# XRT's AIE trace plugin assumes 1000 MHz when the clock is unknown
# (AIE_DEFAULT_FREQ_MHZ); the manifest records the value used.
TARGETS = {
    "npu1": Target(
        "npu1", max_columns=4, rows=6, dev_gen=3, column_offset=1, clock_mhz=1000.0, full_elf=False
    ),
    "npu2": Target(
        "npu2",
        max_columns=8,
        rows=6,
        dev_gen=4,
        column_offset=0,
        clock_mhz=1000.0,
        full_elf=True,
        arch="aie2p",
    ),
}


#: What XRT reports as a device's name (``xrt::device::get_info<xrt::info::device::name>``,
#: ``device.get_info(pyxrt.xrt_info_device.name)``) -> target, by substring, first match
#: wins. From mlir-aie's XRT host runtime (python/utils/hostruntime/xrtruntime/hostruntime.py),
#: which tells NPU2 from NPU1 the same way; amdxdna names its devices "RyzenAI-npu<N>".
XRT_DEVICE_NAMES = (
    ("NPU Strix", "npu2"),
    ("NPU Krackan", "npu2"),
    ("RyzenAI-npu4", "npu2"),
    ("RyzenAI-npu5", "npu2"),
    ("RyzenAI-npu6", "npu2"),
    ("NPU Phoenix", "npu1"),
    ("RyzenAI-npu1", "npu1"),
)


def target_for_xrt_device(name: str) -> str | None:
    """The target (``npu1``/``npu2``) of a device XRT names ``name``; None if unknown."""
    for key, target in XRT_DEVICE_NAMES:
        if key in name:
            return target
    return None


def get_target(name: str | Target) -> Target:
    """Look up a target by name (``npu1`` or ``npu2``)."""
    if isinstance(name, Target):
        return name
    if not isinstance(name, str):
        raise IronError(f"target={name!r}; accepted: {', '.join(TARGETS)}")
    try:
        return TARGETS[name]
    except KeyError:
        raise IronError(f"unknown target {name!r}; accepted: {', '.join(TARGETS)}") from None


def target_for_device(device: str) -> Target:
    """Target of an mlir-aie device name such as ``npu1_1col`` or ``npu2``."""
    base = device.split("_", 1)[0]
    if base not in TARGETS:
        raise IronError(f"unknown aie.device target {device!r}; accepted: npu1[_Ncol], npu2[_Ncol]")
    return TARGETS[base]


def device_columns(device: str) -> int:
    """Number of columns of an mlir-aie device name (``npu2_4col`` -> 4)."""
    target = target_for_device(device)
    if device == target.name:
        return target.max_columns
    suffix = device.split("_", 1)[1]
    if not (suffix.endswith("col") and suffix[:-3].isdigit()):
        raise IronError(f"cannot read the column count of device {device!r}")
    return int(suffix[:-3])


def tile_kind(row: int) -> str:
    """``shim``, ``memtile`` or ``compute`` for a row."""
    if row == SHIM_ROW:
        return "shim"
    if row == MEMTILE_ROW:
        return "memtile"
    return "compute"
