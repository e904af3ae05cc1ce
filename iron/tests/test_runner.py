"""Runner API on sim: input checks, outputs, trace/capture, device choice, sub-buffer binding.

Trace settings are explicit arguments, never the environment.
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
from iron.errors import IronError
from iron.operators import ElementwiseAdd, ElementwiseMul, from_payload
from iron.bf16 import from_bf16
from iron.runtime import runner
from iron.runtime.runner import RunError
from iron.runtime.sim import SimError

N = 2048
ADD = ElementwiseAdd(N, "i32")
MUL = ElementwiseMul(N, "i32")
PAIR = Sequence("pair", [(ADD, "x", "y", "s"), (MUL, "s", "y", "w")], ["x", "y"], ["s", "w"])


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="module")
def add_run(cache):
    return build(ADD, trace=False, cache_dir=cache).load("sim")


def test_single_output_is_an_array_and_matches_reference(add_run):
    a, b = ADD.example_inputs(3)
    c = add_run(a, b)
    assert isinstance(c, np.ndarray) and c.dtype == np.int32 and c.shape == (N,)
    assert np.array_equal(c, a + b)
    assert np.array_equal(add_run(a=a, b=b), c)
    assert add_run.trace is None and add_run.capture is None


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        ((np.zeros(N, np.int32),), {}, r"takes 2 input\(s\) \(a, b\); got 1"),
        ((np.zeros(N, np.float32), np.zeros(N, np.int32)), {}, r"input 'a' must be int32 .*got float32"),
        (
            (np.zeros((2, N // 2), np.int32), np.zeros(N, np.int32)),
            {},
            r"input 'a' must have shape \(2048,\)",
        ),
        ((), {"a": np.zeros(N, np.int32), "z": np.zeros(N, np.int32)}, r"unknown: z; missing: b"),
        ((np.zeros(N, np.int32),), {"b": np.zeros(N, np.int32)}, r"either positionally or by name"),
    ],
)
def test_bad_inputs_are_clear_errors(add_run, args, kwargs, message):
    with pytest.raises(RunError, match=message):
        add_run(*args, **kwargs)


def test_bf16_inputs_are_uint16_bit_patterns(cache):
    op = ElementwiseAdd(N, "bf16")
    run = build(op, trace=False, cache_dir=cache).load("sim")
    a, b = op.example_inputs(0)
    with pytest.raises(RunError, match=r"bf16 is passed as uint16 bit patterns"):
        run(from_bf16(a), b)
    c = run(a, b)
    assert c.dtype == np.uint16 and testing.same_bits(c, op.reference(a, b)[0])


def test_sequence_outputs_in_artifact_order(cache):
    run = build(PAIR, trace=False, cache_dir=cache).load("sim")
    x, y = ADD.example_inputs(1)
    s, w = run(x=x, y=y)
    assert np.array_equal(s, x + y) and np.array_equal(w, (x + y) * y)


def test_auto_picks_sim_for_builtin_artifacts_and_says_so_once(cache, capsys):
    art = build(ADD, trace=False, cache_dir=cache)
    assert runner.choose_device(art)[0] == "sim"
    runner._announced.clear()
    assert art.load().device == "sim"
    art.load()
    err = capsys.readouterr().err
    assert err.count("running ElementwiseAdd on sim") == 1 and "built-in lowering" in err


def test_unknown_device_is_an_error(cache):
    with pytest.raises(RunError, match=r"device='gpu'; accepted: auto, sim, xrt"):
        build(ADD, trace=False, cache_dir=cache).load("gpu")


def test_separate_dispatch_binds_trace_slices_as_sub_buffers(cache):
    """Separate kernels get windows of one host trace buffer: the capture equals the fused one."""
    fused = build(PAIR, trace=True, trace_size=4096, ntiles=1, dispatch="fused", cache_dir=cache)
    sep = build(PAIR, trace=True, trace_size=4096, ntiles=1, dispatch="separate", cache_dir=cache)
    trace_args = [(a.offset, a.type.nbytes) for d in sep.schedule for a in d.args if a.buffer == "trace"]
    assert trace_args == [(0, 4096), (4096, 4096)]
    x, y = ADD.example_inputs(0)
    rf, rs = fused.load("sim"), sep.load("sim")
    assert testing.same_bits(rf(x, y)[1], rs(x, y)[1])
    assert [s.status for s in rs.trace.slices] == ["ok", "ok"]
    assert np.array_equal(rf.raw_trace, rs.raw_trace)


def test_check_operator_fixture_follows_the_environment(check_operator, cache):
    result = check_operator(PAIR, cache_dir=cache)
    assert testing.same_bits(result.outputs[1], testing.reference(PAIR, testing.example_inputs(PAIR))[1])


def test_check_operator_traced_writes_perfetto_and_summary(request, monkeypatch, tmp_path, cache):
    monkeypatch.setenv("IRON_TRACE_SIZE", "4096")
    monkeypatch.setenv("IRON_TRACE_NTILES", "1")
    monkeypatch.setenv("IRON_TRACE_DIR", str(tmp_path))
    for var in ("IRON_TRACE_EVENTS", "IRON_TRACE_OP"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(testing, "SUITE_ENV", {})  # a traced suite's IRON_TRACE_OP (conftest.py)
    result = testing.check_operator(PAIR, request=request, cache_dir=cache)
    assert result.trace_dir == tmp_path / testing.slug(request.node.nodeid)
    assert (result.trace_dir / "trace.pftrace").stat().st_size > 0
    assert "slice 1:ElementwiseMul#0: status ok" in (result.trace_dir / "summary.txt").read_text()
    assert all(testing.same_bits(a, b) for a, b in zip(result.outputs, result.traced_outputs))


def test_check_slices_rejects_a_stale_trace(cache):
    seq = Sequence("twice", [(MUL, "x", "y", "s"), (MUL, "s", "y", "w")], ["x", "y"], ["w"])
    run = build_with_bug(
        "stale-trace-task", seq, trace=True, trace_size=4096, ntiles=1, cache_dir=cache
    ).load("sim")
    run(*MUL.example_inputs(0))
    with pytest.raises(testing.CheckError, match=r"slice 1:ElementwiseMul#1: status empty"):
        testing.check_slices(run.trace)


def test_check_operator_warns_on_a_slice_that_filled_and_passes(request, monkeypatch, tmp_path, cache):
    """A slice that filled (``full``) is what a size too small for the run gives: the check
    passes with a TraceFullWarning (iron.trace.decode.diagnostics.STATUSES says so once);
    ``empty`` still fails it (test above)."""
    monkeypatch.setattr(testing, "SUITE_ENV", {"IRON_TRACE_NTILES": "1"})
    monkeypatch.setenv("IRON_TRACE_SIZE", "32")  # one packet: any run fills it
    monkeypatch.setenv("IRON_TRACE_DIR", str(tmp_path))
    with pytest.warns(testing.TraceFullWarning, match=r"slice 0:ElementwiseAdd#0 filled its 32 bytes"):
        result = testing.check_operator(ADD, request=request, cache_dir=cache)
    assert [s.status for s in result.trace.slices] == ["full"]


def test_operator_checks_take_the_suites_trace_options_and_other_tests_do_not(monkeypatch):
    """conftest.py sets the traced suite's shaping options (all but IRON_TRACE_SIZE and
    IRON_TRACE_DIR) aside for the operator checks: a test building with its own trace size
    never inherits IRON_TRACE_NTILES=4 (the whole-array GEMM corpus test's 4096 bytes filled)."""
    from iron.tests.conftest import CHECK_ONLY_TRACE_ENV

    assert {"IRON_TRACE_NTILES", "IRON_TRACE_OP", "IRON_TRACE_MODE", "IRON_TRACE_SIZES"} <= set(
        CHECK_ONLY_TRACE_ENV
    )
    assert not set(CHECK_ONLY_TRACE_ENV) & set(os.environ)
    monkeypatch.setattr(testing, "SUITE_ENV", {"IRON_TRACE_NTILES": "2", "IRON_TRACE_MODE": "event-pc"})
    monkeypatch.setenv("IRON_TRACE_SIZE", "4096")
    options, select = testing._trace_choice(PAIR, None)
    assert (options.ntiles, options.core_mode, select) == (2, "event-pc", [0, 1])


# --------------------------------------------------------------------------- the runtime reads the artifact only
def test_sim_runs_without_operators(cache):
    """The runtime imports no operator, and sim needs none: it executes the design the PDI
    payload carries (the operator resolver is optional)."""
    art = build(ADD, trace=False, cache_dir=cache)
    a, b = ADD.example_inputs(0)
    assert np.array_equal(runner.load(art, "sim")(a, b), a + b)  # no operators=
    assert np.array_equal(runner.load(art, "sim", operators=from_payload)(a, b), a + b)


def test_payload_names_an_operator_this_iron_lacks():
    with pytest.raises(IronError, match=r"operator 'NoSuchOp'; this iron has: .*ElementwiseAdd"):
        from_payload("NoSuchOp", {})


def test_loading_and_running_imports_no_build_side_module(cache):
    """A fresh process opens and runs a built artifact: the contract and the runtime load, the
    operator library because iron.load hands it to sim, and no fusion, lowering printer or back
    end comes with them. (iron.instrument.codegen still does, through the operators' own known
    debt ``iron.operators._dataflow -> iron.instrument.codegen``.)"""
    art = build(ADD, trace=True, trace_size=4096, cache_dir=cache)
    code = (
        "import sys, numpy as np\n"
        "from iron.artifact.schema import Artifact\n"
        f"art = Artifact.open({str(art.path)!r})\n"
        "a = np.arange(2048, dtype=np.int32)\n"
        # until the kernels branch supplies the eltwise_add model, this process brings its own
        "from iron.runtime.sim import kernel_models\n"
        "def add(x, y, z, n): z[:n] = x[:n] + y[:n]\n"
        "kernel_models.model_for = lambda s, d, arch: add if s.startswith('eltwise_add') else None\n"
        "assert (art.load('sim')(a, a) == 2 * a).all()\n"
        "print('\\n'.join(sorted(sys.modules)))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    loaded = [m for m in out.stdout.split() if m.startswith("iron.")]
    forbidden = ["iron.fuse", "iron.builder.build", "iron.builder.aiecc"]
    # (iron.mlir.printer comes with iron.mlir.reader, which sim uses to re-read the PDI's device)
    forbidden += ["iron.builder.sections", "iron.builder.cache"]
    assert not [m for m in loaded if any(m == f or m.startswith(f + ".") for f in forbidden)], loaded
