"""The numpy kernel models (iron.runtime.sim.kernel_models) against hand-written references.

Expected values never come from the models: they are numpy written out here from the
kernel sources' contracts (mm.cc's tile-major micro-tiles, fixed 1024-element entries,
passThrough's 64-byte steps, relu_aie2.h's F = n / 32 loop)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from iron.bf16 import from_bf16, to_bf16
from iron.runtime.sim.kernel_models import KernelModelError, model_for, refusal
from iron.target import kernels as kt

RNG = np.random.default_rng(7)


def blocked(x: np.ndarray, r: int, c: int) -> np.ndarray:
    """Row-major ``x`` as r x c tiles stored tile-major, each tile row-major (written out
    from mm_aie2p.h's comment: 'the entire tiles themselves are stored in row-major order')."""
    rows, cols = x.shape
    out = np.empty(x.size, x.dtype)
    i = 0
    for tr in range(rows // r):
        for tc in range(cols // c):
            tile = x[tr * r : (tr + 1) * r, tc * c : (tc + 1) * c]
            out[i : i + r * c] = tile.reshape(-1)
            i += r * c
    return out


def unblocked(flat: np.ndarray, rows: int, cols: int, r: int, c: int) -> np.ndarray:
    out = np.empty((rows, cols), flat.dtype)
    i = 0
    for tr in range(rows // r):
        for tc in range(cols // c):
            out[tr * r : (tr + 1) * r, tc * c : (tc + 1) * c] = flat[i : i + r * c].reshape(r, c)
            i += r * c
    return out


MM = {"DIM_M": "16", "DIM_K": "64", "DIM_N": "32", "i16_i32_ONLY": "1"}


@pytest.mark.parametrize("arch,rst", [("aie2", (4, 4, 4)), ("aie2p", (4, 4, 8))])
def test_blocked_matmul_i16_equals_a_at_b(arch, rst):
    r, s, t = rst  # mm_aie2.h 4x4x4_i16_i32, mm_aie2p.h 4x4x8_i16_i32
    A = RNG.integers(-100, 100, (16, 64), dtype=np.int16)
    B = RNG.integers(-100, 100, (64, 32), dtype=np.int16)
    a, b = blocked(A, r, s).reshape(16, 64), blocked(B, s, t).reshape(64, 32)
    c = np.zeros((16, 32), np.int32)
    model_for("zero_i32", MM, arch)(c)
    model_for("matmul_i16_i32", MM, arch)(a, b, c)
    expect = A.astype(np.int64) @ B.astype(np.int64)
    np.testing.assert_array_equal(unblocked(c.reshape(-1), 16, 32, r, t), expect.astype(np.int32))
    # accumulates: a second call adds A @ B again (the design zeroes between row blocks)
    model_for("matmul_i16_i32", MM, arch)(a, b, c)
    np.testing.assert_array_equal(unblocked(c.reshape(-1), 16, 32, r, t), 2 * expect.astype(np.int32))


def test_row_major_data_gives_wrong_numbers():
    A = RNG.integers(-100, 100, (16, 64), dtype=np.int16)
    B = RNG.integers(-100, 100, (64, 32), dtype=np.int16)
    c = np.zeros((16, 32), np.int32)
    model_for("matmul_i16_i32", MM, "aie2p")(A.copy(), B.copy(), c)
    assert not np.array_equal(c, (A.astype(np.int64) @ B).astype(np.int32))


def test_bf16_matmul_within_two_ulp_of_float64():
    d = {"DIM_M": "16", "DIM_K": "32", "DIM_N": "16", "bf16_bf16_ONLY": "1"}
    A = to_bf16(RNG.uniform(-1, 1, (16, 32)).astype(np.float32))
    B = to_bf16(RNG.uniform(-1, 1, (32, 16)).astype(np.float32))
    r, s, t = 4, 8, 4  # mm_aie2.h matmul_vectorized_4x8x4_bf16_bf16
    c = np.full((16, 16), 0x4000, np.uint16)  # garbage the zero entry must clear
    model_for("zero_bf16", d, "aie2")(c)
    model_for("matmul_bf16_bf16", d, "aie2")(blocked(A, r, s), blocked(B, s, t), c)
    got = from_bf16(unblocked(c.reshape(-1), 16, 16, r, t))
    ref = from_bf16(A).astype(np.float64) @ from_bf16(B).astype(np.float64)
    ulp = np.abs(ref) * 2.0**-7 + 1e-30
    assert np.all(np.abs(got - ref) <= 2 * ulp)


def test_dim_k_32_with_a_64_wide_tile_is_wrong():
    """The break of issue 22: mm.cc compiled with DIM_K = 32 while the L1 tile is 64 wide."""
    A = RNG.integers(-50, 50, (16, 64), dtype=np.int16)
    B = RNG.integers(-50, 50, (64, 32), dtype=np.int16)
    wrong = {**MM, "DIM_K": "32"}
    c = np.zeros((16, 32), np.int32)
    model_for("matmul_i16_i32", wrong, "aie2")(
        blocked(A, 4, 4).reshape(16, 64), blocked(B, 4, 4).reshape(64, 32), c
    )
    assert not np.array_equal(
        unblocked(c.reshape(-1), 16, 32, 4, 4), (A.astype(np.int64) @ B).astype(np.int32)
    )


def test_matmul_static_assert_and_overrun():
    with pytest.raises(KernelModelError, match=r"DIM_M % 16"):
        model_for(
            "matmul_bf16_bf16", {"DIM_M": "8", "DIM_K": "8", "DIM_N": "16", "bf16_bf16_ONLY": "1"}, "aie2"
        )
    model = model_for("matmul_i16_i32", MM, "aie2")
    with pytest.raises(KernelModelError, match="past the buffer"):
        model(np.zeros((8, 64), np.int16), np.zeros((64, 32), np.int16), np.zeros((16, 32), np.int32))


def test_fixed_1024_entry_with_a_512_tile_overruns():
    x, y = np.zeros(512, np.uint16), np.zeros(512, np.uint16)
    with pytest.raises(KernelModelError, match="1024 elements"):
        model_for("silu_bf16", {}, "aie2p")(x, y)
    with pytest.raises(KernelModelError, match="1024"):
        model_for("eltwise_add_bf16_vector", {}, "aie2")(x, x.copy(), y)


def test_fixed_and_sized_add_compute_their_count():
    a = to_bf16(RNG.uniform(-4, 4, 1024).astype(np.float32))
    b = to_bf16(RNG.uniform(-4, 4, 1024).astype(np.float32))
    c = np.zeros(1024, np.uint16)
    model_for("eltwise_add_bf16_vector", {}, "aie2")(a, b, c)
    np.testing.assert_array_equal(c, to_bf16(from_bf16(a) + from_bf16(b)))
    c2 = np.zeros(1024, np.uint16)
    model_for("eltwise_add_bf16_vector_size", {}, "aie2p")(a, b, c2, 40)  # scalar tail: exactly 40
    np.testing.assert_array_equal(c2[:40], c[:40])
    assert not c2[40:].any()


def test_relu_lane_step_tails_per_arch():
    x = to_bf16(np.linspace(-3, 3, 64).astype(np.float32))
    relu = lambda v: to_bf16(np.maximum(from_bf16(v), 0))  # noqa: E731
    y = np.full(64, 0x1234, np.uint16)
    model_for("relu_bf16_size", {}, "aie2")(x, y, 48)  # relu_aie2.h: F = 48 / 32 = 1 vector
    np.testing.assert_array_equal(y[:32], relu(x[:32]))
    assert (y[32:] == 0x1234).all()
    y = np.full(64, 0x1234, np.uint16)
    model_for("relu_bf16_size", {}, "aie2p")(x, y, 48)  # relu_aie2p.h: i < 48; i += 32: 2 vectors
    np.testing.assert_array_equal(y, relu(x))
    with pytest.raises(KernelModelError):
        model_for("relu_bf16_size", {}, "aie2p")(x[:48], y[:48], 48)  # the 2nd vector runs past


@pytest.mark.parametrize("bits,dtype", [(8, np.int8), (16, np.uint16), (32, np.int32)])
def test_passthrough_copies_bit_width_elements(bits, dtype):
    x = RNG.integers(0, 100, 64).astype(dtype)
    y = np.zeros(64, dtype)
    model_for("passThroughLine", {"BIT_WIDTH": str(bits)}, "aie2")(x, y, 64)
    np.testing.assert_array_equal(y, x)


def test_missing_bit_width_overruns_a_bf16_tile():
    """The break of issue 22: no BIT_WIDTH takes passThrough's 32-bit branch: a 32-element
    bf16 tile is copied as 32 x 4 bytes, twice the buffer."""
    x, y = np.zeros(32, np.uint16), np.zeros(32, np.uint16)
    with pytest.raises(KernelModelError, match="BIT_WIDTH=unset"):
        model_for("passThroughLine", {}, "aie2")(x, y, 32)
    model_for("passThroughLine", {"BIT_WIDTH": "16"}, "aie2")(x, y, 32)


def test_integer_kernels_wrap_and_saxpy_steps_64():
    a = np.array([32767, -5, 7, 1], np.int16)
    b = np.array([1, 5, 3, 2], np.int16)
    c = np.zeros(4, np.int16)
    model_for("eltwise_add_i16_vector", {}, "aie2")(a, b, c, 4)
    np.testing.assert_array_equal(c, [-32768, 0, 10, 3])
    model_for("eltwise_mul_i16_vector", {}, "aie2")(a, b, c, 4)
    np.testing.assert_array_equal(c, [32767, -25, 21, 2])
    x = to_bf16(np.arange(128, dtype=np.float32) / 8)
    y = to_bf16(np.ones(128, np.float32))
    z = np.zeros(128, np.uint16)
    model_for("saxpy", {}, "aie2p")(x, y, 2.0, z, 100)  # 100 / 64 = 1 step of 64
    np.testing.assert_array_equal(z[:64], to_bf16(2 * from_bf16(x[:64]) + 1))
    assert not z[64:].any()


def test_zero_entry_of_zero_cc_and_unknown_symbols():
    c = np.ones(64, np.int32)
    model_for("zero", {"TILE_SIZE": "48", "ZERO_TYPE": "int32_t"}, "aie2")(c)
    assert not c[:48].any() and (c[48:] == 1).all()
    assert model_for("no_such_kernel", {}, "aie2") is None


def test_the_model_table_refuses_what_it_does_not_list(monkeypatch):
    """A symbol no table lists has no model, and says why; so has a symbol the kernel table
    lists whose source or operation has no model (a ``sub`` is never modelled as a neighbour)."""
    assert model_for("eltwise_sub_i32_vector", {}, "aie2") is None
    assert refusal("eltwise_sub_i32_vector") == (
        "'eltwise_sub_i32_vector' is in none of iron's kernel tables (iron.target.kernels: the kernel "
        "sources and upstream's example kernels; upstream's test kernels in iron.runtime.sim.kernel_models)"
    )
    # as if iron.target.kernels gained an eltwise/sub.cc source with no model written for it
    sub_source = dataclasses.replace(kt.kernel("add"), key="sub")
    sub = dataclasses.replace(kt.entry("eltwise_add_bf16_vector")[1], symbol="eltwise_sub_bf16_vector")
    listed = kt.entry
    monkeypatch.setattr(kt, "entry", lambda s: (sub_source, sub) if s == sub.symbol else listed(s))
    assert model_for(sub.symbol, {}, "aie2") is None
    assert (
        refusal(sub.symbol)
        == "'eltwise_sub_bf16_vector': kernel source 'sub' of iron.target.kernels has no model"
    )
    for known in ("eltwise_add_bf16_vector", "eltwise_mul_i16_vector", "matmul_i16_i32", "add_one", "zero"):
        assert refusal(known) is None, known


def test_add_adds_and_mul_multiplies():
    """Each elementwise model computes its own operation (by hand: 3 + 5 = 8, 3 * 5 = 15, exact in bf16)."""
    three, five = to_bf16(np.full(1024, 3, np.float32)), to_bf16(np.full(1024, 5, np.float32))
    for symbol, want in (("eltwise_add_bf16_vector", 8), ("eltwise_mul_bf16_vector", 15)):
        c = np.zeros(1024, np.uint16)
        model_for(symbol, {}, "aie2")(three, five, c)
        assert (from_bf16(c) == want).all(), symbol
    for symbol, want in (("eltwise_add_i16_vector", 8), ("eltwise_mul_i16_vector", 15)):
        c = np.zeros(4, np.int16)
        model_for(symbol, {}, "aie2")(np.full(4, 3, np.int16), np.full(4, 5, np.int16), c, 4)
        assert (c == want).all(), symbol
