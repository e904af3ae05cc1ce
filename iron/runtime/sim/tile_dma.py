"""Register-level DMAs of memtiles and compute tiles, and the streams between DMA channels.

The FIFO-level engine (:mod:`.engine`) moves ordinary object FIFOs one object at a time.
This module runs what the runtime sequence programs register by register instead:

* BDs are read from the tile's registers when the channel reaches them (a task pushed
  before its chained BDs are written still finds them, as the hardware does), in the
  layouts of :mod:`iron.target.tile_dma`; the BD's address pattern is the shim's
  (:func:`iron.runtime.sim.dma.byte_indices`, iteration stepping once per use of the BD
  within its task);
* a Start_Queue write queues a task (start BD, repeat, token); a task follows its BD chain
  (``use_next_bd`` / ``next_bd``; a chain may loop, the locks then stop it) and runs
  ``1 + repeat`` times; a finished task whose push asked for a token leaves one, which an
  ``aiex.npu.sync`` on that tile consumes; the Ctrl register's reset bit drops the queue;
* locks: a BD acquires before it moves data and releases after (acquire and release
  semantics, lock numbering: :mod:`iron.target.tile_dma`); initial values come from the
  design's ``aie.lock`` ops and, for ``{runtimeDmas = true}`` object FIFOs, from the locks
  mlir-aie's object-FIFO transform creates for them (:func:`runtime_fifo_resources`);
* streams: an MM2S BD's bytes go along the design's ``aie.flow`` from its port (or the
  ``aie.packet_flow`` of its packet id when ``enable_packet`` is set; a shim task's too, its
  start BD's header as ``dma_memcpy_nd ... packet = <..>`` sets it) to the S2MM channel at
  the other end; a shim channel the FIFO-level engine does not drive takes part with its
  queued host tasks. Back pressure is per BD: an MM2S BD starts only when the streams it
  feeds are empty. An S2MM channel in out-of-order mode is not modelled (an error if data
  reaches it).

Anything that cannot go on is reported by :meth:`TileDmas.blocked` (a lock and its value, an
empty queue with data waiting), which ``SimDevice`` adds to the error of a SYNC that would
wait forever. Not cycle-accurate: no time passes here.
"""

from __future__ import annotations

import functools
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from iron.mlir.objectfifo import shim_allocations
from iron.runtime.sim.dma import byte_indices, pattern_of
from iron.runtime.sim import progress as sim_progress
from iron.runtime.sim.errors import SimError
from iron.runtime.sim.program import Port, Program, Route
from iron.runtime.sim.engine import DMA_BYTES_PER_CYCLE, DMA_SETUP
from iron.target import events, tile_dma
from iron.target.geometry import MEMTILE_ROW, SHIM_ROW

#: (column, row, "s2mm" | "mm2s", channel)
Key = tuple[int, int, str, int]


def name_of(key: Key) -> str:
    col, row, d, ch = key
    kind = "shim" if row == SHIM_ROW else tile_dma.kind_of_row(row).name
    return f"{'compute tile' if kind == 'tile' else kind} ({col},{row}) {d.upper()} {ch}"


@dataclass
class Pending:
    """One Start_Queue entry."""

    start_bd: int
    repeat: int
    token: bool
    pushed_by: str
    out_of_order: bool = False


@dataclass
class TileChannel:
    """One memtile / compute-tile DMA channel: queue, active task, the BD it is on."""

    key: Key
    queue: deque = field(default_factory=deque)
    task: Pending | None = None
    rep: int = 0  # repetition of the active task
    bd_id: int | None = None
    bd: dict | None = None
    idx: np.ndarray | None = None  # byte offsets of the current BD in tile memory
    moved: int = 0  # bytes of the current BD moved
    locked: bool = False  # the current BD holds its acquire
    uses: dict = field(default_factory=dict)  # BD id -> uses in the active task (iteration)
    tokens: int = 0
    ctrl: int = 0
    wait: str = ""

    def reset(self) -> None:
        self.queue.clear()
        self.task, self.bd_id, self.bd, self.idx, self.locked = None, None, None, None, False


