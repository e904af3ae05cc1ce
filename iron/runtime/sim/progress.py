"""sim's progress guarantee: a run ends, with a report, where the hardware would hang or spin.

Two ways a run never ends, and what sim does about each:

* nobody can move (every core, DMA channel and task waits on a lock, an object, a token or a
  stream): the SYNC or await that waits for them raises ``SimError`` "... forever", listing the
  waiting agents (:meth:`iron.runtime.sim.device.SimDevice._blocked`); data a sender streamed
  that no S2MM BD ever takes (the sender stalls on hardware) is reported when the kernel ends
  (:func:`check_drained`);
* somebody always moves: a core that runs without ever touching an object FIFO, a kernel or a
  cascade, or DMAs that keep moving data among themselves (a memtile MM2S chain feeding its
  own S2MM without locks). A budget bounds both: a core may run :func:`step_budget` steps
  (an op of a loop body counts one) between two interactions, and the tile DMAs may make
  :func:`dma_budget` BD executions and stream deliveries in one pass; past it,
  :class:`SpinError` names who spins and what everyone else waits on.

The budget is derived from the design: ``BASE_STEPS`` plus ``STEPS_PER_WORK`` times the
elements of its storage (object FIFO slots, ``aie.buffer``s) to the power 1.5, so a core that
multiplies two matrices element by element between two acquires (n^3 steps for n^2 elements)
fits, with room to spare.
"""

from __future__ import annotations

from iron.mlir import ir, storage
from iron.mlir.reader import memref_type
from iron.runtime.sim.errors import SimError
from iron.target.geometry import SHIM_ROW

#: Steps every design may take between interactions, however small its storage.
BASE_STEPS = 1 << 20
#: Multiplier of the design's storage elements ** 1.5.
STEPS_PER_WORK = 8
#: BD executions and stream deliveries every design's tile DMAs may make in one pass.
BASE_MOVES = 1 << 13


class SpinError(SimError):
    """An agent moved for a whole step budget without the run getting anywhere."""


def step_budget(prog) -> int:
    """The step budget of the design of ``prog`` (:class:`iron.runtime.sim.program.Program`)."""
    return BASE_STEPS + STEPS_PER_WORK * int(storage_elements(prog) ** 1.5)


def dma_budget(prog) -> int:
    """BDs and stream deliveries the tile DMAs may make in one pass: ``BASE_MOVES`` plus one per
    storage element (a BD moves at least one; repeat counts and chains of honest designs stay
    far below)."""
    return BASE_MOVES + storage_elements(prog)


def storage_elements(prog) -> int:
    """Elements of the design's object FIFO slots and ``aie.buffer``s (counted once per program)."""
    if getattr(prog, "storage", None) is None:
        prog.storage = _count_storage(prog)
    return prog.storage


def _count_storage(prog) -> int:
    elements = 0
    for op in (*prog.fifos.values(), *prog.runtime_fifos.values()):
        typ = memref_type(op.type) if isinstance(op.type, str) else op.type
        depth = op.depth if isinstance(op.depth, int) else max(op.depth, default=1)
        elements += (typ.numel if typ is not None else 0) * max(depth, 1)
    for op in prog.device.body if prog.device is not None else ():
        if isinstance(op, ir.Opaque) and (buf := storage.read_buffer(op.text)):
            typ = memref_type(buf.type)
            elements += typ.numel if typ is not None else 0
    return elements


def core_steps(engine, proc, n: int) -> None:
    """Count ``n`` steps of core ``proc``; past the budget, a :class:`SpinError`. A core run
    without an engine (a unit test of the interpreter) has no budget."""
    if engine is None:
        return
    proc.steps += n
    if proc.steps > engine.step_budget:
        raise SpinError(
            f"core ({proc.col},{proc.row}) ran {engine.step_budget} steps (the design's step budget) without "
            "touching an object FIFO, a kernel or a cascade: on hardware it spins forever"
            + report(engine.device, skip=proc.name)
        )


def interacted(proc) -> None:
    """Core ``proc`` touched an object FIFO, a kernel or a cascade: its spin count starts again."""
    proc.steps = 0


def dma_steps(dmas, moved: int, name_of) -> None:
    """``moved`` BDs and stream deliveries in one pass of the tile DMAs; past the budget, a
    :class:`SpinError` naming the channels that keep moving (``name_of``: a channel key's name)."""
    if moved > dmas.move_budget:
        busy = [f"{name_of(k)} (BD {c.bd_id})" for k, c in dmas.channels.items() if c.task]
        raise SpinError(
            f"the tile DMAs moved data {moved} times in one pass (the design's budget) and keep going: "
            f"{', '.join(busy[:8]) or 'no channel'} loop without a lock or a host task stopping them"
            + report(dmas.device)
        )


def report(device, skip: str = "") -> str:
    """ "; waiting: ..." naming every agent that waits, and on what (locks, BDs, objects)."""
    eng, dmas = device.engine, device.tile_dmas
    stuck = [s for s in (eng.blocked() if eng else []) if s.split(":", 1)[0] != skip]
    stuck += dmas.blocked() if dmas else []
    return "; waiting: " + ", ".join(stuck[:8]) if stuck else ""


def check_drained(device, name_of) -> None:
    """Bytes still in a stream toward a shim S2MM channel when the kernel ends were never taken
    by a host task: on hardware their sender stalls and the run hangs. A :class:`SimError` names them (``name_of``: a
    channel key's name)."""
    dmas = device.tile_dmas
    if dmas is None:
        return
    # Only data headed for the host: a static DMA program's memtile or core-tile channels may
    # hold the next object in their streams between runs (waiting on a lock), as hardware does.
    left = [(k, d.size) for k, d in dmas.streams.items() if d.size and k[1] == SHIM_ROW]
    if left:
        what = ", ".join(f"{n} bytes toward {name_of(k)}" for k, n in left[:4])
        raise SimError(
            f"kernel {device._kernel!r} ended with {what} that no S2MM BD takes: on hardware the sending "
            "MM2S stalls and the run hangs (give the receiving task the length the sender moves)"
            + report(device)
        )
