"""BD fields the static DMA programs of every tile kind share (:mod:`.static_dma`: memtiles and
compute tiles; :mod:`.static_shim`: shim tiles), as mlir-aie's ``configureBdInBlock``
(``lib/Targets/AIERT.cpp``, andrej/mlir-aie a9e39faeb1447025b504ac10a28098fcdd467255) computes them."""

from __future__ import annotations

from iron.target import tile_dma


class NotModelledBd(Exception):
    """A BD sim does not model (the message says what; the caller adds where)."""


def next_bd(block, ids: dict) -> int | None:
    """The BD id ``block``'s BD chains to: its own ``next_bd_id``, else the id of the block its
    ``aie.next_bd`` names (None: the chain ends)."""
    nxt = block.bd.next_bd_id
    if nxt is None and block.next is not None and block.next in ids:
        nxt = ids[block.next]
    return nxt


def bd_dims(bd, elem: int, kind) -> dict:
    """Sizes / strides / padding, innermost (d0) first, as ``configureBdInBlock`` scales them
    (``kind``: a memtile has four dimensions and padding; a compute tile, as a shim, three)."""
    n = len(bd.sizes)
    dims = 4 if kind is tile_dma.MEMTILE else 3  # d3: a memtile's step without a wrap
    if n > dims:  # mlir-aie's verifier refuses them
        raise NotModelledBd(f"aie.dma_bd with {n} dimensions on a {kind.name} (it has {dims})")
    if bd.pad and kind is not tile_dma.MEMTILE:
        raise NotModelledBd(f"aie.dma_bd padding on a {kind.name} (only memtile MM2S channels pad)")
    out = {}
    for i, (size, stride) in enumerate(zip(bd.sizes, bd.strides)):
        j = n - 1 - i
        if j == 0:
            size = size * elem // 4
        else:
            stride = stride * elem // 4
        out[f"d{j}_stride"] = max(stride, 1) - 1
        if j < (3 if kind is tile_dma.MEMTILE else 2):  # the outermost step has no wrap
            out[f"d{j}_size"] = size
    for i, (before, after) in enumerate(bd.pad):
        j = len(bd.pad) - 1 - i
        scale = elem / 4 if j == 0 else 1
        out[f"d{j}_zero_before"], out[f"d{j}_zero_after"] = int(before * scale), int(after * scale)
    return out


def packet_and_iteration(bd, elem: int, next_bd: int | None) -> dict:
    """A BD's packet header, iteration (its stride scaled to words) and chain fields, as
    ``configureBdInBlock`` writes them on every kind of tile."""
    f = {}
    if bd.packet is not None:
        f.update(enable_packet=1, packet_type=bd.packet[0], packet_id=bd.packet[1])
    if bd.iteration is not None and bd.iteration[0] > 1:
        size, stride, current = bd.iteration
        f.update(
            iteration_size=size - 1,
            iteration_stride=max(stride * elem // 4, 1) - 1,
            iteration_current=current,
        )
    if next_bd is not None:
        f.update(use_next_bd=1, next_bd=next_bd)
    return f
