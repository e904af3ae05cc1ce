"""Which of a running design's buffers hold values sim did not compute, and why.

A kernel without a model (and a foreign kernel whose compile defines are unknown) does not
void the whole run: its call marks the buffers it was handed, and the mark follows the
data. A FIFO object carries the mark of the buffer it was written from
(:class:`iron.runtime.sim.fifo.Fifo`), its readers' buffers take it when the object
reaches them (or lose it when a clean object overwrites them), a kernel fed a marked
buffer marks every buffer it was handed, a core that loaded a marked value marks what it
stores, and a shim S2MM channel records the host bytes it writes from a marked object as
not modelled (:meth:`iron.runtime.sim.SimDevice.mark_unmodelled`). Outputs no marked data
reaches are computed and returned as usual.

Marks are per buffer (the array that owns the memory; numpy views share it), conservative
(a partly written buffer is wholly marked, and a producer's buffer keeps its mark: a kernel
may accumulate into it). Only buffers the engine tracks (object-FIFO buffers) can carry a
mark; marking any other memory is refused (:meth:`Taint.mark` returns False) and the engine
then treats the whole device's outputs as not modelled, as before.
"""

from __future__ import annotations

import numpy as np


def owner(a: np.ndarray) -> np.ndarray:
    """The array that owns ``a``'s memory (``a`` itself when it owns it)."""
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


class Taint:
    """Marks on buffers: owner array -> why its values are not modelled."""

    def __init__(self):
        self._why: dict[int, tuple[np.ndarray, str]] = {}
        self._tracked: set[int] = set()
        self._keep: list[np.ndarray] = []  # tracked owners stay alive: their ids stay theirs

    def track(self, raw: np.ndarray) -> None:
        """``raw`` (an owning array) may carry a mark."""
        self._tracked.add(id(raw))
        self._keep.append(raw)

    def marked(self) -> bool:
        """Whether any buffer carries a mark (the common case: none does)."""
        return bool(self._why)

    def of(self, *values) -> str | None:
        """Why the first marked array among ``values`` is marked (None: none is)."""
        if not self._why:  # the common case: every kernel has a model
            return None
        for v in values:
            if isinstance(v, np.ndarray):
                hit = self._why.get(id(owner(v)))
                if hit is not None:
                    return hit[1]
        return None

    def mark(self, values, why: str) -> bool:
        """Mark every array among ``values``; False when one is memory no mark can follow
        (the caller then gives up on the device's outputs)."""
        ok = True
        for v in values:
            if isinstance(v, np.ndarray):
                o = owner(v)
                if id(o) in self._tracked:
                    self._why[id(o)] = (o, why)
                else:
                    ok = False
        return ok

    def set(self, raw: np.ndarray, why: str | None) -> None:
        """``raw`` was overwritten whole by data marked ``why`` (None: clean data)."""
        if why is None:
            if self._why:
                self._why.pop(id(raw), None)
        else:
            self._why[id(raw)] = (raw, why)
