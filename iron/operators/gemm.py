"""GEMM: C[M, N] = A[M, K] @ B[K, N]."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iron.design import Activity, ArgSpec, Design
from iron.operators import _checks
from iron.bf16 import from_bf16, to_bf16
from iron.operators._cost import matmul_activity
from iron.operators._dataflow import Call, Dataflow, Port, build_design
from iron.operators._elementwise import kernel_object, kernel_source, random_values
from iron.target.geometry import get_target

#: input dtype -> output dtype (mm.cc variants matmul_<in>_<out>)
OUT_DTYPES = {"bf16": "bf16", "i16": "i32"}
#: kernel micro-tile (mmul shape r x s x t): tile_m, tile_k, tile_n must be multiples
MMUL_SHAPE = {"bf16": (4, 8, 4), "i16": (4, 4, 4)}


@dataclass(frozen=True)
class GEMM:
    """``C = A @ B``: A is ``M x K``, B ``K x N``, row-major.

    M is split over ``columns`` (one contiguous block of rows each) and over the
    ``cores_per_column`` cores of a column in blocks of ``tile_m`` rows. Every
    column reads all of B once; each core keeps it in L1 and multiplies its
    ``tile_m x K`` row blocks by it (the kernel works in ``tile_m x tile_k x
    tile_n`` micro-tiles, compiled in as DIM_M/DIM_K/DIM_N). ``dtype`` is the
    input type: ``bf16`` (C bf16, f32 accumulation) or ``i16`` (C i32, exact).
    """

    M: int
    K: int
    N: int
    dtype: str = "bf16"
    columns: int = 1
    cores_per_column: int = 1
    tile_m: int = 16
    tile_k: int = 32
    tile_n: int = 32

    def __post_init__(self):
        op = type(self).__name__
        for name in ("M", "K", "N", "tile_m", "tile_k", "tile_n"):
            _checks.positive_int(op, name, getattr(self, name))
        _checks.one_of(op, "dtype", self.dtype, tuple(OUT_DTYPES))
        _checks.common(op, self.columns, self.cores_per_column)
        r, s, t = MMUL_SHAPE[self.dtype]
        for name, factor in (("tile_m", r), ("tile_k", s), ("tile_n", t)):
            _checks.multiple_of(
                op, name, getattr(self, name), factor, f"the {self.dtype} mmul shape {r}x{s}x{t}"
            )
        rows = self.columns * self.cores_per_column * self.tile_m
        _checks.multiple_of(op, "M", self.M, rows, f"columns * cores_per_column * tile_m = {rows}")
        _checks.multiple_of(op, "K", self.K, self.tile_k, "tile_k")
        _checks.multiple_of(op, "N", self.N, self.tile_n, "tile_n")

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
        """``-D`` values mm.cc needs: the micro-tile and the one type pair to instantiate."""
        return {
            "DIM_M": self.tile_m,
            "DIM_K": self.tile_k,
            "DIM_N": self.tile_n,
            f"{self.dtype}_{self.out_dtype}_ONLY": 1,
        }

    def kernel_sources(self, target) -> list[str]:
        return [kernel_source(target, "mm.cc")]

    def design(self, target) -> Design:
        ports = (
            Port(0, "A", (self.tile_m, self.K)),
            Port(1, "B", (self.K, self.N), broadcast=True),
            Port(2, "C", (self.tile_m, self.N)),
        )
        calls = (
            Call(f"zero_{self.out_dtype}", ("C",)),
            Call(f"matmul_{self.dtype}_{self.out_dtype}", ("A", "B", "C")),
        )
        flow = Dataflow(
            "GEMM",
            tuple(self.arg_spec()),
            ports,
            calls,
            self.iterations(),
            kernel_object(target, "mm.cc", self.kernel_defines()),
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
