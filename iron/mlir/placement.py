"""Where each ``aie.buffer`` of a device sits in its tile's memory: one owner for the lowering and sim.

Buffers the design places (``address = ..``) keep their address; the others are placed as mlir-aie's
``aie-assign-buffer-addresses`` does by default (``lib/Dialect/AIE/Transforms/AIEAssignBuffers.cpp``,
andrej/mlir-aie a9e39faeb1447025b504ac10a28098fcdd467255, ``bank-aware``): per tile, a core tile's
stack (``stack_size``, else ``iron.target.tile_dma.STACK_SIZE``) first in bank 0, the given addresses
next, then the other buffers largest first, each in the first bank with room from the one after the
previous buffer's; when one does not fit, all of the tile's buffers one after another from the stack
(``basic-sequential``, the pass's fallback). Not modelled: ``mem_bank`` without an address, the
``aligned`` attribute, a tile's own ``allocation_scheme``. Read by sim (which
writes initial values there and gives cores their views) and by the lowering of
``aiex.npu.write32`` / ``maskwrite32`` / ``blockwrite`` with ``{buffer = @b}`` (addresses relative
to the buffer, :mod:`iron.lower.buffer_write`), so the control code and sim agree by construction.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from iron.errors import IronError
from iron.mlir import dma_program, ir, storage
from iron.mlir.reader import memref_type
from iron.target import tile_dma
from iron.target.geometry import SHIM_ROW

_RE_STACK = re.compile(r"stack_size\s*=\s*(\d+)")
_RE_SPACE = re.compile(r",\s*\d+\s*(?::\s*i\d+\s*)?>$")  # `, 1 : i32` or `, 2` (an i64 space)
_RE_SYM = re.compile(r'\bsym_name\s*=\s*"([^"]+)"')


@dataclass(frozen=True)
class Placed:
    """One ``aie.buffer`` placed in its tile's memory (``text``: its op, for an initial value)."""

    name: str
    col: int
    row: int
    address: int
    type: ir.MemRefType
    symbol: str  # its sym_name (``_anonymous<k>`` as the pass names an unnamed one)
    text: str = ""


@dataclass
class Declared:
    """What a device declares for its memories: DMA regions, buffers (with their op text), locks
    and each core tile's stack size, in declaration order."""

    regions: list = field(default_factory=list)
    buffers: list = field(default_factory=list)  # (storage.Buffer, text)
    locks: list = field(default_factory=list)
    stacks: dict[str, int] = field(default_factory=dict)


def declared(device: ir.Device, where: str = "", line_of=lambda text: 0) -> Declared:
    """The buffers, locks, DMA regions and stacks of ``device`` (regions read with
    :func:`iron.mlir.dma_program.read_region`; ``where`` / ``line_of`` name a region's errors)."""
    out = Declared()
    for op in device.body:
        if isinstance(op, ir.Core):
            m = _RE_STACK.search(op.attrs or "")
            out.stacks[op.tile] = int(m.group(1)) if m else tile_dma.STACK_SIZE
        if not isinstance(op, ir.Opaque):
            continue
        text = op.text.strip()
        if dma_program.is_region(text):
            region = dma_program.read_region(text, where, line_of(text))
            out.regions.append(region)
            out.buffers += [(b, _op_line(text, b.name)) for b in region.buffers]
            out.locks += region.locks
        elif (b := storage.read_buffer(text)) is not None:
            out.buffers.append((b, text))
        elif (lk := storage.read_lock(text)) is not None:
            out.locks.append(lk)
    return out


def _op_line(region: str, name: str) -> str:
    """The line declaring ``%name`` inside a region's text (a memtile's buffers may sit there)."""
    m = re.search(rf"^\s*%{re.escape(name)}\s*=\s*aie\.buffer\b.*$", region, re.M)
    return m.group(0).strip() if m else ""


class PlacementError(IronError):
    """The buffers of a tile do not fit its memory, neither bank-aware nor one after another."""


def place(device: ir.Device, decl: Declared | None = None) -> dict[str, Placed]:
    """SSA name -> :class:`Placed` for every buffer of ``device`` in a memtile or core tile."""
    decl = declared(device) if decl is None else decl
    tiles = {t.name: (t.col, t.row) for t in device.tiles}
    per_tile: dict[str, list] = {}
    for b, text in decl.buffers:
        t = memref_type(_RE_SPACE.sub(">", b.type))  # a memory space (`, 1 : i32`) changes no byte
        if tiles[b.tile][1] != SHIM_ROW and t is not None:
            per_tile.setdefault(b.tile, []).append((b, t, text))
    symbols, anonymous = {}, 0
    for b, text in decl.buffers:  # the pass names unnamed buffers _anonymous<k>, in declaration order
        if sym := _RE_SYM.search(text):
            symbols[b.name] = sym.group(1)
        else:
            symbols[b.name], anonymous = f"_anonymous{anonymous}", anonymous + 1
    out = {}
    for tile, items in per_tile.items():
        col, row = tiles[tile]
        kind = tile_dma.kind_of_row(row)
        stack = decl.stacks.get(tile, 0)  # a core's stack (aie-assign-buffer-addresses: none without a core)
        sized = [(b.name, t.nbytes, b.address) for b, t, _ in items]
        addresses = _bank_aware(sized, kind, stack) or _sequential(sized, kind, stack)
        if addresses is None:
            total = sum(n for _, n, _ in sized)
            raise PlacementError(
                f"buffers of tile {tile} ({col}, {row}): {total} bytes (stack {stack}) do not fit its "
                f"{kind.memory} bytes of memory; accepted: buffers that fit"
            )
        for b, t, text in items:
            out[b.name] = Placed(b.name, col, row, addresses[b.name], t, symbols[b.name], text)
    return out


def _bank_aware(sized: list, kind, stack: int) -> dict[str, int] | None:
    """``simpleBankAwareAllocation``: given addresses first (ascending), then the others largest
    first (Python's stable sort; the pass's std::sort keeps small lists in order too), each in the
    first bank from the one after the previous buffer's with room; None when one does not fit."""
    banks = tile_dma.MEMORY_BANKS[kind.name]
    size = kind.memory // banks
    nxt = [k * size for k in range(banks)]
    nxt[0] += stack
    out = {}
    for name, nbytes, address in sorted((s for s in sized if s[2] is not None), key=lambda s: s[2]):
        nxt[address // size] = address + nbytes
        out[name] = address
    bank = 0
    for name, nbytes, _ in sorted((s for s in sized if s[2] is None), key=lambda s: -s[1]):
        k = next(
            (k for k in ((bank + i) % banks for i in range(banks)) if nxt[k] + nbytes <= (k + 1) * size), None
        )
        if k is None:
            return None
        out[name], nxt[k], bank = nxt[k], nxt[k] + nbytes, (k + 1) % banks
    return out


def _sequential(sized: list, kind, stack: int) -> dict[str, int] | None:
    """``basicAllocation`` (the pass's fallback): largest first from the stack's end, stepping over
    given addresses; None when the last one ends past the memory."""
    given = sorted((s for s in sized if s[2] is not None), key=lambda s: s[2])
    out = {name: address for name, _, address in given}
    address, at = stack, 0
    for name, nbytes, _ in sorted((s for s in sized if s[2] is None), key=lambda s: -s[1]):
        while at < len(given) and address + nbytes > given[at][2]:
            address, at = given[at][2] + given[at][1], at + 1
        out[name], address = address, address + nbytes
    ends = [out[name] + nbytes for name, nbytes, _ in sized]
    return out if max(ends, default=0) <= kind.memory else None
