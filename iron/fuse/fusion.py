"""Fusion: a :class:`Sequence` of operator calls becomes one module and its kernels.

Fused dispatch (npu2 full ELF): one ``aie.device`` per distinct design
(``op0_GEMM`` ...) and a wrapper device ``main`` whose runtime sequence binds every
named buffer to a wrapper argument and runs each step with
``aiex.configure @dev { aiex.run @sequence(...) }``. Separate dispatch (npu1):
one kernel per call site.

Tracing (docs/design.md 3.2): each traced call site gets its own slice of one trace
buffer (:mod:`iron.instrument.layout`), appended after the wrapper's data arguments
and forwarded to the call's ``aiex.run`` as a window at the position the callee
expects. Consecutive traced calls of the same device get a reconfiguration in
between (``aiex.configure @iron_reset {}``): the firmware skips reloading an
already-loaded PDI, so without it the second call's trace task queues behind the
first call's never-finished one and its events land in the first slice. The same
holds across dispatches of one loaded artifact (a runner called in a loop): the
last call site's device is still loaded, with its trace task still active, when
the next dispatch starts, so the first call site counts the last one as its
predecessor (:func:`previous_dispatch_site`) and gets the same reconfiguration
when they run the same traced device. Why a reconfiguration and not something
cheaper: docs/ARCHITECTURE.md, "Running an artifact many times".
"""

from __future__ import annotations

from dataclasses import dataclass, field

from iron.artifact.schema import TRACE_BUFFER, Kernel, KernelArg, kernel_name
from iron.design import ArgSpec, Design, Operator
from iron.errors import IronError, OptionError
from iron.mlir import ir
from iron.mlir.check import check_device
from iron.options import TraceOptions
from iron.options import site_size as checked_site_size
from iron.target.geometry import Target, device_columns, get_target
from iron.target.xclbin import MAX_HOST_BUFFERS
from iron.instrument import layout
from iron.instrument.codegen import TracedDesign, instrument
from iron.instrument.declarative import host_buffer_size
from iron.fuse import plan as plan_mod
from iron.fuse.plan import TracePlan
from iron.artifact.manifest import Manifest, Slice

#: The wrapper takes mlir-aie's default device and sequence symbols (printed without a symbol),
#: so its kernel is ``main:sequence``.
WRAPPER_DEVICE = ir.DEFAULT_DEVICE
WRAPPER_SEQUENCE = ir.DEFAULT_SEQUENCE
RESET_DEVICE = "iron_reset"
SCRATCH_PREFIX = "scratch_"  # + element type: the host buffer that holds every intermediate
#: Alignment of each intermediate's window in its scratch buffer (bytes; one shim burst).
SCRATCH_ALIGN = 64
DISPATCH_MODES = ("auto", "fused", "separate")
#: Negative control: False drops the reconfiguration between consecutive traced calls of
#: one device (within a dispatch and from the last call site to the first). Only tests
#: clear it (iron/tests/bugs.py, "stale-trace-task").
_RESET_BETWEEN_SAME_DEVICE = True


class FuseError(IronError):
    """A sequence cannot be fused as written."""


class Step(tuple):
    """One call of a :class:`Sequence` with options of its own: ``Step(op, "x", "y",
    trace_size=4096)``.

    It is the ``(op, buffer, ...)`` tuple it stands for (code that unpacks steps works
    unchanged), plus ``trace_size``: this call site's trace bytes when the build is
    traced (0: leave it untraced), in place of the global ``trace_size`` /
    ``IRON_TRACE_SIZE``; ``trace_sizes=`` / ``IRON_TRACE_SIZES`` still override it.
    """

    trace_size: int | None

    def __new__(cls, op, *buffers: str, trace_size: int | None = None):
        step = super().__new__(cls, (op, *buffers))
        step.trace_size = (
            None if trace_size is None else checked_site_size("Step(trace_size=...)", trace_size)
        )
        return step

    def __repr__(self) -> str:
        return f"Step{tuple(self)!r}" + (
            f"[trace_size={self.trace_size}]" if self.trace_size is not None else ""
        )


@dataclass
class Sequence:
    """Operator calls run as one dispatch.

    ``steps`` are ``(operator, buffer_name, ...)`` tuples (or :class:`Step`) with names in the
    operator's ``arg_spec()`` order (operators: :class:`iron.design.Operator`). ``inputs``
    are filled by the caller, ``outputs`` returned; other names are intermediates that stay
    in device memory between steps.
    """

    name: str
    steps: list[tuple]
    inputs: list[str]
    outputs: list[str]


