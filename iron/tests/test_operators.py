"""Operator library: arg specs, design structure, printed text, references, validation."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

from iron.mlir.objectfifo import shim_allocations
from iron.design import Design, operator_params
from iron.errors import IronError
from iron.mlir import ir
from iron.operators import (
    AXPY,
    GELU,
    GEMM,
    OPERATORS,
    ElementwiseAdd,
    ElementwiseMul,
    MemCopy,
    ReLU,
    RMSNorm,
    SiLU,
    Softmax,
    from_payload,
    payload_identity,
)
from iron.bf16 import from_bf16, to_bf16
from iron.target.geometry import get_target

from iron.mlir.printer import print_module


def _ops(columns: int = 1, cores: int = 1) -> list:
    """One small instance of every operator for a column/core count."""
    n = columns * cores
    return [
        ElementwiseAdd(64 * n, columns=columns, cores_per_column=min(cores, 2), tile_size=32),
        ElementwiseMul(64 * n, columns=columns, cores_per_column=min(cores, 2), tile_size=32),
        ReLU(64 * n, columns=columns, cores_per_column=cores, tile_size=32),
        SiLU(64 * n, columns=columns, cores_per_column=cores, tile_size=32),
        GELU(64 * n, columns=columns, cores_per_column=cores, tile_size=32),
        AXPY(128 * n, columns=columns, cores_per_column=min(cores, 2), tile_size=64, a=0.75),
        MemCopy(64 * n, columns=columns, cores_per_column=cores, tile_size=32),
        # mm.cc's static_asserts: m % 16 (aie2 bf16), n % 16; the tiles divide M and N
        GEMM(16 * cores, 16, 16 * columns, columns=columns, cores_per_column=cores, m=16, k=16, n=16),
        Softmax(2 * n, 32, columns=columns, cores_per_column=cores),
        RMSNorm(2 * n, 32, columns=columns, cores_per_column=cores),
    ]


def _id(op) -> str:
    return f"{type(op).__name__}-c{op.columns}x{op.cores_per_column}"


CONFIGS = [(1, 1), (2, 2), (4, 4)]
STRUCTURE = [(t, op) for t in ("npu1", "npu2") for c, k in CONFIGS for op in _ops(c, k)]
STRUCTURE += [("npu2", op) for op in _ops(8, 1)]


# --------------------------------------------------------------------------- registry, arg specs
def test_registry_lists_every_operator():
    assert set(OPERATORS) == {
        "ElementwiseAdd", "ElementwiseMul", "ReLU", "SiLU", "GELU", "AXPY", "MemCopy", "GEMM", "Softmax", "RMSNorm",
    }  # fmt: skip
    for op in _ops(2, 2):
        rebuilt = OPERATORS[type(op).__name__](**operator_params(op))
        assert rebuilt == op
        name, params = payload_identity(op)  # what sim's PDI payload stores, through JSON
        assert name == type(op).__name__ and from_payload(name, json.loads(json.dumps(params))) == op


@pytest.mark.parametrize(
    "op, expected",
    [
        (
            ElementwiseAdd(64, tile_size=32),
            [("a", "in", (64,), "bf16"), ("b", "in", (64,), "bf16"), ("c", "out", (64,), "bf16")],
        ),
        (
            ElementwiseMul(64, dtype="i32", tile_size=32),
            [("a", "in", (64,), "i32"), ("b", "in", (64,), "i32"), ("c", "out", (64,), "i32")],
        ),
        (ReLU(64, tile_size=32), [("x", "in", (64,), "bf16"), ("y", "out", (64,), "bf16")]),
        (SiLU(64, tile_size=32), [("x", "in", (64,), "bf16"), ("y", "out", (64,), "bf16")]),
        (GELU(64, tile_size=32), [("x", "in", (64,), "bf16"), ("y", "out", (64,), "bf16")]),
        (
            AXPY(128, tile_size=64, a=2.0),
            [("x", "in", (128,), "bf16"), ("y", "in", (128,), "bf16"), ("out", "out", (128,), "bf16")],
        ),
        (MemCopy(128, dtype="i8", tile_size=64), [("x", "in", (128,), "i8"), ("y", "out", (128,), "i8")]),
        (
            GEMM(32, 16, 16, m=32, k=16, n=16),
            [("A", "in", (32, 16), "bf16"), ("B", "in", (16, 16), "bf16"), ("C", "out", (32, 16), "bf16")],
        ),
        (
            GEMM(32, 16, 16, dtype="i16", m=32, k=16, n=16),
            [("A", "in", (32, 16), "i16"), ("B", "in", (16, 16), "i16"), ("C", "out", (32, 16), "i32")],
        ),
        (Softmax(4, 32), [("x", "in", (4, 32), "bf16"), ("y", "out", (4, 32), "bf16")]),
        (
            RMSNorm(4, 32),
            [("x", "in", (4, 32), "bf16"), ("weight", "in", (32,), "bf16"), ("y", "out", (4, 32), "bf16")],
        ),
    ],
    ids=lambda v: type(v).__name__ if not isinstance(v, list) else "",
)
def test_arg_spec(op, expected):
    assert [(s.name, s.direction, s.shape, s.dtype) for s in op.arg_spec()] == expected
    inputs = op.example_inputs(seed=3)
    ins = [s for s in op.arg_spec() if s.reads]
    assert len(inputs) == len(ins)
    for x, s in zip(inputs, ins):
        assert x.shape == s.shape and x.dtype == s.numpy_dtype
    outs = op.reference(*inputs)
    assert [(o.shape, o.dtype) for o in outs] == [(s.shape, s.numpy_dtype) for s in op.arg_spec() if s.writes]


# --------------------------------------------------------------------------- design structure
def _check_design(op, target_name: str) -> Design:
    target = get_target(target_name)
    design = op.design(target_name)
    dev = design.device
    specs = op.arg_spec()
    assert dev.target == target.device_name(op.columns)
    assert dev.symbol is None

    # tiles: shim row 0, memtile row 1, compute rows 2.. in the design's columns
    tiles = {(t.col, t.row) for t in dev.tiles}
    assert len(tiles) == len(dev.tiles), "duplicate tile"
    assert all(0 <= c < op.columns and 0 <= r < target.rows for c, r in tiles)
    compute = sorted((c, r) for c, r in tiles if r >= 2)
    assert design.compute_tiles == compute
    assert len(compute) == op.columns * op.cores_per_column
    assert {c for c, r in tiles if r == 0} == set(range(op.columns))

    # no hand-made allocations (mlir-aie's object-FIFO lowering makes them); the derived ones:
    # one per stream, legal channels, S2MM 1 never used (trace)
    assert dev.allocations == []
    derived = shim_allocations(dev)
    allocs = {s.symbol: derived[s.symbol] for s in design.streams}
    assert {a.symbol for a in allocs.values()} == {f"{s.symbol}_shim_alloc" for s in design.streams}
    used = set()
    for a in allocs.values():
        assert 0 <= a.column < op.columns
        assert (a.direction, a.channel, a.column) not in used
        used.add((a.direction, a.channel, a.column))
        assert a.channel in ((0, 1) if a.direction == "MM2S" else (0,))
    assert all(not (a.direction == "S2MM" and a.channel == 1 and a.column == 0) for a in allocs.values())

    seq = design.runtime_sequence
    assert seq.name == "sequence"
    assert [a.type for a in seq.args] == [s.type for s in specs]
    tasks = [o for o in seq.body if isinstance(o, ir.DmaMemcpyNd)]
    waits = [o.symbol for o in seq.body if isinstance(o, ir.DmaWait)]

    # BD ids never 15 (trace), unique per shim column until a wait (GEMM reuses them after one)
    per_col: dict[int, list[int]] = {}
    for op_ in seq.body:
        if isinstance(op_, ir.DmaWait):
            per_col = {}
        elif isinstance(op_, ir.DmaMemcpyNd):
            ids = per_col.setdefault(allocs[op_.metadata].column, [])
            assert op_.id not in ids and 0 <= op_.id <= 14
            ids.append(op_.id)

    # every argument covered by its streams: inputs fully, outputs exactly once
    stream_arg = {s.symbol: s.arg for s in design.streams}
    for k, spec in enumerate(specs):
        syms = {s for s, a in stream_arg.items() if a == k}
        assert syms, f"argument {spec.name} has no stream"
        want = "S2MM" if spec.writes else "MM2S"
        assert all(allocs[s].direction == want for s in syms)
        counts = np.zeros(spec.type.numel, dtype=np.int64)
        esize = spec.nbytes // spec.type.numel
        for t in (t for t in tasks if t.metadata in syms):
            assert t.arg == seq.args[k].name
            assert (
                t.offsets[:3] == (0, 0, 0) and t.offsets[3] * esize % 4 == 0 and t.sizes[3] * esize % 4 == 0
            )
            np.add.at(counts, _elements(t), 1)
            assert t.issue_token == spec.writes
        if spec.writes:
            assert (counts == 1).all(), f"output {spec.name} not written exactly once"
            assert syms <= set(waits)
        else:
            assert (counts >= 1).all(), f"input {spec.name} not fully read"
    assert set(waits) <= {s for s, a in stream_arg.items() if specs[a].writes}
    return design


def _elements(t: ir.DmaMemcpyNd) -> np.ndarray:
    """Element indices a transfer moves, from its own offset, sizes and strides."""
    idx = np.array(t.offsets[3])
    for size, stride in zip(t.sizes, (*t.strides, 1)):
        idx = idx[..., None] + np.arange(size) * stride
    return idx.reshape(-1)


@pytest.mark.parametrize("target, op", STRUCTURE, ids=[f"{t}-{_id(op)}" for t, op in STRUCTURE])
def test_design_structure(target, op):
    _check_design(op, target)


def test_design_accepts_target_object_and_is_deterministic():
    op = _ops(2, 2)[7]
    a, b = op.design(get_target("npu2")), op.design("npu2")
    assert a.device == b.device and a.streams == b.streams


def test_split_chunks_are_contiguous_per_column():
    d = ElementwiseAdd(4096, columns=4, cores_per_column=2, tile_size=256).design("npu1")
    allocs = shim_allocations(d.device)
    got = sorted((allocs[t.metadata].column, t.arg, t.offsets[3], t.sizes[3]) for t in d.runtime_sequence.body
                 if isinstance(t, ir.DmaMemcpyNd))  # fmt: skip
    want = sorted((c, f"arg{k}", c * 1024, 1024) for c in range(4) for k in range(3))
    assert got == want


def test_gemm_columns_read_their_column_blocks_of_b_and_a_enters_once_per_row():
    """whole_array_iron.py's sharing: column c reads the n-wide blocks c, c + columns, ... of B
    (and writes the same blocks of C); A enters through min(columns, rows) shims."""
    op = GEMM(64, 32, 128, columns=4, cores_per_column=2, m=16, k=16, n=16)
    d = op.design("npu1")
    allocs = shim_allocations(d.device)
    moves = [(allocs[t.metadata].column, t) for t in d.runtime_sequence.body if isinstance(t, ir.DmaMemcpyNd)]
    for c in range(4):
        want = {j for j in range(128) if j // 16 % 4 == c}
        for arg, rows in (("arg1", 32), ("arg2", 64)):
            got = np.concatenate([_elements(t) for col, t in moves if col == c and t.arg == arg])
            assert set(got % 128) == want and set(got // 128) == set(range(rows))
    a_cols = sorted({col for col, t in moves if t.arg == "arg0"})
    assert a_cols == [0, 2]  # 2 A shims for 2 core rows, spread over the 4 columns (upstream: 2 * i on 8)


# --------------------------------------------------------------------------- printed text
# issue 22: tiles other than 1024 call the runtime-size *_size entries; objects are named
# after the kernel of iron's table (iron.target.kernels)
KERNELS = {
    "ElementwiseAdd": ("eltwise_add_bf16_vector_size", "add.o"),
    "ElementwiseMul": ("eltwise_mul_bf16_vector_size", "mul.o"),
    "ReLU": ("relu_bf16_size", "relu.o"),
    "SiLU": ("silu_bf16_size", "silu.o"),
    "GELU": ("gelu_bf16_size", "gelu.o"),
    "AXPY": ("saxpy", "axpy.o"),
    "MemCopy": ("passThroughLine", "passthrough.o"),
    "GEMM": ("matmul_bf16_bf16", "mm.o"),
    "Softmax": ("softmax_bf16", "softmax.o"),
    "RMSNorm": ("weighted_rms_norm", "weighted_rms_norm.o"),
}


def _printed(op, target="npu2") -> str:
    dev = op.design(target).device
    dev.symbol = "op0"
    return print_module(ir.Module([dev]))


@pytest.mark.parametrize("op", _ops(2, 2), ids=_id)
def test_printed_design_has_mlir_aie_constructs(op):
    text = _printed(op)
    func, obj = KERNELS[type(op).__name__]
    assert f"func.func private @{func}(" in text
    assert f"func.call @{func}(" in text
    # today's mlir-aie links per function (test/parse-trace/test1/aie_test1.mlir at its newest
    # commit): the declaration names the object, the cores do not
    stem = obj[: -len(".o")]
    assert re.search(
        rf'func\.func private @{func}\(.*\) attributes {{link_with = "{stem}_[0-9a-f]{{8}}\.o"}}', text
    )
    assert "} {link_with" not in text
    assert text.count("= aie.core(%tile_") == op.columns * op.cores_per_column
    assert "aie.objectfifo.link [@" in text
    assert "aie.shim_dma_allocation" not in text  # created by mlir-aie's object-FIFO lowering
    assert "aiex.npu.dma_memcpy_nd(%arg" in text
    assert "aiex.npu.dma_wait {symbol = @" in text
    # every FIFO used is declared; every tile used is defined; acquires are released
    declared = set(re.findall(r"aie\.objectfifo @(\w+)\(", text))
    used = set(re.findall(r"@(\w+)\((?:Consume|Produce), 1\)", text))
    linked = set(re.findall(r"@(\w+)", " ".join(re.findall(r"aie\.objectfifo\.link (.*)", text))))
    assert used and used <= declared and linked <= declared
    tiles = set(re.findall(r"%(tile_\d+_\d+) = aie\.tile", text))
    assert set(re.findall(r"%(tile_\d+_\d+)[,)}]", text)) <= tiles
    for port in used:
        for mode in ("Consume", "Produce"):
            acq = len(re.findall(rf"acquire @{port}\({mode}", text))
            assert acq == len(re.findall(rf"release @{port}\({mode}", text))
    assert text.count("{") == text.count("}")


@pytest.mark.parametrize("op", _ops(1, 2), ids=_id)
def test_printed_design_reads_back(op):
    from iron.mlir.reader import parse

    text = _printed(op)
    assert print_module(parse(text)) == text


@pytest.mark.parametrize("op", _ops(2, 2), ids=_id)
def test_aie_package_parses_design(op):
    aie_ir = pytest.importorskip("aie.ir")
    from aie.dialects import aie as _aie  # noqa: F401  (registers the dialects)

    text = _printed(op)
    with aie_ir.Context(), aie_ir.Location.unknown():
        aie_ir.Module.parse(text)


# --------------------------------------------------------------------------- references
def test_bf16_rounding_is_nearest_even():
    bits = np.array([0x3F800000, 0x3F808000, 0x3F818000, 0x3F808001, 0xBF80FFFF, 0x7F7FFFFF, 0x7F800000, 0x00000001],
                    dtype=np.uint32)  # fmt: skip
    got = to_bf16(bits.view(np.float32))
    assert got.tolist() == [0x3F80, 0x3F80, 0x3F82, 0x3F81, 0xBF81, 0x7F80, 0x7F80, 0x0000]
    nan = to_bf16(np.array([np.nan, -np.nan], dtype=np.float32))
    assert np.isnan(from_bf16(nan)).all()
    everything = np.arange(1 << 16, dtype=np.uint16)
    back = to_bf16(from_bf16(everything))
    finite = ~np.isnan(from_bf16(everything))
    assert (back[finite] == everything[finite]).all()
    assert np.isnan(from_bf16(back[~finite])).all()


def _f64(bits) -> np.ndarray:
    return from_bf16(bits).astype(np.float64)


def _gelu64(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


FORMULAS = {
    "ElementwiseAdd": lambda op, a, b: _f64(a) + _f64(b),
    "ElementwiseMul": lambda op, a, b: _f64(a) * _f64(b),
    "ReLU": lambda op, x: np.maximum(_f64(x), 0.0),
    "SiLU": lambda op, x: _f64(x) / (1 + np.exp(-_f64(x))),
    "GELU": lambda op, x: _gelu64(_f64(x)),
    "AXPY": lambda op, x, y: op.a * _f64(x) + _f64(y),  # op.a is exact in bf16 here
    "MemCopy": lambda op, x: _f64(x),
    "GEMM": lambda op, a, b: _f64(a) @ _f64(b),
    "Softmax": lambda op, x: np.exp(_f64(x)) / np.exp(_f64(x)).sum(axis=1, keepdims=True),
    "RMSNorm": lambda op, x, w: _f64(x)
    / np.sqrt((_f64(x) ** 2).mean(axis=1, keepdims=True) + op.eps)
    * _f64(w),
}


@pytest.mark.parametrize("op", _ops(2, 2), ids=_id)
def test_reference_matches_float64_formula(op):
    inputs = op.example_inputs(seed=1)
    (out,) = op.reference(*inputs)
    got = from_bf16(out).astype(np.float64)
    want = FORMULAS[type(op).__name__](op, *inputs)
    # one bf16 rounding (2^-9 relative) plus float32 intermediates
    np.testing.assert_allclose(got, want, rtol=2**-8, atol=1e-5)
    again = op.reference(*inputs)[0]
    assert again.tobytes() == out.tobytes()


def test_reference_exact_where_no_rounding():
    x = ReLU(32, tile_size=32).example_inputs(seed=2)[0]
    (y,) = ReLU(32, tile_size=32).reference(x)
    f = from_bf16(x)
    assert (from_bf16(y) == np.where(f > 0, f, 0)).all()
    assert MemCopy(32, tile_size=32).reference(x)[0].tobytes() == x.tobytes()
    a = np.array([1.5, -2.25, 3.0, 0.0], dtype=np.float32)
    add = ElementwiseAdd(16, tile_size=16)
    (c,) = add.reference(to_bf16(np.resize(a, 16)), to_bf16(np.resize(a[::-1], 16)))
    assert from_bf16(c)[:4].tolist() == [1.5, 0.75, 0.75, 1.5]


def test_integer_gemm_is_exact():
    op = GEMM(32, 32, 32, dtype="i16", columns=2, cores_per_column=2, m=8, k=16, n=16)
    A, B = op.example_inputs(seed=5)
    (C,) = op.reference(A, B)
    want = [[sum(int(A[i, k]) * int(B[k, j]) for k in range(32)) for j in range(32)] for i in range(32)]
    assert C.dtype == np.int32 and C.tolist() == want
    big = np.full((32, 32), 32767, dtype=np.int16)
    (W,) = op.reference(big, np.full((32, 32), 32767, dtype=np.int16))
    assert int(W[0, 0]) == np.int64(32 * 32767 * 32767).astype(np.int32)  # wraps like a 32-bit accumulator


def test_integer_elementwise_wraps():
    op = ElementwiseAdd(16, dtype="i16", tile_size=16)
    a = np.full(16, 32767, dtype=np.int16)
    (c,) = op.reference(a, np.ones(16, dtype=np.int16))
    assert c.dtype == np.int16 and (c == -32768).all()


def test_axpy_rounds_scalar_to_bf16():
    op = AXPY(64, tile_size=64, a=1.0 + 2**-10)  # not representable in bf16 -> 1.0
    x, y = op.example_inputs()
    assert op.reference(x, y)[0].tobytes() == to_bf16(from_bf16(x) + from_bf16(y)).tobytes()


def test_softmax_rows_sum_to_one_and_are_shift_invariant():
    op = Softmax(4, 64)
    (x,) = op.example_inputs(seed=9)
    (y,) = op.reference(x)
    assert np.allclose(from_bf16(y).sum(axis=1), 1.0, atol=64 * 2**-8)
    shifted = to_bf16(from_bf16(x) + 8.0)
    assert np.abs(from_bf16(op.reference(shifted)[0]) - from_bf16(y)).max() < 2**-6


# --------------------------------------------------------------------------- validation
@pytest.mark.parametrize(
    "make, match",
    [
        (
            lambda: ElementwiseAdd(1000),
            r"ElementwiseAdd: size=1000 is not divisible by columns \* cores_per_column \* tile_size",
        ),
        (
            lambda: ElementwiseAdd(1536, columns=2, cores_per_column=2, tile_size=256),
            r"= 1024; accepted: a multiple of 1024 \(e.g. 1024\)",
        ),
        (
            lambda: ReLU(64, tile_size=24),
            r"ReLU: tile_size=24 is not divisible by relu_bf16_size's vector loop steps 32 elements",
        ),
        (lambda: SiLU(64, dtype="f32", tile_size=32), r"SiLU: dtype='f32' is not supported; accepted: bf16"),
        (
            lambda: ElementwiseMul(64, dtype="i64", tile_size=32),
            r"dtype='i64' is not supported; accepted: bf16, i16, i32",
        ),
        (lambda: GELU(0), r"GELU: size=0 is invalid; accepted: a positive integer"),
        (
            lambda: MemCopy(64, columns=9, tile_size=32),
            r"MemCopy: columns=9 is invalid; accepted: an integer in 1..8",
        ),
        (
            lambda: MemCopy(64, cores_per_column=5, tile_size=32),
            r"cores_per_column=5 is invalid; accepted: an integer in 1..4",
        ),
        (
            lambda: AXPY(128, tile_size=64, a=float("nan")),
            r"AXPY: a=nan is invalid; accepted: a finite number",
        ),
        (
            lambda: AXPY(128, tile_size=32),
            r"AXPY: tile_size=32 is not divisible by saxpy's vector loop steps 64 elements",
        ),
        (
            lambda: GEMM(48, 16, 16, cores_per_column=2, m=16, k=16, n=16),
            r"GEMM: M=48 is not divisible by m \* cores_per_column = 16 \* 2 = 32",
        ),
        (lambda: GEMM(64, 96, 64), r"GEMM: K=96 is not divisible by k = 64$"),
        (
            lambda: GEMM(64, 64, 96, columns=2),
            r"GEMM: N=96 is not divisible by n \* columns = 32 \* 2 = 64",
        ),
        # mm.cc's static_asserts (mm_aie2.h 4x8x4 bf16: DIM_K % 8, DIM_N % 16), DIM_M/K/N = m/k/n
        (
            lambda: GEMM(64, 60, 64, k=20),
            r"GEMM: m=64, k=20, n=32: mm.cc's bf16 4x8x4 kernel on aie2 .*DIM_K=20 is not a multiple of 8",
        ),
        (lambda: GEMM(32, 16, 8, m=32, k=16, n=8), r"GEMM: .*DIM_N=8 is not a multiple of 16"),
        (lambda: GEMM(32, 16, 8, dtype="i32"), r"GEMM: dtype='i32' is not supported; accepted: bf16, i16"),
        (
            lambda: GEMM(192, 64, 64, columns=2, cores_per_column=3, m=16),
            r"GEMM: cores_per_column=3 is not a multiple of columns=2: A's row tiles enter",
        ),
        (
            lambda: GEMM(64, 128, 64, m=64, k=128, n=64),  # 2 x (64*128 + 128*64 + 64*64) x 2 bytes
            r"GEMM: the L1 tile m=64, k=128, n=64 needs 81920 bytes of core memory .* more than the 64512",
        ),
        (
            lambda: GEMM(64, 64, 4096),  # A repeats for N / n = 128 column blocks; the BD counts 64
            r"GEMM: shim transfer of A \(sizes \[128, 1, 64, 64\].*size 3 = 128 exceeds the BD's \[1:64\]",
        ),
        (
            lambda: Softmax(3, 32, columns=2),
            r"Softmax: rows=3 is not divisible by columns \* cores_per_column = 2",
        ),
        (
            lambda: Softmax(2, 40),
            r"Softmax: cols=40 is not divisible by softmax_bf16's vector loop steps 32 elements",
        ),
        (lambda: RMSNorm(2, 32, eps=0.0), r"RMSNorm: eps=0.0 is invalid; accepted: a finite number > 0"),
        (lambda: RMSNorm(2, 32, dtype="i16"), r"RMSNorm: dtype='i16' is not supported"),
    ],
)
def test_bad_parameters_raise_clear_errors(make, match):
    with pytest.raises(IronError, match=match):
        make()


@pytest.mark.parametrize("op", _ops(8, 1), ids=_id)
def test_columns_beyond_npu1_rejected_by_design(op):
    with pytest.raises(
        IronError, match=rf"{type(op).__name__}: npu1 has 4 columns; got columns=8 \(accepted: 1..4\)"
    ):
        op.design("npu1")
    op.design("npu2")


def test_unknown_target():
    with pytest.raises(IronError, match="unknown target 'npu3'"):
        ReLU(32, tile_size=32).design("npu3")


def test_resource_limits_are_explained():
    with pytest.raises(IronError, match=r"cores_per_column=3 needs 7 MM2S .* a memtile has 6 per direction"):
        ElementwiseAdd(96, cores_per_column=3, tile_size=32).design("npu1")
    with pytest.raises(
        IronError, match=r"the L1 buffers of one core need \d+ bytes, more than the 64512 bytes"
    ):
        ElementwiseAdd(16384, tile_size=8192).design("npu2")
    with pytest.raises(IronError, match=r"L1 buffers"):
        ReLU(16384, tile_size=8192).design("npu1")


@pytest.mark.parametrize(
    "op",
    [
        ElementwiseAdd(16, tile_size=16),  # the *_size entry has a scalar tail
        ElementwiseMul(16, tile_size=16),
        ReLU(32, tile_size=32),  # the kernels' loops step 32 bf16 lanes (no tail)
        SiLU(32, tile_size=32),
        GELU(32, tile_size=32),
        AXPY(64, tile_size=64),
        MemCopy(64, dtype="i8", tile_size=64),  # passThroughLine copies 64 bytes per step
        GEMM(16, 8, 16, m=16, k=8, n=16),  # mm.cc's static_asserts: aie2 bf16 m % 16, n % 16
        GEMM(8, 4, 16, dtype="i16", m=8, k=4, n=16),  # aie2 i16 m % 8, aie2p n % 16
        Softmax(1, 32),
        RMSNorm(1, 16),
    ],
    ids=lambda op: type(op).__name__,
)
def test_smallest_legal_sizes(op):
    for target in ("npu1", "npu2"):
        _check_design(op, target)
    outs = op.reference(*op.example_inputs())
    assert all(o.size > 0 for o in outs)
    assert op.iterations() == 1


def test_kernel_sources_name_the_current_layout():
    # issue 22: aie_kernels is grouped by family now (one source for both architectures);
    # the artifact layer finds the file in whichever layout is installed
    assert GEMM(16, 8, 16, m=16, k=8, n=16).kernel_sources("npu1") == ["aie_kernels/linalg/mm.cc"]
    assert GEMM(16, 8, 16, m=16, k=8, n=16).kernel_sources("npu2") == ["aie_kernels/linalg/mm.cc"]
    assert AXPY(64, tile_size=64).kernel_sources("npu2") == ["aie_kernels/datamovement/axpy.cc"]
    assert RMSNorm(1, 16).kernel_sources("npu1") == ["iron/kernels/weighted_rms_norm.cc"]
