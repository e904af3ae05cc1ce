"""Runner API: load an artifact on a device, call it with numpy arrays, read the trace.

::

    runner = iron.runtime.runner.load(artifact, device="auto")   # or artifact.load(), iron.load(artifact)
    c = runner(a, b)         # positional in artifact.inputs order, or runner(a=..., b=...)
    runner.trace             # DecodedTrace of the last run (None when untraced)
    runner.capture.save("t.npz")

``auto`` picks ``xrt`` when pyxrt imports, an NPU device opens and the artifact
was compiled by aiecc; otherwise ``sim``, except for an aiecc full ELF, which sim
cannot run (one :class:`RunError` saying why and to build with ``backend="builtin"``).
Which back end and device a machine uses is decided by :func:`iron.machine`. The choice is reported once per
process and kept in ``runner.device``.

Host buffers: one per named buffer of the artifact (inputs, outputs,
intermediates and the trace buffer). Each kernel argument is bound to
``[offset, offset + size)`` of its buffer, so separate dispatch binds each
call site's trace argument to its slice of the one host trace buffer and the
capture has the same layout in both dispatch modes.

A runner is one hardware context (sim models one too): device state persists
from one call to the next, and the host buffers are allocated once and reused
by every call, so the device never holds the address of a buffer the runner
gave back. ``runner.close()`` (or ``with artifact.load() as runner:``) releases the
context first and the buffers after it. Calling a runner in a loop is the
intended use: each call's ``trace`` holds that call's events only (the
artifact starts every traced dispatch whose first device may still be loaded
with a reconfiguration, see :mod:`iron.fuse.fusion`).

A runner may be shared between threads: calls are serialized (one hardware
context runs one dispatch at a time and the host buffers are shared), so a second
thread waits for the first call to finish. ``trace`` / ``capture`` / ``raw_trace``
are the last finished call's; a thread that wants its own call's trace reads it
through :meth:`Runner.call` (outputs and capture of that call, together).
"""

from __future__ import annotations

import logging
import sys
import threading

import numpy as np

from iron.design import NotModelled
from iron.errors import IronError
from iron.mlir import ir

log = logging.getLogger("iron.runtime")
DEVICES = ("auto", "sim", "xrt")
_announced: set[str] = set()


class RunError(IronError):
    """Bad inputs to a runner call, or a device that cannot run the artifact."""


def numpy_dtype(mlir_dtype: str) -> np.dtype:
    """Host dtype of an MLIR element type (bf16 is carried as uint16 bit patterns)."""
    return np.dtype(np.uint16) if mlir_dtype == "bf16" else np.dtype(ir.DTYPES[mlir_dtype])


def _announce(key: str, message: str) -> None:
    """Log every choice; print the first one per device and reason on stderr."""
    log.info(message)
    if key not in _announced:
        _announced.add(key)
        print(f"iron: {message}", file=sys.stderr)


def choose_device(artifact, device: str = "auto") -> tuple[str, str]:
    """``(device, reason)`` for ``device`` in ``auto | sim | xrt``."""
    if device not in DEVICES:
        raise RunError(f"device={device!r}; accepted: {', '.join(DEVICES)}")
    if device != "auto":  # an explicit xrt fails in XrtBackend, naming what is missing
        return device, "requested"
    if artifact.backend == "builtin":
        return "sim", "the artifact was built by iron's built-in lowering (no aiecc), which only sim runs"
    from iron.runtime import xrt

    ok, why = xrt.probe()
    if ok:
        return "xrt", "pyxrt and an NPU are present"
    if artifact.backend == "aiecc-full-elf":  # sim cannot read aiecc's PDIs or its full ELF
        raise RunError(
            f"{artifact.name} was built by aiecc as a full ELF, which only an NPU runs ({why}); "
            "build it with backend='builtin' (IRON_BACKEND=builtin) to run it on sim"
        )
    return "sim", why


def load(artifact, device: str = "auto", operators=None, kernels=None) -> "Runner":
    """A :class:`Runner` for ``artifact`` (an :class:`iron.artifact.schema.Artifact`) on
    ``device`` (``auto``, ``sim`` or ``xrt``). ``operators``: for sim, the function
    ``(payload name, params) -> operator`` that gives each PDI payload its operator
    (:func:`iron.load` passes :func:`iron.operators.from_payload`); the runtime imports none.
    ``kernels``: for sim, models of kernels it has none of (:func:`iron.load`)."""
    name, reason = choose_device(artifact, device)
    if name == "sim":
        from iron.runtime.sim.backend import SimBackend

        backend = SimBackend(artifact, operators, kernels=kernels)
    else:
        from iron.runtime.xrt import XrtBackend

        backend = XrtBackend(artifact)
    if device == "auto":
        _announce(f"{name}: {reason}", f"running {artifact.name} on {name} ({reason})")
    return Runner(artifact, backend, name)


