"""A recorded run (:mod:`iron.runtime.sim.replay`) compiled into a cheaper program with the same effects.

The op-by-op replay copies every object through every FIFO slot and calls each kernel model once
per call. :func:`compile_ops` follows every byte instead: a forward pass over the ops gives each
byte of each buffer (an owning array, its *root*) the value it holds, named by where that value
was made (the root's contents before the run, a zeroed byte, or byte ``i`` of kernel call ``c``'s
argument ``j`` after the call). Moves (copies, gathers, scatters, fills) only rename values, so they
vanish: what remains is

* the kernel calls, each reading its arguments' values from wherever they were made (one gather
  per argument, the index arrays composed through every intermediate slot), grouped into
  **batches**: calls of one model with the same argument shapes and scalars whose inputs come
  only from earlier batches (their depth in the call graph); a batch's arguments are stacked
  into one array per position and the model runs once over the stack when it has a batched form
  (``model.batched``, bitwise the per-call results: same float32 operations per tile), else once
  per call on the stack's rows;
* a **write-back**: every byte the run wrote ends holding its final value, so the buffers after a
  compiled replay equal those after the op-by-op replay (and the next run starts from the same
  state).

A call's arguments are rebuilt as fresh C-contiguous arrays, so the compiler refuses (returns why)
what it cannot prove equivalent: a call handed a non-contiguous or overlapping argument, a move
between different dtypes, an op it does not know. The caller then replays op by op.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from iron.runtime.sim import dataflow
from iron.runtime.sim.taint import owner


class _Refused(Exception):
    """The recording holds something the compiler cannot prove it reproduces."""


def _offset(a: np.ndarray, root: np.ndarray) -> int:
    return a.__array_interface__["data"][0] - root.__array_interface__["data"][0]


def _bytes(a: np.ndarray, root: np.ndarray):
    """Byte offsets in ``root`` of every byte of view ``a``: shape ``a.shape + (itemsize,)``, or a
    slice when ``a`` is contiguous."""
    start = _offset(a, root)
    if a.flags.c_contiguous:
        return slice(start, start + a.nbytes)
    pos = np.array(start, np.int64)
    for size, stride in zip(a.shape, a.strides):
        pos = pos[..., None] + np.arange(size, dtype=np.int64) * stride
    return pos[..., None] + np.arange(a.itemsize, dtype=np.int64)


def _shaped(a: np.ndarray) -> tuple:
    return a.shape + (a.itemsize,)


@dataclass
class _Root:
    array: np.ndarray  # the owning array
    raw: np.ndarray  # its bytes (a uint8 view)
    base: int  # value id of its byte 0 before the run
    values: np.ndarray  # value id held by each byte now
    written: bool = False


@dataclass
class _CallInfo:
    op: object
    key: tuple  # (model id, argument signature)
    level: int
    inputs: list  # per array argument: value ids of its bytes before the call (flat; None: not read)
    bases: list  # per array argument: value id of byte 0 of its result (None: not written)


class _Values:
    """The forward pass: value ids of every root's bytes, op after op."""

    def __init__(self):
        self.roots: dict[int, _Root] = {}
        self.next = 0
        self.store_kind: list[tuple] = []  # ("root", id) | ("call", index, arg)
        self.bases: list[int] = []  # a value store's first id
        self.chunk_store = np.zeros(1024, np.int64)  # the store of each chunk of ids
        self.chunk_level = np.zeros(1024, np.int64)  # the depth of the call that made it (-1: a root)
        self.zero_size = 0
        self.calls: list[_CallInfo] = []
        self.views: dict[int, tuple] = {}
        self.tracked = 0  # bytes of the roots met so far

    def _store(self, size: int, kind: tuple, level: int) -> int:
        n = len(self.store_kind)
        chunks = -(-max(size, 1) // _CHUNK)  # stores start on chunk boundaries: a chunk names its store
        first = self.next // _CHUNK
        if first + chunks > self.chunk_store.size:
            grow = max(first + chunks, 2 * self.chunk_store.size) - self.chunk_store.size
            self.chunk_store = np.concatenate([self.chunk_store, np.zeros(grow, np.int64)])
            self.chunk_level = np.concatenate([self.chunk_level, np.zeros(grow, np.int64)])
        self.chunk_store[first : first + chunks] = n
        self.chunk_level[first : first + chunks] = level
        base = self.next
        self.bases.append(base)
        self.store_kind.append(kind)
        self.next += chunks * _CHUNK
        return base

    def root(self, a: np.ndarray) -> _Root:
        o = owner(a)
        r = self.roots.get(id(o))
        if r is None:
            if not o.flags.c_contiguous:
                raise _Refused("a buffer's owning array is not contiguous")
            raw = o.reshape(-1).view(np.uint8)
            self.tracked += raw.size
            if self.tracked > MAX_BYTES:  # the pass keeps an int64 id per byte
                raise _Refused(
                    f"the run touches over {MAX_BYTES >> 20} MiB of buffers (the compiler's limit)"
                )
            base = self._store(raw.size, ("root", id(o)), -1)
            r = _Root(o, raw, base, np.arange(base, base + raw.size, dtype=np.int64))
            self.roots[id(o)] = r
        return r

    def where(self, a: np.ndarray):
        """(root, byte positions of ``a`` in it: :func:`_bytes`), once per view object (the ops
        hold their views, so an id names one view for the whole pass)."""
        hit = self.views.get(id(a))
        if hit is None:
            r = self.root(a)
            hit = self.views[id(a)] = (r, _bytes(a, r.array))
        return hit

    def read(self, a: np.ndarray) -> np.ndarray:
        """Value ids of ``a``'s bytes, shape ``a.shape + (itemsize,)`` (a view: use before the next write)."""
        r, where = self.where(a)
        return r.values[where].reshape(_shaped(a))

    def write(self, a: np.ndarray, values: np.ndarray) -> None:
        r, where = self.where(a)
        if values.size != a.nbytes:
            values = np.broadcast_to(values, _shaped(a))
        r.values[where] = values.reshape(-1) if isinstance(where, slice) else values.reshape(_shaped(a))
        r.written = True

    def zeros(self, n: int) -> np.ndarray:
        """Ids of ``n`` zero bytes: negative, placed on the zero store after the pass."""
        self.zero_size = max(self.zero_size, n)
        return np.arange(n, dtype=np.int64) - _ZERO

    def op(self, op) -> None:
        kind = type(op)
        if kind is dataflow.Call:
            return self.call(op)
        if kind is dataflow.Fill:
            d = op.dst
            self.write(d, self.zeros(d.nbytes).reshape(_shaped(d)))
            return
        if kind not in (dataflow.Copy, dataflow.Gather, dataflow.Scatter):
            raise _Refused(f"the compiler does not know the op {kind.__name__}")
        if op.dst.dtype != op.src.dtype:
            raise _Refused(f"a {kind.__name__} converts {op.src.dtype} to {op.dst.dtype}")
        src = self.read(op.src)
        if kind is dataflow.Copy:
            self.write(op.dst, np.broadcast_to(src, _shaped(op.dst)).copy())
        elif kind is dataflow.Gather:
            picked = src.reshape(-1, op.src.itemsize)[np.asarray(op.index).reshape(-1)]
            self.write(op.dst, picked.reshape(_shaped(op.dst)))
        else:  # dst[index] = src: the same indexing applied to dst's byte positions
            r, where = self.where(op.dst)
            if isinstance(where, slice):
                where = np.arange(where.start, where.stop, dtype=np.int64).reshape(_shaped(op.dst))
            where = where[op.index]
            r.values[where] = np.broadcast_to(src, where.shape)
            r.written = True

    def call(self, op) -> None:
        positions = [k for k, a in enumerate(op.args) if isinstance(a, np.ndarray)]
        spans = []
        for k in positions:
            a = op.args[k]
            if not a.flags.c_contiguous:
                raise _Refused("a kernel is handed a non-contiguous view")
            start = a.__array_interface__["data"][0]
            spans.append((start, start + a.nbytes))
        for i, (s1, e1) in enumerate(spans):
            for s2, e2 in spans[i + 1 :]:
                if s1 < e2 and s2 < e1:
                    raise _Refused("a kernel is handed overlapping arguments")
        effects = getattr(op.model, "effects", None)
        reads, writes = effects(*op.args) if effects is not None else (positions, positions)
        if any(k not in reads and k not in writes for k in positions):
            raise _Refused("a kernel model's effects leave an argument neither read nor written")
        sig = tuple(
            ("a", a.shape, a.dtype.str) if isinstance(a, np.ndarray) else ("s", type(a).__name__, repr(a))
            for a in op.args
        )
        inputs = [self.read(op.args[k]).reshape(-1).copy() if k in reads else None for k in positions]
        level = 0
        for ids in inputs:
            if ids is not None and ids.size:
                level = max(level, 1 + int(self.chunk_level[np.maximum(ids, 0) // _CHUNK].max()))
        index = len(self.calls)
        out = []
        for j, k in enumerate(positions):
            a = op.args[k]
            if k not in writes:
                out.append(None)
                continue
            base = self._store(a.nbytes, ("call", index, j), level)
            out.append(base)
            self.write(a, np.arange(base, base + a.nbytes, dtype=np.int64))
        self.calls.append(_CallInfo(op, (id(op.model), sig), level, inputs, out))


#: The most bytes of buffers a recording may touch to be compiled (the pass holds 8 bytes per byte).
MAX_BYTES = 64 << 20
#: Zero bytes get ids ``i - _ZERO`` (negative), byte ``i`` of the zero store.
_ZERO = 1 << 62
#: Value ids come in chunks of this many, each of one store.
_CHUNK = 64


@dataclass
class _Move:
    """``dst[pos] = store[idx]`` at element size ``dtype`` (``pos`` None: all of ``dst``;
    a slice where the indices are a range)."""

    dst: np.ndarray
    pos: object
    store: int  # index in Program.stores
    idx: object
    dtype: np.dtype


@dataclass
class _Batch:
    model: object
    args: list  # per argument: ("a", position in blocks) or ("s", value)
    blocks: list  # per array argument: the stacked (rows, *shape) array
    moves: list  # gathers filling the blocks


@dataclass
class Program:
    """A compiled recording: run with :meth:`run`."""

    stores: list  # uint8 arrays values are read from
    batches: list
    writeback: list  # moves into the roots
    hazards: set = field(default_factory=set)  # writeback moves reading a root it writes
    calls: int = 0

    def run(self) -> None:
        for batch in self.batches:
            for mv in batch.moves:
                _do(mv, self.stores)
            batched = getattr(batch.model, "batched", None)
            if batched is not None:
                batched(*[batch.blocks[v] if k == "a" else v for k, v in batch.args])
            else:
                for i in range(batch.blocks[0].shape[0] if batch.blocks else 0):
                    batch.model(*[batch.blocks[v][i] if k == "a" else v for k, v in batch.args])
        early = {k: _src(self.writeback[k], self.stores) for k in self.hazards}
        for k, mv in enumerate(self.writeback):
            _do(mv, self.stores, early.get(k))


def _typed(store: np.ndarray, dtype) -> np.ndarray:
    w = np.dtype(dtype).itemsize
    return store[: store.size // w * w].view(dtype)


def _src(mv: _Move, stores: list):
    s = _typed(stores[mv.store], mv.dtype)
    return s[mv.idx] if isinstance(mv.idx, slice) else np.take(s, mv.idx, mode="clip")


def _do(mv: _Move, stores: list, values=None) -> None:
    dst = mv.dst
    if values is None and mv.pos is None and not isinstance(mv.idx, slice):
        np.take(_typed(stores[mv.store], mv.dtype), mv.idx, out=dst, mode="clip")
        return
    if values is None:
        values = _src(mv, stores)
    if mv.pos is None:
        dst[...] = values
    else:
        dst[mv.pos] = values


_WIDTHS = (8, 4, 2, 1)
_DTYPES = {8: np.uint64, 4: np.uint32, 2: np.uint16, 1: np.uint8}


def _as_range(idx: np.ndarray):
    """``idx`` as a slice when it is a contiguous increasing range."""
    if idx.size and idx[-1] - idx[0] == idx.size - 1 and (idx.size < 2 or np.all(np.diff(idx) == 1)):
        return slice(int(idx[0]), int(idx[-1]) + 1)
    return idx


def _units(ids: np.ndarray, w: int):
    """``ids`` of every ``w``-th byte when each ``w`` bytes hold ``w`` consecutive ids of one
    store (an element moved whole: planned per element, not per byte), else None."""
    if w == 1:
        return ids
    if ids.size % w:
        return None
    u = ids.reshape(-1, w)
    first = u[:, 0]
    if not np.array_equal(u, first[:, None] + np.arange(w)) or np.any(first % _CHUNK > _CHUNK - w):
        return None
    return first


def _plan(dst_raw: np.ndarray, pos, store: np.ndarray, off: np.ndarray, whole: bool, w: int = 1) -> list:
    """Moves putting the ``w``-byte units at byte offsets ``off`` of the stores (``store``: each
    unit's store) at byte offsets ``pos`` of ``dst_raw`` (a uint8 array; ``pos`` None: each unit
    in order from byte 0; ``whole``: the units cover all of ``dst_raw``, in order)."""
    if pos is None:
        pos = np.arange(0, store.size * w, w, dtype=np.int64)
    moves = []
    one = bool(store.size) and store.min() == store.max()
    for s in store[:1] if one else np.unique(store):
        sel = None if one else store == s
        p, o = (pos, off) if one else (pos[sel], off[sel])
        every = whole and one
        for big in _WIDTHS:  # the widest element size both sides agree on
            if big < w or big % w or (p.size * w) % big or dst_raw.size % big:
                continue
            k = big // w
            pw, ow = p.reshape(-1, k), o.reshape(-1, k)
            step = np.arange(0, big, w)
            if (
                np.all(pw[:, 0] % big == 0)
                and np.all(ow[:, 0] % big == 0)
                and np.array_equal(pw, pw[:, :1] + step)
                and np.array_equal(ow, ow[:, :1] + step)
            ):
                break
        else:  # units not aligned to their own size: plan their bytes
            step = np.arange(w)
            pb, ob = (p[:, None] + step).reshape(-1), (o[:, None] + step).reshape(-1)
            moves += _plan(dst_raw, pb, np.full(pb.size, s), ob, every, 1)
            continue
        dtype = _DTYPES[big]
        dst = dst_raw.view(dtype)
        idx = _as_range(ow[:, 0] // big)
        where = None if every else _as_range(pw[:, 0] // big)
        moves.append(_Move(dst, where, int(s), idx, np.dtype(dtype)))
    return moves


def compile_ops(ops: list, keep: set | None = None):
    """A :class:`Program` with the effects of ``ops`` run in order, or a str: why not. ``keep``:
    ids of the owning arrays whose final contents matter beyond the program (None: every array);
    another array the ops write (a temporary of the recorded run) is written back only when the
    program itself reads its contents from before the run (the next run needs them)."""
    values = _Values()
    try:
        for op in ops:
            values.op(op)
    except _Refused as e:
        return str(e)
    except (ValueError, IndexError, TypeError) as e:  # a view or index the analysis cannot follow
        return f"the compiler cannot follow an op: {e}"
    # Batches: calls of one model and signature at one depth, in order of depth then first call.
    groups: dict[tuple, list[int]] = {}
    for i, c in enumerate(values.calls):
        groups.setdefault((c.level, c.key), []).append(i)
    order = [groups[g] for g in sorted(groups, key=lambda g: (g[0], groups[g][0]))]
    place = _Places(values)
    batches = [place.batch(rows) for rows in order]
    place.done()
    for rows, batch in zip(order, batches):
        why = _fill(batch, [values.calls[ci] for ci in rows], place)
        if why:
            return why
    writeback, hazards = _writeback(values, place, batches, keep)
    return Program(place.stores, batches, writeback, hazards, len(values.calls))


class _Places:
    """Where each value lives when the program runs: physical stores (the roots' bytes before the
    write-back, the zero store, one block per batch argument) and offsets in them."""

    def __init__(self, values: _Values):
        self.values = values
        self.stores: list[np.ndarray] = []
        self.phys: dict[tuple, tuple] = {}  # value store kind -> (physical store, offset of byte 0)
        for r in values.roots.values():
            self.phys[("root", id(r.array))] = (len(self.stores), 0)
            self.stores.append(r.raw)
        self.zero = len(self.stores)
        self.stores.append(np.zeros(max(values.zero_size, 8), np.uint8))

    def batch(self, rows: list) -> _Batch:
        """The batch of calls ``rows`` (indices), its blocks placed as stores."""
        first = self.values.calls[rows[0]].op
        layout = _layout(first)
        blocks, args = [], []
        for k, a in enumerate(first.args):
            if not isinstance(a, np.ndarray):
                args.append(("s", a))
                continue
            j = len(blocks)
            shape = (layout[k].size,) if k in layout else a.shape  # a read-only operand, reordered
            block = np.zeros((len(rows),) + shape, a.dtype)
            for row, ci in enumerate(rows):
                if self.values.calls[ci].bases[j] is not None:
                    self.phys[("call", ci, j)] = (len(self.stores), row * a.nbytes)
            self.stores.append(block.reshape(-1).view(np.uint8))
            args.append(("a", j))
            blocks.append(block)
        return _Batch(first.model, args, blocks, [])

    def done(self) -> None:
        """Every store placed: the lookup tables of :meth:`locate`."""
        kinds = self.values.store_kind
        self.store_of = np.array([self.phys.get(k, (-1, 0))[0] for k in kinds], np.int64)
        self.start_of = np.array([self.phys.get(k, (-1, 0))[1] for k in kinds], np.int64)
        self.bases = np.asarray(self.values.bases, np.int64)

    def locate(self, ids: np.ndarray):
        """(physical store, byte offset in it) of each value id."""
        zero = ids < 0
        s = self.values.chunk_store[np.maximum(ids, 0) // _CHUNK]
        st, off = self.store_of[s], self.start_of[s] + ids - self.bases[s]
        if zero.any():
            st = np.where(zero, self.zero, st)
            off = np.where(zero, ids + _ZERO, off)
        return st, off


def _layout(op) -> dict:
    """Operand position -> the order of its elements ``model.batched`` takes (``batched_layout``:
    read-only operands only, each row of its block ``arg.flat[order]``)."""
    model = op.model
    layout = getattr(model, "batched_layout", None)
    if layout is None or getattr(model, "batched", None) is None:
        return {}
    effects = getattr(model, "effects", None)
    writes = effects(*op.args)[1] if effects is not None else range(len(op.args))
    return {k: order for k, order in layout(*op.args).items() if k not in writes}


def _fill(batch: _Batch, calls: list, place: _Places) -> str | None:
    """The moves gathering each block's inputs (the values the calls' operands held), or why not."""
    layout = _layout(calls[0].op)
    positions = [k for k, a in enumerate(calls[0].op.args) if isinstance(a, np.ndarray)]
    for j, block in enumerate(batch.blocks):
        read = [c.inputs[j] for c in calls]
        if all(ids is None for ids in read):
            continue  # overwritten whole by the model
        if any(ids is None for ids in read):
            return "a kernel model reads an argument in some calls of a batch and not in others"
        order = layout.get(positions[j])
        if order is not None:
            w = block.itemsize
            read = [ids.reshape(-1, w)[order].reshape(-1) for ids in read]
        ids, w = np.concatenate(read), block.itemsize
        first = _units(ids, w)
        if first is None:
            first, w = ids, 1
        st, off = place.locate(first)
        batch.moves += _plan(block.reshape(-1).view(np.uint8), None, st, off, True, w)
    return None


def _writeback(values: _Values, place: _Places, batches: list, keep) -> tuple[list, set]:
    """The moves leaving every root whose final contents matter (kept, or read by the program as
    they were before the run, which is what the next run finds) as the ops leave it, and which of
    them read a root the write-back also writes (they read first)."""
    roots = list(values.roots.values())
    plans: dict[int, list] = {}

    def plan(s: int) -> list:
        """The moves writing back root ``s`` (its store index; empty: it ends as it began)."""
        if s not in plans:
            r, moves = roots[s], []
            if r.written:
                changed = np.flatnonzero(r.values != np.arange(r.base, r.base + r.raw.size))
                if changed.size:
                    st, off = place.locate(r.values[changed])
                    moves = _plan(r.raw, changed, st, off, changed.size == r.raw.size)
            plans[s] = moves
        return plans[s]

    read = {mv.store for batch in batches for mv in batch.moves if mv.store < len(roots)}
    todo = {s for s, r in enumerate(roots) if keep is None or id(r.array) in keep} | read
    done: set = set()
    while todo - done:  # a root written back reads others' old contents: those are needed too
        s = min(todo - done)
        done.add(s)
        todo |= {mv.store for mv in plan(s) if mv.store < len(roots)}
    writeback, hazards = [], set()
    rewritten = {s for s in done if plans[s]}
    for s in sorted(done):
        for mv in plans[s]:
            if mv.store in rewritten:  # reads a root the write-back also writes: read it first
                hazards.add(len(writeback))
            writeback.append(mv)
    return writeback, hazards
