"""Every module iron prints verifies in a real mlir-aie, as iron prints it (issue 33).

The real compiler is the a9e39fae install (``iron/tests/real_mlir_aie.py``; the tests skip with
the reason where there is none). iron asks that install which era it reads
(:func:`iron.builder.toolchain.era`) and prints the texts a build with ``sources=True`` carries
(:func:`iron.builder.sections.source_texts`: ``fused.mlir``, one per design, ``aiecc.mlir``),
which the real ``aie-opt`` must then parse and verify, untouched by the test: every built-in
operator on npu1 and npu2, traced and untraced, in several shapes; fused sequences; every
corpus design (``iron/tests/designs.py``) through ``iron.from_mlir``, traced and fused with a
built-in operator. All modules go to aie-opt in one run (``--split-input-file``).
"""

from __future__ import annotations

import functools
import warnings
from pathlib import Path

import pytest

import iron
from iron.builder import sections, toolchain
from iron.builder.build import printed_era
from iron.fuse.fusion import Sequence, fuse
from iron.mlir.printer import print_module
from iron.operators import GEMM, MemCopy, ReLU
from iron.operators.binary import ElementwiseAdd
from iron.options import TraceOptions
from iron.target.mlir_eras import A9E39FAE, TODAY
from iron.tests import real_mlir_aie
from iron.tests.designs import DESIGNS
from iron.tests.test_design_corpus import _op as corpus_op, _sequence as corpus_sequence
from iron.tests.test_operators import _ops

DATA = Path(__file__).parent / "data"
TRACED = TraceOptions(size=8192)
#: (target, columns, cores per column, traced) per built-in operator: several shapes on each
#: target, the widest of each target traced only.
SHAPES = [(t, 1, 1, tr) for t in ("npu1", "npu2") for tr in (False, True)]
SHAPES += [(t, 2, 2, tr) for t in ("npu1", "npu2") for tr in (False, True)]
SHAPES += [("npu1", 4, 4, True), ("npu2", 8, 1, True)]
OPERATOR_CASES = [
    (type(op).__name__, target, c, k, traced)
    for target, c, k, traced in SHAPES
    for op in _ops(c, k)
    if not (target == "npu1" and c > 4)
]


def _sequences() -> dict[str, Sequence]:
    """Fused sequences: several operators, one operator repeated, operators of equal arg counts."""
    add, relu, copy = (
        ElementwiseAdd(2048, tile_size=32),
        ReLU(2048, tile_size=32),
        MemCopy(2048, tile_size=32),
    )
    gemm = GEMM(32, 32, 32, m=16, k=16, n=16)
    return {
        "chain": Sequence("chain", [(add, "a", "b", "t"), (relu, "t", "u"), (copy, "u", "y")], ["a", "b"], ["y"]),
        "repeated": Sequence("repeated", [(relu, "a", "t"), (relu, "t", "u"), (relu, "u", "y")], ["a"], ["y"]),
        "equal_args": Sequence(
            "equal_args", [(add, "a", "b", "t"), (gemm, "x", "w", "g"), (add, "t", "a", "y")], ["a", "b", "x", "w"],
            ["y", "g"],
        ),  # fmt: skip
    }


SEQUENCE_CASES = [
    (name, t, tr)
    for name in ("chain", "repeated", "equal_args")
    for t in ("npu1", "npu2")
    for tr in (False, True)
]
CORPUS_CASES = [(key, t) for key, e in DESIGNS.items() for t in e["targets"]]


def _texts(fm, era) -> dict[str, str]:
    """The texts a ``sources=True`` build of ``fm`` carries, printed in ``era`` (the owner's code)."""
    ctx = sections.Context(fm, "key", "toolchain", print_module(fm.module, era), True, True, None, None, era)
    return sections.source_texts(ctx)


def _operator(name: str, c: int, k: int):
    return next(op for op in _ops(c, k) if type(op).__name__ == name)


@pytest.fixture(scope="module")
def install():
    return real_mlir_aie.require()


