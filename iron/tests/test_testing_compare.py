"""How executed outputs are compared with references (iron.testing.matches_reference).

Expected values are bf16 bit patterns written out by hand: 0x3F80 is 1.0, one bf16 ulp
at 1.0 is 2**-7 (0x3F81 = 1.0078125); 0xBF80 is -1.0; 0x7FC0 a quiet NaN.
"""

import numpy as np

from iron import testing
from iron.fuse.fusion import as_sequence
from iron.operators import GEMM, ReLU


def bits(*values: int) -> np.ndarray:
    return np.array(values, dtype=np.uint16)


def test_exact_unless_ulps_are_allowed():
    assert testing.matches_reference(bits(0x3F80), bits(0x3F80))
    assert not testing.matches_reference(bits(0x3F81), bits(0x3F80))
    assert testing.matches_reference(bits(0x3F81), bits(0x3F80), ulps=1)


def test_ulps_count_at_the_larger_magnitude_of_the_pair():
    assert testing.matches_reference(bits(0x3F82), bits(0x3F80), ulps=2)  # 1.015625 vs 1.0
    assert not testing.matches_reference(bits(0x3F83), bits(0x3F80), ulps=2)  # three ulps
    assert not testing.matches_reference(bits(0xBF80), bits(0x3F80), ulps=2)  # -1.0 vs 1.0


def test_nan_only_where_the_reference_has_nan_and_integers_stay_exact():
    assert not testing.matches_reference(bits(0x7FC0), bits(0x3F80), ulps=8)
    assert testing.matches_reference(bits(0x7FC0, 0x3F81), bits(0x7FC0, 0x3F80), ulps=1)
    assert not testing.matches_reference(np.array([2], np.int32), np.array([1], np.int32), ulps=8)


def test_tolerance_of_a_sequence_adds_its_steps():
    gemm = GEMM(64, 64, 64)
    assert testing.reference_ulps(as_sequence(ReLU(size=1024))) == 0  # elementwise models are exact
    seq = testing.Sequence("two", [(gemm, "a", "b", "c"), (gemm, "c", "b", "d")], ["a", "b"], ["d"])
    assert testing.reference_ulps(seq) == 2 * gemm.reference_ulps == 4
    assert GEMM(64, 64, 64, dtype="i16").reference_ulps == 0  # integer accumulation is exact
