"""The upstream design corpus (iron/tests/designs.py, data in iron/tests/data/designs):
each design traced with iron.from_mlir and fused with a built-in operator builds on the
built-in path, runs on sim to completion, decodes with only its own units in its slice,
and the module iron would hand aiecc re-reads with iron's reader (and with mlir-aie's
where ``aie.ir`` is importable). Arguments are checked against the index, read by eye
from each file. Designs the built-in lowering cannot take yet are strict xfails naming
what is missing."""

from __future__ import annotations

import importlib.util
import warnings

import numpy as np
import pytest

import iron
from iron.design import NotModelled
from iron.errors import IronError
from iron.fuse.fusion import fuse
from iron.lower.materialize import materialize
from iron.mlir.printer import print_module
from iron.mlir.reader import parse
from iron.operators import MemCopy
from iron.options import TraceOptions
from iron.tests.designs import DESIGNS, text


def _cases(stage: str) -> list:
    out = []
    for key, e in DESIGNS.items():
        failing = e["xfail"] and (stage == "build" or e.get("aiecc_input_xfail", True))
        marks = [pytest.mark.xfail(strict=True, raises=IronError, reason=e["xfail"])] if failing else []
        out += [pytest.param(key, t, id=f"{key}-{t}", marks=marks) for t in e["targets"]]
    return out


CASES, AIECC_CASES = _cases("build"), _cases("aiecc")


def _op(key, target):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the old acquire form is translated (test_legacy_syntax)
        return iron.from_mlir(text(DESIGNS[key], target), name=key)


def _sequence(op):
    specs = op.arg_spec()
    names = [f"f_{s.name}" for s in specs]
    copy = MemCopy(size=64, dtype="i32", tile_size=32)
    return iron.Sequence(
        "corpus",
        [(op, *names), (copy, "x", "y")],
        [n for n, s in zip(names, specs) if s.reads] + ["x"],
        [n for n, s in zip(names, specs) if s.writes] + ["y"],
    )


def test_corpus_has_at_least_twelve_designs_each_with_its_source():
    from pathlib import Path

    folder = Path(__file__).parent / "data" / "designs"
    sources = (folder / "SOURCES.md").read_text()
    assert len(DESIGNS) >= 12
    for entry in DESIGNS.values():
        assert (folder / entry["file"]).is_file() and f"| {entry['file']} |" in sources
    for path in folder.glob("*.mlir"):
        assert f"| {path.name} |" in sources, path.name


@pytest.mark.parametrize("key,target", CASES)
def test_design_builds_runs_and_decodes_on_sim(key, target, tmp_path):
    op = _op(key, target)
    assert [(s.name, s.direction, s.shape, s.dtype) for s in op.arg_spec()] == DESIGNS[key]["args"]
    seq = _sequence(op)
    size = DESIGNS[key].get("trace_size", 4096)
    events = DESIGNS[key].get("trace_events")  # designs without a compute tile trace their shim
    art = iron.build(seq, trace=True, trace_size=size, target=target, cache_dir=tmp_path, events=events)
    inputs = [np.zeros(s.shape, s.numpy_dtype) for s in op.arg_spec() if s.reads]
    x = np.arange(64, dtype=np.int32)
    with art.load("sim") as run:
        outs = run(*inputs, x)
        slices = run.trace.slices
    np.testing.assert_array_equal((outs if isinstance(outs, tuple) else (outs,))[-1], x)  # MemCopy copies
    assert [(s.slice.operator, s.status) for s in slices] == [(key, "ok"), ("MemCopy", "ok")]
    for ds in slices:
        own = {(u.column, u.row, u.kind) for u in ds.slice.units}
        assert ds.units and sum(u.frames for u in ds.units) > 0, ds.label
        assert all(u.unit is not None and (u.unit.column, u.unit.row, u.unit.kind) in own for u in ds.units)