@dataclass
class CallSite:
    index: int
    op: Operator
    device: str  # symbol of the device it runs
    traced: bool
    call: int  # earlier call sites of the same operator


@dataclass
class FusedModule:
    """The fused module and everything later stages need to lower, run and decode it."""

    name: str
    target: Target
    dispatch: str  # "fused" or "separate"
    module: ir.Module
    schedule: list[Kernel]  # kernels in dispatch order (a kernel may appear more than once)
    buffers: dict[str, ir.MemRefType]  # every host buffer (inputs, outputs, scratch, trace) in argument order
    inputs: list[str]
    outputs: list[str]
    call_sites: list[CallSite]
    designs: dict[str, Design] = field(default_factory=dict)  # device symbol -> design
    operators: dict[str, Operator] = field(default_factory=dict)  # device symbol -> operator
    manifest: Manifest | None = None
    options: TraceOptions = field(default_factory=TraceOptions)  # what the user asked for
    #: intermediates: buffer name -> its window in a scratch host buffer
    windows: dict[str, "Window"] = field(default_factory=dict)
    plan: TracePlan | None = None  # the traced call sites, their slices and patches

    @property
    def traced(self) -> bool:
        return self.manifest is not None

    def trace_key(self) -> dict:
        """What the cache key and the artifact's meta record of the trace (:meth:`TracePlan.key`)."""
        return self.plan.key(self.options) if self.plan is not None else self.options.key()

    @property
    def kernels(self) -> list[Kernel]:
        """Distinct kernels, in first-dispatch order."""
        seen: dict[str, Kernel] = {}
        for k in self.schedule:
            seen.setdefault(k.name, k)
        return list(seen.values())


def as_sequence(op_or_sequence) -> Sequence:
    """Wrap a single operator as a one-step sequence named after its arguments."""
    if isinstance(op_or_sequence, Sequence):
        return op_or_sequence
    if not isinstance(op_or_sequence, Operator):
        raise FuseError(
            f"expected an operator (iron.design.Operator: arg_spec, design, reference) or a "
            f"Sequence, got {type(op_or_sequence).__name__}"
        )
    specs = op_or_sequence.arg_spec()
    names = [s.name for s in specs]
    return Sequence(
        op_name(op_or_sequence),
        [(op_or_sequence, *names)],
        [s.name for s in specs if s.reads],
        [s.name for s in specs if s.writes],
    )


def resolve_dispatch(dispatch: str, target: Target) -> str:
    if dispatch not in DISPATCH_MODES:
        raise FuseError(f"dispatch={dispatch!r}; accepted: {', '.join(DISPATCH_MODES)}")
    if dispatch == "auto":
        return "fused" if target.full_elf else "separate"
    if dispatch == "fused" and not target.full_elf:
        raise FuseError(
            f"dispatch='fused' needs a full ELF with several devices, which {target.name} does not "
            f"support; use dispatch='separate' (or 'auto')"
        )
    return dispatch


