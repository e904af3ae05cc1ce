"""Shim DMA resources a design already uses, so the trace drain can avoid them.

A foreign design (:mod:`iron.operators.foreign`) moves data through shim channels and BDs of
its own choosing: object FIFOs and ``shim_dma_allocation``s (mlir-aie's channel
rule, :mod:`iron.mlir.objectfifo`), explicit ``aie.flow``/``aie.packet_flow`` into a
shim DMA, DMA tasks on a shim channel, and BD ids named by ``dma_memcpy_nd``,
``writebd`` or ``aie.dma_bd {bd_id = n}``. Each is returned with what uses it, for
the error message when nothing is left.
"""

from __future__ import annotations

import re

from iron.limits import parse_int
from iron.mlir import objectfifo
from iron.mlir import ir
from iron.mlir.decl import NAME as _NAME
from iron.target.geometry import SHIM_ROW

_RE_FLOW = re.compile(
    rf"^aie\.flow\s*\(\s*%({_NAME})\s*,\s*\w+\s*:\s*\d+\s*,\s*%({_NAME})\s*,\s*DMA\s*:\s*(\d+)\s*\)"
)
_RE_TASK = re.compile(rf"aiex\.dma_configure_task\s*\(\s*%({_NAME})\s*,\s*S2MM\s*,\s*(\d+)\s*\)")
_RE_TASK_FOR = re.compile(rf"aiex\.dma_configure_task_for\s+@({_NAME})")
_RE_BD_ID = re.compile(r"aie\.dma_bd\s*\([^)]*\)\s*\{[^}]*\bbd_id\s*=\s*(\d+)")


def used_shim_resources(device: ir.Device, sequence: str | None = None):
    """``(s2mm_channels, bds)``: ``{(column, channel): user}`` and ``{(column, bd id): user}``
    over the device body and every runtime sequence."""
    tiles = {t.name: t for t in device.tiles}
    allocs = objectfifo.shim_allocations(device)
    channels: dict[tuple[int, int], str] = {}
    for symbol, a in allocs.items():
        if a.direction == "S2MM":
            channels.setdefault((a.column, a.channel), f"@{a.symbol}")
    for f in device.packet_flows:
        t = tiles.get(f.dest.tile)
        if t is not None and t.row == SHIM_ROW and f.dest.bundle == "DMA":
            channels.setdefault((t.col, f.dest.channel), f"aie.packet_flow({f.id})")
    for op in device.body:
        if isinstance(op, ir.Opaque) and (m := _RE_FLOW.match(op.text)):
            t = tiles.get(m.group(2))
            if t is not None and t.row == SHIM_ROW:
                channels.setdefault((t.col, int(m.group(3))), "aie.flow from %" + m.group(1))
    bds: dict[tuple[int, int], str] = {}
    for seq in device.sequences:
        for op in ir.walk(seq.body):
            if isinstance(op, ir.DmaMemcpyNd) and op.metadata in allocs:
                bds.setdefault((allocs[op.metadata].column, op.id), f"dma_memcpy_nd on @{op.metadata}")
            elif isinstance(op, ir.WriteBd):
                bds.setdefault((op["column"], op["bd_id"]), "aiex.npu.writebd")
            elif isinstance(op, ir.Opaque):
                for m in _RE_TASK.finditer(op.text):
                    t = tiles.get(m.group(1))
                    if t is not None and t.row == SHIM_ROW:
                        channels.setdefault((t.col, int(m.group(2))), "aiex.dma_configure_task")
                sym = _RE_TASK_FOR.search(op.text)
                if sym and sym.group(1) in allocs:
                    for bd in _RE_BD_ID.findall(op.text):
                        bds.setdefault((allocs[sym.group(1)].column, int(bd)), f"DMA task on @{sym.group(1)}")
    return channels, bds


_RE_PACKET_FLOW_ID = re.compile(r"aie\.packet_flow\s*\(\s*(0x[0-9a-fA-F]+|\d+)\s*\)")
_RE_PKT_ID = re.compile(r"\bpkt_id\s*=\s*(\d+)")


def used_packet_ids(device: ir.Device) -> set[int]:
    """Packet ids the design routes or stamps: structured packet flows, and the ones only
    opaque text names (quoted-bundle packet flows, BD and controller ``packet_info``)."""
    ids = {f.id for f in device.packet_flows}
    texts = [op.text for op in device.body if isinstance(op, ir.Opaque)]
    texts += [t.attrs for t in device.tiles if t.attrs]
    for seq in device.sequences:
        texts += [op.text for op in ir.walk(seq.body) if isinstance(op, ir.Opaque)]
    for text in texts:
        ids.update(parse_int(m) for m in _RE_PACKET_FLOW_ID.findall(text))  # 08 is 8, as MLIR reads it
        ids.update(int(m) for m in _RE_PKT_ID.findall(text))
    return ids
