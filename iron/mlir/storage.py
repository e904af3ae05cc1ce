"""``aie.buffer`` and ``aie.lock`` ops, read from the text iron keeps them in (``ir.Opaque``).

One reader for the lowering of DMA tasks on memtiles and compute tiles
(:mod:`iron.lower.tile_task`: a buffer's address, a lock's id) and for sim's register-level
DMAs (:mod:`iron.runtime.sim.program`: a lock's initial value). Forms as mlir-aie prints them
(``AIEOps.td``): ``%b = aie.buffer(%tile) {address = 0 : i32, sym_name = "b"} : memref<..>``,
``%l = aie.lock(%tile, 0) {init = 2 : i32, sym_name = "l"}``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from iron.limits import parse_int
from iron.mlir.decl import NAME

_RE_BUFFER = re.compile(
    rf"^%({NAME})\s*=\s*aie\.buffer\s*\(\s*%({NAME})\s*\)\s*(\{{[^{{}}]*\}})?\s*:\s*(memref<[^>]*>)"
)
_RE_ADDRESS = re.compile(r"\baddress\s*=\s*(-?(?:0x[0-9a-fA-F]+|\d+))")
_RE_LOCK = re.compile(rf"^%({NAME})\s*=\s*aie\.lock\s*\(\s*%({NAME})\s*,\s*(\d+)\s*\)\s*(\{{.*\}})?")
_RE_INIT = re.compile(r"\binit\s*=\s*(-?\d+)")


@dataclass(frozen=True)
class Buffer:
    name: str
    tile: str  # SSA name of its tile
    address: int | None  # bytes, when the design places it
    type: str  # its memref type


@dataclass(frozen=True)
class Lock:
    name: str
    tile: str
    id: int
    init: int = 0


def read_buffer(text: str) -> Buffer | None:
    """The ``aie.buffer`` of op ``text`` (None: not one)."""
    m = _RE_BUFFER.match(" ".join(text.split()))
    if m is None:
        return None
    address = _RE_ADDRESS.search(m.group(3) or "")
    return Buffer(m.group(1), m.group(2), parse_int(address.group(1)) if address else None, m.group(4))


def read_lock(text: str) -> Lock | None:
    """The ``aie.lock`` of op ``text`` (None: not one)."""
    m = _RE_LOCK.match(" ".join(text.split()))
    if m is None:
        return None
    init = _RE_INIT.search(m.group(4) or "")
    return Lock(m.group(1), m.group(2), int(m.group(3)), int(init.group(1)) if init else 0)