def fuse(
    sequence,
    target: str | Target = "npu2",
    options: TraceOptions | None = None,
    dispatch: str = "auto",
) -> FusedModule:
    """Build the fused module, kernel schedule and (when traced) the manifest."""
    seq = as_sequence(sequence)
    target = get_target(target)
    options = options or TraceOptions()
    reset = _RESET_BETWEEN_SAME_DEVICE
    mode = resolve_dispatch(dispatch, target)
    named = _buffer_types(seq)
    placed = _place_sites(seq, target, options)
    sites, designs, operators = placed.sites, placed.designs, placed.operators
    _refuse_wrapper_selection(options, sites)
    plan_mod.check_selection(options, [(s.index, op_name(s.op)) for s in sites], seq.name)  # OptionError

    buffers, windows = host_buffers(seq, named)
    traced = [
        (s.index, s.device, placed.site_sizes[s.index], placed.traced_designs[s.device].trace_arg)
        for s in sites
        if s.traced
    ]
    plan = plan_mod.lay_out(mode, len(buffers), traced, options)
    if plan.traced:
        buffers[TRACE_BUFFER] = ir.MemRefType((plan.total_size,), "i8")

    module = ir.Module([d.device for d in designs.values()])
    module.foreign = {sym for sym, op in operators.items() if getattr(op, "foreign", False)}
    if mode == "fused":
        wrapper = _wrapper(seq, target, sites, buffers, windows, plan, designs, reset)
        if runs_reset(wrapper.sequence().body):
            module.devices.append(ir.Device(_widest_device(target, designs), RESET_DEVICE))
        module.devices.append(wrapper)
        match_widths(module, wrapper)
        main = Kernel(
            kernel_name(WRAPPER_DEVICE, WRAPPER_SEQUENCE),
            WRAPPER_DEVICE,
            WRAPPER_SEQUENCE,
            _wrapper_args(buffers),
        )
        schedule = [main]
    else:
        schedule = _separate_schedule(seq, sites, buffers, windows, plan, designs, reset)
        if any(k.device == RESET_DEVICE for k in schedule):
            module.devices.append(_reset_device_with_sequence(_widest_device(target, designs)))

    _check_budget(seq.name, schedule)
    manifest = _manifest(target, sites, plan, placed.traced_designs, schedule) if plan.traced else None
    return FusedModule(
        seq.name, target, mode, module, schedule, buffers, list(seq.inputs), list(seq.outputs),
        sites, designs, operators, manifest, options, windows, plan,
    )  # fmt: skip


@dataclass
class _Placed:
    """The call sites of a sequence and the devices they run (see :func:`_place_sites`)."""

    sites: list[CallSite] = field(default_factory=list)
    #: device symbol -> design (instrumented when traced)
    designs: dict[str, Design] = field(default_factory=dict)
    operators: dict[str, object] = field(default_factory=dict)  # device symbol -> operator
    traced_designs: dict[str, TracedDesign] = field(default_factory=dict)  # traced device symbol -> its trace
    site_sizes: dict[int, int] = field(default_factory=dict)  # traced call site -> its slice's bytes


def _place_sites(seq: Sequence, target: Target, options: TraceOptions) -> _Placed:
    """One device per distinct (operator, traced, slice size), named after first use
    (``op<i>_<name>``), instrumented when traced; every step a call site of one of them."""
    placed = _Placed()
    devices: dict[tuple, str] = {}
    calls: dict[str, int] = {}
    for i, (op, *_names) in enumerate(seq.steps):
        cls = op_name(op)
        slice_size = _site_trace_size(seq.steps[i], op, i, target, options)
        # A foreign design whose kept trace is already lowered (its own register writes and
        # drain) gets none of iron's; a kept aie.trace configuration iron lowers itself.
        traced = plan_mod.selects(options, i, cls) and getattr(op, "traceable", True) and slice_size > 0
        if traced:
            placed.site_sizes[i] = slice_size
        key = (op, traced, slice_size if traced else 0)  # the drain BD's length is per size
        if key not in devices:
            symbol = f"op{len(devices)}_{cls}"
            devices[key] = symbol
            design = op.design(target)
            design.device.symbol = symbol
            if traced:
                # a design its device cannot hold is refused before units are chosen on it
                # (a tile row of 2**31 would make the route bound count 2**31 rows)
                check_device(design.device, seq.name)
                placed.traced_designs[symbol] = instrument(design, options, target, slice_size)
                design = placed.traced_designs[symbol].design
            placed.designs[symbol] = design
            placed.operators[symbol] = op
        placed.sites.append(CallSite(i, op, devices[key], traced, calls.get(cls, 0)))
        calls[cls] = calls.get(cls, 0) + 1
    return placed


def _site_trace_size(step, op, i: int, target: Target, options: TraceOptions) -> int:
    """Trace bytes of call site ``i`` (0: untraced): ``trace_sizes``, else the step's own
    ``Step(trace_size=)``, else a kept ``aie.trace.host_config``, else the global size."""
    own_size = getattr(step, "trace_size", None)  # Step(trace_size=), else host_config
    if own_size is None and options.enabled:
        own_size = _host_config_size(op, target)
    return plan_mod.site_size(options, i, own_size)


