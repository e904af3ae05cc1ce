"""sim's cost of a kernel call, calibrated from hardware captures where one exists.

A kernel measured on real hardware (:data:`iron.target.kernel_cycles.MEASURED`: its cycles
per operand byte, the geometric mean over its captures) costs that rate times the call's
operand bytes. Any other kernel gets None here and the engine's nominal cost
(:mod:`iron.runtime.sim.engine`: ``CALL_CYCLES`` plus one cycle per ``CALL_BYTES_PER_CYCLE``
operand bytes), which no capture calibrates.
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
    return _rate(symbol, arch, kernel_cycles.MEASURED)


@functools.lru_cache(maxsize=256)
def _rate(symbol: str, arch: str, table: tuple) -> float | None:
    # keyed by the table too: a test that swaps MEASURED for another tuple sees its numbers
    rates = [m.cycles_per_byte for m in table if m.symbol == symbol and m.arch == arch]
    if not rates:
        return None
    return math.exp(sum(math.log(r) for r in rates) / len(rates))


def call_cycles(symbol: str, args: list, arch: str) -> int | None:
    """Cycles one call of ``symbol`` with ``args`` takes on ``arch``, or None
    when no capture measured the kernel (the engine's nominal cost applies)."""
    rate = cycles_per_byte(symbol, arch)
    if rate is None:
        return None
    nbytes = sum(a.nbytes for a in args if isinstance(a, np.ndarray))
    return max(MIN_CALL_CYCLES, round(rate * nbytes))
