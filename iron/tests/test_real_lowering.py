"""What only iron's own derivations and fakes checked before, now against the real mlir-aie
a9e39fae ``aie-opt``: the shim channels iron derives for object FIFOs, and the routing of
iron's flows (trace packet flows with their packet ids, object-FIFO streams).

For every built-in operator on npu1 and npu2, traced, one and several columns, iron's printed
module (in the install's era) goes through ``--aie-objectFifo-stateful-transform`` (static)
and ``--aie-create-pathfinder-flows``:

- each ``aie.shim_dma_allocation`` the real transform creates (symbol, direction, channel,
  column) equals the allocation iron derives for that object FIFO
  (:func:`iron.mlir.objectfifo.shim_allocations`, which iron's DMA lowering and sim use);
- the router routes every flow (it fails on one it cannot place), and every packet id iron
  gives a trace unit appears in a packet rule of that device.
"""

from __future__ import annotations

import re

import pytest


from iron.builder import toolchain
from iron.fuse.fusion import fuse
from iron.mlir.objectfifo import shim_allocations
from iron.mlir.printer import print_module
from iron.options import resolve
from iron.target.geometry import get_target
from iron.tests import real_mlir_aie as real
from iron.tests.test_real_control_code import _all_in_one, _gemms, _operators

PASSES = ("--aie-objectFifo-stateful-transform=dynamic-objFifos=false", "--aie-create-pathfinder-flows")
_DEVICE = re.compile(r"aie\.device\(\w+\)\s*(?:@(\w+))?\s*\{")
_TILE = re.compile(r"%([\w.]+) = aie\.tile\((\d+), (\d+)\)")
_ALLOC = re.compile(r"aie\.shim_dma_allocation @(\w+)\(%([\w.]+), (MM2S|S2MM), (\d+)\)")
_RULE = re.compile(r"aie\.rule\(\d+, (\d+),")


def real_devices(text: str) -> dict[str, str]:
    """The real passes' output, one text per device (by symbol; "" for the unnamed one)."""
    marks = list(_DEVICE.finditer(text))
    ends = [m.start() for m in marks[1:]] + [len(text)]
    return {m.group(1) or "": text[m.start() : end] for m, end in zip(marks, ends)}


def real_allocations(device_text: str) -> dict[str, tuple[str, int, int]]:
    cols = {name: int(c) for name, c, _ in _TILE.findall(device_text)}
    return {sym: (d, int(ch), cols[tile]) for sym, tile, d, ch in _ALLOC.findall(device_text)}


@pytest.mark.parametrize("target", ["npu1", "npu2"])
@pytest.mark.parametrize("size", [1, 2])
def test_shim_allocations_and_routing_equal_the_real_compiler(real_mlir_aie, monkeypatch, target, size):
    real.prefer(monkeypatch, real_mlir_aie)  # iron prints its era
    ops = _operators(size, size) + (_gemms() if size == 1 else [])
    for seq in _all_in_one(ops, 1000 if target == "npu1" else 15):
        fm = fuse(seq, get_target(target), resolve(size=8192, env={}), "separate")
        out = real.aie_opt(print_module(fm.module, toolchain.era()), *PASSES)
        assert out.returncode == 0, out.stderr[-2000:]
        devices = real_devices(out.stdout)
        compared = 0
        for device in fm.module.devices:
            theirs = real_allocations(devices[device.symbol or ""])
            mine = {
                sym: (a.direction, a.channel, a.column)
                for sym, a in shim_allocations(device).items()
                if sym in theirs
            }
            assert mine == theirs, device.symbol
            rules = {int(i) for i in _RULE.findall(devices[device.symbol or ""])}
            assert {f.id for f in device.packet_flows} <= rules, device.symbol
            compared += len(theirs)
        assert compared >= len(seq.steps) * 2  # every operator reads and writes the host
