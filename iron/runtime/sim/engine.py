"""The execution engine: runs a loaded device's data movement and cores.

**Not cycle-accurate.** A cooperative scheduler runs one generator per agent until
none can move: every shim DMA channel an object FIFO uses, every memtile link
channel (:mod:`iron.runtime.sim.agents`), every core (:mod:`iron.runtime.sim.interp`).
An agent yields when an acquire, a full FIFO or an empty task queue blocks it. Data is
moved one FIFO object at a time with vectorised numpy (a BD's whole address pattern at
once, a kernel model per call), never element by element.

The package by concern: object FIFO state (:mod:`iron.runtime.sim.fifo`), the agents that
move objects (:mod:`iron.runtime.sim.agents`), how they are built from the program
(:mod:`iron.runtime.sim.wiring`), a core's FIFO ports (:mod:`iron.runtime.sim.ports`) and
kernel calls (:mod:`iron.runtime.sim.calls`); this module holds their state, the cost model,
trace events and the scheduler.

Cost model (cycles; for ordering trace events, never a performance claim):
DMA moves :data:`DMA_BYTES_PER_CYCLE` bytes per cycle after :data:`DMA_SETUP` cycles
per object or task; a kernel call measured on hardware takes its calibrated cycles and call
overhead (:mod:`iron.runtime.sim.costs`), any other :data:`CALL_CYCLES` plus one cycle per
:data:`CALL_BYTES_PER_CYCLE` operand bytes; an acquire or release takes one cycle.
A core that waits on an acquire shows a LOCK_STALL for the wait.
"""

from __future__ import annotations

import numpy as np

from iron.runtime.sim import agents, calls, cascade, ports, progress, wiring
from iron.runtime.sim.agents import Proc
from iron.runtime.sim.fifo import Fifo, Reader
from iron.runtime.sim.interp import NotModelledOp
from iron.runtime.sim.program import Program
from iron.runtime.sim.taint import Taint

DMA_BYTES_PER_CYCLE = 4
DMA_SETUP = 16
CALL_CYCLES = 64
CALL_BYTES_PER_CYCLE = 16

#: Core architecture of each target family (kernel models are keyed by it).
ARCH = {"npu1": "aie2", "npu2": "aie2p"}


