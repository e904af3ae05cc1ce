"""Which arguments an operator reads and writes: ``ArgSpec.reads`` / ``ArgSpec.writes``.

One definition serves fusion (sequence inputs/outputs, read-before-write), sim (what
it hands the reference, where it writes the results), the dataflow template and
``iron.testing``. The ``inout`` case is pinned on a foreign design: mlir-aie's
``add_one_func_link_with_peano`` (iron/tests/data/foreign, SOURCES.md there) with its
S2MM transfer pointed at ``%in`` instead of ``%out``, so ``%in`` is moved both ways
(read by eye: ``@of_in`` runs shim -> core, ``@of_out`` core -> shim). The expected
output is the reference the test itself passes (add one), not iron's.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import iron
from iron.design import ArgSpec, KernelObject
from iron.errors import IronError
from iron.fuse.fusion import as_sequence
from iron.operators._dataflow import Dataflow, Port, build_design

PEANO = Path(__file__).parent / "data/foreign/mlir-aie__test__npu-xrt__add_one_func_link_with_peano__aie.mlir"


def _in_place():
    text = PEANO.read_text(encoding="utf-8").replace("NPUDEVICE", "npu2")
    assert text.count("dma_memcpy_nd(%out[") == 1
    text = text.replace("dma_memcpy_nd(%out[", "dma_memcpy_nd(%in[")  # of_out now writes back into %in
    return iron.from_mlir(text, name="in_place", reference=lambda a, buf, out: a + 1)


@pytest.mark.parametrize(
    "direction, reads, writes", [("in", True, False), ("out", False, True), ("inout", True, True)]
)
def test_reads_and_writes(direction, reads, writes):
    spec = ArgSpec("x", direction, (4,), "i32")
    assert (spec.reads, spec.writes) == (reads, writes)


def test_inout_is_an_input_and_an_output_of_the_sequence():
    op = _in_place()
    assert [(s.name, s.direction) for s in op.arg_spec()] == [("in", "inout"), ("buf", "in"), ("out", "in")]
    seq = as_sequence(op)
    assert seq.inputs == ["in", "buf", "out"] and seq.outputs == ["in"]


def test_inout_host_buffer_comes_back_with_the_result(tmp_path):
    art = iron.build(_in_place(), trace=True, trace_size=4096, cache_dir=tmp_path)
    assert art.inputs == ["in", "buf", "out"] and art.outputs == ["in"]
    assert list(art.buffers) == ["in", "buf", "out", "trace"]  # one host buffer for the inout argument
    a = np.arange(64, dtype=np.int32)
    with art.load("sim") as runner:
        for _ in range(2):  # the reused host buffer is refilled from the caller's array each call
            out = runner(a, np.zeros(32, np.int32), np.zeros(64, np.int32))
            np.testing.assert_array_equal(out, a + 1)
        assert [s.status for s in runner.trace.slices] == ["ok"]
    np.testing.assert_array_equal(a, np.arange(64, dtype=np.int32))  # the caller's array is untouched


def test_the_dataflow_template_refuses_inout():
    """A template port moves its argument one way; an inout one would silently get neither
    an input nor an output FIFO."""
    specs = (ArgSpec("x", "inout", (64,), "i32"),)
    flow = Dataflow("InPlace", specs, (Port(0, "x", (32,)),), (), 2, KernelObject("k.cc", "aie2p"), 1, 1)
    with pytest.raises(IronError, match="InPlace: argument.s. x are inout; the dataflow template moves"):
        build_design(flow, "npu2")
