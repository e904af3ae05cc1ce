"""One loaded artifact run many times (benchmarks, warm-up loops, parametrized tests).

On hardware a trace drain task never completes, so on one context the next
traced dispatch's task queues behind it and its trace lands at the old task's
running position (docs/design.md 9.3). sim keeps device state across runs as a
context does; iron's defence is a reconfiguration at the start of a traced
dispatch whose first device may still be loaded (:mod:`iron.fuse.fusion`).

Expected numbers are hand-derived: ``ElementwiseAdd(4096, tile_size=512)`` on one
core makes 4096 / 512 = 8 kernel invocations per call, each bracketed by one
INSTR_EVENT_0 (the kernel's event0()); outputs are checked against ``x + y``.
Trace settings are explicit arguments.
"""

from __future__ import annotations

import numpy as np
import pytest

from iron import Sequence
from iron import build
from iron.tests.bugs import build_with_bug
from iron.fuse.fusion import RESET_DEVICE
from iron.operators import ElementwiseAdd, ElementwiseMul, from_payload
from iron.runtime.sim import HostMemory, SimDevice, SimError
from iron.trace.encode import as_runs

N, TILE = 4096, 512
INVOCATIONS = N // TILE  # 8, per core and call
ADD = ElementwiseAdd(N, "i32", columns=1, cores_per_column=1, tile_size=TILE)
MUL = ElementwiseMul(N, "i32", columns=1, cores_per_column=1, tile_size=TILE)
SIZE = 4096
RUNS = 5
TRACE_CHANNEL = (0, "s2mm", 1)


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("cache")


def inputs(seed=0):
    rng = np.random.default_rng(seed)
    return rng.integers(-1000, 1000, N, dtype=np.int32), rng.integers(-1000, 1000, N, dtype=np.int32)


def instr_event_0(unit) -> int:
    _t, masks = unit.runs.expand()
    return int(((masks >> unit.events.index("INSTR_EVENT_0")) & 1).sum())


def check_own_capture(run, calls: int):
    """Every slice of the last run is ok, holds INVOCATIONS kernel calls, and decodes to exactly
    what the device's trace units recorded in this run (in this run's order of stop events)."""
    slices = run.trace.slices
    flushed = run.backend.last_flushed
    assert len(slices) == len(flushed) == calls
    for s, stopped in zip(slices, flushed):
        assert s.status == "ok", s.label
        (unit,) = s.units
        assert instr_event_0(unit) == INVOCATIONS
        (rec,) = stopped
        assert unit.runs.records() == as_runs(rec.records).records()
    return [s.units[0].runs.records() for s in slices]


@pytest.mark.parametrize("target, dispatch", [("npu2", "fused"), ("npu1", "separate")])
def test_five_runs_each_give_their_own_capture(cache, target, dispatch):
    art = build(ADD, trace=True, trace_size=SIZE, ntiles=1, target=target, dispatch=dispatch, cache_dir=cache)
    run = art.load("sim")
    previous = None
    for i in range(RUNS):
        x, y = inputs(i)
        assert np.array_equal(run(x, y), x + y)
        (records,) = check_own_capture(run, 1)
        # sim executes the same design on new data: the same timeline every run (its capture is
        # this run's own: check_own_capture compares it with what this run's units recorded,
        # and the runner zeroes the trace buffer before each run)
        assert previous is None or records == previous
        previous = records
        ch = run.backend.device.channels[TRACE_CHANNEL]
        assert len(ch.queue) == 1 and not ch.overflow  # only this run's trace task is left
    assert sum("reconfigure" in line and RESET_DEVICE in line for line in run.backend.device.log) == RUNS


def test_without_the_reset_the_fifth_run_overflows_the_trace_queue(cache):
    """Negative control (runner reusing its buffers): each run's task queues behind the first
    run's, its packets land at that task's running position, and the fifth push is dropped."""
    art = build_with_bug("stale-trace-task", ADD, trace=True, trace_size=SIZE, ntiles=1, cache_dir=cache)
    run = art.load("sim")
    end = 0
    for i in range(RUNS - 1):
        run(*inputs(i))
        words = np.flatnonzero(run.raw_trace)
        assert words[0] == end  # after everything earlier runs wrote, not at the slice start
        end = int(words[-1]) + 1
        assert len(run.backend.device.channels[TRACE_CHANNEL].queue) == i + 1
    with pytest.raises(
        SimError, match=r"task queue overflow .*S2MM 1 was dropped: the queue already holds 4"
    ):
        run(*inputs(RUNS - 1))
    assert run.backend.device.channels[TRACE_CHANNEL].overflow  # the error above is the public result


