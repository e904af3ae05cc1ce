"""Where the decoder's compiled (numba) kernels are cached, and when to use them.

numba compiles a kernel the first time it runs (seconds for the decoder's
scans) and caches the machine code. Two rules keep that off a user's first decode:

* The cache lives in the user's cache directory (``~/.cache/iron/numba``), keyed
  by each source file's content, not in the installed package's ``__pycache__``:
  reinstalling iron (a new virtual environment, ``pip install --force-reinstall``)
  keeps it. numba's own ``NUMBA_CACHE_DIR`` still wins when set.
* :func:`choose_method` picks the numpy paths below the input size where
  importing numba pays off (:data:`COMPILED_BYTES`), and, while the kernels are
  not cached yet, below the size where compiling them pays off
  (:data:`COLD_COMPILED_BYTES`). A decode never starts a process behind the
  user's back: ``python -m iron.trace.warm`` compiles them ahead of time, and
  the first decode of a slice of 16 MiB or more compiles them otherwise.

The kernels themselves live with the code they speed up (the payload gather in
:mod:`iron.trace.decode.packets`, the frame scan in :mod:`iron.trace.decode.scan`,
...): plain Python functions that :func:`jit` compiles on first use. This module
imports nothing else from iron.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from pathlib import Path

#: Slices smaller than this decode with numpy (importing numba costs ~0.4 s; numpy runs ~10 MiB/s+).
COMPILED_BYTES = 4 << 20
#: With no cached kernels, slices smaller than this decode with numpy (compiling costs
#: ~3 s; measured Dec 2026 on 2 cores: at 16 MiB a cold compiled summary took 3.8 s and
#: 0.21 GB, numpy 4.7-7 s and 1.2 GB; at 8 MiB numpy was faster).
COLD_COMPILED_BYTES = 16 << 20
CACHE_DIR = Path("~/.cache/iron/numba").expanduser()

_LOCK = threading.Lock()
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
                self._cache_path = str(CACHE_DIR / py_func.__module__)

            def get_cache_path(self):
                return self._cache_path

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


def cached(dispatcher) -> bool:
    """Whether a numba dispatcher (``cache=True``) has an on-disk cache index."""
    try:
        return os.path.exists(dispatcher._cache._cache_file._index_path)
    except AttributeError:  # another numba's internals: assume it is cached
        return True


def choose_method(nbytes: int, kernels) -> str:
    """ "numba" or "numpy" for a slice of ``nbytes`` (see the module docstring).
    ``kernels``: a function returning the dispatchers the decode will call
    (None when numba is not installed); it is only called for big slices."""
    if nbytes < COMPILED_BYTES:
        return "numpy"
    disps = kernels()
    if not disps or any(d is None for d in disps):
        return "numpy"
    if all(cached(d) for d in disps) or nbytes >= COLD_COMPILED_BYTES:
        return "numba"
    return "numpy"


# numba compiles the sequential scans (frame chains cannot be vectorized well);
# each kernel is a plain Python function in its module, compiled on first use with
# the on-disk cache, so a fresh process only loads it. Frame kind numbers are
# compile-time constants: the cache is keyed on the kernel's file, so a change of
# frames.FRAME_TABLE's numbering needs a touch of iron/trace/decode/scan.py (the
# byte and field tables are arguments and always current).
_JIT: dict = {}
_JIT_LOCK = threading.Lock()


@contextlib.contextmanager
def numba_without_scipy():
    """Within the block, scipy cannot be imported, unless it or numba's array
    functions are loaded already: on its first compile or cache load numba imports
    scipy.linalg only to probe for BLAS (``numba.np.arraymath._HAVE_BLAS``), 0.2-0.35 s
    that iron's kernels, which call no BLAS, never use. For a program that runs
    no other numba code (the ``iron`` command's decode)."""
    if "scipy" in sys.modules or "numba.np.arraymath" in sys.modules:
        yield
        return
    sys.modules["scipy"] = None  # an import of it raises ImportError
    try:
        yield
    finally:
        if "scipy" in sys.modules and sys.modules["scipy"] is None:
            del sys.modules["scipy"]


def jit(pyfunc):
    """``pyfunc`` compiled with numba (nogil, cached on disk), or None without numba."""
    with _JIT_LOCK:
        if pyfunc not in _JIT:
            try:
                import numba
            except ImportError:
                _JIT[pyfunc] = None
            else:
                install_locator(numba)  # a cache that survives reinstalls
                _JIT[pyfunc] = numba.njit(cache=True, nogil=True)(pyfunc)
        return _JIT[pyfunc]


def load_kernels(warmers, kernels=None, nbytes: int = 0) -> None:
    """Call every warmer (a function running one kernel on tiny inputs, which
    compiles it or loads it from the cache), unless :func:`choose_method` picks
    numpy for ``nbytes`` with ``kernels`` (then numba is not even imported)."""
    if kernels is not None and choose_method(nbytes, kernels) == "numpy":
        return  # not worth importing numba or compiling for this input
    for warm in warmers:
        warm()


_LOADER: list[threading.Thread] = []
_LOADER_LOCK = threading.Lock()


def load_kernels_async(*warmers, kernels=None, nbytes: int = 0) -> None:
    """:func:`load_kernels` on a thread (once per process: later calls do
    nothing): in a fresh process importing numba and loading the kernels from
    the on-disk cache takes longer than finding the packets, which it overlaps."""
    with _LOADER_LOCK:
        if not _LOADER:
            loader = threading.Thread(target=load_kernels, args=(warmers, kernels, nbytes), daemon=True)
            _LOADER.append(loader)
            _LOADER[0].start()


def kernels_loaded() -> None:
    """Wait for the thread of :func:`load_kernels_async`, if one was started."""
    with _LOADER_LOCK:
        loader = _LOADER[0] if _LOADER else None
    if loader is not None:
        loader.join()
