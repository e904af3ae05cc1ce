"""Unary elementwise operators: y = f(x).

Each calls the entry of its kernel that fits the tile (iron.target.kernels): the fixed
1024-element entry when ``tile_size == 1024`` where the kernel has one, else the
runtime-size ``*_size`` entry (mlir-aie PR #3740).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iron.operators import _checks
from iron.operators._elementwise import Elementwise
from iron.target import kernels as ktable


@dataclass(frozen=True)
class ReLU(Elementwise):
    """``y = max(x, 0)`` (bf16); the kernel loop steps 32 elements, so tile_size is a multiple of 32."""

    KERNEL = "relu"

    def _apply(self, x):
        return np.where(x > 0, x, np.float32(0))


@dataclass(frozen=True)
class SiLU(Elementwise):
    """``y = x * sigmoid(x)`` (bf16; tile_size a multiple of 32)."""

    KERNEL = "silu"

    def _apply(self, x):
        return x / (np.float32(1) + np.exp(-x))


@dataclass(frozen=True)
class GELU(Elementwise):
    """``y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``: the tanh form the kernel uses
    (bf16; tile_size a multiple of 32)."""

    KERNEL = "gelu"

    def _apply(self, x):
        k = np.float32(np.sqrt(2.0 / np.pi))
        inner = k * (x + np.float32(0.044715) * x * x * x)
        return np.float32(0.5) * x * (np.float32(1) + np.tanh(inner))


@dataclass(frozen=True)
class MemCopy(Elementwise):
    """``y = x``: passThrough.cc's ``passThroughLine`` per tile, compiled with the
    ``BIT_WIDTH`` of the element type. Its loop copies 64 bytes per step, so a tile is a
    multiple of 64 bytes."""

    DTYPES = ("bf16", "i8", "i16", "i32", "f32")
    KERNEL = "passthrough"

    def _check_tile(self) -> None:
        item = {"i8": 1, "bf16": 2, "i16": 2, "i32": 4, "f32": 4}[self.dtype]
        step = ktable.PASSTHROUGH_STEP_BYTES // item
        _checks.multiple_of(
            type(self).__name__, "tile_size", self.tile_size, step,
            f"passThroughLine's 64-byte copy step in {self.dtype} elements",
        )  # fmt: skip

    def kernel_defines(self) -> dict[str, object]:
        return {"BIT_WIDTH": ktable.BIT_WIDTHS[self.dtype]}

    def _apply(self, x):
        return x.copy()
