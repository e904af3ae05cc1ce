"""Whether a trace unit's packets can reach the shim row at all, given the design's circuits.

A trace unit at row r sends its packets to a shim DMA (row 0), so they cross every row
boundary below it southward: from row b to row b - 1 through one of the South master
ports of a tile in row b (and a North slave of the tile under it). A circuit-switched
stream (an object FIFO's DMA flow, an ``aie.flow``) holds its port alone; packet flows share
ports with each other. So where the design's circuits that must cross a boundary southward
take every port across it, no packet can cross and mlir-aie's router answers "Unable to find a
legal routing" (mlir-aie a9e39fae, ``--aie-create-pathfinder-flows``): upstream's
whole_array matmul on ``npu1_2col`` sends 8 output FIFOs from its 8 cores down to the
memtiles, and row 2 has 2 x 4 South masters, so no core can be traced there.

This is a cut bound: a unit it refuses cannot be routed; one it accepts still needs the
router to find the path (``test_real_lowering.py`` checks iron's flows with the real one).
Only circuits that surely exist are counted: object FIFOs with a memtile or shim end (those
always go through DMAs and the stream switch) and explicit ``aie.flow`` ops; a FIFO between
two cores may share memory instead and is not counted. Port counts are
:data:`iron.target.stream_switch.PORTS` (mlir-aie ``AIETargetModel.cpp``).
"""

from __future__ import annotations

import re

from iron.mlir import ir
from iron.mlir.decl import NAME as _NAME
from iron.target import stream_switch
from iron.target.geometry import MEMTILE_ROW, SHIM_ROW, device_columns

_RE_FLOW = re.compile(rf"^aie\.flow\s*\(\s*%({_NAME})\s*,[^,]*,\s*%({_NAME})\s*,")


def _kind(row: int) -> str:
    """The :data:`~iron.target.stream_switch.PORTS` kind of a row's tiles."""
    return "shim" if row == SHIM_ROW else "memtile" if row == MEMTILE_ROW else "core"


def boundary_ports(device: ir.Device, row: int) -> int:
    """Streams that can go south from ``row`` to ``row - 1`` across the whole device: per
    column, the fewer of row's South masters and the row under it's North slaves."""
    south = stream_switch.PORTS[_kind(row)]["South"][0][1]
    north = stream_switch.PORTS[_kind(row - 1)]["North"][1][1]
    return device_columns(device.target) * min(south, north)


def _circuits(device: ir.Device) -> list[tuple[int, int]]:
    """``(source row, lowest destination row)`` of every circuit that surely exists."""
    rows = {t.name: t.row for t in device.tiles}
    out = []
    for op in device.body:
        if isinstance(op, ir.ObjectFifo) and op.producer in rows:
            ends = [rows[c] for c in op.consumers if c in rows]
            if ends and min([rows[op.producer], *ends]) <= MEMTILE_ROW:
                out.append((rows[op.producer], min(ends)))
        elif isinstance(op, ir.Opaque) and (m := _RE_FLOW.match(op.text)):
            if m.group(1) in rows and m.group(2) in rows:
                out.append((rows[m.group(1)], rows[m.group(2)]))
    return out


def south_circuits(device: ir.Device) -> dict[int, int]:
    """Row b -> how many of the design's circuits must cross from row b to row b - 1."""
    crossing: dict[int, int] = {}
    for source, dest in _circuits(device):
        for row in range(dest + 1, source + 1):
            crossing[row] = crossing.get(row, 0) + 1
    return crossing


def blocked_boundary(device: ir.Device, row: int) -> tuple[int, int] | None:
    """The highest boundary ``(row b, circuits across it)`` below a unit at ``row`` whose
    South ports the design's circuits all take, or None when its packets can leave."""
    crossing = south_circuits(device)
    for b in range(row, SHIM_ROW, -1):
        if crossing.get(b, 0) >= boundary_ports(device, b):
            return b, crossing[b]
    return None


def why_blocked(device: ir.Device, place: tuple[str, int, int]) -> str | None:
    """One line on why the trace of unit ``(kind, column, row)`` cannot reach a shim, or None."""
    kind, col, row = place
    hit = blocked_boundary(device, row)
    if hit is None:
        return None
    b, n = hit
    return (
        f"{kind}({col},{row}): its trace packets must go south from row {b} to row {b - 1}, and the "
        f"design's {n} circuit flows across that boundary take all {boundary_ports(device, b)} ports "
        f"of {device.target} (AIETargetModel.cpp South masters per tile)"
    )
