"""Decoding one slice: its units (:class:`DecodedUnit`) and the slice (:class:`DecodedSlice`).

:func:`decode_words` runs the steps of :mod:`iron.trace.decode` per unit found
in the packets (on several threads for big slices) and matches the units to
the configuration. Output is bounded: per unit at most
:data:`INTERVALS_PER_BYTE` intervals per payload byte (and at least
:data:`MIN_INTERVALS_PER_UNIT`) are kept, the rest is counted as
``dropped_intervals``.
"""

from __future__ import annotations

import itertools
import os
from functools import cached_property

from iron.artifact.manifest import Slice, TraceUnit
from iron.target import frames as F
from iron.target.events import MODULE_KINDS
from iron.trace.decode.diagnostics import add_unit_totals, slice_status
from iron.trace.decode.timing import NO_OPS, Ops, Runs, bound_runs, ops_to_runs
from iron.trace.decode.modes import decode_other_mode, unit_mode
from iron.trace.decode.record import Default, Record
from iron.trace.decode.packets import PayloadPieces, packet_table, unit_payload, warm_gather
from iron.trace.decode.scan import (
    CHUNK_OPS,
    new_counts,
    op_buffers,
    ops_kernels,
    parse_compiled,
    parse_stream,
    scan_from,
    scan_pieces,
    warm_ops,
)
from iron.trace import engine as E
from iron.trace.engine import NUMPY, PLAIN, Engine, as_engine, choose
from iron.trace.jit import kernels_loaded, load_kernels_async, np
from iron.trace.words import check_words

PARALLEL_BYTES = 4 << 20  # decode units on several threads above this much payload
#: Per unit, the per-slot intervals kept for Perfetto and plots: 8 per payload byte (more
#: than frames without Repeat can carry: a 2-byte Multiple0 sets at most 8 slots) and at
#: least 2**18. Only Repeat frames after frames with cycles go past it (a few KB of them
#: stand for hundreds of millions of pulses); later events are then dropped and counted
#: in the slice's ``dropped_intervals`` diagnostic (see :func:`bound_runs`).
INTERVALS_PER_BYTE = 8
MIN_INTERVALS_PER_UNIT = 1 << 18


#: :attr:`DecodedUnit.last` when not known.
UNKNOWN = object()


class DecodedUnit(Record):
    """One unit seen in the data (``unit`` is None if the configuration lacks it)."""

    packet_type: int
    column: int  # absolute, from the packet headers
    row: int
    unit: TraceUnit | None
    packets: int = 0
    nbytes: int = 0
    frames: int = 0
    start_timer: int | None = None
    ops: Ops = NO_OPS
    diagnostics: dict = Default(dict)
    summary: dict | None = None  # filled by iron.trace.export.summary when decoding without keeping ops
    mode: int = 0  # trace mode the unit was decoded in (iron.target.trace_modes); see unit_mode
    pc_events: object = None  # iron.trace.decode.modes.PcEvents of a mode-1 unit
    pcmap: object = None  # iron.trace.pcmap.PcMap of the core's ELF, when given (mode-1 core units)
    interval_counts: object = None  # intervals per slot (array), when ``analyze`` counted them
    reload: object = None  # when no ops were kept (``analyze``): a function parsing them again
    #: the time of the last event (None: no events) when an ``analyze`` hook knew it without
    #: making the summary (made on demand from the kept ops); :data:`UNKNOWN`: not known
    last: object = UNKNOWN
    _hidden = frozenset({"last"})

    @property
    def kind(self) -> str:
        return MODULE_KINDS[self.packet_type]

    @property
    def label(self) -> str:
        return self.unit.label if self.unit else f"{self.kind}(col {self.column},{self.row})"

    @property
    def events(self) -> list[str]:
        if self.unit is not None:
            return list(self.unit.events)
        return [f"slot{i}" for i in range(F.SLOTS)]

    def load_ops(self) -> Ops:
        """The unit's ops: :attr:`ops`, or, for a unit decoded with ``analyze``
        (which keeps none), parsed again from the slice's words (not kept: the
        streamed outputs hold one unit's ops at a time)."""
        return self.reload() if self.reload is not None else self.ops

    def op_chunks(self, chunk_ops: int = CHUNK_OPS):
        """The unit's ops in chunks: for a unit decoded with ``analyze``, parsed
        again piece by piece by the compiled scan (:func:`~iron.trace.decode.scan.scan_pieces`:
        neither its payload nor its ops whole in memory; views that the next chunk
        overwrites); else :attr:`ops` as one chunk."""
        if isinstance(self.reload, Reparse):
            return self.reload.op_chunks(chunk_ops)
        return iter([self.load_ops()])

    @cached_property
    def runs(self) -> Runs:
        return ops_to_runs(self.load_ops())

    def runs_unkept(self) -> Runs:
        """:attr:`runs` without keeping them on the unit when they were not kept
        already (the streamed outputs hold one unit's runs at a time)."""
        return self.__dict__.get("runs") or ops_to_runs(self.load_ops())

    def last_time(self) -> int | None:
        """Time of the unit's last event (None: no events)."""
        if self.summary is not None:
            return self.summary["last"]
        if self.last is not UNKNOWN:
            return self.last
        return self.runs_unkept().last_time()


