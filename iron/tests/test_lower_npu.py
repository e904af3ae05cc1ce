"""Golden bytes of the full lowering: iron.mlir.ir npu ops -> iron.lower.npu -> iron.mlir.txn_codec.

Expected words come from mlir-aie lit tests (repo Xilinx/mlir-aie, folder
test/Targets/NPU, commit named per test) and from mlir-aie's
``lib/Dialect/AIEX/Transforms/AIEDmaToNpu.cpp`` (WriteBdToBlockWritePattern)
for what ``--aie-dma-to-npu`` turns a ``writebd`` into.
"""

import pytest

from iron.errors import IronError
from iron.lower import npu
from iron.mlir import txn_codec as txn
from iron.mlir import ir

PDI_IDS = {"dev_a": 1, "dev_b": 2}


def hexwords(text: str) -> list[int]:
    return [int(t, 16) for t in text.split()]


def lower_words(ops, target="npu1_1col", columns=1, arch="npu1") -> list[int]:
    data = txn.encode(txn.header_for(target, columns), npu.lower_ops(ops, PDI_IDS, arch))
    return txn.words(data)


# npu_dma_memcpy.mlir @ 6dd529e7: --aie-dma-to-npu of
#   dma_memcpy_nd(%arg0[1, 0, 0, 0][1, 2, 32, 32][4096, 2048, 64, 1]) {id = 0, metadata = @airMemcpyId12}
# CHECK: memref<8xi32> = dense<[2048, 0, 0, 33554432, -2113929153, 33556479, 0, 33554432]>
# CHECK: aiex.npu.blockwrite(%[[VALUE]]) {address = 118784 : ui32}
# CHECK: aiex.npu.address_patch {addr = 118788 : ui32, arg_idx = 0 : i32, arg_plus = 16384 : i32}
# CHECK: aiex.npu.write32 {address = 119316 : ui32, value = 0 : ui32}
# The writebd below has the fields that pass derives (d0 32x1, d1 32 stride 64,
# d2 stride 2048, hardware encodes size/stride - 1; burst 0 = largest).
MEMCPY_WRITEBD = ir.WriteBd(
    {
        "bd_id": 0,
        "column": 0,
        "row": 0,
        "buffer_length": 2048,
        "d0_size": 32,
        "d0_stride": 0,
        "d1_size": 32,
        "d1_stride": 63,
        "d2_stride": 2047,
        "valid_bd": 1,
    }
)
MEMCPY_IMAGE = hexwords("00000800 00000000 00000000 02000000 8200003F 020007FF 00000000 02000000")


def test_writebd_is_blockwrite_of_upstream_bd_image():
    (op,) = npu.lower_ops([MEMCPY_WRITEBD], PDI_IDS, "npu1")
    assert type(op) is txn.BlockWrite
    assert op.address == 118784  # shim BD 0 of column 0 (0x1D000)
    signed = [w - (1 << 32) if w >> 31 else w for w in op.data]
    assert signed == [2048, 0, 0, 33554432, -2113929153, 33556479, 0, 33554432]


def test_dma_memcpy_sequence_golden_bytes():
    ops = [MEMCPY_WRITEBD, ir.AddressPatch(118788, 0, 16384), ir.Write32(119316, 0)]
    assert lower_words(ops) == hexwords(
        "06030100 00000101 00000003 00000088"
        # BLOCKWRITE: op, tile word, address, 16 + 32 bytes, the 8 BD words
        " 00000001 00000000 0001D000 00000030 " + " ".join(f"{w:08X}" for w in MEMCPY_IMAGE) +
        # DDR_PATCH: op, 48, 4 zero words, address, 0, arg_idx, 0, arg_plus (u64)
        " 00000081 00000030 00000000 00000000 00000000 00000000"
        " 0001D004 00000000 00000000 00000000 00004000 00000000"
        # WRITE: op, 0, address, 0, value, 24
        " 00000000 00000000 0001D214 00000000 00000000 00000018"
    )  # fmt: skip


def test_writebd_npu2_burst_encoding():
    # Same BD on npu2 (AIE2P): burst_length 0 -> the largest burst, encoding 3
    # (mlir-aie getShimBurstLengthEncoding; iron.target.shim_dma).
    (op,) = npu.lower_ops([MEMCPY_WRITEBD], PDI_IDS, "npu2")
    assert op.data[4] == 0xC200003F
    assert op.data[:4] + op.data[5:] == tuple(MEMCPY_IMAGE[:4] + MEMCPY_IMAGE[5:])


def test_writebd_blockwrite_tile_word_is_zero_as_upstream():
    # npu_blockwrite_instgen.mlir @ 0df98817: writebd {column = 3, row = 1, bd_id = 6 ...}
    # CHECK: 00000001 / 00000000 / 061A00C0 / 00000030: the tile word is 0.
    bd = ir.WriteBd({"bd_id": 6, "column": 3, "row": 0, "buffer_length": 1, "valid_bd": 1})
    ws = lower_words([bd], "npu1", 4)
    assert ws[4:8] == [0x1, 0, (3 << 25) | 0x1D0C0, 0x30]