class Engine:
    """Executes one loaded device (see the module docstring).

    ``device``: the :class:`iron.runtime.sim.SimDevice` whose shim channels, host
    buffers and clock the engine uses; ``kernels``: kernel object name ->
    ``(defines dict, arch)``; ``models``: ``(symbol, defines, arch) -> model | None``
    (default :func:`iron.runtime.sim.kernel_models.model_for`, looked up at call time);
    ``pool``: the object buffers of the engine this one replaces, for the same program
    (:meth:`iron.runtime.sim.fifo.Fifo.buffers`; zeroed before use, as new ones would be).
    """

    def __init__(self, device, prog: Program, allocations: dict, kernels: dict, models=None, pool=None):
        self.device = device
        self.prog = prog
        #: object buffers by owner, kept by the device per program for
        #: the next engine of it
        self.pool: dict = {} if pool is None else pool
        self.arch = ARCH.get(device.target.name, device.target.name)
        self.kernels = kernels
        self.models = models
        #: Why the whole device's outputs are not modelled (an op sim cannot run ...).
        self.tainted: list[str] = [f"not modelled: {w}" for w in prog.unmodelled]
        self.step_budget = progress.step_budget(prog)
        #: Kernels without a model called so far (why, once each); only the outputs their
        #: results reach are not modelled (:mod:`iron.runtime.sim.taint`).
        self.unmodelled_kernels: list[str] = []
        self.taint = Taint()
        self.fifos: dict[str, Fifo] = {}
        self.procs: list[Proc] = []
        #: (col, row, kind) -> [(first cycle, cycles, event name)] recorded since the last drain
        self.events: dict[tuple[int, int, str], list] = {}
        #: The modules whose trace units run while the engine advances (the device sets it before
        #: each advance; units start and stop only between advances): only their events are
        #: recorded, none when nothing is traced.
        self.traced: frozenset[tuple[int, int, str]] = frozenset()
        self.calls: list[str] = []  # kernel symbols called, in order (all cores), since the last drain
        self.first_call = ""  # the first kernel this device called (names its EVENT_PC code range)
        self.shim_channels: dict[tuple, str] = {}  # (col, dir, ch) -> fifo
        self._cores: dict[str, Proc] = {}
        self._looked_up: dict[tuple, tuple] = {}  # (lookup, symbol, object) -> (model, unknown)
        self._reader_of: dict[tuple[str, str], Reader] = {}
        self._ports: dict[tuple[str, str, str], tuple] = {}  # (core tile, fifo, mode) -> ports.port
        self._channel: dict[tuple[str, str], int] = {}  # (fifo, core tile) -> its DMA channel
        self._lock0: dict[str, str] = {}  # core tile -> the FIFO whose lock is lock 0
        tiles = prog.tiles
        self.cascades = cascade.Cascades(
            [((tiles[a].col, tiles[a].row), (tiles[b].col, tiles[b].row)) for a, b in prog.cascades]
        )
        try:
            wiring.build(self, allocations)
            for f in self.fifos.values():
                self._cost(f)
        except NotModelledOp as e:
            self.tainted.append(str(e))
            self.procs = []

    #: A core's FIFO ports and kernel calls (:mod:`iron.runtime.sim.ports`,
    #: :mod:`iron.runtime.sim.calls`), as methods: the interpreter calls ``engine.acquire(...)``.
    acquire = ports.acquire
    release = ports.release
    call = calls.call
    forget_models = calls.forget_models

    # ------------------------------------------------------------------ cost model
    @staticmethod
    def _cost(f: Fifo) -> None:
        """A DMA moving one of ``f``'s objects: its setup, then its bytes streaming."""
        f.stream_cycles = f.nbytes // DMA_BYTES_PER_CYCLE
        f.cycles = DMA_SETUP + f.stream_cycles

    def call_events(self, proc: Proc, args: list, measured: tuple | None) -> None:
        """A kernel call's trace events and cost (``measured``: the calibrated (overhead before,
        cycles, overhead after), :mod:`iron.runtime.sim.costs`; None: the module docstring's nominal one)."""
        if measured is None:
            nbytes = sum(a.nbytes for a in args if isinstance(a, np.ndarray))
            measured = (0, CALL_CYCLES + nbytes // CALL_BYTES_PER_CYCLE, 0)
        before, cycles, after = measured
        start = proc.t + before
        proc.t = start + cycles
        if (proc.col, proc.row, "core") in self.traced:
            self._ev(proc.col, proc.row, "core", start, 1, "INSTR_EVENT_0")
            self._ev(proc.col, proc.row, "core", start + 1, 1, "INSTR_CALL")
            self._ev(proc.col, proc.row, "core", start + 2, proc.t - start - 4, "INSTR_VECTOR")
            self._ev(proc.col, proc.row, "core", proc.t - 1, 1, "INSTR_RETURN")
            self._ev(proc.col, proc.row, "core", proc.t, 1, "INSTR_EVENT_1")
        proc.t += after

    def void(self, why: str) -> None:
        """Values sim did not compute reached what no mark can follow: the whole device's
        outputs are not modelled."""
        if why not in self.tainted:
            self.tainted.append(why)

    def why_stuck(self) -> str | None:
        """Why shim tasks the design leaves pending hold no modelled values: an op or a
        kernel sim does not model (None: nothing is missing, the design should finish)."""
        return (self.tainted or self.unmodelled_kernels or [None])[0]

    # ------------------------------------------------------------------ events
    def _ev(self, col: int, row: int, kind: str, first: int, n: int, name: str) -> None:
        key = (col, row, kind)
        if key in self.traced:
            got = self.events.get(key)
            if got is None:
                got = self.events[key] = []
            got.append((int(first), max(int(n), 1), name))

    def drain_events(self) -> dict:
        ev, self.events = self.events, {}
        return ev

    # ------------------------------------------------------------------ scheduling
    def advance(self) -> bool:
        """Run every agent until none can move; True if anything moved."""
        moved_any = False
        progress = True
        while progress:
            progress = False
            for p in self.procs:
                if p.done:
                    continue
                try:
                    while next(p.gen):
                        progress = moved_any = True
                except StopIteration:
                    p.done = True
                    progress = moved_any = True
        return moved_any

    def restart_finished_cores(self) -> None:
        """Cores whose program ended start it again (a new dispatch of the loaded PDI)."""
        for core in self.prog.cores:
            p = self._cores.get(core.tile)
            if p is not None and p.done:
                self.start_core(core, p)

    def start_core(self, core, proc: Proc) -> None:
        """Run ``core``'s program from its first op on its agent ``proc``."""
        proc.done = False
        proc.gen = agents.core(self, core, proc)

    def core_at(self, col: int, row: int):
        """``(core, agent)`` of the core on tile (col, row), or None."""
        for core in self.prog.cores:
            t = self.prog.tiles[core.tile]
            if (t.col, t.row) == (col, row) and core.tile in self._cores:
                return core, self._cores[core.tile]
        return None

    def clock(self) -> int:
        return max((p.t for p in self.procs), default=0)

    def blocked(self) -> list[str]:
        return [f"{p.name}: {p.wait}" if p.wait else p.name for p in self.procs if not p.done]
