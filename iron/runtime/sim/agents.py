"""The DMA agents the engine schedules: shim channels and memtile links, one generator each.

Each agent is a generator (:class:`Proc` ``gen``) that yields ``True`` after it moved something
and ``False`` when it is blocked (an empty source, a full destination, no task queued); the
engine (:meth:`iron.runtime.sim.engine.Engine.advance`) runs them until none moves. Objects move
whole, with vectorised numpy (a BD's whole address pattern at once). Cores are agents too: their
generator is the interpreter (:mod:`iron.runtime.sim.interp`).

* shim MM2S / S2MM: the channel's active host task (:mod:`iron.runtime.sim.dma`) in its BD's
  byte order, cut into (or filled from) the FIFO's objects;
* ``aie.objectfifo.link``: distribute (one source, its object split at the dest offsets, each
  dest FIFO fed independently; a 1:1 link between objects of different sizes repacks the byte
  stream) and join (each source writes its part of the dest object at its offset; the object
  is complete when every part is).

Costs come from each FIFO's :attr:`iron.runtime.sim.fifo.Fifo.cycles` (the engine's cost model).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iron.runtime.sim import dataflow
from iron.runtime.sim.errors import SimError
from iron.runtime.sim.fifo import Dims, Fifo, Reader, object_indices
from iron.runtime.sim.interp import Core, NotModelledOp
from iron.target.geometry import MEMTILE_ROW


@dataclass
class Proc:
    """One agent: its generator, clock and where it lives (for trace events)."""

    name: str
    col: int
    row: int
    gen: object = None
    t: int = 0
    done: bool = False
    wait: str = ""  # what it waits for when blocked (for messages)
    tile: str = ""  # a core's tile SSA name
    steps: int = 0  # steps since its last interaction (iron.runtime.sim.progress)
    carry: int = 0  # bytes a DMA agent holds between objects or tasks (iron.runtime.sim.replay)
    interp: object = None  # a core's interpreter (iron.runtime.sim.interp.Core)


# ---------------------------------------------------------------------------- shim channels
_NOTHING = np.zeros(0, np.uint8)  # no bytes pending (read-only, shared)
_NOTHING.flags.writeable = False


def _next_task(eng, proc: Proc, key, direction: str):
    """Generator: waits until the shim channel ``key`` has an active task, starts it (the
    channel's START_TASK event) and returns ``(channel, task)``."""
    while True:
        ch = eng.device.channels.get(key)
        task = ch.active if ch is not None else None
        if task is not None:
            break
        proc.wait = "no task queued"
        yield False
    proc.t = max(proc.t, task.pushed_at)
    eng._ev(proc.col, proc.row, "shim", proc.t, 1, f"DMA_{direction}_{key[2]}_START_TASK")
    return ch, task


def _finish_task(eng, proc: Proc, key, direction: str, ch, task) -> None:
    """The task completes (FINISHED_TASK), unless the host already took it off the channel."""
    if ch.active is task:
        ch.complete(task)
        eng._ev(proc.col, proc.row, "shim", proc.t, 1, f"DMA_{direction}_{key[2]}_FINISHED_TASK")


def mm2s(eng, proc: Proc, key, f: Fifo):
    """Shim MM2S channel ``key`` feeding FIFO ``f``: host bytes cut into objects (an object may
    span tasks)."""
    dev = eng.device
    running = f"PORT_RUNNING_{key[2]}"
    pending, pending_why = _NOTHING, None
    while True:
        ch, task = yield from _next_task(eng, proc, key, "MM2S")
        if dev.not_modelled:  # only then which bytes the task reads matters beyond their values
            pending_why = pending_why or dev.unmodelled_bytes(task.buffer, task.indices())
        data = task.read()
        pos = 0
        while pos < data.size:
            take = min(f.nbytes - pending.size, data.size - pos)
            part = data[pos : pos + take]  # data is the task's own copy: a view of it is safe
            pending = part if not pending.size else dataflow.concat(pending, part)
            pos += take
            task.moved = pos
            proc.carry = pending.size
            if pending.size < f.nbytes:
                break  # the rest of this object comes with the next task
            while not f.can_write(0, 1):
                proc.wait = f"@{f.name} full ({f.depth} objects not yet released)"
                yield False
            (j,) = f.writer_acquire(0, 1)
            start = max(proc.t, f.slot_time(j))
            dataflow.copy(f.bufs[j % f.depth], pending)
            proc.carry = 0
            proc.t = start + f.cycles
            if eng.traced:
                eng._ev(proc.col, proc.row, "shim", start, proc.t - start, running)
            f.writer_release(0, 1, proc.t, pending_why)
            pending, pending_why = _NOTHING, None
            yield True
        _finish_task(eng, proc, key, "MM2S", ch, task)
        yield True


def s2mm(eng, proc: Proc, key, f: Fifo, r: Reader):
    """Shim S2MM channel ``key`` draining FIFO ``f`` (as its reader ``r``) into host tasks."""
    dev = eng.device
    pending, why = np.zeros(0, np.uint8), None
    while True:
        ch, task = yield from _next_task(eng, proc, key, "S2MM")
        idx = task.indices()
        if task.buffer.released:
            raise SimError(
                f"shim ({key[0]},0) S2MM {key[2]}: the device writes into host buffer {task.buffer.name!r} "
                f"after the runner released it (active task {task.describe()})"
            )
        while task.moved < idx.size:
            if pending.size == 0:
                while not f.available(r, 1):
                    proc.wait = f"@{f.name} empty ({task.moved}/{idx.size} bytes of BD {task.bd_id} written)"
                    yield False
                j = r.released
                pending = np.empty(f.nbytes, np.uint8)
                dataflow.copy(pending, r.bufs[j % f.depth])
                why = eng.taint.of(r.bufs[j % f.depth])
                start = max(proc.t, f.ready.get(j, 0))
                proc.t = start + f.cycles
                eng._ev(proc.col, proc.row, "shim", start, proc.t - start, "PORT_RUNNING_1")
                f.reader_release(r, 1, proc.t)
            n = min(pending.size, idx.size - task.moved)
            dataflow.scatter(task.buffer.data, idx[task.moved : task.moved + n], pending[:n])
            if eng.tainted or why:
                why = eng.tainted[0] if eng.tainted else why
                dev.mark_unmodelled(task.buffer, idx[task.moved : task.moved + n], why)
            task.moved += n
            pending = pending[n:]
            proc.carry = pending.size
            yield True
        _finish_task(eng, proc, key, "S2MM", ch, task)
        yield True


# ---------------------------------------------------------------------------- links
def link_ev(eng, proc: Proc, first: int, n: int, name: str) -> None:
    """A memtile link's DMA event (a compute tile's forwarding DMA reports none here)."""
    if eng.traced and proc.row == MEMTILE_ROW:
        eng._ev(proc.col, proc.row, "memtile", first, n, name)


def distribute(eng, proc: Proc, src: Fifo, r: Reader, dest: Fifo, offset: int, forward: bool):
    """One dest channel of a distribute link: its part of each ``src`` object (``offset``, the
    dest's pattern) into ``dest``; ``forward``: a 1:1 link repacking the byte stream."""
    dims = dest.op.dims_to_stream
    n = dest.type.numel
    if dest.elem != src.elem:
        raise NotModelledOp(f"link @{src.name} -> @{dest.name}: element types differ")
    if forward:
        yield from _forward(eng, proc, src, r, dest)
    part_of = object_indices(offset, dims, n) if dims else slice(offset, offset + n)  # fixed per link
    memtile, taint = proc.row == MEMTILE_ROW, eng.taint
    while True:
        while not src.available(r, 1):
            proc.wait = f"@{src.name} empty"
            yield False
        while not dest.can_write(0, 1):
            proc.wait = f"@{dest.name} full"
            yield False
        j = r.released
        (k,) = dest.writer_acquire(0, 1)
        stream = r.ebufs[j % src.depth]
        if dims:  # gathered straight into the destination object (no temporary)
            dataflow.gather(dest.ebufs[k % dest.depth], stream, part_of)
        else:
            dataflow.copy(dest.ebufs[k % dest.depth], stream[part_of])
        start = max(proc.t, src.ready.get(j, 0), dest.slot_time(k))
        proc.t = start + dest.cycles
        if memtile and eng.traced:  # link_ev, inlined: runs once per object
            eng._ev(proc.col, proc.row, "memtile", start, proc.t - start, "PORT_RUNNING_1")
            eng._ev(proc.col, proc.row, "memtile", proc.t, 1, "DMA_MM2S_SEL0_FINISHED_BD")
        dest.writer_release(0, 1, proc.t, taint.of(r.bufs[j % src.depth]) if taint.marked() else None)
        src.reader_release(r, 1, proc.t)
        yield True


def _forward(eng, proc: Proc, src: Fifo, r: Reader, dest: Fifo):
    """A 1:1 link between FIFOs of different object sizes: the stream's bytes are repacked
    into the destination's objects (what leaves the memtile is a byte stream)."""
    pending, why = np.zeros(0, np.uint8), None
    while True:
        if pending.size < dest.nbytes:
            while not src.available(r, 1):
                proc.wait = f"@{src.name} empty"
                yield False
            j = r.released
            pending = dataflow.concat(pending, r.bufs[j % src.depth])
            proc.carry = pending.size
            why = why or eng.taint.of(r.bufs[j % src.depth])
            proc.t = max(proc.t, src.ready.get(j, 0))
            src.reader_release(r, 1, proc.t)
            yield True
            continue
        while not dest.can_write(0, 1):
            proc.wait = f"@{dest.name} full"
            yield False
        (k,) = dest.writer_acquire(0, 1)
        dataflow.copy(dest.bufs[k % dest.depth], pending[: dest.nbytes])
        pending = pending[dest.nbytes :]
        proc.carry = pending.size
        proc.t = max(proc.t, dest.slot_time(k)) + dest.cycles
        link_ev(eng, proc, proc.t, 1, "DMA_MM2S_SEL0_FINISHED_BD")
        dest.writer_release(0, 1, proc.t, why)
        why = why if pending.size else None  # leftover bytes: conservatively as marked
        yield True


def join(eng, proc: Proc, src: Fifo, r: Reader, dest: Fifo, w: int, offset: int, dims: Dims):
    """Source ``w`` of a join link: each ``src`` object into its part of a ``dest`` object."""
    n = src.type.numel
    part_of = object_indices(offset, dims, n) if dims else slice(offset, offset + n)  # fixed per link
    while True:
        while not src.available(r, 1):
            proc.wait = f"@{src.name} empty"
            yield False
        while not dest.can_write(w, 1):
            proc.wait = f"@{dest.name} full"
            yield False
        j = r.released
        (k,) = dest.writer_acquire(w, 1)
        stream = r.ebufs[j % src.depth]
        dst = dest.ebufs[k % dest.depth]
        dataflow.put(dst, part_of, stream)
        start = max(proc.t, src.ready.get(j, 0), dest.slot_time(k))
        proc.t = start + src.cycles
        if eng.traced:
            link_ev(eng, proc, start, proc.t - start, "PORT_RUNNING_0")
            link_ev(eng, proc, proc.t, 1, "DMA_S2MM_SEL0_FINISHED_BD")
        dest.writer_release(w, 1, proc.t, eng.taint.of(r.bufs[j % src.depth]) if eng.taint.marked() else None)
        src.reader_release(r, 1, proc.t)
        yield True


# ---------------------------------------------------------------------------- cores
def core(eng, prog, proc: Proc):
    """A core running its program (:class:`iron.runtime.sim.interp.Core`); an op sim does not
    model stops it and voids the device's outputs (the trace still runs)."""
    interp = proc.interp = Core(prog, eng, proc)
    try:
        yield from interp.run()
    except NotModelledOp as e:
        eng.tainted.append(f"{e}{interp.at()}")
    proc.done = True
