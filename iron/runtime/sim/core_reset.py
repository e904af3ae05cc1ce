"""Core_Control writes of the runtime sequence on sim: stopping, resetting and restarting a core.

The register's bits and what they do are :mod:`iron.target.core_control`'s (aie-rt, mlir-aie's
local_reset tests). sim keeps one Core_Control value per compute tile of the loaded design
(``ENABLE`` after the PDI load, as the configuration leaves it) and acts on the core's agent:

* ``RESET`` set: the core stops where it is and its program will start from the beginning;
* ``RESET`` clear with ``ENABLE`` set after a reset: the program starts again (data memory and
  locks as they are);
* ``ENABLE`` cleared on a running core pauses it, set again resumes it;
* a core that ended reads ``ENABLE`` clear; enabling it without a reset changes nothing.

Before a read or write of Core_Control the design runs as far as it goes (the hardware's
controller writes it after the earlier ops took effect; mlir-aie's tests reset settled cores).
"""

from __future__ import annotations

from iron.target.core_control import ENABLE, RESET


class CoreControl:
    """Core_Control of every core of one engine (a new PDI load makes a new one)."""

    def __init__(self, engine):
        self.engine = engine
        self.value: dict[tuple[int, int], int] = {}
        self.restart: set[tuple[int, int]] = set()  # reset since the program last started
        self.paused: set[tuple[int, int]] = set()  # ENABLE cleared while it ran

    def read(self, col: int, row: int) -> int:
        """The register as the core's state shows it (a tile without a core: what was written)."""
        found = self.engine.core_at(col, row)
        if found is None:
            return self.value.get((col, row), 0)
        value = self.value.get((col, row), ENABLE)
        ended = found[1].done and (col, row) not in self.paused and not value & RESET
        return value & ~ENABLE if ended else value

    def write(self, col: int, row: int, value: int) -> str | None:
        """Apply a write of ``value``; what it did to the core (None: nothing)."""
        tile = (col, row)
        self.value[tile] = value
        found = self.engine.core_at(col, row)
        if found is None:
            return None
        core, proc = found
        if value & RESET:
            proc.done = True  # held in reset: it runs no further
            self.paused.discard(tile)
            self.restart.add(tile)
            return "held in reset"
        if not value & ENABLE:
            if not proc.done:
                proc.done = True
                self.paused.add(tile)
                return "paused"
            return None
        if tile in self.restart:
            self.restart.discard(tile)
            self.engine.start_core(core, proc)
            return "restarted from its first op"
        if tile in self.paused:
            self.paused.discard(tile)
            proc.done = False
            return "resumed"
        return None
