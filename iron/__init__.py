"""iron: fused AMD Ryzen AI NPU designs with one hardware-trace slice per operator call.

Typical use::

    import iron
    from iron.operators import GEMM
    art = iron.build(GEMM(M=256, K=256, N=256), trace=True)
    runner = art.load()           # "sim" here, "xrt" on an NPU host with aiecc + pyxrt
    c = runner(a, b)
    runner.trace.to_perfetto("gemm.json")

See README.md for the command line (``iron demo``, ``iron trace decode`` ...).
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
):
    """Build (or fetch from the cache) the artifact of an operator or a :class:`Sequence`.

    ``trace=None`` follows the environment (``IRON_TRACE_SIZE`` ...); the explicit trace
    keywords win: ``trace_size``, ``ntiles``, ``events``, ``select``, ``trace_mode``
    (``event-time`` or ``event-pc`` for core units), ``trace_sizes`` per call site,
    ``trace_start`` / ``trace_stop`` events, ``trace_units`` at chosen tiles,
    ``trace_ports`` (the stream-switch port each PORT_*_n slot watches); their forms:
    :func:`iron.options.resolve`. ``target``: "npu1" | "npu2"; ``dispatch``: "auto" |
    "fused" | "separate"; ``sources`` embeds the design sources (None:
    ``IRON_DEBUG_SOURCES``). See :func:`iron.artifact.build.build`.
    """
    from iron.artifact.build import build as _build
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
    )


def load(artifact, device: str = "auto"):
    """A runner for ``artifact`` on ``device`` ("auto", "sim" or "xrt"); ``art.load(device)``
    calls this. The facade is the one place that knows both the runtime and the operator
    library: sim gets the operators it runs from :func:`iron.operators.from_payload`."""
    from iron.operators import from_payload
    from iron.runtime.runner import load as _load

    return _load(artifact, device, operators=from_payload)


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
    "__version__",
]