@pytest.mark.parametrize("key,target", AIECC_CASES)
def test_module_for_aiecc_rereads(key, target):
    """What iron hands aiecc (materialized, in today's syntax) re-reads with iron's reader:
    same devices and sequences, no old acquire form left."""
    fm = fuse(
        _sequence(_op(key, target)),
        target,
        TraceOptions(size=4096),
        "fused" if target == "npu2" else "separate",
    )
    printed = print_module(materialize(fm))
    again = parse(printed, "aiecc-input.mlir")
    assert [d.symbol for d in again.devices] == [d.symbol for d in fm.module.devices]
    assert "objectfifosubview" not in printed and "subview.access" not in printed
    assert print_module(again) == printed  # a fixed point of iron's reader and printer


@pytest.mark.skipif(
    importlib.util.find_spec("aie") is None, reason="mlir-aie's Python bindings (aie.ir) not installed"
)
@pytest.mark.parametrize("key,target", AIECC_CASES)
def test_module_for_aiecc_parses_with_mlir_aie(key, target):
    from aie.ir import Context, Location, Module  # noqa: PLC0415

    fm = fuse(
        _sequence(_op(key, target)),
        target,
        TraceOptions(size=4096),
        "fused" if target == "npu2" else "separate",
    )
    with Context(), Location.unknown():
        Module.parse(print_module(materialize(fm)))


#: Corpus designs with a reference whose outputs sim cannot compute yet, with the reason.
#: The test below fails when one of them starts computing, so the list stays true.
NOT_MODELLED: dict[str, str] = {}

#: (low, high) per input argument of the seeded random host data (numpy ``integers``,
#: high exclusive). vector_scalar_mul/test.cpp (Xilinx/mlir-aie@0a7b57ec) fills the
#: vector with ``i + 1`` (1..N) and the factor with 3: drawn here from 1..N and 1..15.
#: Designs not listed draw the whole range of each argument's dtype (the integer kernels
#: and the references wrap alike, so equality stays exact).
_SCALE = {"vector_scalar_mul": 12288, "event_trace": 4096, "vector_scalar_mul_i16": 4096}
INPUT_RANGES: dict[str, list[tuple[int, int]]] = {k: [(1, n + 1), (1, 16)] for k, n in _SCALE.items()}
#: remsi by 0 is undefined: divisors drawn without 0 (negative ones kept: the sign rule is tested).
INPUT_RANGES["vector_vector_mod"] = [(-(2**31), 2**31), (1, 2**31)]
#: The whole-array GEMM sums 896 products: inputs small enough that no int32 sum overflows
#: (the design is tested for its data movement and blocking, not the accumulator's wrap).
INPUT_RANGES["whole_array_matmul"] = [(-128, 128), (-128, 128)]


def _executed_cases() -> list:
    return [
        pytest.param(key, t, id=f"{key}-{t}")
        for key, e in DESIGNS.items()
        if e["reference"] is not None and not e["xfail"]
        for t in e["targets"]
    ]


def _inputs(key: str, op) -> list[np.ndarray]:
    if "inputs" in DESIGNS[key]:  # the example's own test fixes its host data
        return DESIGNS[key]["inputs"]()
    rng = np.random.default_rng(20261201)
    specs = [s for s in op.arg_spec() if s.reads]
    full = [(int(np.iinfo(s.numpy_dtype).min), int(np.iinfo(s.numpy_dtype).max) + 1) for s in specs]
    ranges = INPUT_RANGES.get(key, full)
    return [
        rng.integers(lo, hi, s.shape, dtype=np.int64).astype(s.numpy_dtype)
        for s, (lo, hi) in zip(specs, ranges)
    ]


