"""Helpers for operator tests, and tracing inside pytest.

:func:`check_operator` builds an operator (or a :class:`iron.Sequence`) untraced,
runs it where this machine runs (:func:`iron.machine`: the NPU with an aiecc build when
pyxrt, an NPU and mlir-aie are present, else sim with iron's lowering; ``IRON_BACKEND``,
``IRON_DEVICE`` choose explicitly) and compares with the numpy reference. When tracing is on in
the environment (``IRON_TRACE_SIZE``, see :mod:`iron.options`) it also builds
and runs it traced and checks that

* traced outputs equal untraced outputs bitwise,
* every slice decodes without a failing status and holds only its own call's units
  (a slice that filled warns: :data:`iron.trace.decode.diagnostics.STATUSES`),

then writes ``trace.pftrace`` (Perfetto's native trace), ``summary.txt`` and
``capture.npz`` (``iron trace decode capture.npz --format perfetto`` gives JSON) under
``IRON_TRACE_DIR/<test node id>/``. ``IRON_TRACE_OP`` picks the call sites of
checks that follow the environment (``trace=None``); a check none of whose call
sites it selects runs untraced, with an :class:`UntracedWarning` saying so. Checks
that force tracing (``trace=True``) trace every call site. The ``check_operator`` fixture of
``iron/tests/conftest.py`` passes the pytest request along::

    def test_add(check_operator):
        check_operator(ElementwiseAdd(4096))

Documented traced run of the suite: ``IRON_TRACE_SIZE=65536 IRON_TRACE_NTILES=4 pytest iron/tests``.
"""

from __future__ import annotations

import os
import re
import warnings
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from iron import options as opts_mod
from iron.bf16 import from_bf16
from iron.errors import OptionError
from iron.files import atomic_write
from iron.fuse import plan as trace_plan
from iron.fuse.fusion import Sequence, as_sequence
from iron.trace.decode.diagnostics import FAILED_STATUSES


class CheckError(AssertionError):
    """An operator check failed (outputs differ, a slice is bad ...)."""


#: Variables the test session set aside from ``os.environ`` for operator checks only
#: (``iron/tests/conftest.py`` moves ``IRON_TRACE_OP`` here).
SUITE_ENV: dict[str, str] = {}


class UntracedWarning(UserWarning):
    """A traced test run left one test untraced (``IRON_TRACE_OP`` names none of its call sites)."""


@dataclass
class CheckResult:
    outputs: tuple  # untraced outputs, in the artifact's output order
    traced_outputs: tuple | None = None
    trace: object | None = None  # DecodedTrace of the traced run
    trace_dir: Path | None = None
    device: str = "sim"  # where it ran: "sim" | "xrt"
    backend: str = "builtin"  # what built it: "builtin" | "aiecc"


def first_difference(got, want) -> str:
    """Where two arrays of one shape first differ: ``index (i, j): got x, expected y``
    (bitwise, so NaN patterns and -0.0 count), and how many elements differ."""
    g = np.ascontiguousarray(got)
    w = np.ascontiguousarray(np.asarray(want).astype(g.dtype, copy=False).reshape(g.shape))
    item = g.dtype.itemsize
    bad = (g.view(np.uint8).reshape(-1, item) != w.view(np.uint8).reshape(-1, item)).any(axis=1)
    count = int(np.count_nonzero(bad))
    if not count:
        return "no element differs"
    flat = int(np.argmax(bad))
    index = np.unravel_index(flat, g.shape) if g.ndim else ()
    return (
        f"{count} element(s) differ; first at index {tuple(int(i) for i in index)}: "
        f"got {g.reshape(-1)[flat].item()!r}, expected {w.reshape(-1)[flat].item()!r}"
    )


def slug(text: str) -> str:
    """A file-system-safe name for a pytest node id."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "test"


def example_inputs(seq: Sequence, seed: int = 0) -> dict[str, np.ndarray]:
    """Inputs of a sequence from the ``example_inputs`` of the step that reads each first."""
    out: dict[str, np.ndarray] = {}
    for op, *names in seq.steps:
        specs = op.arg_spec()
        ins = [(n, s) for n, s in zip(names, specs) if s.reads]
        if not any(n in seq.inputs and n not in out for n, _ in ins):
            continue
        values = op.example_inputs(seed)
        for (n, _s), v in zip(ins, values):
            if n in seq.inputs and n not in out:
                out[n] = np.asarray(v)
    return {n: out[n] for n in seq.inputs}


def reference(seq: Sequence, inputs: dict[str, np.ndarray]) -> tuple:
    """Outputs of a sequence by chaining every step's numpy reference."""
    env, _ = _chain(seq, inputs, scales=False)
    return tuple(env[n] for n in seq.outputs)