class TileDmas:
    """The register-level DMAs and streams of one loaded device (see the module docstring)."""

    def __init__(self, device, prog: Program):
        self.device = device
        self.arch = device.target.name
        self.tiles = {t.name: (t.col, t.row) for t in prog.tiles.values()}
        routes, locks = runtime_fifo_resources(prog)
        self.routes = list(prog.routes) + routes
        self.memory: dict[tuple[int, int], np.ndarray] = {}
        self.locks: dict[tuple[int, int], list[int]] = {}
        for (tile, lock_id), init in {**prog.locks, **locks}.items():
            col, row = self.tiles[tile]
            if row != SHIM_ROW:
                self._locks(col, row)[lock_id] = init
        self.channels: dict[Key, TileChannel] = {}
        self.pad_values: dict[Key, int] = {}  # memtile MM2S channel -> its 32-bit pad word (static programs)
        self.streams: dict[Key, np.ndarray] = {}  # destination S2MM channel -> bytes in flight
        #: (col, row, unit kind) -> [(first cycle, cycles, event name)], as the engine records them
        self.events: dict[tuple[int, int, str], list] = {}
        self.t = 0  # cycles: DMA_SETUP plus DMA_BYTES_PER_CYCLE per BD, one BD after the other
        self.move_budget = sim_progress.dma_budget(prog)

    def _ev(self, key: Key, what: str, nbytes: int = 0) -> None:
        """A DMA event of channel ``key`` (name as the tile's event table spells it), if that
        table has one; BDs advance the clock."""
        col, row, d, ch = key
        if row == SHIM_ROW:
            kind, name = "shim", f"DMA_{d.upper()}_{ch}_{what}"
        elif row == MEMTILE_ROW:
            kind, name = "memtile", f"DMA_{d.upper()}_SEL{ch}_{what}"
        else:
            kind, name = "mem", f"DMA_{d.upper()}_{ch}_{what}"
        n = DMA_SETUP + nbytes // DMA_BYTES_PER_CYCLE if nbytes else 1
        if name in events.event_table(kind):
            self.events.setdefault((col, row, kind), []).append((self.t, n, name))
        self.t += n

    def drain_events(self) -> dict:
        ev, self.events = self.events, {}
        return ev

    # ------------------------------------------------------------------ state
    def _locks(self, col: int, row: int) -> list[int]:
        if (col, row) not in self.locks:
            self.locks[col, row] = [0] * tile_dma.kind_of_row(row).locks
        return self.locks[col, row]

    def _memory(self, col: int, row: int) -> np.ndarray:
        if (col, row) not in self.memory:
            self.memory[col, row] = np.zeros(tile_dma.kind_of_row(row).memory, np.uint8)
        return self.memory[col, row]

    def channel(self, key: Key) -> TileChannel:
        if key not in self.channels:
            self.channels[key] = TileChannel(key)
        return self.channels[key]

    # ------------------------------------------------------------------ registers
    def store(self, col: int, row: int, offset: int, value: int, pushed_by: str) -> None:
        """A register write at a memtile / compute tile (its Ctrl and Start_Queue matter here)."""
        kind = tile_dma.kind_of_row(row)
        if offset < kind.memory:  # the tile's data memory (a write32 / blockwrite into a buffer)
            self._memory(col, row)[offset : offset + 4] = np.frombuffer(value.to_bytes(4, "little"), np.uint8)
            return
        reg = _channel_registers(kind).get(offset)
        if reg is None:
            lock = tile_dma.lock_of_register(kind, offset)
            if lock is not None:  # aiex.set_lock: a write32 of the lock's value register
                self._locks(col, row)[lock] = value
            return
        direction, ch, what = reg
        chan = self.channel((col, row, direction, ch))
        if what == "ctrl":
            chan.ctrl = value
            if value >> tile_dma.CTRL_RESET_BIT & 1:
                chan.reset()
            return
        q = tile_dma.unpack_start_queue(kind, value)
        ooo = direction == "s2mm" and bool(chan.ctrl >> tile_dma.CTRL_ENABLE_OUT_OF_ORDER_BIT & 1)
        chan.queue.append(Pending(q["start_bd"], q["repeat"], q["issue_token"], pushed_by, ooo))

    def load(self, col: int, row: int, offset: int) -> int | None:
        """The word at ``offset`` of a memtile / compute tile's data memory (None: not memory)."""
        if offset >= tile_dma.kind_of_row(row).memory:
            return None
        return int.from_bytes(self._memory(col, row)[offset : offset + 4].tobytes(), "little")

    def _read_bd(self, key: Key, bd_id: int) -> dict:
        col, row, _d, _c = key
        kind = tile_dma.kind_of_row(row)
        base = tile_dma.bd_address(kind, bd_id)
        regs = self.device.regs[col, row]
        return tile_dma.unpack_bd(kind, [regs.get(base + 4 * w, 0) for w in range(kind.words)])

    # ------------------------------------------------------------------ running
    def advance(self) -> bool:
        """Move data until nothing can move; True if anything moved."""
        moved_any, progress, moves = False, True, 0
        while progress:
            progress = False
            for key in self._sources():
                if self._produce(key):
                    progress, moves = True, moves + 1
            for key in list(self.streams):
                if self._consume(key):
                    progress, moves = True, moves + 1
            moved_any |= progress
            sim_progress.dma_steps(self, moves, name_of)
        return moved_any

    def _sources(self) -> list[Key]:
        keys = [k for k, c in self.channels.items() if k[2] == "mm2s" and (c.task or c.queue)]
        claimed = set(self.device.engine.shim_channels) if self.device.engine else set()
        routed = {self.tiles.get(r.source.tile) for r in self.routes if r.source.bundle == "DMA"}
        for (col, d, ch), c in self.device.channels.items():
            if d == "mm2s" and (col, d, ch) not in claimed and (col, SHIM_ROW) in routed and c.active:
                keys.append((col, SHIM_ROW, d, ch))
        return keys

    def _dests(self, key: Key, packet_id: int | None) -> list[Key]:
        col, row, _d, ch = key
        found = []
        for r in self.routes:
            if (
                self.tiles.get(r.source.tile) != (col, row)
                or r.source.bundle != "DMA"
                or r.source.channel != ch
            ):
                continue
            if r.packet_id == packet_id or (packet_id is None and r.packet_id is None):
                found += [(*self.tiles[p.tile], "s2mm", p.channel) for p in r.dests if p.bundle == "DMA"]
        if not found:
            how = f"an aie.packet_flow with packet id {packet_id}" if packet_id is not None else "an aie.flow"
            raise SimError(f"{name_of(key)}: no {how} leaves its port DMA : {ch}; its data has nowhere to go")
        return found

    def _produce(self, key: Key) -> bool:
        if key[1] == SHIM_ROW:
            return self._produce_shim(key)
        chan = self.channel(key)
        if not self._start_bd(chan):
            return False
        packet = chan.bd["packet_id"] if chan.bd["enable_packet"] else None
        dests = self._dests(key, packet)
        if any(self.streams.get(d, np.zeros(0)).size for d in dests):
            chan.wait = f"BD {chan.bd_id}: the stream to {name_of(dests[0])} is full (back pressure)"
            return False
        if not self._acquire(chan):
            return False
        data = self._memory(key[0], key[1])[np.maximum(chan.idx, 0)]
        if chan.idx.size and chan.idx.min() < 0:  # padding: the channel's pad value, word by word
            word = np.array([self.pad_values.get(key, 0)], "<u4").view(np.uint8)
            hole = chan.idx < 0
            data[hole] = np.resize(word, chan.idx.size)[hole]
        for d in dests:
            self.streams[d] = np.concatenate([self.streams.get(d, np.zeros(0, np.uint8)), data])
        chan.moved = chan.idx.size
        self._ev(key, "FINISHED_BD", data.size)
        self._finish_bd(chan)
        return True

    def _produce_shim(self, key: Key) -> bool:
        col, _row, d, ch = key
        shim = self.device.channels[col, d, ch]
        task = shim.active
        if task is None:
            return False
        dests = self._dests(key, task.packet)  # a packet goes where its id's aie.packet_flow goes
        if any(self.streams.get(k, np.zeros(0)).size for k in dests):
            return False
        data = task.buffer.data[task.indices()[task.moved :]]
        for k in dests:
            self.streams[k] = np.concatenate([self.streams.get(k, np.zeros(0, np.uint8)), data])
        self._ev(key, "START_TASK")
        self._ev(key, "FINISHED_TASK", data.size)
        shim.complete(task)
        return True

    def _consume(self, key: Key) -> bool:
        data = self.streams.get(key)
        if data is None or data.size == 0:
            return False
        if key[1] == SHIM_ROW:
            return self._consume_shim(key, data)
        chan = self.channel(key)
        if not self._start_bd(chan) or not self._acquire(chan):
            return False
        n = min(data.size, chan.idx.size - chan.moved)
        self._memory(key[0], key[1])[chan.idx[chan.moved : chan.moved + n]] = data[:n]
        chan.moved += n
        self.streams[key] = data[n:]
        if chan.moved == chan.idx.size:
            self._ev(key, "FINISHED_BD", chan.idx.size)
            self._finish_bd(chan)
        return n > 0

    def _consume_shim(self, key: Key, data: np.ndarray) -> bool:
        col, _row, d, ch = key
        shim = self.device.channels.get((col, d, ch))
        task = shim.active if shim is not None else None
        if task is None:
            return False
        idx = task.indices()
        n = min(data.size, idx.size - task.moved)
        task.buffer.data[idx[task.moved : task.moved + n]] = data[:n]
        eng = self.device.engine
        if eng is not None and eng.tainted:  # what a core computed without a model is not modelled
            self.device.mark_unmodelled(task.buffer, idx[task.moved : task.moved + n], eng.tainted[0])
        task.moved += n
        self.streams[key] = data[n:]
        if task.moved == n:
            self._ev(key, "START_TASK")
        if task.moved >= idx.size:
            self._ev(key, "FINISHED_TASK", idx.size)
            shim.complete(task)
        return True

    # ------------------------------------------------------------------ BDs and locks
    def _start_bd(self, chan: TileChannel) -> bool:
        """Make sure ``chan`` is on a BD (taking the next queued task); False when idle."""
        if chan.bd is not None:
            return True
        if chan.task is None:
            if not chan.queue:
                chan.wait = "no task queued"
                return False
            chan.task, chan.rep, chan.uses = chan.queue.popleft(), 0, {}
            self._ev(chan.key, "START_TASK")
            if chan.task.out_of_order:
                raise SimError(
                    f"{name_of(chan.key)}: data reached a task pushed in out-of-order mode "
                    f"({chan.task.pushed_by}); sim does not model out-of-order S2MM channels"
                )
        self._load(chan, chan.task.start_bd, None)
        return True

    def _load(self, chan: TileChannel, bd_id: int, came_from: int | None) -> None:
        col, row, _d, _c = chan.key
        kind = tile_dma.kind_of_row(row)
        bd = self._read_bd(chan.key, bd_id)
        where = f"{name_of(chan.key)} (task pushed by {chan.task.pushed_by})"
        if not bd["valid_bd"]:
            how = f"BD {came_from} chains to BD {bd_id}" if came_from is not None else f"its start BD {bd_id}"
            raise SimError(f"{where}: {how}, which is not valid (never written since the last PDI load?)")
        uses = chan.uses.get(bd_id, 0)
        chan.uses[bd_id] = uses + 1
        pattern = pattern_of(bd)
        address = bd["buffer_offset"] * 4
        if kind is tile_dma.MEMTILE:
            address = tile_dma.memtile_own_address(self.arch, address)
        pads = tuple(bd.get(f"d{j}_zero_{w}", 0) for j in (2, 1, 0) for w in ("before", "after"))
        length = bd["buffer_length"] * 4 if not any(pads) else unpadded_words(bd, pads) * 4
        idx = byte_indices(address, length, 0, (*pattern[:7], pattern[7] + uses, *pattern[8:]))
        if any(pads):
            idx = padded(idx, bd, pads)
        real = idx[idx >= 0]
        if real.size and (real.min() < 0 or real.max() >= kind.memory):
            raise SimError(
                f"{where}: BD {bd_id} reaches bytes {int(real.min())}..{int(real.max())} of the tile's memory, "
                f"outside its own {kind.memory} bytes (neighbour memories are not modelled)"
            )
        chan.bd_id, chan.bd, chan.idx, chan.moved, chan.locked = bd_id, bd, idx, 0, False

    def _lock(self, chan: TileChannel, which: str) -> tuple[list[int], int]:
        col, row, _d, _c = chan.key
        kind = tile_dma.kind_of_row(row)
        lock_id = chan.bd[f"lock_{which}_id"]
        local = tile_dma.own_lock(kind, lock_id)
        if local is None:
            raise SimError(
                f"{name_of(chan.key)}: BD {chan.bd_id} uses lock {lock_id}, a neighbour's lock (own locks are "
                f"{kind.own_lock_base}..{kind.own_lock_base + kind.locks - 1}); sim models a tile's own locks"
            )
        return self._locks(col, row), local

    def _acquire(self, chan: TileChannel) -> bool:
        if chan.locked:
            return True
        if chan.bd["lock_acq_enable"]:
            locks, local = self._lock(chan, "acq")
            v, have = chan.bd["lock_acq_val"], locks[local]
            if not (have >= -v if v < 0 else have == v):
                want = f">= {-v}" if v < 0 else f"== {v}"
                chan.wait = (
                    f"BD {chan.bd_id} waits to acquire lock {chan.bd['lock_acq_id']} (tile lock {local}) {want}; "
                    f"it holds {have} (no release is coming)"
                )
                return False
            if v < 0:
                locks[local] += v
        chan.locked, chan.wait = True, ""
        return True

    def _finish_bd(self, chan: TileChannel) -> None:
        bd, bd_id = chan.bd, chan.bd_id
        if bd["lock_rel_val"]:
            locks, local = self._lock(chan, "rel")
            locks[local] += bd["lock_rel_val"]
            if not 0 <= locks[local] <= LOCK_MAX:
                raise SimError(
                    f"{name_of(chan.key)}: BD {bd_id}'s release takes lock {bd['lock_rel_id']} to {locks[local]}, "
                    f"outside 0..{LOCK_MAX}"
                )
        chan.bd = None
        if bd["use_next_bd"]:
            self._load(chan, bd["next_bd"], bd_id)
            return
        chan.rep += 1
        if chan.rep <= chan.task.repeat:
            self._load(chan, chan.task.start_bd, None)
            return
        if chan.task.token:
            chan.tokens += 1
        self._ev(chan.key, "FINISHED_TASK")
        chan.task = None

    def blocked(self) -> list[str]:
        """What every stuck channel waits for, and data no channel takes."""
        out = [f"{name_of(k)}: {c.wait}" for k, c in self.channels.items() if c.task and c.wait]
        out += [f"{d.size} bytes wait for {name_of(k)}" for k, d in self.streams.items() if d.size]
        return out