def test_memtile_writebd_lowers_to_upstreams_eight_words():
    # npu_blockwrite_instgen.mlir @ 0df98817: this writebd at column 3 row 1 (a memtile);
    # CHECK: 061A00C0 (memtile BD 6 at 0xA00C0) / 00000030 (8 words) / 00000001 00580002
    # 000C0005 00100007 00000009 00000000 059A000C 84038201 (d2_size = 1 is not written).
    fields = dict(
        bd_id=6, buffer_length=1, buffer_offset=2, column=3, row=1, d0_stride=5, d0_size=6,
        d1_stride=7, d1_size=8, d2_size=1, d2_stride=9, iteration_current=11,
        iteration_stride=12, iteration_size=13, lock_acq_enable=1, lock_acq_id=1,
        lock_acq_val=2, lock_rel_id=3, lock_rel_val=4, next_bd=5, use_next_bd=1, valid_bd=1,
    )  # fmt: skip
    ws = lower_words([ir.WriteBd(fields)], "npu1", 4)
    assert ws[4:8] == [0x1, 0, 0x061A00C0, 0x30]
    assert ws[8:16] == hexwords("00000001 00580002 000C0005 00100007 00000009 00000000 059A000C 84038201")


def test_memtile_and_tile_bd_lock_values_as_upstream_lowers_them():
    # unrolled_repeat_pass.mlir @ ef798b0d: memtile BD 0 with lock_acq_id = 64,
    # lock_acq_val = 127 (the 7-bit -1 of AcquireGreaterEqual 1), lock_rel_id = 65,
    # lock_rel_val = 1, next_bd = 1, use_next_bd = 1, length 1024. Word 7 by the field
    # positions of AIEDmaToNpu.cpp @ 0155ebd7 (valid [31], rel value [30:24], rel id [23:16],
    # acq enable [15], acq value [14:8], acq id [7:0]): 0x80000000 | 1 << 24 | 65 << 16 |
    # 1 << 15 | 127 << 8 | 64; word 1: next [25:20], use_next [19].
    memtile = dict(
        bd_id=0, buffer_length=1024, column=0, row=1, lock_acq_enable=1, lock_acq_id=64,
        lock_acq_val=127, lock_rel_id=65, lock_rel_val=1, next_bd=1, use_next_bd=1, valid_bd=1,
    )  # fmt: skip
    (op,) = npu.lower_ops([ir.WriteBd(memtile)], PDI_IDS, "npu1")
    assert op.data == (0x400, 0x00180000, 0, 0, 0, 0, 0, 0x8141FF40)
    # dma_task_with_locks.mlir test 7: lock_acq_val = -2 is the same register bits as 126
    (neg,) = npu.lower_ops([ir.WriteBd({**memtile, "lock_acq_val": -2})], PDI_IDS, "npu1")
    (raw,) = npu.lower_ops([ir.WriteBd({**memtile, "lock_acq_val": 126})], PDI_IDS, "npu1")
    assert neg.data == raw.data
    # A compute-tile BD (6 words): buffer_offset in bytes -> Base_Address [27:14] in words,
    # length [13:0]; word 5: next [30:27], use_next [26], valid [25], rel value [24:18],
    # rel id [16:13], acq enable [12], acq value [11:5], acq id [3:0].
    tile = dict(bd_id=0, buffer_length=1024, buffer_offset=0x1000, column=0, row=2, lock_acq_enable=1,
                lock_acq_val=1, lock_rel_id=1, lock_rel_val=1, valid_bd=1)  # fmt: skip
    (op,) = npu.lower_ops([ir.WriteBd(tile)], PDI_IDS, "npu1")
    assert op.address == 0x21D000 and len(op.data) == 6
    assert op.data[0] == (0x400 << 14) | 1024
    assert op.data[5] == 1 << 25 | 1 << 18 | 1 << 13 | 1 << 12 | 1 << 5
    with pytest.raises(IronError, match="compute-tile BD has no d0_zero_before"):
        npu.lower_ops([ir.WriteBd({**tile, "d0_zero_before": 1})], PDI_IDS, "npu1")


def test_address_patch_is_ddr_patch_64bit_arg_plus():
    # npu_address_patch_arg_plus_64bit.mlir @ 875a349d: address_patch {addr = 74560,
    # arg_idx = 0, arg_plus = 8589934848 : i64} -> words 6..11:
    # 00012340 00000000 00000000 00000000 00000100 00000002
    ws = lower_words([ir.AddressPatch(74560, 0, 8589934848)], "npu2", 8, "npu2")
    assert ws[4:] == hexwords(
        "00000081 00000030 00000000 00000000 00000000 00000000"
        " 00012340 00000000 00000000 00000000 00000100 00000002"
    )
    # npu_address_patch_ddr_offset.mlir @ c956393c (NOFOLD): arg_idx 4, arg_plus 0x100
    ws = lower_words([ir.AddressPatch(74560, 4, 0x100)], "npu2", 8, "npu2")
    assert ws[4 + 8 : 4 + 11] == [4, 0, 0x100]


