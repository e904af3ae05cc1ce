"""The operator contract: what an operator hands to the rest of iron.

:class:`Operator` is the one description of that contract (``iron/operators`` and
docs/ARCHITECTURE.md point here). An operator says which runtime-sequence
arguments it takes (:class:`ArgSpec`), builds one complete ``aie.device``
(:class:`Design`) and computes its outputs in numpy (sim's executed outputs are
compared against it).
Fusion keys devices by operator, so operators are hashable: built-in ones are
frozen dataclasses (compared by value, serialized by :func:`operator_params`),
foreign ones (:mod:`iron.operators.foreign`) compare by identity.
:class:`NotModelled` is what a runner returns for an output sim could not
compute (an operator without a reference, such as a foreign design).
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Protocol, runtime_checkable

import numpy as np

from iron.mlir import ir
from iron.errors import IronError


@dataclass(frozen=True)
class ArgSpec:
    """One runtime-sequence argument: name, direction (in/out/inout), shape, element type."""

    name: str
    direction: str
    shape: tuple[int, ...]
    dtype: str  # MLIR element type: "bf16", "i32", "f32", "i8", "i16"

    def __post_init__(self):
        if self.direction not in ("in", "out", "inout"):
            raise IronError(f"argument {self.name}: direction {self.direction!r} not in in/out/inout")

    @property
    def reads(self) -> bool:
        """The operator reads this argument (``in`` and ``inout``): the host supplies it."""
        return self.direction != "out"

    @property
    def writes(self) -> bool:
        """The operator writes this argument (``out`` and ``inout``): the host gets it back."""
        return self.direction != "in"

    @property
    def type(self) -> ir.MemRefType:
        return ir.MemRefType(tuple(self.shape), self.dtype)

    @property
    def nbytes(self) -> int:
        return self.type.nbytes

    @property
    def numpy_dtype(self):
        """numpy dtype of host data (bf16 is held as uint16 bit patterns)."""
        return np.uint16 if self.dtype == "bf16" else np.dtype(ir.DTYPES[self.dtype])


@dataclass(frozen=True)
class KernelObject:
    """One kernel object file a design links (``func.func ... {link_with = name}``).

    ``source`` is the kernel's key in iron's kernel table (:mod:`iron.target.kernels`,
    e.g. ``"mm"``), which says where the source lives in each installed layout of
    mlir-aie's ``aie_kernels`` (or in iron's own ``iron/kernels``); ``arch`` the core
    architecture it is compiled for (``aie2`` for npu1, ``aie2p`` for npu2), ``defines``
    the ``-D`` values its parameters need. :attr:`name` differs whenever any of the
    three does, so two instances of one operator with different sizes never share an
    object.
    """

    source: str
    arch: str
    defines: tuple[tuple[str, str], ...] = ()

    @property
    def name(self) -> str:
        digest = hashlib.sha1(repr((self.source, self.arch, self.defines)).encode()).hexdigest()[:8]
        return f"{PurePosixPath(self.source).stem}_{digest}.o"


@dataclass(frozen=True)
class Stream:
    """Shim DMA tasks on allocation ``symbol`` carry operator argument ``arg``
    (index into ``arg_spec()``); each task's host address says which bytes."""

    arg: int
    symbol: str