class DecodedSlice(Record):
    """Everything decoded from one slice of the trace buffer."""

    slice: Slice | None
    status: str
    diagnostics: dict
    units: list[DecodedUnit]  # in order of first appearance in the data
    config: list[TraceUnit]  # configured units
    config_columns: list[int]  # their absolute columns after the column shift
    column_shift: int = 0
    engine: Engine = NUMPY  # how it was decoded (iron.trace.engine)

    @property
    def label(self) -> str:
        return self.slice.label if self.slice else "trace"

    def unit(self, kind: str, column: int, row: int) -> DecodedUnit | None:
        for u in self.units:
            if (u.kind, u.column, u.row) == (kind, column, row):
                return u
        return None


def column_shift(config_cols: list[tuple[int, int, int]], data_keys: list[tuple[int, int, int]]) -> int:
    """Shift to add to configured columns: 0 when every unit in the data is
    configured, else align the smallest configured column to the smallest
    column in the data (as mlir-aie does)."""
    if not config_cols or not data_keys or set(data_keys) <= set(config_cols):
        return 0
    return min(k[1] for k in data_keys) - min(k[1] for k in config_cols)


def decode_words(
    words: np.ndarray,
    units: list[TraceUnit],
    *,
    column_offset: int = 0,
    colshift: int | None = None,
    slice: Slice | None = None,
    analyze=None,
    engine=None,
) -> DecodedSlice:
    """Decode one slice's words against its configured ``units``.

    ``units`` columns are design-relative; ``column_offset`` makes them absolute.
    ``colshift`` (None: automatic, see :func:`column_shift`) is added on top.
    ``analyze(decoded_unit, data, engine)``, when given, replaces the frame parse
    of every unit: it gets the unit's payload bytes (``data``, MSB first) and
    must set the unit's ``diagnostics`` (at least frames, unknown_frames,
    truncated_frames) and ``frames``; no ops are kept (see
    :func:`iron.trace.export.summary.summarize_unit`, which computes summaries this way).
    ``engine`` (:mod:`iron.trace.engine`, or its name; None: chosen for the slice's size by
    :func:`iron.trace.engine.choose`); PLAIN (with ``analyze`` only): ``words`` a list, every
    step plain Python (a unit in another trace mode than 0 is decoded with numpy).
    """
    engine = as_engine(engine)
    words = _checked(words, engine, analyze)
    kernels = getattr(analyze, "kernels", ops_kernels) if analyze is not None else ops_kernels
    if len(words) * 4 >= E.COMPILED_BYTES and engine is None:
        # Load the compiled kernels while numpy finds the packets (the big
        # numpy passes release the GIL).
        warm = getattr(analyze, "warm", warm_ops)
        load_kernels_async(warm_gather, warm, wanted=E.wants_compiled(len(words) * 4, kernels))
    pk = packet_table(words, PLAIN if engine == PLAIN else NUMPY)
    groups = pk.units()
    kernels_loaded()
    if engine is None:  # one choice for the whole slice: numba only where it pays off
        engine = choose(len(words) * 4, kernels)
    diag = _slice_diagnostics(words, pk)
    cfg = [(unit_packet_type(u), u.column + column_offset, u.row) for u in units]
    shift = colshift if colshift is not None else column_shift(cfg, list(groups))
    cfg_abs = [(t, c + shift, r) for t, c, r in cfg]
    by_key = {}
    for key, u in zip(cfg_abs, units):
        by_key.setdefault(key, u)
    one = _UnitDecoder(words, pk, groups, by_key, analyze, engine)
    done = _decode_units(one, list(groups), big=4 * len(pk.start) * F.PAYLOAD_WORDS >= PARALLEL_BYTES)
    add_unit_totals(diag, done)
    status = slice_status(words, diag)
    units_out = [du for du, _ in done]
    return DecodedSlice(
        slice, status, diag, units_out, list(units), [c for _, c, _ in cfg_abs], shift, engine
    )


