"""Shim DMA channels: task queues with the hardware's completion semantics.

A write to ``DMA_<DIR>_<c>_Task_Queue`` pushes a task: a snapshot of the start
BD as it is at push time (later BD writes do not change a queued task). The
head of the queue is the active task. A task completes only when all its bytes
moved (``buffer_length`` words, times ``1 + repeat``); tasks behind it wait.
A completed task whose push set the issue-token bit leaves a task-complete
token that one SYNC consumes. A channel holds at most
:data:`iron.target.shim_dma.TASK_QUEUE_DEPTH` tasks (the active one included):
a push onto a full queue is dropped and sets the sticky ``overflow`` flag,
which the status register shows and only a reconfiguration clears.
Reconfiguration (a PDI load) resets the channel: queued and active tasks are
dropped. Nothing else does: the state of a channel, a never-completing trace
task included, outlives the kernel and the run that pushed it.

A task moves its bytes in the order its BD's address generator visits them (a chain of
BDs, ``use_next_bd`` / ``next_bd``, one BD after the other, every repetition)
(:func:`byte_indices`): ``d0`` (``d0_size`` words, step ``d0_stride + 1``), ``d1``
(``d1_size``, step ``d1_stride + 1``), ``d2`` (step ``d2_stride + 1``, as many as
``buffer_length`` needs), and per repetition the iteration offset
``((iteration_current + r) mod (iteration_size + 1)) * (iteration_stride + 1)``
words; ``d0_size = 0`` is a linear transfer. A memtile BD may wrap ``d2`` too (``d2_size``) and
then steps ``d3`` (``d3_stride + 1``) as far as the length needs. The fields are in the hardware's
encoding (:mod:`iron.target.shim_dma`), as mlir-aie's ``aie-dma-to-npu`` lowering
writes them (``getHardwareStridesWraps`` in ``lib/Dialect/AIEX/IR/AIEXDialect.cpp``).

Register layout: :mod:`iron.target.shim_dma` (the one table of those offsets).
"""

from __future__ import annotations

import functools
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from iron.runtime.sim import dataflow
from iron.runtime.sim.errors import SimError
from iron.runtime.sim.memory import HostBuffer
from iron.target import shim_dma

#: Channel key: (column, "s2mm" | "mm2s", channel).
ChannelKey = tuple[int, str, int]

#: Task_Queue register offset -> (direction, channel).
QUEUE_REGISTERS: dict[int, tuple[str, int]] = {
    shim_dma.task_queue(d, c): (d, c) for d in shim_dma.DIRECTIONS for c in range(shim_dma.SHIM_DMA_CHANNELS)
}


