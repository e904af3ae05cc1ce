"""Valid designs read as MLIR reads them, invalid values refused instead of dropped (issue 36):
CR-only line endings (before: "no aie.device" / LegacySyntaxError quoting the whole file),
``aie.trace.host_config buffer_size = 0x2000`` (before: read as 0, the device silently
untraced), a negative buffer_size (before: ignored by the build)."""

from __future__ import annotations

import numpy as np
import pytest

import iron
from iron.errors import IronError
from iron.fuse.wire import wire
from iron.tests.test_wire_inputs import CONFIGURE_RUN
from iron.tests.small_designs import ADD_ONE, CORE, FIFOS


@pytest.mark.parametrize("newline", ["\r", "\r\n"])
def test_cr_only_and_crlf_designs_run_as_lf_ones(tmp_path, newline):
    """MLIR's lexer treats CR as whitespace: the same design with other line endings is the same design."""
    text = CORE.replace("BODY", ADD_ONE).replace("\n", newline)
    art = iron.build(iron.from_mlir(text, name="p"), target="npu1", cache_dir=tmp_path)
    a = np.arange(32, dtype=np.int32) * 7
    with art.load("sim") as run:
        np.testing.assert_array_equal(run(a), a + 1)


def test_cr_only_design_parses_with_the_real_compiler_too(real_mlir_aie):
    from iron.tests.real_mlir_aie import verify

    assert verify(FIFOS.replace("\n", "\r")) == ""  # no acquire: the form a9e39fae reads


def _wired_size(size_text: str) -> int:
    text = CONFIGURE_RUN.read_text().replace("buffer_size = 8192", f"buffer_size = {size_text}", 1)
    return wire(text).manifest.total_size


def test_a_hex_host_config_size_is_the_decimal_one():
    """MLIR reads ``0x2000`` as 8192 (mlir/lib/AsmParser/Lexer.cpp); before, iron read "0"."""
    assert _wired_size("0x2000") == _wired_size("8192") > 0


@pytest.mark.parametrize(
    "size, message",
    [("-8192", r"buffer_size=-8192: must be >= 0"), ("0X2000", "not an integer"), ("x", "no buffer_size")],
)
def test_a_host_config_size_iron_cannot_use_is_refused(size, message):
    with pytest.raises(IronError, match=message):
        _wired_size(size)


TWO_ON_ONE_LINE = (
    "          %v = memref.load %x[%k] : memref<16xi32>\n          %w = arith.addi %v, %one : i32",
    "          %v = memref.load %x[%k] : memref<16xi32> %w = arith.addi %v, %one : i32",
)


def test_two_core_ops_on_one_line_run_as_on_two(tmp_path):
    """MLIR's parser needs no line break between ops. Before: "value %w is not defined", outputs
    reported not modelled."""
    body = ADD_ONE.replace(*TWO_ON_ONE_LINE)
    assert body != ADD_ONE
    art = iron.build(iron.from_mlir(CORE.replace("BODY", body), name="p"), target="npu1", cache_dir=tmp_path)
    a = np.arange(32, dtype=np.int32) * 5
    with art.load("sim") as run:
        np.testing.assert_array_equal(run(a), a + 1)


def test_the_real_compiler_reads_two_ops_on_one_line(real_mlir_aie):
    from iron.tests.real_mlir_aie import verify
    from iron.tests.small_designs import MEMTILE_THROUGH

    one_line = "      aiex.dma_start_task(%fill)\n      aiex.dma_start_task(%drain)"
    assert one_line in MEMTILE_THROUGH
    assert (
        verify(
            MEMTILE_THROUGH.replace(one_line, "      aiex.dma_start_task(%fill) aiex.dma_start_task(%drain)")
        )
        == ""
    )


def test_split_ops_keeps_one_op_lines_whole():
    from iron.mlir.reader import split_ops

    for line in [
        "scf.for %i = %c0 to %c4 step %c1 {",
        "%0 = aie.objectfifo.acquire @in(Consume, 1) : !aie.objectfifosubview<memref<16xi32>>",
        "func.call @f(%a, %b) : (memref<8xi32>, i32) -> ()",
        "%a, %b = aie.objectfifo.acquire @of(Consume, 2) : memref<16xi32>, memref<16xi32>",
        "%s = vector.load %x[%c0] : memref<16xf32>, vector<16xf32>",
        "%c = arith.constant 1.0 : f32",
    ]:
        assert split_ops(line) == [line]
    assert split_ops("memref.store %w, %y[%k] : memref<16xi32> aie.objectfifo.release @in(Consume, 1)") == [
        "memref.store %w, %y[%k] : memref<16xi32>",
        "aie.objectfifo.release @in(Consume, 1)",
    ]
