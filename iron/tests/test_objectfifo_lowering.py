"""Shim allocations derived from object FIFOs, against mlir-aie's object-FIFO lowering
(CHECK lines of its lit tests; files and sources in iron/tests/data/{corpus,upstream})."""

import pytest

from iron.errors import IronError
from iron.mlir.objectfifo import shim_allocations
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


def _derived(name: str, chunk: int = 0) -> dict:
    text = (UPSTREAM / name).read_text().split("// -----")[chunk]
    dev = parse(text).devices[0]
    return {s: (a.column, a.direction, a.channel) for s, a in shim_allocations(dev).items()}


def test_two_fifos_out_of_one_shim_take_channels_in_order():
    # access_patterns/AIE2_single_multiple_release.mlir:
    # CHECK: aie.shim_dma_allocation @of_shim_alloc(%[[VAL_0]], MM2S, 0)
    # CHECK: aie.shim_dma_allocation @of2_shim_alloc(%[[VAL_0]], MM2S, 1)
    got = _derived("AIE2_single_multiple_release.mlir")
    assert (got["of_shim_alloc"], got["of2_shim_alloc"]) == ((0, "MM2S", 0), (0, "MM2S", 1))


def test_shim_consumers_are_named_after_the_producer_fifo():
    # dynamic_lowering/core_flag_test.mlir CHECK-DAG lines
    got = _derived("core_flag_test.mlir")
    assert {s: v for s, v in got.items() if s.endswith("_shim_alloc")} == {
        "input_fifo_shim_alloc": (0, "MM2S", 0),
        "output_fifo_shim_alloc": (0, "S2MM", 0),
        "input_fifo2_shim_alloc": (0, "MM2S", 1),
        "output_fifo2_shim_alloc": (0, "S2MM", 1),
    }


def test_a_fifo_into_two_shims_gets_uniqued_names_and_the_transfer_uses_the_last():
    # data_movement_patterns/broadcast_to_two_shim_tiles.mlir (npu1 case, after "// -----"):
    # CHECK-DAG: @of_shim_alloc(...shim_noc_tile_0_0, S2MM, 0), @of_shim_alloc_0(...tile_1_0, S2MM, 0)
    # CHECK-DAG: aiex.npu.dma_memcpy_nd{{.*}}metadata = @of_shim_alloc_0
    got = _derived("broadcast_to_two_shim_tiles.mlir", 1)
    assert (got["of_shim_alloc"], got["of_shim_alloc_0"]) == ((0, "S2MM", 0), (1, "S2MM", 0))
    assert got["of"] == got["of_shim_alloc_0"]


def test_an_allocation_declared_under_the_fifo_name_binds_it():
    # dma_channel_alloc/shimtileDMA_allocOp_test.mlir: the pass keeps @objfifo(S2MM, 1, 2), adds none
    got = _derived("shimtileDMA_allocOp_test.mlir")
    assert got == {"objfifo": (2, "S2MM", 1)}
