"""sim ends every run (issue 36, "endless spin" and the sim items of "raw exceptions"): where the
hardware would hang or spin, sim stops with one ``SimError`` naming who spins or waits on what;
an access or division MLIR leaves undefined is an error, never numpy's wrap-around or a raw
exception. Each test fails (hangs, passes silently or raises a raw exception) on the code before.

The designs are written here; expected outcomes are MLIR's rules (``scf.for``'s verifier: "constant
step operand must be positive"; ``memref.load`` / ``arith.divsi`` out of bounds / by zero:
undefined behaviour, the MLIR dialect docs) and the hardware's (an MM2S stalls until its stream is
taken; a BD chain looping without locks never stops).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import iron
from iron.errors import IronError
from iron.runtime.sim import progress
from iron.runtime.sim.errors import SimError

from iron.tests.real_mlir_aie import verify
from iron.tests.small_designs import ADD_ONE, CORE, DMA_LOOP, MEMTILE_THROUGH


def _run(text: str, tmp_path, n: int = 32):
    art = iron.build(iron.from_mlir(text, name="p"), target="npu1", cache_dir=tmp_path)
    a = np.arange(n, dtype=np.int32) * 3
    with art.load("sim") as run:
        return a, run(a)


def test_the_core_design_runs(tmp_path):
    a, out = _run(CORE.replace("BODY", ADD_ONE), tmp_path)
    np.testing.assert_array_equal(out, a + 1)


def test_a_core_spinning_without_fifo_ops_is_stopped_with_a_report(tmp_path, monkeypatch):
    """Before: sim ran the loop (2**40 iterations) for ever."""
    monkeypatch.setattr(progress, "BASE_STEPS", 1 << 14)  # the same rule, sooner: a short test
    spin = (
        "        %big = arith.constant 1099511627776 : index\n        scf.for %k = %c0 to %big step %c1 {\n          %v = memref.load %x[%c0] : memref<16xi32>\n        }\n"
        + ADD_ONE
    )
    with pytest.raises(
        progress.SpinError, match=r"core \(0,2\) ran \d+ steps .* without touching an object FIFO"
    ):
        _run(CORE.replace("BODY", spin), tmp_path)


def test_a_memtile_dma_loop_without_locks_is_stopped_naming_its_channels(tmp_path):
    """MM2S BD 1 chains to itself into the memtile's own S2MM, whose BD 3 chains to itself:
    no lock ever stops them (the real aie-opt verifies this design). Before: sim spun forever."""
    with pytest.raises(
        progress.SpinError, match=r"memtile \(0,1\) S2MM 0 \(BD 3\), memtile \(0,1\) MM2S 0 \(BD 1\) loop"
    ):
        art = iron.build(iron.from_mlir(DMA_LOOP, name="loop"), target="npu1", cache_dir=tmp_path)
        with art.load("sim") as run:
            run(np.zeros(1024, np.int32))


def test_a_dma_loop_is_verified_by_the_real_compiler(real_mlir_aie):
    assert verify(DMA_LOOP) == ""


def test_bytes_no_s2mm_bd_takes_are_a_hang_report_not_half_zero_output(tmp_path):
    """The memtile sends 2 x 1024 words; the shim's S2MM BD takes 1024. On hardware the MM2S
    stalls on the 4096 bytes left (the run hangs). Before: exit 0 with the last half zero."""
    text = MEMTILE_THROUGH.replace(
        "aie.dma_bd(%b : memref<2048xi32> offset = 0 len = 2048)",
        "aie.dma_bd(%b : memref<2048xi32> offset = 0 len = 1024)",
    )
    with pytest.raises(
        SimError, match=r"ended with 4096 bytes toward shim \(0,0\) S2MM 0 that no S2MM BD takes"
    ):
        _run(text, tmp_path, 2048)


@pytest.mark.parametrize("step", [0, -1])
def test_a_loop_step_that_is_not_positive_is_an_error(tmp_path, step):
    """Before: step 0 was a raw ValueError (range), step -1 gave all-zero outputs."""
    body = ADD_ONE.replace("step %c1 {\n          %v", "step %st {\n          %v")
    body = f"        %st = arith.constant {step} : index\n" + body
    with pytest.raises(IronError, match=rf"step {step}.*positive"):
        _run(CORE.replace("BODY", body), tmp_path)


@pytest.mark.parametrize("index", ["%c16", "%minus"])
def test_a_load_outside_its_buffer_is_an_error(tmp_path, index):
    """Before: index 16 of 16 elements was a raw IndexError; -1 read the last element (numpy)."""
    body = f"        %minus = arith.constant -1 : index\n        %v = memref.load %x[{index}] : memref<16xi32>\n        memref.store %v, %y[%c0] : memref<16xi32>"
    with pytest.raises(SimError, match=r"access %x\[(16|-1)\] \(1 element\(s\)\) outside its 16 elements"):
        _run(CORE.replace("BODY", body), tmp_path)


def test_a_division_by_zero_is_an_error(tmp_path):
    """Before: a raw ZeroDivisionError."""
    body = "        %zero = arith.constant 0 : i32\n        %v = memref.load %x[%c0] : memref<16xi32>\n        %q = arith.divsi %v, %zero : i32\n        memref.store %q, %y[%c0] : memref<16xi32>"
    with pytest.raises(SimError, match=r"arith.divsi .* divides by zero"):
        _run(CORE.replace("BODY", body), tmp_path)


# --------------------------------------------------------------------------- property
OPS = st.sampled_from(
    [
        "%v{i} = memref.load %x[%k] : memref<16xi32>",
        "%v{i} = arith.addi %v, %one : i32",
        "%v{i} = arith.divsi %v, %d : i32",
        "%v{i} = arith.remsi %v, %d : i32",
        "memref.store %v, %y[%k] : memref<16xi32>",
        "%v{i} = memref.load %x[%j] : memref<16xi32>",
        "memref.store %v, %y[%j] : memref<16xi32>",
    ]
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    ops=st.lists(OPS, min_size=1, max_size=4),
    lo=st.integers(-3, 20),
    hi=st.integers(-3, 20),
    step=st.integers(-2, 3),
    d=st.integers(-1, 1),
    j=st.integers(-2, 17),
)
def test_random_core_bodies_end_with_outputs_or_an_iron_error(tmp_path_factory, ops, lo, hi, step, d, j):
    """Loops with any bounds and steps, loads and stores at any index, divisions by any value:
    sim returns outputs or raises IronError (nothing else, never hangs)."""
    lines = [
        f"        %lo = arith.constant {lo} : index\n        %hi = arith.constant {hi} : index",
        f"        %st = arith.constant {step} : index\n        %j = arith.constant {j} : index",
        f"        %d = arith.constant {d} : i32\n        %v = arith.constant 5 : i32",
        "        scf.for %k = %lo to %hi step %st {",
        *(f"          {op.format(i=i)}" for i, op in enumerate(ops)),
        "        }",
    ]
    try:
        _run(CORE.replace("BODY", "\n".join(lines)), tmp_path_factory.mktemp("c"))
    except IronError:
        pass