# npu_instgen.mlir @ 1351c7a5 (same ops and words in npu2_instgen.mlir @ 08c556e3)
def test_write32_absolute_address():
    # write32 {address = 0xabc00def, value = 0x314} -> 00000000 00000000 ABC00DEF 00000000 00000314 00000018
    assert lower_words([ir.Write32(0xABC00DEF, 0x314)])[4:] == hexwords(
        "00000000 00000000 ABC00DEF 00000000 00000314 00000018"
    )


def test_write32_column_row_masks_offset_as_upstream():
    assert lower_words([ir.Write32(0xABC00DEF, 0x42, column=3, row=4)])[4:] == hexwords(
        "00000000 00000000 06400DEF 00000000 00000042 00000018"
    )


def test_write32_column_row():
    # tile address col << 25 | row << 20 | offset (docs/design.md 4)
    assert lower_words([ir.Write32(0x00DEF, 0x42, column=3, row=4)])[4:] == hexwords(
        "00000000 00000000 06400DEF 00000000 00000042 00000018"
    )


def test_maskwrite32():
    # maskwrite32 {column = 2, row = 3, address = 0x567A, value = 0x1001, mask = 0xf00ff00f}
    ws = lower_words([ir.MaskWrite32(0x567A, 0x1001, 0xF00FF00F, column=2, row=3)])
    assert ws[4:] == hexwords("00000003 00000000 0430567A 00000000 00001001 F00FF00F 0000001C")


def test_blockwrite_with_and_without_tile():
    data = tuple(range(100, 108))
    payload = " 00000064 00000065 00000066 00000067 00000068 00000069 0000006A 0000006B"
    # blockwrite (%0) {address = 0x12345679}
    assert lower_words([ir.BlockWrite(0x12345679, data)])[4:] == hexwords(
        "00000001 00000000 12345679 00000030" + payload
    )
    # blockwrite (%0) {column = 1, row = 1, address = 100}
    assert lower_words([ir.BlockWrite(100, data, column=1, row=1)])[4:] == hexwords(
        "00000001 00000101 02100064 00000030" + payload
    )


def test_sync():
    # sync {column = 3, row = 4, direction = 1, channel = 5, column_num = 1, row_num = 2}
    ws = lower_words([ir.Sync(3, 4, 1, 5, 1, 2)])
    assert ws[4:] == hexwords("00000080 00000010 00030401 05010200")


def test_load_pdi_uses_the_artifact_pdi_id():
    # load_pdi {id = 2, size = 1024, address = 0xabc12345678} -> 00020008 00000400 12345678 00000ABC;
    # iron's load_pdi names a device; its id comes from the artifact's PDI table.
    assert lower_words([ir.LoadPdi("dev_b")])[4:] == hexwords("00020008 00000000 00000000 00000000")
    assert lower_words([ir.LoadPdi("dev_a")])[4] == 0x00010008
    with pytest.raises(IronError, match="dev_c"):
        npu.lower_ops([ir.LoadPdi("dev_c")], PDI_IDS, "npu1")


def test_whole_stream_header_counts_every_op():
    ops = [
        ir.LoadPdi("dev_a"),
        ir.Write32(0xABC00DEF, 0x314),
        ir.BlockWrite(0x12345679, tuple(range(100, 108))),
        ir.MaskWrite32(0x567A, 0x1001, 0xF00FF00F, column=2, row=3),
        MEMCPY_WRITEBD,
        ir.AddressPatch(118788, 0, 16384),
        ir.Sync(3, 4, 1, 5, 1, 2),
    ]
    ws = lower_words(ops, "npu2", 8, "npu2")
    # 16 header + 16 + 24 + 48 + 28 + 48 + 48 + 16 bytes
    assert ws[:4] == [0x06040100, 0x00000108, 7, 244]
    header, decoded = txn.decode(txn.encode(txn.header_for("npu2", 8), npu.lower_ops(ops, PDI_IDS, "npu2")))
    assert [type(o).TXN.name for o in decoded] == [
        "LoadPdi", "Write", "BlockWrite", "MaskWrite", "BlockWrite", "DdrPatch", "Sync",
    ]  # fmt: skip


def test_unlowered_ops_are_rejected():
    memcpy = ir.DmaMemcpyNd("arg0", (0, 0, 0, 0), (1, 1, 1, 16), (0, 0, 0), "in", 0)
    with pytest.raises(IronError, match="materialize first"):
        npu.lower_ops([memcpy], PDI_IDS, "npu1")
