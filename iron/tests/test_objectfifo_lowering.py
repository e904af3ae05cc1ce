"""Shim allocations derived from object FIFOs, against mlir-aie's object-FIFO lowering
(CHECK lines of its lit tests; files and sources in iron/tests/data/{corpus,upstream})."""

import pytest

from iron.errors import IronError
from iron.lower.objectfifo import shim_allocations
from iron.mlir import ir
from iron.mlir.reader import parse, parse_file
from iron.operators import ElementwiseAdd
from iron.tests.upstream import UPSTREAM

CORPUS = UPSTREAM.parent / "corpus"


def test_shim_producer_gets_named_allocation_on_channel_0():
    # test/objectFifo-stateful-transform/base/base_test_shim.mlir:
    # CHECK: aie.shim_dma_allocation @of1_shim_alloc(MM2S, 0, 1)   (direction, channel, column)
    dev = parse_file(
        CORPUS / "mlir-aie__test__objectFifo-stateful-transform__base__base_test_shim.mlir"
    ).devices[0]
    allocs = shim_allocations(dev)
    a = allocs["of1_shim_alloc"]
    assert (a.symbol, a.direction, a.channel, a.column) == ("of1_shim_alloc", "MM2S", 0, 1)
    assert allocs["of1"] is a  # a transfer may name the FIFO itself


def test_channels_in_program_order_and_shim_consumer_named_after_the_fifo():
    # upstream aie_test1.mlir's design: two FIFOs out of shim (0, 0), one into it
    dev = parse_file(UPSTREAM / "aie_test1.mlir").devices[0]
    got = {s: (a.direction, a.channel) for s, a in shim_allocations(dev).items() if s.endswith("_shim_alloc")}
    assert got == {
        "infactor_shim_alloc": ("MM2S", 0),
        "in_shim_alloc": ("MM2S", 1),
        "out_shim_alloc": ("S2MM", 0),
    }


def test_declared_allocation_holds_its_channel_and_a_duplicate_is_refused():
    text = """module {
  aie.device(npu2_1col) {
    %t = aie.tile(0, 0)
    %c = aie.tile(0, 2)
    aie.shim_dma_allocation @ctrl(%t, MM2S, 0)
    aie.objectfifo @a(%t, {%c}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  }
}
"""
    dev = parse(text).devices[0]
    assert shim_allocations(dev)["a"].channel == 1  # channel 0 is held by @ctrl
    with pytest.raises(IronError, match="no free MM2S channel"):
        dev.body.append(ir.ObjectFifo("b2", "t", ("c",), 2, "memref<16xi32>"))
        shim_allocations(dev)
    dev.body.insert(0, ir.ShimDmaAllocation("a_shim_alloc", "S2MM", 0, 0))
    with pytest.raises(IronError, match="duplicate symbol"):
        shim_allocations(dev)


def test_operator_designs_declare_none_and_keep_s2mm_1_free_for_the_trace():
    dev = ElementwiseAdd(4096, columns=2).design("npu2").device
    assert dev.allocations == []
    allocs = {s: a for s, a in shim_allocations(dev).items() if s.endswith("_shim_alloc")}
    assert sorted((a.column, a.direction, a.channel) for a in allocs.values()) == [
        (c, d, ch) for c in (0, 1) for d, ch in (("MM2S", 0), ("MM2S", 1), ("S2MM", 0))
    ]
