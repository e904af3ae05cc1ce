"""Index of the upstream hardware tests with static DMA programs (files: iron/tests/data/corpus,
sources in its SOURCES.md; andrej/mlir-aie a9e39faeb1447025b504ac10a28098fcdd467255).

One entry per design: its file, the targets its ``run.lit`` runs it on, ``inputs``: the host data
its ``test.cpp`` writes (numpy arrays of the design's argument shapes; bytes the test leaves unwritten
are 0), ``expected``: the outputs its check demands, computed as the test computes them (test.cpp
lines cited), ``pending`` (what sim does not model yet), ``untraceable`` (why iron cannot add a
trace drain to it: such a design builds untraced even under ``IRON_TRACE_SIZE``, and a traced build
is refused with that reason), ``aiecc_differs`` (why aiecc's own pipeline writes other control
code than iron; the real-compiler test checks it still does), ``aiecc_alone`` (why aiecc's pipeline
is run on the design alone, not fused with the others), and ``compare``: ``"equal"``,
``"histogram"`` (the test counts values, not places) or ``"relative"`` (the test checks
differences to the first output element, not values).
Plain values only: the corpus test and the static-DMA test read it.
"""

from __future__ import annotations

import numpy as np

CORPUS = "iron/tests/data/corpus"


def _file(name: str) -> str:
    return f"mlir-aie__test__npu-xrt__{name}__aie.mlir"


def _plus(n: int, k: int, dtype=np.int32):
    """test.cpp: inputs ``i + 1``, outputs ``i + 1 + k``."""
    a = np.arange(1, n + 1).astype(dtype)
    return a, (a + k).astype(dtype)


def _add_one():
    # add_one_using_dma/test.cpp lines 93-94 (srcVecA i + 1), 119-121 (ref = i + 2); arg1 unused
    a, out = _plus(64, 1)
    return [a, np.zeros(32, np.int32)], [out]


def _add_314():
    # add_314_using_dma_op/test.cpp lines 67-68 (i + 1), 91-92 (ref = i + 1 + 314)
    a, out = _plus(64, 314)
    return [a, np.zeros(32, np.int32)], [out]


def _vec_add():
    # static_L1_init / vec_vec_add_*_init test.cpp lines 110-117 (A = i + 1, B = i), 139-140 (out = A + B)
    a, b = np.arange(1, 257, dtype=np.int32), np.arange(256, dtype=np.int32)
    return [a, b], [a + b]


def _padded(rows: int, row: int, before: int, after: int, k: int, n_in: int, dtype, in_len: int):
    """Rows of ``before`` pad, ``row - before - after`` inputs, ``after`` pad, all plus ``k``;
    inputs ``i + 1`` for the first ``n_in`` elements of a buffer of ``in_len``."""
    a = np.zeros(in_len, dtype)
    a[:n_in] = np.arange(1, n_in + 1)
    out, idx = np.zeros(rows * row, np.int64), 0
    for i in range(rows):
        for j in range(row):
            if before <= j < row - after:
                out[i * row + j] = idx + 1 + k
                idx += 1
            else:
                out[i * row + j] = k
    return [a, np.zeros(32, dtype)], [out.astype(dtype)]


def _add_21():
    # add_21_i8_using_dma_op_with_padding/test.cpp lines 70-71 (IN_SIZE 32: i + 1), 94-101
    # (4 x 16: j < 4 or j >= 12 is 0 + 21, else idx + 1 + 21)
    return _padded(4, 16, 4, 4, 21, 32, np.int8, 64)


def _add_378():
    # add_378_i32_using_dma_op_with_padding/test.cpp lines 67-68 (IN_SIZE 52: i + 1), 91-98
    # (4 x 16: j == 0, 1 or 15 is 0 + 378, else idx + 1 + 378)
    return _padded(4, 16, 2, 1, 378, 52, np.int32, 64)


def _add_12():
    # add_12_i8_using_2d_dma_op_with_padding/test.cpp lines 70-71 (61 * 56 ones), 94-101
    # (64 x 64: rows i < 2 or i >= 63 and columns j < 4 or j >= 60 are 0 + 12, else 1 + 12)
    out = np.full((64, 64), 13, np.int8)
    out[:2, :], out[63:, :], out[:, :4], out[:, 60:] = 12, 12, 12, 12
    return [np.ones((61, 56), np.int8), np.zeros(32, np.int8)], [out]


def _pad_value():
    # dma_op_pad_value_i32/test.cpp lines 22-26 (13 inputs, 16 outputs, pad before 2, value 42),
    # 52-53 (in = i + 1), 73-78 (pad region 42, else j - 2 + 1)
    out = np.full(16, 42, np.int32)
    out[2:15] = np.arange(1, 14)
    return [np.arange(1, 14, dtype=np.int32)], [out]


