"""Elementwise add and multiply: c = a (+|*) b.

bf16 calls mlir-aie's ``eltwise/{add,mul}.cc`` (the fixed 1024-element entry at
``tile_size == 1024``, else the runtime-size ``*_size`` entry). mlir-aie has no integer
add/mul, so i16/i32 call iron's own ``iron/kernels/eltwise_int.cc`` (docs/toolchain.md, "The real
toolchain").
"""

from __future__ import annotations

from dataclasses import dataclass

from iron.operators._elementwise import Elementwise
from iron.target import kernels as ktable


@dataclass(frozen=True)
class ElementwiseAdd(Elementwise):
    """``c = a + b`` over ``size`` elements (bf16, i16 or i32; integers wrap)."""

    INPUTS = ("a", "b")
    OUTPUT = "c"
    DTYPES = ("bf16", "i16", "i32")
    KERNEL = "add"

    def kernel_key(self) -> str:
        return self.KERNEL if self.dtype == "bf16" else "eltwise_int"

    def entry(self):
        if self.dtype == "bf16":
            return super().entry()
        return ktable.entry(f"eltwise_{self.KERNEL}_{self.dtype}_vector")[1]

    def _apply(self, a, b):
        return a + b


@dataclass(frozen=True)
class ElementwiseMul(ElementwiseAdd):
    """``c = a * b`` over ``size`` elements (bf16, i16 or i32; integers wrap)."""

    KERNEL = "mul"

    def _apply(self, a, b):
        return a * b
