"""The sim device: executes kernels' transaction streams as the NPU firmware would.

State lives across kernel dispatches and across runs, as on one hardware
context (that is the point: stale state between consecutive runs is what must
be modelled): the loaded PDI, a register file per tile, shim BDs (registers
``0x1D000 + 0x20 * n``), channel task queues with their in-flight tasks, trace
units. Only a PDI load of another device (or a new :class:`SimDevice`, i.e. a
new context) clears it.

Op semantics:

* WRITE / MASKWRITE / BLOCKWRITE store into the register file. Side effects:
  a Task_Queue write pushes a task (a snapshot of the BD at push time, see
  :mod:`.dma`); an Event_Generate write raises that event on its module and
  every broadcast whose Event_Broadcast register holds it, on every tile of the
  loaded device (how the shim starts and stops all trace units).
* DDR_PATCH writes ``address(bound buffer arg_idx) + arg_plus`` into the
  register (and the high address bits into BD word 2 when the register is a
  shim BD's word 1). Each bound buffer has a distinct fake host address. An
  unbound index is a :class:`SimError` naming the op and the argument; so is a
  task whose BD reaches outside the buffer its address was patched to.
* LOADPDI: the firmware skips reloading the PDI that is already loaded.
  Loading another one reconfigures: registers wiped, DMA channels reset (queued
  and in-flight tasks dropped), trace units dropped, the payload's design (a new
  engine) and packet routes installed.
* A Task_Queue write onto a full queue (4 tasks, the active one included) first lets the
  design run (the DMAs drain while the controller works; on hardware a race, see
  ``SimDevice._drain_before_push``); if the queue is still full the push is dropped and sets
  the channel's sticky overflow; the kernel then ends with a :class:`SimError` naming the
  channel and the lost push (hardware drops it silently: its data or trace never moves).
* A pushed task follows its BD chain (``use_next_bd``) to its end; a chain that
  loops or spans several host buffers is a :class:`SimError`.
* Writes to memtile / compute-tile registers (rows >= 1) also reach their DMAs
  (:mod:`.tile_dma`: Start_Queue pushes, Ctrl resets; BDs read at use). A SYNC on such a
  tile consumes a token of that channel, with the same forever-check.
* SYNC consumes a task-complete token of its channel; if none can ever come
  (the awaited task never completes), :class:`SimError` instead of a hang, naming
  what every blocked agent of the design waits for.
* MASKPOLL must already hold (sim has no concurrent agent that could change it).

Data rule: sim **runs the design** (:mod:`.engine` for object FIFOs, links and cores;
:mod:`.tile_dma` for the DMAs the runtime sequence programs on memtiles and compute tiles). A PDI load builds an
engine from the payload's MLIR (:mod:`.program`): its object FIFOs, links,
cores and kernel models. Whenever the control code waits (a SYNC that has no
token yet) and at the end of every kernel, the engine runs every agent until
none can move: shim tasks read host bytes in their BD's address order into the
FIFOs and write what the cores produced back the same way; tasks complete when
their bytes moved, which is what the SYNC then sees. Nothing computes outputs
from an operator's reference. A design sim cannot execute entirely (a kernel
without a model, an op the interpreter does not know) still runs its control
path and trace; the host bytes its S2MM tasks write are recorded in
:attr:`SimDevice.not_modelled` (the runner returns those outputs as
:class:`iron.design.NotModelled`), and a wait on such a task completes instead
of hanging. Input bytes that were not modelled taint what is computed from them.
The trace units record the events of the executed agents (kernel calls, lock
stalls, DMA), timed by the engine's cost model (not cycle-accurate).

A PDI load of the device already loaded (skipped, as the firmware does) restarts
cores whose program ended, so a second dispatch of the device runs again.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import defaultdict
from typing import Callable, Mapping, Sequence

import numpy as np

from iron.artifact.pdi import DevicePayload
from iron.errors import IronError
from iron.mlir import txn_codec
from iron.mlir.objectfifo import shim_allocations
from iron.runtime.sim import activity as act_model
from iron.runtime.sim import core_reset, dataflow, progress, static_dma
from iron.runtime.sim import tracing as tu
from iron.runtime.sim.dma import QUEUE_REGISTERS, Channel, ChannelKey, Task, last_word, pattern_of
from iron.runtime.sim.engine import Engine
from iron.runtime.sim.program import Program, program
from iron.runtime.sim.tile_dma import TileDmas
from iron.runtime.sim.tile_dma import name_of as tile_dma_name
from iron.runtime.sim.errors import SimError
from iron.runtime.sim.memory import HostBuffer
from iron.target import core_control, events, registers, shim_dma, tile_dma
from iron.target.geometry import SHIM_ROW, get_target
from iron.target.trace_modes import EVENT_PC
from iron.target.trace_unit import TRACE_PORT

#: Nominal cycles per control op (only orders events in time).
OP_CYCLES = 8
_STATUS_REGISTERS = {
    shim_dma.channel_status(d, c): (d, c)
    for d in shim_dma.DIRECTIONS
    for c in range(shim_dma.SHIM_DMA_CHANNELS)
}
_STATUS_FIELDS = shim_dma.STATUS_FIELDS["s2mm"]  # the bits below are common to both directions
_OVERFLOW_BIT = _STATUS_FIELDS["task_queue_overflow"][0]
_RUNNING_BIT = _STATUS_FIELDS["channel_running"][0]
_QUEUE_SIZE_SHIFT = _STATUS_FIELDS["task_queue_size"][0]


class _Text:
    """Message text made only when a message uses it (``str`` / f-string): describing an op
    costs more than executing it, and most never reach a message."""

    __slots__ = ("_make", "_text")

    def __init__(self, make: Callable[[], str]):
        self._make, self._text = make, None

    def __str__(self) -> str:
        if self._text is None:
            self._text = self._make()
        return self._text

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


@functools.lru_cache(maxsize=None)
def _bd_words(bd_id: int) -> tuple[int, ...]:
    return tuple(shim_dma.bd_word(bd_id, k) for k in range(shim_dma.SHIM_BD_WORDS))


@functools.lru_cache(maxsize=1024)
def _unpack_bd(words: tuple[int, ...], arch: str) -> dict:
    # a runtime sequence pushes the same few BDs again and again: unpacked once per content
    return shim_dma.unpack_bd(words, arch=arch)


def _is_core_control(row: int, off: int) -> bool:
    return off == core_control.CORE_CONTROL and row != SHIM_ROW and tile_dma.kind_of_row(row) is tile_dma.TILE


def _op_text(i: int, op) -> _Text:
    return _Text(lambda: f"op #{i} {txn_codec.describe(op)}")


class SimDevice:
    """One NPU partition as sim models it. See the module docstring."""

    def __init__(
        self, target="npu2", operators: Callable[[str, dict], object] | None = None, kernel_models=None
    ):
        """``operators``: ``(payload name, params) -> operator`` (:func:`iron.operators.from_payload`),
        kept for messages; sim never computes with an operator. ``kernel_models``:
        ``(symbol, defines, arch) -> model | None`` replacing
        :func:`iron.runtime.sim.kernel_models.model_for` (tests inject models with it)."""
        self.target = get_target(target)
        self._resolve = operators
        self.kernel_models = kernel_models
        self._operators: dict[str, object] = {}  # device symbol -> its operator, once
        self._prepared: dict[str, tuple[Program, dict]] = {}  # device MLIR -> (program, allocations)
        self._decoded: dict[bytes, tuple] = {}  # control stream -> (header, ops)
        self._core_control: core_reset.CoreControl | None = None
        self._pools: dict[str, dict] = {}  # device MLIR -> its engine's object buffers (Engine pool)
        self.reset()

    # ------------------------------------------------------------------ state
    def reset(self) -> None:
        """Power-on state: nothing loaded."""
        self.loaded: int | None = None
        self.now = 0
        self.calls: dict[str, int] = {}  # device symbol -> operator executions
        self.log: list[str] = []
        #: One entry per stop event that flushed units: the units it stopped (with their records).
        self.flushed: list[list[tu.Unit]] = []
        self._lost_pushes: list[str] = []
        #: Host bytes sim wrote no values into, (address, bytes, why): outputs of foreign
        #: operators without a reference and everything computed from them. Per run.
        self.not_modelled: list[tuple[int, int, str]] = []
        self.kernel_calls: list[str] = []  # kernel symbols the engines called, in order, since power-on
        self.units = {}  # power-on drops units; nothing is handed over
        self._reconfigure(None)

    def _reconfigure(self, payload: DevicePayload | None) -> None:
        if getattr(self, "units", None):
            self._flush_unstoppable()
        self.payload = payload
        self.regs: dict[tuple[int, int], dict[int, int]] = defaultdict(dict)
        self.channels: dict[ChannelKey, Channel] = {}
        self.units: dict[tu.UnitKey, tu.Unit] = {}
        self.timer_base: dict[tu.UnitKey, int] = {}
        self._recorded: dict[tu.UnitKey, int] = {}  # unit -> end of what it recorded so far
        self.patches: dict[int, tuple[str, int, HostBuffer]] = {}  # register -> (op text, arg, buffer)
        self.streams: dict[ChannelKey, list[tuple[int, str]]] = {}
        self.tiles: list[tuple[int, int]] = []
        self.engine: Engine | None = None
        self.tile_dmas: TileDmas | None = None  # memtile / compute-tile DMAs at register level
        self.static_dma: static_dma.StaticDma | None = None  # the design's aie.mem / memtile_dma programs
        if payload is not None and payload.mlir:
            self.engine = self._engine(payload)
        if payload is not None:
            alloc = {s: (int(col), d.lower(), int(ch)) for s, d, ch, col in payload.allocations}
            for arg, symbol in payload.streams:
                if symbol not in alloc:
                    raise SimError(f"PDI {payload.symbol}: stream on unknown allocation @{symbol}")
                self.streams.setdefault(alloc[symbol], []).append((int(arg), symbol))
            self.tiles = [tuple(t) for t in payload.tiles]

    def _prepare(self, payload: DevicePayload) -> tuple[Program, dict]:
        """The device's program and its FIFOs' shim allocations, read once per device text for
        the life of this context (a sequence reconfigures the same few devices at every step;
        nothing downstream mutates either)."""
        hit = self._prepared.get(payload.mlir)
        if hit is not None:
            return hit
        where = f"<PDI of @{payload.symbol}>"
        prog = program(payload.mlir, where)
        try:
            allocs = shim_allocations(prog.device)
        except IronError as e:
            raise SimError(f"{where}: {e}") from None
        hit = prog, {name: allocs[name] for name in prog.fifos if name in allocs}
        self._prepared[payload.mlir] = hit
        return hit

    def _engine(self, payload: DevicePayload) -> Engine:
        where = f"<PDI of @{payload.symbol}>"
        prog, fifo_allocs = self._prepare(payload)
        kernels = {name: (dict(defines), arch) for name, _src, arch, defines in payload.kernels}
        try:
            self.tile_dmas = TileDmas(self, prog)
            self.static_dma = static_dma.install(self, prog, self.tile_dmas, payload.mlir, where)
        except IronError as e:
            raise SimError(f"{where}: {e}") from None
        if self.static_dma.unmodelled:  # on a copy: the program read once stays as read
            prog = dataclasses.replace(prog, unmodelled=prog.unmodelled + self.static_dma.unmodelled)
        pool = self._pools.setdefault(payload.mlir, {})  # the buffers of its previous engine
        engine = Engine(self, prog, fifo_allocs, kernels, self.kernel_models, pool)
        dataflow.engine_built(engine, self.tile_dmas, self.static_dma)  # a recorder checks it
        return engine

    def object_buffers(self):
        """Every object buffer (its raw bytes) of every engine built so far: they persist across
        runs and reconfigurations, as host buffers do (replay keeps and replaces them)."""
        for pool in self._pools.values():
            for raws, _elems, _kbufs in pool.values():
                yield from raws

    def channel(self, key: ChannelKey) -> Channel:
        if key not in self.channels:
            self.channels[key] = Channel(key)
        return self.channels[key]

    def operator(self):
        """The loaded device's operator object (None for an empty device)."""
        if self.payload is None or self.payload.operator is None:
            return None
        sym = self.payload.symbol
        if sym not in self._operators:
            if self._resolve is None:
                raise SimError(
                    f"PDI {sym} runs operator {self.payload.operator}, but sim was given no operators: "
                    "load the artifact with art.load() / iron.load(), or pass operators= to SimDevice"
                )
            self._operators[sym] = self._resolve(self.payload.operator, self.payload.params)
        return self._operators[sym]

    # ------------------------------------------------------------------ run
    def run(
        self,
        control: bytes,
        args: Sequence[HostBuffer | None],
        pdis: Mapping[int, DevicePayload],
        kernel: str = "kernel",
        pdi: int | None = None,
    ) -> None:
        """Execute one kernel's transaction binary with host buffers ``args`` bound.

        ``pdi``: the PDI the host loads before the stream runs (xclbin flow, where
        the kernel's control code holds no PDI load); skipped if already loaded.
        """
        header, ops = self._decode(control)
        if header.dev_gen != self.target.dev_gen:
            raise SimError(
                f"kernel {kernel!r}: transaction header says device generation {header.dev_gen}, "
                f"sim models {self.target.name} ({self.target.dev_gen})"
            )
        self._kernel, self._args, self._pdis = kernel, list(args), pdis
        self._lost_pushes: list[str] = []
        if self.engine is not None:
            self.engine.forget_models()
        if pdi is not None:
            self._load_pdi(-1, txn_codec.LoadPdi(pdi))
        for i, op in enumerate(ops):
            self.now += OP_CYCLES
            self._op(i, op)
        self._advance(force=True)
        progress.check_drained(self, tile_dma_name)
        self._flush_unstoppable()
        if self._lost_pushes:
            raise SimError(
                "task queue overflow (sticky Task_Queue_Overflow set): " + "; ".join(self._lost_pushes)
            )

    def _decode(self, control: bytes):
        """The header and ops of a control stream, decoded once per stream (the ops are frozen)."""
        hit = self._decoded.get(control)
        if hit is None:
            hit = self._decoded[control] = txn_codec.decode(control)
        return hit

    def _op(self, i: int, op) -> None:
        handler = _HANDLERS.get(type(op))
        if handler is not None:  # NOOP and PREEMPT do nothing here
            handler(self, i, op)

    def _write(self, i: int, op: txn_codec.Write) -> None:
        self._store(i, op, op.address, op.value)

    def _maskwrite(self, i: int, op: txn_codec.MaskWrite) -> None:
        old = self._read(op.address)
        self._store(i, op, op.address, (old & ~op.mask) | (op.value & op.mask))

    def _blockwrite(self, i: int, op: txn_codec.BlockWrite) -> None:
        for k, word in enumerate(op.data):
            self._store(i, op, op.address + 4 * k, word)

    def _maskpoll(self, i: int, op: txn_codec.MaskPoll) -> None:
        value = self._read(op.address)
        if value & op.mask != op.value & op.mask:
            raise SimError(
                f"kernel {self._kernel!r}: {_op_text(i, op)} would poll forever: register "
                f"0x{op.address:08x} holds 0x{value:08x}"
            )

    # ------------------------------------------------------------------ registers
    def _split(self, i: int, op, address: int) -> tuple[int, int, int]:
        col, row, off = registers.split_address(address)
        if col >= self.target.max_columns or row >= self.target.rows:
            raise SimError(
                f"kernel {self._kernel!r}: {_op_text(i, op)} writes tile ({col},{row}), outside "
                f"the {self.target.name} array ({self.target.max_columns} columns x {self.target.rows} rows)"
            )
        return col, row, off

    def _read(self, address: int) -> int:
        col, row, off = registers.split_address(address)
        if row == SHIM_ROW and off in _STATUS_REGISTERS:
            d, c = _STATUS_REGISTERS[off]
            ch = self.channels.get((col, d, c))
            n = len(ch.queue) if ch else 0
            overflow = bool(ch and ch.overflow)
            return (n and 1 << _RUNNING_BIT) | min(n, 7) << _QUEUE_SIZE_SHIFT | overflow << _OVERFLOW_BIT
        if self._in_memory(row, off):  # a maskwrite32 into a buffer reads the memory
            return self.tile_dmas.load(col, row, off)
        if _is_core_control(row, off) and self._cores() is not None:
            return self._cores().read(col, row)
        return self.regs[col, row].get(off, 0)

    def _cores(self) -> core_reset.CoreControl | None:
        """Core_Control of the loaded design's cores (after running them as far as they go)."""
        if self.engine is None:
            return None
        self._advance()
        if self._core_control is None or self._core_control.engine is not self.engine:
            self._core_control = core_reset.CoreControl(self.engine)
        return self._core_control

    def _in_memory(self, row: int, off: int) -> bool:
        """Whether ``off`` is in a memtile's / compute tile's data memory. The cores have run since
        the PDI load enabled them: before the host reads or writes their memory, they run as far as
        they go (add_maskwrite's test.cpp relies on its core's stores coming first)."""
        if row == SHIM_ROW or self.tile_dmas is None or off >= tile_dma.kind_of_row(row).memory:
            return False
        self._advance()
        return True

    def _store(self, i: int, op, address: int, value: int) -> None:
        col, row, off = self._split(i, op, address)
        self.regs[col, row][off] = value & 0xFFFFFFFF
        self.patches.pop(address, None)
        if row == SHIM_ROW and off in QUEUE_REGISTERS:
            self._push(i, op, col, *QUEUE_REGISTERS[off], value)
            return
        if _is_core_control(row, off) and self._cores() is not None:
            did = self._cores().write(col, row, value)
            if did:
                self.log.append(f"kernel {self._kernel!r}: {_op_text(i, op)}: core ({col},{row}) {did}")
            return
        if row != SHIM_ROW and self.tile_dmas is not None:
            self._in_memory(row, off)  # runs the cores first when it is their memory
            self.tile_dmas.store(col, row, off, value & 0xFFFFFFFF, f"op #{i} of {self._kernel!r}")
        kind = tu.register_kind(row, off)
        if kind is not None and off == registers.TRACE_REGISTERS[kind].event_generate:
            self._generate(col, row, kind, value & registers.event_mask(kind))
        elif kind is not None and off == registers.TRACE_REGISTERS[kind].trace_control0:
            # TRUE is asserted on every cycle: a unit waiting for it starts right away.
            if tu.configured(self.regs[col, row], kind) and (col, row, kind) not in self.units:
                self._event(col, row, kind, events.event_id(kind, "TRUE"), [])

    def _patch(self, i: int, op: txn_codec.DdrPatch) -> None:
        args = self._args
        if op.arg_idx >= len(args) or args[op.arg_idx] is None:
            bound = ", ".join(f"{k} {b.name!r}" for k, b in enumerate(args) if b is not None) or "none"
            raise SimError(
                f"kernel {self._kernel!r}: {_op_text(i, op)} patches against argument {op.arg_idx}, "
                f"which is not bound (bound host buffers: {bound})"
            )
        buf = args[op.arg_idx]
        host = buf.address + op.arg_plus
        col, row, off = self._split(i, op, op.addr)
        self._store(i, op, op.addr, host & 0xFFFFFFFF)
        bd_id = shim_dma.bd_of_address_low(off) if row == SHIM_ROW else None
        if bd_id is not None:
            # The 64-bit address: high bits go to BD word 2 [15:0] (BASE_ADDRESS_HIGH).
            high = shim_dma.bd_word(bd_id, shim_dma.ADDRESS_HIGH_WORD)
            word2 = self.regs[col, row].get(high, 0)
            self.regs[col, row][high] = (word2 & ~0xFFFF) | ((host >> 32) & 0xFFFF)
        self.patches[op.addr] = (_op_text(i, op), op.arg_idx, buf)

    # ------------------------------------------------------------------ DMA
    def _push(self, i: int, op, col: int, direction: str, channel: int, value: int) -> None:
        q = shim_dma.unpack_task_queue(value)
        bd_id = q["start_bd"]
        bd = self._bd(col, bd_id)
        key = (col, direction, channel)
        kernel = self._kernel
        where = _Text(
            lambda: f"kernel {kernel!r}: {_op_text(i, op)} pushes BD {bd_id} on shim ({col},0) "
            f"{direction.upper()} {channel}"
        )
        if not bd["valid_bd"]:
            raise SimError(f"{where}, but the BD is not valid (never written since the last PDI load?)")
        segments, seen = [], [bd_id]
        while True:
            buf, offset, length, pattern = self._segment(where, col, bd_id, bd, q["repeat"])
            segments.append((buf, offset, length, pattern))
            if not bd["use_next_bd"]:
                break
            bd_id = bd["next_bd"]
            if bd_id in seen:
                raise SimError(f"{where}: its BD chain {seen + [bd_id]} loops; sim models chains that end")
            seen.append(bd_id)
            bd = self._bd(col, bd_id)
            if not bd["valid_bd"]:
                raise SimError(f"{where}: BD {seen[-2]} chains to BD {bd_id}, which is not valid")
        if len({id(b) for b, *_ in segments}) > 1:
            raise SimError(
                f"{where}: its BD chain {seen} spans several host buffers, which sim does not model"
            )
        buf, offset, _length, pattern = segments[0]
        task = Task(q["start_bd"], buf, offset, sum(s[2] for s in segments), q["repeat"], q["issue_token"],
                    bd["packet_id"] if bd["enable_packet"] else None, f"op #{i} of {self._kernel!r}", pattern=pattern,
                    pushed_at=self.now,
                    segments=[s[1:] for s in segments] if len(segments) > 1 else None)  # fmt: skip
        ch = self.channel(key)
        if len(ch.queue) >= shim_dma.TASK_QUEUE_DEPTH:
            self._drain_before_push(where, ch)
        if not ch.push(task):
            waiting = ", ".join(t.describe() for t in ch.queue)
            self._lost_pushes.append(
                f"{where} was dropped: the queue already holds {len(ch.queue)} tasks "
                f"(depth {shim_dma.TASK_QUEUE_DEPTH}, aie-rt XAIE_DMA_MAX_QUEUE_SIZE): {waiting}"
            )

    def _drain_before_push(self, where, ch: Channel) -> None:
        """A push finds ``ch``'s queue full: the hardware drops it unless a task retired while the
        controller worked (mlir-aie PR #3734: no stall, no backpressure; a race between the
        controller and the consumer). sim is not cycle-accurate, so it lets the design run first
        and drops the push only when no queued task can complete without later control ops."""
        self._advance()
        if len(ch.queue) < shim_dma.TASK_QUEUE_DEPTH:
            self.log.append(
                f"{where}: queue full, pushed after a task retired (hardware: a race the "
                f"consumer's speed decides, depth {shim_dma.TASK_QUEUE_DEPTH})"
            )

    def _bd(self, col: int, bd_id: int) -> dict:
        """Shim BD ``bd_id``'s fields as its registers hold them now (read-only: shared by
        every push of the same words)."""
        regs = self.regs[col, SHIM_ROW]
        return _unpack_bd(tuple(regs.get(w, 0) for w in _bd_words(bd_id)), self.target.name)

    def _segment(self, where: str, col: int, bd_id: int, bd: dict, repeat: int):
        """(host buffer, byte offset, bytes per run, pattern) of one BD, its reach checked."""
        address = bd["address_high"] << 32 | bd["buffer_offset"]
        pattern = pattern_of(bd)
        # the bytes the address generator reaches (a strided BD spans more than its length)
        last = last_word(bd["buffer_length"] * 4, repeat, pattern)
        nbytes = 0 if last is None else last * 4 + 4
        word1 = registers.tile_address(col, SHIM_ROW, shim_dma.bd_address_low(bd_id))
        patch = self.patches.get(word1)
        if patch is not None:
            ptext, arg, buf = patch
            if not buf.contains(address, nbytes):
                raise SimError(
                    f"{where}: BD {bd_id}'s {nbytes} bytes at byte {address - buf.address} of argument {arg} "
                    f"({buf.name!r}, {buf.size} bytes; address patched by {ptext}) reach outside the buffer"
                )
        else:
            buf = next((b for b in self._args if b is not None and b.contains(address, nbytes)), None)
            if buf is None:
                raise SimError(
                    f"{where}: BD {bd_id}'s {nbytes} bytes at host address 0x{address:x} are in no bound "
                    "host buffer (no DDR_PATCH set the BD address)"
                )
        return buf, address - buf.address, bd["buffer_length"] * 4, pattern

    def _sync(self, i: int, op: txn_codec.Sync) -> None:
        direction = shim_dma.DIRECTION_OF_CODE.get(op.direction, "mm2s")
        key = (op.column, direction, op.channel)
        kernel = self._kernel
        where = _Text(lambda: f"kernel {kernel!r}: {_op_text(i, op)}")
        if op.row != SHIM_ROW:
            self._sync_tile(where, (op.column, op.row, direction, op.channel))
            return
        ch = self.channel(key)
        if ch.tokens == 0:
            self._advance(force=True)
        if ch.tokens > 0:
            ch.tokens -= 1
            return
        if ch.active is not None:
            why = f"its active task {ch.active.describe()} stays active until its length is filled" + (
                f"; {len(ch.queue) - 1} task(s) wait behind it" if len(ch.queue) > 1 else ""
            )
        else:
            why = "no queued task will issue a task-complete token"
        raise SimError(f"{where} waits on {ch.name} forever: {why}{self._blocked()}")

    def _sync_tile(self, where: str, key) -> None:
        """SYNC on a memtile / compute-tile channel: one task-complete token of it."""
        if self.tile_dmas is None:
            raise SimError(f"{where}: no design is loaded whose DMA could issue a token")
        chan = self.tile_dmas.channel(key)
        if chan.tokens == 0:
            self._advance(force=True)
        if chan.tokens > 0:
            chan.tokens -= 1
            return
        why = (
            "its active task stays active" if chan.task else "no queued task will issue a task-complete token"
        )
        raise SimError(f"{where} waits on {tile_dma_name(key)} forever: {why}{self._blocked()}")

    def _blocked(self) -> str:
        """ "; blocked: ..." listing what every stuck agent and DMA channel waits for."""
        stuck = (self.engine.blocked() if self.engine else []) + (
            self.tile_dmas.blocked() if self.tile_dmas else []
        )
        lost = "; earlier: " + "; ".join(self._lost_pushes) if self._lost_pushes else ""
        return ("; blocked: " + ", ".join(stuck[:8]) if stuck else "") + lost

    # ------------------------------------------------------------------ PDI
    def _load_pdi(self, i: int, op: txn_codec.LoadPdi) -> None:
        if op.pdi_id == self.loaded:
            self.log.append(f"{self._kernel}: op #{i} LOADPDI {op.pdi_id} skipped (already loaded)")
            if self.engine is not None:
                self.engine.restart_finished_cores()
            return
        payload = self._pdis.get(op.pdi_id)
        if payload is None:
            raise SimError(
                f"kernel {self._kernel!r}: {_op_text(i, op)}: no PDI with id {op.pdi_id} in the artifact "
                f"(ids: {sorted(self._pdis)})"
            )
        self.log.append(f"{self._kernel}: op #{i} LOADPDI {op.pdi_id} ({payload.symbol}): reconfigure")
        self.loaded = op.pdi_id
        self._reconfigure(payload)

    # ------------------------------------------------------------------ events and trace
    def _generate(self, col: int, row: int, kind: str, eid: int) -> None:
        """Event ``eid`` on one module, plus the broadcasts that module maps it to."""
        stopped: list[tu.Unit] = []
        self._event(col, row, kind, eid, stopped)
        regs = registers.TRACE_REGISTERS[kind]
        for n in range(registers.BROADCAST_CHANNELS):
            if eid and self.regs[col, row].get(regs.event_broadcast(n)) == eid:
                for c, r in self.tiles:
                    for k in tu.module_kinds(r):
                        self._event(c, r, k, events.broadcast_event(k, n), stopped)
        if stopped:
            self._flush(stopped)

    def _event(self, col: int, row: int, kind: str, eid: int, stopped: list) -> None:
        key = (col, row, kind)
        regs = self.regs[col, row]
        if tu.timer_reset_event(regs, kind) == eid:
            self.timer_base[key] = self.now
        unit = self.units.get(key)
        if unit is not None and unit.running:
            if eid == unit.stop_event:
                unit.running = False
                stopped.append(unit)
            return
        cfg = tu.configured(regs, kind)
        if cfg is not None and cfg["start"] == eid:
            self.units[key] = tu.Unit(
                col, row, kind, cfg["start"], cfg["stop"], cfg["packet_type"], cfg["packet_id"],
                cfg["slots"], origin=self.now, start_timer=self.now - self.timer_base.get(key, 0),
                mode=cfg["mode"],
            )  # fmt: skip

    def _flush_unstoppable(self) -> None:
        """Units with stop event NONE never stop: the hardware streams their packets out as
        they fill. Sim hands over what they recorded when the device is reconfigured or the
        kernel ends, along the routes still configured, so they record no further."""
        units = [u for u in self.units.values() if u.running and u.stop_event == 0]
        for u in units:
            u.running = False
        if units:
            self._flush(units)

    def _route(self, unit: tu.Unit) -> ChannelKey | None:
        want = [unit.column, unit.row, "Trace", TRACE_PORT[unit.kind]]
        for flow in self.payload.packet_flows if self.payload else ():
            dest = flow["dest"]
            if (
                flow["id"] == unit.packet_id
                and list(flow["source"]) == want
                and dest[2] == "DMA"
                and dest[1] == SHIM_ROW
            ):
                return (int(dest[0]), "s2mm", int(dest[3]))
        return None

    def _flush(self, units: list[tu.Unit]) -> None:
        """Stopped units send their packets along their routes into host memory."""
        from iron.trace import encode

        per_channel: dict[ChannelKey, list[np.ndarray]] = {}
        self.flushed.append(list(units))
        for unit in units:
            route = self._route(unit)
            if route is None:
                self.log.append(
                    f"{unit.kind}({unit.column},{unit.row}) packet id {unit.packet_id}: no route; dropped"
                )
                continue
            per_channel.setdefault(route, []).append(tu.packet_words(unit, self.target.column_offset))
        for key, parts in per_channel.items():
            words = np.asarray(encode.interleave(parts), dtype="<u4")
            ch = self.channel(key)
            written = ch.write(words.view(np.uint8))
            if written < words.nbytes:
                self.log.append(f"{ch.name}: {words.nbytes - written} trace bytes dropped (no task room)")

    # ------------------------------------------------------------------ execution
    def _advance(self, force: bool = False) -> None:
        """Run the loaded design as far as it goes; its events reach the running trace units.

        ``force``: where the design cannot be executed entirely (``engine.why_stuck()``), the
        shim tasks it leaves pending complete with their bytes recorded as not modelled."""
        eng = self.engine
        if eng is None:
            return
        eng.traced = frozenset(u.key for u in self.units.values() if u.running)
        moved = True
        while moved:  # the FIFO-level engine and the register-level DMAs, until neither moves
            moved = eng.advance()
            if self.tile_dmas is not None:
                moved = self.tile_dmas.advance() or moved
        why = eng.why_stuck() if force else None
        if why is not None:
            for key in set(eng.shim_channels) | set(self.streams):  # data channels, never the trace's
                ch = self.channels.get(key)
                while ch is not None and ch.active is not None:
                    t = ch.active
                    if key[1] == "s2mm":
                        self.mark_unmodelled(t.buffer, t.indices()[t.moved :], why)
                    ch.complete(t)
        self.kernel_calls += eng.calls
        self.calls[self.payload.symbol] = self.calls.get(self.payload.symbol, 0) + len(eng.calls)
        if eng.calls and not eng.first_call:
            eng.first_call = eng.calls[0]
        eng.calls = []
        events = eng.drain_events()
        for unit, evs in (self.tile_dmas.drain_events() if self.tile_dmas else {}).items():
            events.setdefault(unit, []).extend(evs)
        self._record(events)
        self.now = max(self.now, eng.clock())

    def _record(self, events: dict) -> None:
        """Executed events -> what each running trace unit keeps (its slots, from its start)."""
        for unit in self.units.values():
            if not unit.running:
                continue
            # A unit's frames must advance in time: what an earlier drain already recorded stays,
            # later agents' events that reach back before it are clipped (sim's agents keep
            # their own clocks; the order across agents of one tile is the cost model's).
            last = self._recorded.get(unit.key, unit.origin)
            ivs = []
            for first, n, name in sorted(events.get((unit.column, unit.row, unit.kind), ())):
                if first + n > last:
                    ivs.append((max(first, last), first + n - max(first, last), name))
            if not ivs:
                continue
            self._recorded[unit.key] = max(f + n for f, n, _ in ivs)
            recs = act_model.runs(ivs, unit.kind, unit.slot_ids, unit.origin)
            unit.records += recs
            if unit.mode == EVENT_PC:
                code = act_model.code_range(self.engine.first_call or "core")
                unit.pc_samples += act_model.pc_samples(ivs, recs, unit.origin, code)

    def mark_unmodelled(self, buf: HostBuffer, idx: np.ndarray, why: str) -> None:
        """Host bytes ``buf[idx]`` hold no modelled values (see :attr:`not_modelled`)."""
        if idx.size:
            lo = int(idx.min())
            self.not_modelled.append((buf.address + lo, int(idx.max()) - lo + 1, why))

    def unmodelled_bytes(self, buf: HostBuffer, idx: np.ndarray) -> str | None:
        """Why some of ``buf[idx]`` is not modelled (None: all of it is)."""
        if not idx.size or not self.not_modelled:
            return None
        lo, hi = buf.address + int(idx.min()), buf.address + int(idx.max()) + 1
        for addr, n, why in self.not_modelled:
            if lo < addr + n and addr < hi:
                return f"input bytes of @{self.payload.symbol} from {buf.name!r} are not modelled ({why})"
        return None


#: Transaction op type -> how sim executes it (see the module docstring).
_HANDLERS = {
    txn_codec.Write: SimDevice._write,
    txn_codec.MaskWrite: SimDevice._maskwrite,
    txn_codec.BlockWrite: SimDevice._blockwrite,
    txn_codec.DdrPatch: SimDevice._patch,
    txn_codec.LoadPdi: SimDevice._load_pdi,
    txn_codec.Sync: SimDevice._sync,
    txn_codec.MaskPoll: SimDevice._maskpoll,
}
