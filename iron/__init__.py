"""iron: fused AMD Ryzen AI NPU designs with one hardware-trace slice per operator call.

Typical use::

    import iron
    from iron.operators import GEMM
    art = iron.build(GEMM(M=256, K=256, N=256), trace=True)
    runner = art.load()           # "sim" here, "xrt" on an NPU host with aiecc + pyxrt
    c = runner(a, b)
    runner.trace.to_perfetto("gemm.json")

See README.md and docs/reference.md for the command line (``iron demo``, ``iron trace decode`` ...).
"""

__version__ = "0.1.0"

from iron.errors import IronError  # noqa: E402

# The build side (fuse -> design -> mlir ...) loads on first use, so that decoding a
# capture (``iron trace decode``, ``import iron.trace.decode``) imports none of it.
# A name that is the module's own last component is the module itself (``iron.bf16``).
_LAZY = {
    "Sequence": "iron.fuse.fusion",
    "Step": "iron.fuse.fusion",
    "TraceOptions": "iron.options",
    "bf16": "iron.bf16",
}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        module = importlib.import_module(_LAZY[name])
        value = module if _LAZY[name] == f"iron.{name}" else getattr(module, name)
        globals()[name] = value  # once
        return value
    raise AttributeError(f"module 'iron' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


def build(
    op_or_sequence,
    *,
    trace: bool | None = None,
    trace_size: int | None = None,
    ntiles: int | None = None,
    events=None,
    select=None,
    trace_mode: str | None = None,
    trace_sizes=None,
    trace_start: str | None = None,
    trace_stop: str | None = None,
    trace_units=None,
    trace_ports=None,
    target: str = "npu2",
    dispatch: str = "auto",
    cache_dir=None,
    sources: bool | None = None,
    backend: str | None = None,
):
    """Build (or fetch from the cache) the artifact of an operator or a :class:`Sequence`.

    ``trace=None`` follows the environment (``IRON_TRACE_SIZE`` ...); the explicit trace
    keywords win: ``trace_size``, ``ntiles``, ``events``, ``select``, ``trace_mode``
    (``event-time`` or ``event-pc`` for core units), ``trace_sizes`` per call site,
    ``trace_start`` / ``trace_stop`` events, ``trace_units`` at chosen tiles,
    ``trace_ports`` (the stream-switch port each PORT_*_n slot watches); their forms:
    :func:`iron.options.resolve`. ``target``: "npu1" | "npu2"; ``dispatch``: "auto" |
    "fused" | "separate"; ``sources`` embeds the design sources (None:
    ``IRON_DEBUG_SOURCES``); ``backend``: ``"auto"`` | ``"builtin"`` | ``"aiecc"`` (None:
    ``IRON_BACKEND``, default ``auto``; what ``auto`` means here: :func:`machine`).
    See :func:`iron.builder.build.build`.
    """
    from iron.builder.build import build as _build
    from iron.options import from_build_kwargs

    options = from_build_kwargs(
        trace, trace_size=trace_size, ntiles=ntiles, events=events, select=select, trace_mode=trace_mode,
        trace_sizes=trace_sizes, trace_start=trace_start, trace_stop=trace_stop, trace_units=trace_units,
        trace_ports=trace_ports,
    )  # fmt: skip
    return _build(
        op_or_sequence,
        options=options,
        target=target,
        dispatch=dispatch,
        cache_dir=cache_dir,
        sources=sources,
        backend=machine(backend, target=target).backend,
    )


class Machine:
    """Where this machine builds and runs: ``backend`` (``builtin`` | ``aiecc``), ``device``
    (``sim`` | ``xrt``), and ``why`` in words (what :func:`machine` found)."""

    def __init__(self, backend: str, device: str, why: str):
        self.backend, self.device, self.why = backend, device, why

    def __repr__(self) -> str:
        return f"Machine(backend={self.backend!r}, device={self.device!r})"


class MachineError(IronError):
    """The backend or device asked for is not on this machine."""


def machine(
    backend: str | None = None, device: str | None = None, *, target: str = "npu2", env=None
) -> Machine:
    """The one place that decides where to build and run (``IRON_BACKEND``, ``IRON_DEVICE``).

    ``auto`` resolves by what is installed: an NPU of ``target``'s generation (pyxrt
    opens device 0) and mlir-aie's toolchain -> ``aiecc`` + ``xrt``; otherwise iron's
    ``builtin`` lowering + ``sim`` (a toolchain without an NPU builds with aiecc only when
    asked). Asking for ``xrt`` without an NPU, or for ``aiecc`` without the toolchain, is
    one :class:`MachineError`; so are the pairs that cannot work (``builtin`` on ``xrt``).
    """
    from iron import options as opts
    from iron.builder import aiecc
    from iron.runtime import xrt

    b, d = opts.backend_choice(backend, env), opts.device_choice(device, env)
    toolchain = aiecc.available()
    npu, why_not = (False, "") if (d == "sim" or b == "builtin") and d != "xrt" else xrt.probe()
    generation = xrt.probe_target() if npu else None
    if d == "xrt" and not npu:
        raise MachineError(
            f"device 'xrt' (device= or IRON_DEVICE) asked for, but {why_not}; use device 'sim'"
        )
    fits = npu and generation in (None, target)
    if d == "auto":
        d = "xrt" if fits and toolchain and b != "builtin" else "sim"
    if b == "auto":
        b = "aiecc" if d == "xrt" else "builtin"
    if b == "aiecc" and not toolchain:
        raise MachineError(
            "backend 'aiecc' (backend= or IRON_BACKEND) asked for, but mlir-aie's aiecc is not on PATH "
            "(source mlir-aie's utils/env_setup.sh, or put its install's bin on PATH)"
        )
    if d == "xrt" and b == "builtin":
        raise MachineError("device 'xrt' runs aiecc builds only; iron's built-in artifacts run on 'sim'")
    if d == "xrt":
        why = "an NPU and mlir-aie's toolchain are present"
    elif npu and not fits:
        why = f"the NPU is {generation}, the build targets {target}"
    elif toolchain and b == "builtin":
        why = "no NPU: sim runs iron's built-in lowering" + (f" ({why_not})" if why_not else "")
    else:
        why = "no mlir-aie toolchain and NPU" if not toolchain else "asked for"
    return Machine(b, d, why)


def load(artifact, device: str | None = None, *, kernels=None):
    """A runner for ``artifact`` on ``device`` ("auto", "sim" or "xrt"; None:
    ``IRON_DEVICE``, default auto); ``art.load(device)`` calls this. The facade is the one
    place that knows both the runtime and the operator library: sim gets the operators it
    runs from :func:`iron.operators.from_payload`.

    ``kernels``: sim's models of kernels it has none of (an object you compiled
    yourself), ``{"symbol": fn}``: ``fn`` gets the call's operands in order (numpy views
    of the L1 buffers shaped as their memref types, bf16 as uint16 bit patterns; scalars
    as Python numbers) and writes its outputs in place; it wins over sim's own model of
    that symbol. Ignored on an NPU. Without a model, the outputs that kernel's results
    reach come back as :class:`iron.design.NotModelled` naming it; the others are computed."""
    from iron.operators import from_payload
    from iron.options import device_choice
    from iron.runtime.runner import load as _load

    device = device if device is not None else device_choice()
    return _load(artifact, device, operators=from_payload, kernels=kernels)


def from_mlir(source, **kwargs):
    """An operator from an mlir-aie design (MLIR text, a path, an ``aie.iron`` Program or an
    ``aie.ir`` Module): see :func:`iron.operators.foreign.from_mlir`."""
    from iron.operators.foreign import from_mlir as _from_mlir

    return _from_mlir(source, **kwargs)


__all__ = [
    "IronError",
    "Sequence",
    "Step",
    "TraceOptions",
    "bf16",
    "build",
    "from_mlir",
    "load",
    "machine",
    "Machine",
    "MachineError",
    "__version__",
]