def _refuse_wrapper_selection(options: TraceOptions, sites: list[CallSite]) -> None:
    """``IRON_TRACE_OP`` naming the wrapper (``main``) when no call site is called so: the
    wrapper this module writes holds no tiles, so it has no trace units of its own."""
    if not options.enabled or not options.select:
        return
    names = {op_name(s.op).lower() for s in sites}
    if (
        any(isinstance(i, str) and i.lower() == WRAPPER_DEVICE for i in options.select)
        and WRAPPER_DEVICE not in names
    ):
        raise OptionError(
            f"{options.origin('select')} names {WRAPPER_DEVICE!r}, the wrapper device iron.build writes: it holds "
            "no tiles (only aiex.configure/aiex.run), so it has no trace units of its own; select call sites "
            '(docs/guide.md "Foreign designs"). `iron trace wire` traces a wrapper that has tiles of its own'
        )


def _host_config_size(op, target: Target) -> int | None:
    """Trace bytes a foreign design that keeps its ``aie.trace`` configuration asks for in
    its ``aie.trace.host_config`` (None: no such design, or no host_config). Below
    ``trace_sizes`` and ``Step(trace_size=)``, above the global size."""
    if not getattr(op, "trace_config", None) or getattr(op, "existing_trace", "") != "keep":
        return None
    design = op.design(target)
    size = host_buffer_size(design.device.sequence(design.sequence))
    if size is None:
        return None
    return checked_site_size(f"aie.trace.host_config buffer_size of {op_name(op)}", size)


def op_name(op) -> str:
    """An operator's name in device symbols, manifests and selections: its class name,
    or the ``op_name`` a foreign design was given (:mod:`iron.operators.foreign`)."""
    return getattr(op, "op_name", None) or type(op).__name__


def _buffer_types(seq: Sequence) -> dict[str, ir.MemRefType]:
    """Every named buffer's type: inputs, outputs, then intermediates in first-use order."""
    if not seq.steps:
        raise FuseError(f"sequence {seq.name!r} has no steps")
    seen: dict[str, tuple[ArgSpec, int]] = {}
    produced: set[str] = set()
    for i, (op, *names) in enumerate(seq.steps):
        if not isinstance(op, Operator):
            raise FuseError(
                f"step {i}: {type(op).__name__} is no operator (iron.design.Operator: arg_spec, design, "
                "reference)"
            )
        specs = op.arg_spec()
        if len(names) != len(specs):
            raise FuseError(
                f"step {i} ({op_name(op)}) takes {len(specs)} buffers "
                f"({', '.join(s.name for s in specs)}); got {len(names)}: {', '.join(names)}"
            )
        for name, spec in zip(names, specs):
            if name == TRACE_BUFFER or name.startswith(SCRATCH_PREFIX):
                raise FuseError(
                    f"step {i}: buffer name {name!r} is reserved (iron names its trace buffer "
                    f"{TRACE_BUFFER!r} and its scratch buffers {SCRATCH_PREFIX}<type>)"
                )
            if name in seen and not _compatible(seen[name][0].type, spec.type):
                first, j = seen[name]
                raise FuseError(
                    f"buffer {name!r} is {first.type} in step {j} but {spec.type} in step {i} "
                    f"({type(op).__name__}); a buffer may change shape, not element type or size"
                )
            seen.setdefault(name, (spec, i))
            if spec.reads and name not in produced and name not in seq.inputs:
                raise FuseError(f"step {i} ({type(op).__name__}) reads {name!r} before any step writes it")
            if spec.writes:
                produced.add(name)
    for name in [*seq.inputs, *seq.outputs]:
        if name not in seen:
            raise FuseError(f"sequence {seq.name!r}: buffer {name!r} is not used by any step")
    for name in seq.outputs:
        if name not in produced:
            raise FuseError(f"sequence {seq.name!r}: output {name!r} is never written")
    order = list(dict.fromkeys([*seq.inputs, *seq.outputs, *seen]))
    return {name: seen[name][0].type for name in order}


def _compatible(a: ir.MemRefType, b: ir.MemRefType) -> bool:
    """Steps may view one buffer with different shapes (a reshape), never other bytes."""
    return a.dtype == b.dtype and a.numel == b.numel


@dataclass(frozen=True)
class Window:
    """Where an intermediate lives: ``type``'s bytes at ``offset`` of host buffer ``buffer``."""

    buffer: str
    offset: int  # bytes
    type: ir.MemRefType


