"""Measured kernel durations: the numbers sim's kernel cost is calibrated from.

Each entry is one kernel as a real NPU ran it, read from a hardware trace capture: the
median cycles from ``INSTR_EVENT_0`` to the next ``INSTR_EVENT_1`` of the kernel's calls
(the kernel raises event 0 on entry and event 1 on exit), as iron's decoder reads the
capture with the trace configuration of the design that made it, and the bytes of the
buffers one call is handed (every memref operand, as the design declares them). With it, the
overhead around the calls: ``busy``, the cycles between one call's end and the next call's
start in which the core is not waiting on a lock (its releases, acquires, loop and call
code), and ``wake``, the cycles from the end of its last lock wait to the call (where the
capture traces ``LOCK_STALL``). All are decoded from the capture files named here (copies
in ``iron/tests/data``, each with its ``SOURCES.md``); ``iron/tests/test_sim_timing.py``
decodes them again and checks these numbers.

sim's cost of a call to a kernel listed here (:mod:`iron.runtime.sim.costs`) is these
cycles per operand byte times the call's operand bytes (several captures of one kernel on
one architecture: the geometric mean of their cycles per byte), preceded by ``wake`` cycles
and followed by ``busy - wake`` cycles of call overhead (several captures: the means).
Scaling with the operand bytes is an assumption (each kernel was captured at one size
only). A kernel not listed keeps sim's nominal cost (the engine's docstring).

The two captures of ``vector_scalar_mul_vector`` (mlir-aie's parse-trace test1 and test2,
the same source and sizes, objects built at different mlir-aie commits) disagree: 72 and
109 cycles, busy 66 and 25. Their geometric mean is within 25% of each duration, which is
as close as one number per kernel can get to both.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KernelTiming:
    """One kernel's duration in one hardware capture, with where it comes from."""

    symbol: str  # the kernel's C symbol (the design's func.call)
    arch: str  # core architecture: "aie2" (npu1) or "aie2p" (npu2)
    operand_bytes: int  # bytes of the memref operands of one call in the captured design
    cycles: int  # median INSTR_EVENT_0 -> INSTR_EVENT_1 cycles of its calls in the capture
    calls: int  # how many calls the capture holds
    busy: float  # median cycles from a call's INSTR_EVENT_1 to the next's INSTR_EVENT_0 not in LOCK_STALL
    wake: float | None  # median cycles from the last LOCK_STALL's end to INSTR_EVENT_0 (None: not traced)
    capture: str  # the capture file (upstream path)
    design: str  # the design that configured it (upstream path)
    repository: str
    commit: str  # of the capture file

    @property
    def cycles_per_byte(self) -> float:
        return self.cycles / self.operand_bytes


#: Every measured kernel (see the module docstring). operand_bytes: the design's call
#: ``vector_scalar_mul_vector(memref<1024xi16>, memref<1024xi16>, memref<1xi32>, i32)``
#: hands 2048 + 2048 + 4 bytes; ``scale_int32(memref<1024xi32>, memref<1024xi32>)`` 4096 + 4096.
MEASURED: tuple[KernelTiming, ...] = (
    KernelTiming(
        "vector_scalar_mul_vector",
        "aie2",
        4100,
        72,
        4,
        66,
        17.5,
        capture="test/parse-trace/test1/trace_test1.txt",
        design="test/parse-trace/test1/aie_test1.mlir",
        repository="Xilinx/mlir-aie",
        commit="b2addbff5280f3ca151208061a97a06436bb4b7c",
    ),
    KernelTiming(
        "vector_scalar_mul_vector",
        "aie2",
        4100,
        109,
        4,
        25,
        2.0,
        capture="test/parse-trace/test2/trace_test2.txt",
        design="test/parse-trace/test2/aie_test2.mlir",
        repository="Xilinx/mlir-aie",
        commit="0df98817251829be39a0f878e61157ad68bb47f6",
    ),
    KernelTiming(
        "scale_int32",
        "aie2",
        8192,
        10245,
        4,
        67,
        None,
        capture="tools/tests/fixtures/vector_scalar/trace_hw.bin",
        design="tools/tests/fixtures/vector_scalar/input_with_addresses.mlir",
        repository="FIM43-Redeye/xdna-emu",
        commit="7380bd56",
    ),
)
