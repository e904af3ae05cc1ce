"""Where the decoder's compiled (numba) kernels are cached, and when to use them.

numba compiles a kernel the first time it runs (seconds for the decoder's
scans) and caches the machine code. Three rules keep that off a user's first decode:

* The cache lives in the user's cache directory (``~/.cache/iron/numba``), keyed
  by each source file's content, not in the installed package's ``__pycache__``:
  reinstalling iron (a new virtual environment, ``pip install --force-reinstall``)
  keeps it. numba's own ``NUMBA_CACHE_DIR`` still wins when set.
* Building the package compiles the kernels into it (``setup.py`` runs
  ``python -m iron.trace.warm --into iron/trace/_kernels``): where the user cache
  has no kernels for this source yet, they are copied from there (:data:`SHIPPED_DIR`),
  so the first decode after ``pip install`` loads them. numba checks each entry
  (its version, this CPU, the source's content) and compiles only what does not fit.
* :func:`iron.trace.engine.choose` picks the numpy paths below the input size where
  importing numba pays off, and, while the kernels are not cached yet, below the
  size where compiling them pays off (:data:`iron.trace.engine.CROSSOVERS`). A decode never starts a process behind the
  user's back: ``python -m iron.trace.warm`` compiles them ahead of time, and
  the first decode of a slice of 16 MiB or more compiles them otherwise, saying
  so on stderr once (:func:`note_compiling`).

The kernels themselves live with the code they speed up (the payload gather in
:mod:`iron.trace.decode.packets`, the frame scan in :mod:`iron.trace.decode.scan`,
...): plain Python functions that :func:`jit` compiles on first use.

Small inputs need neither numba nor numpy. Importing numpy alone costs a whole
process more time and memory (about 60 ms and 15 MiB) than mlir-aie's parser
needs for the captures most users decode (8-64 KB), so ``iron trace decode``
decodes a text or ``.bin`` input below :data:`iron.trace.engine.PLAIN_BYTES` with the same kernels
run as plain Python (:func:`plain`) over bytes and lists: the :data:`~iron.trace.engine.PLAIN` engine,
whose outputs are the numpy path's byte for byte (tested on every stored capture
and on generated streams). Modules of the read side name numpy :data:`np`, a
module imported on first use, so a plain decode never loads it. An input whose
events expand past :data:`iron.trace.engine.PLAIN_INTERVALS` is decoded again with numpy for the
event outputs (:func:`iron.trace.engine.plain_output`): writing them in Python would cost more than
importing it.

This module imports nothing else from iron (:mod:`iron.files` only to seed the cache).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import types
from _thread import allocate_lock  # threading's Lock; threading itself: only for the loader (issue 37)


class _Lazy(types.ModuleType):
    """A module imported on first use of one of its names (then its names are copied
    here, so later lookups cost what a module's do)."""

    def __getattr__(self, name: str):
        module = importlib.import_module(self.__name__)
        if name not in self.__dict__:
            self.__dict__.update(vars(module))
        return getattr(module, name)


#: numpy, imported on first use: the read side's modules use this name (``np``), so
#: a plain decode (:data:`iron.trace.engine.PLAIN`) never imports it.
np = _Lazy("numpy")


def __getattr__(name: str):
    """``CACHE_DIR`` (``~/.cache/iron/numba``, where numba caches iron's kernels) and
    ``SHIPPED_DIR`` (the kernels compiled when the package was built; absent in a source
    checkout), as :class:`pathlib.Path`, made on first use: a small decode never needs
    them, and pathlib's import cost it ~2 ms (issue 37). ``iron.trace.warm`` sets CACHE_DIR."""
    if name not in ("CACHE_DIR", "SHIPPED_DIR"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from pathlib import Path

    if name == "CACHE_DIR":
        value = Path("~/.cache/iron/numba").expanduser()
    else:
        value = Path(__file__).resolve().parent / "_kernels"
    globals()[name] = value  # once, as a module constant
    return value


def _dir(name: str):
    """``CACHE_DIR`` or ``SHIPPED_DIR`` as the module holds it now (made on first use)."""
    return getattr(sys.modules[__name__], name)


_LOCK = allocate_lock()
_STATE: dict = {}


def install_locator(numba) -> None:
    """Make numba cache iron's kernels under :data:`CACHE_DIR` (once per process)."""
    with _LOCK:
        if "locator" in _STATE:
            return
        from numba.core import caching

        _STATE["locator"] = None

        class IronCacheLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
            """iron's modules: one cache folder per module; numba checks each file's content hash."""

            def __init__(self, py_func, py_file):
                self._py_file = py_file
                self._lineno = py_func.__code__.co_firstlineno
                self._cache_path = str(_dir("CACHE_DIR") / py_func.__module__)

            def get_cache_path(self):
                return self._cache_path

            def ensure_cache_path(self):
                from pathlib import Path

                super().ensure_cache_path()
                seed(Path(self._cache_path), self.get_source_stamp(), caching)

            @classmethod
            def from_function(cls, py_func, py_file):
                if not (py_func.__module__ or "").startswith("iron."):
                    return None
                return super().from_function(py_func, py_file)

        impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
        if impl is None:  # another numba's internals: its own cache places stay
            return
        classes = impl._locator_classes
        # after numba's NUMBA_CACHE_DIR locator, before the in-tree one
        classes.insert(
            1 if classes and classes[0] is caching.UserProvidedCacheLocator else 0, IronCacheLocator
        )
        _STATE["locator"] = IronCacheLocator


def seed(folder: Path, stamp, caching) -> None:
    """Copy the package's compiled kernels (:data:`SHIPPED_DIR`) of one module's
    cache ``folder`` into it, index by index, where ``folder`` has no fresh index
    for the source with content hash ``stamp`` (none yet, an older source, another
    numba) and the shipped one is fresh. The data files go first and each file
    replaces atomically, so an index never names a missing or partial file."""
    shipped = _dir("SHIPPED_DIR") / folder.name
    if not (shipped.is_dir() and folder.is_dir()) or folder.resolve() == shipped.resolve():
        return

    def entries(where, base: str) -> dict:
        return caching.IndexDataCacheFile(str(where), base, stamp)._load_index()

    import pickle  # here: a small decode never seeds, and pickle costs an import

    from iron.files import atomic_write

    try:
        for index in sorted(shipped.glob("*.nbi")):
            base = index.name[: -len(".nbi")]
            fresh = entries(shipped, base)
            if not fresh or entries(folder, base):
                continue
            for name in [*sorted(set(fresh.values())), index.name]:
                atomic_write(folder / name, (shipped / name).read_bytes())
    except (OSError, AttributeError, TypeError, ValueError, EOFError, pickle.UnpicklingError):
        return  # another numba's internals or an unwritable cache: numba compiles as before


def cached(dispatcher) -> bool:
    """Whether a numba dispatcher (``cache=True``) has an on-disk cache index."""
    try:
        return os.path.exists(dispatcher._cache._cache_file._index_path)
    except AttributeError:  # another numba's internals: assume it is cached
        return True


#: What a decode that compiles kernels says on stderr (once per process).
COMPILING_NOTE = (
    "iron: note: compiling the trace decoder's kernels (numba; seconds, once per iron version and "
    "machine): `python -m iron.trace.warm` compiles them ahead of time; a package built with "
    "`pip install .` ships them"
)


def note_compiling() -> None:
    """Say :data:`COMPILING_NOTE` on stderr, the first time in this process."""
    with _LOCK:
        if _STATE.get("noted"):
            return
        _STATE["noted"] = True
    print(COMPILING_NOTE, file=sys.stderr, flush=True)


# numba compiles the sequential scans (frame chains cannot be vectorized well);
# each kernel is a plain Python function in its module, compiled on first use with
# the on-disk cache, so a fresh process only loads it. Frame kind numbers are
# compile-time constants: the cache is keyed on the kernel's file, so a change of
# frames.FRAME_TABLE's numbering needs a touch of iron/trace/decode/scan.py (the
# byte and field tables are arguments and always current).
_JIT: dict = {}
_JIT_LOCK = allocate_lock()


#: Optional packages numba imports only for features iron's kernels never use, each
#: with the numba module that probes it (measured on 2 cores, Dec 2026): scipy.linalg
#: to find BLAS (``numba.np.arraymath._HAVE_BLAS``, 0.2-0.35 s on the first load),
#: cffi to type cffi functions (~35 ms) and yaml to read a ``.numba_config.yaml``
#: (~50 ms; hidden only where the working directory has no such file).
NUMBA_EXTRAS = {
    "scipy": "numba.np.arraymath",
    "cffi": "numba.core.typing.cffi_utils",
    "yaml": "numba.core.config",
}


@contextlib.contextmanager
def numba_without_extras():
    """Within the block, the packages of :data:`NUMBA_EXTRAS` cannot be imported,
    each unless it or the numba module that probes it is loaded already (then
    numba has seen it). For a program that runs no other numba code (the
    ``iron`` command's decode): numba loads about 0.3-0.45 s faster."""
    hidden = [
        name
        for name, prober in NUMBA_EXTRAS.items()
        if name not in sys.modules
        and prober not in sys.modules
        and not (name == "yaml" and os.path.exists(".numba_config.yaml"))
    ]
    for name in hidden:
        sys.modules[name] = None  # an import of it raises ImportError
    try:
        yield
    finally:
        for name in hidden:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]


def _with_np(pyfunc, value):
    """``pyfunc`` with the name ``np`` of its module bound to ``value`` (a new function
    of the same code: numba reads the globals a function was made with)."""
    g = {**pyfunc.__globals__, "np": value}
    out = types.FunctionType(pyfunc.__code__, g, pyfunc.__name__, pyfunc.__defaults__, pyfunc.__closure__)
    out.__qualname__, out.__doc__, out.__module__ = pyfunc.__qualname__, pyfunc.__doc__, pyfunc.__module__
    return out


def jit(pyfunc):
    """``pyfunc`` compiled with numba (nogil, cached on disk), or None without numba."""
    with _JIT_LOCK:
        if pyfunc not in _JIT:
            try:
                import numba
                import numpy
            except ImportError:
                _JIT[pyfunc] = None
            else:
                install_locator(numba)  # a cache that survives reinstalls
                # numba types the kernel's numpy names (np.int64, ...) from numpy itself, not :data:`np`
                _JIT[pyfunc] = numba.njit(cache=True, nogil=True)(_with_np(pyfunc, numpy))
        return _JIT[pyfunc]


#: What the kernels name of numpy, as plain Python: fixed-width integer casts are
#: Python's integers (the small inputs :data:`iron.trace.engine.PLAIN_BYTES` admits never reach 2**63),
#: rounding halves to even is ``round``, arrays are lists.
PLAIN_NP = types.SimpleNamespace(
    int64=int, uint64=int, uint8=int, rint=round, zeros=lambda n, dtype=None: [0] * n
)
_PLAIN: dict = {}


def plain(pyfunc):
    """``pyfunc``, a kernel, to run as plain Python over bytes, bytearrays and lists
    (its numpy names: :data:`PLAIN_NP`)."""
    if pyfunc not in _PLAIN:
        _PLAIN[pyfunc] = _with_np(pyfunc, PLAIN_NP)
    return _PLAIN[pyfunc]


def kernel(pyfunc, engine):
    """``pyfunc`` for ``engine`` (:class:`iron.trace.engine.Engine`): run as plain Python
    (plain) or compiled (else; None without numba)."""
    return plain(pyfunc) if engine.plain else jit(pyfunc)


def load_kernels(warmers, wanted=None) -> None:
    """Call every warmer (a function running one kernel on tiny inputs, which
    compiles it or loads it from the cache), unless ``wanted()`` (when given: e.g.
    whether :func:`iron.trace.engine.choose` picks numba for the input) says no
    (then numba is not even imported)."""
    if wanted is not None and not wanted():
        return  # not worth importing numba or compiling for this input
    for warm in warmers:
        warm()


_LOADER: list[threading.Thread] = []
_LOADER_LOCK = allocate_lock()


def load_kernels_async(*warmers, wanted=None) -> None:
    """:func:`load_kernels` on a thread (once per process: later calls do
    nothing): in a fresh process importing numba and loading the kernels from
    the on-disk cache takes longer than finding the packets, which it overlaps."""
    import threading

    with _LOADER_LOCK:
        if not _LOADER:
            loader = threading.Thread(target=load_kernels, args=(warmers, wanted), daemon=True)
            _LOADER.append(loader)
            _LOADER[0].start()


def kernels_loaded() -> None:
    """Wait for the thread of :func:`load_kernels_async`, if one was started."""
    with _LOADER_LOCK:
        loader = _LOADER[0] if _LOADER else None
    if loader is not None:
        loader.join()