def reference_scales(seq: Sequence, inputs: dict[str, np.ndarray]) -> tuple:
    """Per output of the sequence, the magnitude at which its bf16 ulps are counted (see
    :func:`matches_reference`): the ``reference_scale`` of the step that wrote it last,
    from that step's reference inputs, or None (the values themselves) when that step
    declares none."""
    _, scales = _chain(seq, inputs, scales=True)
    return tuple(scales.get(n) for n in seq.outputs)


def _chain(seq: Sequence, inputs: dict, scales: bool) -> tuple[dict, dict]:
    env, scale = dict(inputs), {}
    for op, *names in seq.steps:
        specs = op.arg_spec()
        # A step may view a buffer with another shape of the same size (see iron.fuse.fusion).
        args = [np.reshape(env[n], s.shape) for n, s in zip(names, specs) if s.reads]
        outs = _as_tuple(op.reference(*args))
        written = [n for n, s in zip(names, specs) if s.writes]
        declared = _as_tuple(op.reference_scale(*args)) if scales and hasattr(op, "reference_scale") else ()
        for i, (n, v) in enumerate(zip(written, outs)):
            env[n] = v
            scale.pop(n, None)
            if i < len(declared):
                scale[n] = declared[i]
    return env, scale


def reference_ulps(seq: Sequence) -> int:
    """bf16 ulps an executed output may differ from the chained references: the sum over
    the steps of each operator's ``reference_ulps`` (0 where it does not say), since each
    step may add its own rounding (:mod:`iron.runtime.sim.kernel_models` says why kernels
    round differently from a float64 reference)."""
    return sum(int(getattr(op, "reference_ulps", 0)) for op, *_names in seq.steps)


def matches_reference(got, want, ulps: int = 0, scale=None) -> bool:
    """``got`` equals ``want`` bitwise, or, for bf16 data (uint16 bit patterns) with
    ``ulps`` > 0, each element is within ``ulps`` bf16 units in the last place of the
    largest magnitude of the pair and of ``scale`` (an array of the same size, e.g. an
    operator's ``reference_scale``; None: the pair only). NaN only where the reference
    has NaN."""
    g = np.ascontiguousarray(got)
    w = np.ascontiguousarray(np.asarray(want).astype(g.dtype, copy=False).reshape(g.shape))
    if same_bits(g, w):
        return True
    if not ulps or g.dtype != np.uint16:
        return False
    gf, wf = from_bf16(g).astype(np.float64), from_bf16(w).astype(np.float64)
    if not np.array_equal(np.isnan(gf), np.isnan(wf)):
        return False
    ok = ~np.isnan(wf)
    big = np.maximum(np.abs(gf), np.abs(wf))
    if scale is not None:
        big = np.maximum(big, np.abs(np.asarray(scale, np.float64)).reshape(big.shape))
    big = big[ok]
    ulp = np.exp2(np.floor(np.log2(np.maximum(big, np.finfo(np.float32).tiny))) - 7)  # bf16: 7 fraction bits
    return bool(np.all(np.abs(gf[ok] - wf[ok]) <= ulps * ulp))


def same_bits(a, b) -> bool:
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return (
        a.shape == b.shape and a.dtype == b.dtype and a.view(np.uint8).tobytes() == b.view(np.uint8).tobytes()
    )


class TraceFullWarning(UserWarning):
    """A checked slice filled (status ``full``): its buffer was too small for the run."""


def check_slices(trace) -> None:
    """Every slice decodes without a failing status (``empty``, ``bad_headers``; a ``full``
    slice warns with :class:`TraceFullWarning`: the meaning of each status and which fail
    is :data:`iron.trace.decode.diagnostics.STATUSES`), holds unit data, and every unit
    in it is one of the slice's configured units."""
    for s in trace.slices:
        if s.status in FAILED_STATUSES:
            raise CheckError(f"trace slice {s.label}: status {s.status} ({s.diagnostics})")
        if s.status == "full":
            warnings.warn(
                f"trace slice {s.label} filled its {s.slice.size} bytes: later packets were dropped "
                "(a larger IRON_TRACE_SIZE / IRON_TRACE_SIZES keeps them)",
                TraceFullWarning,
                stacklevel=2,
            )
        stray = [u.label for u in s.units if u.unit is None]
        if stray:
            raise CheckError(
                f"trace slice {s.label} holds units of another call or design: {', '.join(stray)}"
            )
        if not s.units:
            raise CheckError(f"trace slice {s.label} holds no unit data")


def _as_tuple(x) -> tuple:
    return x if isinstance(x, tuple) else (x,)