@pytest.mark.parametrize("key,target", _executed_cases())
def test_design_computes_its_reference_on_sim(key, target, tmp_path):
    """Each corpus design with a known computation, run alone on sim with the defines its
    upstream Makefile compiles its objects with, writes exactly the reference's outputs
    (integer designs: equal). Nothing here passes ``reference=``: the cores' kernel calls
    run iron's models of the upstream kernels."""
    e = DESIGNS[key]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        op = iron.from_mlir(text(e, target), name=key, kernel_defines=e.get("kernel_defines"))
    assert not op.has_reference
    art = iron.build(op, target=target, cache_dir=tmp_path)
    inputs = _inputs(key, op)
    with art.load("sim") as run:
        outs = run(*inputs)
    outs = outs if isinstance(outs, tuple) else (outs,)
    if key in NOT_MODELLED:
        assert all(isinstance(o, NotModelled) for o in outs), f"{key} computes now: drop it from NOT_MODELLED"
        return
    assert not any(isinstance(o, NotModelled) for o in outs), [
        o.reason for o in outs if isinstance(o, NotModelled)
    ]
    expected = e["reference"](*inputs)
    assert len(outs) == len(expected)
    checked = e["verify_mask"](*inputs) if "verify_mask" in e else Ellipsis  # what the upstream test checks
    for got, want in zip(outs, expected):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got[checked], want[checked])


@pytest.mark.filterwarnings("ignore::iron.mlir.legacy.LegacySyntaxWarning")
def test_kernel_defines_reach_sim_through_the_payload_and_unknown_objects_are_refused(tmp_path):
    from iron.artifact.pdi import payload_for
    from iron.operators.foreign import ForeignDesignError

    e = DESIGNS["passthrough_kernel"]
    op = iron.from_mlir(text(e, "npu1"), name="pt", kernel_defines={"passThrough.cc.o": {"BIT_WIDTH": 8}})
    payload = payload_for("op0_pt", op.design("npu1"))
    assert payload.kernels == [["passThrough.cc.o", "", "aie2", [["BIT_WIDTH", "8"]]]]
    bare = iron.from_mlir(text(e, "npu1"), name="pt")
    assert bare.digest != op.digest  # another build: the cache must not hand back the other's
    with pytest.raises(
        ForeignDesignError, match=r"kernel_defines names 'pass\.o'.*it links: passThrough\.cc\.o"
    ):
        iron.from_mlir(text(e, "npu1"), kernel_defines={"pass.o": {"BIT_WIDTH": "8"}})
    with pytest.raises(ForeignDesignError, match="expected a dict of define name -> value"):
        iron.from_mlir(text(e, "npu1"), kernel_defines={"passThrough.cc.o": ["BIT_WIDTH=8"]})


def test_scale_vector_entries_leave_the_last_partial_vector_untouched():
    """scale.cc@6c69e171 ``scale_vectorized``: ``F = N / 32`` whole vectors of 32; the
    scalar entry writes all N."""
    from iron.runtime.sim.kernel_models import model_for

    a = np.arange(1, 41, dtype=np.int16)
    for symbol, written in (("vector_scalar_mul_int16_vector", 32), ("vector_scalar_mul_int16_scalar", 40)):
        c = np.full(40, -1, np.int16)
        model_for(symbol, {}, "aie2")(a, c, np.array([3], np.int32), 40)
        np.testing.assert_array_equal(c[:written], a[:written] * 3)
        assert (c[written:] == -1).all()


def test_matvec_vectorized_reads_the_word_transposed_matrix():
    """mv.cc@15707c4f ``matvec_vectorized``: A stored in 4-byte words transposed: the word
    holding A[r, 2q], A[r, 2q + 1] sits at word q * M + r. Built here by hand, element by
    element, for M = 32, K = 16."""
    from iron.runtime.sim.kernel_models import KernelModelError, model_for

    rng = np.random.default_rng(7)
    m, k = 32, 16
    A = rng.integers(-300, 300, (m, k)).astype(np.int16)
    b = rng.integers(-300, 300, k).astype(np.int16)
    stored = np.zeros(m * k, np.int16)
    for r in range(m):
        for col in range(k):
            stored[((col // 2) * m + r) * 2 + col % 2] = A[r, col]
    c = np.arange(m, dtype=np.int32)
    model_for("matvec_vectorized_i16_i32", {"DIM_M": "32", "DIM_K": "16"}, "aie2")(stored, b, c)
    np.testing.assert_array_equal(c, np.arange(m) + A.astype(np.int64) @ b.astype(np.int64))
    with pytest.raises(KernelModelError, match="DIM_M % 16 == 0"):
        model_for("matvec_vectorized_i16_i32", {"DIM_M": "24"}, "aie2")
