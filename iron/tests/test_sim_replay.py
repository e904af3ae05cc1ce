"""sim replays a loaded artifact's recorded data flow (iron.runtime.sim.replay) bitwise as the interpreter runs it.

Expected values come from outside the replay: the interpreter's own outputs and raw trace buffer of
the same run (a runner with replay disabled, or a fresh load), and the operators' references written
from upstream tests (:mod:`iron.testing`). Builds follow ``IRON_TRACE_SIZE`` (trace=None), so under
the mission's traced command the trace buffers are compared too.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import iron

from iron import Sequence, build, testing
from iron.operators import GEMM, ElementwiseAdd, SiLU, Softmax
from iron.runtime.sim import dataflow, replay
from iron.fuse.fusion import as_sequence
from iron.tests.static_designs import STATIC_DESIGNS, text


def _seq():
    """Two designs, each reconfigured twice in one dispatch (bench_sim's seq32, shorter)."""
    gemm = GEMM(M=64, K=64, N=64, columns=2, cores_per_column=2, m=32, k=64, n=16)
    add = ElementwiseAdd(size=64 * 64, columns=2, cores_per_column=2)
    return Sequence("seq4", [(gemm, "x", "w", "h"), (add, "h", "b", "y")] * 2, ["x", "w", "b"], ["y"])


CASES = {
    "gemm_bf16_1x1": lambda: GEMM(M=64, K=128, N=64),
    "gemm_bf16_2x2": lambda: GEMM(M=128, K=64, N=128, columns=2, cores_per_column=2, m=32, k=32, n=32),
    "gemm_i16_2x1": lambda: GEMM(M=128, K=128, N=128, dtype="i16", columns=2, cores_per_column=1),
    "add": lambda: ElementwiseAdd(size=8192, columns=2, cores_per_column=2),
    "silu": lambda: SiLU(size=4096),
    "softmax": lambda: Softmax(rows=16, cols=64),
    "seq_reconfigured": _seq,
}


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("cache")


def _named(op, seed: int) -> dict:
    """The inputs by name (the operators' ``example_inputs``)."""
    return testing.example_inputs(as_sequence(op), seed)


def _run(runner, op, named: dict):
    """Run with ``named`` and check the outputs against the chained references."""
    seq = as_sequence(op)
    outputs = runner(*[named[n] for n in seq.inputs])
    got = outputs if isinstance(outputs, tuple) else (outputs,)
    ulps = testing.reference_ulps(seq)
    scales = testing.reference_scales(seq, named) if ulps else (None,) * len(got)
    for g, w, scale in zip(got, testing.reference(seq, named), scales):
        assert testing.matches_reference(g, w, ulps, scale), testing.first_difference(g, w)
    return outputs


def _fresh_replay(runner, rec, named: dict, ops=None) -> tuple[dict, bytes | None]:
    """Outputs (raw bytes) and trace of ``ops`` (default: ``rec``'s) replayed on fresh buffers
    holding ``named`` (every buffer ``rec`` writes is fresh)."""
    backend = runner.backend
    roots = replay.fresh_roots(backend.device, backend.memory, named, rec.ops)
    for op in dataflow.rebind(rec.ops if ops is None else ops, roots):
        op.run()
    bufs = backend.memory.buffers
    out = {n: roots[id(bufs[n].data)].tobytes() for n in runner.artifact.outputs}
    trace = roots[id(bufs["trace"].data)].tobytes() if "trace" in bufs else None
    return out, trace


def _raw(runner) -> dict:
    return {n: runner.backend.memory[n].data.tobytes() for n in runner.artifact.outputs}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_recorded_first_run_replays_on_fresh_buffers_bitwise(case, cache):
    """Stage 1: the log of a first (interpreted) run, replayed on fresh buffers with the same and
    with other inputs, gives the interpreter's outputs and trace of those inputs bitwise."""
    op = CASES[case]()
    art = build(op, cache_dir=cache, target="npu2")
    for seed in (0, 1):
        recorded = art.load("sim")
        _run(recorded, op, _named(op, 0))
        rec = recorded.backend.replay.last
        assert rec.design_why is None, rec.design_why
        fresh = art.load("sim")  # the interpreter on the other inputs, from power-on
        named = _named(op, seed)
        _run(fresh, op, named)
        got, trace = _fresh_replay(recorded, rec, recorded.check_inputs((), named))
        assert got == _raw(fresh)
        assert trace == (fresh.raw_trace.tobytes() if fresh.raw_trace is not None else None)


#: Designs whose untraced runs alternate between two control states (an odd number of objects
#: through double-buffered FIFOs per run): they must never replay a run of the other parity.
PERIOD_2 = {"gemm_i16_period2": lambda: GEMM(M=64, K=64, N=64, dtype="i16", columns=2, cores_per_column=1)}


@pytest.mark.parametrize("case", sorted(CASES) + sorted(PERIOD_2))
def test_warm_runs_replay_and_equal_the_interpreter(case, cache):
    """Stage 2: a loaded runner's later runs replay (not a period-2 design's); every run's outputs
    and raw trace equal an interpreting runner's bitwise, with inputs changing from run to run."""
    op = {**CASES, **PERIOD_2}[case]()
    art = build(op, cache_dir=cache, target="npu2")
    fast, slow = art.load("sim"), art.load("sim")
    slow.backend.replay.enabled = False
    replayed = []
    for seed in (0, 1, 2, 0, 3):
        named = _named(op, seed)
        _run(fast, op, named), _run(slow, op, named)
        assert _raw(fast) == _raw(slow)
        assert (fast.raw_trace is None) == (slow.raw_trace is None)
        if fast.raw_trace is not None:
            assert np.array_equal(fast.raw_trace, slow.raw_trace)
        replayed.append(fast.backend.replay.replayed)
    assert not slow.backend.replay.replayed
    if case in PERIOD_2:  # traced, every run starts on a reconfigured device: period 1, replayed
        if fast.raw_trace is None:
            assert not any(replayed) and "control state" in fast.backend.replay_reason
    else:
        assert replayed[-1] and replayed[-2], (replayed, fast.backend.replay_reason)


def test_a_static_dma_design_is_interpreted_and_says_why(tmp_path):
    """A design with static DMA programs (upstream add_one_using_dma) is never replayed, and
    computes what its upstream test checks at every run."""
    entry = STATIC_DESIGNS["add_one_using_dma"]
    inputs, expected = entry["data"]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        op = iron.from_mlir(text(entry, "npu2"), name="static")
    runner = build(op, target="npu2", cache_dir=tmp_path).load("sim")
    for _ in range(4):
        outs = runner(*inputs)
        got = outs if isinstance(outs, tuple) else (outs,)
        for g, w in zip(got, expected):
            np.testing.assert_array_equal(g, w)
    assert not runner.backend.replay.replayed
    assert "static DMA" in runner.backend.replay_reason


def test_user_models_are_interpreted(cache):
    """A kernel model given at load may refuse data: such runs are never replayed."""
    op = ElementwiseAdd(size=4096, columns=1, cores_per_column=1)
    art = build(op, cache_dir=cache, target="npu2")

    def add(a, b, c, *rest):
        c[...] = a + b

    runner = art.load("sim", kernels={"eltwise_add_bf16": add})
    for seed in range(3):
        runner(*op.example_inputs(seed))
    assert not runner.backend.replay.replayed
    assert "kernel models given at load" in runner.backend.replay_reason


def test_one_op_out_of_order_changes_the_outputs(cache):
    """The comparison above can fail: the recorded ops with a kernel call moved last, or one
    gather dropped, no longer give the interpreter's outputs."""
    op = CASES["gemm_bf16_1x1"]()
    art = build(op, cache_dir=cache, target="npu2")
    runner = art.load("sim")
    named = runner.check_inputs((), _named(op, 0))
    _run(runner, op, named)
    rec = runner.backend.replay.last
    want = _raw(runner)
    calls = [i for i, o in enumerate(rec.ops) if isinstance(o, dataflow.Call)]
    gathers = [i for i, o in enumerate(rec.ops) if isinstance(o, dataflow.Gather)]
    swapped = [o for k, o in enumerate(rec.ops) if k != calls[1]] + [rec.ops[calls[1]]]  # a matmul last
    dropped = [o for k, o in enumerate(rec.ops) if k != gathers[0]]  # the first host read
    for what, ops in (("a call moved", swapped), ("a gather dropped", dropped)):
        assert _fresh_replay(runner, rec, named)[0] == want
        assert _fresh_replay(runner, rec, named, ops)[0] != want, what
