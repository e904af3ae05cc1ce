"""iron.bf16's rounding, pinned on bit patterns worked out from the formats' definitions
(IEEE 754 binary32; bfloat16 = its top 16 bits: sign, 8 exponent bits, 7 fraction bits, rounded
to nearest, ties to even)."""

import numpy as np

from iron.bf16 import to_bf16

# float32 bits -> bfloat16 bits, by hand: the low 16 bits decide (0x8000 is the tie)
CASES = [
    (0x3F808000, 0x3F80),  # 1 + 2^-8: a tie, 0x3F80 is even -> stays
    (0x3F818000, 0x3F82),  # 1 + 3 * 2^-8: a tie, 0x3F81 is odd -> up to even
    (0x3F808001, 0x3F81),  # just above the tie -> up
    (0x3F807FFF, 0x3F80),  # just below -> down
    (0xBF818000, 0xBF82),  # the sign does not matter for the tie rule
    (0x7F7FFFFF, 0x7F80),  # the largest float32 rounds past bf16's largest: +inf
    (0x7F800001, 0x7FC0),  # a NaN whose payload is in the low bits: stays NaN (quiet bit)
    (0xFFFFFFFF, 0xFFFF),  # a NaN whose rounding would wrap: stays NaN
]


def test_to_bf16_rounds_to_nearest_even_and_keeps_nans():
    bits = np.array([c[0] for c in CASES], np.uint32)
    assert to_bf16(bits.view(np.float32)).tolist() == [c[1] for c in CASES]


def test_to_bf16_writes_into_a_strided_out_and_returns_it():
    bits = np.array([c[0] for c in CASES], np.uint32).view(np.float32).reshape(2, 4)
    buf = np.zeros((4, 2), np.uint16)
    out = to_bf16(bits, out=buf.T)  # a transposed view, as the GEMM model writes its tiled C
    assert out.base is buf
    assert buf.T.reshape(-1).tolist() == [c[1] for c in CASES]
