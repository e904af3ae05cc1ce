"""Upstream hardware-test styles sim models since issue 35's first round (index:
iron/tests/static_designs.py; each design's outputs are checked against its test.cpp there).

* Shim task queues: a push onto a full queue (depth 4: aie-rt ``XAIE_DMA_MAX_QUEUE_SIZE``) is
  dropped; sim lets the design drain first (``shim_dma_bd_reuse`` pushes 8 tasks between awaits
  and passes on hardware, mlir-aie PR #3026), and a queue that cannot drain loses the pushes
  beyond its depth.
* Core_Control (``local_reset/core``): reset -> unreset -> enable re-runs a core that ended; no
  reset, or a reset without enable, leaves it halted (its README).
* ``vector_scalar_mul_vector`` (scale.cc), the kernel of the hardware-capture designs test1 /
  test2: their outputs compute, checked as the programming example's test.cpp checks.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import iron
from iron.runtime.sim.errors import SimError
from iron.tests.static_designs import STATIC_DESIGNS, text
from iron.tests.test_mlir_body import depattern


def _sim(src: str, tmp_path, inputs, target: str = "npu1"):
    """Build ``src`` untraced (``trace=False``: the test inspects the data queues) and run it on
    sim; (outputs, the sim device)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        op = iron.from_mlir(src, name="styles")
    art = iron.build(op, target=target, cache_dir=tmp_path, trace=False)
    run = art.load("sim")
    try:
        return run(*inputs), run.backend.device
    finally:
        run.close()


def test_a_queue_that_cannot_drain_loses_the_pushes_beyond_its_depth(tmp_path):
    """shim_dma_bd_reuse with the core's input lock starting at 0: the core never takes data, so
    BD 0's 1 KiB leaves the shim (into the stream) and BDs 1-4 fill the queue of 4 (aie-rt
    ``XAIE_DMA_MAX_QUEUE_SIZE 4U``; mlir-aie PR #3734 "four deep"); BDs 5, 6 and 7 are dropped."""
    key = "shim_dma_bd_reuse"
    src = text(STATIC_DESIGNS[key], "npu1")
    init = 'init = 1 : i32, sym_name = "lock_in"'
    assert init in src
    src = src.replace(init, 'init = 0 : i32, sym_name = "lock_in"')
    inputs, _ = STATIC_DESIGNS[key]["data"]()
    with pytest.raises(SimError) as err:
        _sim(src, tmp_path, inputs)
    dropped = [
        int(m) for m in re.findall(r"pushes BD (\d+) on shim \(0,0\) MM2S 0 was dropped", str(err.value))
    ]
    assert dropped == [5, 6, 7]
    assert "the queue already holds 4 tasks" in str(err.value)


def test_the_design_passes_only_because_the_queue_drains(tmp_path):
    """The same design with its 8 pushes: every transfer arrives (as on hardware), and sim's log
    says which pushes found the queue full."""
    key = "shim_dma_bd_reuse"
    inputs, (want,) = STATIC_DESIGNS[key]["data"]()
    out, dev = _sim(text(STATIC_DESIGNS[key], "npu1"), tmp_path, inputs)
    np.testing.assert_array_equal(out, want)
    full = [line for line in dev.log if "queue full, pushed after a task retired" in line]
    assert len(full) >= 1 and all("MM2S 0" in line for line in full)


# ---------------------------------------------------------------- core reset (local_reset/core)
_RESET = "aiex.npu.maskwrite32(%cc, %reset, %rst_mask)"
_ENABLE = "aiex.npu.maskwrite32(%cc, %enable, %en_mask)"


def _reset_design(drop: str = "") -> str:
    src = text(STATIC_DESIGNS["local_reset/core"], "npu1")
    line = next(l for l in src.splitlines() if drop and drop in l) if drop else None
    return src.replace(line + "\n", "", 1) if line else src


@pytest.mark.parametrize("drop", [_RESET, _ENABLE], ids=["no-reset", "reset-without-enable"])
def test_a_core_reruns_only_after_reset_then_enable(drop, tmp_path):
    """local_reset/core/README.md: "No reset / reset without enable: the core stays Done/halted,
    so the second batch never arrives and the collect never completes" (a hang on hardware, a
    SimError naming the waiting channel on sim)."""
    with pytest.raises(SimError, match=r"dma_wait|waits on shim \(0,0\) S2MM 0 forever"):
        _sim(_reset_design(drop), tmp_path, [])


def test_the_reset_core_reads_its_state_and_logs_the_restart(tmp_path):
    out, dev = _sim(_reset_design(), tmp_path, [])
    assert list(out[8:] - out[:8]) == [1] * 8  # test.cpp lines 99-104: batch2 == batch1 + 1
    did = [line.rsplit(": ", 1)[1] for line in dev.log if "core (0,2)" in line]
    assert did == ["core (0,2) held in reset", "core (0,2) restarted from its first op"]


