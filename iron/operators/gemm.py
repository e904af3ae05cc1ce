"""GEMM: C[M, N] = A[M, K] @ B[K, N] through mlir-aie's ``linalg/mm.cc``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iron.design import Activity, ArgSpec, Design
from iron.errors import IronError
from iron.operators import _checks
from iron.bf16 import from_bf16, to_bf16
from iron.operators._cost import matmul_activity
from iron.operators._dataflow import Call, Dataflow, Port, build_design
from iron.operators._elementwise import kernel_object, kernel_source, random_values
from iron.target import kernels as ktable
from iron.target.geometry import get_target

#: input dtype -> output dtype (mm.cc's matmul_<in>_<out>)
OUT_DTYPES = {k: v[0] for k, v in ktable.MM_COMBOS.items()}


@dataclass(frozen=True)
class GEMM:
    """``C = A @ B``: A is ``M x K``, B ``K x N``, row-major on the host.

    M is split over ``columns`` (one contiguous block of rows each) and over the
    ``cores_per_column`` cores of a column in blocks of ``tile_m`` rows. Every column
    reads all of B once; each core keeps it in L1 and computes each of its ``tile_m x N``
    row blocks of C with one ``zero_<out>`` and one ``matmul_<in>_<out>`` call, the kernel
    compiled with its L1 tile: ``DIM_M = tile_m``, ``DIM_K = K``, ``DIM_N = N``.

    mm.cc reads A and B and writes C as ``r x s`` / ``s x t`` / ``r x t`` micro-tiles
    stored tile-major. The memtile DMAs block them the way upstream's single-core design
    (``single_core_iron.py``) does with upstream's ``mm_stream_dims``: A and B on the
    memtile -> core FIFOs, C back to row-major on the memtile -> shim FIFO. ``dtype`` is
    the input type: ``bf16`` (C bf16, f32 accumulation) or ``i16`` (C i32, exact).
    ``tile_m`` and the shapes must satisfy the kernel's static_asserts for the target
    (iron.target.kernels.MICRO_TILES); others are refused with the reason.
    """

    M: int
    K: int
    N: int
    dtype: str = "bf16"
    columns: int = 1
    cores_per_column: int = 1
    tile_m: int = 16

    def __post_init__(self):
        op = type(self).__name__
        for name in ("M", "K", "N", "tile_m"):
            _checks.positive_int(op, name, getattr(self, name))
        _checks.one_of(op, "dtype", self.dtype, tuple(OUT_DTYPES))
        _checks.common(op, self.columns, self.cores_per_column)
        rows = self.columns * self.cores_per_column * self.tile_m
        _checks.multiple_of(op, "M", self.M, rows, f"columns * cores_per_column * tile_m = {rows}")
        # the static_asserts of both architectures' kernels: an operator builds for either
        for arch in ktable.RUNTIME_DIRS:
            why = ktable.mm_check(arch, self.dtype, self.tile_m, self.K, self.N)
            if why is not None:
                raise IronError(f"{op}: tile_m={self.tile_m}, K={self.K}, N={self.N}: {why}")

    @property
    def reference_ulps(self) -> int:
        """bf16 ulps C may differ from :meth:`reference` (float64, rounded once): mm.cc
        accumulates in float32 in its own order (see iron.runtime.sim.kernel_models)."""
        return 2 if self.dtype == "bf16" else 0

    @property
    def out_dtype(self) -> str:
        return OUT_DTYPES[self.dtype]

    def arg_spec(self) -> list[ArgSpec]:
        return [
            ArgSpec("A", "in", (self.M, self.K), self.dtype),
            ArgSpec("B", "in", (self.K, self.N), self.dtype),
            ArgSpec("C", "out", (self.M, self.N), self.out_dtype),
        ]

    def iterations(self) -> int:
        """Row blocks (kernel invocations) per core."""
        return self.M // (self.columns * self.cores_per_column * self.tile_m)

    def kernel_defines(self) -> dict[str, object]:
        """``-D`` values mm.cc needs: its tile (= the L1 tile) and the one type pair to instantiate."""
        return {"DIM_M": self.tile_m, "DIM_K": self.K, "DIM_N": self.N, ktable.MM_COMBOS[self.dtype][1]: 1}

    def kernel_sources(self, target) -> list[str]:
        return [kernel_source(target, "mm")]

    def stream_dims(self, target) -> dict[str, tuple[tuple[int, int], ...]]:
        """The memtile ``dimensionsToStream`` of A (per core), B and C (a column's joined rows)."""
        mt = ktable.micro_tile(ktable.ARCH[get_target(target).name], self.dtype)
        per_core = ktable.mm_stream_dims(self.tile_m, self.K, self.N, mt)
        joined = ktable.mm_stream_dims(self.tile_m * self.cores_per_column, self.K, self.N, mt)
        return {"A": per_core["A"], "B": per_core["B"], "C": joined["C"]}

    def design(self, target) -> Design:
        dims = self.stream_dims(target)
        ports = (
            Port(0, "A", (self.tile_m, self.K), dims=dims["A"]),
            Port(1, "B", (self.K, self.N), broadcast=True, dims=dims["B"]),
            Port(2, "C", (self.tile_m, self.N), dims=dims["C"]),
        )
        matmul = ktable.entry(f"matmul_{self.dtype}_{self.out_dtype}")[1]
        zero = ktable.entry(f"zero_{self.out_dtype}")[1]
        calls = (Call(zero.symbol, ("C",)), Call(matmul.symbol, ("A", "B", "C")))
        flow = Dataflow(
            "GEMM",
            tuple(self.arg_spec()),
            ports,
            calls,
            self.iterations(),
            kernel_object(target, "mm", self.kernel_defines()),
            self.columns,
            self.cores_per_column,
        )
        return build_design(flow, target)

    def activity(self, target) -> Activity:
        macs = self.tile_m * self.K * self.N
        return matmul_activity(get_target(target), self.iterations(), macs, self.dtype)

    def reference(self, A, B) -> tuple[np.ndarray, ...]:
        A = np.asarray(A).reshape(self.M, self.K)
        B = np.asarray(B).reshape(self.K, self.N)
        if self.dtype == "bf16":
            # float64 products/sums are exact enough that the one final rounding decides
            c = from_bf16(A).astype(np.float64) @ from_bf16(B).astype(np.float64)
            return (to_bf16(c.astype(np.float32)),)
        c = A.astype(np.int64) @ B.astype(np.int64)
        return (c.astype(np.int32),)  # wraps like the kernel's 32-bit accumulator

    def example_inputs(self, seed: int = 0) -> tuple[np.ndarray, ...]:
        rng = np.random.default_rng(seed)
        return tuple(random_values(rng, s.shape, s.dtype, -1.0, 1.0) for s in self.arg_spec()[:2])