class Runner:
    """A loaded artifact. Call it with the inputs; read ``trace``/``capture`` after."""

    def __init__(self, artifact, backend, device: str):
        self.artifact = artifact
        self.backend = backend
        self.device = device
        self.capture = None  # iron.trace.capture.Capture of the last traced run
        self.raw_trace: np.ndarray | None = None  # uint32 words of the last run's trace buffer
        # One dispatch at a time: the backend's host buffers and device state are shared
        # (two threads interleaving writes to them gave wrong outputs silently).
        self._lock = threading.RLock()

    @property
    def trace(self):
        """The last run's trace (``None`` before a run or when untraced): a
        :class:`iron.trace.capture.Capture` (a ``DecodedTrace`` decoded on first
        use) with ``.slices``, ``.summary()``, ``.to_perfetto(path)``, ``.plot(path)``
        and ``.save(path)``."""
        return self.capture

    def close(self) -> None:
        """Release the device context, then the host buffers. The runner is unusable after."""
        with self._lock:  # never under a call in progress
            backend, self.backend = self.backend, None
            if backend is not None:
                backend.close()

    def __enter__(self) -> "Runner":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __call__(self, *inputs, **named):
        return self.call(*inputs, **named)[0]

    def call(self, *inputs, **named):
        """``(outputs, capture)`` of one run: what calling the runner returns, and that
        run's :class:`iron.trace.capture.Capture` (None when untraced), taken together
        under the runner's lock (another thread's call cannot replace it in between)."""
        if self.backend is None:
            raise RunError(f"{self.artifact.name}: this runner was closed; load the artifact again")
        arrays = self.check_inputs(inputs, named)
        with self._lock:
            if self.backend is None:
                raise RunError(f"{self.artifact.name}: this runner was closed; load the artifact again")
            result = self._run(arrays)
            return result, self.capture

    def _run(self, arrays):
        outputs, trace = self.backend.run(arrays)
        art = self.artifact
        if art.manifest is not None and trace is not None:
            from iron.trace.capture import Capture

            self.raw_trace = np.frombuffer(bytes(trace), dtype="<u4").astype(np.uint32)
            self.capture = Capture(art.manifest, self.raw_trace, core_images=art.core_elfs)
        else:
            self.raw_trace = self.capture = None
        result = []
        unmodelled = getattr(self.backend, "not_modelled", {})
        if unmodelled:
            log.warning(
                "%s: outputs not modelled on sim: %s",
                art.name,
                "; ".join(f"{n}: {w}" for n, w in unmodelled.items()),
            )
        for name in art.outputs:
            if name in unmodelled:  # never zeros passed off as results
                result.append(NotModelled(name, unmodelled[name]))
                continue
            t = art.buffers[name]
            raw = np.frombuffer(bytes(outputs[name]), dtype=np.uint8)
            result.append(raw.view(numpy_dtype(t.dtype)).reshape(t.shape).copy())
        return result[0] if len(result) == 1 else tuple(result)

    def check_inputs(self, inputs: tuple, named: dict) -> dict[str, np.ndarray]:
        """Match inputs to the artifact's input buffers; shape and dtype must be exact."""
        art = self.artifact
        want = list(art.inputs)
        if inputs and named:
            raise RunError(f"{art.name}: pass inputs either positionally or by name, not both")
        if named:
            unknown = sorted(set(named) - set(want))
            missing = [n for n in want if n not in named]
            if unknown or missing:
                raise RunError(
                    f"{art.name}: inputs are {', '.join(want)}"
                    + (f"; unknown: {', '.join(unknown)}" if unknown else "")
                    + (f"; missing: {', '.join(missing)}" if missing else "")
                )
            values = [named[n] for n in want]
        else:
            if len(inputs) != len(want):
                raise RunError(
                    f"{art.name} takes {len(want)} input(s) ({', '.join(want)}); got {len(inputs)}"
                )
            values = list(inputs)
        out = {}
        for name, value in zip(want, values):
            t = art.buffers[name]
            dt = numpy_dtype(t.dtype)
            arr = np.asarray(value)
            if arr.dtype != dt:
                hint = (
                    " (bf16 is passed as uint16 bit patterns, e.g. iron.bf16.to_bf16)"
                    if t.dtype == "bf16"
                    else ""
                )
                raise RunError(f"{art.name}: input {name!r} must be {dt} for {t}; got {arr.dtype}{hint}")
            if tuple(arr.shape) != tuple(t.shape):
                raise RunError(
                    f"{art.name}: input {name!r} must have shape {tuple(t.shape)} ({t}); got {arr.shape}"
                )
            out[name] = np.ascontiguousarray(arr)
        return out
