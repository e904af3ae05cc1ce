"""Printer: every op kind against the exact line mlir-aie prints (lit test cited)."""

from pathlib import Path

import pytest

from iron.errors import IronError
from iron.mlir import body, ir
from iron.mlir.printer import print_device, print_module, print_op
from iron.tests.upstream import canon, check_lines, source_lines

#: upstream test/parse-trace/test1/aie_test1.mlir: its runtime sequence in today's SSA form
SSA_TEST1 = source_lines("aie_test1.mlir")

ARGS = {"arg0": ir.MemRefType((4096,), "i16"), "arg2": ir.MemRefType((2, 64, 64), "i32")}


def test_write32_with_tile():
    # upstream aie_test1.mlir: Trace_Control0 (0x340D0) of core (0, 2) = 0x797A0000 (docs/design.md 4)
    printed = print_op(ir.Write32(0x340D0, 0x797A0000, column=0, row=2))
    i = SSA_TEST1.index("%cst_npu_0 = arith.constant 213200 : i32")
    assert canon(printed) == canon(SSA_TEST1[i : i + 3])


def test_write32_absolute_address_and_signed_value():
    # dma_to_npu.mlir CHECK: the queue push of BD 1 with issue token is -2147483647 : i32,
    # and a write32 without tile attributes has no attribute dictionary
    lines = print_op(ir.Write32(0x1D214, 0x80000001)).split("\n")
    assert lines[1].endswith("= arith.constant -2147483647 : i32")
    assert canon(lines[2:]) == canon(["aiex.npu.write32(%a0, %v0) : i32, i32"])  # coalesce_write32s.mlir
    assert "aiex.npu.write32(%a0, %v0) : i32, i32" in source_lines("coalesce_write32s.mlir")


def test_maskwrite32():
    # dma_to_npu.mlir CHECK: operands address, value, mask (3147552, 321, 65535)
    printed = print_op(ir.MaskWrite32(3147552, 321, 65535)).split("\n")
    checks = check_lines("dma_to_npu.mlir", after="// CHECK-DAG: %[[MWA")[:4]
    assert [line.split(" = ", 1)[1] for line in printed[:3]] == [c.split(" = ", 1)[1] for c in checks[:3]]
    assert canon(printed)[3].startswith(canon(checks)[3])
    assert printed[3].endswith(" : i32, i32, i32")  # coalesce_write32s.mlir input form
    with_tile = print_op(ir.MaskWrite32(119304, 3840, 7936, column=0, row=0)).split("\n")[-1]
    assert with_tile.endswith(") {column = 0 : i32, row = 0 : i32} : i32, i32, i32")


def test_writebd_matches_upstream_line():
    # aie_test1.mlir: the trace drain BD, all fields in MLIR's dictionary order
    golden = next(line for line in SSA_TEST1 if line.startswith("aiex.npu.writebd"))
    op = ir.WriteBd(
        dict(bd_id=15, buffer_length=8192, burst_length=64, enable_packet=1, packet_id=1, valid_bd=1)
    )
    assert print_op(op) == golden


def test_address_patch():
    # aie_test1.mlir: BD 15 word 1 (0x1D1E4) patched with host buffer 4
    printed = print_op(ir.AddressPatch(0x1D1E4, 4, 0))
    i = SSA_TEST1.index("%cst_npu_14 = arith.constant 0 : i32")
    assert canon(printed) == canon(SSA_TEST1[i : i + 2])
    # dma_to_npu_bd_paths.mlir CHECK lines (BD 0 word 1 = 0x1D004 -> 118820 is BD 1)
    assert canon(print_op(ir.AddressPatch(118820, 0, 0))) == canon(
        check_lines("dma_to_npu_bd_paths.mlir")[2:4]
    )


def test_sync():
    # dma_to_npu.mlir CHECK: a wait on S2MM 0 of column 0 and on MM2S 1 of column 1
    for op, after in (
        (ir.Sync(column=0, row=0, direction=0, channel=0), "(0, 0, 0, 0, 1, 1)"),
        (ir.Sync(column=1, row=0, direction=1, channel=1), "(1, 0, 1, 1, 1, 1)"),
    ):
        checks = check_lines("dma_to_npu.mlir", after=after)[:7]
        printed = print_op(op).split("\n")
        assert [c.split(" = ", 1)[1] for c in checks[:6]] == [p.split(" = ", 1)[1] for p in printed[:6]]
        assert canon(printed)[6] == canon(checks)[6] + " : i32, i32, i32, i32, i32, i32"


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


