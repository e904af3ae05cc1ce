"""Memory the MLIR reader may use per input byte, and splat globals it refuses to expand."""

from __future__ import annotations

import pytest

from iron.mlir.reader import MlirSyntaxError, parse


def test_reader_memory_per_input_byte_is_bounded():
    """A long string literal on one line made the regex engine keep ~150 bytes per byte
    (benchmarks/bench_robustness.py --reader-memory measures the shapes at 40 MB)."""
    import tracemalloc

    head = "module {\n  aie.device(npu1_1col) {\n    %t = aie.tile(0, 2)\n"
    text = head + '    "x.y"() {a = "' + "a" * 1_000_000 + '"} : () -> ()\n  }\n}\n'
    tracemalloc.start()
    try:
        parse(text, "m.mlir")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10 * len(text)


def test_splat_global_cannot_ask_for_gigabytes():
    text = (
        "module {\n  aie.device(npu1_1col) {\n"
        '    memref.global "private" constant @g : memref<4000000000xi32> = dense<0>\n  }\n}\n'
    )
    with pytest.raises(MlirSyntaxError, match=r"memref<4000000000xi32> of one value; at most 131072 words"):
        parse(text, "m.mlir")
