"""Printer: every op kind against the exact line mlir-aie prints (lit test cited)."""

import pytest

from iron.errors import IronError
from iron.mlir import ir
from iron.mlir.printer import print_device, print_module, print_op
from iron.tests.golden import TEST1

ARGS = {"arg0": ir.MemRefType((4096,), "i16"), "arg2": ir.MemRefType((2, 64, 64), "i32")}


def test_write32_with_tile():
    # test/parse-trace/test1/aie.mlir (= iron/tests/data/mlir-aie-test1/aie.mlir)
    op = ir.Write32(213200, 2038038528, column=0, row=2)
    assert print_op(op) == (
        "aiex.npu.write32 {address = 213200 : ui32, column = 0 : i32, row = 2 : i32, value = 2038038528 : ui32}"
    )


def test_write32_absolute_address():
    # test/Targets/NPU/npu_dma_memcpy.mlir CHECK line
    assert print_op(ir.Write32(119316, 0)) == "aiex.npu.write32 {address = 119316 : ui32, value = 0 : ui32}"


def test_maskwrite32():
    # printed form in mlir-aie trace lit tests: alphabetical keys, mask between column and row
    op = ir.MaskWrite32(119304, 3840, 65280, column=0, row=0)
    assert print_op(op) == (
        "aiex.npu.maskwrite32 {address = 119304 : ui32, column = 0 : i32, mask = 65280 : ui32, "
        "row = 0 : i32, value = 3840 : ui32}"
    )
    assert print_op(ir.MaskWrite32(119296, 3840, 7936)) == (
        "aiex.npu.maskwrite32 {address = 119296 : ui32, mask = 7936 : ui32, value = 3840 : ui32}"
    )


def test_writebd_matches_golden_line():
    # test/parse-trace/test1/aie.mlir
    golden = next(line.strip() for line in open(TEST1 / "aie.mlir") if "aiex.npu.writebd" in line)
    op = ir.WriteBd(
        dict(bd_id=15, buffer_length=8192, burst_length=64, enable_packet=1, packet_id=1, valid_bd=1)
    )
    assert print_op(op) == golden


def test_address_patch():
    # test/Targets/NPU/npu_dma_memcpy.mlir CHECK line
    assert print_op(ir.AddressPatch(118788, 0, 16384)) == (
        "aiex.npu.address_patch {addr = 118788 : ui32, arg_idx = 0 : i32, arg_plus = 16384 : i32}"
    )


def test_sync():
    # CHECK lines of mlir-aie dma-to-npu lit tests
    assert print_op(ir.Sync(column=0, row=0, direction=0, channel=0)) == (
        "aiex.npu.sync {channel = 0 : i32, column = 0 : i32, column_num = 1 : i32, direction = 0 : i32, "
        "row = 0 : i32, row_num = 1 : i32}"
    )


def test_load_pdi():
    # test/dialect/AIEX/trace/test_trace_configure_run.mlir CHECK line
    assert print_op(ir.LoadPdi("dev_a")) == "aiex.npu.load_pdi {device_ref = @dev_a}"


def test_dma_memcpy_nd():
    # test/Targets/NPU/npu_dma_memcpy.mlir input line
    op = ir.DmaMemcpyNd("arg2", (1, 0, 0, 0), (1, 2, 32, 32), (4096, 2048, 64), "airMemcpyId12", 0)
    assert print_op(op, scope=ARGS) == (
        "aiex.npu.dma_memcpy_nd(%arg2[1, 0, 0, 0][1, 2, 32, 32][4096, 2048, 64, 1]) "
        "{id = 0 : i64, metadata = @airMemcpyId12} : memref<2x64x64xi32>"
    )
    # AIEX.td (dma_wait example): issue_token sits between id and metadata
    op = ir.DmaMemcpyNd("arg0", (0, 0, 0, 0), (1, 1, 1, 4096), (0, 0, 0), "in0", 0, issue_token=True)
    assert print_op(op, scope=ARGS) == (
        "aiex.npu.dma_memcpy_nd(%arg0[0, 0, 0, 0][1, 1, 1, 4096][0, 0, 0, 1]) "
        "{id = 0 : i64, issue_token = true, metadata = @in0} : memref<4096xi16>"
    )


def test_dma_memcpy_nd_unknown_arg():
    with pytest.raises(IronError, match="not a sequence argument"):
        print_op(ir.DmaMemcpyNd("nope", (0,) * 4, (1,) * 4, (0,) * 3, "in0", 0), scope=ARGS)


def test_dma_wait():
    # include/aie/Dialect/AIEX/IR/AIEX.td op catalog example
    assert print_op(ir.DmaWait("out0")) == "aiex.npu.dma_wait {symbol = @out0}"


