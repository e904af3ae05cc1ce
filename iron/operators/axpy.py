"""AXPY: out = a * x + y with a scalar parameter ``a``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iron.operators import _checks
from iron.bf16 import from_bf16, to_bf16
from iron.operators._dataflow import Call, Scalar
from iron.operators._elementwise import Elementwise


@dataclass(frozen=True)
class AXPY(Elementwise):
    """``out = a * x + y`` (bf16). The kernel broadcasts ``a`` as bf16, so the
    reference rounds ``a`` to bf16 too. Its loop steps 64 elements (no tail): tile_size is
    a multiple of 64."""

    a: float = 1.0

    INPUTS = ("x", "y")
    OUTPUT = "out"
    KERNEL = "axpy"

    def __post_init__(self):
        super().__post_init__()
        _checks.finite_float(type(self).__name__, "a", self.a)

    def kernel(self) -> Call:
        # saxpy(x, y, a, z, vector_size): the operands in the entry's order
        return Call(
            self.entry().symbol,
            ("x", "y", Scalar(float(self.a), "f32"), "out", Scalar(self.tile_size, "i32")),
        )

    def _apply(self, x, y):
        a = from_bf16(to_bf16(np.float32(self.a)))[()]
        return a * x + y