@dataclass
class Task:
    """One pushed BD: where its bytes go (or come from) and how many moved so far."""

    bd_id: int
    buffer: HostBuffer  # the bound buffer the BD address lies in (bounds already checked)
    offset: int  # bytes into ``buffer``
    length: int  # bytes per repetition (BD buffer_length * 4)
    repeat: int
    issue_token: bool
    packet: int | None  # the BD's packet id when it sets enable_packet (its data is one packet)
    pushed_by: str  # "op #i ..." for messages
    moved: int = 0  # bytes moved so far
    #: (d0_size, d0_step, d1_size, d1_step, d2_step, iteration wrap, iteration step,
    #: iteration_current, d2_size, d3_step), steps in 32-bit words; d0_size 0: linear;
    #: d2_size 0: d2 runs to the length (a memtile BD with a d2 wrap steps d3 after it)
    pattern: tuple[int, ...] = (0, 1, 1, 1, 1, 1, 0, 0, 0, 1)
    pushed_at: int = 0  # device cycle of the push (the DMA starts no earlier)
    #: a chain of BDs (use_next_bd): (offset, bytes, pattern) each, run in order every repetition
    segments: list | None = None

    def indices(self) -> np.ndarray:
        """Byte offsets into ``buffer`` in the order the task moves them (see the module docstring)."""
        if not self.segments:
            return byte_indices(self.offset, self.length, self.repeat, self.pattern)
        runs = []
        for r in range(1 + self.repeat):
            for off, n, pat in self.segments:
                runs.append(byte_indices(off, n, 0, (*pat[:7], pat[7] + r, *pat[8:])))
        return np.concatenate(runs)

    def read(self) -> np.ndarray:
        """The bytes the task moves, in order (a copy of ``buffer.data[indices()]``). The BD's
        address generator steps in 32-bit words: where the task starts on a word of a
        word-sized buffer, whole words are gathered (a quarter of the indices to make and follow)."""
        data = self.buffer.data
        if self.offset % 4 or data.size % 4 or not data.flags.c_contiguous or self.segments:
            return dataflow.take(data, self.indices())
        words = _relative_words(self.length, self.repeat, tuple(self.pattern))
        return dataflow.take(data.view(np.uint32)[self.offset // 4 :], words).view(np.uint8)

    @property
    def capacity(self) -> int:
        return self.length * (1 + self.repeat)

    @property
    def done(self) -> bool:
        return self.moved >= self.capacity

    def describe(self) -> str:
        return (
            f"BD {self.bd_id} ({self.moved}/{self.capacity} bytes moved, into {self.buffer.name!r} "
            f"at byte {self.offset}; pushed by {self.pushed_by})"
        )


def pattern_of(bd: dict) -> tuple[int, ...]:
    """A BD's address-generator fields (:func:`iron.target.shim_dma.unpack_bd`) as a task pattern."""
    return (
        bd["d0_size"], bd["d0_stride"] + 1, max(bd["d1_size"], 1), bd["d1_stride"] + 1, bd["d2_stride"] + 1,
        bd["iteration_size"] + 1, bd["iteration_stride"] + 1, bd["iteration_current"],
        bd.get("d2_size", 0), bd.get("d3_stride", 0) + 1,
    )  # fmt: skip


def byte_indices(offset: int, length: int, repeat: int, pattern: tuple[int, ...]) -> np.ndarray:
    """Byte offsets a BD of ``length`` bytes at ``offset`` visits over ``1 + repeat`` runs."""
    rel = _relative_indices(length, repeat, tuple(pattern))
    return rel + offset if offset else rel


def last_word(length: int, repeat: int, pattern: tuple[int, ...]) -> int | None:
    """The largest 32-bit word offset :func:`byte_indices` would visit (None: none), found
    from the address generator's digits without making the index array: a design may give a
    BD billions of words, and its reach must be checked before sim allocates for it."""
    n = length // 4
    if n <= 0:
        return None
    d0, s0, d1, s1, s2, wrap, step, current, d2, s3 = pattern
    if d0 == 0:
        radices, strides = (), (1,)
    elif d2 == 0:
        radices, strides = (d0, d1), (s0, s1, s2)
    else:
        radices, strides = (d0, d1, d2), (s0, s1, s2, s3)
    digits, rest = [], n - 1  # the last index's mixed-radix digits, least significant first
    for r in radices:
        digits.append(rest % r)
        rest //= r
    digits.append(rest)
    # every stride is positive: the largest sum is the last index's, or one whose digit j is
    # one lower with every digit below j at its top
    best = sum(d * s for d, s in zip(digits, strides))
    for j in range(1, len(digits)):
        if digits[j]:
            top = sum((r - 1) * s for r, s in zip(radices[:j], strides[:j]))
            above = sum(d * s for d, s in zip(digits[j + 1 :], strides[j + 1 :]))
            best = max(best, top + (digits[j] - 1) * strides[j] + above)
    if wrap > 1:
        first = current % wrap
        it = wrap - 1 if first + repeat >= wrap - 1 else first + repeat
        best += it * step
    return best


@functools.lru_cache(maxsize=16)
def _relative_indices(length: int, repeat: int, pattern: tuple[int, ...]) -> np.ndarray:
    # Designs push the same BD shape again and again (a GEMM's B on every block): built once.
    words = _relative_words(length, repeat, pattern)
    idx = (words[:, None] * 4 + np.arange(4)[None, :]).reshape(-1)
    idx.flags.writeable = False
    return idx


@functools.lru_cache(maxsize=16)
def _relative_words(length: int, repeat: int, pattern: tuple[int, ...]) -> np.ndarray:
    """32-bit word offsets (from the BD's address) a BD visits over ``1 + repeat`` runs."""
    d0, s0, d1, s1, s2, wrap, step, current, d2, s3 = pattern
    k = np.arange(length // 4, dtype=np.int64)
    if d0 == 0:
        w = k
    elif d2 == 0:
        w = (k % d0) * s0 + (k // d0 % d1) * s1 + (k // (d0 * d1)) * s2
    else:  # a memtile's fourth dimension: d2 wraps, d3 runs to the length
        w = (k % d0) * s0 + (k // d0 % d1) * s1 + (k // (d0 * d1) % d2) * s2 + (k // (d0 * d1 * d2)) * s3
    runs = np.arange(1 + repeat, dtype=np.int64)
    it = (current + runs) % wrap if wrap > 1 else np.zeros_like(runs)
    idx = (it[:, None] * step + w[None, :]).reshape(-1)
    idx.flags.writeable = False
    return idx


@dataclass
class Channel:
    """One shim DMA channel: its task queue and its task-complete tokens."""

    key: ChannelKey
    queue: deque = field(default_factory=deque)
    tokens: int = 0
    dropped: int = 0  # bytes that arrived with no task to take them (S2MM)
    overflow: bool = False  # sticky Task_Queue_Overflow
    lost: list = field(default_factory=list)  # tasks whose push found the queue full

    @property
    def name(self) -> str:
        col, d, c = self.key
        return f"shim ({col},0) {d.upper()} {c}"

    @property
    def active(self) -> Task | None:
        return self.queue[0] if self.queue else None

    def push(self, task: Task) -> bool:
        """Queue ``task``; False (and the sticky overflow set) when the queue is full."""
        if len(self.queue) >= shim_dma.TASK_QUEUE_DEPTH:
            self.overflow = True
            self.lost.append(task)
            return False
        self.queue.append(task)
        self._retire()
        return True

    def _retire(self) -> None:
        # A zero-length task completes immediately (the hardware moves nothing).
        while self.queue and self.queue[0].done:
            if self.queue.popleft().issue_token:
                self.tokens += 1

    def write(self, data: bytes | np.ndarray) -> int:
        """S2MM: stream ``data`` into host memory through the active task(s).

        Bytes beyond the active task's length go to the next queued task;
        with no task left they are dropped, as on hardware. Returns the number
        of bytes written.
        """
        src = (
            np.frombuffer(bytes(data), dtype=np.uint8)
            if not isinstance(data, np.ndarray)
            else data.view(np.uint8)
        )
        pos = 0
        while pos < src.size and self.queue:
            task = self.queue[0]
            if task.buffer.released:
                raise SimError(
                    f"{self.name}: the device writes into host buffer {task.buffer.name!r} after the "
                    f"runner released it (active task {task.describe()})"
                )
            rep_pos = task.moved % task.length  # a repeated BD restarts at its address
            n = min(task.length - rep_pos, src.size - pos, task.capacity - task.moved)
            at = task.offset + rep_pos
            dataflow.copy(task.buffer.data[at : at + n], src[pos : pos + n])
            task.moved += n
            pos += n
            self._retire()
        self.dropped += src.size - pos
        return pos

    def complete(self, task: Task) -> None:
        task.moved = task.capacity
        self._retire()

    def reset(self) -> None:
        self.queue.clear()
        self.tokens = 0
        self.overflow = False
