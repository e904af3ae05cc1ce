"""Static DMA programs (``aie.mem`` / ``aie.memtile_dma``) lowered into the registers the CDO writes.

A design's statically written DMA programs (read by :mod:`iron.mlir.dma_program`) are programmed
at PDI load, as mlir-aie's ``AIERTControl`` (``lib/Targets/AIERT.cpp``, andrej/mlir-aie
a9e39faeb1447025b504ac10a28098fcdd467255: ``configureLocksAndBd``, ``configureBdInBlock``,
``pushToBdQueueAndEnable``, ``initLocks``, ``initBuffers``) programs them through aie-rt, into the
same BD / lock / Start_Queue state the register-level DMAs of :mod:`iron.runtime.sim.tile_dma` run:

* buffers sit where :mod:`iron.mlir.placement` puts them (as mlir-aie's ``aie-assign-buffer-addresses``,
  the lowering reads the same); buffers with an initial value (``= dense<..>``) are written into the
  tile's memory;
* BD ids as ``aie-assign-bd-ids`` (``AIEAssignBufferDescriptorIDs.cpp``): BDs given ids keep them, the
  others take the lowest free id their channel may use (a memtile's even channels BDs 0..23, odd
  ones 24..47); each BD chains to its block's ``aie.next_bd`` (the region form: the next BD, the
  last back to the first unless ``loop = false``);
* BD words: address ``(buffer address + offset)`` and length in 32-bit words; the dimensions
  innermost first, the innermost size and padding scaled from elements to words, the other strides
  from elements to words (a stride of 0 written as 1); an ``AcquireGreaterEqual`` of ``n`` is the
  acquire value ``-n``, an ``Acquire`` of ``n`` is ``n``; a memtile names its own locks from 64
  (``getLockLocalBaseIndex``); packet id / type; the iteration; ``valid_bd``;
* one Start_Queue write per ``aie.dma_start`` / ``aie.dma``: its first BD and ``repeat_count``.

A core's ``aie.buffer`` values are views of the same tile memory and its ``aie.use_lock`` works on
the same locks (:class:`StaticDma`, used by :mod:`iron.runtime.sim.interp`). A memtile BD has four
dimensions (``d2_size`` and ``d3_stride`` too). ``aie.shim_dma`` regions: :mod:`.static_shim`.
What is not modelled (a neighbour's buffer or lock, an op the reader did not know) is reported as
``"not modelled: <what> at <file>:<line>"``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from iron.mlir import dma_program, ir, placement
from iron.mlir.placement import Placed
from iron.runtime.sim import static_bd, static_shim
from iron.target import tile_dma
from iron.target.geometry import SHIM_ROW

_RE_DENSE = re.compile(r"=\s*dense<(.*)>\s*$", re.S)


@dataclass
class StaticDma:
    """The buffers and locks of the loaded design by SSA name, for the DMAs and the cores."""

    buffers: dict[str, Placed] = field(default_factory=dict)
    locks: dict[str, tuple[int, int, int]] = field(default_factory=dict)  # name -> (col, row, id)
    unmodelled: list[str] = field(default_factory=list)

    def views(self, memory) -> dict[str, np.ndarray]:
        """Every buffer as a core sees it: a typed, shaped view of its tile's memory."""
        out = {}
        for name, b in self.buffers.items():
            raw = memory(b.col, b.row)[b.address : b.address + b.type.nbytes]
            dt = np.uint16 if b.type.dtype == "bf16" else np.dtype(ir.DTYPES[b.type.dtype])
            out[name] = raw.view(dt).reshape(b.type.shape)
        return out


