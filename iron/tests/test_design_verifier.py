"""Designs mlir-aie's verifiers refuse are refused before building, with the verifier's reason;
values outside what the hardware holds are refused naming the op and the value (issue 36, "silent
wrong results" and "misleading messages"). The real compiler (a9e39fae, fixture ``real_mlir_aie``)
is the reference: where it reads the case, the test asserts that it refuses it too, or that it
verifies the design (the value is then caught by iron's own check, naming what is accepted).

Each case failed on the code before: a BD reading an i32 buffer as i16 gave wrong outputs, lock
id 64 on a memtile was a raw IndexError, ``init = 1000`` blamed a BD's release, a negative
address was "has no address", ``len = 0`` blamed ``dma_memcpy_nd``.
"""

from __future__ import annotations

import numpy as np
import pytest

import iron
from iron.mlir.check import DesignCheckError
from iron.tests.real_mlir_aie import verify

#: Two 1024-word objects pass one memtile buffer under a lock pair (iron/tests/test_tile_tasks.py's
#: THROUGH, in the syntax the real aie-opt a9e39fae reads: SSA lock values, ``offset = / len =``).
MEMTILE_THROUGH = """module {
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
        aie.dma_bd(%a : memref<2048xi32> offset = 0 len = 2048) {bd_id = 0 : i32}
        aie.end
      }
      %fill = aiex.dma_configure_task(%m, S2MM, 0) {
        %c1 = arith.constant 1 : i32
        aie.use_lock(%prod, AcquireGreaterEqual, %c1)
        aie.dma_bd(%buf : memref<1024xi32> offset = 0 len = 1024) {bd_id = 0 : i32}
        aie.use_lock(%cons, Release, %c1)
        aie.end
      } {repeat_count = 1 : i32}
      %drain = aiex.dma_configure_task(%m, MM2S, 0) {
        %c1 = arith.constant 1 : i32
        aie.use_lock(%cons, AcquireGreaterEqual, %c1)
        aie.dma_bd(%buf : memref<1024xi32> offset = 0 len = 1024) {bd_id = 1 : i32}
        aie.use_lock(%prod, Release, %c1)
        aie.end
      } {repeat_count = 1 : i32, issue_token = true}
      %out = aiex.dma_configure_task(%s, S2MM, 0) {
        aie.dma_bd(%b : memref<2048xi32> offset = 0 len = 2048) {bd_id = 1 : i32}
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

FILL_BD = "aie.dma_bd(%buf : memref<1024xi32> offset = 0 len = 1024) {bd_id = 0"
#: name -> (edit of MEMTILE_THROUGH, iron's message, the real aie-opt's first error line or "" (verifies))
CASES = {
    "bd-type": (
        (FILL_BD, FILL_BD.replace("xi32>", "xi16>")),
        r"use of value '%buf' expects different type than prior uses: 'memref<1024xi16>' vs 'memref<1024xi32>'",
        "use of value '%buf' expects different type than prior uses: 'memref<1024xi16>' vs 'memref<1024xi32>'",
    ),
    "lock-id": (
        ("%cons = aie.lock(%m, 1)", "%cons = aie.lock(%m, 64)"),
        r"aie.lock %cons on aie.tile\(0, 1\): 'aie.lock' op lock assigned invalid id \(maximum is 63\)",
        "'aie.lock' op lock assigned invalid id (maximum is 63)",
    ),
    "lock-init": (
        ("%prod = aie.lock(%m, 0) {init = 1 : i32}", "%prod = aie.lock(%m, 0) {init = 1000 : i32}"),
        r"aie.lock %prod init = 1000; accepted: 0 to 63",
        "",
    ),
    "address": (
        ("address = 4096", "address = -4096"),
        r"aie.buffer %buf address = -4096 \(4096 bytes\) on aie.tile\(0, 1\); accepted: an address from 0",
        "",
    ),
    "address-past-memory": (
        ("address = 4096", "address = 524288"),
        r"aie.buffer %buf address = 524288 .* inside the memtile's 524288 bytes",
        "",
    ),
    "len-0": (
        (FILL_BD, FILL_BD.replace("len = 1024", "len = 0")),
        r"`aie.dma_bd\(%buf : memref<1024xi32> ...\)` len = 0; accepted: a BD moves at least one element",
        "",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_refused_before_building_naming_the_op_and_value(tmp_path, case):
    (old, new), message, _real = CASES[case]
    assert old in MEMTILE_THROUGH
    op = iron.from_mlir(MEMTILE_THROUGH.replace(old, new), name="through")
    with pytest.raises(DesignCheckError, match=message):
        iron.build(op, target="npu1", cache_dir=tmp_path)
    assert [p.name for p in tmp_path.iterdir() if p.name != ".locks"] == []  # nothing cached


@pytest.mark.parametrize("case", list(CASES))
def test_the_real_compiler_agrees(real_mlir_aie, case):
    (old, new), _message, real = CASES[case]
    got = verify(MEMTILE_THROUGH.replace(old, new))
    assert (real in got and got) if real else got == ""


def test_the_unedited_design_runs_and_the_real_compiler_verifies_it(tmp_path, real_mlir_aie):
    assert verify(MEMTILE_THROUGH) == ""
    art = iron.build(iron.from_mlir(MEMTILE_THROUGH, name="through"), target="npu1", cache_dir=tmp_path)
    a = np.arange(2048, dtype=np.int32) - 5
    with art.load("sim") as run:
        np.testing.assert_array_equal(run(a), a)