def unpadded_words(bd: dict, pads: tuple[int, ...]) -> int:
    """Words a padded BD reads from memory: its ``buffer_length`` counts the padded stream."""
    b2, a2, b1, a1, b0, a0 = pads
    d0, d1 = bd["d0_size"], max(bd["d1_size"], 1)
    row = (b1 + d1 + a1) * (b0 + d0 + a0)
    return (bd["buffer_length"] // row - b2 - a2) * d1 * d0


def padded(idx: np.ndarray, bd: dict, pads: tuple[int, ...]) -> np.ndarray:
    """Byte offsets of a padded MM2S stream: -1 where the DMA inserts its pad value. Each
    dimension gets ``dN_zero_before`` / ``dN_zero_after`` whole lower-dimension blocks around it
    (``d0`` counts 32-bit words), as mlir-aie's ``XAie_DmaSetPadding`` describes them."""
    b2, a2, b1, a1, b0, a0 = pads
    d0, d1 = bd["d0_size"], max(bd["d1_size"], 1)
    grid = idx.reshape(-1, d1, d0, 4)
    return np.pad(grid, ((b2, a2), (b1, a1), (b0, a0), (0, 0)), constant_values=-1).reshape(-1)


#: Largest value of an AIE2 lock (6-bit semaphore).
LOCK_MAX = tile_dma.LOCK_VALUE_MAX


def runtime_fifo_resources(prog: Program) -> tuple[list[Route], dict[tuple[str, int], int]]:
    """The stream routes and locks mlir-aie's object-FIFO transform creates for the
    ``{runtimeDmas = true}`` FIFOs, whose memtile BDs the runtime sequence writes.

    As ``AIEObjectFifoStatefulTransform.cpp`` (Xilinx/mlir-aie at
    00cfd45fa6527f14a4f97069b6a52e84a4055dea): each FIFO end gets a DMA channel (shim ends:
    :func:`iron.mlir.objectfifo.shim_allocations`; other ends the lowest free channel of their
    tile and direction, FIFOs in program order) and an ``aie.flow`` from the producer's MM2S to
    each consumer's S2MM; the memtile buffers of a FIFO (one set for a link) get a producer
    lock (initial value: the depth) and then a consumer lock (0), numbered after the tile's
    locks already taken (``createObjectFifoLocks``: prod lock first, ``lockAnalysis.getLockID``).
    At that commit the transform reads no ``runtimeDmas`` attribute (it appears in upstream's
    passthrough_dmas/unrolled_repeat_pass.mlir only); iron generates no BDs for these FIFOs,
    as that design expects (docs/guide.md "Foreign designs")."""
    fifos = prog.runtime_fifos
    if not fifos:
        return [], {}
    allocs = shim_allocations(prog.device)
    taken: dict[tuple[str, str], int] = {}
    lock_ids: dict[str, int] = {}
    for tile, lock_id in prog.locks:
        lock_ids[tile] = max(lock_ids.get(tile, 0), lock_id + 1)
    routes, locks, has_locks = [], {}, set()
    for lk in prog.runtime_links:
        has_locks |= set(lk.dests)  # the link's buffers (and locks) are created once, with its sources
    for name, f in fifos.items():
        src = _end_port(prog, allocs, taken, f.producer, "MM2S", name)
        dests = tuple(_end_port(prog, allocs, taken, c, "S2MM", name) for c in f.consumers)
        routes.append(Route(src, dests))
        for tile in (f.producer, *f.consumers):
            if prog.tiles[tile].row != SHIM_ROW and name not in has_locks:
                first = lock_ids.get(tile, 0)
                locks[tile, first], locks[tile, first + 1] = f.depth, 0
                lock_ids[tile] = first + 2
                has_locks.add(name)
    return routes, locks


def _end_port(prog: Program, allocs: dict, taken: dict, tile: str, direction: str, fifo: str) -> Port:
    if prog.tiles[tile].row == SHIM_ROW:
        return Port(tile, "DMA", allocs[fifo].channel)
    channel = taken.get((tile, direction), 0)
    taken[tile, direction] = channel + 1
    return Port(tile, "DMA", channel)


_CHANNEL_REGISTERS: dict[int, tuple[tile_dma.DmaKind, dict]] = {}


def _channel_registers(kind: tile_dma.DmaKind) -> dict[int, tuple[str, int, str]]:
    # looked up at every register write into a memtile or compute tile: built once per kind
    # object (keyed by identity: hashing the frozen kind costs more than building the table)
    hit = _CHANNEL_REGISTERS.get(id(kind))
    if hit is None or hit[0] is not kind:
        hit = _CHANNEL_REGISTERS[id(kind)] = (kind, tile_dma.channel_registers(kind))
    return hit[1]
