"""Upstream hardware-test styles sim models since issue 35's first round (index:
iron/tests/static_designs.py; each design's outputs are checked against its test.cpp there).

* Shim task queues: a push onto a full queue (depth 4: aie-rt ``XAIE_DMA_MAX_QUEUE_SIZE``) is
  dropped; sim lets the design drain first (``shim_dma_bd_reuse`` pushes 8 tasks between awaits
  and passes on hardware, mlir-aie PR #3026), and a queue that cannot drain loses the pushes
  beyond its depth.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import iron
from iron.runtime.sim.errors import SimError
from iron.tests.static_designs import STATIC_DESIGNS, text


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