def install(device, prog, dmas, mlir: str, where: str) -> StaticDma:
    """Program the static DMA regions of ``prog`` into ``device.regs`` and ``dmas`` (the loaded
    :class:`iron.runtime.sim.tile_dma.TileDmas`); returns the buffers and locks for the cores."""
    tiles = {t.name: (t.col, t.row) for t in prog.tiles.values()}
    state = StaticDma()
    decl, state.buffers = _declared(prog, mlir, where)
    regions, locks = decl.regions, decl.locks
    for b in state.buffers.values():
        if m := _RE_DENSE.search(b.text):
            dmas._memory(b.col, b.row)[b.address : b.address + b.type.nbytes] = _initial(
                m.group(1).strip(), b.type
            )
    for lk in locks:
        col, row = tiles[lk.tile]
        state.locks[lk.name] = (col, row, lk.id)
        if row != SHIM_ROW:
            dmas._locks(col, row)[lk.id] = lk.init
    for region in regions:
        state.unmodelled += region.unmodelled
        col, row = tiles[region.tile]
        if region.op == "aie.shim_dma" or row == SHIM_ROW:
            static_shim.program(state, device, region, col, static_shim.external_buffers(prog), where)
            continue
        unrouted = [
            st for st in region.starts if st.direction == "mm2s" and not _routed(dmas, tiles, region, st)
        ]
        if unrouted:  # e.g. an aiecc-written design whose routes are aie.switchbox connections
            state.unmodelled.append(
                f"{region.op} MM2S {unrouted[0].channel}: no aie.flow / aie.packet_flow leaves it "
                f"(routing by aie.switchbox is not modelled) at {where}:{unrouted[0].line}"
            )
            continue
        _program(state, device, dmas, region, col, row, where)
    return state


_DECLARED: dict[tuple[str, str], tuple] = {}  # (device text, where) -> _declared's result


def _declared(prog, mlir: str, where: str) -> tuple[placement.Declared, dict[str, Placed]]:
    """The device's declared regions, buffers and locks and where its buffers sit: read once per
    device text (a sequence loads the same few devices at every step; neither is mutated)."""
    key = (mlir, where)
    hit = _DECLARED.get(key)
    if hit is None:
        decl = placement.declared(prog.device, where, lambda text: _line_of(mlir, text))
        hit = decl, placement.place(prog.device, decl)
        if len(_DECLARED) >= 64:  # bounded: a long session loads many designs
            _DECLARED.clear()
        _DECLARED[key] = hit
    return hit


def _routed(dmas, tiles: dict, region, start) -> bool:
    return any(
        r.source.tile == region.tile and r.source.bundle == "DMA" and r.source.channel == start.channel
        for r in dmas.routes
    )


def _line_of(mlir: str, text: str) -> int:
    at = mlir.find(text.split("\n", 1)[0].strip())
    return mlir.count("\n", 0, at) + 1 if at >= 0 else 0


def _initial(dense: str, t: ir.MemRefType) -> np.ndarray:
    """The bytes of a buffer's ``dense<..>`` initial value: a list, a splat, or MLIR's hex form
    (``"0x.."``: the elements' little-endian bytes, as aie-opt prints large values)."""
    if dense.startswith('"0x'):
        return np.frombuffer(bytes.fromhex(dense[3:-1]), np.uint8)[: t.nbytes]
    values = np.array([float(x) if "." in x else int(x, 0) for x in re.split(r"[\s,\[\]]+", dense) if x])
    dt = np.uint16 if t.dtype == "bf16" else np.dtype(ir.DTYPES[t.dtype])
    return np.broadcast_to(values.astype(dt), t.shape).reshape(-1).view(np.uint8)


def _bd_ids(region, kind: tile_dma.DmaKind) -> dict[str, int]:
    """Block label -> BD id, as ``aie-assign-bd-ids`` assigns them (see the module docstring)."""
    channel_of: dict[str, int] = {}
    for start in region.starts:
        for block in dma_program.chain(region, start):
            channel_of.setdefault(block.label, start.channel)
    taken = {b.bd.bd_id for b in region.blocks.values() if b.bd is not None and b.bd.bd_id is not None}
    ids = {}
    for label, block in region.blocks.items():
        if block.bd is None:
            continue
        if block.bd.bd_id is not None:
            ids[label] = block.bd.bd_id
            continue
        ch = channel_of.get(label, 0)
        half = kind.bd_count // 2
        usable = (
            range(kind.bd_count) if kind is tile_dma.TILE else range((ch % 2) * half, (ch % 2 + 1) * half)
        )
        bd = next(k for k in usable if k not in taken)
        taken.add(bd)
        ids[label] = bd
    return ids


