"""The execution engine: runs a loaded device's data movement and cores.

**Not cycle-accurate.** A cooperative scheduler runs one generator per agent until
none can move: every shim DMA channel an object FIFO uses, every memtile link
channel, every core (:mod:`iron.runtime.sim.interp`). An agent yields when an
acquire, a full FIFO or an empty task queue blocks it. Data is moved one FIFO
object at a time with vectorised numpy (a BD's whole address pattern at once, a
kernel model per call), never element by element.

Object FIFOs (``aie.objectfifo``, mlir-aie ``AIEObjectFifoStatefulTransform.cpp``):

* ``depth`` buffers on the producer side: a producer acquire waits while ``depth``
  objects are still held by some consumer; the producer's buffers keep what was
  last written in them (a kernel that does not zero its accumulator sees stale data);
* every consumer (broadcast: several) gets each object; an object is free once all
  consumers released it;
* ``dimensionsToStream`` is the producer DMA's read pattern of each object, applied
  when the producer is a core or a memtile (for a link's destination, relative to
  the link offset inside the memtile buffer); ``dimensionsFromStream`` of a consumer
  is its S2MM write pattern (for a join source, relative to its offset in the
  memtile buffer). The shim end of a FIFO moves the bytes of its host BDs, in the
  BD's address order (:func:`iron.runtime.sim.dma.byte_indices`): a pattern on a FIFO's shim
  end is refused before anything is built, as mlir-aie's verifier refuses it
  (:mod:`iron.mlir.check`). Patterns are pinned on upstream's
  objectFifo-stateful-transform lit test nd_dma_multiple_consumers_AIE2.mlir (the BD
  ``dims`` equal the FIFO's); one that does not cover the whole object is not modelled;
* ``aie.objectfifo.link``: distribute (one source, its object split at the dest
  offsets, each dest FIFO fed independently) and join (each source writes its part
  of the dest object at its offset; the object is complete when every part is).

Cost model (cycles; for ordering trace events, never a performance claim):
DMA moves :data:`DMA_BYTES_PER_CYCLE` bytes per cycle after :data:`DMA_SETUP` cycles
per object or task; a kernel call measured on hardware takes its calibrated cycles and call
overhead (:mod:`iron.runtime.sim.costs`), any other :data:`CALL_CYCLES` plus one cycle per
:data:`CALL_BYTES_PER_CYCLE` operand bytes; an acquire or release takes one cycle.
A core that waits on an acquire shows a LOCK_STALL for the wait.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np

from iron.mlir import ir
from iron.runtime.sim import cascade, costs, kernel_models, progress
from iron.runtime.sim.errors import SimError
from iron.runtime.sim.interp import Core, NotModelledOp
from iron.runtime.sim.program import Program
from iron.runtime.sim.taint import Taint
from iron.target import events, tile_dma
from iron.target.geometry import MEMTILE_ROW, SHIM_ROW

DMA_BYTES_PER_CYCLE = 4
DMA_SETUP = 16
CALL_CYCLES = 64
CALL_BYTES_PER_CYCLE = 16

#: Core architecture of each target family (kernel models are keyed by it).
ARCH = {"npu1": "aie2", "npu2": "aie2p"}

Dims = tuple[tuple[int, int], ...]


def _elem_view(raw: np.ndarray, nbytes: int) -> np.ndarray:
    return raw.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[nbytes])


def pattern_indices(base: int, dims: Dims) -> np.ndarray:
    """Element indices a ``(size, stride)`` access pattern (outermost first) visits from ``base``."""
    idx = _pattern(tuple(dims))
    return idx + base if base else idx


@functools.lru_cache(maxsize=64)
def _pattern(dims: Dims) -> np.ndarray:
    # A design streams every object of a FIFO with one pattern: built once, read-only.
    idx = np.zeros((), dtype=np.int64)
    for size, stride in dims:
        idx = idx[..., None] + np.arange(size, dtype=np.int64) * stride
    idx = idx.reshape(-1)
    idx.flags.writeable = False
    return idx


@functools.lru_cache(maxsize=256)
def object_indices(base: int, dims: Dims, numel: int) -> np.ndarray:
    """Element indices a tile DMA visits for one object of ``numel`` elements with
    ``dims``. A pattern with every dimension its BD has (:attr:`iron.target.tile_dma.DmaKind.
    pattern_dims`; :func:`_check_cover` admits no other short one) has no wrap on the
    outermost, so it steps on until the object is complete. Upstream relies on it: the
    whole_array matmul's ``C_L2L3`` memtile FIFO (mlir-aie
    programming_examples/basic/matrix_multiplication/whole_array/build, 4fe0c68b) streams a
    3072-element object with a 768-element pattern whose outer size 4 covers one core's tile."""
    inner = math.prod(size for size, _ in dims[1:])
    outer = max(dims[0][0], -(-numel // inner))
    # every object of a FIFO streams with one pattern: built once (cached), read-only
    idx = pattern_indices(base, ((outer, dims[0][1]), *dims[1:]))[:numel]
    idx.flags.writeable = False
    return idx


@dataclass
class Reader:
    """One consumer of a FIFO's objects: a core, a shim S2MM channel or a link channel."""

    label: str
    dims: Dims = ()  # dimensionsFromStream this reader applies into its own buffers
    released: int = 0
    held: int = 0
    bufs: list = field(default_factory=list)  # its physical buffers (uint8), one per depth
    ebufs: list = field(default_factory=list)  # the same, viewed as the FIFO's elements
    kbufs: list = field(default_factory=list)  # the same, as a kernel sees them (Fifo.view)


class Fifo:
    """One object FIFO's state (see the module docstring)."""

    def __init__(
        self, op: ir.ObjectFifo, mtype: ir.MemRefType, taint: Taint | None = None, pool: dict | None = None
    ):
        self.name = op.name
        self.op = op
        self.depth = max(int(op.depth), 1)
        self.type = mtype
        self.elem = ir.ELEMENT_BYTES[mtype.dtype]
        self.numel = math.prod(mtype.shape)
        self.nbytes = self.numel * self.elem
        self._kernel_dtype = np.uint16 if mtype.dtype == "bf16" else np.dtype(ir.DTYPES[mtype.dtype])
        self.taint = taint if taint is not None else Taint()
        self._pool = {} if pool is None else pool
        self.bufs, self.ebufs, self.kbufs = self.buffers((self.name, "producer"))
        self.why: dict[int, str] = {}  # slot -> why its object is not modelled (iron.runtime.sim.taint)
        self.to_dims: Dims = ()  # applied when streaming out (core or join producer)
        self.readers: list[Reader] = []  # add_reader: the objects freed so far follow them
        self._freed = 0  # min(r.released for r in readers), kept by add_reader / reader_release
        self.writers = 1
        self.parts: dict[int, int] = {}  # slot -> writers done
        self.next_slot = [0]  # per writer: next slot it acquires
        self.held = [0]  # per writer: slots acquired, not released
        self.pushed = 0
        self.ready: dict[int, int] = {}  # slot -> time its data is complete
        self.free_at: dict[int, int] = {}  # slot -> time it was freed by its last reader

    # -- producers
    def freed(self) -> int:
        return self._freed

    def add_reader(self, r: "Reader") -> None:
        self.readers.append(r)
        self._freed = min(x.released for x in self.readers)

    def can_write(self, w: int, n: int) -> bool:
        return self.next_slot[w] + self.held[w] + n - 1 < self.freed() + self.depth

    def slot_time(self, j: int) -> int:
        return self.free_at.get(j - self.depth, 0)

    def writer_acquire(self, w: int, n: int) -> list[int]:
        first = self.next_slot[w] + self.held[w]
        self.held[w] += n
        return list(range(first, first + n))

    def writer_release(self, w: int, n: int, t: int, why: str | None = None) -> None:
        """Writer ``w`` releases ``n`` objects; ``why``: their data is not modelled (else
        the mark of the buffer the writer filled, if any)."""
        n = min(n, self.held[w])
        for j in range(self.next_slot[w], self.next_slot[w] + n):
            self.parts[j] = self.parts.get(j, 0) + 1
            self.ready[j] = max(self.ready.get(j, 0), t)
            part_why = why or self.taint.of(self.bufs[j % self.depth])
            if part_why:
                self.why.setdefault(j, part_why)
        self.next_slot[w] += n
        self.held[w] -= n
        while self.parts.get(self.pushed, 0) >= self.writers:
            self._complete(self.pushed)

    def _complete(self, j: int) -> None:
        del self.parts[j]
        why = self.why.pop(j, None)
        stream = self.ebufs[j % self.depth]
        if self.to_dims:
            stream = stream[object_indices(0, self.to_dims, stream.size)]
        for r in self.readers:
            self.taint.set(r.bufs[j % self.depth], why)
            dst = r.ebufs[j % self.depth]
            if r.dims:
                dst[object_indices(0, r.dims, stream.size)] = stream
            else:
                dst[:] = stream
        self.pushed += 1

    # -- consumers
    def available(self, r: Reader, n: int) -> bool:
        return r.released + n <= self.pushed

    def reader_release(self, r: Reader, n: int, t: int) -> None:
        before = self._freed
        r.released += n
        r.held = max(r.held - n, 0)
        self._freed = min(x.released for x in self.readers)
        for j in range(before, self._freed):
            self.free_at[j] = t

    def view(self, raw: np.ndarray) -> np.ndarray:
        """An object buffer as the kernel sees it: shaped, bf16 as uint16 bit patterns."""
        return raw.view(self._kernel_dtype).reshape(self.type.shape)

    def buffers(self, key) -> tuple[list, list, list]:
        """``depth`` zeroed object buffers (uint8), and the same as elements and as the kernel
        sees them (views made once, not per object moved). ``key`` names them in the engine's
        pool: an engine built again for the same device (a reconfiguration) zeroes the
        buffers of the one it replaces instead of making new ones."""
        hit = self._pool.get(key)
        if hit is not None and len(hit[0]) == self.depth and hit[0][0].size == self.nbytes:
            for raw in hit[0]:
                raw.fill(0)
        else:
            # one owning array per object: a taint mark follows the array that owns the memory
            raws = [np.zeros(self.nbytes, np.uint8) for _ in range(self.depth)]
            elems = [_elem_view(raw, self.elem) for raw in raws]
            hit = self._pool[key] = raws, elems, [self.view(raw) for raw in raws]
        for raw in hit[0]:
            self.taint.track(raw)
        return hit


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


def _check_cover(op: ir.ObjectFifo, numel: int, tiles: dict) -> None:
    """Each pattern of a FIFO must visit as many elements as the object holds, unless it has
    every dimension its tile's BD has (the outermost then steps until the BD's length, the
    object's, is moved: :func:`object_indices`). The hardware's behaviour past another short
    pattern (a wrapped outermost dimension) is not modelled."""
    named = [("dimensionsToStream", op.dims_to_stream, op.producer)]
    named += [("dimensionsFromStream", d, c) for d, c in zip(op.dims_from_stream, op.consumers)]
    for what, dims, tile in named:
        n = math.prod(size for size, _stride in dims) if dims else numel
        row = tiles[tile].row if tile in tiles else MEMTILE_ROW
        full = row != SHIM_ROW and len(dims) == tile_dma.kind_of_row(row).pattern_dims
        if n != numel and not full:
            raise NotModelledOp(
                f"object FIFO @{op.name}: its {what} {list(dims)} visits {n} of the object's {numel} "
                "elements; a pattern that does not cover the object is not modelled"
            )


def _fifo_type(op: ir.ObjectFifo) -> ir.MemRefType:
    t = _memref(op.type)
    if t is None:
        raise NotModelledOp(f"object FIFO @{op.name}: element type {op.type!r} is not modelled")
    return t


@functools.lru_cache(maxsize=256)
def _memref(text: str) -> ir.MemRefType | None:
    # a FIFO's type read once per spelling (an engine is built at every reconfiguration)
    from iron.mlir.reader import memref_type

    return memref_type(text)


class Engine:
    """Executes one loaded device (see the module docstring).

    ``device``: the :class:`iron.runtime.sim.SimDevice` whose shim channels, host
    buffers and clock the engine uses; ``kernels``: kernel object name ->
    ``(defines dict, arch)``; ``models``: ``(symbol, defines, arch) -> model | None``
    (default :func:`iron.runtime.sim.kernel_models.model_for`, looked up at call time);
    ``pool``: the object buffers of the engine this one replaces, for the same program
    (:meth:`Fifo.buffers`; zeroed before use, as new ones would be).
    """

    def __init__(self, device, prog: Program, allocations: dict, kernels: dict, models=None, pool=None):
        self.device = device
        self.prog = prog
        #: object buffers by owner, kept by the device per program for the next engine of it
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
        self._channel: dict[tuple[str, str], int] = {}  # (fifo, core tile) -> its DMA channel
        self._lock0: dict[str, str] = {}  # core tile -> the FIFO whose lock is lock 0
        tiles = prog.tiles
        self.cascades = cascade.Cascades(
            [((tiles[a].col, tiles[a].row), (tiles[b].col, tiles[b].row)) for a, b in prog.cascades]
        )
        try:
            self._build(allocations)
        except NotModelledOp as e:
            self.tainted.append(str(e))
            self.procs = []

    # ------------------------------------------------------------------ setup
    def _build(self, allocations: dict) -> None:
        """The agents of the loaded design: FIFOs and their readers, link channels, shim
        channels, cores (each step below)."""
        self._fifos()
        link_src = {s: lk for lk in self.prog.links for s in lk.sources}
        link_dst = {d: lk for lk in self.prog.links for d in lk.dests}
        self._readers(link_src)
        for lk in self.prog.links:
            if len(lk.sources) == 1:
                self._distribute(lk)
            else:
                self._join(lk)
        self._shim_channels(allocations, link_dst)
        for core in self.prog.cores:
            self._core(core)

    def _fifos(self) -> None:
        """One :class:`Fifo` per object FIFO, its patterns checked; links must name known FIFOs."""
        prog = self.prog
        for name, op in prog.fifos.items():
            f = Fifo(op, _fifo_type(op), self.taint, self.pool)
            _check_cover(op, f.numel, prog.tiles)
            f.to_dims = op.dims_to_stream  # never on a shim producer: iron.mlir.check refuses it
            self.fifos[name] = f
        for lk in prog.links:
            unknown = [n for n in (*lk.sources, *lk.dests) if n not in self.fifos]
            if unknown:  # e.g. a FIFO with per-end depths, which iron's reader keeps as text
                raise NotModelledOp(
                    f"not modelled: object FIFO @{unknown[0]} of a link (its form is kept as text)"
                )
            if len(lk.sources) == 1:  # distribute: its channels apply each dest's pattern themselves
                for d in lk.dests:
                    self.fifos[d].to_dims = ()

    def _readers(self, link_src: dict) -> None:
        """A reader per consumer: a shim S2MM channel or a core; a link's memtile reads its
        sources through the link's channels (:meth:`_distribute`, :meth:`_join`)."""
        for name, f in self.fifos.items():
            op = f.op
            from_dims = op.dims_from_stream or ((),) * len(op.consumers)
            for cons, dims in zip(op.consumers, from_dims):
                if self.prog.tiles[cons].row == SHIM_ROW:
                    self._reader(f, f"shim S2MM @{name}", ())
                elif name in link_src and cons == self._link_tile(link_src[name]):
                    continue
                else:
                    self._reader(f, f"%{cons}", dims, key=(name, cons))

    def _shim_channels(self, allocations: dict, link_dst: dict) -> None:
        """The shim MM2S / S2MM channel agents of FIFOs with a shim end (their allocation);
        a producer that is no shim, core or link is not modelled."""
        tiles = self.prog.tiles
        core_tiles = {c.tile for c in self.prog.cores}
        for name, f in self.fifos.items():
            op = f.op
            if tiles[op.producer].row == SHIM_ROW:
                alloc = allocations.get(name)
                if alloc is not None:
                    self._shim_mm2s(f, alloc)
            elif name not in link_dst and op.producer not in core_tiles:
                raise NotModelledOp(f"object FIFO @{name}: producer %{op.producer} runs no core and no link")
        for name, f in self.fifos.items():
            alloc = allocations.get(name)
            for cons in f.op.consumers:
                if tiles[cons].row == SHIM_ROW and alloc is not None:
                    r = next(r for r in f.readers if r.label.startswith("shim S2MM"))
                    self._shim_s2mm(f, r, alloc)

    def _core(self, core) -> None:
        """A core's agent, its memory-module channels and lock 0: its FIFOs in program order
        (sim's choice, as mlir-aie allocates them in that order); lock 0 is its first input's."""
        ins = [n for n, f in self.fifos.items() if core.tile in f.op.consumers]
        outs = [n for n, f in self.fifos.items() if f.op.producer == core.tile]
        for k, n in enumerate(ins):
            self._channel[n, core.tile] = k % 2
        for k, n in enumerate(outs):
            self._channel[n, core.tile] = k % 2
        if ins:
            self._lock0[core.tile] = ins[0]
        proc = Proc(f"core ({core.col},{core.row})", core.col, core.row, tile=core.tile)
        proc.gen = self._core_gen(core, proc)
        self._cores[core.tile] = proc
        self.procs.append(proc)

    def _reader(self, f: Fifo, label: str, dims: Dims, key=None) -> Reader:
        r = Reader(label, tuple(dims))
        r.bufs, r.ebufs, r.kbufs = f.buffers((f.name, "reader", len(f.readers)))
        f.add_reader(r)
        if key is not None:
            self._reader_of[key] = r
        return r

    def _link_tile(self, lk) -> str:
        """The tile whose DMA runs a link (a memtile, or a compute tile forwarding without a core)."""
        return self.fifos[lk.dests[0]].op.producer

    def _distribute(self, lk) -> None:
        src = self.fifos[lk.sources[0]]
        tiles = self.prog.tiles
        ci = src.op.consumers.index(self._link_tile(lk))
        mem = tiles[src.op.consumers[ci]]
        offsets = lk.dest_offsets or (0,) * len(lk.dests)
        from_dims = (src.op.dims_from_stream or ((),) * len(src.op.consumers))[ci]
        for dest, off in zip(lk.dests, offsets):
            d = self.fifos[dest]
            r = self._reader(src, f"memtile ({mem.col},{mem.row}) MM2S @{dest}", from_dims)
            proc = Proc(f"memtile ({mem.col},{mem.row}) MM2S @{dest}", mem.col, mem.row)
            forward = len(lk.dests) == 1 and not d.op.dims_to_stream and d.nbytes != src.nbytes
            proc.gen = self._distribute_gen(proc, src, r, d, off, forward)
            self.procs.append(proc)

    def _join(self, lk) -> None:
        dest = self.fifos[lk.dests[0]]
        dest.writers = len(lk.sources)
        dest.next_slot = [0] * dest.writers
        dest.held = [0] * dest.writers
        mem = self.prog.tiles[dest.op.producer]
        offsets = lk.source_offsets or (0,) * len(lk.sources)
        for w, (sname, off) in enumerate(zip(lk.sources, offsets)):
            s = self.fifos[sname]
            ci = s.op.consumers.index(dest.op.producer)
            dims = (s.op.dims_from_stream or ((),) * len(s.op.consumers))[ci]
            r = self._reader(s, f"memtile ({mem.col},{mem.row}) S2MM @{sname}", ())
            proc = Proc(f"memtile ({mem.col},{mem.row}) S2MM @{sname}", mem.col, mem.row)
            proc.gen = self._join_gen(proc, s, r, dest, w, off, tuple(dims))
            self.procs.append(proc)

    # ------------------------------------------------------------------ events
    def _ev(self, col: int, row: int, kind: str, first: int, n: int, name: str) -> None:
        key = (col, row, kind)
        if key in self.traced:
            self.events.setdefault(key, []).append((int(first), max(int(n), 1), name))

    def _link_ev(self, proc: Proc, first: int, n: int, name: str) -> None:
        """A memtile link's DMA event (a compute tile's forwarding DMA reports none here)."""
        if proc.row == MEMTILE_ROW:
            self._ev(proc.col, proc.row, "memtile", first, n, name)

    def _tile_kind(self, row: int) -> str:
        return "shim" if row == SHIM_ROW else "memtile" if row == MEMTILE_ROW else "mem"

    def drain_events(self) -> dict:
        ev, self.events = self.events, {}
        return ev

    # ------------------------------------------------------------------ agents
    def _shim_mm2s(self, f: Fifo, alloc) -> None:
        key = (alloc.column, "mm2s", alloc.channel)
        self.shim_channels[key] = f.name
        proc = Proc(f"shim ({alloc.column},0) MM2S {alloc.channel} @{f.name}", alloc.column, SHIM_ROW)
        proc.gen = self._mm2s_gen(proc, key, f)
        self.procs.append(proc)

    def _shim_s2mm(self, f: Fifo, r: Reader, alloc) -> None:
        key = (alloc.column, "s2mm", alloc.channel)
        self.shim_channels[key] = f.name
        proc = Proc(f"shim ({alloc.column},0) S2MM {alloc.channel} @{f.name}", alloc.column, SHIM_ROW)
        proc.gen = self._s2mm_gen(proc, key, f, r)
        self.procs.append(proc)

    def _mm2s_gen(self, proc: Proc, key, f: Fifo):
        dev = self.device
        pending, pending_why = np.zeros(0, np.uint8), None
        while True:
            ch = dev.channels.get(key)
            task = ch.active if ch is not None else None
            if task is None:
                proc.wait = "no task queued"
                yield False
                continue
            proc.t = max(proc.t, task.pushed_at)
            self._ev(proc.col, proc.row, "shim", proc.t, 1, f"DMA_MM2S_{key[2]}_START_TASK")
            idx = task.indices()
            pending_why = pending_why or dev.unmodelled_bytes(task.buffer, idx)
            data = task.buffer.data[idx]
            pos = 0
            while pos < data.size:
                take = min(f.nbytes - pending.size, data.size - pos)
                part = data[pos : pos + take]  # data is the task's own copy: a view of it is safe
                pending = part if not pending.size else np.concatenate([pending, part])
                pos += take
                task.moved = pos
                if pending.size < f.nbytes:
                    break  # the rest of this object comes with the next task
                while not f.can_write(0, 1):
                    proc.wait = f"@{f.name} full ({f.depth} objects not yet released)"
                    yield False
                (j,) = f.writer_acquire(0, 1)
                start = max(proc.t, f.slot_time(j))
                f.bufs[j % f.depth][:] = pending
                proc.t = start + DMA_SETUP + f.nbytes // DMA_BYTES_PER_CYCLE
                self._ev(proc.col, proc.row, "shim", start, proc.t - start, f"PORT_RUNNING_{key[2]}")
                f.writer_release(0, 1, proc.t, pending_why)
                pending, pending_why = np.zeros(0, np.uint8), None
                yield True
            if ch.active is task:
                ch.complete(task)
                self._ev(proc.col, proc.row, "shim", proc.t, 1, f"DMA_MM2S_{key[2]}_FINISHED_TASK")
            yield True

    def _s2mm_gen(self, proc: Proc, key, f: Fifo, r: Reader):
        dev = self.device
        pending, why = np.zeros(0, np.uint8), None
        while True:
            ch = dev.channels.get(key)
            task = ch.active if ch is not None else None
            if task is None:
                proc.wait = "no task queued"
                yield False
                continue
            proc.t = max(proc.t, task.pushed_at)
            self._ev(proc.col, proc.row, "shim", proc.t, 1, f"DMA_S2MM_{key[2]}_START_TASK")
            idx = task.indices()
            if task.buffer.released:
                raise SimError(
                    f"shim ({key[0]},0) S2MM {key[2]}: the device writes into host buffer {task.buffer.name!r} "
                    f"after the runner released it (active task {task.describe()})"
                )
            while task.moved < idx.size:
                if pending.size == 0:
                    while not f.available(r, 1):
                        proc.wait = (
                            f"@{f.name} empty ({task.moved}/{idx.size} bytes of BD {task.bd_id} written)"
                        )
                        yield False
                    j = r.released
                    pending = r.bufs[j % f.depth].copy()
                    why = self.taint.of(r.bufs[j % f.depth])
                    start = max(proc.t, f.ready.get(j, 0))
                    proc.t = start + DMA_SETUP + f.nbytes // DMA_BYTES_PER_CYCLE
                    self._ev(proc.col, proc.row, "shim", start, proc.t - start, "PORT_RUNNING_1")
                    f.reader_release(r, 1, proc.t)
                n = min(pending.size, idx.size - task.moved)
                task.buffer.data[idx[task.moved : task.moved + n]] = pending[:n]
                if self.tainted or why:
                    why = self.tainted[0] if self.tainted else why
                    dev.mark_unmodelled(task.buffer, idx[task.moved : task.moved + n], why)
                task.moved += n
                pending = pending[n:]
                yield True
            if ch.active is task:
                ch.complete(task)
                self._ev(proc.col, proc.row, "shim", proc.t, 1, f"DMA_S2MM_{key[2]}_FINISHED_TASK")
            yield True

    def _distribute_gen(self, proc: Proc, src: Fifo, r: Reader, dest: Fifo, offset: int, forward: bool):
        dims = dest.op.dims_to_stream
        n = dest.type.numel
        if dest.elem != src.elem:
            raise NotModelledOp(f"link @{src.name} -> @{dest.name}: element types differ")
        if forward:
            yield from self._forward_gen(proc, src, r, dest)
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
            part = stream[object_indices(offset, dims, n)] if dims else stream[offset : offset + n]
            dest.ebufs[k % dest.depth][:] = part
            start = max(proc.t, src.ready.get(j, 0), dest.slot_time(k))
            proc.t = start + DMA_SETUP + dest.nbytes // DMA_BYTES_PER_CYCLE
            self._link_ev(proc, start, proc.t - start, "PORT_RUNNING_1")
            self._link_ev(proc, proc.t, 1, "DMA_MM2S_SEL0_FINISHED_BD")
            dest.writer_release(0, 1, proc.t, self.taint.of(r.bufs[j % src.depth]))
            src.reader_release(r, 1, proc.t)
            yield True

    def _forward_gen(self, proc: Proc, src: Fifo, r: Reader, dest: Fifo):
        """A 1:1 link between FIFOs of different object sizes: the stream's bytes are repacked
        into the destination's objects (what leaves the memtile is a byte stream)."""
        pending, why = np.zeros(0, np.uint8), None
        while True:
            if pending.size < dest.nbytes:
                while not src.available(r, 1):
                    proc.wait = f"@{src.name} empty"
                    yield False
                j = r.released
                pending = np.concatenate([pending, r.bufs[j % src.depth]])
                why = why or self.taint.of(r.bufs[j % src.depth])
                proc.t = max(proc.t, src.ready.get(j, 0))
                src.reader_release(r, 1, proc.t)
                yield True
                continue
            while not dest.can_write(0, 1):
                proc.wait = f"@{dest.name} full"
                yield False
            (k,) = dest.writer_acquire(0, 1)
            dest.bufs[k % dest.depth][:] = pending[: dest.nbytes]
            pending = pending[dest.nbytes :]
            proc.t = max(proc.t, dest.slot_time(k)) + DMA_SETUP + dest.nbytes // DMA_BYTES_PER_CYCLE
            self._link_ev(proc, proc.t, 1, "DMA_MM2S_SEL0_FINISHED_BD")
            dest.writer_release(0, 1, proc.t, why)
            why = why if pending.size else None  # leftover bytes: conservatively as marked
            yield True

    def _join_gen(self, proc: Proc, src: Fifo, r: Reader, dest: Fifo, w: int, offset: int, dims: Dims):
        n = src.type.numel
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
            if dims:
                dst[object_indices(offset, dims, stream.size)] = stream
            else:
                dst[offset : offset + n] = stream
            start = max(proc.t, src.ready.get(j, 0), dest.slot_time(k))
            proc.t = start + DMA_SETUP + src.nbytes // DMA_BYTES_PER_CYCLE
            self._link_ev(proc, start, proc.t - start, "PORT_RUNNING_0")
            self._link_ev(proc, proc.t, 1, "DMA_S2MM_SEL0_FINISHED_BD")
            dest.writer_release(w, 1, proc.t, self.taint.of(r.bufs[j % src.depth]))
            src.reader_release(r, 1, proc.t)
            yield True

    def _core_gen(self, core, proc: Proc):
        interp = Core(core, self, proc)
        try:
            yield from interp.run()
        except NotModelledOp as e:
            self.tainted.append(f"{e}{interp.at()}")
        proc.done = True

    # ------------------------------------------------------------------ core services
    def _port(self, proc: Proc, fifo: str, mode: str):
        f = self.fifos.get(fifo)
        if f is None:
            raise NotModelledOp(
                f"core ({proc.col},{proc.row}) uses object FIFO @{fifo}, which sim does not model"
            )
        tile = self._tile_of(proc)
        if mode == "Consume":
            r = self._reader_of.get((fifo, tile))
            if r is None:
                raise SimError(
                    f"core ({proc.col},{proc.row}) consumes @{fifo}, but is not one of its consumers"
                )
            return f, r
        if f.op.producer != tile:
            raise SimError(f"core ({proc.col},{proc.row}) produces into @{fifo}, but is not its producer")
        return f, None

    def acquire(self, proc: Proc, fifo: str, mode: str, n: int):
        """Generator: the ``n`` buffers of an acquire (cumulative over what the core holds)."""
        f, r = self._port(proc, fifo, mode)
        progress.interacted(proc)
        t0 = proc.t
        self._ev(proc.col, proc.row, "core", t0, 1, "INSTR_LOCK_ACQUIRE_REQ")
        if r is None:
            extra = max(n - f.held[0], 0)
            while not f.can_write(0, extra):
                proc.wait = f"acquire @{fifo}(Produce, {n})"
                yield False
            if extra:
                f.writer_acquire(0, extra)
            first = f.next_slot[0]
            slots = list(range(first, first + n))
            ready = max((f.slot_time(j) for j in slots), default=0)
            bufs = [f.kbufs[j % f.depth] for j in slots]
        else:
            while not f.available(r, n):
                proc.wait = f"acquire @{fifo}(Consume, {n})"
                yield False
            r.held = max(r.held, n)
            slots = list(range(r.released, r.released + n))
            ready = max(f.ready.get(j, 0) for j in slots) + DMA_SETUP + f.nbytes // DMA_BYTES_PER_CYCLE
            bufs = [r.kbufs[j % f.depth] for j in slots]
            tile = self._tile_of(proc)
            dur = f.nbytes // DMA_BYTES_PER_CYCLE
            ch = self._channel.get((fifo, tile), 0)
            self._ev(proc.col, proc.row, "core", ready - dur, dur, "PORT_RUNNING_0")  # data streams in
            self._ev(proc.col, proc.row, "mem", ready, 1, f"DMA_S2MM_{ch}_FINISHED_BD")
            if self._lock0.get(tile) == fifo:
                self._locks(proc, max(proc.t, ready), "LOCK_SEL{}_ACQ_GE")
        proc.t = max(proc.t, ready) + 1
        if proc.t - 1 > t0:
            self._ev(proc.col, proc.row, "core", t0 + 1, proc.t - 1 - t0, "LOCK_STALL")
        return bufs

    def release(self, proc: Proc, fifo: str, mode: str, n: int) -> None:
        f, r = self._port(proc, fifo, mode)
        progress.interacted(proc)
        self._ev(proc.col, proc.row, "core", proc.t, 1, "INSTR_LOCK_RELEASE_REQ")
        proc.t += 1
        tile = self._tile_of(proc)
        if r is None:
            f.writer_release(0, n, proc.t)
            ch = self._channel.get((fifo, tile), 0)
            self._ev(proc.col, proc.row, "core", proc.t, f.nbytes // DMA_BYTES_PER_CYCLE, "PORT_RUNNING_1")
            self._ev(proc.col, proc.row, "mem", proc.t + DMA_SETUP + f.nbytes // DMA_BYTES_PER_CYCLE, 1,
                     f"DMA_MM2S_{ch}_FINISHED_BD")  # fmt: skip
        else:
            f.reader_release(r, n, proc.t)
            if self._lock0.get(tile) == fifo:
                self._locks(proc, proc.t, "LOCK_{}_REL")

    def _tile_of(self, proc: Proc) -> str:
        return proc.tile

    def _locks(self, proc: Proc, t: int, fmt: str) -> None:
        """Lock 0's event as every lock-selection block reports it (all watch lock 0 after reset)."""
        if (proc.col, proc.row, "mem") not in self.traced:
            return
        for n in range(events.LOCK_SELECTION_BLOCKS):
            self._ev(proc.col, proc.row, "mem", t, 1, fmt.format(n))

    def call(self, proc: Proc, symbol: str, args: list, core_link: str | None):
        """Run kernel ``symbol``'s model on ``args``; a generator when the kernel reads its
        cascade (:mod:`iron.runtime.sim.cascade`: the core waits for the data), else None.
        A kernel without a model, or fed buffers sim did not compute, marks every buffer
        it was handed (:mod:`iron.runtime.sim.taint`)."""
        progress.interacted(proc)
        obj = self.prog.funcs.get(symbol) or core_link
        defines, arch = self.kernels.get(obj, ({}, self.arch)) if obj else ({}, self.arch)
        known = obj in self.kernels  # iron compiled it: its defines are known
        model, unknown = self._model(symbol, obj, defines, arch, known)
        why = None if unknown is None else self._unknown_defines(symbol, obj, unknown)
        self._call_events(proc, args, costs.call_cost(symbol, args, arch))
        self.calls.append(symbol)
        if model is None:
            # the table's reason; a lookup sim was handed (kernel_models=) may refuse more
            refused = kernel_models.refusal(symbol) or "the kernel-model lookup sim was given has none"
            why = why or (
                f"kernel {symbol!r} ({obj or 'no object'}, defines {dict(defines)}) has no model: {refused}; "
                f"give sim one: load(..., kernels={{{symbol!r}: fn}})"
            )
        elif isinstance(model, kernel_models.CascadeModel):
            if self.taint.of(*args):
                self.void(self.taint.of(*args))  # a cascade carries no mark
            return cascade.run_kernel(self, proc, model, args)
        else:
            try:
                model(*args)
            except kernel_models.KernelModelError as exc:
                if known:
                    raise
                why = self._unknown_defines(symbol, obj, exc)
        if why is not None and why not in self.unmodelled_kernels:
            self.unmodelled_kernels.append(why)
        why = why or self.taint.of(*args)
        if why is not None and not self.taint.mark(args, why):
            self.void(why)
        return None

    @staticmethod
    def _unknown_defines(symbol: str, obj, exc) -> str:
        return f"kernel {symbol!r}: the defines {obj} was compiled with are unknown to iron ({exc})"

    def void(self, why: str) -> None:
        """Values sim did not compute reached what no mark can follow: the whole device's
        outputs are not modelled."""
        if why not in self.tainted:
            self.tainted.append(why)

    def _call_events(self, proc: Proc, args: list, measured: tuple | None) -> None:
        """A kernel call's trace events and cost (``measured``: the calibrated (overhead before,
        cycles, overhead after), :mod:`iron.runtime.sim.costs`; None: the module docstring's nominal one)."""
        nbytes = sum(a.nbytes for a in args if isinstance(a, np.ndarray))
        before, cycles, after = measured or (0, CALL_CYCLES + nbytes // CALL_BYTES_PER_CYCLE, 0)
        start = proc.t + before
        proc.t = start + cycles
        if (proc.col, proc.row, "core") in self.traced:
            self._ev(proc.col, proc.row, "core", start, 1, "INSTR_EVENT_0")
            self._ev(proc.col, proc.row, "core", start + 1, 1, "INSTR_CALL")
            self._ev(proc.col, proc.row, "core", start + 2, proc.t - start - 4, "INSTR_VECTOR")
            self._ev(proc.col, proc.row, "core", proc.t - 1, 1, "INSTR_RETURN")
            self._ev(proc.col, proc.row, "core", proc.t, 1, "INSTR_EVENT_1")
        proc.t += after

    def why_stuck(self) -> str | None:
        """Why shim tasks the design leaves pending hold no modelled values: an op or a
        kernel sim does not model (None: nothing is missing, the design should finish)."""
        return (self.tainted or self.unmodelled_kernels or [None])[0]

    def _model(self, symbol: str, obj, defines, arch: str, known: bool):
        """(model or None, why a foreign object's defines are unknown or None), looked up once
        per kernel and lookup function in each dispatch (:meth:`forget_models`; looked up at
        call time: tests may replace :func:`iron.runtime.sim.kernel_models.model_for`)."""
        lookup = self.models or kernel_models.model_for
        key = (lookup, symbol, obj)
        hit = self._looked_up.get(key)
        if hit is not None:
            return hit
        try:
            hit = lookup(symbol, defines, arch), None
        except kernel_models.KernelModelError as exc:
            if known:
                raise
            hit = None, exc  # a foreign object: how it was compiled is not known
        self._looked_up[key] = hit
        return hit

    def forget_models(self) -> None:
        """A new dispatch looks its kernels' models up again (one registered since is used)."""
        self._looked_up.clear()

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
                p.done = False
                p.gen = self._core_gen(core, p)

    def clock(self) -> int:
        return max((p.t for p in self.procs), default=0)

    def blocked(self) -> list[str]:
        return [f"{p.name}: {p.wait}" if p.wait else p.name for p in self.procs if not p.done]
