"""numpy models of the kernels designs call, for sim's execution of core programs.

The one lookup sim's core interpreter uses: :func:`model_for` maps a kernel symbol (the
``func.call`` target, an ``extern "C"`` entry of an mlir-aie kernel source) and the
``-D`` values its object was compiled with to a :data:`KernelModel`, or None when
the model table refuses the symbol (:func:`refusal` says why; the call is then reported
"not modelled" with that reason).

A model is called with the call's operands in order: for a memref operand the numpy
array of the L1 buffer it names (shaped as the memref type; bf16 as uint16 bit
patterns, other types native), for a scalar operand a Python int or float. It
writes its outputs into those arrays in place and returns nothing. It does what the
kernel source does to the buffers it is handed (layout, fixed element counts, tails)
and raises :class:`KernelModelError` where the kernel would touch memory outside a
buffer it was handed.

Every model reads its facts (fixed counts, vector steps, loop rounding, micro-tiles)
from :mod:`iron.target.kernels` and names the upstream function it follows, as
``path@commit lines a-b`` in Xilinx/mlir-aie's ``aie_kernels/`` (the family layout, whose
functions the older per-arch files share; each file and commit is in the source list of
:mod:`iron.target.kernels`). bf16
results are rounded once to nearest-even from float32 (``iron.bf16.to_bf16``). The
kernels accumulate in float32 in their own order and some approximate (LUT / polynomial
tanh and exp), so against a float64 numpy reference a bf16 output may differ by a few
bf16 ulps: GEMM within 2 ulp of ``A @ B`` rounded (float32 accumulation order), the
activations as the approximation allows (sim's checks use iron's reference tolerance).
Integer kernels are exact and wrap. Kernels of upstream's programming examples
(:data:`iron.target.kernels.EXAMPLE_KERNELS`, which foreign designs link) are modelled
from their sources too, with the defines ``iron.from_mlir(kernel_defines=)`` gave.
"""

from __future__ import annotations

import sys
import threading
from typing import Callable, Mapping

import numpy as np

from iron.bf16 import from_bf16, to_bf16
from iron.errors import IronError
from iron.target import kernels as kt

#: ``model(*operands) -> None``: see the module docstring.
KernelModel = Callable[..., None]


class KernelModelError(IronError):
    """A kernel call that would misbehave on hardware (e.g. reach outside its buffers)."""


def model_for(symbol: str, defines: Mapping[str, str], arch: str) -> KernelModel | None:
    """The model of kernel entry ``symbol`` compiled with ``defines`` for core ``arch``
    (``aie2`` npu1, ``aie2p`` npu2), or None when the model table refuses ``symbol``
    (:func:`refusal` says why)."""
    found = _find(symbol)
    if isinstance(found, str):
        return None
    return found({k: str(v) for k, v in dict(defines).items()}, arch)


def refusal(symbol: str) -> str | None:
    """Why iron has no model of kernel entry ``symbol`` (None: it has one). Only symbols in
    the tables are modelled (iron.target.kernels' sources and example kernels, upstream's
    test kernels below), each by the model of its own operation: a symbol the tables do not
    list, or whose operation has no model, is refused, never modelled as a neighbour's."""
    found = _find(symbol)
    return found if isinstance(found, str) else None


def _find(symbol: str) -> Callable[[dict, str], KernelModel] | str:
    """``make(defines, arch) -> model`` of ``symbol``, or why there is none."""
    if symbol == kt.ZERO_ENTRY.symbol:
        return lambda defines, arch: _zero_tile(symbol, defines)
    if symbol in _UPSTREAM_TEST_KERNELS:
        return lambda defines, arch: _UPSTREAM_TEST_KERNELS[symbol]
    if symbol in kt.EXAMPLE_KERNELS:
        return lambda defines, arch: _EXAMPLE_MAKERS[symbol](kt.EXAMPLE_KERNELS[symbol], defines)
    try:
        src, e = kt.entry(symbol)
    except kt.KernelTableError:
        return (
            f"{symbol!r} is in none of iron's kernel tables (iron.target.kernels: the kernel sources "
            "and upstream's example kernels; upstream's test kernels in iron.runtime.sim.kernel_models)"
        )
    maker = _MAKERS.get(src.key)
    if maker is None:
        return f"{symbol!r}: kernel source {src.key!r} of iron.target.kernels has no model"
    if src.key == "eltwise_int" and symbol not in _INT_MODELS:
        return (
            f"{symbol!r}: iron's eltwise_int.cc models {', '.join(_ELTWISE_OPS)} only; no model of "
            "another operation stands in for it"
        )
    return lambda defines, arch: maker(src, e, defines, arch)


