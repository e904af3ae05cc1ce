"""sim's compiled replay (iron.runtime.sim.compiled) has the op-by-op replay's and the interpreter's effects, bitwise.

Expected values come from outside the compiler: the recorded ops run one by one (their own
``run``), an interpreting runner (replay disabled), the per-call kernel models, and the operators'
references (:mod:`iron.testing`). Builds follow ``IRON_TRACE_SIZE`` (trace=None), so under the
traced suite the raw trace buffers are compared too.
"""

from __future__ import annotations

import types

import numpy as np
import pytest

from iron import build, testing
from iron.fuse.fusion import as_sequence
from iron.operators import GEMM, ElementwiseAdd, Softmax
from iron.runtime.sim import compiled, dataflow, kernel_models, replay
from iron.tests.test_sim_replay import _run, _seq

CASES = {
    "gemm_bf16_1x1": lambda: GEMM(M=128, K=128, N=128),
    "gemm_bf16_2x2": lambda: GEMM(M=128, K=128, N=128, columns=2, cores_per_column=2),
    "gemm_i16_2x1": lambda: GEMM(M=128, K=128, N=128, dtype="i16", columns=2, cores_per_column=1),
    "add": lambda: ElementwiseAdd(size=8192, columns=2, cores_per_column=2),
    "softmax": lambda: Softmax(rows=16, cols=64),
    "seq_reconfigured": _seq,
}
#: Designs whose compiled replay must batch kernel calls (several calls of one model at one depth).
BATCHED = {"gemm_bf16_1x1", "gemm_bf16_2x2", "gemm_i16_2x1"}


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("cache")


def _state(runner) -> dict:
    """Every host buffer and every engine object buffer of the runner's device (raw bytes)."""
    dev = runner.backend.device
    out = {("host", n): b.data.tobytes() for n, b in runner.backend.memory.buffers.items()}
    for mlir, pool in dev._pools.items():  # read here, not through the code under test
        for key, (raws, _elems, _kbufs) in pool.items():
            for i, raw in enumerate(raws):
                out[("pool", mlir, repr(key), i)] = raw.tobytes()
    return out


def _call(runner, op, named: dict) -> tuple:
    outputs = _run(runner, op, named)  # checked against the operators' references
    return outputs if isinstance(outputs, tuple) else (outputs,)


@pytest.mark.parametrize("case", sorted(CASES))
def test_compiled_replay_equals_op_by_op_replay_and_the_interpreter(case, cache):
    """Three runners of one artifact, the same inputs changing from run to run: compiled replay,
    op-by-op replay and the interpreter alone give the same outputs, raw trace and every host and
    object buffer, bitwise, after every run."""
    op = CASES[case]()
    art = build(op, cache_dir=cache, target="npu2")
    fast, step, slow = art.load("sim"), art.load("sim"), art.load("sim")
    step.backend.replay.compile = False
    slow.backend.replay.enabled = False
    compiled_runs = 0
    for seed in (0, 1, 2, 0, 3, 1):
        named = testing.example_inputs(as_sequence(op), seed)
        got = [_call(r, op, named) for r in (fast, step, slow)]
        for a, b in zip(got[0], got[1]):
            assert a.tobytes() == b.tobytes()
        for a, b in zip(got[0], got[2]):
            assert a.tobytes() == b.tobytes()
        traces = [None if r.raw_trace is None else r.raw_trace.tobytes() for r in (fast, step, slow)]
        assert traces[0] == traces[1] == traces[2]
        assert _state(fast) == _state(step)  # the write-back leaves every buffer as op by op does
        assert _state(fast) == _state(slow)
        rec = fast.backend.replay.ready
        if fast.backend.replay.replayed:
            assert rec.program is not None, rec.compile_why
            compiled_runs += 1
    assert compiled_runs >= 2, fast.backend.replay_reason
    if case in BATCHED:
        assert max(len(b.blocks[0]) for b in rec.program.batches if b.blocks) > 1


def _roots(seed: int) -> list:
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 1 << 16, n, dtype=np.uint16) for n in (64, 48, 32, 40, 16)]


def _add_one(x, y):
    """A model: y = x + 1 (wrapping), x read only."""
    y[...] = x + np.uint16(1)


def _sum_into(a, b):
    """A model with no declared effects: b += a (it reads and may write both)."""
    b += a


_add_one.effects = lambda x, y: ((0,), (1,))


