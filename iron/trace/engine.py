"""Which engine runs the read side's kernels, chosen per input size (issue 38).

Three engines run the same kernels (plain Python functions in the decode and export
modules) and give byte-identical outputs:

* :data:`PLAIN`: the kernels as plain Python over bytes and lists (:func:`iron.trace.jit.plain`):
  no numpy, no numba imported. For the small captures most users decode.
* :data:`NUMPY`: vectorized numpy passes (numpy imported on first use).
* :data:`NUMBA`: the kernels compiled by numba (:func:`iron.trace.jit.jit`, cached on disk).

An :class:`Engine` is chosen once per decode from the input's size by the crossovers of
:data:`CROSSOVERS` (one table, each row with where it was measured) and passed down
to every step; ``None`` where a function takes an engine means "choose for this size".
Functions that take an engine also take its name ("plain", "numpy", "numba", "auto").

This module imports nothing else from iron but :mod:`iron.trace.jit` (lazily, to choose).
"""

from __future__ import annotations


class Engine:
    """One way to run the read side's kernels; compare with :data:`PLAIN`, :data:`NUMPY`,
    :data:`NUMBA` (or read :attr:`plain` / :attr:`compiled`). Equal by name. (A plain
    class: a dataclass costs the import of every decode, small ones included, ~1 ms.)"""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __eq__(self, other) -> bool:
        return isinstance(other, Engine) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return f"Engine(name={self.name!r})"

    @property
    def plain(self) -> bool:
        """Plain Python over bytes and lists (no numpy)."""
        return self.name == "plain"

    @property
    def compiled(self) -> bool:
        """numba-compiled kernels over numpy arrays."""
        return self.name == "numba"

    def zeros(self, n: int, dtype: str):
        """``n`` zeros for a kernel of this engine: a list (plain) or a numpy array of ``dtype``."""
        if self.plain:
            return [0] * n
        from iron.trace.jit import np

        return np.zeros(n, dtype)

    def __str__(self) -> str:
        return self.name


PLAIN = Engine("plain")
NUMPY = Engine("numpy")
NUMBA = Engine("numba")
#: Every engine by name; "auto" (None) chooses per size.
ENGINES = {e.name: e for e in (PLAIN, NUMPY, NUMBA)}
NAMES = ("auto", *ENGINES)


class Crossover:
    """One measured size where another engine starts to pay off: its ``value``, the
    ``unit`` it counts and where it was ``measured``."""

    __slots__ = ("value", "unit", "measured")

    def __init__(self, value: int, unit: str, measured: str):
        self.value, self.unit, self.measured = value, unit, measured

    def __repr__(self) -> str:
        return f"Crossover(value={self.value!r}, unit={self.unit!r}, measured={self.measured!r})"


#: The crossovers between engines: name -> value, its unit and where it was measured.
CROSSOVERS = {
    "plain_bytes": Crossover(
        48 << 10,
        "raw trace bytes below which the command line decodes plainly (a text input: 4 per 9 characters)",
        "Dec 2026, issue 37, benchmarks/bench_small.py --methods, CPU time, whole process, 2 cores at "
        "load 10: the plain summary beat numpy's up to 32 KiB of mlir-aie's test1 packets tiled "
        "(0.32 vs 0.35 s), numpy won at 64 KiB (0.33 vs 0.40 s); again at 376f1c0 "
        "(bench_small.py --runs 5 --tiled 16 32 48 64 --methods --no-peer, load 3.6-4.5, 10 ms "
        "CPU ticks): plain vs numpy summary 0.08/0.10 s at 16 KiB, 0.09/0.11 at 32, 0.11/0.11 at 48, "
        "0.14/0.11 at 64",
    ),
    "plain_intervals": Crossover(
        1 << 12,
        "intervals (all slots) above which a plain decode's event outputs are written with numpy",
        "Dec 2026 on test1's packets tiled to 8-32 KiB: plain Python writes 10-13 us per interval, "
        "numpy 1.5 us after its ~60 ms import; again in 376f1c0's bench_small run (plain_bytes): "
        "event outputs of 8 KB (~2,900 intervals) plain 0.06-0.07 s CPU, numpy 0.10-0.12; of 16 KiB "
        "(~5,900) plain 0.14-0.17, numpy 0.10-0.11",
    ),
    "stream_compiled_bytes": Crossover(
        1 << 16,
        "bytes of one stream from which a direct call (parse_stream, unit_payload) uses numba",
        "Dec 2026, the frame scan alone with numba's kernels already loaded",
    ),
    "compiled_bytes": Crossover(
        4 << 20,
        "slice bytes below which a decode uses numpy (importing numba costs ~0.4 s)",
        "Dec 2026, 2 cores: numpy decodes ~10 MiB/s and more; again at 70a459f (issue 37, "
        "bench_small.py --runs 3 --tiled 2048 4096 8192 --methods numpy numba --no-peer, cached "
        "kernels, CPU at load 2.8-3.8): numpy won every format at 2 MiB (0.29-0.55 vs 0.70-0.95 s); "
        "at 4 MiB it was mixed (numpy: summary 0.39 vs 0.54, pftrace 0.58 vs 0.91; numba: mlir-aie "
        "0.99 vs 1.12); at 8 MiB numba won the event outputs (mlir-aie 1.53 vs 2.36) and memory "
        "(170-260 vs 403 MiB), numpy the summary's CPU (0.59 vs 0.79)",
    ),
    "cold_compiled_bytes": Crossover(
        16 << 20,
        "slice bytes below which a decode with no cached kernels uses numpy (compiling costs ~3 s)",
        "Dec 2026, 2 cores: at 16 MiB a cold compiled summary took 3.8 s and 0.21 GB, numpy 4.7-7 s "
        "and 1.2 GB; at 8 MiB numpy was faster (not measured again in issue 37's fixed-cost work)",
    ),
}