def host_buffers(seq: Sequence, named: dict[str, ir.MemRefType]):
    """The host buffers a dispatch binds, and a window for every intermediate.

    Inputs and outputs are host buffers of their own; every intermediate is a
    window of one scratch buffer per element type (windows keep their element
    type: ``memref.subview`` + ``reinterpret_cast`` cannot change it), so the
    host-buffer count does not grow with the number of steps. Windows start at
    multiples of :data:`SCRATCH_ALIGN` bytes, in first-use order.
    """
    io = set(seq.inputs) | set(seq.outputs)
    host = {n: t for n, t in named.items() if n in io}
    windows: dict[str, Window] = {}
    used: dict[str, int] = {}  # scratch buffer -> bytes so far
    for name, t in named.items():
        if name in io:
            continue
        buf = SCRATCH_PREFIX + t.dtype
        offset = -(-used.get(buf, 0) // SCRATCH_ALIGN) * SCRATCH_ALIGN
        windows[name] = Window(buf, offset, t)
        used[buf] = offset + t.nbytes
    for buf, nbytes in used.items():
        dtype = buf[len(SCRATCH_PREFIX) :]
        host[buf] = ir.MemRefType((nbytes // ir.ELEMENT_BYTES[dtype],), dtype)
    return host, windows


def _check_budget(name: str, schedule: list[Kernel]) -> None:
    for k in schedule:
        if len(k.args) > MAX_HOST_BUFFERS:
            raise FuseError(
                f"{name}: kernel {k.name} binds {len(k.args)} host buffers "
                f"({', '.join(a.buffer for a in k.args)}); XRT's xclbin flow accepts at most "
                f"{MAX_HOST_BUFFERS}: use fewer inputs/outputs per dispatch"
            )


def _bind(name: str, buffers, windows) -> tuple[str, int, ir.MemRefType]:
    """(host buffer, byte offset, host buffer type) that holds named buffer ``name``."""
    if name in windows:
        w = windows[name]
        return w.buffer, w.offset, buffers[w.buffer]
    return name, 0, buffers[name]


def _wrapper_args(buffers: dict[str, ir.MemRefType]) -> list[KernelArg]:
    return [KernelArg(name, t) for name, t in buffers.items()]


def previous_dispatch_site(sites: list[CallSite]) -> CallSite | None:
    """The call site that ran just before this dispatch's first one on the same context.

    That is the last call site of the previous dispatch of this same artifact: its
    device stays loaded and its trace task stays active (a drain BD is never filled),
    and a fresh context has nothing loaded, so pairing the first site with the last
    is right for every run. Costs one reset PDI load per dispatch only when the
    first and last sites run the same traced device.
    """
    return sites[-1] if sites else None


def needs_reset(prev: CallSite | None, site: CallSite, enabled: bool) -> bool:
    """Whether ``site`` needs the reset device loaded before it (``enabled``: the build's
    reset is on): it and the site before it (``prev``) are traced and run the same device."""
    return enabled and prev is not None and prev.traced and site.traced and prev.device == site.device


def _wrapper(seq, target, sites, buffers, windows, plan, designs, reset) -> ir.Device:
    """The wrapper device ``main`` with one configure/run per call site."""
    arg_name = {name: f"arg{i}" for i, name in enumerate(buffers)}
    body: list = []
    prev = previous_dispatch_site(sites)
    for site, (_op, *names) in zip(sites, seq.steps):
        if needs_reset(prev, site, reset):
            body.append(ir.Configure(RESET_DEVICE, []))
        design = designs[site.device]
        callee = design.runtime_sequence
        ops: list = []
        args = []
        for j, name in enumerate(names):
            want = callee.args[j].type
            host, offset, host_type = _bind(name, buffers, windows)
            if host_type == want:
                args.append(arg_name[host])
            else:  # a window of the host buffer, or the same bytes in another shape
                elems = offset // ir.ELEMENT_BYTES[want.dtype]
                ops.append(ir.View(f"v{site.index}_{j}", arg_name[host], elems, want))
                args.append(ops[-1].name)
        if site.traced:
            span = plan.site(site.index)
            view = ir.View(
                f"trace{site.index}", f"arg{span.arg_index}", span.arg_plus, ir.MemRefType((span.size,), "i8")
            )
            ops.append(view)
            args.append(view.name)
        ops.append(ir.Run(callee.name, args, [a.type for a in callee.args]))
        body.append(ir.Configure(site.device, ops))
        prev = site
    sequence = ir.RuntimeSequence(
        WRAPPER_SEQUENCE, [ir.Argument(arg_name[n], t) for n, t in buffers.items()], body
    )
    # As wide as the widest callee (upstream's fused tests: ``aie.device(npu2_1col) @main``).
    return ir.Device(_widest_device(target, designs), WRAPPER_DEVICE, [sequence])


def match_widths(module: ir.Module, wrapper: ir.Device) -> list[str]:
    """Give every device ``wrapper`` configures the wrapper's device type (in place); the
    symbols changed. mlir-aie's ``ConfigureOp::verify`` (lib/Dialect/AIEX/IR/AIEXDialect.cpp)
    rejects an ``aiex.configure`` whose device type differs from its parent's ("Device types
    do not match"), and ``npu2_1col`` is another type than ``npu2``. The wrapper is the
    widest device (:func:`_widest_device`), so each callee's tiles stay inside it."""
    changed = []
    configured = {
        op.device for seq in wrapper.sequences for op in ir.walk(seq.body) if isinstance(op, ir.Configure)
    }
    for dev in module.devices:
        if dev is not wrapper and dev.symbol in configured and dev.target != wrapper.target:
            if device_columns(dev.target) > device_columns(wrapper.target):
                raise IronError(
                    f"device @{dev.symbol} ({dev.target}) is wider than @{wrapper.symbol} ({wrapper.target}), "
                    "which configures it"
                )
            dev.target = wrapper.target
            changed.append(dev.symbol)
    return changed


def runs_reset(body: list) -> bool:
    """Whether a wrapper body configures the empty reset device (then the module must declare it)."""
    return any(isinstance(op, ir.Configure) and op.device == RESET_DEVICE for op in body)


def _widest_device(target: Target, designs: dict[str, Design]) -> str:
    """The smallest device name covering every design's columns: the wrapper's and the
    empty reset device's (an xclbin's partition is as wide as its first device)."""
    return target.device_name(max(device_columns(d.device.target) for d in designs.values()))


def _reset_device_with_sequence(device_name: str) -> ir.Device:
    # Separate dispatch reaches the reset PDI through a kernel of its own.
    return ir.Device(device_name, RESET_DEVICE, [ir.RuntimeSequence(WRAPPER_SEQUENCE, [], [])])


def _separate_schedule(seq, sites, buffers, windows, plan, designs, reset) -> list[Kernel]:
    schedule: list[Kernel] = []
    prev = previous_dispatch_site(sites)
    for site, (_op, *names) in zip(sites, seq.steps):
        if needs_reset(prev, site, reset):
            schedule.append(
                Kernel(kernel_name(RESET_DEVICE, WRAPPER_SEQUENCE), RESET_DEVICE, WRAPPER_SEQUENCE, [])
            )
        callee = designs[site.device].runtime_sequence
        args = []
        for n in names:
            host, offset, _ = _bind(n, buffers, windows)
            args.append(KernelArg(host, windows[n].type if n in windows else buffers[n], offset))
        if site.traced:
            span = plan.site(site.index)
            args.append(KernelArg(TRACE_BUFFER, ir.MemRefType((span.size,), "i8"), span.offset))
        schedule.append(Kernel(kernel_name(site.device, callee.name), site.device, callee.name, args))
        prev = site
    return schedule


def _manifest(target, sites, plan: TracePlan, traced_designs, schedule) -> Manifest:
    columns = max(device_columns(d.design.device.target) for d in traced_designs.values())
    slices = []
    for site in sites:
        if not site.traced:
            continue
        span = plan.site(site.index)
        td = traced_designs[site.device]
        kernel = (
            schedule[0].name if plan.mode == layout.FUSED else kernel_name(site.device, td.design.sequence)
        )
        slices.append(
            Slice(
                index=site.index,
                operator=op_name(site.op),
                call=site.call,
                device=site.device,
                sequence=td.design.sequence,
                offset=span.offset,
                size=span.size,
                units=[_copy_unit(u) for u in td.units],
                kernel=kernel,
                arg_index=span.arg_index,
            )
        )
    return Manifest(
        target=target.name,
        columns=columns,
        column_offset=target.column_offset,
        clock_mhz=target.clock_mhz,
        kernel=schedule[0].name if plan.mode == layout.FUSED else "",
        trace_arg_index=plan.trace_arg_index,
        total_size=plan.total_size,
        slices=slices,
    )


def _copy_unit(unit):
    return unit.replace(events=list(unit.events), event_ids=list(unit.event_ids))
