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


# --------------------------------------------------------------------------- reach
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from iron.runtime.sim.dma import byte_indices, last_word  # noqa: E402


@settings(max_examples=300, deadline=None)
@given(
    words=st.integers(0, 300),
    repeat=st.integers(0, 5),
    d0=st.integers(0, 6),
    d1=st.integers(1, 5),
    d2=st.integers(0, 4),
    steps=st.tuples(*[st.integers(1, 9)] * 5),
    wrap=st.integers(1, 6),
    current=st.integers(0, 7),
)
def test_the_reach_found_from_the_digits_is_the_largest_index_visited(
    words, repeat, d0, d1, d2, steps, wrap, current
):
    """``last_word`` (no index array) agrees with the largest of the enumerated indices."""
    s0, s1, s2, step, s3 = steps
    pattern = (d0, s0, d1, s1, s2, wrap, step, current, d2, s3)
    idx = byte_indices(0, words * 4, repeat, pattern)
    assert last_word(words * 4, repeat, pattern) == (int(idx.max()) // 4 if idx.size else None)


def test_a_shim_bd_of_two_billion_words_is_refused_without_allocating_for_it(tmp_path):
    """Found by the foreign-designs property test (a BD length edited to 2**31): before, sim
    made the BD's index array first (16 GiB) and failed with a raw MemoryError (or was killed)
    before it checked the reach against the 8 KB buffer. Run under a 3 GiB address-space limit."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent("""
        import resource, sys
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
        import numpy as np, iron
        from iron.tests.small_designs import MEMTILE_THROUGH
        from iron.runtime.sim.errors import SimError
        old = "aie.dma_bd(%a : memref<2048xi32> offset = 0 len = 2048)"
        assert old in MEMTILE_THROUGH
        text = MEMTILE_THROUGH.replace(old, old.replace("len = 2048", "len = 2147483648"))
        art = iron.build(iron.from_mlir(text, name="f"), target="npu1", cache_dir=sys.argv[1])
        try:
            with art.load("sim") as run:
                run(np.arange(2048, dtype=np.int32))
        except SimError as exc:
            assert "8589934592 bytes at byte 0 of argument 0" in str(exc), exc
            assert "reach outside the buffer" in str(exc), exc
            print("refused")
        """)
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True)
    assert out.stdout.strip() == "refused", out.stderr[-2000:]