def _program(state: StaticDma, device, dmas, region, col: int, row: int, where: str) -> None:
    kind = tile_dma.kind_of_row(row)
    ids = _bd_ids(region, kind)
    for label, block in region.blocks.items():
        if block.bd is None:
            continue
        nxt = static_bd.next_bd(block, ids)
        try:
            fields = bd_fields(state, block, kind, (col, row), device.target.name, nxt)
        except static_bd.NotModelledBd as e:
            state.unmodelled.append(f"{e} at {where}:{block.bd.line}")
            return
        words = tile_dma.pack_bd(kind, **fields)
        base = tile_dma.bd_address(kind, ids[label])
        for w, value in enumerate(words):
            device.regs[col, row][base + 4 * w] = value
    for start in region.starts:
        if start.first not in ids:
            continue
        if start.pad_value and start.direction == "mm2s":
            dmas.pad_values[col, row, "mm2s", start.channel] = start.pad_value
        value = tile_dma.pack_start_queue(kind, ids[start.first], start.repeat_count)
        offset = tile_dma.start_queue(kind, start.direction, start.channel)
        device.regs[col, row][offset] = value
        dmas.store(col, row, offset, value, f"{region.op} at {where}:{start.line}")


def bd_fields(state: StaticDma, block, kind, tile: tuple[int, int], target: str, next_bd: int | None) -> dict:
    """The writebd-style field values (:func:`iron.target.tile_dma.pack_bd`) of one static BD block."""
    bd = block.bd
    buf = state.buffers.get(bd.buffer)
    if buf is None:
        raise static_bd.NotModelledBd(f"aie.dma_bd on %{bd.buffer}, a buffer sim did not place")
    if (buf.col, buf.row) != tile:
        raise static_bd.NotModelledBd(f"aie.dma_bd on %{bd.buffer} of another tile's memory")
    elem = buf.type.nbytes // buf.type.numel
    length = bd.length if bd.length is not None else buf.type.numel
    address = (
        buf.address + bd.offset * elem + (tile_dma.STATIC_MEMTILE_OWN_BASE if kind is tile_dma.MEMTILE else 0)
    )
    f = {"buffer_length": length * elem // 4, "valid_bd": 1}
    f["buffer_offset"] = address if kind.offset_in_bytes else address // 4
    f.update(static_bd.bd_dims(bd, elem, kind))
    f.update(_locks(state, block, kind, tile))
    f.update(static_bd.packet_and_iteration(bd, elem, next_bd))
    return f


def _locks(state: StaticDma, block, kind, tile: tuple[int, int]) -> dict:
    """Acquire / release of the block's ``aie.use_lock`` ops (``configureLocksInBdBlock``)."""
    out = {}
    for use in block.locks:
        where = state.locks.get(use.lock)
        if where is None or where[:2] != tile:
            raise static_bd.NotModelledBd(f"aie.use_lock of %{use.lock}, not a lock of this tile")
        lock_id = where[2] + kind.own_lock_base
        if use.action == "Release":
            out.update(lock_rel_id=lock_id, lock_rel_val=use.value)
        else:
            value = -use.value if use.action == "AcquireGreaterEqual" else use.value
            out.update(lock_acq_id=lock_id, lock_acq_val=value, lock_acq_enable=1)
    return out


LOCK_MAX = 63  # an AIE2 lock's largest value (iron.runtime.sim.tile_dma)


def core_use_lock(core, text: str):
    """Generator: a core's ``aie.use_lock(%l, Acquire | AcquireGreaterEqual | Release, n)`` on the
    locks the DMAs use (waits while the acquire cannot be granted); ``core``: the interpreter."""
    use = dma_program.read_use_lock(text)
    static = core.engine.device.static_dma
    where = static.locks.get(use.lock) if static is not None else None
    if where is None:
        raise core.not_modelled(f"not modelled: aie.use_lock of %{use.lock}, a lock sim does not know")
    col, row, lock_id = where
    locks = core.engine.device.tile_dmas._locks(col, row)
    value = int(core.val(use.value[1:])) if isinstance(use.value, str) else use.value
    proc = core.proc
    if use.action == "Release":
        locks[lock_id] = min(locks[lock_id] + value, LOCK_MAX)
        proc.t += 1
        return
    ge = use.action == "AcquireGreaterEqual"
    while not (locks[lock_id] >= value if ge else locks[lock_id] == value):
        proc.wait = (
            f"{use.action} lock %{use.lock} ({col},{row}) #{lock_id} {value}: it holds {locks[lock_id]}"
        )
        yield False
    if ge:
        locks[lock_id] -= value
    proc.wait = ""
    proc.t += 1
