"""A core's object-FIFO ports: ``aie.objectfifo.acquire`` / ``release`` as the interpreter runs them.

Acquires count cumulatively (what the core already holds counts), as mlir-aie's stateful
transform lowers them; an acquire that cannot be granted yields (the core blocks). Each
produces the core's lock and port trace events and advances its clock by the engine's cost
model (:mod:`iron.runtime.sim.engine`). The engine exposes these as its methods
(``engine.acquire(proc, ...)``).
"""

from __future__ import annotations

from iron.runtime.sim import progress
from iron.runtime.sim.errors import SimError
from iron.runtime.sim.interp import NotModelledOp
from iron.target import events


def port(eng, proc, fifo: str, mode: str):
    """(FIFO, the core's reader of it or None when the core produces into it); looked up once
    per core, FIFO and mode (a core acquires the same FIFOs at every iteration)."""
    key = (proc.tile, fifo, mode)
    hit = eng._ports.get(key)
    if hit is None:
        hit = eng._ports[key] = _port(eng, proc, fifo, mode)
    return hit


def _port(eng, proc, fifo: str, mode: str):
    f = eng.fifos.get(fifo)
    if f is None:
        raise NotModelledOp(
            f"core ({proc.col},{proc.row}) uses object FIFO @{fifo}, which sim does not model"
        )
    tile = proc.tile
    if mode == "Consume":
        r = eng._reader_of.get((fifo, tile))
        if r is None:
            raise SimError(f"core ({proc.col},{proc.row}) consumes @{fifo}, but is not one of its consumers")
        return f, r
    if f.op.producer != tile:
        raise SimError(f"core ({proc.col},{proc.row}) produces into @{fifo}, but is not its producer")
    return f, None


def acquire(eng, proc, fifo: str, mode: str, n: int):
    """The ``n`` buffers of an acquire (cumulative over what the core holds) when it can be
    granted now; else a generator that yields False until it can and then returns them (most
    acquires are granted at once: no generator is made for them)."""
    f, r = port(eng, proc, fifo, mode)
    progress.interacted(proc)
    t0 = proc.t
    if eng.traced:  # empty when no unit runs: no event is built
        eng._ev(proc.col, proc.row, "core", t0, 1, "INSTR_LOCK_ACQUIRE_REQ")
    if _grantable(f, r, n):
        return _grant(eng, proc, fifo, f, r, n, t0)
    return _blocked(eng, proc, fifo, mode, f, r, n, t0)


def _grantable(f, r, n: int) -> bool:
    return f.can_write(0, max(n - f.held[0], 0)) if r is None else f.available(r, n)


def _blocked(eng, proc, fifo: str, mode: str, f, r, n: int, t0: int):
    """Generator: the core blocks until its acquire can be granted."""
    while not _grantable(f, r, n):
        proc.wait = f"acquire @{fifo}({mode}, {n})"
        yield False
    return _grant(eng, proc, fifo, f, r, n, t0)


def _grant(eng, proc, fifo: str, f, r, n: int, t0: int) -> list:
    """The acquire granted: the buffers, the core's clock past the objects' arrival."""
    traced = eng.traced
    if r is None:
        extra = max(n - f.held[0], 0)
        if extra:
            f.writer_acquire(0, extra)
        first = f.next_slot[0]
        if n == 1:  # the common case, without the generic loops below
            ready, bufs = f.slot_time(first), [f.kbufs[first % f.depth]]
        else:
            ready = max((f.slot_time(j) for j in range(first, first + n)), default=0)
            bufs = [f.kbufs[j % f.depth] for j in range(first, first + n)]
    else:
        r.held = max(r.held, n)
        first = r.released
        if n == 1:
            ready, bufs = f.ready.get(first, 0) + f.cycles, [r.kbufs[first % f.depth]]
        else:
            ready = max(f.ready.get(j, 0) for j in range(first, first + n)) + f.cycles
            bufs = [r.kbufs[j % f.depth] for j in range(first, first + n)]
        if traced:
            _consume_events(eng, proc, f, fifo, ready)
    proc.t = max(proc.t, ready) + 1
    if traced and proc.t - 1 > t0:
        eng._ev(proc.col, proc.row, "core", t0 + 1, proc.t - 1 - t0, "LOCK_STALL")
    return bufs


def _consume_events(eng, proc, f, fifo: str, ready: int) -> None:
    """An object streaming into the core (its port, its S2MM channel's BD, lock 0 if it is this FIFO's)."""
    tile = proc.tile
    dur = f.stream_cycles
    ch = eng._channel.get((fifo, tile), 0)
    eng._ev(proc.col, proc.row, "core", ready - dur, dur, "PORT_RUNNING_0")  # data streams in
    eng._ev(proc.col, proc.row, "mem", ready, 1, f"DMA_S2MM_{ch}_FINISHED_BD")
    if eng._lock0.get(tile) == fifo:
        _locks(eng, proc, max(proc.t, ready), "LOCK_SEL{}_ACQ_GE")


def release(eng, proc, fifo: str, mode: str, n: int) -> None:
    """The core releases ``n`` objects of ``fifo``: a produced object streams out."""
    f, r = port(eng, proc, fifo, mode)
    progress.interacted(proc)
    traced = eng.traced  # empty when no unit runs: no event is built
    if traced:
        eng._ev(proc.col, proc.row, "core", proc.t, 1, "INSTR_LOCK_RELEASE_REQ")
    proc.t += 1
    if r is None:
        f.writer_release(0, n, proc.t)
        if traced:
            ch = eng._channel.get((fifo, proc.tile), 0)
            eng._ev(proc.col, proc.row, "core", proc.t, f.stream_cycles, "PORT_RUNNING_1")
            eng._ev(proc.col, proc.row, "mem", proc.t + f.cycles, 1, f"DMA_MM2S_{ch}_FINISHED_BD")
    else:
        f.reader_release(r, n, proc.t)
        if traced and eng._lock0.get(proc.tile) == fifo:
            _locks(eng, proc, proc.t, "LOCK_{}_REL")


def _locks(eng, proc, t: int, fmt: str) -> None:
    """Lock 0's event as every lock-selection block reports it (all watch lock 0 after reset)."""
    if (proc.col, proc.row, "mem") not in eng.traced:
        return
    for n in range(events.LOCK_SELECTION_BLOCKS):
        eng._ev(proc.col, proc.row, "mem", t, 1, fmt.format(n))
