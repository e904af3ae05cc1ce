"""sim's data effects as small op objects: the one definition the engine runs and a replay re-runs.

Every byte the FIFO-level engine moves or computes goes through one of these ops (:func:`copy`,
:func:`gather`, :func:`scatter`, :func:`fill`, :func:`call`; an op's one function runs both now and
in a replay):
a DMA gather (:class:`Gather`: ``dst[:] = src[index]``), a DMA scatter (:class:`Scatter`:
``dst[index] = src``), a contiguous copy (:class:`Copy`), a buffer zeroed by a (re)configuration
(:class:`Fill`), a kernel model called on the buffers a core hands over (:class:`Call`). The engine
executes each op at once; while a :class:`Recorder` is installed (:func:`recording`, per thread; off
by default: one thread-local attribute check per op) the op is also appended to its log, holding the very
arrays (views) the op touched, so :mod:`iron.runtime.sim.replay` can run the same op objects
again, in the same order, on the same buffers (or on fresh ones: :func:`rebind`).

What is *not* an op here (core loads and stores, vector ops, cascades, register-level tile DMAs,
static DMA programs, taint marks) makes a run unreplayable (:func:`iron.runtime.sim.replay.engine_reason`).
"""

from __future__ import annotations

import contextlib
import threading

import numpy as np

from iron.runtime.sim.taint import owner


#: This thread's installed recorder (``.recorder``, None: recording off; another thread's
#: runner never logs into it). Set only through :func:`recording`.
class _Local(threading.local):
    recorder = None


_local = _Local()


class Copy:
    """``dst[...] = src`` (a contiguous DMA move, a whole object handed on)."""

    __slots__ = ("dst", "src")

    def __init__(self, dst: np.ndarray, src: np.ndarray):
        self.dst, self.src = dst, src

    def run(self) -> None:
        copy(self.dst, self.src)

    def arrays(self):
        return (self.dst,), (self.src,)


class Gather:
    """``dst[:] = src[index]``: a DMA reading an access pattern (``index`` is read-only)."""

    __slots__ = ("dst", "src", "index")

    def __init__(self, dst: np.ndarray, src: np.ndarray, index: np.ndarray):
        self.dst, self.src, self.index = dst, src, index

    def run(self) -> None:
        gather(self.dst, self.src, self.index, checked=True)

    def arrays(self):
        return (self.dst,), (self.src,)


class Scatter:
    """``dst[index] = src``: a DMA writing an access pattern."""

    __slots__ = ("dst", "index", "src")

    def __init__(self, dst: np.ndarray, index: np.ndarray, src: np.ndarray):
        self.dst, self.index, self.src = dst, index, src

    def run(self) -> None:
        scatter(self.dst, self.index, self.src)

    def arrays(self):
        return (self.dst,), (self.src,)


class Fill:
    """``dst`` zeroed: an object buffer handed to a new engine (reconfiguration)."""

    __slots__ = ("dst",)

    def __init__(self, dst: np.ndarray):
        self.dst = dst

    def run(self) -> None:
        fill(self.dst)

    def arrays(self):
        return (self.dst,), ()


class Call:
    """A kernel model on the arguments a core handed over (arrays are written in place)."""

    __slots__ = ("model", "args")

    def __init__(self, model, args: list):
        self.model, self.args = model, args

    def run(self) -> None:
        call(self.model, self.args)

    def arrays(self):
        arrays = tuple(a for a in self.args if isinstance(a, np.ndarray))
        return arrays, arrays  # a model may read and write every buffer it is handed


# The one definition of each op: the engine calls these (the op runs now and, only while a recorder
# is installed, its object is logged: none is made otherwise); an op object's ``run`` calls the
# same function again (a replay runs with no recorder installed).
def copy(dst: np.ndarray, src: np.ndarray) -> None:
    """:class:`Copy` now."""
    dst[...] = src
    if _local.recorder is not None:
        _local.recorder.ops.append(Copy(dst, src))