# ---------------------------------------------------------------- the hardware-capture designs' kernel
@pytest.mark.parametrize("folder", ["mlir-aie-test1", "mlir-aie-test2"])
def test_the_captured_designs_compute_what_the_example_test_checks(folder, tmp_path):
    """mlir-aie parse-trace test1 / test2 are captures of programming_examples/basic/vector_scalar_mul
    (int16, 4096 elements, ``vector_scalar_mul_vector`` of aie_kernels/aie2/scale.cc). Its test.cpp
    (andrej/mlir-aie a9e39fae, lines 33-41 and 53-56): in1 = i + 1, in2[0] = 3 (the factor),
    out[i] == in1[i] * in2[0]."""
    from iron import sim_timing

    design, _ = sim_timing.sim_design((sim_timing.DATA / folder / "aie.mlir").read_text())
    a = np.arange(1, 4097).astype(np.int16)
    out, _trace = _sim(design, tmp_path, [a, np.array([3], np.int32)])[0]
    assert out.dtype == np.int16
    np.testing.assert_array_equal(out.astype(np.int32), np.arange(1, 4097, dtype=np.int32) * 3)


def test_vector_scalar_mul_vector_follows_its_source():
    """scale.cc @a9e39fae lines 26-48 (int16: ``T fac = factor``, ``F = N / 32`` whole vectors)
    and 50-71 (int32: ``F = N / 16``, the factor as is)."""
    from iron.runtime.sim.kernel_models import model_for

    model = model_for("vector_scalar_mul_vector", {}, "aie2")
    a, c = np.arange(1, 49, dtype=np.int16), np.full(48, -1, np.int16)
    model(a, c, np.array([3], np.int32), 48)  # int16: one whole vector of 32 in 48
    np.testing.assert_array_equal(c[:32], a[:32] * 3)
    assert (c[32:] == -1).all()
    a32, c32 = np.arange(1, 49, dtype=np.int32), np.full(48, -1, np.int32)
    model(a32, c32, np.array([0x10003], np.int32), 48)  # int32: three vectors of 16, factor 65539
    np.testing.assert_array_equal(c32, a32 * 0x10003)


# ---------------------------------------------------------------- affine.load / store / apply
_AIR = Path(__file__).parent / "data" / "mlir-air" / "air_to_npu_add_one.mlir"


def _air_checked(first: str, last: str) -> list[str]:
    """The first split's CHECK lines from ``first`` to ``last`` (FileCheck patterns named)."""
    lines = _AIR.read_text().split("// -----")[0].splitlines()
    start = next(i for i, ln in enumerate(lines) if first in ln)
    end = next(i for i in range(start, len(lines)) if last in lines[i])
    return [depattern(ln) for ln in lines[start : end + 1]]


def _completed(lines: list[str]) -> list[str]:
    """The ``aie.dma_start`` lines the CHECK matches by prefix, with their end block ``^bb5``."""
    cut = {"^bb4,": "^bb4, ^bb5)", "^bb4": "^bb4, ^bb5)"}
    return [
        next(
            (ln[: -len(k)] + w for k, w in cut.items() if ln.startswith("aie.dma_start") and ln.endswith(k)),
            ln,
        )
        for ln in lines
    ]