def _slice_diagnostics(words, pk) -> dict:
    """The slice's diagnostics before its units': word count, bytes in packets, the packet table's."""
    diag = pk.diagnostics
    diag = {"words": int(len(words)), "used_bytes": diag.pop("used_words") * 4, **diag}
    diag["size_bytes"] = int(len(words)) * 4
    return diag


def _decode_units(one, keys: list, big: bool) -> list[tuple[DecodedUnit, int]]:
    """``one(key)`` of every unit key, on several threads when the slice is ``big`` and
    holds several units: ``(decoded unit, idle words)`` in key order."""
    if big and len(keys) > 1 and (os.cpu_count() or 1) > 1:
        # Units are independent and the compiled kernels release the GIL.
        from concurrent.futures import ThreadPoolExecutor  # big slices only

        with ThreadPoolExecutor(min(len(keys), os.cpu_count() or 1)) as pool:
            return list(pool.map(one, keys))
    return [one(k) for k in keys]


class _UnitDecoder:
    """Decodes one unit of a slice (:meth:`__call__`, by its packet key) the way
    :func:`decode_words` was asked to: parsed, or handed to ``analyze``."""

    def __init__(self, words, pk, groups: dict, by_key: dict, analyze, engine: Engine):
        self.words, self.pk, self.groups, self.by_key = words, pk, groups, by_key
        self.analyze, self.engine = analyze, engine

    def __call__(self, key: tuple[int, int, int]) -> tuple[DecodedUnit, int]:
        """The unit with packet key ``key`` (type, column, row) and its idle payload words."""
        words, analyze, engine = self.words, self.analyze, self.engine
        rows = self.groups[key]
        start, nwords = self.pk.unit_packets(rows)
        if analyze is not None and engine.compiled and hasattr(analyze, "pieces"):
            return _analyze_pieces(key, self.by_key.get(key), words, start, nwords, analyze)
        data, idle = unit_payload(words, start, nwords, engine)
        du = DecodedUnit(*key, self.by_key.get(key), packets=len(rows), nbytes=len(data))
        du.mode, mode_diag = unit_mode(du.unit, data)
        if du.mode != 0:  # event-PC / execution trace: their own decoders (rare, small streams)
            decode_other_mode(du, np.frombuffer(data, np.uint8) if engine.plain else data, mode_diag)
            return du, idle
        if mode_diag:
            du.diagnostics.update(mode_diag)
        if analyze is not None:
            analyze(du, data, engine)
            if du.ops is NO_OPS:  # none kept: the writers parse the unit again
                du.reload = Reparse(words, start, nwords, engine)
        else:
            self.parse(du, data)
        return du, idle

    def parse(self, du: DecodedUnit, data) -> None:
        """Parse a trace-mode-0 unit's payload ``data`` into its ops and bounded runs."""
        du.ops, du.start_timer, du.diagnostics = parse_stream(data, self.engine)
        du.frames = du.diagnostics["frames"]
        budget = max(MIN_INTERVALS_PER_UNIT, INTERVALS_PER_BYTE * len(data))
        runs, dropped = bound_runs(ops_to_runs(du.ops), budget)
        du.__dict__["runs"] = runs  # the cached property, bounded
        if dropped:
            du.diagnostics["dropped_intervals"] = dropped


