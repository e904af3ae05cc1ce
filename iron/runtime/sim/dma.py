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

Register layout: :mod:`iron.target.shim_dma` (the one table of those offsets).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

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
    packet: bool  # BD enable_packet
    pushed_by: str  # "op #i ..." for messages
    moved: int = 0  # bytes moved so far

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
            task.buffer.data[at : at + n] = src[pos : pos + n]
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
