"""Softmax over each row of a ``rows x cols`` matrix."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iron.design import ArgSpec, Design
from iron.bf16 import from_bf16, to_bf16
from iron.operators._dataflow import Call, Port, Scalar
from iron.operators._elementwise import random_values
from iron.target import kernels as ktable
from iron.operators._rows import RowWise


@dataclass(frozen=True)
class Softmax(RowWise):
    """``y[r] = exp(x[r] - max(x[r])) / sum(exp(x[r] - max(x[r])))`` per row (bf16; cols a
    multiple of 32, the kernel's vector step on npu2)."""

    KERNEL = "softmax"

    def arg_spec(self) -> list[ArgSpec]:
        shape = (self.rows, self.cols)
        return [ArgSpec("x", "in", shape, self.dtype), ArgSpec("y", "out", shape, self.dtype)]

    def design(self, target) -> Design:
        ports = (Port(0, "x", (self.cols,)), Port(1, "y", (self.cols,)))
        [e] = ktable.kernel(self.KERNEL).entries
        return self._build(target, ports, [Call(e.symbol, ("x", "y", Scalar(self.cols, "i32")))])

    def reference(self, x) -> tuple[np.ndarray, ...]:
        v = from_bf16(np.asarray(x).reshape(self.rows, self.cols))
        e = np.exp(v - v.max(axis=1, keepdims=True))
        return (to_bf16(e / e.sum(axis=1, keepdims=True, dtype=np.float32)),)

    def example_inputs(self, seed: int = 0) -> tuple[np.ndarray, ...]:
        rng = np.random.default_rng(seed)
        return (random_values(rng, (self.rows, self.cols), self.dtype),)
