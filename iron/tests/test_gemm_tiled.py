"""GEMM tiled over K and N, executed on sim: 512 x 512 x 512 on one core and on the whole
array, K split into accumulating kernel calls, traced runs equal untraced ones.

Expected values: the numpy reference ``A @ B`` (float64, rounded once; i16 exact), and
hand-written layouts (row-major <-> mm.cc's tile-major micro-tiles) built here with
numpy reshapes, never with iron's own blocking code.
"""

from __future__ import annotations

import numpy as np
import pytest

from iron import testing
from iron.bf16 import from_bf16, to_bf16
from iron.operators import GEMM
from iron.runtime.sim.fifo import object_indices


@pytest.mark.parametrize(
    "op, target",
    [
        (GEMM(512, 512, 512), "npu2"),  # one core: 8 x 16 C tiles of 64 x 32, 8 K steps each
        (GEMM(512, 512, 512, "i16", columns=4, cores_per_column=4), "npu1"),  # whole npu1 array
        (GEMM(512, 512, 512, columns=8, cores_per_column=4), "npu2"),  # whole npu2 array
    ],
    ids=["bf16-npu2-1x1", "i16-npu1-4x4", "bf16-npu2-8x4"],
)
def test_512_cube_builds_runs_and_equals_its_reference(check_operator, op, target):
    check_operator(op, target=target)  # bf16: within op.reference_ulps at op.reference_scale


def test_k_split_traced_equals_untraced_on_both_targets(check_operator):
    op = GEMM(128, 256, 128, columns=2, cores_per_column=2, m=32, k=32, n=32)  # 8 K steps
    for target in ("npu1", "npu2"):
        result = check_operator(op, target=target, trace=True)
        assert len(result.trace.slices) == 1


def test_bf16_k_split_rounds_partial_sums_which_element_ulps_cannot_bound():
    """mm.cc stores a bf16 C after every call: with K split, results near zero carry the
    rounding of larger partial sums. Counted at the element, no small ulp count holds; counted
    at the largest partial sum (GEMM.reference_scale), (K / k) // 2 + 2 ulps do."""
    op = GEMM(128, 512, 128, m=32, k=64, n=32)
    a, b = op.example_inputs(0)
    fa, fb = from_bf16(a).astype(np.float32), from_bf16(b).astype(np.float32)
    c = np.zeros((128, 128), np.float32)
    for s in range(0, 512, 64):  # what the kernel does per call: f32 sums, C rounded to bf16
        c = from_bf16(to_bf16(c + fa[:, s : s + 64] @ fb[s : s + 64]))
    got = to_bf16(c)
    (want,) = op.reference(a, b)
    (scale,) = op.reference_scale(a, b)
    assert op.reference_ulps == 6
    assert testing.matches_reference(got, want, op.reference_ulps, scale)
    assert not testing.matches_reference(got, want, 32)


def test_joined_c_pattern_repeats_its_outer_dimension_down_the_object():
    """whole_array_iron.py's C FIFO: one core's ``(m / r, r * n), (r, t), (n / t, r * t), (t, 1)``
    pattern on the memtile's object of ``rows`` core tiles; a memtile BD has no outer wrap, so
    the DMA reads all of them, giving the column's rows x m x n block row-major."""
    rows, m, n, r, t = 4, 16, 48, 4, 4
    dims = ((m // r, r * n), (r, t), (n // t, r * t), (t, 1))
    block = np.arange(rows * m * n).reshape(rows * m, n)  # the row-major result, by value
    # each core's m x n tile stored tile-major (r x t micro-tiles, row-major inside), stacked
    tiles = block.reshape(rows, m // r, r, n // t, t).transpose(0, 1, 3, 2, 4).reshape(-1)
    assert (tiles[object_indices(0, dims, tiles.size)] == block.reshape(-1)).all()
