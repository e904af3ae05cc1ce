"""Op syntax per mlir-aie era (iron/target/mlir_eras.py): the printer spells each changed form
the way the era it is handed reads it, and iron asks the installed aie-opt which era that is.

Expected texts come from upstream, never from iron: today's acquire from Xilinx/mlir-aie
``test/parse-trace/test1/aie_test1.mlir`` @d44ca3e0 (iron/tests/data/upstream, SOURCES.md
there), the older one from a9e39fae's
``test/objectFifo-stateful-transform/access_patterns/AIE2_delayed_release.mlir``
(andrej/mlir-aie a9e39faeb1447025b504ac10a28098fcdd467255)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from iron.builder import toolchain
from iron.mlir import body, ir, legacy
from iron.mlir.printer import print_module
from iron.mlir.reader import parse
from iron.mlir.spelling import SpellingError, respell
from iron.target.mlir_eras import A9E39FAE, CHANGES, TODAY, Era

UPSTREAM = Path(__file__).parent / "data" / "upstream"

#: a9e39fae test/objectFifo-stateful-transform/access_patterns/AIE2_delayed_release.mlir, lines
#: 56-57 of the file (the producer core's acquire and access, spaces as written there).
A9E39FAE_ACQUIRE = (
    "%subview = aie.objectfifo.acquire @fifo (Produce, 1) : !aie.objectfifosubview<memref<i32>>",
    "%subview_obj = aie.objectfifo.subview.access %subview[0] : !aie.objectfifosubview<memref<i32>> -> memref<i32>",
)


def _squash(line: str) -> str:
    """A line without its SSA names and blanks (spelling only)."""
    return re.sub(r"\s+", "", re.sub(r"%[A-Za-z0-9_$.\-]+", "%_", line))


def _module_with_core() -> ir.Module:
    dev = ir.Device("npu1_1col")
    t2, t3 = ir.Tile("tile_0_2", 0, 2), ir.Tile("tile_0_3", 0, 3)
    core = ir.Core(
        "core_0_3",
        "tile_0_3",
        [
            body.acquire("fifo_obj", "fifo", "Produce", "memref<i32>"),
            body.release("fifo", "Produce"),
            ir.Opaque("aie.end"),
        ],
    )
    dev.body = [t2, t3, ir.ObjectFifo("fifo", "tile_0_2", ["tile_0_3"], 2, "memref<i32>"), core]
    return ir.Module([dev])


def test_today_prints_upstreams_acquire_and_no_era_changes_nothing():
    text = print_module(_module_with_core())
    line = next(ln.strip() for ln in text.splitlines() if "objectfifo.acquire" in ln)
    # aie_test1.mlir @d44ca3e0 writes `%0 = aie.objectfifo.acquire @in(Consume, 1) : memref<...>`
    upstream = next(
        ln.strip()
        for ln in (UPSTREAM / "aie_test1.mlir").read_text().splitlines()
        if "objectfifo.acquire @" in ln
    )
    assert re.sub(r"@\w+|memref<[^>]*>|Consume|Produce", "X", _squash(line)) == re.sub(
        r"@\w+|memref<[^>]*>|Consume|Produce", "X", _squash(upstream)
    )
    assert print_module(_module_with_core(), TODAY) == text and "subview" not in text


def test_a9e39fae_era_prints_the_subview_acquire_as_its_lit_tests_write_it():
    text = print_module(_module_with_core(), A9E39FAE)
    lines = [ln.strip() for ln in text.splitlines() if "objectfifo.acquire" in ln or "subview.access" in ln]
    assert [_squash(ln) for ln in lines] == [
        _squash(ln.replace("fifo (", "fifo(")) for ln in A9E39FAE_ACQUIRE
    ]
    assert "%fifo_obj = aie.objectfifo.subview.access" in text  # the body's name is the element's
    today, notes = legacy.translate(text)  # iron reads the older spelling back to the same core
    again = [ln for ln in print_module(parse(today)).splitlines() if ln.strip()]  # the access left a blank
    assert len(notes) == 1 and again == print_module(_module_with_core()).splitlines()


def test_several_elements_each_get_an_access_and_fresh_names_never_clash():
    text = "\n".join(
        [
            "%subview_a = arith.constant 0 : index",
            "  %a, %b = aie.objectfifo.acquire @of(Consume, 2) : memref<4x4xi32, strided<[4, 1]>>, "
            "memref<4x4xi32, strided<[4, 1]>>  // two",
        ]
    )
    out = respell(text, A9E39FAE).splitlines()
    sub = "!aie.objectfifosubview<memref<4x4xi32, strided<[4, 1]>>>"
    assert out[1:] == [
        f"  %subview_a_1 = aie.objectfifo.acquire @of(Consume, 2) : {sub} // two",
        f"  %a = aie.objectfifo.subview.access %subview_a_1[0] : {sub} -> memref<4x4xi32, strided<[4, 1]>>",
        f"  %b = aie.objectfifo.subview.access %subview_a_1[1] : {sub} -> memref<4x4xi32, strided<[4, 1]>>",
    ]
    assert respell(text, TODAY) == text


def test_an_acquire_the_older_form_cannot_spell_is_refused():
    with pytest.raises(SpellingError, match="line 1: .*one named result per element"):
        respell("%g:2 = aie.objectfifo.acquire @of(Consume, 2) : memref<4xi32>, memref<4xi32>", A9E39FAE)
    with pytest.raises(ValueError, match="unknown form"):
        Era(frozenset({"aie.nothing"}))


# --------------------------------------------------------------------------- detection
#: An aie-opt that reads a module unless it holds a memref-typed acquire (as a9e39fae's does),
#: or, with ``--neither`` in its own file, any acquire.
FAKE_OLD_AIE_OPT = """#!{python}
import re, sys
text = open(sys.argv[-1]).read()
neither = {neither}
for n, line in enumerate(text.splitlines(), 1):
    if re.search(r"objectfifo\\.acquire .*: memref<", line) or (neither and "acquire" in line):
        print(f"{{sys.argv[-1]}}:{{n}}:12: error: 'aie.objectfifo.acquire' op result #0 must be", file=sys.stderr)
        sys.exit(1)
