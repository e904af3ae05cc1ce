"""Register-level memtile DMAs on sim (iron/runtime/sim/tile_dma.py), on upstream's own
programs: passthrough_dmas/unrolled_repeat_pass.mlir (runtimeDmas object FIFOs whose
memtile BD chains the sequence writes) and passthrough_dmas/aie.mlir (hand-written BDs on
shim and memtile). The correct programs pass their example's test (output = input:
passthrough_dmas/test.cpp@0429335f); each deliberately broken copy must fail, naming why."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import iron
from iron.errors import IronError
from iron.tests.designs import DESIGNS, text

TASKS = text(DESIGNS["passthrough_memtile_tasks"], "npu1")
BDS = text(DESIGNS["passthrough_memtile_bds"], "npu1")


def _run(design: str, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        op = iron.from_mlir(design, name="pt")
    art = iron.build(op, target="npu1", cache_dir=tmp_path)
    x = np.arange(1, 4097, dtype=np.int32)  # test.cpp: i + 1
    with art.load("sim") as run:
        out = run(x, np.zeros(4096, np.int32))
    return x, out


def _writebd(design: str, bd_id: int, row: int, nth: int = 0):
    """The ``nth`` writebd of ``bd_id`` at ``row`` (its match object)."""
    pattern = rf"aiex\.npu\.writebd \{{bd_id = {bd_id} : i32[^}}]*row = {row} : i32[^}}]*\}}"
    return list(re.finditer(pattern, design))[nth]


def _edit(design: str, bd_id: int, row: int, field: str, value: int, nth: int = 0) -> str:
    m = _writebd(design, bd_id, row, nth)
    new = re.sub(rf"\b{field} = -?\d+ : i32", f"{field} = {value} : i32", m.group(0))
    assert new != m.group(0)
    return design[: m.start()] + new + design[m.end() :]


@pytest.mark.parametrize("design", [TASKS, BDS], ids=["runtime_dmas", "hand_written"])
def test_upstream_memtile_programs_pass_their_test(design, tmp_path):
    x, out = _run(design, tmp_path)
    np.testing.assert_array_equal(out, x)


def test_memtile_bd_with_its_length_off_fails(tmp_path):
    # BD 1 of the S2MM chain one word short: the 4096 words no longer fit the two tasks
    # in 1024-word objects, the MM2S side reads a buffer the S2MM side filled short.
    bad = _edit(TASKS, 1, 1, "buffer_length", 1023)
    bad = _edit(bad, 1, 1, "buffer_length", 1023, nth=1)
    x, out = _run(bad, tmp_path)
    assert not np.array_equal(out, x)
    assert out[2047] == 0 and out[2048] == x[2047]  # the short BD left its last word unwritten


def test_lock_never_released_is_named(tmp_path):
    # the MM2S BDs release lock 64 by 0: the S2MM chain's third acquire of lock 64 never succeeds
    bad = TASKS
    for bd in (2, 3):
        bad = _edit(bad, bd, 1, "lock_rel_val", 0)
    with pytest.raises(
        IronError,
        match=r"memtile \(0,1\) S2MM 0: BD \d waits to acquire lock 64 \(tile lock 0\) >= 1; it holds 0",
    ):
        _run(bad, tmp_path)


def test_chain_to_the_wrong_bd_fails(tmp_path):
    # the S2MM chain's BD 0 names BD 5, which no one wrote
    bad = _edit(TASKS, 0, 1, "next_bd", 5)
    bad = _edit(bad, 0, 1, "next_bd", 5, nth=1)
    with pytest.raises(IronError, match=r"memtile \(0,1\) S2MM 0 .*BD 0 chains to BD 5, which is not valid"):
        _run(bad, tmp_path)


def test_hand_written_memtile_bd_outside_its_memory_fails(tmp_path):
    # aie.mlir's memtile BD 0 placed so its 4096 words run past the 512 KiB memtile
    bad = _edit(BDS, 0, 1, "buffer_offset", 130000)
    with pytest.raises(IronError, match=r"memtile \(0,1\) S2MM 0 .*outside its own 524288 bytes"):
        _run(bad, tmp_path)


def test_sync_on_a_memtile_channel_without_token_names_it(tmp_path):
    # aie.mlir's memtile S2MM push without the token bit: its SYNC waits forever
    bad = BDS.replace("aiex.npu.write32 {address = 0xa0604 : ui32, column = 0 : i32, row = 1 : i32, value = 0x80000000 : ui32}",
                      "aiex.npu.write32 {address = 0xa0604 : ui32, column = 0 : i32, row = 1 : i32, value = 0 : ui32}")  # fmt: skip
    assert bad != BDS
    with pytest.raises(
        IronError, match=r"SYNC.*waits on memtile \(0,1\) S2MM 0 forever: no queued task will issue"
    ):
        _run(bad, tmp_path)


#: Two linked pairs of {runtimeDmas = true} FIFOs through one memtile that already has a
#: lock of its own (id 0).
TWO_RUNTIME_PAIRS = """module {
  aie.device(npu1_1col) {
    %shim_noc_tile_0_0 = aie.tile(0, 0)
    %mem_tile_0_1 = aie.tile(0, 1)
    %user_lock = aie.lock(%mem_tile_0_1, 0) {init = 0 : i32}
    aie.objectfifo @in(%shim_noc_tile_0_0, {%mem_tile_0_1}, 2 : i32) {runtimeDmas = true} : !aie.objectfifo<memref<1024xi32>>
    aie.objectfifo @in_fwd(%mem_tile_0_1, {%shim_noc_tile_0_0}, 2 : i32) {runtimeDmas = true} : !aie.objectfifo<memref<1024xi32>>
    aie.objectfifo.link [@in] -> [@in_fwd]([] [0])
    aie.objectfifo @in2(%shim_noc_tile_0_0, {%mem_tile_0_1}, 2 : i32) {runtimeDmas = true} : !aie.objectfifo<memref<1024xi32>>
    aie.objectfifo @in2_fwd(%mem_tile_0_1, {%shim_noc_tile_0_0}, 2 : i32) {runtimeDmas = true} : !aie.objectfifo<memref<1024xi32>>
    aie.objectfifo.link [@in2] -> [@in2_fwd]([] [0])
  }
}"""
#: What the real ``aie-opt --aie-objectFifo-stateful-transform="dynamic-objFifos=false"``
#: (mlir-aie a9e39fae, /work/shared/tools) makes of TWO_RUNTIME_PAIRS: the memtile's FIFO
#: locks numbered after its lock 0 (``in_cons_prod_lock_0`` 1 init 2, ``in_cons_cons_lock_0``
#: 2 init 0, ``in2_cons_prod_lock_0`` 3 init 2, ``in2_cons_cons_lock_0`` 4 init 0), and each
#: FIFO end on the lowest DMA channel still free on its tile, FIFOs in program order.
REAL_FLOWS = [
    (("shim_noc_tile_0_0", 0), ("mem_tile_0_1", 0)),
    (("mem_tile_0_1", 0), ("shim_noc_tile_0_0", 0)),
    (("shim_noc_tile_0_0", 1), ("mem_tile_0_1", 1)),
    (("mem_tile_0_1", 1), ("shim_noc_tile_0_0", 1)),
]
REAL_MEMTILE_LOCKS = {1: 2, 2: 0, 3: 2, 4: 0}


def test_runtime_dma_fifos_take_locks_after_the_tiles_own_and_the_lowest_free_channels():
    from iron.runtime.sim.program import program
    from iron.runtime.sim.tile_dma import runtime_fifo_resources

    routes, locks = runtime_fifo_resources(program(TWO_RUNTIME_PAIRS))
    flows = [((r.source.tile, r.source.channel), *((d.tile, d.channel) for d in r.dests)) for r in routes]
    assert flows == REAL_FLOWS
    assert {i: v for (tile, i), v in locks.items() if tile == "mem_tile_0_1"} == REAL_MEMTILE_LOCKS


def test_runtime_dma_fifo_resources_are_the_real_transforms(real_mlir_aie):
    """REAL_FLOWS and REAL_MEMTILE_LOCKS re-read from the real compiler where it is here."""
    from iron.tests.real_mlir_aie import aie_opt

    out = aie_opt(TWO_RUNTIME_PAIRS, "--aie-objectFifo-stateful-transform=dynamic-objFifos=false")
    assert out.returncode == 0, out.stderr
    flows = re.findall(r"aie\.flow\(%(\w+), DMA : (\d+), %(\w+), DMA : (\d+)\)", out.stdout)
    assert [((a, int(b)), (c, int(d))) for a, b, c, d in flows] == REAL_FLOWS
    made = re.findall(r"aie\.lock\(%mem_tile_0_1, (\d+)\) \{init = (\d+) : i32, sym_name", out.stdout)
    assert {int(i): int(v) for i, v in made} == REAL_MEMTILE_LOCKS
