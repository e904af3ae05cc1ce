"""Every operator end to end on sim: alone and fused, untraced and traced, npu1 and npu2.

Uses the ``check_operator`` fixture (iron/testing.py): outputs must equal the
numpy reference bit for bit; traced runs must equal untraced ones and every
slice must decode ``ok`` with only its own units. ``trace=True`` makes the
default suite cover tracing; with ``IRON_TRACE_SIZE`` set the traces are also
written under ``IRON_TRACE_DIR``.
"""

from __future__ import annotations

import pytest

from iron import Sequence
from iron.operators import GEMM, ElementwiseAdd, ElementwiseMul, MemCopy, ReLU, RMSNorm, SiLU, Softmax
from iron.tests.test_operators import _id, _ops

# the smallest each kernel's contract allows (issue 22): the runtime-size add has a scalar
# tail; ReLU and Softmax loops step 32 lanes; mm.cc on aie2 needs DIM_M % 16, DIM_N % 16
SMALLEST = [
    ElementwiseAdd(16, tile_size=16),
    ReLU(32, tile_size=32),
    GEMM(16, 8, 16, m=16, k=8, n=16),
    Softmax(1, 32),
    RMSNorm(1, 16),
]


@pytest.mark.parametrize("target", ["npu1", "npu2"])
@pytest.mark.parametrize("op", _ops(1, 1) + _ops(2, 2), ids=_id)
def test_operator_alone(check_operator, op, target):
    result = check_operator(op, target=target, trace=True)
    assert result.trace is not None and len(result.trace.slices) == 1


@pytest.mark.parametrize("op", SMALLEST, ids=_id)
def test_smallest_legal_sizes(check_operator, op):
    check_operator(op, trace=True)


@pytest.mark.parametrize("target", ["npu1", "npu2"])
def test_every_operator_inside_one_fused_sequence(check_operator, target):
    """All ten operators chained (GEMM and Softmax reshape buffers), ReLU twice in a row."""
    n = 256
    ops = {type(op).__name__: op for op in _ops(1, 1)}
    gemm = GEMM(16, 16, 16, m=16, k=16, n=16)
    soft, norm = Softmax(8, 32), RMSNorm(8, 32)
    relu = ReLU(n, tile_size=32)
    add, mul = ElementwiseAdd(n, tile_size=32), ElementwiseMul(n, tile_size=32)
    silu, gelu, copy = SiLU(n, tile_size=32), ops["GELU"].__class__(n, tile_size=32), MemCopy(n, tile_size=32)
    axpy = ops["AXPY"].__class__(n, tile_size=64, a=0.5)
    seq = Sequence(
        "all_ops",
        [
            (gemm, "a", "b", "c"),  # c: 16x16 = 256 elements
            (relu, "c", "r1"),
            (relu, "r1", "r2"),
            (add, "r2", "d", "e"),
            (mul, "e", "d", "f"),
            (silu, "f", "g"),
            (gelu, "g", "h"),
            (axpy, "h", "d", "i"),
            (soft, "i", "j"),  # 8x32 view of the same 256 elements
            (norm, "j", "w", "k"),
            (copy, "k", "out"),
        ],
        inputs=["a", "b", "d", "w"],
        outputs=["out"],
    )
    result = check_operator(seq, target=target, trace=True)
    labels = [s.slice.label for s in result.trace.slices]
    assert labels == [
        "0:GEMM#0", "1:ReLU#0", "2:ReLU#1", "3:ElementwiseAdd#0", "4:ElementwiseMul#0", "5:SiLU#0",
        "6:GELU#0", "7:AXPY#0", "8:Softmax#0", "9:RMSNorm#0", "10:MemCopy#0",
    ]  # fmt: skip


def test_rms_norm_of_an_all_zero_row_is_zero(check_operator):
    """``y = x / sqrt(mean(x^2) + eps) * w`` (iron/kernels/weighted_rms_norm.cc): eps > 0
    keeps the denominator finite, so a row of zeros normalizes to zeros, not 0 / 0 = NaN."""
    import numpy as np

    from iron.bf16 import from_bf16

    op = RMSNorm(2, 32)
    x, w = op.example_inputs(0)
    x = x.copy()
    x[0] = 0
    result = check_operator(op, [x, w])
    assert np.array_equal(from_bf16(result.outputs[0][0]), np.zeros(32, np.float32))