def _merge():
    # packet_flow_same_id_merge_3way/test.cpp lines 36-40 (CHUNK 256, NUM_SRC 3 from run.lit's
    # -DNUM_SRC=3), 107-133: each sentinel 1..3 appears CHUNK times, no other value
    return [], [np.repeat(np.arange(1, 4), 256).astype(np.int8)]


def _add_256():
    # add_256_using_dma_op_no_double_buffering/test.cpp lines 67-68 (in = i), 91-92 (ref = i + 256)
    a = np.arange(64, dtype=np.int32)
    return [a, np.zeros(32, np.int32)], [a + 256]


def _vector_scalar():
    # vector_scalar_using_dma/test.cpp lines 94-96 (in = i + 1), 121-122 (ref = (i + 1) * 3)
    a = np.arange(1, 4097, dtype=np.int32)
    return [a, np.zeros(4096, np.int32)], [a * 3]


def _task_queue():
    # dmabd_task_queue/test.cpp lines 27-30 (volumes 5, 96, 96, 9), 115-132 (A = i, B = i + 1,
    # C = i + 2), 177-183 (D[0] = sum A; D[i] = sum of B[j] + C[j] for j in 12 (i - 1) .. 12 i - 1)
    a, b, c = np.arange(5, dtype=np.int32), np.arange(1, 97, dtype=np.int32), np.arange(2, 98, dtype=np.int32)
    d = np.concatenate([[a.sum()], (b + c).reshape(8, 12).sum(axis=1)]).astype(np.int32)
    return [a, b, c], [d]


def _packet_flow():
    # packet_flow/test.cpp lines 21-22 (64 x 64 int8), 69-72 (in = 1), 94-97 (ref = 1 + 12)
    return [np.ones((64, 64), np.int8), np.zeros(32, np.int8)], [np.full((64, 64), 13, np.int8)]


def _packet_two():
    # packet_flow_fanin and packet_flow_fanout test.cpp lines 21-22 (128 x 64 int8), 69-72
    # (in = 1), 94-98 (ref = 1 + 12 for rows i <= 63, 1 + 7 below)
    out = np.full((128, 64), 13, np.int8)
    out[64:] = 8
    return [np.ones((128, 64), np.int8), np.zeros(32, np.int8)], [out]


def _blockwrite():
    # add_blockwrite/test.cpp lines 93-94 (in = i + 1), 120-123 (c = 1..8, c[4] = 42; ref = i + 1 + c[i % 8])
    a, c = np.arange(1, 65, dtype=np.int32), np.array([1, 2, 3, 4, 42, 6, 7, 8], np.int32)
    return [a, np.zeros(32, np.int32)], [a + np.tile(c, 8)]


def _maskwrite():
    # add_maskwrite/test.cpp lines 125-129: 0x37373737 + 1, words 0 and 1 masked (0x12345678 under
    # 0xF0F0F0F0, 0x9ABCDEF0 under 0x0F0F0F0F) before the + 1
    ref = np.full(8, 0x37373737, np.uint32)
    ref[0] = (ref[0] & ~np.uint32(0xF0F0F0F0)) | (0x12345678 & 0xF0F0F0F0)
    ref[1] = (ref[1] & ~np.uint32(0x0F0F0F0F)) | (0x9ABCDEF0 & 0x0F0F0F0F)
    return [], [(ref + 1).view(np.int32)]


def _bd_reuse():
    # shim_dma_bd_reuse/test.cpp lines 35-38 (20 transfers of 256 from two sources of 2560), 72-73
    # (a = i + 1, b = 10000 + i + 1), 99-104 (transfer t is slice t / 2 of a for even t, of b for odd t)
    a = np.arange(1, 2561, dtype=np.int32)
    b = a + 10000
    return [a, b], [np.stack([a.reshape(10, 256), b.reshape(10, 256)], axis=1).reshape(-1)]


def _core_reset():
    # local_reset/core/test.cpp lines 27-28 (two batches of 8 i32), 80-93 (each batch uniform),
    # 99-104 (batch2 == batch1 + 1; the counter's start value is unspecified: compare "relative")
    return [], [np.repeat(np.arange(2), 8).astype(np.int32)]


