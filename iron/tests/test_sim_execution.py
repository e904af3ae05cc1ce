"""sim runs the design: object FIFOs, links, dimensionsToStream, strided shim BDs, cores, kernel models.

Expected values are hand-computed with numpy from the design's own text (index arithmetic
written out below) or upstream lit CHECK lines (iron/tests/data/upstream, SOURCES.md).
Kernel models are injected per test (``SimDevice(kernel_models=)`` is the same hook).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import iron
from iron.design import NotModelled
from iron.errors import IronError
from iron.lower import dma, npu
from iron.mlir import ir
from iron.operators import ElementwiseAdd
from iron.runtime.sim import kernel_models
from iron.target import shim_dma

UPSTREAM = Path(__file__).parent / "data" / "upstream"


# --------------------------------------------------------------------------- built-in lowering vs upstream
def _check_fields(line: str) -> dict[str, int]:
    return {k: int(v) for k, v in re.findall(r"(\w+) = (-?\d+) : (?:i32|ui32)", line)}


def test_strided_memcpy_lowers_like_aie_dma_to_npu():
    text = (UPSTREAM / "dma_to_npu_width_conversion.mlir").read_text()
    checks = [ln for ln in text.splitlines() if ln.startswith("//CHECK:")]
    want_bd = _check_fields(next(c for c in checks if "aiex.npu.writebd" in c))
    want_patch = _check_fields(next(c for c in checks if "address_patch" in c))
    want_push = _check_fields(next(c for c in checks if "aiex.npu.write32" in c))
    # the input: aiex.npu.dma_memcpy_nd(0, 0, %arg0[0, 0, 0, 0][4, 4, 64, 64][0, 64, 256]) on memref<65536xbf16>
    op = ir.DmaMemcpyNd("arg0", (0, 0, 0, 0), (4, 4, 64, 64), (0, 64, 256), "toMem", 0)
    alloc = ir.ShimDmaAllocation("toMem", "S2MM", 0, 0)
    ops = dma.lower_memcpy(op, alloc, lambda _a: (0, 0, ir.MemRefType((65536,), "bf16")))
    bd, patch, _ctrl, push = ops
    want_bd.pop("ddr_id")  # legacy field, ignored by mlir-aie (and iron)
    got = {k: bd.fields[k] for k in want_bd}
    assert got == want_bd
    assert (patch.addr, patch.arg_idx, patch.arg_plus) == (want_patch["addr"], 0, 0)
    assert (push.address, push.value) == (want_push["address"], want_push["value"])


def test_iteration_and_repeat_words_equal_upstream():
    text = (UPSTREAM / "dma_to_npu_iter_repeat.mlir").read_text()
    data = [list(map(int, m.split(", "))) for m in re.findall(r"dense<\[([^\]]*)\]>", text)]
    pushes = [int(v) for v in re.findall(r"address = 119316 : ui32, value = (\d+)", text)]
    i32 = lambda _a: (0, 0, ir.MemRefType((2048,), "i32"))  # noqa: E731
    alloc = ir.ShimDmaAllocation("md", "MM2S", 0, 0)
    # 4 iterations of 64 words, 64 words apart (upstream: iter_size = 4, iter_stride = 64)
    it = dma.lower_memcpy(
        ir.DmaMemcpyNd("arg0", (0, 0, 0, 0), (4, 1, 1, 64), (64, 0, 0), "md", 0), alloc, i32
    )
    assert npu.bd_image(it[0], "npu1")[6] == data[0][6]
    # 3 extra replays without stride (upstream: repeat_count = 3 on BD 1)
    rep = dma.lower_memcpy(
        ir.DmaMemcpyNd("arg0", (0, 0, 0, 0), (4, 1, 1, 64), (0, 0, 0), "md", 1), alloc, i32
    )
    assert npu.bd_image(rep[0], "npu1")[6] == data[1][6] == 0
    assert rep[-1].value == pushes[1] and shim_dma.unpack_task_queue(pushes[1])["repeat"] == 3


def test_innermost_stride_is_encoded_as_upstream_encodes_it():
    """``encodeHardwareStridesWraps`` (mlir-aie include/aie/Dialect/AIEX/Utils/BdLowering.h):
    ``d0_stride = stride0 * bytes / 4 - 1``, 0 when ``stride0 * bytes`` is under a word or the
    elements are wider than a word; verifyStridesWraps refuses a stride of partial words. The
    transposing corpus designs (designs.py: matrix_transpose_dma) run it end to end."""
    alloc = ir.ShimDmaAllocation("md", "MM2S", 0, 0)

    def d0_stride(inner, dtype):
        t1 = max(1, 4 // ir.ELEMENT_BYTES[dtype])  # d1 steps a whole word
        op = ir.DmaMemcpyNd("arg0", (0, 0, 0, 0), (1, 1, 32, 64), (0, 0, t1), "md", 0, inner_stride=inner)
        typ = lambda _a: (0, 0, ir.MemRefType((2048,), dtype))  # noqa: E731
        return dma.lower_memcpy(op, alloc, typ)[0].fields["d0_stride"]

    assert d0_stride(32, "i32") == 31  # 32 words apart
    assert d0_stride(8, "i16") == 3  # 16 bytes apart: 4 words
    assert d0_stride(1, "i32") == 0
    with pytest.raises(IronError, match="innermost stride 3"):
        d0_stride(3, "i8")


# --------------------------------------------------------------------------- an executed design
PERM = "[<size = 2, stride = 1>, <size = 4, stride = 2>]"  # memtile reads 0,2,4,6,1,3,5,7 of its part


def design(perm: str = PERM, out_strides: str = "[0, 8, 32, 1]") -> str:
    """shim -> memtile (16xi32) split to two cores at offsets 0 / 8 (core 0's part re-ordered by
    the memtile's dimensionsToStream), each core scales 4 objects of 8, joined at 0 / 8 and written
    back by a strided S2MM BD: sizes [1, 4, 2, 8], strides [0, 8, 32, 1]."""
    core = """
    %core_0_{r} = aie.core(%c{r}) {{
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %n = arith.constant 8 : i32
      scf.for %i = %c0 to %c4 step %c1 {{
        %x = aie.objectfifo.acquire @in{k}(Consume, 1) : memref<8xi32>
        %y = aie.objectfifo.acquire @out{k}(Produce, 1) : memref<8xi32>
        func.call @scale(%x, %y, %n) : (memref<8xi32>, memref<8xi32>, i32) -> ()
        aie.objectfifo.release @in{k}(Consume, 1)
        aie.objectfifo.release @out{k}(Produce, 1)
      }}
      aie.end
    }}"""
    return f"""module {{
  aie.device(npu2_1col) {{
    func.func private @scale(memref<8xi32>, memref<8xi32>, i32) attributes {{link_with = "scale.o"}}
    %shim = aie.tile(0, 0)
    %mem = aie.tile(0, 1)
    %c2 = aie.tile(0, 2)
    %c3 = aie.tile(0, 3)
    aie.objectfifo @in(%shim, {{%mem}}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
    aie.objectfifo @in0(%mem dimensionsToStream {perm}, {{%c2}}, 2 : i32) : !aie.objectfifo<memref<8xi32>>
    aie.objectfifo @in1(%mem, {{%c3}}, 2 : i32) : !aie.objectfifo<memref<8xi32>>
    aie.objectfifo.link [@in] -> [@in0, @in1]([] [0, 8])
    aie.objectfifo @out0(%c2, {{%mem}}, 2 : i32) : !aie.objectfifo<memref<8xi32>>
    aie.objectfifo @out1(%c3, {{%mem}}, 2 : i32) : !aie.objectfifo<memref<8xi32>>
    aie.objectfifo @out(%mem, {{%shim}}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
    aie.objectfifo.link [@out0, @out1] -> [@out]([0, 8] [])
{core.format(r=2, k=0)}
{core.format(r=3, k=1)}
    aie.runtime_sequence(%a: memref<64xi32>, %b: memref<64xi32>) {{
      aiex.npu.dma_memcpy_nd(%b[0, 0, 0, 0][1, 4, 2, 8]{out_strides}) {{id = 0 : i64, metadata = @out, issue_token = true}} : memref<64xi32>
      aiex.npu.dma_memcpy_nd(%a[0, 0, 0, 0][1, 1, 1, 64][0, 0, 0, 1]) {{id = 1 : i64, metadata = @in}} : memref<64xi32>
      aiex.npu.dma_wait {{symbol = @out}}
    }}
  }}
}}
"""


def scale(x, y, n):  # the injected kernel: y[i] = 3 * x[i] for i < n
    y[:n] = 3 * x[:n]


@pytest.fixture
def models(monkeypatch):
    table = {"scale": scale}
    monkeypatch.setattr(kernel_models, "model_for", lambda s, d, a: table.get(s))
    return table


def expected(a: np.ndarray) -> np.ndarray:
    perm = np.array([0, 2, 4, 6, 1, 3, 5, 7])
    stream = np.concatenate(
        [np.concatenate([3 * a[16 * j + perm], 3 * a[16 * j + 8 : 16 * j + 16]]) for j in range(4)]
    )
    k = np.arange(64)
    b = np.zeros(64, np.int32)
    b[k % 8 + (k // 8 % 2) * 32 + (k // 16) * 8] = stream  # the S2MM BD's address order
    return b


def _run(text, tmp_path, a, **build):
    op = iron.from_mlir(text, name="split_scale_join")
    art = iron.build(op, cache_dir=tmp_path, **build)
    run = art.load("sim")
    return run(a), run


def test_design_executes_links_dims_and_strided_bds(models, tmp_path):
    a = np.arange(64, dtype=np.int32) * 7 - 100
    out, _run_ = _run(design(), tmp_path, a)
    np.testing.assert_array_equal(out, expected(a))


@pytest.mark.parametrize(
    "perm, strides",
    [
        ("[<size = 2, stride = 1>, <size = 4, stride = 3>]", "[0, 8, 32, 1]"),  # a dims stride off by one
        (PERM, "[0, 8, 31, 1]"),  # the S2MM BD's d1 stride off by one
        ("[<size = 4, stride = 2>, <size = 2, stride = 1>]", "[0, 8, 32, 1]"),  # dims in the wrong order
    ],
)
def test_wrong_layouts_give_wrong_outputs(models, tmp_path, perm, strides):
    a = np.arange(64, dtype=np.int32) * 7 - 100
    out, _r = _run(design(perm, strides), tmp_path, a)
    assert not np.array_equal(out, expected(a))


def test_a_kernel_without_a_model_gives_not_modelled_outputs(monkeypatch, tmp_path):
    monkeypatch.setattr(kernel_models, "model_for", lambda s, d, a: None)
    out, _r = _run(design(), tmp_path, np.arange(64, dtype=np.int32))
    assert (
        isinstance(out, iron.NotModelled)
        if hasattr(iron, "NotModelled")
        else out.__class__.__name__ == "NotModelled"
    )
    assert "kernel 'scale'" in out.reason and "no model" in out.reason


@pytest.mark.parametrize("where", ["lookup", "call"])
def test_a_kernel_model_error_in_a_kernel_iron_compiled_raises(monkeypatch, tmp_path, where):
    """iron compiled ElementwiseAdd's kernel itself, so the defines its model is handed are
    the ones it was built with: a KernelModelError then (at the model's lookup or at its
    call) is a real error, not a foreign object's unknown defines (those give NotModelled)."""
    real = kernel_models.model_for

    def failing(symbol, defines, arch):
        if where == "lookup":
            raise kernel_models.KernelModelError(f"{symbol}: refused at lookup")
        model = real(symbol, defines, arch)

        def call(*args):
            raise kernel_models.KernelModelError(f"{symbol}: refused at call")

        return call if model is not None else None

    monkeypatch.setattr(kernel_models, "model_for", failing)
    op = ElementwiseAdd(2048, "i32")
    art = iron.build(op, trace=False, cache_dir=tmp_path)
    with art.load("sim") as run, pytest.raises(kernel_models.KernelModelError, match=f"refused at {where}"):
        run(*op.example_inputs(0))


def test_traced_run_shows_the_executed_calls_and_equals_untraced(models, tmp_path):
    a = np.arange(64, dtype=np.int32) * 5
    plain, _r = _run(design(), tmp_path, a)
    traced, run = _run(design(), tmp_path, a, trace=True, trace_size=8192)
    assert traced.tobytes() == plain.tobytes()
    (s,) = run.trace.slices
    assert s.status == "ok"
    core = s.unit("core", 0, 2)
    _t, masks = core.runs.expand()
    fired = lambda name: int(((masks >> core.events.index(name)) & 1).sum())  # noqa: E731
    assert fired("INSTR_EVENT_0") == fired("INSTR_EVENT_1") == 4  # the core's 4 iterations, one call each


def test_row_major_stream_into_the_blocked_matmul_model_is_wrong():
    """The built-in GEMM blocks A into micro-tiles on its memtile -> core FIFO (mm.cc reads
    them tile-major); the same design with that ``dimensionsToStream`` removed streams A
    row-major, and the executed outputs differ from the reference (no error: wrong numbers,
    as on hardware)."""
    import dataclasses

    from iron import testing
    from iron.mlir import ir
    from iron.operators import GEMM

    class RowMajorA(GEMM):
        def design(self, target):
            d = super().design(target)
            for op in d.device.body:
                if isinstance(op, ir.ObjectFifo) and op.name.startswith("A") and op.dims_to_stream:
                    op.dims_to_stream = ()
            return d

    good = GEMM(32, 32, 32, dtype="i16", m=32, k=16, n=32)  # two accumulating calls per C tile
    testing.check_operator(good, target="npu2")  # blocked: equal to A @ B
    bad = RowMajorA(**{f.name: getattr(good, f.name) for f in dataclasses.fields(good)})
    with pytest.raises(testing.CheckError):
        testing.check_operator(bad, target="npu2")


# --------------------------------------------------------------------------- upstream link offsets
#: Xilinx/mlir-aie test/objectFifo-stateful-transform/data_movement_patterns/link/
#: link_test_distribute_offsets.mlir @24f4b640: ``link [@link1] -> [@link2, @link3, @link4]
#: ([][0, 16, 36])`` of memref<48xi32> into memref<4x4xi32>, <20xi32>, <12xi32>; its CHECK lines
#: give the memtile's MM2S BDs as ``aie.dma_bd(%link1_cons_buff : memref<48xi32>, OFFSET, LEN)``:
#: channel 0 (0, 16), channel 1 (16, 20), channel 2 (36, 12).
UPSTREAM_PARTS = [(0, 16), (16, 20), (36, 12)]


def _adder(tile: str, fin: str, fout: str, shape: tuple, plus: int) -> str:
    """A core that adds ``plus`` to every element of each object, element by element
    (memref.load / arith.addi / memref.store), 2 objects."""
    n = int(np.prod(shape))
    t_in = "memref<" + "x".join(map(str, shape)) + "xi32>"
    if len(shape) == 2:
        load = (f"scf.for %i = %c0 to %c{shape[0]} step %c1 {{\n scf.for %j = %c0 to %c{shape[1]} step %c1 {{\n"
                f"  %v = memref.load %x[%i, %j] : {t_in}\n  %w = arith.addi %v, %p : i32\n"
                f"  %r = arith.muli %i, %c{shape[1]} : index\n  %k = arith.addi %r, %j : index\n"
                f"  memref.store %w, %y[%k] : memref<{n}xi32>\n }}\n}}")  # fmt: skip
    else:
        load = (f"scf.for %k = %c0 to %c{n} step %c1 {{\n  %v = memref.load %x[%k] : {t_in}\n"
                f"  %w = arith.addi %v, %p : i32\n  memref.store %w, %y[%k] : memref<{n}xi32>\n}}")  # fmt: skip
    consts = sorted({0, 1, 2, n, *shape})
    return (
        f"%core_{tile} = aie.core(%{tile}) {{\n"
        + "".join(f"%c{c} = arith.constant {c} : index\n" for c in consts)
        + f"%p = arith.constant {plus} : i32\n"
        + "scf.for %it = %c0 to %c2 step %c1 {\n"
        + f"%x = aie.objectfifo.acquire @{fin}(Consume, 1) : {t_in}\n"
        + f"%y = aie.objectfifo.acquire @{fout}(Produce, 1) : memref<{n}xi32>\n"
        + load
        + f"\naie.objectfifo.release @{fin}(Consume, 1)\naie.objectfifo.release @{fout}(Produce, 1)\n}}\naie.end\n}}"
    )


def distribute_join_design() -> str:
    cores = [("t22", "link2", "back2", (4, 4), 1), ("t23", "link3", "back3", (20,), 2),
             ("t33", "link4", "back4", (12,), 3)]  # fmt: skip
    body = "\n".join(_adder(*c) for c in cores)
    return f"""module {{
  aie.device(npu2) {{
    %t20 = aie.tile(2, 0)
    %t21 = aie.tile(2, 1)
    %t22 = aie.tile(2, 2)
    %t23 = aie.tile(2, 3)
    %t33 = aie.tile(3, 3)
    aie.objectfifo @link1(%t20, {{%t21}}, 2 : i32) : !aie.objectfifo<memref<48xi32>>
    aie.objectfifo @link2(%t21, {{%t22}}, 2 : i32) : !aie.objectfifo<memref<4x4xi32>>
    aie.objectfifo @link3(%t21, {{%t23}}, 2 : i32) : !aie.objectfifo<memref<20xi32>>
    aie.objectfifo @link4(%t21, {{%t33}}, 2 : i32) : !aie.objectfifo<memref<12xi32>>
    aie.objectfifo.link [@link1] -> [@link2, @link3, @link4]([] [0, 16, 36])
    aie.objectfifo @back2(%t22, {{%t21}}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
    aie.objectfifo @back3(%t23, {{%t21}}, 2 : i32) : !aie.objectfifo<memref<20xi32>>
    aie.objectfifo @back4(%t33, {{%t21}}, 2 : i32) : !aie.objectfifo<memref<12xi32>>
    aie.objectfifo @out(%t21, {{%t20}}, 2 : i32) : !aie.objectfifo<memref<48xi32>>
    aie.objectfifo.link [@back2, @back3, @back4] -> [@out]([0, 16, 36] [])
{body}
    aie.runtime_sequence(%a: memref<96xi32>, %b: memref<96xi32>) {{
      aiex.npu.dma_memcpy_nd(%b[0, 0, 0, 0][1, 1, 1, 96][0, 0, 0, 1]) {{id = 0 : i64, metadata = @out, issue_token = true}} : memref<96xi32>
      aiex.npu.dma_memcpy_nd(%a[0, 0, 0, 0][1, 1, 1, 96][0, 0, 0, 1]) {{id = 1 : i64, metadata = @link1}} : memref<96xi32>
      aiex.npu.dma_wait {{symbol = @out}}
    }}
  }}
}}
"""


def test_distribute_and_join_offsets_follow_upstream(tmp_path):
    """Each core gets the part of every 48-element object the upstream CHECK lines give its
    memtile channel, adds its own constant, and the join puts the part back at the same offset."""
    a = (np.arange(96, dtype=np.int32) * 11) % 97
    want = a.copy()
    for obj in range(2):
        for plus, (off, n) in enumerate(UPSTREAM_PARTS, start=1):
            want[48 * obj + off : 48 * obj + off + n] += plus
    out, _r = _run(distribute_join_design(), tmp_path, a)
    np.testing.assert_array_equal(out, want)


def test_an_acquire_beyond_the_depth_blocks_and_the_wait_names_it(models, tmp_path):
    """Depth 2: a core asking for 3 objects of @out0 at once never gets them (hardware hangs);
    refused before building since issue 36 (iron/mlir/check_fifo.py)."""
    text = design().replace("@out0(Produce, 1) : memref<8xi32>", "@out0(Produce, 3) : memref<8xi32>")
    with pytest.raises(IronError, match=r"acquire @out0\(Produce, 3\): more objects than the FIFO's depth 2"):
        _run(text, tmp_path, np.arange(64, dtype=np.int32))


def test_the_pdi_payload_carries_the_device_and_its_kernel_objects(tmp_path):
    """What sim executes comes from the artifact alone: the device's MLIR (re-read by iron's
    reader) and the objects its func.func declarations link, with their defines."""
    from iron.operators import GEMM
    from iron.runtime.sim.program import program

    op = GEMM(16, 32, 32, dtype="i16", m=16, k=32, n=32)
    art = iron.build(op, target="npu2", cache_dir=tmp_path)
    (payload,) = [p for p in art.pdis.values() if p.operator]
    prog = program(payload.mlir)
    obj = op.design("npu2").kernels[0]
    assert payload.kernels == [[obj.name, obj.source, "aie2p", [list(d) for d in obj.defines]]]
    assert set(prog.funcs.values()) == {obj.name}  # every func.call resolves to that object
    assert ["DIM_M", "16"] in payload.kernels[0][3]
    assert sorted(prog.fifos) == sorted(
        f.name for f in op.design("npu2").device.body if isinstance(f, ir.ObjectFifo)
    )
    assert len(prog.cores) == 1 and prog.unmodelled == []


# --------------------------------------------------------------------------- the core interpreter
#: A core body of the ops that need no engine: sum over i in [0, 5) of (i > 2 ? i * i : i),
#: carried in iter_args; then a select on the sum. By hand: 0 + 1 + 2 + 9 + 16 = 28.
LOOP_BODY = """%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%c5 = arith.constant 5 : index
%zero = arith.constant 0 : i32
%two = arith.constant 2 : i32
%sum = scf.for %i = %c0 to %c5 step %c1 iter_args(%acc = %zero) -> (i32) {
  %n = arith.index_cast %i : index to i32
  %big = arith.cmpi sgt, %n, %two : i32
  %term = scf.if %big -> (i32) {
    %sq = arith.muli %n, %n : i32
    scf.yield %sq : i32
  } else {
    scf.yield %n : i32
  }
  %next = arith.addi %acc, %term : i32
  scf.yield %next : i32
}
%pos = arith.cmpi sgt, %sum, %zero : i32
%out = arith.select %pos, %sum, %two : i32
%wide = arith.extsi %out : i32 to i64
aie.end"""


def test_the_interpreter_runs_loops_ifs_and_arith_from_the_op_objects():
    from types import SimpleNamespace

    from iron.mlir.printer import print_ops
    from iron.mlir.reader import read_region
    from iron.runtime.sim.interp import Core

    ops = read_region(LOOP_BODY.split("\n"))
    assert not [op for op in ops if isinstance(op, ir.Opaque)] and print_ops(ops) == LOOP_BODY.split("\n")
    core = Core(SimpleNamespace(body=ops, link_with=None), None, SimpleNamespace(t=0, col=0, row=2))
    for _ in core.run():
        pass
    assert (core.env["sum"], core.env["out"], core.env["wide"], core.env["acc"]) == (
        28,
        28,
        28,
        12,
    )  # acc: the last iteration's carried value, 0 + 1 + 2 + 9


I8_BODY = """%max = arith.constant 127 : i8
%one = arith.constant 1 : i8
%min = arith.addi %max, %one : i8
%back = arith.subi %min, %one : i8
aie.end"""


def test_i8_arith_wraps_to_minus_128_and_back():
    """MLIR's arith.addi / subi wrap in two's complement (arith dialect docs: "overflow
    wraps"): 127 + 1 in i8 is -128 (not 128), and -128 - 1 is 127."""
    from types import SimpleNamespace

    from iron.mlir.reader import read_region
    from iron.runtime.sim.interp import Core

    core = Core(SimpleNamespace(body=read_region(I8_BODY.split("\n")), link_with=None), None,
                SimpleNamespace(t=0, col=0, row=2))  # fmt: skip
    for _ in core.run():
        pass
    assert (core.env["min"], core.env["back"]) == (-128, 127)
