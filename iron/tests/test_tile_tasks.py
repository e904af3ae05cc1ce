"""DMA tasks on memtiles and compute tiles (iron/lower/tile_task.py), pinned on mlir-aie's
test/bd-chains-and-dma-tasks/dma-tasks-to-npu/dma_task_with_locks.mlir @ 0548b3a0 (its
``aie-opt --aie-dma-tasks-to-npu`` CHECK lines: the writebd lock fields, row, next_bd /
use_next_bd, and a maskwrite32 of the address on memtiles only ... no write32), and run on sim
end to end. The module texts below are that lit file's inputs (Apache-2.0 WITH LLVM-exception)."""

from __future__ import annotations

import numpy as np
import pytest

import iron
from iron.errors import IronError
from iron.lower.dma_task import TaskLowering
from iron.mlir import ir
from iron.mlir.reader import parse


def _module(tile: str, row: int, body: str, buffers: str) -> str:
    return f"""module {{
  aie.device(npu1) {{
    %{tile} = aie.tile(0, {row})
{buffers}
    aie.runtime_sequence(%arg0: memref<1024xi32>) {{
{body}
    }}
  }}
}}"""


def _lower(text: str) -> list:
    dev = parse(text).devices[0]
    seq = dev.sequences[0]
    low = TaskLowering(dev, seq, dict, None, foreign=True)
    out = []
    for op in seq.body:
        out += low.lower(op) or []
    return out


MEMTILE_LOCKS = """    %buf = aie.buffer(%tile_0_1) { address = 0x1000 : i32 } : memref<1024xi32>
    %prod_lock = aie.lock(%tile_0_1, 0) {init = 1 : i32}
    %cons_lock = aie.lock(%tile_0_1, 1) {init = 0 : i32}"""
# Test 4 of the lit file: memtile BD with locks
TEST4 = """      %t1 = aiex.dma_configure_task(%tile_0_1, S2MM, 0) {
          %c1_ul5 = arith.constant 1 : i32
          aie.use_lock(%prod_lock, Acquire, %c1_ul5)
          aie.dma_bd(%buf : memref<1024xi32> offset = 0 len = 1024) {bd_id = 0 : i32}
          %c1_ul6 = arith.constant 1 : i32
          aie.use_lock(%cons_lock, Release, %c1_ul6)
          aie.end
      }"""
# Test 7: AcquireGreaterEqual 2 on a 2048-element buffer at 0x2000
TEST7 = """      %t1 = aiex.dma_configure_task(%tile_0_1, S2MM, 0) {
          %c2_ul9 = arith.constant 2 : i32
          aie.use_lock(%prod_lock, AcquireGreaterEqual, %c2_ul9)
          aie.dma_bd(%buf : memref<1024xi32> offset = 0 len = 1024) {bd_id = 0 : i32}
          %c1_ul10 = arith.constant 1 : i32
          aie.use_lock(%cons_lock, Release, %c1_ul10)
          aie.end
      }"""
# Test 8: a chain of two BDs (aie.next_bd ^bd1)
TEST8 = """      %t1 = aiex.dma_configure_task(%tile_0_1, S2MM, 0) {
          aie.use_lock(%prod_lock, Acquire, 1)
          aie.dma_bd(%buf : memref<1024xi32> offset = 0 len = 512) {bd_id = 0 : i32}
          aie.use_lock(%cons_lock, Release, 1)
          aie.next_bd ^bd1
        ^bd1:
          aie.use_lock(%prod_lock, Acquire, 1)
          aie.dma_bd(%buf : memref<1024xi32> offset = 512 len = 512) {bd_id = 1 : i32}
          aie.use_lock(%cons_lock, Release, 1)
          aie.end
      }"""
# core_tile_with_locks.mlir @ 2315a33c test 1 (the same lit family): a compute tile
CORE = """      %t1 = aiex.dma_configure_task(%tile_0_2, S2MM, 0) {
          aie.use_lock(%prod_lock, Acquire, 1)
          aie.dma_bd(%buf : memref<1024xi32>, 0, 1024) {bd_id = 0 : i32}
          aie.use_lock(%cons_lock, Release, 1)
          aie.end
      }"""


