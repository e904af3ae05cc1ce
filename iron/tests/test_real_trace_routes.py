"""Which trace units can reach a shim, against the real mlir-aie a9e39fae router.

Issue 33: the real router (``--aie-create-pathfinder-flows``) found no legal routing for
the trace packet flow iron gave the traced whole_array matmul (core (0, 2) -> shim (0, 0)
DMA 1). The cause is the array, not iron's shim, channel or packet id: on ``npu1_2col`` the
design's 8 output FIFOs (one per core, down to the memtiles) take all 2 x 4 South master
ports of row 2 (mlir-aie ``AIETargetModel.cpp``), so no packet from a core can get below
row 2, whichever shim drains it. Upstream's own trace path on the same design
(``aie.trace`` + ``-aie-insert-trace-flows``, also with ``lateral-routing=true``) fails the
same way for any core and routes a memtile; upstream's whole_array example accepts
``--trace_size`` and ignores it (``whole_array.py`` and its ``_placed``/``_iron``
variants since 04578ed01), so upstream has no traced whole_array design of its own.

iron now leaves out units that cannot leave (:mod:`iron.instrument.routes`, a cut bound)
and traces the memtiles when no core can. Expected values here are the real router's.
"""

from __future__ import annotations

import warnings

import pytest

import iron
from iron.errors import IronError
from iron.instrument import routes
from iron.mlir.reader import parse
from iron.operators import GEMM
from iron.tests import real_mlir_aie as real
from iron.tests.designs import DESIGNS, text

PASSES = ("--aie-objectFifo-stateful-transform=dynamic-objFifos=false", "--aie-create-pathfinder-flows")
ROWS = {"core(0,2)": ("core", 0, 2), "core(0,5)": ("core", 0, 5), "memtile(0,1)": ("memtile", 0, 1)}


def _reduced(circuits: int, source: str, columns: int = 1) -> str:
    """The traced whole_array reduced: ``circuits`` circuit flows from the cores of each
    column down to its memtile, and one trace packet flow from ``source`` to shim DMA 1."""
    _kind, col, row = ROWS[source]
    device = "npu1_1col" if columns == 1 else f"npu1_{columns}col"
    lines = [f"module {{\n  aie.device({device}) {{"]
    lines += [f"    %t{c}_{r} = aie.tile({c}, {r})" for c in range(columns) for r in range(6)]
    lines += [
        f"    aie.flow(%t{c}_{2 + i}, DMA : 0, %t{c}_1, DMA : {i})"
        for c in range(columns)
        for i in range(circuits)
    ]
    lines += [
        "    aie.packet_flow(1) {",
        f"      aie.packet_source<%t{col}_{row}, Trace : 0>",
        "      aie.packet_dest<%t0_0, DMA : 1>",
        "    }",
        "  }\n}",
    ]
    return "\n".join(lines) + "\n"


CASES = [(n, s, c) for c in (1, 2) for n in (3, 4) for s in ROWS]


def test_cut_bound_agrees_with_the_real_router(real_mlir_aie):
    verdicts = {}
    for circuits, source, columns in CASES:
        module = _reduced(circuits, source, columns)
        theirs = real.aie_opt(module, "--aie-create-pathfinder-flows")
        assert theirs.returncode == 0 or "Unable to find a legal routing" in theirs.stderr, theirs.stderr
        mine = routes.why_blocked(parse(module).devices[0], ROWS[source])
        verdicts[(circuits, source, columns)] = (theirs.returncode == 0, mine is None)
    assert all(r == m for r, m in verdicts.values()), verdicts
    # the real router's answers: a full row 2 stops the cores, never the memtile
    assert [k for k, (r, _m) in verdicts.items() if not r] == [
        (4, "core(0,2)", 1),
        (4, "core(0,5)", 1),
        (4, "core(0,2)", 2),
        (4, "core(0,5)", 2),
    ]


