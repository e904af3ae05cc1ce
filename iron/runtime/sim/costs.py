"""sim's cost of a kernel call, calibrated from hardware captures where one exists.

A kernel measured on real hardware (:data:`iron.target.kernel_cycles.MEASURED`) costs its
cycles per operand byte (the geometric mean over its captures) times the call's operand
bytes, after ``wake`` cycles of call overhead and followed by ``busy - wake`` more (the
means over its captures; ``wake`` 0 where no capture traced lock stalls). Any other kernel
gets None here and the engine's nominal cost (:mod:`iron.runtime.sim.engine`:
``CALL_CYCLES`` plus one cycle per ``CALL_BYTES_PER_CYCLE`` operand bytes, no overhead),
which no capture calibrates.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from iron.target import kernel_cycles

#: A call raises INSTR_EVENT_0, INSTR_CALL, INSTR_VECTOR, INSTR_RETURN and INSTR_EVENT_1 on
#: cycles of its own (the engine's ``_call_events``): it lasts at least that long.
MIN_CALL_CYCLES = 5


def cycles_per_byte(symbol: str, arch: str) -> float | None:
    """The measured cycles per operand byte of ``symbol`` on ``arch`` (None: never measured)."""
    return _calibration(symbol, arch, kernel_cycles.MEASURED)[0]


def overhead(symbol: str, arch: str) -> tuple[int, int]:
    """Cycles of call overhead ``(before, after)`` a call of ``symbol`` on ``arch``
    ((0, 0): never measured)."""
    return _calibration(symbol, arch, kernel_cycles.MEASURED)[1:]


@functools.lru_cache(maxsize=256)
def _calibration(symbol: str, arch: str, table: tuple) -> tuple[float | None, int, int]:
    # keyed by the table too: a test that swaps MEASURED for another tuple sees its numbers
    rows = [m for m in table if m.symbol == symbol and m.arch == arch]
    if not rows:
        return None, 0, 0
    rate = math.exp(sum(math.log(m.cycles_per_byte) for m in rows) / len(rows))
    before = [m.wake or 0 for m in rows]
    after = [max(0, m.busy - (m.wake or 0)) for m in rows]
    return rate, round(sum(before) / len(rows)), round(sum(after) / len(rows))


_BY_TABLE: dict[tuple, tuple] = {}  # (symbol, arch, id(table)) -> (table, _calibration's result)


def _calibrated(symbol: str, arch: str) -> tuple[float | None, int, int]:
    """:func:`_calibration` of today's table, looked up per call without hashing the table's
    rows (the entry keeps its table alive, so the id stays its own)."""
    table = kernel_cycles.MEASURED
    hit = _BY_TABLE.get((symbol, arch, id(table)))
    if hit is None or hit[0] is not table:
        hit = _BY_TABLE[symbol, arch, id(table)] = table, _calibration(symbol, arch, table)
    return hit[1]


def call_cycles(symbol: str, args: list, arch: str) -> int | None:
    """Cycles one call of ``symbol`` with ``args`` takes on ``arch`` (INSTR_EVENT_0 to
    INSTR_EVENT_1), or None when no capture measured the kernel."""
    rate = cycles_per_byte(symbol, arch)
    return None if rate is None else _cycles(rate, args)


def _cycles(rate: float, args: list) -> int:
    nbytes = sum(a.nbytes for a in args if isinstance(a, np.ndarray))
    return max(MIN_CALL_CYCLES, round(rate * nbytes))


def call_cost(symbol: str, args: list, arch: str) -> tuple[int, int, int] | None:
    """``(overhead before, call cycles, overhead after)`` of one call (None: the engine's
    nominal cost applies)."""
    rate, before, after = _calibrated(symbol, arch)
    return None if rate is None else (before, _cycles(rate, args), after)