# The table's values by name (read at call time: a test may lower them).
PLAIN_BYTES = CROSSOVERS["plain_bytes"].value
PLAIN_INTERVALS = CROSSOVERS["plain_intervals"].value
STREAM_COMPILED_BYTES = CROSSOVERS["stream_compiled_bytes"].value
COMPILED_BYTES = CROSSOVERS["compiled_bytes"].value
COLD_COMPILED_BYTES = CROSSOVERS["cold_compiled_bytes"].value


def as_engine(value) -> Engine | None:
    """``value`` (an :class:`Engine`, its name, "auto" or None) as an engine, or None for
    "choose per size"; anything else is refused naming what is accepted."""
    if value is None or isinstance(value, Engine):
        return value
    if value == "auto":
        return None
    if value in ENGINES:
        return ENGINES[value]
    from iron.errors import OptionError

    raise OptionError(f"engine={value!r}: accepted: {', '.join(NAMES)}")


def choose(nbytes: int, kernels) -> Engine:
    """:data:`NUMBA` or :data:`NUMPY` for a slice of ``nbytes`` (the command line takes
    :data:`PLAIN` below :func:`plain_input` first): numba from :data:`COMPILED_BYTES`
    when its kernels are cached, from :data:`COLD_COMPILED_BYTES` otherwise (saying so
    on stderr, :func:`iron.trace.jit.note_compiling`). ``kernels``: a function returning
    the dispatchers the decode will call (None when numba is not installed); only
    called for big slices."""
    if nbytes < COMPILED_BYTES:
        return NUMPY
    from iron.trace.jit import cached, note_compiling

    disps = kernels()
    if not disps or any(d is None for d in disps):
        return NUMPY
    if all(cached(d) for d in disps):
        return NUMBA
    if nbytes >= COLD_COMPILED_BYTES:
        note_compiling()
        return NUMBA
    return NUMPY


def for_stream(nbytes: int, pyfunc) -> Engine:
    """The engine of a direct call on one stream of ``nbytes`` with no engine given:
    :data:`NUMBA` from :data:`STREAM_COMPILED_BYTES` when ``pyfunc`` compiles (numba
    installed), else :data:`NUMPY`."""
    if nbytes >= STREAM_COMPILED_BYTES:
        from iron.trace.jit import jit

        if jit(pyfunc) is not None:
            return NUMBA
    return NUMPY


def wants_compiled(nbytes: int, kernels):
    """A ``wanted`` test for :func:`iron.trace.jit.load_kernels`: whether :func:`choose`
    picks numba for ``nbytes`` with ``kernels`` (asked when called, on the loader's thread);
    None (always load) without ``kernels``."""
    if kernels is None:
        return None
    return lambda: choose(nbytes, kernels).compiled


def plain_input(nbytes: int) -> bool:
    """Whether a decode of ``nbytes`` raw bytes runs as plain Python (:data:`PLAIN_BYTES`)."""
    return nbytes < PLAIN_BYTES


def plain_output(intervals: int) -> bool:
    """Whether a plain decode whose units hold ``intervals`` in all writes its events
    plainly too (:data:`PLAIN_INTERVALS`; else it is decoded again with numpy)."""
    return intervals <= PLAIN_INTERVALS


class PlainOverflow(Exception):
    """A plain decode met more intervals than :data:`PLAIN_INTERVALS` (raised as soon as
    one unit's scan does): the caller decodes with numpy instead."""
