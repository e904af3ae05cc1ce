"""bfloat16 <-> float32 for host data.

numpy has no bfloat16, so iron passes bf16 arrays (runner inputs and outputs,
operator references) as uint16 bit patterns::

    import iron
    a = iron.bf16.to_bf16(np.random.rand(64, 64).astype(np.float32))   # uint16 bits
    (c,) = runner(a, b)
    values = iron.bf16.from_bf16(c)                                      # float32
"""

from __future__ import annotations

import numpy as np


def to_bf16(x) -> np.ndarray:
    """Round float32 values to bfloat16 (round to nearest, ties to even); returns uint16 bits.

    NaN stays NaN (quiet bit set so truncation cannot turn it into infinity);
    values beyond the bf16 range round to +/-infinity as on hardware.
    """
    f = np.ascontiguousarray(x, dtype=np.float32)
    bits = f.reshape(-1).view(np.uint32)
    # 32-bit arithmetic is exact for every non-NaN value (the largest, 0xFF7FFFFF + 0x8000, does
    # not wrap); NaNs, which could wrap, are replaced below. Kernel models call this per call.
    out = ((bits + (((bits >> 16) & 1) + 0x7FFF)) >> 16).astype(np.uint16)
    nan = np.isnan(f.reshape(-1))
    if nan.any():
        out[nan] = ((bits[nan] >> 16) | 0x0040).astype(np.uint16)
    return out.reshape(f.shape)


def from_bf16(bits) -> np.ndarray:
    """Exact float32 values of bfloat16 bit patterns (uint16)."""
    b = np.ascontiguousarray(bits, dtype=np.uint16)
    return (b.astype(np.uint32) << 16).view(np.float32)