def test_dma_memcpy_nd_with_a_packet_header_reads_and_prints_as_aie_opt():
    """The real aie-opt (mlir-aie a9e39fae) prints the line of test/npu-xrt/packet_flow/aie.mlir
    (``packet = <pkt_id = 3, pkt_type = 0>``, constants folded) with pkt_type first."""
    from iron.mlir.reader import parse

    upstream = "aiex.npu.dma_memcpy_nd (%a[0, 0, 0, 0][1, 1, 64, 64][0, 0, 64, 1], packet = <pkt_id = 3, pkt_type = 0>) {id = 0 : i64, metadata = @in0} : memref<64x64xi8>"  # fmt: skip
    src = (
        "module {\n  aie.device(npu1_1col) {\n    %t = aie.tile(0, 0)\n"
        "    aie.shim_dma_allocation @in0 (%t, MM2S, 0)\n"
        f"    aie.runtime_sequence(%a: memref<64x64xi8>) {{\n      {upstream}\n    }}\n  }}\n}}\n"
    )
    (op,) = parse(src).devices[0].sequences[0].body
    assert isinstance(op, ir.DmaMemcpyNd) and op.packet == (0, 3)
    assert print_op(op, scope={"a": ir.MemRefType((64, 64), "i8")}) == (
        "aiex.npu.dma_memcpy_nd(%a[0, 0, 0, 0][1, 1, 64, 64][0, 0, 64, 1], packet = <pkt_type = 0, pkt_id = 3>) "
        "{id = 0 : i64, metadata = @in0} : memref<64x64xi8>"
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
        "aie.device(npu2_1col) {",  # aie-opt elides the default symbols @main and @sequence
        "  aie.runtime_sequence(%out: memref<24xi32>) {",
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
        "  aie.runtime_sequence() {",
        "    %bw = memref.get_global @blockwrite_data_0 : memref<8xi32>",
        "    aiex.npu.blockwrite(%bw) {address = 118784 : ui32} : memref<8xi32>",
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
        "aiex.npu.blockwrite(%bw_0) {address = 4 : ui32, column = 0 : i32, row = 1 : i32} : memref<4xi32>"
        in text
    )
    assert "%bw_1 = memref.get_global @blockwrite_data_1" in text


