"""End to end on sim: a fused sequence, traced, with the wiring iron must get right.

The sequence has 4 steps: ElementwiseAdd and ElementwiseMul (same argument
count), Mul twice in a row (two consecutive calls of one design), Add twice.
Two columns x two cores, four traced tiles per call. Trace settings are
explicit arguments, never the environment.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from iron import Sequence, testing
from iron import build
from iron.tests.bugs import build_with_bug
from iron.fuse.fusion import fuse
from iron.trace.encode import as_runs
from iron.operators import ElementwiseAdd, ElementwiseMul
from iron.options import TraceOptions
from iron.runtime.sim import SimError
from iron.target import frames

N = 4096
ADD = ElementwiseAdd(N, "i32", columns=2, cores_per_column=2, tile_size=512)
MUL = ElementwiseMul(N, "i32", columns=2, cores_per_column=2, tile_size=512)
SEQ = Sequence(
    "chain",
    [(ADD, "x", "y", "s"), (MUL, "s", "y", "t"), (MUL, "t", "x", "u"), (ADD, "u", "s", "w")],
    ["x", "y"],
    ["w"],
)
SIZE = 8192
#: Kernel calls per core and operator call, by hand: 4096 elements / (2 columns x 2 cores x 512).
INVOCATIONS = 2
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="module")
def inputs():
    return testing.example_inputs(SEQ)


def traced(cache, target="npu2", dispatch="auto", size=SIZE, bug=None):
    return build_with_bug(bug, SEQ, trace=True, trace_size=size, ntiles=4, target=target, dispatch=dispatch,
                          cache_dir=cache)  # fmt: skip


def instr_event_0(unit) -> int:
    _t, masks = unit.runs.expand()
    slot = unit.events.index("INSTR_EVENT_0")
    return int(((masks >> slot) & 1).sum())


def check_wiring(art, run, inputs, cache, target):
    """Outputs equal untraced and reference bitwise; each slice holds exactly its own call."""
    plain = build(SEQ, trace=False, target=target, dispatch=art.dispatch, cache_dir=cache).load("sim")
    want = plain(**inputs)
    got = run(**inputs)
    assert testing.same_bits(got, want)
    assert testing.same_bits(got, testing.reference(SEQ, inputs)[0])
    trace = run.trace
    flushed = run.backend.device.flushed
    assert len(trace.slices) == len(flushed) == 4
    off = art.manifest.column_offset
    for s, stopped in zip(trace.slices, flushed):
        assert s.status == "ok" and s.units, s.label
        configured = {(u.kind, u.column + off, u.row) for u in s.slice.units}
        assert {(u.kind, u.column, u.row) for u in s.units} == configured  # only its own units
        assert len(configured) == 4
        by_key = {(u.kind, u.column + off, u.row): u for u in stopped}
        for u in s.units:
            # exactly the events sim recorded for this call on this unit, nothing else
            assert u.runs.records() == as_runs(by_key[u.kind, u.column, u.row].records).records()
            assert instr_event_0(u) == INVOCATIONS
    return trace


def test_fused_sequence_every_slice_gets_its_own_call(cache, inputs):
    art = traced(cache)
    assert art.dispatch == "fused" and [d.kernel for d in art.schedule] == ["main:sequence"]
    check_wiring(art, art.load("sim"), inputs, cache, "npu2")


def test_separate_dispatch_npu1_same_sequence(cache, inputs):
    art = traced(cache, target="npu1", dispatch="separate")
    assert art.dispatch == "separate" and len(art.schedule) > 1
    # Every call site reaches the runner with its own buffers (trace slice included).
    fm = fuse(SEQ, "npu1", TraceOptions(size=SIZE, ntiles=4), "separate")
    bindings = lambda args: [(a.buffer, a.offset) for a in args]  # noqa: E731
    assert [(d.kernel, bindings(d.args)) for d in art.schedule] == [
        (k.name, bindings(k.args)) for k in fm.schedule
    ]
    run = art.load("sim")
    check_wiring(art, run, inputs, cache, "npu1")


def test_own_arg_patch_bug_leaves_slices_empty(cache, inputs):
    """Negative control: the callee's patch at its own trace index (3) hits wrapper buffer 3 (scratch)."""
    art = traced(cache, bug="own-arg-patch")
    run = art.load("sim")
    run(**inputs)
    assert [s.status for s in run.trace.slices] == ["empty"] * 4
    assert not run.raw_trace.any()
    hit = art.kernels["main:sequence"].args[3].buffer
    assert hit == "scratch_i32"  # the intermediate 's' is a window of it
    s_words = run.backend.memory[hit].data.view("<u4")
    assert frames.header_valid(s_words[:1])[0]  # the packets went into another host buffer


def test_own_arg_patch_bug_with_unbound_index_is_a_sim_error(cache):
    seq = Sequence("shared", [(ADD, "x", "x", "y")], ["x"], ["y"])  # wrapper: x, y, trace -> index 3 unbound
    art = build_with_bug("own-arg-patch", seq, trace=True, trace_size=SIZE, ntiles=1, cache_dir=cache)
    with pytest.raises(
        SimError,
        match=r"DdrPatch.*argument 3, which is not bound \(bound host buffers: 0 'x', 1 'y', 2 'trace'\)",
    ):
        art.load("sim")(np.zeros(N, np.int32))


def test_stale_trace_task_puts_second_call_into_first_slice(cache, inputs):
    """Negative control: without a reconfiguration between consecutive calls of one design."""
    good, bad = traced(cache).load("sim"), traced(cache, bug="stale-trace-task").load("sim")
    good(**inputs)
    bad(**inputs)
    g, b = good.trace.slices, bad.trace.slices
    assert [s.status for s in b] == ["ok", "ok", "empty", "ok"]
    for gu, bu in zip(g[1].units, b[1].units):
        assert instr_event_0(bu) == instr_event_0(gu) + instr_event_0(g[2].unit(gu.kind, gu.column, gu.row))

    def used(s, words):
        w = words[s.slice.offset // 4 : (s.slice.offset + s.slice.size) // 4]
        return w[: int(np.flatnonzero(w)[-1]) + 1] if w.any() else w[:0]

    # Slice 1 of the stale build holds exactly both calls' packets, in order.
    both = np.concatenate([used(g[1], good.raw_trace), used(g[2], good.raw_trace)])
    assert np.array_equal(used(b[1], bad.raw_trace), both)


def test_too_small_slice_reports_full_and_outputs_stay_right(cache, inputs):
    art = traced(cache, size=32)
    run = art.load("sim")
    assert testing.same_bits(run(**inputs), testing.reference(SEQ, inputs)[0])
    assert [s.status for s in run.trace.slices] == ["full"] * 4


def test_capture_decodes_in_a_fresh_process(cache, inputs, tmp_path):
    run = traced(cache).load("sim")
    run(**inputs)
    path = tmp_path / "chain.npz"
    run.capture.save(path)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-m", "iron", "trace", "decode", str(path), "--format", "summary"],
                         capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout == run.trace.summary() or out.stdout.strip() == run.trace.summary().strip()
    for s in run.trace.slices:
        assert f"slice {s.label}: status ok" in out.stdout
