"""RMSNorm over each row of a ``rows x cols`` matrix, scaled by a weight vector."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iron.design import ArgSpec, Design
from iron.operators import _checks
from iron.bf16 import from_bf16, to_bf16
from iron.operators._dataflow import Call, Port, Scalar
from iron.operators._elementwise import random_values
from iron.target import kernels as ktable
from iron.operators._rows import RowWise


@dataclass(frozen=True)
class RMSNorm(RowWise):
    """``y[r] = x[r] / sqrt(mean(x[r]^2) + eps) * weight`` per row (bf16).

    Every column reads the whole weight vector; its cores keep it in L1. mlir-aie's
    ``norm/rms_norm.cc`` has no weight (``rms_norm``, ``rms_norm_eps``), so this calls
    iron's own ``iron/kernels/weighted_rms_norm.cc`` (scalar; float sums, one bf16
    rounding per output).
    """

    eps: float = 1e-6

    KERNEL = "weighted_rms_norm"

    def __post_init__(self):
        super().__post_init__()
        _checks.finite_float(type(self).__name__, "eps", self.eps, positive=True)

    def arg_spec(self) -> list[ArgSpec]:
        shape = (self.rows, self.cols)
        return [
            ArgSpec("x", "in", shape, self.dtype),
            ArgSpec("weight", "in", (self.cols,), self.dtype),
            ArgSpec("y", "out", shape, self.dtype),
        ]

    def design(self, target) -> Design:
        ports = (
            Port(0, "x", (self.cols,)),
            Port(1, "weight", (self.cols,), broadcast=True),
            Port(2, "y", (self.cols,)),
        )
        [e] = ktable.kernel(self.KERNEL).entries
        call = Call(
            e.symbol,
            ("x", "weight", "y", Scalar(self.cols, "i32"), Scalar(float(self.eps), "f32")),
        )
        return self._build(target, ports, [call])

    def reference(self, x, weight) -> tuple[np.ndarray, ...]:
        v = from_bf16(np.asarray(x).reshape(self.rows, self.cols))
        w = from_bf16(np.asarray(weight).reshape(self.cols))
        ms = np.mean(v * v, axis=1, keepdims=True, dtype=np.float32)
        return (to_bf16(v / np.sqrt(ms + np.float32(self.eps)) * w),)

    def example_inputs(self, seed: int = 0) -> tuple[np.ndarray, ...]:
        rng = np.random.default_rng(seed)
        x = random_values(rng, (self.rows, self.cols), self.dtype)
        w = random_values(rng, (self.cols,), self.dtype, 0.5, 1.5)
        return x, w