STATIC_DESIGNS: dict[str, dict] = {
    "add_one_using_dma": {"file": _file("add_one_using_dma"), "targets": ["npu1", "npu2"], "data": _add_one},
    "add_314_using_dma_op": {"file": _file("add_314_using_dma_op"), "targets": ["npu1"], "data": _add_314},
    "static_L1_init": {"file": _file("static_L1_init"), "targets": ["npu1"], "data": _vec_add},
    "vec_vec_add_memtile_init": {"file": _file("vec_vec_add_memtile_init"), "targets": ["npu1", "npu2"], "data": _vec_add},
    "vec_vec_add_tile_init": {"file": _file("vec_vec_add_tile_init"), "targets": ["npu1"], "data": _vec_add},
    "xrt_handle_lifetime": {"file": _file("xrt_handle_lifetime"), "targets": ["npu1"], "data": _add_one},
    "packet_flow_same_id_merge_3way": {
        "file": _file("packet_flow_same_id_merge_3way"), "targets": ["npu1"], "data": _merge, "compare": "histogram",
    },
    "add_12_i8_using_2d_dma_op_with_padding": {
        "file": _file("add_12_i8_using_2d_dma_op_with_padding"), "targets": ["npu1"], "data": _add_12,
    },
    "add_21_i8_using_dma_op_with_padding": {
        "file": _file("add_21_i8_using_dma_op_with_padding"), "targets": ["npu1"], "data": _add_21,
    },
    "add_378_i32_using_dma_op_with_padding": {
        "file": _file("add_378_i32_using_dma_op_with_padding"), "targets": ["npu1", "npu2"], "data": _add_378,
    },
    # run.lit: npu2_1col only (the pad value register is AIE2P's)
    "dma_op_pad_value_i32": {"file": _file("dma_op_pad_value_i32"), "targets": ["npu2"], "data": _pad_value},
    # ``pending``: what sim does not model yet in the design (the test asserts the outputs come back
    # not modelled with that reason; once they compute, drop it and the reference is checked)
    "add_256_using_dma_op_no_double_buffering": {
        "file": _file("add_256_using_dma_op_no_double_buffering"), "targets": ["npu1"], "data": _add_256,
    },
    "vector_scalar_using_dma": {
        "file": _file("vector_scalar_using_dma"), "targets": ["npu1"], "data": _vector_scalar,
    },
    # run.lit: npu1_1col and npu2_1col; the shim transfers carry packet headers (dma_memcpy_nd packet = <..>)
    "packet_flow": {"file": _file("packet_flow"), "targets": ["npu1", "npu2"], "data": _packet_flow},
    "packet_flow_fanin": {"file": _file("packet_flow_fanin"), "targets": ["npu1", "npu2"], "data": _packet_two},
    "packet_flow_fanout": {
        "file": _file("packet_flow_fanout"), "targets": ["npu1", "npu2"], "data": _packet_two,
        "untraceable": "(0,0) S2MM 0 by @objFifo_out0; (0,0) S2MM 1 by @objFifo_out1",  # its one shim's S2MMs
    },
    "dmabd_task_queue": {
        "file": "mlir-aie__test__npu-xrt__dmabd_task_queue__aie.a9e39fae.mlir", "targets": ["npu1"],
        "device": {"npu1": "npu1", "npu2": "npu2_4col"},  # run.lit's substitutions
        "data": _task_queue,
    },
    # run.lit: npu1_1col and npu2_1col, --alloc-scheme=basic-sequential (the write32 / maskwrite32 into
    # buffers need their addresses at lowering: iron.mlir.placement)
    "add_blockwrite": {"file": _file("add_blockwrite"), "targets": ["npu1", "npu2"], "data": _blockwrite},
    "add_maskwrite": {"file": _file("add_maskwrite"), "targets": ["npu1", "npu2"], "data": _maskwrite},
    # 8 fire-and-forget pushes on one shim MM2S queue of depth 4 (iron.target.shim_dma.TASK_QUEUE_DEPTH)
    # between awaits; run.lit: npu1_1col and npu2_1col
    "shim_dma_bd_reuse": {
        "file": _file("shim_dma_bd_reuse"), "targets": ["npu1", "npu2"], "data": _bd_reuse,
        "aiecc_alone": "fused with add_one_using_dma on npu2, aiecc a9e39fae stops at the other device's "
        "dma_memcpy_nd: 'aie.tile(0, 0) already exists in the device with different attributes' (this "
        "design's shim tile names a controller_id)",
    },
    # reset -> unreset -> enable of Core_Control (maskwrite32s) re-runs a core that reached aie.end;
    # run.lit: npu1_1col and npu2_1col
    "local_reset/core": {
        "file": "mlir-aie__test__npu-xrt__local_reset__core__aie.mlir", "targets": ["npu1", "npu2"],
        "data": _core_reset, "compare": "relative",
    },
}  # fmt: skip

#: Upstream designs of the same style not stored here, and why sim does not run them yet.
NOT_YET: dict[str, str] = {
    "local_reset/dma": "iron's built-in lowering cannot lower `aiex.npu.push_queue` with an SSA `bd_id` "
    "(iron.lower.materialize)",
    "local_reset/dma_channel_reset_op": "the same `aiex.npu.push_queue`, and `aiex.dma_channel_reset`",
    "local_reset/core_reset_op": "iron's built-in lowering cannot lower `aiex.core_reset` (sim models the "
    "Core_Control writes it lowers to)",
}


def text(entry: dict, target: str) -> str:
    """The design's text for ``target`` (lit's NPUDEVICE placeholder replaced)."""
    from pathlib import Path

    path = Path(__file__).parent / "data" / "corpus" / entry["file"]
    device = entry.get("device", {}).get(target, "npu1_1col" if target == "npu1" else "npu2_1col")
    return path.read_text(encoding="utf-8").replace("NPUDEVICE", device)