def _bds(ops):
    return [op for op in ops if isinstance(op, ir.WriteBd)]


def test_memtile_task_lock_fields_follow_the_lit_checks():
    ops = _lower(_module("tile_0_1", 1, TEST4, MEMTILE_LOCKS))
    (bd,) = _bds(ops)
    # CHECK-SAME: lock_acq_enable = 1, lock_acq_id = 64, lock_acq_val = 1, lock_rel_id = 65,
    # lock_rel_val = 1, row = 1; CHECK: aiex.npu.maskwrite32
    assert (bd["lock_acq_enable"], bd["lock_acq_id"], bd["lock_acq_val"]) == (1, 64, 1)
    assert (bd["lock_rel_id"], bd["lock_rel_val"], bd["row"]) == (65, 1, 1)
    masks = [op for op in ops if isinstance(op, ir.MaskWrite32)]
    assert len(masks) == 1 and not [op for op in ops if isinstance(op, ir.Write32)]
    # the address word (word 1, Base_Address [18:0] in words): 0x1000 bytes -> 0x400
    assert (masks[0].address, masks[0].value, masks[0].mask) == (0xA0004, 0x400, 0x7FFFF)


def test_memtile_acquire_greater_equal_is_negated():
    (bd,) = _bds(_lower(_module("tile_0_1", 1, TEST7, MEMTILE_LOCKS)))
    assert (bd["lock_acq_id"], bd["lock_acq_val"], bd["lock_rel_id"]) == (64, -2, 65)  # CHECK: -2


def test_memtile_chain_sets_next_bd():
    bd0, bd1 = _bds(_lower(_module("tile_0_1", 1, TEST8, MEMTILE_LOCKS)))
    # CHECK-SAME: lock_acq_id = 64, lock_rel_id = 65, next_bd = 1, row = 1, use_next_bd = 1
    assert (bd0["next_bd"], bd0["use_next_bd"], bd0["lock_acq_id"], bd0["lock_rel_id"]) == (1, 1, 64, 65)
    assert (bd1["use_next_bd"], bd1["buffer_offset"]) == (0, 2048)


# TEST8 with its lock values as SSA constants (the real aie-opt refuses literal ones).
CHAIN_AT_OFFSET = """      %t1 = aiex.dma_configure_task(%tile_0_1, S2MM, 0) {
          %c1 = arith.constant 1 : i32
          aie.use_lock(%prod_lock, Acquire, %c1)
          aie.dma_bd(%buf : memref<1024xi32> offset = 0 len = 512) {bd_id = 0 : i32}
          aie.use_lock(%cons_lock, Release, %c1)
          aie.next_bd ^bd1
        ^bd1:
          %c1b = arith.constant 1 : i32
          aie.use_lock(%prod_lock, Acquire, %c1b)
          aie.dma_bd(%buf : memref<1024xi32> offset = 512 len = 512) {bd_id = 1 : i32}
          aie.use_lock(%cons_lock, Release, %c1b)
          aie.end
      }
      aiex.dma_start_task(%t1)"""


def test_task_bd_address_adds_the_bd_offset_to_the_buffer_address():
    """mlir-aie a9e39fae ``aie-opt --aie-dma-tasks-to-npu`` on CHAIN_AT_OFFSET (run on the
    real compiler of /work/shared/tools) writes ``buffer_offset = 0`` / ``2048`` and mask-writes
    ``aiex.npu.maskwrite32(1703940, 1024, 524287)`` and ``(1703972, 1536, 524287)``: the
    buffer's 0x1000 plus each BD's offset (0 and 512 i32 = 2048 bytes), in 32-bit words
    (addresses: row 1 << 20 | 0xA0004 / 0xA0024)."""
    ops = _lower(_module("tile_0_1", 1, CHAIN_AT_OFFSET, MEMTILE_LOCKS))
    assert [op["buffer_offset"] for op in _bds(ops)] == [0, 2048]
    masks = [op for op in ops if isinstance(op, ir.MaskWrite32)]
    assert [((1 << 20) | m.address, m.value, m.mask) for m in masks] == [
        (1703940, 1024, 524287),
        (1703972, 1536, 524287),
    ]


