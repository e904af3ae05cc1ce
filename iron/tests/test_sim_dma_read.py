"""A shim task's bytes in the order its BD's address generator visits them (``Task.read``).

sim gathers whole 32-bit words where the task starts on a word and single bytes otherwise. A
shim BD's sizes and steps count 32-bit words (mlir-aie a9e39fae ``getHardwareStridesWraps``,
lib/Dialect/AIEX/IR/AIEXDialect.cpp, writes them so for ``aie-dma-to-npu``). The expected
byte orders below are worked out by hand from that rule, on a buffer whose byte ``i`` holds ``i``.
"""

from __future__ import annotations

import numpy as np
import pytest

from iron.runtime.sim.dma import Task
from iron.runtime.sim.memory import HostMemory


def _task(offset: int, length: int, repeat: int, pattern: tuple) -> Task:
    buf = HostMemory().allocate("a", 128)
    buf.data[:] = np.arange(128, dtype=np.uint8)
    return Task(0, buf, offset, length, repeat, False, False, "test", pattern=pattern)


def _words(*starts: int) -> list[int]:
    return [b for s in starts for b in range(s, s + 4)]


# (offset, length, repeat, (d0 size, d0 step, d1 size, d1 step, d2 step, wrap, iteration step, current,
#  d2 size (0: none), d3 step))
CASES = [
    # linear (d0_size 0): 4 words from byte 8
    ((8, 16, 0, (0, 1, 1, 1, 1, 1, 0, 0, 0, 1)), _words(8, 12, 16, 20)),
    # 2 words, then the next row 4 words on: words 0, 1, 4, 5 from byte 4
    ((4, 16, 0, (2, 1, 2, 4, 1, 1, 0, 0, 0, 1)), _words(4, 8, 20, 24)),
    # d2: after 2 x 2 words, the next block 16 words on
    ((0, 32, 0, (2, 1, 2, 4, 16, 1, 0, 0, 0, 1)), _words(0, 4, 16, 20, 64, 68, 80, 84)),
    # repeated once with an iteration of 8 words (wrap 2): the second run starts 32 bytes on
    ((0, 8, 1, (0, 1, 1, 1, 1, 2, 8, 0, 0, 1)), _words(0, 4, 32, 36)),
    # a task starting inside a word: the same words, 2 bytes on (gathered byte by byte)
    ((2, 16, 0, (2, 1, 2, 4, 1, 1, 0, 0, 0, 1)), _words(2, 6, 18, 22)),
]


@pytest.mark.parametrize("args, expected", CASES)
def test_a_task_reads_its_bytes_in_the_order_its_bd_visits_them(args, expected):
    task = _task(*args)
    assert task.read().tolist() == expected
    assert task.buffer.data[task.indices()].tolist() == expected
