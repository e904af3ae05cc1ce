"""``aie.shim_dma`` regions: shim BDs and channel starts written statically in the design.

As mlir-aie's ``AIERTControl`` programs them at PDI load (``lib/Targets/AIERT.cpp``, andrej/mlir-aie
a9e39faeb1447025b504ac10a28098fcdd467255: ``configureBdInBlock`` then ``pushToBdQueueAndEnable``),
checked against the real compiler's ``--convert-aie-to-transaction`` (iron/tests/test_sim_static_dma.py):

* each BD's words in the shim's registers (:mod:`iron.target.shim_dma`'s layout): length in 32-bit
  words, the byte address ``aie.external_buffer``'s ``address`` (0 when it has none) plus the offset,
  the dimensions as on a compute tile (:func:`iron.runtime.sim.static_bd.bd_dims`), packet header,
  iteration, chain, ``burst_length`` (0: the target's largest), ``valid_bd``; AXI cache 0, as
  aie-rt leaves it on this path;
* BD ids as ``aie-assign-bd-ids``: given ones kept, the others the lowest free of the shim's;
* one Task_Queue value per ``aie.dma_start``: its first BD and repeat count, the task-complete
  token on S2MM channels only (``enableTokenIssue`` for a shim S2MM).

The hardware starts those tasks at load, on a host address fixed in the design. Host buffers
are placed by XRT at run time, so no buffer the runtime binds holds that address: each start is
reported "not modelled" with the channel, BD and address (the outputs are not modelled; the BD
words stay programmed for a runtime sequence that patches and pushes them itself). A BD with
locks (the shim's own, which sim does not model) is reported likewise.
"""

from __future__ import annotations

import re

from iron.limits import parse_int
from iron.mlir import ir
from iron.mlir.decl import NAME
from iron.mlir.reader import memref_type
from iron.runtime.sim import static_bd
from iron.target import shim_dma, tile_dma

_RE_EXTERNAL = re.compile(
    rf"^%({NAME})\s*=\s*aie\.external_buffer\b\s*(\{{[^{{}}]*\}})?\s*:\s*(memref<[^>]*>)"
)
_RE_ADDRESS = re.compile(r"\baddress\s*=\s*(0x[0-9a-fA-F]+|\d+)")


def external_buffers(prog) -> dict[str, tuple[int, ir.MemRefType]]:
    """``aie.external_buffer`` values by SSA name: (host byte address, 0 without one; type)."""
    out = {}
    for op in prog.device.body:
        if isinstance(op, ir.Opaque) and (m := _RE_EXTERNAL.match(" ".join(op.text.split()))):
            t = memref_type(m.group(3).replace(" ", ""))
            address = _RE_ADDRESS.search(m.group(2) or "")
            if t is not None:
                out[m.group(1)] = (parse_int(address.group(1)) if address else 0, t)
    return out


def program(state, device, region, col: int, externals: dict, where: str) -> None:
    """Write ``region``'s BDs and Task_Queue values into shim ``col``'s registers; each start is
    added to ``state.unmodelled`` (see the module docstring)."""
    ids = _bd_ids(region)
    regs = device.regs[col, 0]
    addresses = {}
    for label, block in region.blocks.items():
        if block.bd is None:
            continue
        nxt = static_bd.next_bd(block, ids)
        try:
            fields, addresses[label] = _fields(block, externals, nxt)
        except static_bd.NotModelledBd as e:
            state.unmodelled.append(f"{e} at {where}:{block.bd.line}")
            return
        for w, value in enumerate(shim_dma.pack_bd(arch=device.target.name, **fields)):
            regs[shim_dma.bd_word(ids[label], w)] = value
    for start in region.starts:
        if start.first not in ids:
            continue
        token = start.direction == "s2mm"
        regs[shim_dma.task_queue(start.direction, start.channel)] = shim_dma.pack_task_queue(
            ids[start.first], repeat=start.repeat_count, issue_token=token
        )
        state.unmodelled.append(
            f"aie.shim_dma {start.direction.upper()} {start.channel} starts BD {ids[start.first]} at host "
            f"address 0x{addresses[start.first]:x} when the PDI loads (a static address: no buffer the "
            f"runtime binds holds it) at {where}:{start.line}"
        )


def _bd_ids(region) -> dict[str, int]:
    taken = {b.bd.bd_id for b in region.blocks.values() if b.bd is not None and b.bd.bd_id is not None}
    ids = {}
    for label, block in region.blocks.items():
        if block.bd is not None:
            ids[label] = block.bd.bd_id
            if ids[label] is None:
                ids[label] = next(k for k in range(shim_dma.SHIM_BD_COUNT) if k not in taken)
                taken.add(ids[label])
    return ids


def _fields(block, externals: dict, next_bd: int | None) -> tuple[dict, int]:
    """(shim BD field values, its host byte address) of one block."""
    bd = block.bd
    if bd.buffer not in externals:
        raise static_bd.NotModelledBd(f"aie.shim_dma BD on %{bd.buffer}, not an aie.external_buffer")
    if block.locks:
        raise static_bd.NotModelledBd("aie.shim_dma BD with aie.use_lock (sim models no shim locks)")
    base, t = externals[bd.buffer]
    elem = t.nbytes // t.numel
    length = bd.length if bd.length is not None else t.numel
    address = base + bd.offset * elem
    f = {"buffer_length": length * elem // 4, "valid_bd": 1, "axcache": 0, "burst_length": bd.burst_length}
    f.update(buffer_offset=address & 0xFFFFFFFF, address_high=address >> 32)
    f.update(static_bd.bd_dims(bd, elem, tile_dma.TILE))  # a shim BD's dimensions are a compute tile's
    f.update(static_bd.packet_and_iteration(bd, elem, next_bd))
    return f, address
