"""Object-FIFO data layout transformations on sim, pinned on upstream's object-FIFO lowering.

``iron/tests/data/upstream/nd_dma_multiple_consumers_AIE2.mlir`` (Xilinx/mlir-aie
test/objectFifo-stateful-transform @ 18572d9f, SOURCES.md there): its CHECK lines give the
``aie.dma_bd`` each FIFO end gets, with ``dims`` equal to the FIFO's ``toStream`` /
``fromStream`` pattern (outermost first), e.g. of0's 16 x 16 transpose. The bytes sim moves
for such a FIFO must follow exactly that BD pattern: an MM2S BD reads element ``p[k]`` of
the object as the ``k``-th of the stream, an S2MM BD writes the ``k``-th at ``p[k]``.
A pattern on a shim end is refused as mlir-aie's verifier refuses it
(test/dialect/AIE/objectfifo_invalid_shim_dims.mlir @ 1351c7a5, CHECK line quoted below)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import iron
from iron.design import NotModelled
from iron.mlir.check import DesignCheckError
from iron.runtime.sim.engine import Engine
from iron.tests.test_sim_execution import _adder

LIT = Path(__file__).parent / "data" / "upstream" / "nd_dma_multiple_consumers_AIE2.mlir"


def _lit_dims(buffer: str) -> list[tuple[int, int]]:
    """The dims of the CHECKed ``aie.dma_bd`` of ``buffer`` (the first one)."""
    text = LIT.read_text()
    m = re.search(
        rf"aie\.dma_bd\(%\[\[{buffer}\]\] : memref<256xi32>, dims = \[([^\]]*)\]\) \{{len = 256", text
    )
    return [(int(a), int(b)) for a, b in re.findall(r"<size = (\d+), stride = (\d+)>", m.group(1))]


def _indices(dims) -> np.ndarray:
    """Element offsets a BD with these dims visits, in order (outermost dimension first)."""
    idx = np.zeros(1, np.int64)
    for size, stride in dims:
        idx = (idx[:, None] + np.arange(size) * stride).reshape(-1)
    return idx


def _dims_text(dims) -> str:
    return "[" + ", ".join(f"<size = {s}, stride = {t}>" for s, t in dims) + "]"


def _design(to_stream: str = "", from_stream: str = "", shim_dims: str = "") -> str:
    """Host -> core (0,2) copies 2 objects of 256 i32 -> host; the patterns given on the ends."""
    return f"""module {{
  aie.device(npu1_1col) {{
    %t00 = aie.tile(0, 0)
    %t02 = aie.tile(0, 2)
    aie.objectfifo @in(%t00{shim_dims}, {{%t02{from_stream}}}, 2 : i32) : !aie.objectfifo<memref<256xi32>>
    aie.objectfifo @out(%t02{to_stream}, {{%t00}}, 2 : i32) : !aie.objectfifo<memref<256xi32>>
{_adder("t02", "in", "out", (256,), 0)}
    aie.runtime_sequence(%a: memref<512xi32>, %b: memref<512xi32>) {{
      aiex.npu.dma_memcpy_nd(%b[0, 0, 0, 0][1, 1, 1, 512][0, 0, 0, 1]) {{id = 0 : i64, metadata = @out, issue_token = true}} : memref<512xi32>
      aiex.npu.dma_memcpy_nd(%a[0, 0, 0, 0][1, 1, 1, 512][0, 0, 0, 1]) {{id = 1 : i64, metadata = @in}} : memref<512xi32>
      aiex.npu.dma_wait {{symbol = @out}}
    }}
  }}
}}
"""


def _run(text: str, tmp_path) -> tuple[np.ndarray, object]:
    a = np.arange(512, dtype=np.int32) * 3 + 1
    art = iron.build(iron.from_mlir(text, name="dims"), target="npu1", cache_dir=tmp_path)
    with art.load("sim") as run:
        return a, run(a)


def test_the_lit_pattern_is_a_transpose():
    dims = _lit_dims("of0_buff_0")
    assert dims == [(16, 1), (16, 16), (1, 1)]
    np.testing.assert_array_equal(_indices(dims), np.arange(256).reshape(16, 16).T.reshape(-1))


def test_dimensions_to_stream_reads_each_object_in_the_bd_pattern(tmp_path):
    p = _indices(_lit_dims("of0_buff_0"))
    a, out = _run(_design(to_stream=" dimensionsToStream " + _dims_text(_lit_dims("of0_buff_0"))), tmp_path)
    want = np.concatenate([obj[p] for obj in a.reshape(2, 256)])
    np.testing.assert_array_equal(out, want)


def test_dimensions_from_stream_writes_each_object_in_the_bd_pattern(tmp_path):
    p = _indices(_lit_dims("of0_buff_0"))
    a, out = _run(
        _design(from_stream=" dimensionsFromStream " + _dims_text(_lit_dims("of0_buff_0"))), tmp_path
    )
    want = np.empty_like(a).reshape(2, 256)
    for obj, stream in zip(want, a.reshape(2, 256)):
        obj[p] = stream
    np.testing.assert_array_equal(out, want.reshape(-1))


def test_a_pattern_shorter_than_the_object_is_reported_not_modelled(tmp_path):
    # of0's second consumer in the lit: dims [<size = 3, stride = 4>] with len = 256
    dims = [(3, 4)]
    _a, out = _run(_design(from_stream=" dimensionsFromStream " + _dims_text(dims)), tmp_path)
    assert isinstance(out, NotModelled)
    assert "visits 3 of the object's 256 elements" in out.reason


def test_a_short_pattern_is_reported_again_by_the_next_engine_of_the_device(tmp_path):
    # an engine checks a program's patterns once per device (wiring: a reconfiguration to the
    # same design skips it): the engine after one whose check failed must not skip it (the
    # lit's dims as above)
    text = _design(from_stream=" dimensionsFromStream " + _dims_text([(3, 4)]))
    art = iron.build(iron.from_mlir(text, name="dims"), target="npu1", cache_dir=tmp_path)
    with art.load("sim") as run:
        run(np.arange(512, dtype=np.int32))
        first = run.backend.device.engine
        again = Engine(first.device, first.prog, {}, {}, pool=first.pool)
    assert any("visits 3 of the object's 256 elements" in why for why in first.tainted)
    assert any("visits 3 of the object's 256 elements" in why for why in again.tainted)


def test_a_pattern_on_the_shim_end_is_refused_as_mlir_aie_refuses_it(tmp_path):
    # CHECK: `dimensionsToStream` data layout transformations are not supported on shim tile producers
    text = _design(shim_dims=" dimensionsToStream " + _dims_text(_lit_dims("of0_buff_0")))
    with pytest.raises(
        DesignCheckError,
        match="`dimensionsToStream` data layout transformations are not supported on shim tile producers",
    ):
        _run(text, tmp_path)
