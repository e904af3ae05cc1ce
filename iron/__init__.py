"""iron: fused AMD Ryzen AI NPU designs with one hardware-trace slice per operator call.

Typical use::

    import iron
    from iron.operators import GEMM
    art = iron.build(GEMM(M=256, K=256, N=256), trace=True)
    run = art.load()              # "sim" here, "xrt" on an NPU host with aiecc + pyxrt
    (c,) = run(a, b)
    run.trace.to_perfetto("gemm.json")

See README.md for the command line (``iron demo``, ``iron trace decode`` ...).
"""

__version__ = "0.1.0"

from iron.errors import IronError  # noqa: E402

# The build side (fuse -> design -> mlir ...) loads on first use, so that decoding a
# capture (``iron trace decode``, ``import iron.trace.decode``) imports none of it.
_LAZY = {"Sequence": "iron.fuse.fusion", "Step": "iron.fuse.fusion", "TraceOptions": "iron.options"}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value  # once
        return value
    raise AttributeError(f"module 'iron' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


def build(op_or_sequence, **kwargs):
    """Build (or fetch from the cache) the artifact of an operator or a :class:`Sequence`.

    Keyword arguments: ``trace`` (None = follow ``IRON_TRACE_SIZE``), ``trace_size``,
    ``ntiles``, ``events``, ``select``, ``trace_sizes``, ``trace_start``, ``trace_stop``,
    ``trace_units``, ``trace_ports``, ``target`` ("npu1" | "npu2"), ``dispatch``
    ("auto" | "fused" | "separate"), ``cache_dir``, ``sources``. See
    :func:`iron.artifact.build.build`.
    """
    from iron.artifact.build import build as _build

    return _build(op_or_sequence, **kwargs)


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


__all__ = ["IronError", "Sequence", "Step", "TraceOptions", "build", "from_mlir", "load", "__version__"]