def _whole_array(target: str = "npu1"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # older acquire forms are read and translated
        return iron.from_mlir(text(DESIGNS["whole_array_matmul"], target), name="whole_array_matmul")


def _upstream_traced(module: str, tile: str) -> str:
    """``module`` with mlir-aie's declarative trace of ``tile`` (test_insert_trace_flows.mlir's form)."""
    at = module.index("    aie.runtime_sequence")
    module = (
        module[:at]
        + f'    aie.trace @t({tile}) {{\n      aie.trace.event<"INSTR_EVENT_0">\n'
        + "      aie.trace.start broadcast=15\n      aie.trace.stop broadcast=14\n    }\n"
        + module[at:]
    )
    body = module.index("{", module.index("aie.runtime_sequence")) + 1
    config = "\n      aie.trace.host_config {buffer_size = 8192 : i32}\n      aie.trace.start_config @t\n"
    return module[:body] + config + module[body:]


def test_upstreams_own_trace_of_whole_array_cores_is_unroutable(real_mlir_aie, monkeypatch, tmp_path):
    real.prefer(monkeypatch, real_mlir_aie)
    art = iron.build(  # untraced: upstream adds its own trace (the suite may run with IRON_TRACE_SIZE set)
        _whole_array(), target="npu1", trace=False, cache_dir=tmp_path, sources=True, backend="builtin"
    )
    module = art.sources["fused.mlir"]
    device = parse(module).devices[0]
    for tile, place in (
        ("%tile_0_2", ("core", 0, 2)),
        ("%tile_1_5", ("core", 1, 5)),
        ("%tile_0_1", ROWS["memtile(0,1)"]),
    ):
        for flows in ("-aie-insert-trace-flows", "-aie-insert-trace-flows=lateral-routing=true"):
            out = real.aie_opt(_upstream_traced(module, tile), flows, *PASSES)
            routed = out.returncode == 0
            assert routed == (place[0] == "memtile"), (tile, flows, out.stderr[-500:])
            assert routed or "Unable to find a legal routing" in out.stderr
            assert (routes.why_blocked(device, place) is None) == routed, (tile, flows)


@pytest.mark.parametrize(
    "target, columns, cores, traced_kind",
    [("npu1", 4, 4, "memtile"), ("npu2", 8, 4, "memtile"), ("npu1", 1, 3, "core")],
    ids=str,
)
def test_traced_gemm_routes_in_the_real_router(
    real_mlir_aie, monkeypatch, tmp_path, target, columns, cores, traced_kind
):
    # 4 cores per column fill row 2's South ports with output streams (as whole_array does):
    # iron traces the memtile; with 3 the core is still traced
    real.prefer(monkeypatch, real_mlir_aie)
    op = GEMM(64 * cores, 64, 32 * columns, columns=columns, cores_per_column=cores, m=16, k=16, n=16)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        art = iron.build(op, target=target, trace=True, trace_size=8192, cache_dir=tmp_path, sources=True)
    out = real.aie_opt(art.sources["fused.mlir"], *PASSES)
    assert out.returncode == 0, out.stderr[-2000:]
    module = parse(art.sources["fused.mlir"])
    sources = {
        (f.source.bundle, module.devices[0].tile(f.source.tile).row) for f in module.devices[0].packet_flows
    }
    assert sources == {("Trace", 1 if traced_kind == "memtile" else 2)}
    said = [str(w.message) for w in caught if "instead of its cores" in str(w.message)]
    assert bool(said) == (traced_kind == "memtile"), said


def test_named_core_unit_that_cannot_leave_is_refused(tmp_path):
    # which units can leave: test_upstreams_own_trace_of_whole_array_cores_is_unroutable
    with pytest.raises(
        IronError, match=r"no route to a shim: core\(0,3\): .* row 2 to row 1, .* 8 circuit flows"
    ):
        iron.build(
            _whole_array(),
            target="npu1",
            trace=True,
            trace_size=8192,
            trace_units="core(0,3)",
            cache_dir=tmp_path,
        )


def test_memtile_traced_gemm_runs_on_sim_as_untraced(check_operator):
    # 4 cores per column: no core can be traced (the test above), the memtiles are; the
    # traced outputs equal the untraced ones bit for bit and the memtiles' packets decode
    op = GEMM(64, 32, 32, columns=2, cores_per_column=4, m=16, k=16, n=16)
    with pytest.warns(UserWarning, match="tracing its memtile"):
        result = check_operator(op, target="npu1", trace=True)
    (ds,) = result.trace.slices
    assert {(u.unit.kind, u.unit.row) for u in ds.units} == {("memtile", 1)}
    assert sum(u.frames for u in ds.units) > 0
