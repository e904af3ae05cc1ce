"""Object FIFOs on sim: one FIFO's state, its readers, and the element patterns its DMAs visit.

mlir-aie's ``aie.objectfifo`` (``AIEObjectFifoStatefulTransform.cpp``), as sim models it:

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
  ``dims`` equal the FIFO's); one that does not cover the whole object is not modelled.

The agents that move objects between FIFOs are :mod:`iron.runtime.sim.fifo_agents`; the
engine that builds and schedules them is :mod:`iron.runtime.sim.engine`.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np

from iron.mlir import ir
from iron.runtime.sim import dataflow
from iron.runtime.sim.interp import NotModelledOp
from iron.runtime.sim.taint import Taint
from iron.target import tile_dma
from iron.target.geometry import MEMTILE_ROW, SHIM_ROW

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
    pattern_dims`; :func:`check_cover` admits no other short one) has no wrap on the
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
    idx: np.ndarray | None = None  # where ``dims`` puts each element of an object (made on first use)


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
        #: cycles a DMA takes to move one object, and to stream its bytes (set by the engine's
        #: cost model, :mod:`iron.runtime.sim.engine`)
        self.cycles = self.stream_cycles = 0
        self._to_idx: np.ndarray | None = None  # to_dims' element indices (made on first use)

    # -- producers
    def freed(self) -> int:
        return self._freed

    def add_reader(self, r: "Reader") -> None:
        self.readers.append(r)
        self._freed = min(x.released for x in self.readers)

    def can_write(self, w: int, n: int) -> bool:
        return self.next_slot[w] + self.held[w] + n - 1 < self._freed + self.depth

    def slot_time(self, j: int) -> int:
        return self.free_at.get(j - self.depth, 0)

    def writer_acquire(self, w: int, n: int) -> range:
        first = self.next_slot[w] + self.held[w]
        self.held[w] += n
        return range(first, first + n)

    def writer_release(self, w: int, n: int, t: int, why: str | None = None) -> None:
        """Writer ``w`` releases ``n`` objects; ``why``: their data is not modelled (else
        the mark of the buffer the writer filled, if any)."""
        n = min(n, self.held[w])
        first = self.next_slot[w]
        parts, ready, taint = self.parts, self.ready, self.taint
        marked = why or taint.marked()  # the common case: nothing is marked, no mark to look up
        if n == 1 and self.writers == 1 and not marked and first == self.pushed:
            before = ready.get(first, 0)  # the common case: one object of the one writer, complete
            ready[first] = t if t > before else before
            self.next_slot[0], self.held[0] = first + 1, self.held[0] - 1
            self._complete(first)
            return
        for j in range(first, first + n):
            parts[j] = parts.get(j, 0) + 1
            before = ready.get(j, 0)
            ready[j] = t if t > before else before
            part_why = marked and (why or taint.of(self.bufs[j % self.depth]))
            if part_why:
                self.why.setdefault(j, part_why)
        self.next_slot[w] = first + n
        self.held[w] -= n
        while parts.get(self.pushed, 0) >= self.writers:
            self._complete(self.pushed)

    def _complete(self, j: int) -> None:
        self.parts.pop(j, None)  # none when writer_release completed it at once
        why = self.why.pop(j, None) if self.why else None
        slot = j % self.depth
        stream = self.ebufs[slot]
        taint, readers = self.taint, self.readers
        if self.to_dims:
            if self._to_idx is None:  # the pattern is fixed once the engine is built: made once
                self._to_idx = object_indices(0, self.to_dims, stream.size)
            if len(readers) == 1 and not readers[0].dims:  # gathered into its one reader
                r = readers[0]
                taint.set(r.bufs[slot], why)
                dataflow.gather(r.ebufs[slot], stream, self._to_idx)
                self.pushed += 1
                return
            stream = dataflow.take(stream, self._to_idx)
        marks = why is not None or taint.marked()  # else no reader's buffer has a mark to drop
        for r in readers:
            if marks:
                taint.set(r.bufs[slot], why)
            dst = r.ebufs[slot]
            if r.dims:
                if r.idx is None:
                    r.idx = object_indices(0, r.dims, stream.size)
                dataflow.scatter(dst, r.idx, stream)
            else:
                dataflow.copy(dst, stream)
        self.pushed += 1

    # -- consumers
    def available(self, r: Reader, n: int) -> bool:
        return r.released + n <= self.pushed

    def reader_release(self, r: Reader, n: int, t: int) -> None:
        before = self._freed
        r.released += n
        r.held = max(r.held - n, 0)
        readers = self.readers
        self._freed = r.released if len(readers) == 1 else min(x.released for x in readers)
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
                dataflow.fill(raw)
        else:
            # one owning array per object: a taint mark follows the array that owns the memory
            raws = [np.zeros(self.nbytes, np.uint8) for _ in range(self.depth)]
            for raw in raws:  # zeroed by np.zeros; a replay of this build zeroes them again
                dataflow.note(dataflow.Fill(raw))
            elems = [_elem_view(raw, self.elem) for raw in raws]
            hit = self._pool[key] = raws, elems, [self.view(raw) for raw in raws]
        for raw in hit[0]:
            self.taint.track(raw)
        return hit


def check_cover(op: ir.ObjectFifo, numel: int, tiles: dict) -> None:
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


def fifo_type(op: ir.ObjectFifo) -> ir.MemRefType:
    t = _memref(op.type)
    if t is None:
        raise NotModelledOp(f"object FIFO @{op.name}: element type {op.type!r} is not modelled")
    return t


@functools.lru_cache(maxsize=256)
def _memref(text: str) -> ir.MemRefType | None:
    # a FIFO's type read once per spelling (an engine is built at every reconfiguration)
    from iron.mlir.reader import memref_type

    return memref_type(text)
