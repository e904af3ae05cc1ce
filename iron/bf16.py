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


def to_bf16(x, out: np.ndarray | None = None) -> np.ndarray:
    """Round float32 values to bfloat16 (round to nearest, ties to even); returns uint16 bits.

    NaN stays NaN (quiet bit set so truncation cannot turn it into infinity);
    values beyond the bf16 range round to +/-infinity as on hardware. ``out``: a uint16 array
    of the values' shape (any strides, e.g. a tiled view of a buffer) the bits are written
    into and returned, instead of a new array.
    """
    f = np.ascontiguousarray(x, dtype=np.float32)
    bits = f.view(np.uint32)
    # 32-bit arithmetic is exact for every non-NaN value (the largest, 0xFF7FFFFF + 0x8000, does
    # not wrap); NaNs, which could wrap, are replaced below. Kernel models call this per call:
    # in place, and the final shift narrows straight into the result.
    r = bits >> 16
    r &= 1
    r += bits
    r += 0x7FFF
    if out is None:
        out = np.empty(f.shape, np.uint16)
    np.right_shift(r, 16, out=out, casting="unsafe")
    if np.isnan(f).any():
        nan = np.isnan(f)
        out[nan] = (bits[nan] >> 16) | 0x0040
    return out


def from_bf16(bits) -> np.ndarray:
    """Exact float32 values of bfloat16 bit patterns (uint16)."""
    b = np.ascontiguousarray(bits, dtype=np.uint16)
    return (b.astype(np.uint32) << 16).view(np.float32)
