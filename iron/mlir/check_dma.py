"""Buffers, locks and DMA BDs of a design checked as mlir-aie's verifiers check them, before
anything is built (called by :func:`iron.mlir.check.check_device`).

* ``aie.lock``: ``LockOp::verify`` "lock assigned invalid id (maximum is N)" (N + 1 locks per
  tile kind, :mod:`iron.target.tile_dma`); an ``init`` outside 0 to the largest lock value
  (``getMaxLockValue``; the value ``SetLockOp::verify`` bounds) is refused here, naming the lock,
  rather than when a BD's release later overflows it;
* ``aie.buffer``: an ``address`` inside its tile's memory (a negative one was read as none);
* ``aie.dma_bd(%x : T ...)``: ``T`` is the type ``%x`` was declared with (MLIR's parser: "use of
  value '%x' expects different type than prior uses"); read with another element type, the
  BD moved the wrong bytes silently. An explicit ``len`` moves at least one element.

Sources: lib/Dialect/AIE/IR/AIEDialect.cpp and include/aie/Dialect/AIE/IR/AIETargetModel.h at
mlir-aie a9e39faeb1447025b504ac10a28098fcdd467255.
"""

from __future__ import annotations

import re

from iron.errors import IronError
from iron.mlir import ir, storage
from iron.mlir.decl import NAME
from iron.mlir.reader import memref_type
from iron.target import tile_dma
from iron.target.geometry import SHIM_ROW

_RE_BD = re.compile(rf"aie\.dma_bd\s*\(\s*%({NAME})\s*:\s*(memref<[^>]*>)([^)]*)\)")
_RE_LEN = re.compile(r"\blen\s*=\s*(-?\d+)")


def check_storage(name: str, dev: ir.Device, tiles: dict, error: type[IronError]) -> None:
    """Raise ``error`` (naming the design ``name``) for the first lock, buffer or BD above."""
    types: dict[str, str] = {}
    for op in dev.body:
        if not isinstance(op, ir.Opaque):
            continue
        if lock := storage.read_lock(op.text):
            _check_lock(name, lock, tiles, error)
        elif buf := storage.read_buffer(op.text):
            types[buf.name] = _norm(buf.type)
            _check_buffer(name, buf, tiles, error)
    texts = [op.text for op in dev.body if isinstance(op, ir.Opaque)]
    for seq in dev.sequences:
        scope = dict(types)
        scope.update({a.name: _memref_text(a.type) for a in seq.args})
        _check_bds(name, [op.text for op in seq.body if isinstance(op, ir.Opaque)], scope, error)
    _check_bds(name, texts, types, error)


def _check_lock(name: str, lock: storage.Lock, tiles: dict, error) -> None:
    tile = tiles.get(lock.tile)
    if tile is None or tile.row == SHIM_ROW:
        return
    kind = tile_dma.kind_of_row(tile.row)
    if lock.id >= kind.locks:
        raise error(
            f"{name}: aie.lock %{lock.name} on aie.tile({tile.col}, {tile.row}): 'aie.lock' op lock assigned "
            f"invalid id (maximum is {kind.locks - 1}); a {kind.name} has {kind.locks} locks (mlir-aie's verifier)"
        )
    if not 0 <= lock.init <= tile_dma.LOCK_VALUE_MAX:
        raise error(
            f"{name}: aie.lock %{lock.name} init = {lock.init}; accepted: 0 to {tile_dma.LOCK_VALUE_MAX} "
            "(the largest value an AIE2 lock holds, mlir-aie's getMaxLockValue)"
        )


def _check_buffer(name: str, buf: storage.Buffer, tiles: dict, error) -> None:
    tile = tiles.get(buf.tile)
    if tile is None or tile.row == SHIM_ROW or buf.address is None:
        return
    kind = tile_dma.kind_of_row(tile.row)
    typ = memref_type(buf.type)
    size = typ.nbytes if typ is not None else 0
    if buf.address < 0 or buf.address + size > kind.memory:
        raise error(
            f"{name}: aie.buffer %{buf.name} address = {buf.address} ({size} bytes) on aie.tile({tile.col}, "
            f"{tile.row}); accepted: an address from 0 with the buffer inside the {kind.name}'s "
            f"{kind.memory} bytes of memory"
        )


def _check_bds(name: str, texts: list[str], scope: dict[str, str], error) -> None:
    for text in texts:
        if "aie.dma_bd" not in text:
            continue
        for m in _RE_BD.finditer(text):
            value, typ, rest = m.group(1), _norm(m.group(2)), m.group(3)
            declared = scope.get(value)
            if declared is not None and declared != typ:
                raise error(
                    f"{name}: `aie.dma_bd(%{value} : {typ} ...)`: use of value '%{value}' expects different type "
                    f"than prior uses: '{typ}' vs '{declared}' (MLIR's parser); accepted: the declared type"
                )
            length = _RE_LEN.search(rest)
            if length and int(length.group(1)) <= 0:
                raise error(
                    f"{name}: `aie.dma_bd(%{value} : {typ} ...)` len = {length.group(1)}; accepted: a BD moves "
                    "at least one element (len >= 1)"
                )


def _memref_text(t: ir.MemRefType) -> str:
    return _norm(f"memref<{'x'.join(map(str, t.shape))}x{t.dtype}>")


def _norm(text: str) -> str:
    return "".join(text.split())