def _program(r: list) -> list:
    """Moves through slots (gathers, scatters, copies, fills, byte views) and kernel calls, some
    of which feed each other (depth) and some independent (one batch)."""
    a, b, c, d, e = r
    rev = np.arange(31, -1, -1)
    return [
        dataflow.Call(_add_one, [e[:4], b[40:44]]),  # e as the previous run left it (written last)
        dataflow.Gather(c, a, rev + 8),  # c = a[39..8]
        dataflow.Copy(d[:16], c[8:24]),
        dataflow.Call(_add_one, [c[:8], b[:8]]),  # depth 0
        dataflow.Call(_add_one, [d[:8], b[8:16]]),  # depth 0: the same batch
        dataflow.Scatter(a, np.arange(0, 64, 4), b[:16]),
        dataflow.Call(_add_one, [a[:8], c[8:16]]),  # depth 1: reads what the first calls made
        dataflow.Fill(d[16:24]),
        dataflow.Copy(b.view(np.uint8)[32:48], a.view(np.uint8)[1:17]),  # an unaligned byte move
        dataflow.Call(_sum_into, [c[16:24], d[16:24]]),
        dataflow.Gather(d[24:40], c, np.arange(16) * 2),
        dataflow.Copy(e, a[:16]),
    ]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("kept", [None, 2])
def test_compiled_ops_leave_every_buffer_as_the_ops_run_one_by_one(seed, kept):
    """A hand-made log: the compiled program leaves every root (``kept``: the first two; the
    others are temporaries written before they are read) as running the ops in order does (the
    expected state comes from the ops' own ``run``; the last is read before it is written, so
    the next run needs its contents), on the buffers it was compiled on, twice (the
    second run starts from the first's results, as a warm replay does)."""
    want, got = _roots(seed), _roots(seed)
    keep = None if kept is None else {id(r) for r in got[:kept]}
    program = compiled.compile_ops(_program(got), keep)
    assert isinstance(program, compiled.Program), program
    assert 2 in [len(b.blocks[0]) for b in program.batches]  # the two independent calls, batched
    ops = _program(want)
    for _ in range(2):
        for op in ops:
            op.run()
        program.run()
        for w, g in list(zip(want, got))[:kept]:
            assert w.tobytes() == g.tobytes()


def test_the_batched_matmul_equals_one_call_per_tile():
    """``batched`` of the bf16 GEMM model over a stack of tiles (its A and B in the element order
    ``batched_layout`` gives) gives each tile's per-call result
    bitwise (NaN, infinities and ties included), call after call, and the zero model's batched
    form zeroes."""
    model = kernel_models.model_for("matmul_bf16_bf16", {"DIM_M": 64, "DIM_K": 64, "DIM_N": 32}, "aie2p")
    rng = np.random.default_rng(7)
    tiles = 256  # a float32 rounding difference shows in about one bf16 output in 16k
    vals = rng.standard_normal((3, tiles, 64 * 64)).astype(np.float32) * 50
    vals[0, 0, :5] = [np.nan, np.inf, -np.inf, 3.0e38, 1.00390625]
    bits = (vals.view(np.uint32) >> 16).astype(np.uint16)
    a = bits[0].reshape(tiles, 64, 64)
    b = bits[1][:, : 64 * 32].reshape(tiles, 64, 32)
    c = bits[2][:, : 64 * 32].reshape(tiles, 64, 32).copy()
    want = c.copy()
    for i in range(tiles):
        model(a[i].copy(), b[i].copy(), want[i])
    order = model.batched_layout(a[0], b[0], c[0])  # A and B are handed in this element order
    untiled_a, untiled_b = a.reshape(tiles, -1)[:, order[0]], b.reshape(tiles, -1)[:, order[1]]
    for _ in range(2):  # twice: nothing the first call leaves behind changes the second
        got = c.copy()
        model.batched(untiled_a.copy(), untiled_b.copy(), got)
        assert got.tobytes() == want.tobytes()
    c = got
    zero = kernel_models.model_for("zero_bf16", {"DIM_M": 64, "DIM_N": 32}, "aie2p")
    zero.batched(c)
    assert not c.any()