def test_view_configure_run():
    # test/npu-xrt/trace_slices_configure_run/aie.mlir (subview + reinterpret_cast, run);
    # AIEX.td RunOp assemblyFormat: no space between the symbol and '('.
    seq = ir.RuntimeSequence(
        "sequence",
        [ir.Argument("out", ir.MemRefType((24,), "i32"))],
        [
            ir.Configure(
                "dev_b",
                [
                    ir.View("a1", "out", 4, ir.MemRefType((4,), "i32")),
                    ir.Run("seq_b1", ["a1"], [ir.MemRefType((4,), "i32")]),
                ],
            )
        ],
    )
    text = print_device(ir.Device("npu2_1col", "main", [seq]))
    assert text.split("\n") == [
        "aie.device(npu2_1col) @main {",
        "  aie.runtime_sequence @sequence(%out: memref<24xi32>) {",
        "    aiex.configure @dev_b {",
        "      %a1_subview = memref.subview %out[4] [4] [1] : memref<24xi32> to memref<4xi32, strided<[1], offset: 4>>",
        "      %a1 = memref.reinterpret_cast %a1_subview to offset: [0], sizes: [4], strides: [1] : "
        "memref<4xi32, strided<[1], offset: 4>> to memref<4xi32>",
        "      aiex.run @seq_b1(%a1) : (memref<4xi32>)",
        "    }",
        "  }",
        "}",
    ]


def test_view_2d_and_bad_views():
    scope = {"buf": ir.MemRefType((64,), "bf16")}
    lines = print_op(ir.View("w", "buf", 16, ir.MemRefType((4, 8), "bf16")), scope=scope).split("\n")
    assert lines[1].endswith(
        "to offset: [0], sizes: [4, 8], strides: [8, 1] : memref<32xbf16, strided<[1], offset: 16>> to memref<4x8xbf16>"
    )
    with pytest.raises(IronError, match="exceed"):
        print_op(ir.View("w", "buf", 40, ir.MemRefType((32,), "bf16")), scope=scope)
    with pytest.raises(IronError, match="element type"):
        print_op(ir.View("w", "buf", 0, ir.MemRefType((4,), "i8")), scope=scope)


def test_blockwrite_global_and_get_global():
    # test/Targets/NPU/npu_dma_memcpy.mlir CHECK lines: the global holds i32 words printed signed,
    # the blockwrite reads it through memref.get_global.
    words = (2048, 0, 0, 33554432, (-2113929153) & 0xFFFFFFFF, 2047, 0, 33554432)
    seq = ir.RuntimeSequence("sequence", [], [ir.BlockWrite(118784, words)])
    lines = print_device(ir.Device("npu1_1col", None, [ir.Tile("t00", 0, 0), seq])).split("\n")
    assert lines == [
        "aie.device(npu1_1col) {",
        "  %t00 = aie.tile(0, 0)",
        '  memref.global "private" constant @blockwrite_data_0 : memref<8xi32> = '
        "dense<[2048, 0, 0, 33554432, -2113929153, 2047, 0, 33554432]>",
        "  aie.runtime_sequence @sequence() {",
        "    %bw0 = memref.get_global @blockwrite_data_0 : memref<8xi32>",
        "    aiex.npu.blockwrite(%bw0) {address = 118784 : ui32} : memref<8xi32>",
        "  }",
        "}",
    ]


def test_blockwrite_symbols_deterministic_and_shared():
    a, b = (1, 2, 3, 4), (5, 5, 5, 5)
    body = [ir.BlockWrite(0, a), ir.BlockWrite(4, b, column=0, row=1), ir.BlockWrite(8, a)]
    dev = ir.Device(
        "npu2", "x", [ir.MemrefGlobal("blockwrite_data_0", (9,)), ir.RuntimeSequence("s", [], body)]
    )
    text = print_device(dev)
    assert text == print_device(dev)
    # the existing blockwrite_data_0 is skipped; equal payloads share a global; splat printed as MLIR does
    assert "@blockwrite_data_1 : memref<4xi32> = dense<[1, 2, 3, 4]>" in text
    assert "@blockwrite_data_2 : memref<4xi32> = dense<5>" in text
    assert text.count("memref.global") == 3
    assert (
        "aiex.npu.blockwrite(%bw1) {address = 4 : ui32, column = 0 : i32, row = 1 : i32} : memref<4xi32>"
        in text
    )
    assert "%bw2 = memref.get_global @blockwrite_data_1" in text


def test_device_level_ops():
    flow = ir.PacketFlow(1, ir.PacketEnd("tile_0_2", "Trace", 0), ir.PacketEnd("tile_0_0", "DMA", 1))
    dev = ir.Device(
        "npu2",
        "op0_GEMM",
        [ir.Tile("tile_0_2", 0, 2), flow, ir.ShimDmaAllocation("in0", "MM2S", 0, 0)],
    )
    assert print_device(dev).split("\n") == [
        "aie.device(npu2) @op0_GEMM {",
        "  %tile_0_2 = aie.tile(0, 2)",
        "  aie.packet_flow(1) {",
        "    aie.packet_source<%tile_0_2, Trace : 0>",
        "    aie.packet_dest<%tile_0_0, DMA : 1>",
        "  } {keep_pkt_header = true}",
        # test/Targets/AIEGenerateJSON/shim_alloc.mlir: (direction, channel, column)
        "  aie.shim_dma_allocation @in0(MM2S, 0, 0)",
        "}",
    ]


def test_opaque_reindented_keeping_relative_indent():
    op = ir.Opaque('%core = aie.core(%t) {\n  aie.end\n} {link_with = "k.o"}')
    assert print_op(op, depth=2) == '    %core = aie.core(%t) {\n      aie.end\n    } {link_with = "k.o"}'


def test_module_wrapper_and_ranges():
    assert print_module(ir.Module()) == "module {\n}\n"
    with pytest.raises(IronError, match="out of range"):
        print_op(ir.Write32(1 << 32, 0))
    with pytest.raises(IronError, match="out of range"):
        print_op(ir.Write32(0, -1))