def fresh_buffer_runs(art, count, release=False):
    """Run the artifact's one kernel ``count`` times on one device, each run with its own freshly
    allocated host buffers (what a runner allocating per call does). Returns the memories."""
    (dispatch,) = art.schedule
    k = art.kernels[dispatch.kernel]
    dev = SimDevice(art.target, from_payload)
    memories = []
    for i in range(count):
        if release and memories:
            memories[-1].release()
        mem = HostMemory()
        for name, t in art.buffers.items():
            mem.allocate(name, t.nbytes)
        x, y = inputs(i)
        mem["a"].data[:] = x.view(np.uint8)
        mem["b"].data[:] = y.view(np.uint8)
        dev.run(k.control, [mem[a.buffer] for a in dispatch.args], art.pdis, k.name)
        memories.append(mem)
    return memories


def test_without_the_reset_run_two_lands_in_run_one_buffer(cache):
    """Negative control (fresh buffers per run): run 2's trace slice comes back empty and its
    packets are written into run 1's trace buffer, right after run 1's own."""
    good = build(ADD, trace=True, trace_size=SIZE, ntiles=1, cache_dir=cache)
    bad = build_with_bug("stale-trace-task", ADD, trace=True, trace_size=SIZE, ntiles=1, cache_dir=cache)
    g1, g2 = fresh_buffer_runs(good, 2)
    b1, b2 = fresh_buffer_runs(bad, 2)
    words = lambda mem: mem["trace"].data.view("<u4")  # noqa: E731
    used = lambda w: int(np.flatnonzero(w)[-1]) + 1  # noqa: E731
    assert words(g2).any() and not words(b2).any()  # run 2's own buffer: empty without the reset
    n1, n2 = used(words(g1)), used(words(g2))
    assert np.array_equal(words(b1)[:n1], words(g1)[:n1])
    assert np.array_equal(words(b1)[n1 : n1 + n2], words(g2)[:n2])  # run 2's packets, in run 1's buffer
    assert np.array_equal(b2["c"].data.view(np.int32), np.sum(inputs(1), axis=0))  # data still right


def test_device_writing_a_released_buffer_is_an_error(cache):
    bad = build_with_bug("stale-trace-task", ADD, trace=True, trace_size=SIZE, ntiles=1, cache_dir=cache)
    with pytest.raises(SimError, match=r"writes into host buffer 'trace' after the runner released it"):
        fresh_buffer_runs(bad, 2, release=True)
    good = build(ADD, trace=True, trace_size=SIZE, ntiles=1, cache_dir=cache)
    fresh_buffer_runs(good, 2, release=True)  # the reset removed the task that pointed there


# Consecutive calls of one design: three in a row, then separate pairs.
RUNS_OF_ONE = Sequence(
    "runs",
    [(ADD, "x", "y", "a"), (ADD, "a", "y", "b"), (ADD, "b", "y", "c"), (ADD, "c", "y", "d")],
    ["x", "y"],
    ["d"],
)
PAIRS = Sequence(
    "pairs",
    [(ADD, "x", "y", "a"), (ADD, "a", "y", "b"), (MUL, "b", "y", "c"), (MUL, "c", "y", "d"),
     (ADD, "d", "y", "e"), (ADD, "e", "y", "f")],
    ["x", "y"],
    ["f"],
)  # fmt: skip


def expected(seq, x, y):
    v = x
    for op, *_ in seq.steps:
        v = v + y if op is ADD else v * y
    return v


@pytest.mark.parametrize("seq", [RUNS_OF_ONE, PAIRS], ids=["four-in-a-row", "three-pairs"])
@pytest.mark.parametrize("target", ["npu2", "npu1"])
def test_consecutive_calls_of_one_design_each_get_their_own_slice(cache, seq, target):
    art = build(seq, trace=True, trace_size=SIZE, ntiles=1, target=target, cache_dir=cache)
    run = art.load("sim")
    calls = len(seq.steps)
    for i in range(3):  # and again on the same context
        x, y = inputs(i)
        with np.errstate(over="ignore"):
            assert np.array_equal(run(x, y), expected(seq, x, y))
        check_own_capture(run, calls)
    assert [s.offset for s in art.manifest.slices] == [SIZE * i for i in range(calls)]


def test_consecutive_calls_without_the_reset_leave_every_later_slice_empty(cache):
    art = build_with_bug("stale-trace-task", PAIRS, trace=True, trace_size=SIZE, ntiles=1, cache_dir=cache)
    run = art.load("sim")
    run(*inputs(0))
    assert [s.status for s in run.trace.slices] == ["ok", "empty", "ok", "empty", "ok", "empty"]
