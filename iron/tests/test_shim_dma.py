"""Shim DMA BD / channel encodings (iron.target.shim_dma) against upstream words."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from iron.errors import IronError
from iron.target import shim_dma as sd


def signed(words):
    return np.array(words, dtype=np.uint32).view(np.int32).tolist()


def test_bd_addresses():
    assert sd.bd_address(0) == 0x1D000
    assert sd.bd_address(15) == 0x1D1E0
    assert sd.bd_address(15) + 4 == 0x1D1E4  # address_patch target of BD 15
    with pytest.raises(IronError, match="0..15"):
        sd.bd_address(16)


def test_upstream_image_npu_dma_memcpy():
    # mlir-aie test/Targets/NPU/npu_dma_memcpy.mlir @6dd529e7:
    # CHECK: ... memref<8xi32> = dense<[2048, 0, 0, 33554432, -2113929153, 33556479, 0, 33554432]>
    # from dma_memcpy_nd [1,0,0,0][1,2,32,32][4096,2048,64,1] (i32, npu1, default burst)
    words = sd.pack_bd(
        buffer_length=2048,
        d0_size=32,
        d0_stride=0,
        d1_size=32,
        d1_stride=63,
        d2_stride=2047,
        valid_bd=1,
    )
    assert signed(words) == [2048, 0, 0, 33554432, -2113929153, 33556479, 0, 33554432]
    f = sd.unpack_bd(words)
    assert (f["burst_length"], f["axcache"], f["d2_stride"]) == (256, 2, 2047)
    # the older revision of that test (@0429335f) predates AxCache = 2: word 5 = 2047
    old = sd.pack_bd(
        buffer_length=2048,
        d0_size=32,
        d1_size=32,
        d1_stride=63,
        d2_stride=2047,
        valid_bd=1,
        axcache=0,
    )
    assert signed(old) == [2048, 0, 0, 33554432, -2113929153, 2047, 0, 33554432]


def test_upstream_image_iteration():
    # mlir-aie dma_to_npu_iter_repeat.mlir (aie-dma-to-npu lit test):
    # CHECK: @blockwrite_data_0 ... dense<[64, 0, 0, 0, -2147483648, 33554432, 3145791, 33554432]>
    # iter_size=4 -> wrap 3, iter_stride=64 -> step 63
    words = sd.pack_bd(buffer_length=64, iteration_size=3, iteration_stride=63, valid_bd=1)
    assert signed(words) == [64, 0, 0, 0, -2147483648, 33554432, 3145791, 33554432]
    # same file: CHECK: aiex.npu.write32 {address = 119316 : ui32, value = 196609 : ui32}
    assert sd.task_queue("mm2s", 0) == 119316
    assert sd.pack_task_queue(1, repeat=3) == 196609


def test_trace_bd_design_section_4():
    # writebd {bd_id = 15, buffer_length = 2048, buffer_offset = 0, burst_length = 64,
    #          enable_packet = 1, packet_id = 1, packet_type = 0, valid_bd = 1}
    # derived from the field table (no upstream CHECK of these words was found)
    words = sd.pack_bd(buffer_length=2048, enable_packet=1, packet_id=1, burst_length=64, valid_bd=1)
    assert words == (2048, 0, 0x40080000, 0, 0, 0x02000000, 0, 0x02000000)


def test_burst_encoding():
    assert sd.pack_bd(burst_length=64)[4] == 0
    assert sd.pack_bd(burst_length=128)[4] == 1 << 30
    assert sd.pack_bd(burst_length=256)[4] == 2 << 30
    assert sd.pack_bd(burst_length=0)[4] == 2 << 30
    assert sd.pack_bd(burst_length=0, arch="npu2")[4] == 3 << 30
    assert sd.unpack_bd(sd.pack_bd(burst_length=512, arch="npu2"), arch="npu2")["burst_length"] == 512
    with pytest.raises(IronError, match="burst_length=512"):
        sd.pack_bd(burst_length=512)
    with pytest.raises(IronError, match="encoding 3"):
        sd.unpack_bd([0, 0, 0, 0, 3 << 30, 0, 0, 0])


def test_single_field_positions():
    # each field alone at its maximum lands exactly on its aie-rt mask
    masks = {
        "buffer_length": (0, 0xFFFFFFFF),
        "address_high": (2, 0x0000FFFF),
        "packet_type": (2, 0x00070000),
        "packet_id": (2, 0x00F80000),
        "out_of_order_id": (2, 0x3F000000),
        "enable_packet": (2, 0x40000000),
        "d0_stride": (3, 0x000FFFFF),
        "d0_size": (3, 0x3FF00000),
        "secure_access": (3, 0x40000000),
        "d1_stride": (4, 0x000FFFFF),
        "d1_size": (4, 0x3FF00000),
        "d2_stride": (5, 0x000FFFFF),
        "axqos": (5, 0x00F00000),
        "axcache": (5, 0x0F000000),
        "smid": (5, 0xF0000000),
        "iteration_stride": (6, 0x000FFFFF),
        "iteration_size": (6, 0x03F00000),
        "iteration_current": (6, 0xFC000000),
        "lock_acq_id": (7, 0x0000000F),
        "lock_acq_val": (7, 0x00000FE0),
        "lock_acq_enable": (7, 0x00001000),
        "lock_rel_id": (7, 0x0001E000),
        "lock_rel_val": (7, 0x01FC0000),
        "valid_bd": (7, 0x02000000),
        "use_next_bd": (7, 0x04000000),
        "next_bd": (7, 0x78000000),
        "tlast_suppress": (7, 0x80000000),
    }
    for name, (word, mask) in masks.items():
        f = next(x for x in sd.BD_FIELDS if x.name == name)
        zero = {"axcache": 0, "burst_length": 64}
        base = list(sd.pack_bd(**zero))
        words = sd.pack_bd(**{**zero, name: (1 << f.width) - 1})
        changed = [i for i in range(8) if words[i] != base[i]]
        assert changed == [word] and words[word] == mask, name
    assert sd.pack_bd(axcache=0, buffer_offset=0xFFFFFFFC)[1] == 0xFFFFFFFC


def test_range_errors():
    with pytest.raises(IronError, match=r"packet_id=32 out of range 0..31"):
        sd.pack_bd(packet_id=32)
    with pytest.raises(IronError, match=r"d0_size=-1 out of range 0..1023"):
        sd.pack_bd(d0_size=-1)
    with pytest.raises(IronError, match=r"buffer_length=4294967296 out of range"):
        sd.pack_bd(buffer_length=1 << 32)
    with pytest.raises(IronError, match="multiple of 4"):
        sd.pack_bd(buffer_offset=6)
    with pytest.raises(IronError, match="unknown shim BD field.*bd_id"):
        sd.pack_bd(bd_id=15)
    with pytest.raises(IronError, match="8 words"):
        sd.unpack_bd([0] * 6)


def _field_strategy():
    parts = {}
    for f in sd.BD_FIELDS:
        if f.name == "burst_length":
            parts[f.name] = st.sampled_from([64, 128, 256])
        elif f.name == "buffer_offset":
            parts[f.name] = st.integers(0, (1 << 30) - 1).map(lambda v: v * 4)
        else:
            parts[f.name] = st.integers(0, (1 << f.width) - 1)
    return st.fixed_dictionaries(parts)


@given(_field_strategy())
def test_pack_unpack_round_trip(fields):
    words = sd.pack_bd(**fields)
    assert len(words) == 8 and all(0 <= w < 1 << 32 for w in words)
    assert sd.unpack_bd(words) == fields
    assert sd.pack_bd(**sd.unpack_bd(words)) == words


def test_channel_registers():
    assert [sd.channel_ctrl(d, c) for d in ("s2mm", "mm2s") for c in (0, 1)] == [
        0x1D200,
        0x1D208,
        0x1D210,
        0x1D218,
    ]
    assert [sd.task_queue(d, c) for d in ("s2mm", "mm2s") for c in (0, 1)] == [
        0x1D204,
        0x1D20C,
        0x1D214,
        0x1D21C,
    ]
    assert [sd.channel_status(d, c) for d in ("s2mm", "mm2s") for c in (0, 1)] == [
        0x1D220,
        0x1D224,
        0x1D228,
        0x1D22C,
    ]
    assert sd.channel_ctrl("S2MM", 1) == 0x1D208
    with pytest.raises(IronError, match="no shim DMA channel"):
        sd.task_queue("s2mm", 2)


def test_task_queue():
    assert sd.pack_task_queue(15, issue_token=True) == 0x8000000F
    assert sd.pack_task_queue(0) == 0
    assert sd.pack_task_queue(3, repeat=255) == 0x00FF0003
    assert sd.unpack_task_queue(0x8003000F) == {
        "start_bd": 15,
        "repeat": 3,
        "issue_token": True,
    }
    with pytest.raises(IronError, match="start_bd=16"):
        sd.pack_task_queue(16)
    with pytest.raises(IronError, match="repeat=256"):
        sd.pack_task_queue(0, repeat=256)


def test_ctrl_and_status():
    assert sd.pack_ctrl(controller_id=0x12) == 0x1200
    v = sd.pack_ctrl(3, pause_mem=True, pause_stream=True, enable_out_of_order=True, fot_mode=2)
    assert v == 0x0002030E  # within the S2MM Ctrl register mask 0x0003FF0E
    assert sd.unpack_ctrl(v) == {
        "controller_id": 3,
        "pause_mem": True,
        "pause_stream": True,
        "enable_out_of_order": True,
        "fot_mode": 2,
    }
    with pytest.raises(IronError, match="S2MM channels only"):
        sd.pack_ctrl(0, direction="mm2s", enable_out_of_order=True)
    s = sd.unpack_status("s2mm", (15 << 24) | (2 << 20) | (1 << 19) | 1)
    assert (s["cur_bd"], s["task_queue_size"], s["channel_running"], s["status"]) == (
        15,
        2,
        1,
        1,
    )
    assert "stalled_stream_backpressure" in sd.unpack_status("mm2s", 0)
