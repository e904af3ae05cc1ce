"""Conformance corpus: modules mlir-aie itself printed or takes as lit-test input
(iron/tests/data/corpus, each file's repository, path and commit in its SOURCES.md).

Every module reads, prints and reads back to the same IR (opaque ops verbatim), and
the printed text is a fixed point. Files already in today's syntax must come out as
upstream wrote them, up to SSA value names.
"""

import re
from pathlib import Path

import pytest

from iron.mlir.printer import print_module
from iron.mlir.reader import parse
from iron.tests.upstream import canon

CORPUS = Path(__file__).parent / "data" / "corpus"
FILES = sorted(CORPUS.glob("*.mlir"))

#: Files in today's printed syntax (SSA npu ops, tile-operand allocations, no default
#: symbols): iron's text must equal theirs up to SSA names.
TODAYS_SYNTAX = {
    "mlir-aie__test__dialect__AIEX__read_reg.mlir",
    "mlir-aie__test__dialect__AIEX__trace__test_inline_trace_config.mlir",
    "mlir-aie__test__dialect__AIEX__trace__test_trace_end_to_end.mlir",
    "mlir-aie__test__dialect__AIEX__trace__test_trace_port_end_to_end.mlir",
    "mlir-aie__test__npu-xrt__add_one_objFifo_npu1_3col__aie.mlir",
    "mlir-aie__test__npu-xrt__add_one_objFifo__aie.old-func-sequence.mlir",
    "mlir-aie__test__npu-xrt__core_dmas__dma_configure_task_token__aie.mlir",
    "mlir-aie__test__objectFifo-stateful-transform__base__base_test_shim.mlir",
    "xdna-emu__tools__tests__fixtures__sample_already_traced.mlir",
}


def _modules(path: Path):
    """The modules of a lit file (``// -----`` splits; lit's NPUDEVICE placeholder -> npu2)."""
    text = path.read_text(encoding="utf-8").replace("NPUDEVICE", "npu2")
    return [c for c in re.split(r"^// -----\s*$", text, flags=re.M) if "aie.device" in c]


def test_corpus_is_large_and_covers_both_generations():
    assert len(FILES) >= 30
    texts = [p.read_text(encoding="utf-8") for p in FILES]
    for needle in ("npu1", "npu2", "aie.objectfifo", "aiex.configure", "aie.trace", "aiex.npu.write32("):
        assert sum(needle in t for t in texts) >= 3, needle
    names = {p.name for p in FILES}
    assert TODAYS_SYNTAX <= names and (CORPUS / "SOURCES.md").exists()
    sources = (CORPUS / "SOURCES.md").read_text()
    assert all(p.name in sources for p in FILES)  # every file names its source


@pytest.mark.parametrize("path", FILES, ids=[p.name[:60] for p in FILES])
def test_reads_prints_and_reads_back(path):
    for chunk in _modules(path):
        first = parse(chunk, str(path))
        text = print_module(first)
        again = parse(text, "printed")
        assert again == first
        assert print_module(again) == text
        if path.name in TODAYS_SYNTAX:
            assert canon(text) == canon(chunk)
