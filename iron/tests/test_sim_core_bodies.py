"""Core bodies sim runs beyond scalars (iron/runtime/sim/vector_ops.py) and kernels it has no model of.

Designs are written from upstream tests (the core lines they take, and the check whose values
they use, named at each); other expected values are worked out by hand below from MLIR's
documented op semantics (llvm-project mlir/include/mlir/Dialect/Vector/IR/VectorOps.td:
transfer_read pads elements outside the memref, transfer_write skips them, reduction <add>
sums, extract / insert at a position; SCF / CF: scf.while, cf.br / cf.cond_br), never from sim.
"""

from __future__ import annotations

import dataclasses
import warnings
from pathlib import Path

import numpy as np
import pytest

import iron
from iron.design import NotModelled
from iron.mlir import body, ir
from iron.mlir.printer import print_ops
from iron.mlir.reader import parse, read_region
from iron.runtime.sim import kernel_models

DATA = Path(__file__).parent / "data" / "core_bodies"


def _run(mlir: str, tmp_path, *inputs, name: str, kernels=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        op = iron.from_mlir(mlir, name=name)
    # Untraced whatever IRON_TRACE_SIZE says: these tests check core bodies, and a design
    # using both shim S2MM channels has none left for a trace drain (a traced build refuses it).
    art = iron.build(op, trace=False, target="npu2", cache_dir=tmp_path)
    with art.load("sim", kernels=kernels) as run:
        return run(*inputs)


def one_core(n: int, dtype: str, body: str, consts: str = "") -> str:
    """shim -> core (0,2) -> shim, one object of ``n`` ``dtype`` per run; ``body`` between
    the acquires (``%x`` in, ``%y`` out) and the releases."""
    m = f"memref<{n}x{dtype}>"
    return f"""module {{
  aie.device(npu2_1col) {{
    %shim = aie.tile(0, 0)
    %c = aie.tile(0, 2)
    aie.objectfifo @in(%shim, {{%c}}, 1 : i32) : !aie.objectfifo<{m}>
    aie.objectfifo @out(%c, {{%shim}}, 1 : i32) : !aie.objectfifo<{m}>
    %core = aie.core(%c) {{
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
{consts}
      %x = aie.objectfifo.acquire @in(Consume, 1) : {m}
      %y = aie.objectfifo.acquire @out(Produce, 1) : {m}
{body}
      aie.objectfifo.release @in(Consume, 1)
      aie.objectfifo.release @out(Produce, 1)
      aie.end
    }}
    aie.runtime_sequence(%src: {m}, %dst: {m}) {{
      aiex.npu.dma_memcpy_nd(%dst[0, 0, 0, 0][1, 1, 1, {n}][0, 0, 0, 1]) {{id = 0 : i64, metadata = @out, issue_token = true}} : {m}
      aiex.npu.dma_memcpy_nd(%src[0, 0, 0, 0][1, 1, 1, {n}][0, 0, 0, 1]) {{id = 1 : i64, metadata = @in}} : {m}
      aiex.npu.dma_wait {{symbol = @out}}
    }}
  }}
}}
"""


# --------------------------------------------------------------------------- printed forms
#: Core-op lines of upstream lit tests, quoted (file, line and commit: data/core_bodies/SOURCES.md).
UPSTREAM_LINES = [
    ("memref.copy %t12_buf_inp, %t12_buf_out : memref<4xi32> to memref<4xi32>", body.Copy),
    (
        "%a = vector.transfer_read %buf_a[%i], %cst {in_bounds = [true]} : memref<256xbf16>, vector<16xbf16>",
        body.TransferRead,
    ),
    (
        "vector.transfer_write %c, %buf_c[%i] {in_bounds = [true]} : vector<16xbf16>, memref<256xbf16>",
        body.TransferWrite,
    ),
    ("%0 = vector.reduction <add>, %arg0 : vector<16xi32> into i32", body.Reduction),
    ("%0 = vector.fma %v0, %v1, %v2 : vector<16xbf16>", body.Fma),
    ("%0 = vector.extract %a[0] : i32 from vector<16xi32>", body.Extract),
    ("%I0 = vector.insert %VIN, %ZV [0] : vector<8xi8> into vector<4x8xi8>", body.Insert),
    ("%0 = math.exp %a : vector<16xbf16>", body.Unary),
    ("%0 = math.rsqrt %arg0 : f32", body.Unary),
    ("%0 = arith.negf %a : vector<16xf32>", body.Unary),
    (
        "%subview = memref.subview %arg0[128] [256] [1] : memref<1024xi32> to memref<256xi32, strided<[1], offset: 128>>",
        body.Subview,
    ),
    ("scf.condition(%cond) %arg0 : index", body.Condition),
    ("cf.br ^bb1", body.Branch),
]


@pytest.mark.parametrize(
    "line,cls", UPSTREAM_LINES, ids=[c.__name__ + str(k) for k, (_l, c) in enumerate(UPSTREAM_LINES)]
)
def test_upstream_lines_read_as_their_op_and_print_back(line, cls):
    (op,) = read_region([line])
    assert type(op) is cls
    assert print_ops([op]) == [line]


def test_upstream_scf_while_header_reads_with_its_regions():
    """dynamic_runtime_lock_scf_while.mlir lines 122-124 (with a do region as aie-opt prints it)."""
    lines = [
        "%r = scf.while (%arg0 = %c0) : (index) -> index {",
        "  %cond = arith.cmpi slt, %arg0, %c4 : index",
        "  scf.condition(%cond) %arg0 : index",
        "} do {",
        "^bb0(%arg1: index):",
        "  scf.yield %arg1 : index",
        "}",
    ]
    (op,) = read_region(lines)
    assert type(op) is body.While and op.inits == (("arg0", "c0"),) and op.result_types == "index"
    assert print_ops([op]) == lines


def test_core_ops_print_as_the_real_aie_opt_prints_them():
    """aie_opt_printed_ops.mlir is mlir-aie a9e39fae's aie-opt output (SOURCES.md): every op
    of its core reads as a declared op (labels stay text) and prints back line for line."""
    lines = (DATA / "aie_opt_printed_ops.mlir").read_text().splitlines()
    first = next(k for k, line in enumerate(lines) if "aie.core(" in line)
    last = lines.index("    }", first)
    region = lines[first + 1 : last]
    ops = read_region(region)
    opaque = [op.text.split(":")[0] for op in ops if isinstance(op, ir.Opaque)]
    assert opaque == ["^bb1(%21", "^bb2", "^bb3"]
    assert print_ops(ops, 3) == region


def test_printed_core_is_accepted_by_the_real_aie_opt(real_mlir_aie):
    """iron prints the core back; the real aie-opt reads it and prints the same text."""
    from iron.mlir.printer import print_module
    from iron.tests.real_mlir_aie import aie_opt

    text = (DATA / "aie_opt_printed_ops.mlir").read_text()
    out = aie_opt(print_module(parse(text)))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == text.strip()


# --------------------------------------------------------------------------- memref.copy
COPY = "      memref.copy %x, %y : memref<4xi32> to memref<4xi32>"


def test_memref_copy_core_passes_its_input_through(tmp_path):
    """The core of mlir-aie test/npu-xrt/reconfigure_loadpdi_persistent_memtile/aie.mlir
    (``memref.copy %t12_buf_inp, %t12_buf_out : memref<4xi32> to memref<4xi32>``) between
    object-FIFO buffers; its test.cpp expects {11, 22, 33, 44} back."""
    out = _run(one_core(4, "i32", COPY), tmp_path, np.array([11, 22, 33, 44], np.int32), name="copy")
    np.testing.assert_array_equal(out, [11, 22, 33, 44])


def test_memref_subview_copies_into_a_window(tmp_path):
    """``memref.subview %y[1] [2] [1]`` is y[1:3]: copying x[2:4] there leaves the rest as zeros
    would be wrong (the buffer keeps last run's data: zero at first)."""
    body = """      %xs = memref.subview %x[2] [2] [1] : memref<4xi32> to memref<2xi32, strided<[1], offset: 2>>
      %ys = memref.subview %y[1] [2] [1] : memref<4xi32> to memref<2xi32, strided<[1], offset: 1>>
      memref.copy %xs, %ys : memref<2xi32, strided<[1], offset: 2>> to memref<2xi32, strided<[1], offset: 1>>"""
    out = _run(one_core(4, "i32", body), tmp_path, np.array([11, 22, 33, 44], np.int32), name="subview")
    np.testing.assert_array_equal(out, [0, 33, 44, 0])


def test_vector_load_and_store_through_strided_subviews(tmp_path):
    """A subview of columns 2..5 of a 4x8 object is strided: ``vector.load %xs[%c1, %c2]`` of 2
    reads x[1, 4:6] (its row 1 from its column 2); stored at [1, 1] of the subview y[2:4, 4:8]
    it lands in y[3, 5:7]. The rest of y stays zero."""
    body = """      %xs = memref.subview %x[0, 2] [4, 4] [1, 1] : memref<4x8xi32> to memref<4x4xi32, strided<[8, 1], offset: 2>>
      %ys = memref.subview %y[2, 4] [2, 4] [1, 1] : memref<4x8xi32> to memref<2x4xi32, strided<[8, 1], offset: 20>>
      %c2 = arith.constant 2 : index
      %v = vector.load %xs[%c1, %c2] : memref<4x4xi32, strided<[8, 1], offset: 2>>, vector<2xi32>
      vector.store %v, %ys[%c1, %c1] : memref<2x4xi32, strided<[8, 1], offset: 20>>, vector<2xi32>"""
    text = one_core(32, "i32", body).replace("memref<32xi32>>", "memref<4x8xi32>>")
    text = text.replace(
        "acquire @in(Consume, 1) : memref<32xi32>", "acquire @in(Consume, 1) : memref<4x8xi32>"
    )
    text = text.replace(
        "acquire @out(Produce, 1) : memref<32xi32>", "acquire @out(Produce, 1) : memref<4x8xi32>"
    )
    x = np.arange(32, dtype=np.int32) + 100  # x[r, c] = 100 + 8 r + c
    want = np.zeros((4, 8), np.int32)
    want[3, 5:7] = [112, 113]  # x[1, 4:6]
    out = _run(text, tmp_path, x, name="strided")
    np.testing.assert_array_equal(np.asarray(out).reshape(4, 8), want)


# --------------------------------------------------------------------------- vector transfers
VADD = """      %cst = arith.constant 0.000000e+00 : bf16
      scf.for %i = %c0 to %c256 step %c16 {
        %a = vector.transfer_read %x[%i], %cst {in_bounds = [true]} : memref<256xbf16>, vector<16xbf16>
        %b = vector.transfer_read %x[%i], %cst {in_bounds = [true]} : memref<256xbf16>, vector<16xbf16>
        %c = arith.addf %a, %b : vector<16xbf16>
        vector.transfer_write %c, %y[%i] {in_bounds = [true]} : vector<16xbf16>, memref<256xbf16>
      }"""


def test_vector_transfer_add_core_of_upstream(tmp_path):
    """The loop of mlir-aie test/aiecc/cpp_aie2p_vector_add.mlir (a + b in vector<16xbf16>
    steps), with b = a: each output is 2 * a, exact in bf16 for these integers."""
    consts = "      %c16 = arith.constant 16 : index\n      %c256 = arith.constant 256 : index"
    a = (np.arange(256) % 32).astype(np.float32)
    bits = (a.view(np.uint32) >> 16).astype(np.uint16)  # exact: small integers have short mantissas
    out = _run(one_core(256, "bf16", VADD, consts), tmp_path, bits, name="vadd")
    got = (np.asarray(out).view(np.uint16).astype(np.uint32) << 16).view(np.float32)
    np.testing.assert_array_equal(got, 2 * a)


MIXED = """      %pad = arith.constant -1 : i32
      %c12 = arith.constant 12 : index
      %c8 = arith.constant 8 : index
      %c9 = arith.constant 9 : index
      %c10 = arith.constant 10 : index
      %c11 = arith.constant 11 : index
      %r = vector.transfer_read %x[%c12], %pad : memref<16xi32>, vector<8xi32>
      vector.transfer_write %r, %y[%c0] : vector<8xi32>, memref<16xi32>
      vector.transfer_write %r, %y[%c12] : vector<8xi32>, memref<16xi32>
      %s = vector.reduction <add>, %r : vector<8xi32> into i32
      memref.store %s, %y[%c8] : memref<16xi32>
      %e = vector.extract %r[%c1] : i32 from vector<8xi32>
      %w = vector.insert %s, %r [7] : i32 into vector<8xi32>
      %m = vector.reduction <maxsi>, %w : vector<8xi32> into i32
      %d = arith.subi %m, %e : i32
      memref.store %d, %y[%c9] : memref<16xi32>
      %zero = arith.constant 0 : i32
      %three = arith.constant 3 : i32
      %n = scf.while (%k = %zero) : (i32) -> i32 {
        %go = arith.cmpi slt, %k, %e : i32
        scf.condition(%go) %k : i32
      } do {
      ^bb0(%j: i32):
        %j3 = arith.addi %j, %three : i32
        scf.yield %j3 : i32
      }
      memref.store %n, %y[%c10] : memref<16xi32>
      cf.br ^bb1(%zero, %zero : i32, i32)
    ^bb1(%i: i32, %acc: i32):
      %more = arith.cmpi slt, %i, %three : i32
      cf.cond_br %more, ^bb2, ^bb3
    ^bb2:
      %acc2 = arith.addi %acc, %e : i32
      %i2 = arith.addi %i, %c1_i32 : i32
      cf.br ^bb1(%i2, %acc2 : i32, i32)
    ^bb3:
      memref.store %acc, %y[%c11] : memref<16xi32>"""


def test_transfers_pad_and_skip_outside_the_memref_and_control_flow_runs(tmp_path):
    x = np.arange(16, dtype=np.int32) * 10 + 1  # 1, 11, ..., 151
    # transfer_read at 12 of 8 elements on 16: x[12:16] then the padding -1 four times
    r = [121, 131, 141, 151, -1, -1, -1, -1]
    want = np.zeros(16, np.int32)
    want[0:8] = r  # written whole at 0
    want[12:16] = r[:4]  # written at 12: the four elements past the end are skipped
    s = 121 + 131 + 141 + 151 - 4  # reduction <add> = 540
    want[8] = s
    want[9] = s - 131  # max of r with r[7] = s is s; minus extract r[1]
    want[10] = 132  # while k < 131: k += 3 from 0 -> first k >= 131 is 132
    want[11] = 3 * 131  # three trips around ^bb1 -> ^bb2 adding e
    body = MIXED.replace("%i2 = arith.addi %i, %c1_i32", "%i2 = arith.addi %i, %one")
    body = body.replace(
        "%three = arith.constant 3 : i32",
        "%three = arith.constant 3 : i32\n      %one = arith.constant 1 : i32",
    )
    out = _run(one_core(16, "i32", body), tmp_path, x, name="mixed")
    np.testing.assert_array_equal(out, want)


F32 = """      %r = vector.transfer_read %x[%c0], %f0 {in_bounds = [true]} : memref<8xf32>, vector<8xf32>
      %t = math.tanh %r : vector<8xf32>
      %q = math.rsqrt %r : vector<8xf32>
      %f = vector.fma %r, %t, %q : vector<8xf32>
      %n = arith.negf %f : vector<8xf32>
      vector.transfer_write %n, %y[%c0] {in_bounds = [true]} : vector<8xf32>, memref<8xf32>"""


def test_math_and_fma_per_element(tmp_path):
    """-(x * tanh(x) + 1 / sqrt(x)), numpy in float64 (MLIR's math ops: the exact function,
    rounded; fma: rounded once)."""
    x = np.array([0.25, 0.5, 1, 2, 3, 4, 9, 16], np.float32)
    out = _run(one_core(8, "f32", F32, "      %f0 = arith.constant 0.0 : f32"), tmp_path, x, name="mathf")
    xd = x.astype(np.float64)
    np.testing.assert_allclose(out, -(xd * np.tanh(xd) + 1 / np.sqrt(xd)), rtol=1e-6)


# --------------------------------------------------------------------------- kernels without a model
def two_cores() -> str:
    """Two independent paths in one column: @in0 -> core (0,2) calling ``scale`` -> @out0, and
    @in1 -> core (0,3) calling ``mystery`` -> @out1 (the split_scale_join core of
    test_sim_execution.py, once per core)."""
    core = """
    %core_{r} = aie.core(%c{r}) {{
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %n = arith.constant 8 : i32
      scf.for %i = %c0 to %c4 step %c1 {{
        %x = aie.objectfifo.acquire @in{k}(Consume, 1) : memref<8xi32>
        %y = aie.objectfifo.acquire @out{k}(Produce, 1) : memref<8xi32>
        func.call @{fn}(%x, %y, %n) : (memref<8xi32>, memref<8xi32>, i32) -> ()
        aie.objectfifo.release @in{k}(Consume, 1)
        aie.objectfifo.release @out{k}(Produce, 1)
      }}
      aie.end
    }}"""
    fifos = "\n".join(
        f"    aie.objectfifo @in{k}(%shim, {{%c{r}}}, 2 : i32) : !aie.objectfifo<memref<8xi32>>\n"
        f"    aie.objectfifo @out{k}(%c{r}, {{%shim}}, 2 : i32) : !aie.objectfifo<memref<8xi32>>"
        for k, r in ((0, 2), (1, 3))
    )
    return f"""module {{
  aie.device(npu2_1col) {{
    func.func private @scale(memref<8xi32>, memref<8xi32>, i32) attributes {{link_with = "scale.o"}}
    func.func private @mystery(memref<8xi32>, memref<8xi32>, i32) attributes {{link_with = "mystery.o"}}
    %shim = aie.tile(0, 0)
    %c2 = aie.tile(0, 2)
    %c3 = aie.tile(0, 3)
{fifos}
{core.format(r=2, k=0, fn="scale")}
{core.format(r=3, k=1, fn="mystery")}
    aie.runtime_sequence(%a: memref<32xi32>, %b: memref<32xi32>, %p: memref<32xi32>, %q: memref<32xi32>) {{
      aiex.npu.dma_memcpy_nd(%p[0, 0, 0, 0][1, 1, 1, 32][0, 0, 0, 1]) {{id = 0 : i64, metadata = @out0, issue_token = true}} : memref<32xi32>
      aiex.npu.dma_memcpy_nd(%q[0, 0, 0, 0][1, 1, 1, 32][0, 0, 0, 1]) {{id = 1 : i64, metadata = @out1, issue_token = true}} : memref<32xi32>
      aiex.npu.dma_memcpy_nd(%a[0, 0, 0, 0][1, 1, 1, 32][0, 0, 0, 1]) {{id = 2 : i64, metadata = @in0}} : memref<32xi32>
      aiex.npu.dma_memcpy_nd(%b[0, 0, 0, 0][1, 1, 1, 32][0, 0, 0, 1]) {{id = 3 : i64, metadata = @in1}} : memref<32xi32>
      aiex.npu.dma_wait {{symbol = @out0}}
      aiex.npu.dma_wait {{symbol = @out1}}
    }}
  }}
}}
"""


def scale(x, y, n):  # the kernel of the path sim has a model of: y[i] = 3 * x[i] for i < n
    y[:n] = 3 * x[:n]


@pytest.fixture
def only_scale(monkeypatch):
    """sim's own models: ``scale`` only (``mystery`` is a kernel the user compiled)."""
    monkeypatch.setattr(kernel_models, "model_for", lambda s, d, a: {"scale": scale}.get(s))


def test_an_unmodelled_kernel_voids_only_the_outputs_it_reaches(only_scale, tmp_path):
    a = np.arange(32, dtype=np.int32) - 7
    b = np.arange(32, dtype=np.int32) * 2
    p, q = _run(two_cores(), tmp_path, a, b, name="two_paths")
    np.testing.assert_array_equal(p, 3 * a)
    assert isinstance(q, NotModelled) and q.name == "q"
    assert "kernel 'mystery'" in q.reason and "kernels=" in q.reason
    assert "has no model: 'mystery' is in none of iron's kernel tables" in q.reason  # the table's reason


def test_a_users_model_computes_the_other_output(only_scale, tmp_path):
    a = np.arange(32, dtype=np.int32) - 7
    b = np.arange(32, dtype=np.int32) * 2

    def mystery(x, y, n):  # the user's model of their kernel: y = x - 5
        y[:n] = x[:n] - 5

    p, q = _run(two_cores(), tmp_path, a, b, name="two_paths_user", kernels={"mystery": mystery})
    np.testing.assert_array_equal(p, 3 * a)
    np.testing.assert_array_equal(q, b - 5)


def test_kernels_must_map_symbols_to_functions(tmp_path):
    with pytest.raises(kernel_models.KernelsArgError, match="kernels"):
        _run(
            two_cores(),
            tmp_path,
            np.zeros(32, np.int32),
            np.zeros(32, np.int32),
            name="bad",
            kernels={"mystery": 3},
        )


def test_an_unknown_integer_elementwise_symbol_has_no_model(monkeypatch):
    """Only the operations iron's eltwise_int.cc defines (add, mul) have models: a ``sub``
    symbol, even one the kernel table listed, is refused by the model table, never modelled
    as another operation."""
    from iron.target import kernels as kt

    src, add = kt.entry("eltwise_add_i32_vector")
    sub = dataclasses.replace(add, symbol="eltwise_sub_i32_vector")
    listed = kt.entry
    monkeypatch.setattr(kt, "entry", lambda s: (src, sub) if s == sub.symbol else listed(s))
    assert kernel_models.model_for(sub.symbol, {}, "aie2") is None
    assert kernel_models.refusal(sub.symbol) == (
        "'eltwise_sub_i32_vector': iron's eltwise_int.cc models add, mul only; no model of another "
        "operation stands in for it"
    )
    model = kernel_models.model_for(add.symbol, {}, "aie2")
    c = np.zeros(4, np.int32)
    model(np.array([1, 2, 3, 4], np.int32), np.array([10, 20, 30, 40], np.int32), c, 4)
    np.testing.assert_array_equal(c, [11, 22, 33, 44])


def test_a_mark_follows_the_data_through_a_join(only_scale, tmp_path):
    """split_scale_join (test_sim_execution.py) with core (0,3) calling ``mystery``: the joined
    output holds its results, so it is not modelled."""
    from iron.tests.test_sim_execution import design

    text = design()
    decl = 'func.func private @scale(memref<8xi32>, memref<8xi32>, i32) attributes {link_with = "scale.o"}'
    text = text.replace(decl, decl + "\n    " + decl.replace("scale", "mystery"))
    k = text.index("%core_0_3")
    text = text[:k] + text[k:].replace("func.call @scale", "func.call @mystery", 1)
    out = _run(text, tmp_path, np.arange(64, dtype=np.int32), name="join_mystery")
    assert isinstance(out, NotModelled) and "kernel 'mystery'" in out.reason


def chain() -> str:
    """@in -> core (0,2) calling ``mystery`` -> @mid -> core (0,3) copying (memref.copy) -> @out."""
    return f"""module {{
  aie.device(npu2_1col) {{
    func.func private @mystery(memref<8xi32>, memref<8xi32>, i32) attributes {{link_with = "mystery.o"}}
    %shim = aie.tile(0, 0)
    %c2 = aie.tile(0, 2)
    %c3 = aie.tile(0, 3)
    aie.objectfifo @in(%shim, {{%c2}}, 2 : i32) : !aie.objectfifo<memref<8xi32>>
    aie.objectfifo @mid(%c2, {{%c3}}, 2 : i32) : !aie.objectfifo<memref<8xi32>>
    aie.objectfifo @out(%c3, {{%shim}}, 2 : i32) : !aie.objectfifo<memref<8xi32>>
    %core_2 = aie.core(%c2) {{
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %n = arith.constant 8 : i32
      scf.for %i = %c0 to %c4 step %c1 {{
        %x = aie.objectfifo.acquire @in(Consume, 1) : memref<8xi32>
        %y = aie.objectfifo.acquire @mid(Produce, 1) : memref<8xi32>
        func.call @mystery(%x, %y, %n) : (memref<8xi32>, memref<8xi32>, i32) -> ()
        aie.objectfifo.release @in(Consume, 1)
        aie.objectfifo.release @mid(Produce, 1)
      }}
      aie.end
    }}
    %core_3 = aie.core(%c3) {{
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      scf.for %i = %c0 to %c4 step %c1 {{
        %x = aie.objectfifo.acquire @mid(Consume, 1) : memref<8xi32>
        %y = aie.objectfifo.acquire @out(Produce, 1) : memref<8xi32>
        memref.copy %x, %y : memref<8xi32> to memref<8xi32>
        aie.objectfifo.release @mid(Consume, 1)
        aie.objectfifo.release @out(Produce, 1)
      }}
      aie.end
    }}
    aie.runtime_sequence(%a: memref<32xi32>, %b: memref<32xi32>) {{
      aiex.npu.dma_memcpy_nd(%b[0, 0, 0, 0][1, 1, 1, 32][0, 0, 0, 1]) {{id = 0 : i64, metadata = @out, issue_token = true}} : memref<32xi32>
      aiex.npu.dma_memcpy_nd(%a[0, 0, 0, 0][1, 1, 1, 32][0, 0, 0, 1]) {{id = 1 : i64, metadata = @in}} : memref<32xi32>
      aiex.npu.dma_wait {{symbol = @out}}
    }}
  }}
}}
"""


def test_a_mark_follows_the_data_through_a_copying_core(only_scale, tmp_path):
    a = np.arange(32, dtype=np.int32) * 3
    out = _run(chain(), tmp_path, a, name="chain")
    assert isinstance(out, NotModelled) and "kernel 'mystery'" in out.reason

    def mystery(x, y, n):
        y[:n] = x[:n] + 1

    np.testing.assert_array_equal(
        _run(chain(), tmp_path, a, name="chain_user", kernels={"mystery": mystery}), a + 1
    )


def test_an_op_sim_does_not_run_is_named_with_its_line(tmp_path):
    """``vector.print`` has no model: the output names the op, its core and its line in the
    device MLIR sim ran (the PDI's text, as iron prints the design)."""
    import re

    body = COPY + "\n      vector.print %x : memref<4xi32>"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        art = iron.build(iron.from_mlir(one_core(4, "i32", body), name="printing"), cache_dir=tmp_path)
    with art.load("sim") as run:
        out = run(np.zeros(4, np.int32))
    assert isinstance(out, NotModelled)
    assert "not modelled: vector.print (core (0,2): vector.print %x : memref<4xi32>)" in out.reason
    m = re.search(r" at <PDI of @(\w+)>:(\d+)$", out.reason)
    assert m, out.reason
    (pdi,) = [p for p in art.pdis.values() if p.symbol == m.group(1)]
    assert pdi.mlir.splitlines()[int(m.group(2)) - 1].strip() == "vector.print %x : memref<4xi32>"


# --------------------------------------------------------------------------- affine loops
AFFINE = """      %n = arith.constant 8 : index
      %z = arith.constant 0 : i32
      %s = affine.for %i = 0 to %n iter_args(%acc = %z) -> (i32) {
        %v = memref.load %x[%i] : memref<16xi32>
        %a = arith.addi %acc, %v : i32
        memref.store %a, %y[%i] : memref<16xi32>
        affine.yield %a : i32
      }
      affine.for %j = 8 to 16 {
        memref.store %s, %y[%j] : memref<16xi32>
      }
      affine.for %k = 9 to 16 step 3 {
        memref.store %z, %y[%k] : memref<16xi32>
      }"""


def test_affine_loops_count_carry_and_step(tmp_path):
    """AffineOps.td: ``affine.for`` from the lower bound while below the upper (an SSA symbol
    here), step 1 when left out, ``iter_args`` carried by ``affine.yield``. By hand: the
    running sums of 1..8, then that sum (36) at 8..15 and 0 at 9, 12, 15."""
    x = np.arange(1, 17, dtype=np.int32)
    out = _run(one_core(16, "i32", AFFINE), tmp_path, x, name="affine")
    np.testing.assert_array_equal(out, [1, 3, 6, 10, 15, 21, 28, 36, 36, 0, 36, 36, 0, 36, 36, 0])


def test_upstream_affine_core_reads_as_affine_loops_and_prints_back():
    """The core of mlir-aie test/npu-xrt/add_256_using_dma_op_no_double_buffering/aie.mlir
    (iron/tests/data/corpus, lines 34-48): two nested ``affine.for`` that print back as written
    (up to spacing: upstream writes ``%c256_i32: i32``)."""
    path = Path(__file__).parent / "data" / "corpus"
    lines = (path / "mlir-aie__test__npu-xrt__add_256_using_dma_op_no_double_buffering__aie.mlir").read_text()
    region = lines.splitlines()[33:48]
    (outer,) = read_region(region)
    assert type(outer) is body.AffineFor and (outer.lower, outer.upper, outer.step) == ("0", "4", 1)
    inner = [op for op in outer.body if isinstance(op, body.AffineFor)]
    assert [(op.lower, op.upper) for op in inner] == [("0", "16")]
    assert ["".join(ln.split()) for ln in print_ops([outer])] == ["".join(ln.split()) for ln in region]


def test_printed_affine_loops_are_accepted_by_the_real_aie_opt(real_mlir_aie):
    """iron prints the affine loops back (in a function of the two buffers); the real aie-opt
    verifies them and keeps three loops."""
    from iron.tests.real_mlir_aie import aie_opt

    ops = read_region(AFFINE.splitlines())
    lines = "\n".join(print_ops(ops, 2))
    src = (
        "module {\n  func.func @f(%x: memref<16xi32>, %y: memref<16xi32>) {\n"
        f"{lines}\n    return\n  }}\n}}\n"
    )
    out = aie_opt(src)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("affine.for") == 3 and out.stdout.count("affine.yield") == 1