"""


def _fake_opt(tmp_path, monkeypatch, neither: bool = False) -> Path:
    bindir = tmp_path / "install" / "bin"
    bindir.mkdir(parents=True)
    opt = bindir / "aie-opt"
    opt.write_text(FAKE_OLD_AIE_OPT.format(python=sys.executable, neither=neither))
    opt.chmod(0o755)
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setenv("MLIR_AIE_INSTALL_DIR", str(tmp_path / "install"))
    return opt


def test_no_install_means_todays_forms(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("MLIR_AIE_INSTALL_DIR", raising=False)
    assert toolchain.aie_opt() is None and toolchain.era() is TODAY


def test_an_install_that_reads_only_the_subview_acquire_gets_it_once_per_identity(tmp_path, monkeypatch):
    opt = _fake_opt(tmp_path, monkeypatch)
    assert toolchain.aie_opt() == str(opt)
    assert toolchain.era() == A9E39FAE and toolchain.era().uses_old("objectfifo.acquire")
    toolchain.check_grammar()  # SSA npu ops are read: the install is accepted
    opt.write_text("#!/bin/sh\nexit 0\n")  # a new build at the same path reads today's forms
    assert toolchain.era() == TODAY


def test_an_install_that_reads_neither_spelling_is_one_clear_error(tmp_path, monkeypatch):
    _fake_opt(tmp_path, monkeypatch, neither=True)
    with pytest.raises(toolchain.ToolchainError, match=r"reads neither spelling of objectfifo.acquire"):
        toolchain.era()


def test_the_real_a9e39fae_install_reads_the_older_acquire_and_passes_the_grammar_probe(
    real_mlir_aie, monkeypatch
):
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setenv("MLIR_AIE_INSTALL_DIR", str(real_mlir_aie.root))
    assert toolchain.era() == A9E39FAE
    toolchain.check_grammar()
    change = CHANGES["objectfifo.acquire"]
    assert "result #0 must be" in toolchain._grammar(
        real_mlir_aie.aie_opt, toolchain._stamp(real_mlir_aie.aie_opt), change.probe_new
    )


def test_the_era_a_build_prints_is_in_its_cache_key_and_sources(tmp_path, monkeypatch):
    """A built-in build with sources prints the detected era (here made to answer a9e39fae's):
    its key differs from today's build, and without sources the era is not asked at all."""
    from iron import build
    from iron.operators import ReLU

    op = ReLU(2048, tile_size=32)
    today = build(op, target="npu2", cache_dir=tmp_path, sources=True)
    monkeypatch.setattr(toolchain, "era", lambda exe="aiecc": A9E39FAE)
    old = build(op, target="npu2", cache_dir=tmp_path, sources=True)
    assert old.path != today.path and old.key != today.key
    assert (
        "subview.access" in old.sources["fused.mlir"]
        and "objectfifosubview" not in today.sources["fused.mlir"]
    )
    monkeypatch.setattr(toolchain, "era", lambda exe="aiecc": pytest.fail("era asked without sources"))
    assert build(op, target="npu2", cache_dir=tmp_path).sources == {}


def test_iron_trace_wire_prints_what_the_installed_mlir_aie_reads(tmp_path, monkeypatch):
    """``iron trace wire``'s output goes to the user's aiecc: printed in its install's era."""
    from iron import cli
    from iron.tests.test_trace_wire import _chunks

    src = tmp_path / "fused.mlir"
    src.write_text(_chunks("trace_slices_configure_run_aie.mlir")[0])  # its cores acquire (upstream)
    assert "aie.objectfifo.acquire" in src.read_text()
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("MLIR_AIE_INSTALL_DIR", raising=False)
    assert cli.main(["trace", "wire", str(src), "-o", str(tmp_path / "today.mlir")]) == 0
    _fake_opt(tmp_path, monkeypatch)
    assert cli.main(["trace", "wire", str(src), "-o", str(tmp_path / "old.mlir")]) == 0
    today, old = (tmp_path / "today.mlir").read_text(), (tmp_path / "old.mlir").read_text()
    assert "objectfifosubview" not in today and "aie.objectfifo.subview.access" in old
    assert respell(today, A9E39FAE) == old
