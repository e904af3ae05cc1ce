"""Elementwise add and multiply: c = a (+|*) b."""

from __future__ import annotations

from dataclasses import dataclass

from iron.operators._elementwise import Elementwise


@dataclass(frozen=True)
class ElementwiseAdd(Elementwise):
    """``c = a + b`` over ``size`` elements (bf16, i16 or i32; integers wrap)."""

    INPUTS = ("a", "b")
    OUTPUT = "c"
    DTYPES = ("bf16", "i16", "i32")
    KERNEL_FILE = "add.cc"

    def kernel_name(self) -> str:
        return f"eltwise_add_{self.dtype}_vector"

    def _apply(self, a, b):
        return a + b


@dataclass(frozen=True)
class ElementwiseMul(Elementwise):
    """``c = a * b`` over ``size`` elements (bf16, i16 or i32; integers wrap)."""

    INPUTS = ("a", "b")
    OUTPUT = "c"
    DTYPES = ("bf16", "i16", "i32")
    KERNEL_FILE = "mul.cc"

    def kernel_name(self) -> str:
        return f"eltwise_mul_{self.dtype}_vector"

    def _apply(self, a, b):
        return a * b