def check_operator(op_or_sequence, inputs=None, *, request=None, target: str = "npu2", cache_dir=None,
                   dispatch: str = "auto", trace: bool | None = None, backend: str | None = None,
                   device: str | None = None) -> CheckResult:  # fmt: skip
    """Run untraced and compare with the reference; traced too when the environment says so.

    ``inputs``: arrays in input order, or a dict by name; default: the
    operators' ``example_inputs(0)``. ``request``: pytest's request (names the
    trace output directory). ``trace``: None follows ``IRON_TRACE_SIZE``, True
    always runs traced as well (size from the environment or the default),
    False never. ``backend`` / ``device``: None follows ``IRON_BACKEND`` /
    ``IRON_DEVICE`` (default ``auto``, :func:`iron.machine`); the result says which
    ran it. Raises :class:`CheckError` on any mismatch, naming the first differing element.
    """
    from iron import build, machine
    from iron.builder.build import build as build_with

    where = machine(backend, device, target=target, env={**os.environ, **SUITE_ENV})

    seq = as_sequence(op_or_sequence)
    named = _named_inputs(seq, inputs)
    ordered = [named[n] for n in seq.inputs]
    expected = reference(seq, named)

    plain = build(op_or_sequence, trace=False, target=target, cache_dir=cache_dir, dispatch=dispatch,
                  backend=where.backend)  # fmt: skip
    with plain.load(where.device) as runner:
        outputs = _as_tuple(runner(*ordered))
    on = f"on {where.device} ({where.backend} build)"
    _check_reference(seq, named, outputs, expected, on)
    result = CheckResult(outputs, device=where.device, backend=where.backend)
    if request is not None:  # the report says where each check ran
        request.node.user_properties.append(("iron_device", f"{where.device} ({where.backend} build)"))

    options, select = _trace_choice(seq, trace)
    if options is None:
        return result
    traced = build_with(op_or_sequence, options=replace(options, select=tuple(select)), target=target,
                        cache_dir=cache_dir, dispatch=dispatch, backend=where.backend)  # fmt: skip
    runner = traced.load(where.device)
    t_outputs = _as_tuple(runner(*ordered))
    runner.close()
    for name, a, b in zip(seq.outputs, outputs, t_outputs):
        if not same_bits(a, b):
            raise CheckError(
                f"{seq.name} {on}: traced output {name!r} differs from the untraced run: {first_difference(b, a)}"
            )
    trace = runner.trace
    result.traced_outputs, result.trace = t_outputs, trace
    node = request.node.nodeid if request is not None else seq.name
    result.trace_dir = _save_trace(trace, Path(options.out_dir) / slug(node), on)
    check_slices(trace)
    return result


def _named_inputs(seq: Sequence, inputs) -> dict:
    """The check's inputs by name: ``inputs`` (a dict, or arrays in input order), else the
    operators' example inputs."""
    if inputs is None:
        return example_inputs(seq)
    if isinstance(inputs, dict):
        return dict(inputs)
    return dict(zip(seq.inputs, inputs))


def _check_reference(seq: Sequence, named: dict, outputs: tuple, expected, on: str) -> None:
    """Raise :class:`CheckError` at the first output that differs from the numpy reference
    (by more than the sequence's bf16 ulps, when it allows some)."""
    ulps = reference_ulps(seq)
    scales = reference_scales(seq, named) if ulps else (None,) * len(expected)
    for name, got, want, scale in zip(seq.outputs, outputs, expected, scales):
        if not matches_reference(got, want, ulps, scale):
            within = f" by more than {ulps} bf16 ulp(s)" if ulps else ""
            raise CheckError(
                f"{seq.name} {on}: output {name!r} differs from the reference{within}: "
                f"{first_difference(got, want)}"
            )


def _trace_choice(seq: Sequence, trace: bool | None) -> tuple:
    """``(options, selected call sites)`` of the traced run, ``(None, None)`` when there is
    none: tracing off, or ``IRON_TRACE_OP`` naming none of the call sites (then an
    :class:`UntracedWarning` at the check's caller)."""
    env = {**SUITE_ENV, **os.environ}
    if trace is True:  # a check that forces tracing covers every call site
        env.pop("IRON_TRACE_OP", None)
    options = opts_mod.resolve(trace, env=env)
    if not options.enabled:
        return None, None
    sites = [(i, type(op).__name__) for i, (op, *_n) in enumerate(seq.steps)]
    try:  # IRON_TRACE_OP is suite-wide: a test whose call sites it does not name runs untraced
        trace_plan.check_selection(options, sites, seq.name)
    except OptionError as exc:
        warnings.warn(f"{exc}; left untraced", UntracedWarning, stacklevel=3)
        return None, None
    return options, [i for i, name in sites if trace_plan.selects(options, i, name)]


def _save_trace(trace, out: Path, on: str) -> Path:
    """Write the traced run's Perfetto trace, summary and capture (``trace``) under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    trace.to_perfetto(out / "trace.pftrace")
    atomic_write(out / "summary.txt", f"# ran {on}\n" + trace.summary())
    trace.save(out / "capture.npz")
    return out


__all__ = [
    "CheckError",
    "CheckResult",
    "TraceFullWarning",
    "UntracedWarning",
    "check_operator",
    "check_slices",
    "example_inputs",
    "first_difference",
    "matches_reference",
    "reference_ulps",
    "reference_scales",
    "reference",
    "same_bits",
]