def test_what_cannot_be_compiled_is_replayed_op_by_op_with_its_reason(cache):
    """A converting move, overlapping kernel arguments and buffers past the compiler's limit are
    refused with their reasons; a warm
    runner whose recording holds such an op replays it op by op and says why, still right."""
    assert "converts" in compiled.compile_ops([dataflow.Copy(np.zeros(4, np.uint16), np.zeros(4, np.uint8))])
    x = np.zeros(16, np.uint16)
    assert "overlapping" in compiled.compile_ops([dataflow.Call(_sum_into, [x[:8], x[4:12]])])
    big = [np.zeros(compiled.MAX_BYTES // 2 + 8, np.uint8) for _ in range(2)]
    assert "MiB" in compiled.compile_ops([dataflow.Copy(big[0], big[1])])  # too large to follow

    op = CASES["gemm_bf16_1x1"]()
    art = build(op, cache_dir=cache, target="npu2")
    fast, slow = art.load("sim"), art.load("sim")
    slow.backend.replay.enabled = False
    scratch = np.zeros(8, np.uint16)
    for seed in range(5):
        named = testing.example_inputs(as_sequence(op), seed)
        got, want = _call(fast, op, named), _call(slow, op, named)
        assert [g.tobytes() for g in got] == [w.tobytes() for w in want]
        rec = fast.backend.replay.ready
        if rec is not None and rec.program is None and rec.compile_why is None:
            rec.ops.append(dataflow.Copy(scratch, np.ones(8, np.uint8)))  # compiled at the next replay
    assert fast.backend.replay.replayed
    assert rec.program is None and "converts uint8 to uint16" in rec.compile_why
    assert scratch.tolist() == [1] * 8  # the op-by-op replay ran it


def test_replay_falls_back_when_asked():
    """``replay(compiled=False)`` runs the ops one by one and compiles nothing."""
    dst = np.zeros(4, np.uint16)
    rec = replay.Recording(key=(), start=None, ops=[dataflow.Copy(dst, np.arange(4, dtype=np.uint16))])
    dev = types.SimpleNamespace(flushed=[], kernel_calls=[], log=[], calls={})
    replay.replay(dev, rec, compiled=False)
    assert rec.program is None and rec.compile_why is None and dst.tolist() == [0, 1, 2, 3]
    dst[:] = 0
    replay.replay(dev, rec)
    assert rec.program is not None and dst.tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize("symbol", ["eltwise_add_bf16_vector", "eltwise_mul_bf16_vector_size"])
def test_the_batched_elementwise_models_equal_one_call_per_row(symbol):
    """``batched`` of the bf16 add / mul models over a stack of operands gives each row's per-call
    result bitwise (overflow to infinity, NaN included); a sized call leaves C's tail alone."""
    model = kernel_models.model_for(symbol, {}, "aie2p")
    rng = np.random.default_rng(3)
    vals = rng.standard_normal((3, 16, 1024)).astype(np.float32) * 1e20
    vals[0, 0, :3] = [np.nan, np.inf, 3.0e38]
    a, b, c = (vals.view(np.uint32) >> 16).astype(np.uint16)
    size = (1000,) if symbol.endswith("_size") else ()
    want = c.copy()
    for i in range(16):
        model(a[i], b[i], want[i], *size)
    model.batched(a, b, c, *size)
    assert c.tobytes() == want.tobytes()


def test_the_batched_integer_matmul_equals_one_call_per_tile():
    """The i16 GEMM model's ``batched`` form gives each tile's per-call result bitwise, extreme
    operands included (int16 minimum squared, C at int32's maximum: the sum wraps)."""
    model = kernel_models.model_for("matmul_i16_i32", {"DIM_M": 64, "DIM_K": 64, "DIM_N": 32}, "aie2p")
    rng = np.random.default_rng(1)
    a = rng.integers(-(1 << 15), 1 << 15, (64, 64, 64)).astype(np.int16)
    b = rng.integers(-(1 << 15), 1 << 15, (64, 64, 32)).astype(np.int16)
    c = rng.integers(-(1 << 31), 1 << 31, (64, 64, 32)).astype(np.int32)
    a[0], b[0], c[0] = -(1 << 15), -(1 << 15), (1 << 31) - 1
    want = c.copy()
    for i in range(64):
        model(a[i], b[i], want[i])
    order = model.batched_layout(a[0], b[0], c[0])
    model.batched(a.reshape(64, -1)[:, order[0]].copy(), b.reshape(64, -1)[:, order[1]].copy(), c)
    assert c.tobytes() == want.tobytes()