def test_core_tile_task_has_no_write32():
    buffers = MEMTILE_LOCKS.replace("tile_0_1", "tile_0_2")
    ops = _lower(_module("tile_0_2", 2, CORE, buffers))
    (bd,) = _bds(ops)
    # CHECK-SAME: lock_acq_enable = 1, lock_acq_id = 0, lock_acq_val = 1, lock_rel_id = 1,
    # lock_rel_val = 1, row = 2; CHECK-NOT: aiex.npu.write32
    assert (bd["lock_acq_id"], bd["lock_acq_val"], bd["lock_rel_id"], bd["lock_rel_val"], bd["row"]) == (
        0,
        1,
        1,
        1,
        2,
    )
    assert not [op for op in ops if isinstance(op, ir.Write32)]


def test_buffer_without_address_is_refused_as_mlir_aie_refuses_it():
    text = _module("tile_0_1", 1, TEST4, MEMTILE_LOCKS.replace(" { address = 0x1000 : i32 }", ""))
    with pytest.raises(IronError, match="Cannot lower buffer without associated address"):
        _lower(text)


THROUGH = """module {
  aie.device(npu1_1col) {
    %s = aie.tile(0, 0)
    %m = aie.tile(0, 1)
    %buf = aie.buffer(%m) {address = 4096 : i32} : memref<1024xi32>
    %prod = aie.lock(%m, 0) {init = 1 : i32}
    %cons = aie.lock(%m, 1) {init = 0 : i32}
    aie.flow(%s, DMA : 0, %m, DMA : 0)
    aie.flow(%m, DMA : 0, %s, DMA : 0)
    aie.runtime_sequence(%a: memref<2048xi32>, %b: memref<2048xi32>) {
      %in = aiex.dma_configure_task(%s, MM2S, 0) {
        aie.dma_bd(%a : memref<2048xi32>, 0, 2048) {bd_id = 0 : i32}
        aie.end
      }
      %fill = aiex.dma_configure_task(%m, S2MM, 0) {
        aie.use_lock(%prod, AcquireGreaterEqual, 1)
        aie.dma_bd(%buf : memref<1024xi32> offset = 0 len = 1024) {bd_id = 0 : i32}
        aie.use_lock(%cons, Release, 1)
        aie.end
      } {repeat_count = 1 : i32}
      %drain = aiex.dma_configure_task(%m, MM2S, 0) {
        aie.use_lock(%cons, AcquireGreaterEqual, 1)
        aie.dma_bd(%buf : memref<1024xi32> offset = 0 len = 1024 sizes = [4, 32, 8] strides = [8, 32, 1]) {bd_id = 1 : i32}
        aie.use_lock(%prod, Release, 1)
        aie.end
      } {repeat_count = 1 : i32, issue_token = true}
      %out = aiex.dma_configure_task(%s, S2MM, 0) {
        aie.dma_bd(%b : memref<2048xi32>, 0, 2048) {bd_id = 1 : i32}
        aie.end
      } {issue_token = true}
      aiex.dma_start_task(%fill)
      aiex.dma_start_task(%drain)
      aiex.dma_start_task(%out)
      aiex.dma_start_task(%in)
      aiex.dma_await_task(%drain)
      aiex.dma_await_task(%out)
    }
  }
}"""


def test_memtile_tasks_run_on_sim_with_locks_repeat_and_a_strided_read(tmp_path):
    """Two 1024-word objects pass one memtile buffer under a lock pair (depth 1, repeat 1);
    the MM2S BD reads each 32 x 32 object in 8-column blocks (sizes [4, 32, 8] strides [8, 32, 1])."""
    op = iron.from_mlir(THROUGH, name="through")
    assert [s.direction for s in op.arg_spec()] == ["in", "out"]
    art = iron.build(op, target="npu1", cache_dir=tmp_path)
    a = np.arange(2048, dtype=np.int32) * 5 - 7
    with art.load("sim") as run:
        out = run(a)
    want = np.concatenate(
        [obj.reshape(32, 4, 8).transpose(1, 0, 2).reshape(-1) for obj in a.reshape(2, 1024)]
    )
    np.testing.assert_array_equal(out, want)


