"""The one bound on what the interval writers (Perfetto JSON, Perfetto protobuf) emit.

A few KB of Repeat frames stand for hundreds of millions of pulses, so a writer
expanding every interval turned an 8 KB trace into hundreds of MB (issue 26). Every
writer, called from the CLI or the API, takes its intervals through one
:class:`IntervalBudget` for the whole trace (all slices and units together):
:data:`~iron.trace.decode.units.INTERVALS_PER_BYTE` intervals per payload byte of the
trace, and at least :data:`~iron.trace.decode.units.MIN_INTERVALS_PER_UNIT` (the numbers
decode's own per-unit bound uses, so an honest trace, whose frames carry at most 8
intervals per byte without Repeat frames, is never cut). Past it the later intervals
(in output order: slices, units, then tracks) are dropped and counted; the writers
record the count in their metadata (``output_bound``) and return it, and
``iron trace decode`` says so on stderr. ``limit=None`` lifts the bound
(``--all-intervals``). mlir-aie's JSON is never truncated (it must match upstream's
parser record for record): past a begin and an end record per interval of that bound
(:meth:`RecordBudget.for_slices`; with ``--all-intervals`` :data:`MAX_MLIR_AIE_RECORDS`,
across all units) the writer refuses, and nothing is left written.
"""

from __future__ import annotations

from iron.trace.words import TraceInputError
from iron.trace.decode.mlir_aie_timing import MAX_MLIR_AIE_RECORDS_PER_UNIT
from iron.trace.decode.units import INTERVALS_PER_BYTE, MIN_INTERVALS_PER_UNIT

#: mlir-aie records (Repeat-expanded) of one output, all units together: the per-unit
#: bound of :mod:`iron.trace.decode.mlir_aie_timing` now holds for the whole trace.
MAX_MLIR_AIE_RECORDS = MAX_MLIR_AIE_RECORDS_PER_UNIT


def default_interval_limit(slices) -> int:
    """The bound of a trace: 8 intervals per payload byte of all its units, at least 2**18."""
    nbytes = sum(int(du.nbytes) for ds in slices for du in ds.units)
    return max(MIN_INTERVALS_PER_UNIT, INTERVALS_PER_BYTE * nbytes)


class IntervalBudget:
    """Intervals the writers may still emit (``limit`` None: no bound)."""

    def __init__(self, limit: int | None):
        self.limit = limit
        self.left = limit
        self.dropped = 0

    @classmethod
    def for_slices(cls, slices, bounded: bool = True) -> "IntervalBudget":
        """The budget of one output of ``slices``; what decode's per-unit bound already
        dropped (the ``dropped_intervals`` diagnostics) counts as dropped too."""
        budget = cls(default_interval_limit(slices) if bounded else None)
        budget.dropped = sum(
            int(du.diagnostics.get("dropped_intervals", 0)) for ds in slices for du in ds.units
        )
        return budget

    def take(self, begin, end) -> tuple:
        """The first intervals of ``(begin, end)`` (arrays or lists) that fit; the rest is counted as dropped."""
        if self.left is None:
            return begin, end
        n = min(len(begin), self.left)
        self.left -= n
        self.dropped += len(begin) - n
        return begin[:n], end[:n]

    def drop(self, count: int) -> None:
        """Count ``count`` intervals not written at all (a track skipped whole)."""
        self.dropped += int(count)

    def fits(self, count: int) -> bool:
        return self.left is None or count <= self.left

    def metadata(self) -> dict:
        """What the writers record beside the events when the bound cut something."""
        if not self.dropped:
            return {}
        return {
            "output_bound": {
                "max_intervals": self.limit,
                "dropped_intervals": self.dropped,
                "rule": f"{INTERVALS_PER_BYTE} intervals per payload byte, at least {MIN_INTERVALS_PER_UNIT}; "
                "the earliest are kept (slices, units, tracks in order)",
            }
        }

    def note(self) -> str | None:
        """One line for the CLI's stderr (None: nothing was dropped)."""
        if not self.dropped:
            return None
        return (
            f"output bounded at {self.limit} intervals ({INTERVALS_PER_BYTE} per payload byte, at least "
            f"{MIN_INTERVALS_PER_UNIT}): {self.dropped} later intervals were dropped (Repeat frames standing "
            "for more pulses than the trace's bytes carry); --all-intervals writes them all"
        )


class RecordBudget:
    """mlir-aie records still allowed in one output (all units together)."""

    def __init__(self, limit: int | None = None, bounded: bool = False):
        self.limit = MAX_MLIR_AIE_RECORDS if limit is None else limit
        self.bounded = bounded  # the limit is the trace's own (for_slices), not the format's
        self.used = 0

    @classmethod
    def for_slices(cls, slices, bounded: bool = True) -> "RecordBudget":
        """The records one trace may give: a begin and an end per interval the Perfetto bound
        allows (:func:`default_interval_limit`), so an 8 KB Repeat trace no longer gives
        hundreds of MB; ``bounded=False`` (``--all-intervals``): the format's own bound only."""
        if not bounded:
            return cls()
        return cls(min(MAX_MLIR_AIE_RECORDS, 2 * default_interval_limit(slices)), bounded=True)

    def add(self, count: int) -> None:
        self.used += int(count)
        if self.used > self.limit:
            lift = (
                f" ({2 * INTERVALS_PER_BYTE} per payload byte, at least {2 * MIN_INTERVALS_PER_UNIT}; "
                f"--all-intervals lifts it to {MAX_MLIR_AIE_RECORDS})"
                if self.bounded
                else ""
            )
            raise TraceInputError(
                f"mlir-aie JSON: more than {self.limit} records across all units of this trace{lift}: Repeat "
                "frames expand to more events than that; this format must match mlir-aie's parser record "
                "for record and is never truncated: decode to --format perfetto (bounded, with a note)"
            )
