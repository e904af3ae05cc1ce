"""Cascade streams on sim (iron/runtime/sim/cascade.py). The upstream design that needs
them computes its reference in test_design_corpus.py (cascade_flows: test.cpp's out[5] =
214); these tests pin the pieces: the order of cascade values through cores, the errors a
miswired cascade gives, and the cascade_flows kernel models."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import iron
from iron.runtime.sim import kernel_models
from iron.runtime.sim.cascade import Cascades, Port
from iron.runtime.sim.errors import SimError


def relay(flows: str) -> str:
    """Core (0,2) reads objects of 16 i32 and puts each on its cascade; core (1,2) gets them
    (``aie.get_cascade`` in its body) and writes them out: the output must be the input."""
    return f"""module {{
  aie.device(npu1_2col) {{
    %shim = aie.tile(0, 0)
    %a = aie.tile(0, 2)
    %b = aie.tile(1, 2)
    {flows}
    aie.objectfifo @in(%shim, {{%a}}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
    aie.objectfifo @out(%b, {{%shim}}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
    %ca = aie.core(%a) {{
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      scf.for %i = %c0 to %c4 step %c1 {{
        %x = aie.objectfifo.acquire @in(Consume, 1) : memref<16xi32>
        %v = vector.load %x[%c0] : memref<16xi32>, vector<16xi32>
        aie.put_cascade(%v : vector<16xi32>)
        aie.objectfifo.release @in(Consume, 1)
      }}
      aie.end
    }}
    %cb = aie.core(%b) {{
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      scf.for %i = %c0 to %c4 step %c1 {{
        %y = aie.objectfifo.acquire @out(Produce, 1) : memref<16xi32>
        %v = aie.get_cascade() : vector<16xi32>
        vector.store %v, %y[%c0] : memref<16xi32>, vector<16xi32>
        aie.objectfifo.release @out(Produce, 1)
      }}
      aie.end
    }}
    aie.runtime_sequence(%src: memref<64xi32>, %dst: memref<64xi32>) {{
      aiex.npu.dma_memcpy_nd(%dst[0, 0, 0, 0][1, 1, 1, 64][0, 0, 0, 1]) {{id = 0 : i64, metadata = @out, issue_token = true}} : memref<64xi32>
      aiex.npu.dma_memcpy_nd(%src[0, 0, 0, 0][1, 1, 1, 64][0, 0, 0, 1]) {{id = 1 : i64, metadata = @in}} : memref<64xi32>
      aiex.npu.dma_wait {{symbol = @out}}
    }}
  }}
}}
"""


def _run(mlir: str, tmp_path, *inputs, name="relay", **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        op = iron.from_mlir(mlir, name=name, **kw)
    art = iron.build(op, target="npu1", cache_dir=tmp_path)
    with art.load("sim") as run:
        return run(*inputs)


def test_core_body_cascade_passes_values_in_order(tmp_path):
    src = np.arange(64, dtype=np.int32) * 3 - 50
    out = _run(relay("aie.cascade_flow(%a, %b)"), tmp_path, src)
    np.testing.assert_array_equal(out, src)


def test_a_cascade_put_with_no_flow_out_of_the_core_is_an_error(tmp_path):
    with pytest.raises(
        SimError, match=r"core \(0, 2\) puts on its cascade, but no aie.cascade_flow leaves it"
    ):
        _run(relay(""), tmp_path, np.zeros(64, np.int32))


def test_todays_acquire_of_two_binds_each_buffer_to_its_result(tmp_path):
    """``%x0, %x1 = aie.objectfifo.acquire @in(Consume, 2) : memref, memref`` (today's form,
    upstream's AIE2_single_multiple_release.mlir spells the results so): each result is one
    buffer, in FIFO order."""
    one = """        %x = aie.objectfifo.acquire @in(Consume, 1) : memref<16xi32>
        %v = vector.load %x[%c0] : memref<16xi32>, vector<16xi32>
        aie.put_cascade(%v : vector<16xi32>)
        aie.objectfifo.release @in(Consume, 1)"""
    two = """        %x0, %x1 = aie.objectfifo.acquire @in(Consume, 2) : memref<16xi32>, memref<16xi32>
        %v0 = vector.load %x0[%c0] : memref<16xi32>, vector<16xi32>
        aie.put_cascade(%v0 : vector<16xi32>)
        %v1 = vector.load %x1[%c0] : memref<16xi32>, vector<16xi32>
        aie.put_cascade(%v1 : vector<16xi32>)
        aie.objectfifo.release @in(Consume, 2)"""
    text = relay("aie.cascade_flow(%a, %b)")
    assert one in text
    text = text.replace(one, two).replace(
        "scf.for %i = %c0 to %c4 step %c1 {\n        %x0", "scf.for %i = %c0 to %c2 step %c1 {\n        %x0"
    )
    text = text.replace(
        "%c4 = arith.constant 4 : index",
        "%c4 = arith.constant 4 : index\n      %c2 = arith.constant 2 : index",
        1,
    )
    assert "%c0 to %c2 step %c1 {\n        %x0, %x1" in text  # core (0,2): 2 runs of 2 objects
    src = np.arange(64, dtype=np.int32) * 5 + 1
    np.testing.assert_array_equal(_run(text, tmp_path, src, name="relay_two"), src)


def test_an_op_sim_does_not_run_makes_the_outputs_not_modelled_and_names_it(tmp_path):
    from iron.design import NotModelled, NotModelledError

    get = "%v = aie.get_cascade() : vector<16xi32>"
    text = relay("aie.cascade_flow(%a, %b)").replace(get, get + "\n        vector.print %v : vector<16xi32>")
    out = _run(text, tmp_path, np.zeros(64, np.int32), name="relay_print")
    assert isinstance(out, NotModelled)
    with pytest.raises(
        NotModelledError, match=r"not modelled: vector\.print \(core \(1,2\): vector\.print %v"
    ):
        np.asarray(out)


def test_flows_are_one_per_port_and_a_get_needs_one_in():
    with pytest.raises(SimError, match="two aie.cascade_flow ops leave core"):
        Cascades([((0, 3), (1, 3)), ((0, 3), (0, 2))])
    with pytest.raises(
        SimError, match=r"core \(0, 3\) gets from its cascade, but no aie.cascade_flow enters it"
    ):
        Cascades([((0, 3), (1, 3))]).input((0, 3))


def test_a_kernel_reading_more_than_it_declared_is_an_error():
    port = Port(np.zeros(8, np.uint8))
    port.get(np.int32, 2)
    with pytest.raises(SimError, match="reads 4 bytes but declared 0"):
        port.get(np.int32, 1)


def test_cascade_flows_kernels_follow_their_sources():
    """kernel2.cc replaces lane 0 and passes the other 31 lanes on; kernel3.cc writes lane 0
    + 100 at index 5 and zeroes the rest of its N."""
    k2 = kernel_models.model_for("extern_kernel2", {}, "aie2")
    port = Port(np.arange(32, dtype=np.int32).view(np.uint8))
    k2(cascade=port)
    np.testing.assert_array_equal(port.sent[0], np.r_[114, np.arange(1, 32)].astype(np.int32))
    k3 = kernel_models.model_for("extern_kernel3", {}, "aie2")
    buf = np.full(64, -1, np.int32)
    k3(buf, 8, cascade=Port(port.sent[0].view(np.uint8)))
    np.testing.assert_array_equal(buf[:8], [0, 0, 0, 0, 0, 214, 0, 0])
    assert (buf[8:] == -1).all()