#: A memtile S2MM task whose one BD has an iteration dimension (2 x 512 words, 512 apart)
#: and runs twice (repeat_count = 1); the drain reads the whole buffer once both landed.
STEPPING = """module {
  aie.device(npu1_1col) {
    %s = aie.tile(0, 0)
    %m = aie.tile(0, 1)
    %buf = aie.buffer(%m) {address = 4096 : i32} : memref<1024xi32>
    %prod = aie.lock(%m, 0) {init = 2 : i32}
    %cons = aie.lock(%m, 1) {init = 0 : i32}
    aie.flow(%s, DMA : 0, %m, DMA : 0)
    aie.flow(%m, DMA : 0, %s, DMA : 0)
    aie.runtime_sequence(%a: memref<1024xi32>, %b: memref<1024xi32>) {
      %in = aiex.dma_configure_task(%s, MM2S, 0) {
        aie.dma_bd(%a : memref<1024xi32>, 0, 1024) {bd_id = 0 : i32}
        aie.end
      }
      %fill = aiex.dma_configure_task(%m, S2MM, 0) {
        aie.use_lock(%prod, AcquireGreaterEqual, 1)
        aie.dma_bd(%buf : memref<1024xi32> offset = 0 len = 512 sizes = [2, 1, 1, 512] strides = [512, 0, 0, 1]) {bd_id = 0 : i32}
        aie.use_lock(%cons, Release, 1)
        aie.end
      } {repeat_count = 1 : i32}
      %drain = aiex.dma_configure_task(%m, MM2S, 0) {
        aie.use_lock(%cons, AcquireGreaterEqual, 2)
        aie.dma_bd(%buf : memref<1024xi32> offset = 0 len = 1024) {bd_id = 1 : i32}
        aie.use_lock(%prod, Release, 2)
        aie.end
      } {issue_token = true}
      %out = aiex.dma_configure_task(%s, S2MM, 0) {
        aie.dma_bd(%b : memref<1024xi32>, 0, 1024) {bd_id = 1 : i32}
        aie.end
      } {issue_token = true}
      aiex.dma_start_task(%fill)
      aiex.dma_start_task(%drain)
      aiex.dma_start_task(%out)
      aiex.dma_start_task(%in)
      aiex.dma_await_task(%drain)
      aiex.dma_await_task(%out)
    }
  }
}"""


def test_a_bd_used_again_within_its_task_steps_its_iteration(tmp_path):
    """The BD's iteration fields are what the real aie-opt a9e39fae (/work/shared/tools)
    ``--aie-dma-tasks-to-npu`` writes for it (``buffer_length = 512, iteration_size = 1,
    iteration_stride = 511``); the DMA steps Iteration_Current each time the BD is used in
    its task (shim_dma / tile_dma's iteration fields), so the second use lands 512 words on
    and the 1024 words come back whole, in order."""
    op = iron.from_mlir(STEPPING, name="steps")
    fill = STEPPING[STEPPING.index("      %fill") : STEPPING.index("      %drain")]
    fill = fill.replace("%m,", "%tile_0_1,").replace("%prod,", "%prod_lock,").replace("%cons,", "%cons_lock,")
    (bd,) = _bds(_lower(_module("tile_0_1", 1, fill, MEMTILE_LOCKS)))
    assert (bd["buffer_length"], bd["iteration_size"], bd["iteration_stride"]) == (512, 1, 511)
    art = iron.build(op, target="npu1", cache_dir=tmp_path)
    a = np.arange(1024, dtype=np.int32) * 3 + 1
    with art.load("sim") as run:
        np.testing.assert_array_equal(run(a), a)
