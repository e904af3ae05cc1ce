"""The one device template every operator uses: N columns x K cores.

Per column ``c`` (shim ``(c, 0)``, memtile ``(c, 1)``, cores ``(c, 2..2+K-1)``):

* a **split** input is read from the host as one contiguous chunk per column
  (chunk ``c`` of ``columns`` equal chunks), lands in the memtile and is
  distributed with ``aie.objectfifo.link`` so core ``k`` gets slice ``k`` of
  every memtile buffer;
* a **broadcast** input (GEMM's B, RMSNorm's weight) is read whole by every
  column and handed to all its cores once (acquired before the loop);
* a **split** output is the mirror image: cores -> memtile join -> shim.

Each core runs ``iterations`` times: acquire, call the kernel(s), release; that block
sits in an outer loop to INT64_MAX (``scf.for`` to 9223372036854775807, what IRON's
``Worker`` and mlir-aie's designs emit as ``range_(sys.maxsize)``), so a second run of a
loaded PDI is served by the same cores. Broadcast buffers are acquired per run.

Shim channels: inputs use MM2S 0, 1 of their column, outputs S2MM 0. S2MM
channel 1 of the first column and shim BD 15 are reserved for the trace drain
(trace codegen adds them), so operators never use S2MM 1 or BD 15.

Shim transfers name their object FIFO (``metadata = @<fifo>``) and the design
declares no ``aie.shim_dma_allocation``: mlir-aie's object-FIFO lowering creates
``@<fifo>_shim_alloc`` itself (a hand-made one is a duplicate symbol), and iron's
built-in lowering derives the same channels (:mod:`iron.mlir.objectfifo`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from iron.design import ArgSpec, Design, KernelObject, Stream
from iron.errors import IronError
from iron.mlir import body, ir
from iron.target.geometry import (
    CORE_DATA_MEMORY,
    CORE_STACK,
    FIRST_COMPUTE_ROW,
    MEMTILE_DMA_CHANNELS,
    MEMTILE_MEMORY,
    MEMTILE_ROW,
    SHIM_ROW,
    get_target,
)
from iron.target.shim_dma import SHIM_DMA_CHANNELS
from iron.target.trace_unit import TRACE_BD

#: Shim BD ids operators may use (the trace drain owns TRACE_BD and S2MM TRACE_CHANNEL).
DATA_BD_IDS = range(0, TRACE_BD)
#: Shim channels per column data may use: every MM2S, every S2MM but the trace drain's.
DATA_MM2S = SHIM_DMA_CHANNELS
DATA_S2MM = SHIM_DMA_CHANNELS - 1

#: Upper bound of every core's outer loop: INT64_MAX, as ``range_(sys.maxsize)`` emits.
RUN_FOREVER = 9223372036854775807
#: Depth of split FIFOs (double buffering); broadcast FIFOs hold one buffer.
SPLIT_DEPTH = 2
BROADCAST_DEPTH = 1


@dataclass(frozen=True)
class Port:
    """How operator argument ``arg`` reaches (or leaves) the cores.

    ``shape`` is the L1 buffer a kernel call sees. Split ports deliver
    ``iterations`` such buffers to every core; broadcast ports deliver the whole
    argument (``shape`` must equal the argument's shape) once.
    """

    arg: int
    name: str  # FIFO name stem
    shape: tuple[int, ...]
    broadcast: bool = False
    #: ``dimensionsToStream`` ((size, stride) pairs, outermost first) of the memtile's
    #: DMA: on the memtile -> core FIFO(s) of an input, on the memtile -> shim FIFO of an
    #: output (how GEMM blocks A/B/C into mm.cc's micro-tiles, as upstream's designs do).
    dims: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class Scalar:
    """A constant kernel operand (``arith.constant``)."""

    value: int | float
    type: str  # "i32" or "f32"


@dataclass(frozen=True)
class Call:
    """``func.call @func(operands)``; an operand is a port name or a :class:`Scalar`."""

    func: str
    operands: tuple


@dataclass(frozen=True)
class Dataflow:
    """Everything the template needs to build one operator's device."""

    op: str  # operator class name, for messages
    specs: tuple[ArgSpec, ...]
    ports: tuple[Port, ...]
    calls: tuple[Call, ...]  # per iteration, in order
    iterations: int  # kernel iterations per core
    kernel: KernelObject  # what every kernel function links
    columns: int
    cores: int


def memref(shape: tuple[int, ...], dtype: str) -> str:
    return str(ir.MemRefType(tuple(shape), dtype))


def _numel(shape) -> int:
    return math.prod(shape)


def build_design(flow: Dataflow, target) -> Design:
    """Build the complete ``aie.device`` (symbol None) and its streams."""
    target = get_target(target)
    try:
        target.check_columns(flow.columns)
    except IronError as e:
        raise IronError(f"{flow.op}: {e}") from None
    _check_resources(flow)
    cols, cores = range(flow.columns), range(flow.cores)
    ins, outs = _directions(flow)

    device_ops: list = _func_decls(flow)
    shims = [ir.Tile(f"tile_{c}_{SHIM_ROW}", c, SHIM_ROW) for c in cols]
    mems = [ir.Tile(f"tile_{c}_{MEMTILE_ROW}", c, MEMTILE_ROW) for c in cols]
    computes = [
        ir.Tile(f"tile_{c}_{FIRST_COMPUTE_ROW + k}", c, FIRST_COMPUTE_ROW + k) for k in cores for c in cols
    ]
    device_ops += shims + mems + computes

    # Shim transfers name the shim <-> memtile FIFO of their column and port.
    allocs = {(c, p.name): _fifo(p, c) for c in cols for p in flow.ports}
    streams = [Stream(p.arg, allocs[c, p.name]) for p in flow.ports for c in cols]

    for c in cols:
        device_ops += _fifos(flow, ins, outs, c)
    for c in cols:
        for k in cores:
            device_ops.append(_core(flow, c, k))

    device_ops.append(_sequence(flow, ins, outs, allocs))
    device = ir.Device(target.device_name(flow.columns), None, device_ops)
    return Design(device=device, streams=streams, kernels=[flow.kernel])


# --------------------------------------------------------------------------- checks
def _directions(flow: Dataflow) -> tuple[list[Port], list[Port]]:
    """(input ports, output ports). A port moves its argument one way (host -> cores or
    cores -> host), so the template takes no ``inout`` argument."""
    specs = [flow.specs[p.arg] for p in flow.ports]
    both = [s.name for s in specs if s.reads and s.writes]
    if both:
        raise IronError(f"{flow.op}: argument(s) {', '.join(both)} are inout; the dataflow template moves "
                        "each argument one way: declare it in or out")  # fmt: skip
    ins = [p for p, s in zip(flow.ports, specs) if s.reads]
    outs = [p for p, s in zip(flow.ports, specs) if s.writes]
    return ins, outs


def _check_resources(flow: Dataflow) -> None:
    spec, k = flow.specs, flow.cores
    ins, outs = _directions(flow)
    if len(ins) > DATA_MM2S or len(outs) > DATA_S2MM:
        raise IronError(f"{flow.op}: needs {len(ins)} MM2S / {len(outs)} S2MM shim channels per column; "
                        "a shim column has 2 MM2S and 1 S2MM for data (S2MM 1 is reserved for trace)")  # fmt: skip
    mm2s = sum(1 if p.broadcast else k for p in ins) + len(outs)
    s2mm = len(ins) + k * len(outs)
    if max(mm2s, s2mm) > MEMTILE_DMA_CHANNELS:
        raise IronError(
            f"{flow.op}: cores_per_column={k} needs {mm2s} MM2S and {s2mm} S2MM memtile DMA channels "
            f"({len(ins)} input(s), {len(outs)} output(s)); a memtile has {MEMTILE_DMA_CHANNELS} per direction: "
            "use fewer cores per column (and more columns)"
        )
    l1 = sum(_bytes(flow, p) * (BROADCAST_DEPTH if p.broadcast else SPLIT_DEPTH) for p in flow.ports)
    if l1 > CORE_DATA_MEMORY - CORE_STACK:
        raise IronError(
            f"{flow.op}: the L1 buffers of one core need {l1} bytes, more than the "
            f"{CORE_DATA_MEMORY - CORE_STACK} bytes a compute tile has for data; use smaller tile sizes"
        )
    l2 = sum(_bytes(flow, p) * (BROADCAST_DEPTH if p.broadcast else SPLIT_DEPTH * k) for p in flow.ports)
    if l2 > MEMTILE_MEMORY:
        raise IronError(f"{flow.op}: the memtile buffers of one column need {l2} bytes, more than "
                        f"{MEMTILE_MEMORY}; use smaller tile sizes")  # fmt: skip
    for p in flow.ports:
        a = spec[p.arg]
        if p.broadcast:
            chunk = a.nbytes
            if tuple(p.shape) != tuple(a.shape):
                raise IronError(
                    f"{flow.op}: broadcast port {p.name} shape {p.shape} != argument shape {a.shape}"
                )
        else:
            chunk = _bytes(flow, p) * k * flow.iterations
            if chunk * flow.columns != a.nbytes:
                raise IronError(f"{flow.op}: port {p.name} moves {chunk * flow.columns} bytes, argument {a.name} "
                                f"has {a.nbytes}")  # fmt: skip
        if chunk % 4:
            raise IronError(f"{flow.op}: argument {a.name} chunks of {chunk} bytes are not a multiple of 4 bytes "
                            "(shim DMA moves 32-bit words); use an even number of elements per chunk")  # fmt: skip


def _bytes(flow: Dataflow, p: Port) -> int:
    return ir.MemRefType(tuple(p.shape), flow.specs[p.arg].dtype).nbytes


# --------------------------------------------------------------------------- names and ops
def _fifo(p: Port, c: int) -> str:
    """Shim <-> memtile FIFO of port ``p`` in column ``c``."""
    return f"{p.name}_c{c}"


def _core_fifo(p: Port, c: int, k: int) -> str:
    """Memtile <-> core FIFO of port ``p`` for core ``k`` (one shared FIFO if broadcast)."""
    return f"{p.name}_c{c}_all" if p.broadcast else f"{p.name}_c{c}_{k}"


def _port_type(flow: Dataflow, p: Port) -> str:
    return memref(p.shape, flow.specs[p.arg].dtype)


def _func_decls(flow: Dataflow) -> list[ir.FuncDecl]:
    ports = {p.name: p for p in flow.ports}
    seen, out = set(), []
    for call in flow.calls:
        if call.func in seen:
            continue
        seen.add(call.func)
        types = [o.type if isinstance(o, Scalar) else _port_type(flow, ports[o]) for o in call.operands]
        out.append(ir.FuncDecl(call.func, tuple(types), flow.kernel.name))
    return out


def _fifos(flow: Dataflow, ins: list[Port], outs: list[Port], c: int) -> list:
    """Column ``c``'s object FIFOs and their links, in the order the lowering visits them."""
    shim, mem = f"tile_{c}_{SHIM_ROW}", f"tile_{c}_{MEMTILE_ROW}"
    cores = [f"tile_{c}_{FIRST_COMPUTE_ROW + k}" for k in range(flow.cores)]
    dt = lambda p: flow.specs[p.arg].dtype  # noqa: E731
    lines: list = []

    def fifo(name, src, dsts, depth, typ, dims=()):
        lines.append(ir.ObjectFifo(name, src, tuple(dsts), depth, typ, dims_to_stream=tuple(dims)))

    for p in ins:
        if p.broadcast:
            fifo(_fifo(p, c), shim, [mem], BROADCAST_DEPTH, _port_type(flow, p))
            fifo(_core_fifo(p, c, 0), mem, cores, BROADCAST_DEPTH, _port_type(flow, p), p.dims)
            lines.append(ir.ObjectFifoLink((_fifo(p, c),), (_core_fifo(p, c, 0),)))
            continue
        fifo(_fifo(p, c), shim, [mem], SPLIT_DEPTH, memref((flow.cores * _numel(p.shape),), dt(p)))
        for k, core in enumerate(cores):
            fifo(_core_fifo(p, c, k), mem, [core], SPLIT_DEPTH, _port_type(flow, p), p.dims)
        dsts = tuple(_core_fifo(p, c, k) for k in range(flow.cores))
        lines.append(ir.ObjectFifoLink((_fifo(p, c),), dsts, (), _offsets(flow, p)))
    for p in outs:
        for k, core in enumerate(cores):
            fifo(_core_fifo(p, c, k), core, [mem], SPLIT_DEPTH, _port_type(flow, p))
        fifo(_fifo(p, c), mem, [shim], SPLIT_DEPTH, memref((flow.cores * _numel(p.shape),), dt(p)), p.dims)
        srcs = tuple(_core_fifo(p, c, k) for k in range(flow.cores))
        lines.append(ir.ObjectFifoLink(srcs, (_fifo(p, c),), _offsets(flow, p), ()))
    return lines


def _offsets(flow: Dataflow, p: Port) -> tuple[int, ...]:
    """Join/distribute offsets of a split port (empty for a 1:1 link)."""
    if flow.cores == 1:
        return ()
    return tuple(k * _numel(p.shape) for k in range(flow.cores))


def _format_scalar(s: Scalar) -> str:
    if s.type.startswith("f"):
        return f"{float(s.value):.9e}"  # MLIR float literals need the '.'
    return str(int(s.value))


def _core(flow: Dataflow, c: int, k: int) -> ir.Core:
    """Core ``k`` of column ``c``: its constants, then the outer loop (broadcast buffers
    acquired per run) around ``iterations`` of acquire, call the kernel(s), release."""
    row = FIRST_COMPUTE_ROW + k
    ports = {p.name: p for p in flow.ports}
    upper = f"c{flow.iterations}" if flow.iterations > 1 else "c1"
    ops: list = [body.constant("c0", 0, "index"), body.constant("c1", 1, "index")]
    if flow.iterations > 1:
        ops.append(body.constant(upper, flow.iterations, "index"))
    scalars: dict[Scalar, str] = {}
    for o in (o for call in flow.calls for o in call.operands if isinstance(o, Scalar)):
        if o not in scalars:
            scalars[o] = f"s{len(scalars)}"
            ops.append(body.constant(scalars[o], _format_scalar(o), o.type))
    ops.append(body.constant("cmax", RUN_FOREVER, "index"))

    def mode(p: Port) -> str:
        return "Produce" if flow.specs[p.arg].writes else "Consume"

    def acquire(p: Port) -> body.Acquire:
        # today's acquire returns the buffers themselves (mlir-aie PR #3553; aie_test1.mlir)
        return body.acquire(f"buf_{p.name}", _core_fifo(p, c, k), mode(p), _port_type(flow, p))

    def release(p: Port) -> body.Release:
        return body.release(_core_fifo(p, c, k), mode(p))

    def call(step: Call) -> body.Call:
        args = [scalars[o] if isinstance(o, Scalar) else f"buf_{o}" for o in step.operands]
        types = [o.type if isinstance(o, Scalar) else _port_type(flow, ports[o]) for o in step.operands]
        return body.call(step.func, args, types)

    once = [p for p in flow.ports if p.broadcast]
    each = [p for p in flow.ports if not p.broadcast]
    tile = [*map(acquire, each), *map(call, flow.calls), *map(release, each)]
    run = [*map(acquire, once), body.loop("i", "c0", upper, "c1", tile), *map(release, once)]
    ops += [body.loop("run", "c0", "cmax", "c1", run), body.End()]
    return ir.Core(f"core_{c}_{row}", f"tile_{c}_{row}", ops)


# --------------------------------------------------------------------------- runtime sequence
def _sequence(flow: Dataflow, ins: list[Port], outs: list[Port], allocs) -> ir.RuntimeSequence:
    args = [ir.Argument(f"arg{i}", s.type) for i, s in enumerate(flow.specs)]
    seq_ops: list = []
    for c in range(flow.columns):
        bd_ids = iter(DATA_BD_IDS)
        # Outputs first so their S2MM tasks are queued before data arrives.
        for p in outs + ins:
            spec = flow.specs[p.arg]
            if p.broadcast:
                n, offset = spec.type.numel, 0
            else:
                n = spec.type.numel // flow.columns
                offset = c * n
            seq_ops.append(
                ir.DmaMemcpyNd(
                    arg=args[p.arg].name,
                    offsets=(0, 0, 0, offset),
                    sizes=(1, 1, 1, n),
                    strides=(0, 0, 0),
                    metadata=allocs[c, p.name],
                    id=next(bd_ids),
                    issue_token=spec.writes,
                )
            )
    for c in range(flow.columns):
        for p in outs:
            seq_ops.append(ir.DmaWait(allocs[c, p.name]))
    return ir.RuntimeSequence(ir.DEFAULT_SEQUENCE, args, seq_ops)