class KernelsArgError(IronError, TypeError):
    """A ``kernels=`` argument that is not a mapping of kernel symbols to callables."""


def with_user_models(kernels: Mapping[str, KernelModel] | None, lookup=None):
    """The model lookup sim uses when the user gives models: ``kernels`` maps a kernel
    symbol (the ``func.call`` target) to a function called as built-in models are (see
    the module docstring: numpy views of the buffers in operand order, scalars as Python
    numbers; it writes its outputs in place). A user's model wins over iron's own;
    ``lookup``: the fallback (None: :func:`model_for`, looked up at call time). Returns
    ``lookup`` itself when ``kernels`` is empty."""
    if not kernels:
        return lookup
    if not isinstance(kernels, Mapping):
        raise KernelsArgError(f"kernels must be a dict of kernel symbol -> numpy function, got {kernels!r}")
    bad = {k: v for k, v in kernels.items() if not isinstance(k, str) or not callable(v)}
    if bad:
        raise KernelsArgError(
            f"kernels: {bad!r} is not kernel symbol (str) -> callable; e.g. kernels={{'scale': fn}}"
        )
    user = dict(kernels)

    def models(symbol, defines, arch):
        if symbol in user:
            return user[symbol]
        return (lookup or model_for)(symbol, defines, arch)

    return models


# --------------------------------------------------------------------------- helpers
_HIGH = 1 if sys.byteorder == "little" else 0  # the uint16 half that holds a float32's top bits


