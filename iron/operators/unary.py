"""Unary elementwise operators: y = f(x)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iron.operators._elementwise import Elementwise


@dataclass(frozen=True)
class ReLU(Elementwise):
    """``y = max(x, 0)`` (bf16)."""

    KERNEL_FILE = "relu.cc"

    def kernel_name(self) -> str:
        return "relu_bf16_size"

    def _apply(self, x):
        return np.where(x > 0, x, np.float32(0))


@dataclass(frozen=True)
class SiLU(Elementwise):
    """``y = x * sigmoid(x)`` (bf16)."""

    KERNEL_FILE = "silu.cc"
    OPS_PER_ELEMENT = 4

    def kernel_name(self) -> str:
        return "silu_bf16"

    def _apply(self, x):
        return x / (np.float32(1) + np.exp(-x))


@dataclass(frozen=True)
class GELU(Elementwise):
    """``y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``: the tanh form the kernel uses (bf16)."""

    KERNEL_FILE = "gelu.cc"
    OPS_PER_ELEMENT = 6

    def kernel_name(self) -> str:
        return "gelu_bf16_size"

    def _apply(self, x):
        k = np.float32(np.sqrt(2.0 / np.pi))
        inner = k * (x + np.float32(0.044715) * x * x * x)
        return np.float32(0.5) * x * (np.float32(1) + np.tanh(inner))


@dataclass(frozen=True)
class MemCopy(Elementwise):
    """``y = x``: a pass-through core per tile (any element type)."""

    DTYPES = ("bf16", "i8", "i16", "i32", "f32")
    KERNEL_FILE = "generic/passThrough.cc"

    def kernel_name(self) -> str:
        return "passThroughLine"

    def _apply(self, x):
        return x.copy()