def air_add_one(core: list[str] | None = None) -> str:
    """A design written from mlir-air's ``air_to_npu_add_one.mlir`` CHECK lines (npu1_1col):
    its compute tile's locks, buffers, ``aie.mem`` and core verbatim, the memtile's DMA
    program and the four flows. Completed where FileCheck matched a prefix or a pattern: the
    lock values (``%{{.*}}``) are 1 (one buffer per lock pair), the ``dma_start`` lines the
    CHECK cuts get their end block (``aie.end``), the logical shim / memtile are (0,0) / (0,1),
    and a runtime sequence moves 64 i32 each way. The core: ``out[i] = in[i] + 1`` (the lit
    test's input, lines 113-123)."""
    locks = "\n".join(
        f"    %{n} = aie.lock(%COMPUTE, {i}) {{init = {v} : i32}}"
        for n, i, v in (
            ("CLOCK_PROD2", 3, 1),
            ("CLOCK_CONS2", 2, 0),
            ("CLOCK_PROD1", 1, 1),
            ("CLOCK_CONS1", 0, 0),
        )
    )
    mlocks = locks.replace("CLOCK", "MLOCK").replace("%COMPUTE", "%MEMTILE")
    mem = _air_checked("aie.mem(%[[COMPUTE]])", "aie.next_bd ^bb4") + ["^bb5:", "  aie.end", "}"]
    core = core or _air_checked("aie.core(%[[COMPUTE]])", "aie.end") + ["}"]
    mdma = _air_checked("aie.memtile_dma(%[[MEMTILE]])", "aie.next_bd ^bb8") + ["^bb2:", "  aie.end", "}"]
    mem, core, mdma = (
        [x[0], "  %v0 = arith.constant 1 : i32"] + _completed(x[1:]) for x in (mem, core, mdma)
    )
    flows = _air_checked("aie.flow(%[[SHIM]], DMA : 0", "aie.flow(%[[MEMTILE]], DMA : 1")
    body = "\n".join("    " + ln for ln in mem + core + flows + mdma)
    return f"""module {{
  aie.device(npu1_1col) {{
    %SHIM = aie.tile(0, 0)
    %MEMTILE = aie.tile(0, 1)
    %COMPUTE = aie.tile(0, 2)
{locks}
{mlocks}
    %CBUF_IN = aie.buffer(%COMPUTE) {{sym_name = "cbuf_in"}} : memref<64xi32, 2>
    %CBUF_OUT = aie.buffer(%COMPUTE) {{sym_name = "cbuf_out"}} : memref<64xi32, 2>
    %MBUF_OUT = aie.buffer(%MEMTILE) {{sym_name = "mbuf_out"}} : memref<64xi32, 1>
    %MBUF_IN = aie.buffer(%MEMTILE) {{sym_name = "mbuf_in"}} : memref<64xi32, 1>
{body}
    aie.shim_dma_allocation @air_channel_3(%SHIM, S2MM, 0)
    aie.shim_dma_allocation @air_channel_0(%SHIM, MM2S, 0)
    aie.runtime_sequence(%a: memref<64xi32>, %b: memref<64xi32>) {{
      aiex.npu.dma_memcpy_nd(%b[0, 0, 0, 0][1, 1, 1, 64][0, 0, 0, 1]) {{id = 0 : i64, metadata = @air_channel_3, issue_token = true}} : memref<64xi32>
      aiex.npu.dma_memcpy_nd(%a[0, 0, 0, 0][1, 1, 1, 64][0, 0, 0, 1]) {{id = 1 : i64, metadata = @air_channel_0}} : memref<64xi32>
      aiex.npu.dma_wait {{symbol = @air_channel_3}}
    }}
  }}
}}
"""


def test_mlir_airs_affine_core_adds_one(tmp_path):
    a = (np.arange(64, dtype=np.int32) * 7 - 100).astype(np.int32)
    out, _dev = _sim(air_add_one(), tmp_path, [a])
    np.testing.assert_array_equal(out, a + 1)


def _air_core(replace: dict[str, str]) -> list[str]:
    core = _air_checked("aie.core(%[[COMPUTE]])", "aie.end") + ["}"]
    for old, new in replace.items():
        assert any(old in ln for ln in core), old
        core = [ln.replace(old, new) for ln in core]
    return core


_LOAD = "%VAL17 = affine.load %CBUF_IN[%VAL16]"


def test_affine_indices_are_evaluated_as_affine_expressions(tmp_path):
    """AffineExpr semantics (llvm-project mlir/include/mlir/IR/AffineExpr.h): ``floordiv`` rounds
    down, ``mod`` is the non-negative remainder: ``(i floordiv 2) * 2 + (i + 1) mod 2`` swaps each
    pair of elements."""
    a = np.arange(64, dtype=np.int32) * 3
    idx = "(%VAL16 floordiv 2) * 2 + (%VAL16 + 1) mod 2"
    out, _ = _sim(air_add_one(_air_core({_LOAD: f"%VAL17 = affine.load %CBUF_IN[{idx}]"})), tmp_path, [a])
    np.testing.assert_array_equal(out, a.reshape(32, 2)[:, ::-1].reshape(-1) + 1)


def test_affine_apply_maps_its_operands(tmp_path):
    """``affine.apply affine_map<(d0)[s0] -> (s0 - d0)>(%i)[%c63]``: element 63 - i, reversing
    the buffer; a map alias is one "not modelled" reason naming the op."""
    a = np.arange(64, dtype=np.int32) * 5
    apply = (
        "%r = affine.apply affine_map<(d0)[s0] -> (s0 - d0)>(%VAL16)[%c63]\n%VAL17 = affine.load %CBUF_IN[%r]"
    )
    core = _air_core(
        {
            _LOAD: apply,
            "%VAL15 = arith.constant 1 : i32": "%VAL15 = arith.constant 1 : i32\n%c63 = arith.constant 63 : index",
        }
    )
    out, _ = _sim(air_add_one(core), tmp_path, [a])
    np.testing.assert_array_equal(out, a[::-1] + 1)
    alias = _air_core({_LOAD: "%r = affine.apply #map(%VAL16)\n%VAL17 = affine.load %CBUF_IN[%r]"})
    from iron.design import NotModelled

    out, _ = _sim(air_add_one(alias), tmp_path / "alias", [a])
    assert isinstance(out, NotModelled)
    assert re.search(
        r"not modelled: affine.apply of map '#map'.* at <PDI of @\w+>:\d+", out.reason
    ), out.reason
