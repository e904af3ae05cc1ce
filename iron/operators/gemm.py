"""GEMM: C[M, N] = A[M, K] @ B[K, N] through mlir-aie's ``linalg/mm.cc``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iron.design import ArgSpec, Design
from iron.errors import IronError
from iron.operators import _checks
from iron.bf16 import from_bf16, to_bf16
from iron.operators import _matmul
from iron.operators._elementwise import kernel_object, kernel_source, random_values
from iron.target import kernels as ktable
from iron.target.geometry import get_target

#: input dtype -> output dtype (mm.cc's matmul_<in>_<out>)
OUT_DTYPES = {k: v[0] for k, v in ktable.MM_COMBOS.items()}


@dataclass(frozen=True)
class GEMM:
    """``C = A @ B``: A is ``M x K``, B ``K x N``, row-major on the host.

    Tiled as upstream's matmul designs (``single_core_iron.py``, ``whole_array_iron.py``;
    :mod:`iron.operators._matmul` builds the device): the L1 tile is ``m x k`` of A, ``k x n``
    of B and ``m x n`` of C, and mm.cc is compiled for it (``DIM_M/K/N = m/k/n``). Each
    core zeroes a C tile, accumulates ``K / k`` ``matmul_<in>_<out>`` calls into it, one
    per A and B tile, and hands it back; ``columns x cores_per_column`` cores share the
    ``(M / m) x (N / n)`` C tiles (core ``(c, r)``: row tiles ``r``, ``r + cores_per_column``,
    ...; column tiles ``c``, ``c + columns``, ...). Defaults ``m, k, n = 64, 64, 32`` are
    upstream's.

    mm.cc reads A and B and writes C as ``r x s`` / ``s x t`` / ``r x t`` micro-tiles
    stored tile-major; the memtile DMAs block them with upstream's ``mm_stream_dims``.
    ``dtype`` is the input type: ``bf16`` (C bf16, f32 accumulation inside a call) or
    ``i16`` (C i32, exact). Refused at construction, with the limit named: tiles that do
    not divide the shape, tile sizes mm.cc's static_asserts reject on either architecture
    (iron.target.kernels.MICRO_TILES), L1 or memtile buffers that do not fit, transfers a
    shim BD cannot describe.
    """

    M: int
    K: int
    N: int
    dtype: str = "bf16"
    columns: int = 1
    cores_per_column: int = 1
    m: int = 64
    k: int = 64
    n: int = 32

    def __post_init__(self):
        op = type(self).__name__
        for name in ("M", "K", "N", "m", "k", "n"):
            _checks.positive_int(op, name, getattr(self, name))
        _checks.one_of(op, "dtype", self.dtype, tuple(OUT_DTYPES))
        _checks.common(op, self.columns, self.cores_per_column)
        # the static_asserts of both architectures' kernels: an operator builds for either
        for arch in ktable.RUNTIME_DIRS:
            why = ktable.mm_check(arch, self.dtype, self.m, self.k, self.n)
            if why is not None:
                raise IronError(f"{op}: m={self.m}, k={self.k}, n={self.n}: {why}")
        _matmul.check(self.tiling(), op)

    def tiling(self) -> _matmul.Tiling:
        return _matmul.Tiling(
            self.M, self.K, self.N, self.m, self.k, self.n,
            self.columns, self.cores_per_column, self.dtype, self.out_dtype,
        )  # fmt: skip

    @property
    def reference_ulps(self) -> int:
        """bf16 ulps C may differ from :meth:`reference` (float64, rounded once), counted at
        :meth:`reference_scale`: mm.cc accumulates in float32 in its own order within a call
        and stores C as bf16 after each of the ``K / k`` calls (each rounding at most half an
        ulp of a partial sum); see iron.runtime.sim.kernel_models."""
        return self.K // self.k // 2 + 2 if self.dtype == "bf16" else 0

    def reference_scale(self, A, B) -> tuple[np.ndarray, ...]:
        """Per element of C, the largest magnitude of its partial sums after each of the
        ``K / k`` kernel calls (float64): the values mm.cc rounds to bf16 on the way, so
        :attr:`reference_ulps` counts ulps of this magnitude (of the result itself when
        ``K == k``)."""
        a = self._floats(A).reshape(self.M, self.K)
        b = self._floats(B).reshape(self.K, self.N)
        partial = np.zeros((self.M, self.N))
        scale = np.zeros((self.M, self.N))
        for s in range(0, self.K, self.k):
            partial += a[:, s : s + self.k] @ b[s : s + self.k]
            np.maximum(scale, np.abs(partial), out=scale)
        return (scale,)

    def _floats(self, x) -> np.ndarray:
        x = np.asarray(x)
        return from_bf16(x).astype(np.float64) if self.dtype == "bf16" else x.astype(np.float64)

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
        """C tiles (each ``K / k`` kernel calls) per core."""
        return self.tiling().tiles_per_core

    def kernel_defines(self) -> dict[str, object]:
        """``-D`` values mm.cc needs: its tile (= the L1 tile) and the one type pair to instantiate."""
        return {"DIM_M": self.m, "DIM_K": self.k, "DIM_N": self.n, ktable.MM_COMBOS[self.dtype][1]: 1}

    def kernel_sources(self, target) -> list[str]:
        return [kernel_source(target, "mm")]

    def stream_dims(self, target) -> dict[str, tuple[tuple[int, int], ...]]:
        """The memtile ``dimensionsToStream`` of A, B (memtile -> cores) and C (memtile -> shim)."""
        mt = ktable.micro_tile(ktable.ARCH[get_target(target).name], self.dtype)
        return ktable.mm_stream_dims(self.m, self.k, self.n, mt)

    def design(self, target) -> Design:
        kernel = kernel_object(target, "mm", self.kernel_defines())
        try:
            return _matmul.build(self.tiling(), self.arg_spec(), kernel, target)
        except IronError as e:
            raise IronError(f"{type(self).__name__}: {e}") from None

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
