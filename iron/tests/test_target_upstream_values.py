"""Numbers of iron/target/ tables that sim reads on both sides (so a wrong one still runs
self-consistently), pinned to the upstream line they come from.

Each expected value is read from andrej/mlir-aie at a9e39faeb1447025b504ac10a28098fcdd467255
(the real compiler of /work/shared/tools; file and line next to each value), not from iron.
"""

from __future__ import annotations

from iron.target import kernels as kt
from iron.target import tile_dma

UPSTREAM = "andrej/mlir-aie@a9e39faeb1447025b504ac10a28098fcdd467255"


def test_aie2p_bf16_gemm_micro_tile_is_4x8x8():
    # aie_kernels/aie2p/mm.cc:295-300 ``matmul_vectorized_4x8x8_bf16_bf16``: ``constexpr int
    # r = 4; s = 8; t = 8``, the shape mm.cc:461 picks for bf16_bf16_ONLY (without bfp16 emulation)
    mt = kt.micro_tile("aie2p", "bf16")
    assert (mt.r, mt.s, mt.t) == (4, 8, 8), UPSTREAM


def test_the_gemm_objects_zero_clears_the_whole_dim_m_by_dim_n_c_block():
    # aie_kernels/aie2p/mm.cc:507-511: ``zero_<t>`` is ``zero_vectorized<ctype_out, DIM_M,
    # DIM_N>``; aie_kernels/aie2p/zero.cc:24-33 stores zeros over ``M * N`` elements. The
    # family layout's zero.cc zeroes TILE_SIZE elements, so TILE_SIZE must be DIM_M * DIM_N.
    src = kt.KERNELS["mm"]
    defines = {"DIM_M": "32", "DIM_K": "64", "DIM_N": "48", "bf16_bf16_ONLY": "1"}
    assert kt.layout_defines(src, kt.FAMILY, defines)["TILE_SIZE"] == str(32 * 48), UPSTREAM


def test_compute_tile_bd_d1_size_is_word_3_bits_28_21():
    # lib/Dialect/AIEX/Transforms/AIEDmaToNpu.cpp:849-851, AIE2 tile DMA (6 words):
    # ``// D1_Wrap [28:21], D0_Wrap [20:13], D2_Stepsize [12:0]``,
    # ``words[3] = (op.getD1Size() & 0xff) << 21;``
    words = tile_dma.pack_bd(tile_dma.TILE, d1_size=0xA5)
    assert words[3] == 0xA5 << 21, UPSTREAM
    assert tile_dma.unpack_bd(tile_dma.TILE, [0, 0, 0, 0xFF << 21, 0, 0])["d1_size"] == 0xFF
