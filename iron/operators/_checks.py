"""Parameter validation shared by the operators: one clear IronError per bad value."""

from __future__ import annotations

import math

from iron.errors import IronError
from iron.target.geometry import TARGETS

#: Largest column count and compute rows of any target; design(target) checks the real limit.
MAX_COLUMNS = max(t.max_columns for t in TARGETS.values())
MAX_CORES_PER_COLUMN = max(len(t.compute_rows) for t in TARGETS.values())


def positive_int(op: str, name: str, value) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise IronError(f"{op}: {name}={value!r} is invalid; accepted: a positive integer")


def int_in_range(op: str, name: str, value, lo: int, hi: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise IronError(f"{op}: {name}={value!r} is invalid; accepted: an integer in {lo}..{hi}")


def one_of(op: str, name: str, value, accepted) -> None:
    if value not in accepted:
        raise IronError(f"{op}: {name}={value!r} is not supported; accepted: {', '.join(map(str, accepted))}")


def finite_float(op: str, name: str, value, *, positive: bool = False) -> None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or (positive and value <= 0):
        what = "a finite number > 0" if positive else "a finite number"
        raise IronError(f"{op}: {name}={value!r} is invalid; accepted: {what}")


def multiple_of(op: str, name: str, value: int, factor: int, how: str) -> None:
    """``value`` must be a multiple of ``factor``; ``how`` explains the factor."""
    if value % factor:
        raise IronError(
            f"{op}: {name}={value} is not divisible by {how} = {factor}; "
            f"accepted: a multiple of {factor} (e.g. {max(factor, value // factor * factor)})"
        )


def common(op: str, columns, cores_per_column) -> None:
    int_in_range(op, "columns", columns, 1, MAX_COLUMNS)
    int_in_range(op, "cores_per_column", cores_per_column, 1, MAX_CORES_PER_COLUMN)