@dataclass
class Design:
    """An operator's aie.device plus the facts iron needs about it.

    ``compute_tiles`` is the stable order in which trace codegen picks tiles
    (the first ``ntiles`` are traced). ``streams`` tells sim which shim channel
    moves which argument. ``sequence`` names the runtime sequence to run.
    ``kernels`` are the objects the real toolchain compiles and links. ``linked`` are
    objects a foreign design brings, compiled elsewhere: ``(link_with name, defines)``,
    the ``-D`` values they were compiled with (sim calls their kernel models with them;
    iron never compiles them).
    """

    device: ir.Device
    streams: list[Stream]
    sequence: str = ir.DEFAULT_SEQUENCE
    compute_tiles: list[tuple[int, int]] = field(default_factory=list)
    kernels: list[KernelObject] = field(default_factory=list)  # objects the cores link
    linked: list[tuple[str, tuple[tuple[str, str], ...]]] = field(default_factory=list)

    def __post_init__(self):
        if not self.compute_tiles:
            self.compute_tiles = sorted((t.col, t.row) for t in self.device.tiles if t.row >= 2)

    @property
    def runtime_sequence(self) -> ir.RuntimeSequence:
        return self.device.sequence(self.sequence)

    @property
    def shim_tile(self) -> ir.Tile:
        """The design's first shim tile (row 0), where the trace drains."""
        shims = sorted((t for t in self.device.tiles if t.row == 0), key=lambda t: t.col)
        if not shims:
            raise IronError(f"design @{self.device.symbol} has no shim tile (row 0)")
        return shims[0]


@runtime_checkable
class Operator(Protocol):
    """What iron calls on an operator (fusion, trace codegen, sim, ``iron.testing``).

    Required:

    * ``arg_spec()``: the runtime sequence's arguments, in order. ``in`` arguments
      are read, ``out`` written, ``inout`` both (:attr:`ArgSpec.reads`,
      :attr:`ArgSpec.writes`).
    * ``design(target)``: a fresh :class:`Design` for ``target`` (a name or an
      :class:`iron.target.geometry.Target`); fusion renames its device.
    * ``reference(*inputs)``: the outputs, one array (or a tuple of them) per written
      argument in ``arg_spec()`` order, from one array per read argument; bf16 data
      is uint16 bit patterns (:mod:`iron.bf16`). It only checks: sim computes outputs by
      executing the design, and its trace events are those of the executed design.

    Optional, read with ``getattr`` and these defaults:

    * ``op_name`` (``type(op).__name__``): the name in device symbols (``op0_GEMM``),
      manifests and ``IRON_TRACE_OP`` selections;
    * ``traceable`` (True): False when the design keeps a trace configuration of its
      own, so iron adds none;
    * ``foreign`` (False): the device is a foreign design, whose sequence may hold ops
      on state sim does not model (core-tile buffers, locks); the built-in lowering
      skips them (:mod:`iron.lower.dma_task`);
    * ``has_reference`` (True): False when sim cannot compute the outputs (they come
      back as :class:`NotModelled`);
    * ``payload_params()``: what sim's PDI payload records instead of
      :func:`operator_params` (an operator that is no dataclass);
    * ``example_inputs(seed)``: one array per read argument, for ``iron.testing``
      and ``iron demo`` (built-in operators have it);
    * ``reference_ulps`` (0): bf16 ulps an executed output may differ from
      ``reference`` (kernels that accumulate in float32 in their own order), which
      :func:`iron.testing.matches_reference` allows;
    * ``reference_scale(*inputs)``: one float array per written argument, the magnitude
      at which those ulps are counted where it exceeds the values themselves (a kernel
      that rounds partial results, such as a GEMM tiled over K: the largest partial sum).
    """

    def arg_spec(self) -> list[ArgSpec]: ...

    def design(self, target) -> Design: ...

    def reference(self, *inputs: np.ndarray): ...


class NotModelledError(IronError):
    """A value sim did not compute (an operator without a reference, e.g. a foreign design)."""


@dataclass(frozen=True)
class NotModelled:
    """Stands in for an output sim did not compute; any use as an array raises.

    The runtime returns it in place of an output; an operator without a
    reference raises :class:`NotModelledError` itself."""

    name: str
    reason: str

    def message(self) -> str:
        return f"output {self.name!r} is not modelled on sim: {self.reason}"

    def __array__(self, *args, **kwargs):
        raise NotModelledError(self.message())

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise NotModelledError(self.message())

    def __repr__(self) -> str:
        return f"NotModelled({self.name!r})"


def operator_params(op) -> dict:
    """JSON-ready parameters of an operator dataclass (for manifests and sim's PDI)."""
    return {f.name: _jsonable(getattr(op, f.name)) for f in dataclasses.fields(op)}


def _jsonable(value):
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    return value