def gather(dst: np.ndarray, src: np.ndarray, index: np.ndarray, checked: bool = False) -> None:
    """:class:`Gather` now. ``checked``: these indices were already checked against ``src``'s size
    (a replay of the recorded op: the same read-only index array, a source of the same size), so
    numpy need not buffer the output to raise on an index outside it."""
    np.take(src, index, out=dst, mode="clip" if checked else "raise")
    if _local.recorder is not None:
        _local.recorder.ops.append(Gather(dst, src, index))


def scatter(dst: np.ndarray, index: np.ndarray, src: np.ndarray) -> None:
    """:class:`Scatter` now."""
    dst[index] = src
    if _local.recorder is not None:
        _local.recorder.ops.append(Scatter(dst, index, src))


def fill(dst: np.ndarray) -> None:
    """:class:`Fill` now."""
    dst.fill(0)
    if _local.recorder is not None:
        _local.recorder.ops.append(Fill(dst))


def call(model, args: list) -> None:
    """:class:`Call` now."""
    model(*args)
    if _local.recorder is not None:
        _local.recorder.ops.append(Call(model, args))


def note(op) -> None:
    """Log ``op`` without running it (its effect already holds: a buffer made zeroed)."""
    if _local.recorder is not None:
        _local.recorder.ops.append(op)


def put(dst: np.ndarray, where, src: np.ndarray) -> None:
    """``dst[where] = src``: a slice is a :class:`Copy` into a view, an index array a :class:`Scatter`."""
    if isinstance(where, slice):
        copy(dst[where], src)
    else:
        scatter(dst, where, src)


def take(src: np.ndarray, where) -> np.ndarray:
    """A new array holding ``src[where]`` (a view when ``where`` is a slice: no op); numpy's
    indexing makes it (faster than :func:`gather` into an empty array: no buffered output) with
    the bits a :class:`Gather` into it gives, which is what a replay runs."""
    if isinstance(where, slice):
        return src[where]
    out = src[where]
    note(Gather(out, src, where))
    return out


def concat(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A new array holding ``a`` then ``b`` (a stream's bytes across objects or tasks)."""
    out = np.empty(a.size + b.size, np.result_type(a, b))
    copy(out[: a.size], a)
    copy(out[a.size :], b)
    return out


class Recorder:
    """One run's log: its ops in execution order, and the engines built while it was on."""

    def __init__(self):
        self.ops: list = []
        self.engines: list = []  # (engine, tile DMAs, static DMA) per engine built


@contextlib.contextmanager
def recording(rec: Recorder):
    """Install ``rec`` for the ``with`` body (the previous recorder comes back after)."""
    before, _local.recorder = _local.recorder, rec
    try:
        yield rec
    finally:
        _local.recorder = before


def engine_built(engine, tile_dmas, static) -> None:
    """The device built an engine: the recorder checks it before trusting the log."""
    if _local.recorder is not None:
        _local.recorder.engines.append((engine, tile_dmas, static))


def _rebase(a, roots: dict):
    """``a`` as the same view of its owner's replacement in ``roots`` (id -> array)."""
    if not isinstance(a, np.ndarray):
        return a
    root = owner(a)
    new = roots.get(id(root))
    if new is None:
        return a
    offset = a.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    return np.ndarray(a.shape, a.dtype, buffer=new, offset=offset, strides=a.strides)


def rebind(ops: list, roots: dict) -> list:
    """Copies of ``ops`` whose arrays are views of the replacement owners ``roots`` (id(old
    owner) -> new owner of the same size and layout); arrays of other owners stay as they are."""
    out = []
    for op in ops:
        cls = type(op)
        new = cls.__new__(cls)
        for name in cls.__slots__:
            v = getattr(op, name)
            if name == "args":
                v = [_rebase(x, roots) for x in v]
            elif name != "index":
                v = _rebase(v, roots)
            setattr(new, name, v)
        out.append(new)
    return out