def test_device_level_ops():
    flow = ir.PacketFlow(1, ir.PacketEnd("tile_0_2", "Trace", 0), ir.PacketEnd("tile_0_0", "DMA", 1))
    dev = ir.Device(
        "npu2",
        "op0_GEMM",
        [
            ir.Tile("tile_0_0", 0, 0),
            ir.Tile("tile_0_2", 0, 2),
            flow,
            ir.ShimDmaAllocation("in0", "MM2S", 0, 0),
        ],
    )
    assert print_device(dev).split("\n") == [
        "aie.device(npu2) @op0_GEMM {",
        "  %tile_0_0 = aie.tile(0, 0)",
        "  %tile_0_2 = aie.tile(0, 2)",
        "  aie.packet_flow(1) {",
        "    aie.packet_source<%tile_0_2, Trace : 0>",
        "    aie.packet_dest<%tile_0_0, DMA : 1>",
        "  } {keep_pkt_header = true}",
        # dma_operand_widths.mlir: the tile operand, then direction and channel
        "  aie.shim_dma_allocation @in0(%tile_0_0, MM2S, 0)",
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
        print_op(ir.Write32(0, -(1 << 31) - 1))


def test_memref_global_signed_words():
    # npu_blockwrite_data.mlir: i32 dense elements print signed (0xFFFFFFFF is -1)
    want = next(
        line for line in source_lines("npu_blockwrite_data.mlir") if "@words" in line and "global " in line
    )
    dev = ir.Device("npu2", None, [ir.MemrefGlobal("words", (305419896, 0xFFFFFFFF))])
    assert print_device(dev).split("\n")[1].strip() == want


def test_blockwrite_matches_upstream_check():
    # dma_to_npu_bd_paths.mlir CHECK: get_global, then blockwrite with the address attribute only
    seq = ir.RuntimeSequence("s", [], [ir.BlockWrite(118816, tuple(range(8)), symbol="g")])
    dev = ir.Device("npu2", None, [ir.MemrefGlobal("g", tuple(range(8))), seq])
    lines = print_device(dev).split("\n")
    # the CHECK line stops before the type; dma_to_npu.mlir's CHECK shows it: ": memref<4xi32>"
    assert canon([lines[-3].strip()]) == canon(
        [check_lines("dma_to_npu_bd_paths.mlir")[1] + " : memref<8xi32>"]
    )
    assert lines[-4].strip().startswith("%bw = memref.get_global @g : memref<8xi32>")


def _upstream_block(name: str, first: str) -> list[str]:
    """Raw lines (indentation kept) of upstream file ``name``: the line starting with ``first``
    and the op after it, up to the ``}`` that closes that op's region."""
    from iron.tests.upstream import UPSTREAM

    lines = (UPSTREAM / name).read_text().splitlines()
    i = next(k for k, line in enumerate(lines) if line.strip().startswith(first))
    close = lines[i + 1][: len(lines[i + 1]) - len(lines[i + 1].lstrip())] + "}"
    j = next(k for k in range(i + 2, len(lines)) if lines[k] == close)
    return lines[i : j + 1]


def test_func_decl_and_core_match_upstream_text():
    # aie_test1.mlir (aiecc's own output, test/parse-trace/test1): the kernel declaration with
    # today's func-level link_with, then the core of tile (0, 2) with its region, byte for byte
    golden = _upstream_block("aie_test1.mlir", "func.func private")
    vec, one = "memref<1024xi16>", "memref<1xi32>"
    tile = [
        body.acquire("3", "in", "Consume", vec),
        body.acquire("5", "out", "Produce", vec),
        body.constant("c1024_i32", 1024, "i32"),
        body.call("vector_scalar_mul_vector", ["3", "5", "1", "c1024_i32"], [vec, vec, one, "i32"]),
        body.release("in", "Consume"),
        body.release("out", "Produce"),
    ]
    run = [
        body.acquire("1", "infactor", "Consume", one),
        body.constant("c0_0", 0, "index"),
        body.constant("c4", 4, "index"),
        body.constant("c1_1", 1, "index"),
        body.loop("arg1", "c0_0", "c4", "c1_1", tile),
        body.release("infactor", "Consume"),
    ]
    region = [
        body.constant("c0", 0, "index"),
        body.constant("c9223372036854775807", 2**63 - 1, "index"),
        body.constant("c1", 1, "index"),
        body.loop("arg0", "c0", "c9223372036854775807", "c1", run),
        body.End(),
    ]
    dev = ir.Device(
        "npu1_1col",
        None,
        [
            ir.FuncDecl(
                "vector_scalar_mul_vector",
                ("memref<1024xi16>", "memref<1024xi16>", "memref<1xi32>", "i32"),
                "scale.o",
            ),
            ir.Core("core_0_2", "tile_0_2", region),
        ],
    )
    printed = print_device(dev, depth=1).split("\n")
    assert printed[1:-1] == golden


def test_objectfifo_link_forms():
    # a 1:1 forward as the corpus file add_one_objFifo (mlir-aie test/npu-xrt) spells it; aie-opt
    # prints no space before the offsets' parenthesis
    corpus = (
        Path(__file__).parent
        / "data/corpus/mlir-aie__test__npu-xrt__add_one_objFifo__aie.old-func-sequence.mlir"
    )
    golden = next(line.strip() for line in corpus.read_text().splitlines() if "objectfifo.link" in line)
    link = ir.ObjectFifoLink(("objFifo_in0",), ("objFifo_in1",))
    dev = ir.Device("npu1_1col", None, [link])
    assert print_device(dev).split("\n")[1].strip() == golden.replace("] ([", "]([")
    split = ir.ObjectFifoLink(("in",), ("a", "b"), (), (0, 256))
    dev = ir.Device("npu1_1col", None, [split])
    assert print_device(dev).split("\n")[1].strip() == "aie.objectfifo.link [@in] -> [@a, @b]([] [0, 256])"