def _checked(words, engine: Engine | None, analyze):
    """``words`` as :func:`decode_words` takes them for ``engine`` (a list, PLAIN, which
    keeps no ops, so needs ``analyze``; else a checked uint32 array)."""
    if engine != PLAIN:
        return check_words(words)
    if analyze is None:
        raise ValueError('engine="plain" keeps no ops: it needs analyze')
    return words


def _analyze_pieces(key, unit, words, start, nwords, analyze) -> tuple[DecodedUnit, int]:
    """``analyze.pieces`` (compiled) of one unit's payload gathered a piece at a
    time (:class:`~iron.trace.decode.packets.PayloadPieces`): the unit's bytes are
    never in memory whole. A unit in another trace mode is gathered whole for its
    own decoder (rare, small streams)."""
    src = PayloadPieces(words, start, nwords)
    pieces = iter(src)
    first = next(pieces, np.zeros(0, np.uint8))
    du = DecodedUnit(*key, unit, packets=len(start))
    du.mode, mode_diag = unit_mode(du.unit, first)  # from the stream's first byte
    if du.mode != 0:
        data = np.concatenate([first, *pieces])
        du.nbytes = len(data)
        decode_other_mode(du, data, mode_diag)
        return du, src.idle
    analyze.pieces(du, itertools.chain([first], pieces))
    du.nbytes = src.nbytes
    du.reload = Reparse(words, start, nwords)
    return du, src.idle


class Reparse:
    """A unit's ops parsed again from its packets in the slice's words (see
    :meth:`DecodedUnit.load_ops`): holds only the packet offsets, not the payload.
    ``engine`` PLAIN: lists, parsed as plain Python; else numpy arrays."""

    def __init__(self, words, start, nwords, engine: Engine = NUMPY):
        self.words, self.start, self.nwords, self.plain = words, start, nwords, engine.plain
        self._kept: list | None = None  # plain: the ops of the first parse (small), for the later passes

    def __call__(self) -> Ops:
        if self.plain:
            return next(self.op_chunks(0), NO_OPS)
        engine = choose(len(self.words) * 4, ops_kernels)
        data, _idle = unit_payload(self.words, self.start, self.nwords, engine)
        if engine.compiled and len(data):  # views, not copies: held briefly, a copy doubles the peak
            return parse_compiled(data, compact=False)[0]
        return parse_stream(data, engine)[0]

    def op_chunks(self, chunk_ops: int):
        if self.plain:  # small: the unit's ops in one chunk of lists, parsed once
            if self._kept is None:
                data, _idle = unit_payload(self.words, self.start, self.nwords, PLAIN)
                ring = [op_buffers(max(1, len(data)), PLAIN)]
                self._kept = list(scan_from(data, ring, new_counts(PLAIN), engine=PLAIN))
            return iter(self._kept)
        return scan_pieces(PayloadPieces(self.words, self.start, self.nwords), chunk_ops)


def unit_packet_type(unit: TraceUnit) -> int:
    """Packet type used to match a unit: the one its kind sends (mlir-aie keys
    units by register kind, not by Trace_Control1)."""
    return MODULE_KINDS.index(unit.kind)
