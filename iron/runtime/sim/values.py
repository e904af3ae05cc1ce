"""How sim's core interpreter holds MLIR values, and the conversions between them.

* integers (``i1`` ... ``i64``, ``index``): Python ints, wrapped to their width (two's
  complement) by :func:`wrap`;
* floats (``f32``, ``bf16``) scalars: Python floats (a bf16 scalar holds a bf16 value);
* vectors and memrefs: numpy arrays shaped as the type; ``bf16`` elements as uint16 bit
  patterns (as buffers and kernel models hold them), the others native (:data:`NP`).

:func:`num` gives a value's numbers for computing (bf16 bits as float32), :func:`pack`
stores computed numbers as a value of a type (bf16 rounded once to nearest-even).
"""

from __future__ import annotations

import re

import numpy as np

from iron import bf16


class NotModelledOp(Exception):
    """The core reached an op (or a form of one) sim does not interpret."""


_RE_SHAPED = re.compile(r"^(?:vector|memref)<((?:\d+x)*)(\w+)[,>]")

INT_BITS = {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64, "index": 64}
NP = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "f32": np.float32,
      "ui8": np.uint8, "ui16": np.uint16, "ui32": np.uint32, "bf16": np.uint16, "i1": np.bool_,
      "index": np.int64, "f64": np.float64, "f16": np.float16}  # fmt: skip


def wrap(value, typ: str):
    """An integer result wrapped to its type's width (two's complement)."""
    bits = INT_BITS.get(typ)
    if bits is None or bits >= 64 or isinstance(value, np.ndarray):
        return value
    if bits == 1:
        return int(value) & 1
    m = 1 << bits
    v = int(value) % m
    return v - m if v >= m >> 1 else v


def shaped(typ: str) -> tuple[tuple[int, ...], str] | None:
    """``vector<4x8xbf16>`` / ``memref<16xi32, ...>`` -> ((4, 8), "bf16"); None for other types."""
    m = _RE_SHAPED.match(typ.strip())
    return None if m is None else (tuple(int(d) for d in m.group(1).split("x")[:-1]), m.group(2))


def element(typ: str) -> str:
    """The element type of a vector or memref type, else the type itself (``i32``, ``index``)."""
    s = shaped(typ)
    return s[1] if s else typ.strip()


def is_float(et: str) -> bool:
    return et.startswith("f") or et == "bf16"


def num(v, et: str):
    """The numbers of value ``v`` of element type ``et`` (bf16 vector bits -> float32)."""
    if isinstance(v, np.ndarray) and et == "bf16":
        return bf16.from_bf16(v)
    return v


def pack(r, typ: str):
    """Numbers ``r`` as a value of type ``typ``: a vector as its numpy dtype (bf16 rounded
    to nearest-even, integers wrapped), a scalar as a Python int or float."""
    et = element(typ)
    if et not in NP:
        raise NotModelledOp(f"not modelled: values of type {typ}")
    if isinstance(r, np.ndarray) or typ.strip().startswith("vector<"):
        shape = shaped(typ)[0] if shaped(typ) else np.shape(r)
        arr = np.broadcast_to(np.asarray(r), shape)
        if et == "bf16":
            return bf16.to_bf16(arr.astype(np.float32))
        if is_float(et):
            return arr.astype(NP[et])
        return arr.astype(np.int64).astype(NP[et]) if arr.dtype.kind == "f" else arr.astype(NP[et])
    if et == "bf16":
        return float(bf16.from_bf16(bf16.to_bf16(np.float32(r))))
    if is_float(et):
        return float(np.float32(r)) if et == "f32" else float(r)
    return wrap(int(r), et)
