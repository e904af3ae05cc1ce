"""Shared shape of the elementwise operators: ``size`` elements split over
``columns`` x ``cores_per_column`` cores in tiles of ``tile_size``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from iron.design import ArgSpec, Design, KernelObject
from iron.errors import IronError
from iron.operators import _checks
from iron.bf16 import from_bf16, to_bf16
from iron.operators._dataflow import Call, Dataflow, Port, Scalar, build_design
from iron.target import kernels as ktable
from iron.target.geometry import get_target


def kernel_object(target, key: str, defines: dict | None = None) -> KernelObject:
    """The object a design links for kernel ``key`` of iron's table (:mod:`iron.target.kernels`)."""
    arch = ktable.ARCH[get_target(target).name]
    return KernelObject(key, arch, tuple((k, str(v)) for k, v in sorted((defines or {}).items())))


def kernel_source(target, key: str) -> str:
    """Where kernel ``key`` lives: ``aie_kernels/<path>`` in the current (family) layout of
    mlir-aie, or ``iron/kernels/<file>`` for iron's own; the artifact layer finds it in the
    installed layout."""
    src = ktable.kernel(key)
    arch = ktable.ARCH[get_target(target).name]
    if src.iron_own:
        return f"iron/kernels/{src.path('iron', arch)}"
    return f"aie_kernels/{src.path(ktable.FAMILY, arch)}"


def lane_step(key: str, entry: ktable.Entry) -> int:
    """The largest vector step of ``entry`` over both architectures: a tile that is not a
    multiple of it makes the vector loop read and write past the buffer (no scalar tail)."""
    if entry.tail or not entry.lanes:
        return 1
    return max(entry.lanes.values())


def random_values(
    rng: np.random.Generator, shape, dtype: str, lo: float = -4.0, hi: float = 4.0
) -> np.ndarray:
    """Random host data of an MLIR element type (bf16 as uint16 bits)."""
    if dtype == "bf16":
        return to_bf16(rng.uniform(lo, hi, size=shape).astype(np.float32))
    if dtype == "f32":
        return rng.uniform(lo, hi, size=shape).astype(np.float32)
    info = np.iinfo(np.dtype(dtype.replace("i", "int")))
    return rng.integers(max(info.min, -100), min(info.max, 100), size=shape, dtype=info.dtype)


@dataclass(frozen=True)
class Elementwise:
    """Base of the 1-D elementwise operators (subclasses set the ClassVars and ``_apply``)."""

    size: int
    dtype: str = "bf16"
    columns: int = 1
    cores_per_column: int = 1
    tile_size: int = 1024

    INPUTS: ClassVar[tuple[str, ...]] = ("x",)
    OUTPUT: ClassVar[str] = "y"
    DTYPES: ClassVar[tuple[str, ...]] = ("bf16",)
    KERNEL: ClassVar[str] = ""  # key in iron.target.kernels

    def __post_init__(self):
        op = type(self).__name__
        _checks.positive_int(op, "size", self.size)
        _checks.one_of(op, "dtype", self.dtype, self.DTYPES)
        _checks.common(op, self.columns, self.cores_per_column)
        _checks.positive_int(op, "tile_size", self.tile_size)
        self._check_tile()
        _checks.multiple_of(
            op,
            "size",
            self.size,
            self.columns * self.cores_per_column * self.tile_size,
            f"columns * cores_per_column * tile_size = {self.columns}*{self.cores_per_column}*{self.tile_size}",
        )

    def _check_tile(self) -> None:
        """The kernel's contract on ``tile_size`` (its entry's fixed count or vector step)."""
        op, key = type(self).__name__, self.kernel_key()
        try:
            e = ktable.elementwise_entry(key, self.tile_size)
        except ktable.KernelTableError:
            fixed = [x.count for x in ktable.kernel(key).entries if x.count]
            raise IronError(
                f"{op}: tile_size={self.tile_size}: the kernel entry processes a fixed {fixed[0]} elements "
                f"and {key} has no runtime-size entry; accepted: tile_size={fixed[0]}"
            ) from None
        step = lane_step(key, e)
        where = f"{e.symbol}'s vector loop steps {step} elements with no scalar tail"
        _checks.multiple_of(op, "tile_size", self.tile_size, step, where)

    def kernel_key(self) -> str:
        """The kernel of iron's table this operator calls (dtype may choose)."""
        return self.KERNEL

    def kernel_defines(self) -> dict[str, object]:
        return {}

    # ------------------------------------------------------------------ contract
    def arg_spec(self) -> list[ArgSpec]:
        ins = [ArgSpec(n, "in", (self.size,), self.dtype) for n in self.INPUTS]
        return ins + [ArgSpec(self.OUTPUT, "out", (self.size,), self.dtype)]

    def entry(self) -> ktable.Entry:
        """The kernel entry called per tile: the fixed-count entry when the tile is its
        count, else the runtime-size entry (iron.target.kernels.elementwise_entry)."""
        return ktable.elementwise_entry(self.kernel_key(), self.tile_size)

    def kernel(self) -> Call:
        """The kernel call per tile (overridden where the operands differ)."""
        e = self.entry()
        names = (*self.INPUTS, self.OUTPUT)
        size = () if e.size_param is None else (Scalar(self.tile_size, "i32"),)
        return Call(e.symbol, (*names, *size))

    def kernel_name(self) -> str:
        return self.entry().symbol

    def kernel_sources(self, target) -> list[str]:
        """Kernel source(s) this design links (referenced, not compiled here)."""
        return [kernel_source(target, self.kernel_key())]

    def iterations(self) -> int:
        """Kernel invocations per core."""
        return self.size // (self.columns * self.cores_per_column * self.tile_size)

    def design(self, target) -> Design:
        names = (*self.INPUTS, self.OUTPUT)
        ports = tuple(Port(i, n, (self.tile_size,)) for i, n in enumerate(names))
        obj = kernel_object(target, self.kernel_key(), self.kernel_defines())
        flow = Dataflow(
            type(self).__name__,
            tuple(self.arg_spec()),
            ports,
            (self.kernel(),),
            self.iterations(),
            obj,
            self.columns,
            self.cores_per_column,
        )
        return build_design(flow, target)

    def reference(self, *inputs) -> tuple[np.ndarray, ...]:
        specs = self.arg_spec()[: len(self.INPUTS)]
        if len(inputs) != len(specs):
            raise ValueError(f"{type(self).__name__}.reference takes {len(specs)} inputs, got {len(inputs)}")
        arrays = [np.asarray(x).reshape(s.shape) for x, s in zip(inputs, specs)]
        if self.dtype == "bf16":
            with np.errstate(over="ignore"):
                out = self._apply(*(from_bf16(a) for a in arrays))
            return (to_bf16(np.asarray(out, dtype=np.float32)),)
        with np.errstate(over="ignore"):
            return (np.asarray(self._apply(*arrays)).astype(arrays[0].dtype),)

    def _apply(self, *xs):
        """The math on float32 (bf16) or native integer arrays."""
        raise NotImplementedError

    def example_inputs(self, seed: int = 0) -> tuple[np.ndarray, ...]:
        rng = np.random.default_rng(seed)
        return tuple(random_values(rng, s.shape, s.dtype) for s in self.arg_spec()[: len(self.INPUTS)])