@pytest.fixture(scope="module")
def era(install):
    """The era iron detects for the real install (its aie-opt found through MLIR_AIE_INSTALL_DIR)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PATH", "/nonexistent")
        mp.setenv("MLIR_AIE_INSTALL_DIR", str(install.root))
        return toolchain.era()


@pytest.fixture(scope="module")
def verdicts(era):
    """Every printed text of every case, verified in one aie-opt run: case -> {text name: error}."""
    texts: dict[tuple, dict[str, str]] = {}
    for name, t, c, k, traced in OPERATOR_CASES:
        fm = fuse(_operator(name, c, k), t, TRACED if traced else TraceOptions(), "auto")
        texts["op", name, t, c, k, traced] = _texts(fm, era)
    seqs = _sequences()
    for name, t, traced in SEQUENCE_CASES:
        texts["seq", name, t, traced] = _texts(
            fuse(seqs[name], t, TRACED if traced else TraceOptions(), "auto"), era
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # old syntax the corpus files use is translated (test_legacy_syntax)
        for key, t in CORPUS_CASES:
            op = corpus_op(key, t)
            fm = fuse(corpus_sequence(op), t, TraceOptions(size=4096), "auto")
            texts["corpus", key, t] = _texts(fm, era)
    flat = {(case, n): text for case, named in texts.items() for n, text in named.items()}
    errors = real_mlir_aie.verify_many({repr(k): v for k, v in flat.items()})
    out: dict[tuple, dict[str, str]] = {}
    for case, n in flat:
        out.setdefault(case, {})[n] = errors[repr((case, n))]
    return out


def _failed(found: dict[str, str]) -> dict[str, str]:
    assert found, "no module printed"
    return {name: err for name, err in found.items() if err}


def test_iron_detects_the_a9e39fae_era_of_the_real_install(era):
    assert era == A9E39FAE


@pytest.mark.parametrize("name,target,columns,cores,traced", OPERATOR_CASES)
def test_every_builtin_operator_module_verifies(verdicts, name, target, columns, cores, traced):
    found = verdicts["op", name, target, columns, cores, traced]
    assert "aiecc.mlir" in found and _failed(found) == {}


@pytest.mark.parametrize("name,target,traced", SEQUENCE_CASES)
def test_every_fused_sequence_module_verifies(verdicts, name, target, traced):
    found = verdicts["seq", name, target, traced]
    assert "aiecc.mlir" in found and _failed(found) == {}


@pytest.mark.parametrize("key,target", CORPUS_CASES)
def test_every_corpus_design_verifies_traced_and_fused_with_a_builtin_operator(verdicts, key, target):
    assert _failed(verdicts["corpus", key, target]) == {}


#: The vector_scalar_mul example (iron/tests/data/designs, SOURCES.md there) with its two kernel
#: declarations moved out of its aie.device to the module (as a user's hand-written file may).
VSM = DATA / "designs" / "mlir-aie__programming_examples__basic__vector_scalar_mul__build__aie.mlir"


def _module_level_declarations() -> str:
    lines = VSM.read_text().splitlines()
    decls = [ln for ln in lines if ln.strip().startswith("func.func private")]
    assert len(decls) == 2 and lines[0] == "module {"
    rest = [ln for ln in lines if ln not in decls]
    return "\n".join([rest[0], *(d.strip().rjust(len(d.strip()) + 2) for d in decls), *rest[1:]]) + "\n"


def test_module_level_kernel_declarations_stay_in_the_printed_module(install, era):
    text = _module_level_declarations()
    assert text.splitlines()[1].startswith("  func.func private @vector_scalar_mul_int32_scalar")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the file's old acquire is translated (test_legacy_syntax)
        op = iron.from_mlir(text, name="vsm")
    fm = fuse(corpus_sequence(op), "npu1", TraceOptions(size=4096), "auto")
    texts = _texts(fm, era)
    calls = {n for n, t in texts.items() if "func.call @vector_scalar_mul_int32_vector" in t}
    assert calls == {"fused.mlir", "op0_vsm.mlir", "aiecc.mlir"}
    assert all("func.func private @vector_scalar_mul_int32_vector" in texts[n] for n in calls)
    assert _failed(real_mlir_aie.verify_many(texts)) == {}


def test_a_build_with_sources_prints_what_the_installed_mlir_aie_reads(install, tmp_path, monkeypatch):
    """iron.build(sources=True) on the built-in back end, with only MLIR_AIE_INSTALL_DIR naming the
    install: every source it carries verifies there as carried (the user hands them to it)."""
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setenv("MLIR_AIE_INSTALL_DIR", str(install.root))
    assert printed_era(False, True) == A9E39FAE and printed_era(False, False) == TODAY
    art = iron.build(ReLU(2048, tile_size=32), trace=True, target="npu2", cache_dir=tmp_path, sources=True)
    assert set(art.sources) == {"fused.mlir", "op0_ReLU.mlir", "aiecc.mlir"}
    assert "aie.objectfifo.subview.access" in art.sources["aiecc.mlir"]
    assert _failed(real_mlir_aie.verify_many(dict(art.sources))) == {}