def _f32(bits: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """float32 values of bf16 bit patterns (any view, e.g. a tiled one), C-ordered: each pattern
    copied into the top half of a zeroed float32, the widening and the copy in one pass (what
    :func:`iron.bf16.from_bf16` does in two; faster than a widening shift). ``out``: a float32
    array of ``bits.size`` elements whose low halves are zero (:func:`_scratch`), written instead
    of a new one (its top halves only)."""
    if out is None:
        pairs = np.zeros((*bits.shape, 2), np.uint16)
    else:
        pairs = out.reshape(bits.shape).view(np.uint16).reshape(*bits.shape, 2)
    pairs[..., _HIGH] = bits
    return pairs.view(np.float32)[..., 0]


def _scratch(local, rows: int, shapes) -> list:
    """float32 arrays ``(rows, *shape)`` per shape, then one for the result (the last shape),
    kept in ``local`` (a threading.local) per ``rows``: made zeroed once, so the low halves of the
    operands stay zero (:func:`_f32` writes their top halves only; only the result is computed)."""
    cache = getattr(local, "arrays", None)
    if cache is None:
        cache = local.arrays = {}
    if rows not in cache:
        cache[rows] = [np.zeros((rows, *shape), np.float32) for shape in (*shapes, shapes[-1])]
    return cache[rows]


def _flat(buf: np.ndarray) -> np.ndarray:
    """A writable 1-D view of an L1 buffer (models write in place)."""
    return buf.reshape(-1)


def _need(symbol: str, buf: np.ndarray, n: int, what: str) -> None:
    if buf.size < n:
        raise KernelModelError(
            f"{symbol}: {what} {n} elements, but the buffer it was handed holds {buf.size}: "
            "the kernel would run past the buffer in L1"
        )


def _span(e: kt.Entry, arch: str, n: int) -> tuple[int, int]:
    """(elements the vector loop touches, elements it computes correctly) for count ``n``."""
    if e.tail or not e.lanes:
        return n, n
    lanes = e.lanes[arch]
    if e.loop.get(arch) == "floor":
        done = n // lanes * lanes
        return done, done
    return -(-n // lanes) * lanes, n  # ceil: whole vectors past n are read and written


def _unary_bf16(fn) -> Callable:
    """Maker of a bf16 ``(in, out[, n])`` entry computing ``fn`` on float32."""

    def make(src, e, defines, arch):
        def model(x, y, *size):
            n = e.count if e.count is not None else int(size[0])
            touched, _ = _span(e, arch, n)
            for name, buf in (("reads", x), ("writes", y)):
                _need(e.symbol, buf, touched, name)
            xs, ys = _flat(x), _flat(y)
            with np.errstate(over="ignore", invalid="ignore"):
                ys[:touched] = to_bf16(fn(from_bf16(xs[:touched])))

        return model

    return make


def _relu(v):
    """``max(x, 0)``: ``relu`` of eltwise/relu_aie2.h@e36f8909 lines 22-36 (``F = n / 32``
    vectors; entries ``bf16_relu`` line 40, ``relu_bf16_size`` lines 42-45) and
    ``relu_vectorized_bf16`` of eltwise/relu_aie2p.h@bd4db3b1 lines 20-39 (``i < n; i +=
    32``; entries lines 43-50)."""
    return np.where(v > 0, v, np.float32(0))


def _silu(v):
    """``x * 0.5 * (1 + tanh(x / 2))`` (= ``x * sigmoid(x)``): activation/silu.cc@082f3815,
    ``silu_impl`` lines 38-76 (aie2p; ``i < n; i += lanes``), ``silu_aie2`` lines 78-96
    (aie2: ``lut_map_bf16``, tanh from the LUT), ``silu_tanh_approx_bf16`` lines 98-110,
    entries ``silu_bf16`` / ``silu_bf16_size`` lines 114-122."""
    return v / (np.float32(1) + np.exp(-v))


def _gelu(v):
    """The tanh form ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``: activation/gelu.cc
    @e36f8909 includes gelu_aie2.h@2703b6e1 (``gelu_v16`` lines 21-37, which first clamps x
    at -8, where the result is already -0 in bf16; ``gelu_tanh_approx_bf16`` lines 39-49 via
    ``lut_map_bf16``; ``gelu_bf16_size`` lines 58-61) or gelu_aie2p.h@07c639b6
    (``gelu_tanh_approx`` lines 25-45, ``gelu_tanh_approx_bf16`` lines 49-76, step 32;
    ``gelu_bf16_size`` lines 107-110)."""
    k = np.float32(np.sqrt(2.0 / np.pi))
    return np.float32(0.5) * v * (np.float32(1) + np.tanh(k * (v + np.float32(0.044715) * v * v * v)))


# --------------------------------------------------------------------------- models
def _eltwise_bf16(op):
    """``eltwise_{add,mul}_bf16_vector`` (fixed 1024: ``eltwise_vadd``/``eltwise_vmul``) and
    ``*_size`` (``eltwise_vadd_size``: vector body then a scalar tail, exact count):
    eltwise/add.cc@082f3815 lines 63-100 (``eltwise_vadd``), 104-152 (``eltwise_vadd_size``),
    entries 160-167; eltwise/mul.cc@082f3815 lines 42-81 (``eltwise_vmul``), 85-132
    (``eltwise_vmul_size``), entries 140-147. The sum/product is formed in float32 and
    rounded once."""
    operation = _ELTWISE_OPS[op]  # add or mul: an operation without a model is a KeyError here

    def make(src, e, defines, arch):
        def model(a, b, c, *size):
            n = e.count if e.count is not None else int(size[0])
            for name, buf in (("reads", a), ("reads", b), ("writes", c)):
                _need(e.symbol, buf, n, name)
            fa, fb = _f32(_flat(a)[:n]), _f32(_flat(b)[:n])  # new arrays: the result goes in fa
            with np.errstate(over="ignore", invalid="ignore"):
                operation(fa, fb, out=fa)
            to_bf16(fa, out=_flat(c)[:n])

        def batched(a, b, c, *size):
            """``model`` on each row of stacked operands (elementwise: the same operations)."""
            n, rows = e.count if e.count is not None else int(size[0]), a.shape[0]
            fa, fb = _f32(a.reshape(rows, -1)[:, :n]), _f32(b.reshape(rows, -1)[:, :n])
            with np.errstate(over="ignore", invalid="ignore"):
                operation(fa, fb, out=fa)
            to_bf16(fa, out=c.reshape(rows, -1)[:, :n])

        def effects(a, b, c, *size):
            n = e.count if e.count is not None else int(size[0])
            return ((0, 1) if c.size == n else (0, 1, 2)), (2,)  # C read only for what it keeps

        model.batched, model.effects = batched, effects
        return model

    return make


def _eltwise_int(src, e, defines, arch):
    """iron's own ``eltwise_{add,mul}_{i16,i32}_vector`` (iron/kernels/eltwise_int.cc lines
    10-32): ``size`` elements, wrapping. Only the symbols of :data:`_INT_MODELS` get here
    (:func:`refusal` refuses the rest)."""
    op = _INT_MODELS[e.symbol]

    def model(a, b, c, size):
        n = int(size)
        for name, buf in (("reads", a), ("reads", b), ("writes", c)):
            _need(e.symbol, buf, n, name)
        r = op(_flat(a)[:n].astype(np.int64), _flat(b)[:n].astype(np.int64))
        _flat(c)[:n] = r.astype(c.dtype)  # numpy wraps on the narrowing cast

    return model


#: The operations of the elementwise kernels (eltwise/add.cc, eltwise/mul.cc, iron's
#: eltwise_int.cc): a model computes its own operation and no other.
_ELTWISE_OPS = {"add": np.add, "mul": np.multiply}
#: iron's integer elementwise entries (iron/kernels/eltwise_int.cc), each with its operation.
_INT_MODELS = {f"eltwise_{op}_{t}_vector": fn for op, fn in _ELTWISE_OPS.items() for t in ("i16", "i32")}


def _passthrough(src, e, defines, arch):
    """``passThroughLine(in, out, lineWidth)`` of eltwise/passThrough.cc@65ef34ee
    (``passThrough_aie`` lines 22-38; ``passThroughLine`` lines 49-51, 60-62, 71-73 for
    BIT_WIDTH 8, 16, 32) and generic/passThrough.cc@1351c7a5 (lines 20-37; 43-45, 54-56,
    65-67): ``for (j = 0; j < lineWidth; j += N)`` copies one 64-byte vector per step,
    N = 64 / element bytes, the element type set by ``BIT_WIDTH``. Without ``BIT_WIDTH``
    the older source takes the 32-bit branch (its ``#else // 32``, line 63; the current one
    ``#error`` s, lines 42-45): modelled as 32-bit, so a bf16 tile copies twice its bytes
    and the model refuses it."""
    bits = int(defines.get("BIT_WIDTH", "32"))
    if bits not in (8, 16, 32):
        raise KernelModelError(f"passThroughLine: BIT_WIDTH={bits}; the source accepts 8, 16 or 32")
    step = kt.PASSTHROUGH_STEP_BYTES

    def model(x, y, width):
        nbytes = -(-int(width) * bits // 8 // step) * step
        bx, by = _flat(x).view(np.uint8), _flat(y).view(np.uint8)
        for name, buf in (("reads", bx), ("writes", by)):
            if buf.size < nbytes:
                raise KernelModelError(
                    f"passThroughLine (BIT_WIDTH={defines.get('BIT_WIDTH', 'unset: 32')}): copies {nbytes} bytes "
                    f"for lineWidth={width}, the buffer holds {buf.size}: it would run past the buffer in L1"
                )
        by[:nbytes] = bx[:nbytes]

    return model


def _saxpy(src, e, defines, arch):
    """``saxpy(x, y, a, z, n)`` of datamovement/axpy.cc@082f3815 lines 22-76 (aie2: lines
    25-51, 16-lane macs, ``n / 64 * 4`` steps; aie2p: lines 52-73, ``n / 64`` steps of 64):
    ``a`` broadcast as bf16, ``z = a * x + y`` accumulated in float32, n / 64 whole steps of
    64 elements (the rest untouched)."""

    def model(x, y, a, z, n):
        touched, _ = _span(e, arch, int(n))
        for name, buf in (("reads", x), ("reads", y), ("writes", z)):
            _need(e.symbol, buf, touched, name)
        av = from_bf16(to_bf16(np.float32(a)))[()]
        fx, fy = from_bf16(_flat(x)[:touched]), from_bf16(_flat(y)[:touched])
        with np.errstate(over="ignore", invalid="ignore"):
            _flat(z)[:touched] = to_bf16(av * fx + fy)

    return model


def _softmax(src, e, defines, arch):
    """``softmax_bf16(in, out, n)``: activation/softmax.cc@7b269d6b includes softmax_aie2.h
    @7b715438 (``softmax_simple_bf16`` lines 16-91, ``n / 16`` vectors, exp from the LUT;
    entry lines 161-169) or softmax_aie2p.h@4c200318 (``softmax_simple_bf16`` lines 38-128,
    ``n / 32`` vectors, exp2 of ``x * log2e``; entry lines 292-297): softmax over the
    ``n // lanes`` whole vectors it walks (the rest untouched), max-subtracted, float32."""

    def model(x, y, n):
        touched, _ = _span(e, arch, int(n))
        for name, buf in (("reads", x), ("writes", y)):
            _need(e.symbol, buf, touched, name)
        v = from_bf16(_flat(x)[:touched])
        if touched:
            ex = np.exp(v - v.max())
            _flat(y)[:touched] = to_bf16(ex / ex.sum(dtype=np.float32))

    return model


def _weighted_rms_norm(src, e, defines, arch):
    """iron's own ``weighted_rms_norm(x, w, y, cols, eps)`` (iron/kernels/weighted_rms_norm.cc
    lines 8-34): float32 sum of squares, ``y = x * invsqrt(mean + eps) * w``, one bf16
    rounding."""

    def model(x, w, y, cols, eps):
        n = int(cols)
        for name, buf in (("reads", x), ("reads", w), ("writes", y)):
            _need(e.symbol, buf, n, name)
        v, g = from_bf16(_flat(x)[:n]), from_bf16(_flat(w)[:n])
        ms = np.float32(np.sum(v * v, dtype=np.float32) / np.float32(n))
        inv = np.float32(1) / np.sqrt(ms + np.float32(eps))
        _flat(y)[:n] = to_bf16(v * inv * g)

    return model


def _dims(symbol: str, defines: Mapping[str, str], names: tuple[str, ...]) -> tuple[int, ...]:
    # mm.cc: DIM_M/K/N default to 64 when not passed (mm_aie2p.h@0f7f898c, extern "C" block)
    return tuple(int(defines.get(n, "64")) for n in names)


def _mm(src, e, defines, arch):
    """linalg/mm.cc@082f3815 includes mm_aie2.h@087517df or mm_aie2p.h@0f7f898c:
    ``matmul_<in>_<out>`` is ``C += A @ B`` on one DIM_M x DIM_K x DIM_N block whose
    operands are stored as micro-tiles, tile-major (``matmul_vectorized_2x2_mmul``,
    mm_aie2.h lines 76-237, mm_aie2p.h lines 94-291: A tile (z, i) at ``pA + (z * colA +
    i) * r * s``, B tile (i, j) at ``pB + (i * colB + j) * s * t``, C tile (z, j) at ``pC +
    (z * colB + j) * r * t``, each tile row-major; C is loaded, accumulated in the mmul's
    accumulator and stored back as ``T_out``, so a bf16 C is rounded once per call). The
    micro-tile wrappers static_assert the divisibility (mm_aie2p.h lines 335-350
    ``matmul_vectorized_4x4x8_i16_i32``, 352-368 ``matmul_vectorized_4x8x8_bf16_bf16``).
    ``zero_<t>`` (older mm.cc ``zero_vectorized<T, DIM_M, DIM_N>``) zeroes DIM_M * DIM_N
    elements."""
    m, k, n = _dims(e.symbol, defines, ("DIM_M", "DIM_K", "DIM_N"))
    if e.symbol.startswith("zero_"):
        return _zero(e.symbol, m * n)
    dtype = e.symbol.split("_")[1]
    mt = kt.micro_tile(arch, dtype)
    why = kt.mm_check(arch, dtype, m, k, n)
    if why is not None:
        raise KernelModelError(f"{e.symbol}: {why} (the object would not compile)")
    r, s, t = mt.r, mt.s, mt.t

    def model(a, b, c):
        for buf, cnt, what in ((a, m * k, "reads A"), (b, k * n, "reads B"), (c, m * n, "accumulates C in")):
            _need(e.symbol, buf, cnt, what)
        A = _flat(a)[: m * k].reshape(m // r, k // s, r, s).transpose(0, 2, 1, 3)
        B = _flat(b)[: k * n].reshape(k // s, n // t, s, t).transpose(0, 2, 1, 3)
        C = _flat(c)[: m * n].reshape(m // r, n // t, r, t).transpose(0, 2, 1, 3)  # a view: written back
        if dtype == "bf16":  # float32 accumulator; each operand converted and untiled in one pass
            acc = _f32(C).reshape(m, n)
            acc += _f32(A).reshape(m, k) @ _f32(B).reshape(k, n)
            to_bf16(acc.reshape(C.shape), out=C)  # rounded once, straight into the tiled C
            return
        acc = C.astype(np.int64).reshape(m, n) + A.astype(np.int64).reshape(m, k) @ B.astype(
            np.int64
        ).reshape(k, n)
        C[...] = acc.astype(np.int32).reshape(C.shape)  # to_vector<int32> of the 32-bit accumulator: wraps

    model.batched, model.batched_layout = _mm_batched(dtype, m, k, n, r, s, t)
    model.effects = lambda a, b, c: ((0, 1, 2), (2,))  # reads A, B and C; writes C only
    return model


def _untiled(rows: int, cols: int, r: int, c: int) -> np.ndarray:
    """The order that reads a ``rows x cols`` matrix stored as ``r x c`` micro-tiles, tile-major
    (the layout of :func:`_mm`'s operands), row by row: row-major position -> stored position."""
    return np.arange(rows * cols).reshape(rows // r, cols // c, r, c).transpose(0, 2, 1, 3).reshape(-1)


def _mm_batched(dtype: str, m: int, k: int, n: int, r: int, s: int, t: int):
    """(``batched``, ``batched_layout``) of :func:`_mm`'s model: the model on each row of stacked
    operands (rows, ...), C-contiguous, A and B handed untiled (row-major: the layout orders
    their elements; the compiled replay gathers them so), C tiled as the model has it. The same
    float32 operations per block (one matmul per row of the stack: numpy runs a stacked float32
    matmul as one BLAS gemm per matrix), so bitwise the per-call results."""
    orders = {0: _untiled(m, k, r, s), 1: _untiled(k, n, s, t)}
    if dtype != "bf16" and (1 << 30) * k + (1 << 31) >= 1 << 53:  # past exact float64 sums (below)
        return None, None  # the compiled replay calls the model per call
    scratch = threading.local()  # float32 operands kept between calls: no zeroing, no page faults

    def batched(a, b, c):
        rows = a.shape[0]
        C = c.reshape(rows, -1)[:, : m * n].reshape(rows, m // r, n // t, r, t).transpose(0, 1, 3, 2, 4)
        if dtype == "bf16":
            fa, fb, fc, acc = _scratch(scratch, rows, ((m, k), (k, n), (m, n)))
            _f32(a.reshape(rows, m, k), fa), _f32(b.reshape(rows, k, n), fb), _f32(C, fc)
            np.matmul(fa, fb, out=acc)
            acc += fc  # C + A @ B, the model's one float32 addition (it commutes bitwise)
            to_bf16(acc.reshape(C.shape), out=C)
            return
        # Integer operands: every product and partial sum is an integer below 2**53 (|a|, |b| <
        # 2**15 and |c| < 2**31, k < 2**22), so float64 BLAS computes them exactly, in any order:
        # the int64 sums of the model, wrapped to int32 the same way.
        A, B = a.reshape(rows, m, k).astype(np.float64), b.reshape(rows, k, n).astype(np.float64)
        acc = (C.astype(np.float64).reshape(rows, m, n) + A @ B).astype(np.int64)
        C[...] = acc.astype(np.int32).reshape(C.shape)

    return batched, lambda a, b, c: orders


def _zero(symbol: str, count: int) -> KernelModel:
    def model(c):
        _need(symbol, c, count, "zeroes")
        _flat(c)[:count] = 0

    def batched(c):
        c.reshape(c.shape[0], -1)[:, :count] = 0

    model.batched = batched
    # a buffer of exactly ``count`` elements is overwritten whole: its old values are not read
    model.effects = lambda c: (() if c.size == count else (0,), (0,))
    return model


def _zero_tile(symbol: str, defines: Mapping[str, str]) -> KernelModel:
    """``zero(ZERO_TYPE *)`` of zero/zero.cc@454559bf lines 10-18: ``zero_vectorized<ZERO_TYPE,
    TILE_SIZE, 1, false>`` (common/zero.h@0e1c42fc lines 45-68: ``M * N`` elements), so
    TILE_SIZE elements."""
    if "TILE_SIZE" not in defines:
        raise KernelModelError("zero: compiled without TILE_SIZE (zero/zero.cc does not compile without it)")
    return _zero(symbol, int(defines["TILE_SIZE"]))


_MAKERS = {
    "relu": _unary_bf16(_relu),
    "silu": _unary_bf16(_silu),
    "gelu": _unary_bf16(_gelu),
    "softmax": _softmax,
    "add": _eltwise_bf16("add"),
    "mul": _eltwise_bf16("mul"),
    "passthrough": _passthrough,
    "axpy": _saxpy,
    "mm": _mm,
    "eltwise_int": _eltwise_int,
    "weighted_rms_norm": _weighted_rms_norm,
}


# --------------------------------------------------------------------------- programming-example kernels
def _scale(ex: kt.ExampleEntry, defines: Mapping[str, str]) -> KernelModel:
    """``vector_scalar_mul_*(a, c, factor, N)`` of scale.cc (``ex.source``, lines
    ``ex.lines``): ``c[i] = factor * a[i]``. The scalar entries (``scale_scalar``) write all
    N; the vector ones (``scale_vectorized``) ``N / lanes`` whole vectors, the rest
    untouched. The product is formed in a wider accumulator (acc64 for int32, acc32 for
    int16 with the factor cast to int16) and narrowed by ``to_vector<T>(0)``: the low
    bits (wraps)."""
    symbol, lanes = ex.entry.symbol, ex.lanes

    def model(a, c, factor, n):
        n = int(n)
        done = n // lanes * lanes if lanes else n
        for name, buf in (("reads", a), ("writes", c)):
            _need(symbol, buf, done, name)
        f = int(_flat(factor)[0])
        if c.dtype == np.int16:
            f = int(np.int64(f).astype(np.int16))  # T fac = factor
        prod = _flat(a)[:done].astype(np.int64) * np.int64(f)
        _flat(c)[:done] = prod.astype(c.dtype)

    return model


def _example_dims(ex: kt.ExampleEntry, defines: Mapping[str, str]) -> dict[str, int]:
    return {name: int(defines.get(name, default)) for name, default in ex.dims}


def _matvec_scalar(ex: kt.ExampleEntry, defines: Mapping[str, str]) -> KernelModel:
    """``matvec_scalar_i16_i32(a, b, c)`` of mv.cc (``ex.source``, lines ``ex.lines``):
    ``c[row] += sum_i a[row * DIM_K + i] * b[i]`` for DIM_M rows (A row-major), an int32
    running sum (wraps); DIM_M / DIM_K default to 32."""
    d = _example_dims(ex, defines)
    m, k = d["DIM_M"], d["DIM_K"]
    symbol = ex.entry.symbol

    def model(a, b, c):
        for buf, cnt, what in ((a, m * k, "reads A"), (b, k, "reads b"), (c, m, "accumulates c in")):
            _need(symbol, buf, cnt, what)
        A = _flat(a)[: m * k].reshape(m, k).astype(np.int64)
        acc = _flat(c)[:m].astype(np.int64) + A @ _flat(b)[:k].astype(np.int64)
        _flat(c)[:m] = acc.astype(np.int32)

    return model


def _matvec_vectorized(ex: kt.ExampleEntry, defines: Mapping[str, str]) -> KernelModel:
    """``matvec_vectorized_i16_i32(a, b, c)`` of mv.cc (``ex.source``, lines ``ex.lines``):
    the same ``c += A @ b``, but A is the "32-bit word transposed" matrix its comment
    describes: column pairs (2q, 2q + 1) stored one after another, each as DIM_M rows of
    two int16 (``a_vec_j`` loaded at ``a_ptr + 2 * j * m``, even lanes column 2q, odd
    lanes 2q + 1). The source static_asserts DIM_M % 16 == 0 and DIM_K % 8 == 0."""
    d = _example_dims(ex, defines)
    m, k = d["DIM_M"], d["DIM_K"]
    symbol = ex.entry.symbol
    if m % ex.lanes or k % 8:
        raise KernelModelError(
            f"{symbol}: DIM_M={m}, DIM_K={k}; mv.cc static_asserts DIM_M % {ex.lanes} == 0 and "
            "DIM_K % 8 == 0 (the object would not compile)"
        )

    def model(a, b, c):
        for buf, cnt, what in ((a, m * k, "reads A"), (b, k, "reads b"), (c, m, "accumulates c in")):
            _need(symbol, buf, cnt, what)
        A = _flat(a)[: m * k].reshape(k // 2, m, 2).transpose(1, 0, 2).reshape(m, k).astype(np.int64)
        acc = _flat(c)[:m].astype(np.int64) + A @ _flat(b)[:k].astype(np.int64)
        _flat(c)[:m] = acc.astype(np.int32)

    return model


def _zero_scalar(ex: kt.ExampleEntry, defines: Mapping[str, str]) -> KernelModel:
    """``zero_scalar_i32(c)`` / ``zero_vectorized_i32(c)`` of mv.cc (``ex.source``:
    ``zero_scalar`` / ``zero_vectorized<int32, DIM_M, 1>``): DIM_M elements set to 0."""
    return _zero(ex.entry.symbol, _example_dims(ex, defines)["DIM_M"])


_EXAMPLE_MAKERS = {
    **{s: _scale for s in kt.EXAMPLE_KERNELS if s.startswith("vector_scalar_mul_")},
    "matvec_scalar_i16_i32": _matvec_scalar,
    "matvec_vectorized_i16_i32": _matvec_vectorized,
    "zero_scalar_i32": _zero_scalar,
    "zero_vectorized_i32": _zero_scalar,
}


# --------------------------------------------------------------------------- upstream test kernels
def _add_one(inp: np.ndarray, out: np.ndarray, n: int) -> None:
    """Xilinx/mlir-aie test/npu-xrt/add_one_func_link_with_peano/add_one_kernel.cc @0a1b8db:
    ``for (i = 0; i < n; i++) out[i] = in[i] + 1;`` on int32."""
    src, dst = _flat(inp), _flat(out)
    _need("add_one", src, n, "reads")
    _need("add_one", dst, n, "writes")
    with np.errstate(over="ignore"):
        dst[:n] = src[:n] + np.int32(1)


def _scale_int32(inp: np.ndarray, out: np.ndarray) -> None:
    """andrej/mlir-aie test/npu-xrt/vector_scalar_using_dma/scale.cc @a9e39fae (lines 22-35):
    ``scale<int32_t, int32_t, 1024>(a_in, c_out, 3)``: ``for (i = 0; i < 1024; i++) c[i] =
    3 * a[i];`` on int32 (wrapping)."""
    src, dst = _flat(inp), _flat(out)
    _need("scale_int32", src, 1024, "reads")
    _need("scale_int32", dst, 1024, "writes")
    with np.errstate(over="ignore"):
        dst[:1024] = src[:1024] * np.int32(3)


def _vector_scalar_mul_vector(a: np.ndarray, c: np.ndarray, factor: np.ndarray, n) -> None:
    """andrej/mlir-aie aie_kernels/aie2/scale.cc @a9e39fae (blob 317348f2; the parse-trace
    test1 / test2 captures' ``scale.o``): ``vector_scalar_mul_vector(a, c, factor, N)`` is
    ``scale_vectorized<T>(a, c, *factor, N)`` with T the ``BIT_WIDTH`` the object was built
    for, which the call's element type shows (lines 75-99). int16 (lines 26-48): ``N / 32``
    whole vectors of 32 lanes, ``T fac = factor`` (the factor narrowed to int16 first), the
    product in acc32 narrowed by ``to_vector<T>(0)`` (the low bits); int32 (lines 50-71):
    ``N / 16`` vectors of 16 lanes, acc64, the factor as is. Elements past the last whole
    vector are left untouched."""
    symbol, n = "vector_scalar_mul_vector", int(n)
    if a.dtype != c.dtype or a.dtype not in (np.int16, np.int32):
        raise KernelModelError(
            f"{symbol}: operands of {a.dtype} and {c.dtype}; scale.cc builds it for int16 or int32 "
            "(BIT_WIDTH 16 or 32), both operands of that type"
        )
    lanes = 32 if a.dtype == np.int16 else 16
    done = n // lanes * lanes
    _need(symbol, a, done, "reads")
    _need(symbol, c, done, "writes")
    f = int(_flat(factor)[0])
    if a.dtype == np.int16:
        f = int(np.int64(f).astype(np.int16))
    _flat(c)[:done] = (_flat(a)[:done].astype(np.int64) * np.int64(f)).astype(c.dtype)


class CascadeModel:
    """A kernel that reads or writes its core's cascade (``get_scd_*`` / ``put_mcd``).

    ``reads``: the bytes the kernel takes from its incoming cascade; sim waits for them
    before the call (:func:`iron.runtime.sim.cascade.run_kernel`) and hands them to ``fn``
    as ``cascade=`` (a :class:`iron.runtime.sim.cascade.Port`: ``get(dtype, count)`` in
    order, ``put(value)`` for what the kernel writes, sent after the call)."""

    def __init__(self, fn: Callable[..., None], reads: int = 0):
        self.fn = fn
        self.reads = reads
        self.__doc__ = fn.__doc__

    def __call__(self, *args, cascade) -> None:
        self.fn(*args, cascade=cascade)


#: ``v32int32``: 32 lanes of int32 (two 512-bit cascade beats).
_V32_INT32 = 32


def _cascade_kernel1(*, cascade) -> None:
    """Xilinx/mlir-aie test/npu-xrt/cascade_flows/kernel1.cc @223085c4 (lines 22-26):
    ``v32 = undef_v32int32(); v32 = upd_elem(v32, 0, 14); put_mcd(v32)``. The undefined
    lanes are modelled as 0."""
    v = np.zeros(_V32_INT32, np.int32)
    v[0] = 14
    cascade.put(v)


def _cascade_kernel2(*, cascade) -> None:
    """kernel2.cc @223085c4 (lines 22-26): ``v32 = get_scd_v32int32(); v32 = upd_elem(v32, 0,
    114); put_mcd(v32)``: lane 0 replaced, the other lanes passed on."""
    v = cascade.get(np.int32, _V32_INT32)
    v[0] = 114
    cascade.put(v)


def _cascade_kernel3(buf: np.ndarray, n: int, *, cascade) -> None:
    """kernel3.cc @2fbe248f (lines 19-28): ``v32 = get_scd_v32int32(); for (i = 0; i < N;
    i++) buf[i] = i == 5 ? ext_elem(v32, 0) + 100 : 0``."""
    v = cascade.get(np.int32, _V32_INT32)
    n = int(n)
    _need("extern_kernel3", buf, n, "writes")
    out = _flat(buf)
    out[:n] = 0
    if n > 5:
        out[5] = np.int32(v[0] + 100)


#: Kernels of upstream test designs (not in iron's kernel table: iron never links them),
#: so the foreign designs that call them compute on sim.
_UPSTREAM_TEST_KERNELS: dict[str, KernelModel] = {
    "add_one": _add_one,
    "scale_int32": _scale_int32,
    "vector_scalar_mul_vector": _vector_scalar_mul_vector,
    "extern_kernel1": CascadeModel(_cascade_kernel1),
    "extern_kernel2": CascadeModel(_cascade_kernel2, reads=_V32_INT32 * 4),
    "extern_kernel3": CascadeModel(_cascade_kernel3, reads=_V32_INT32 * 4),
}
