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
    art = iron.build(seq, trace=True, trace_size=4096, target=target, cache_dir=tmp_path)
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
