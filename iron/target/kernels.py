"""The kernels iron links: the one table of upstream kernel facts (and of iron's own few).

Nothing else in iron spells a kernel symbol, a ``-D`` define or a kernel source path:
operators ask :func:`kernel` / :func:`entry` here, the artifact layer resolves a
:class:`KernelSource` to a file of the installed layout, and sim's kernel models read the
fixed counts and lane widths from here.

Two installed layouts of mlir-aie's ``aie_kernels/`` exist (iron detects which one from
the files present, :func:`iron.builder.peano.detect_layout`):

* ``family`` (current): ``activation/ eltwise/ linalg/ norm/ datamovement/ zero/ common/``;
  one source per kernel for both architectures, per-arch code in ``*_aie2.h`` /
  ``*_aie2p.h`` chosen by ``aie_arch.h``.
* ``arch`` (older wheels): ``aie2/<k>.cc``, ``aie2p/<k>.cc``, ``generic/<k>.cc``. iron
  needs a wheel of this layout that already has PR #3740's runtime-size ``*_size``
  entries (iron's check names the missing symbol otherwise).

Sources, read file by file in Xilinx/mlir-aie (path@commit):

* family: ``eltwise/add.cc``@082f3815, ``eltwise/mul.cc``@082f3815,
  ``eltwise/relu_aie2.h``@e36f8909, ``eltwise/relu_aie2p.h``@bd4db3b1,
  ``eltwise/passThrough.cc``@65ef34ee, ``activation/silu.cc``@082f3815,
  ``activation/gelu.cc``@e36f8909, ``activation/softmax.cc``@7b269d6b,
  ``datamovement/axpy.cc``@082f3815, ``norm/rms_norm_aie2p.h``@07c639b6,
  ``linalg/mm.cc``@082f3815, ``linalg/mm_aie2.h``@087517df, ``linalg/mm_aie2p.h``@0f7f898c,
  ``zero/zero.cc``@454559bf, ``common/zero.h``@0e1c42fc, ``common/lut_kernel.cc``@087517df;
  the per-arch headers ``activation/gelu.cc`` and ``softmax.cc`` include:
  ``activation/gelu_aie2.h``@2703b6e1, ``activation/gelu_aie2p.h``@07c639b6,
  ``activation/softmax_aie2.h``@7b715438, ``activation/softmax_aie2p.h``@4c200318 (the line
  ranges each sim model follows are in :mod:`iron.runtime.sim.kernel_models`).
* arch: ``aie2p/mm.cc``@01dd7737 (exports ``zero_<t>`` beside ``matmul_<in>_<out>``),
  ``aie2/mm.cc``@08e404a3, ``generic/passThrough.cc``@1351c7a5 (``BIT_WIDTH`` unset takes
  the 32-bit branch), ``generic/axpy.cc``@8b5f00b9, ``aie2p/relu.cc``@63c63bba.
* companions: ``aie_runtime_lib/AIE2/lut_based_ops.cpp``@f7c4b9de (the tables
  ``lut_based_ops.h`` declares extern); factories compile aie2 LUT kernels through
  ``common/lut_kernel.cc`` with ``-DAIE_LUT_KERNEL_SOURCE="<source>"``
  (``python/iron/kernels/activation.py``, newest text). amd/IRON folds ``zero/zero.cc``
  into the GEMM object with ``-include`` and renames ``zero`` to ``zero_bf16``
  (``iron/common`` gemm operator, newest text; ``rename_symbols``), as iron does.
* programming-example kernels iron never links (:data:`EXAMPLE_KERNELS`, sim models
  only): ``aie2/scale.cc``@6c69e171 and @01b62cae, ``aie2/mv.cc``@15707c4f; the i8 GEMM
  micro-tile ``matmul_vectorized_4x8x8_i8_i32`` of ``aie2/mm.cc`` (r, s, t = 4, 8, 8).
* GEMM blocking: ``mm_stream_dims`` in ``python/iron/kernels/linalg.py``@05dc9f34.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from iron.errors import IronError

FAMILY = "family"
ARCH_DIRS = "arch"
LAYOUTS = (FAMILY, ARCH_DIRS)
#: Core architecture per target name.
ARCH = {"npu1": "aie2", "npu2": "aie2p"}
#: aie_runtime_lib sub-folder per core architecture.
RUNTIME_DIRS = {"aie2": "AIE2", "aie2p": "AIE2P"}
#: ``AIE_BF16_LANES`` of ``aie_kernel_utils.h``: one native bf16 vector register.
BF16_LANES = {"aie2": 16, "aie2p": 32}


@dataclass(frozen=True)
class Entry:
    """One ``extern "C"`` entry point of a kernel source.

    ``params`` are the C parameter types in order. ``count`` is the fixed element count
    of an entry that takes no size (e.g. ``silu_bf16``: 1024); ``size_param`` the index
    of the runtime element count of a ``*_size`` entry. ``lanes`` per arch is the step
    of its vector loop (elements per iteration); ``tail`` says whether it finishes a
    count that is not a multiple of the step with scalar code. Without a tail, ``loop``
    per arch says how the loop bound rounds: ``"ceil"`` (``for (i = 0; i < n; i += L)``:
    whole vectors past the count are read and written) or ``"floor"`` (``F = n / L``
    iterations: the last ``n % L`` elements are left untouched)."""

    symbol: str
    params: tuple[str, ...]
    count: int | None = None
    size_param: int | None = None
    lanes: dict = field(default_factory=dict)
    tail: bool = False
    loop: dict = field(default_factory=dict)

    @property
    def arity(self) -> int:
        return len(self.params)


@dataclass(frozen=True)
class KernelSource:
    """One kernel source file iron compiles, with what compiling it needs.

    ``paths`` maps layout -> arch -> path under ``aie_kernels`` (``"iron"`` for a source
    iron ships in ``iron/kernels/``). ``required`` are the defines without which it does
    not compile (``#error`` or undeclared names). ``lut_on`` are the archs where the
    source reads the lookup tables of ``lut_based_ops.cpp``. ``include`` (per layout) is
    a companion source compiled into the same object with ``-include``, and ``renames``
    the symbols renamed afterwards (``llvm-objcopy --redefine-sym``)."""

    key: str
    paths: dict
    entries: tuple[Entry, ...]
    required: tuple[str, ...] = ()
    lut_on: tuple[str, ...] = ()
    include: dict = field(default_factory=dict)

    def path(self, layout: str, arch: str) -> str:
        return self.paths[layout][arch]

    @property
    def iron_own(self) -> bool:
        return "iron" in self.paths


def _both(path: str) -> dict:
    return {"aie2": path, "aie2p": path}


def _per_arch(name: str) -> dict:
    return {"aie2": f"aie2/{name}", "aie2p": f"aie2p/{name}"}


BF16 = "bfloat16 *"
I32 = "int32_t"
_L32 = {"aie2": 32, "aie2p": 32}
_LB = dict(BF16_LANES)
_CEIL = {"aie2": "ceil", "aie2p": "ceil"}
_FLOOR = {"aie2": "floor", "aie2p": "floor"}

_SOURCES = [
    KernelSource(
        "relu",
        {FAMILY: _both("eltwise/relu.cc"), ARCH_DIRS: _per_arch("relu.cc")},
        (
            Entry("bf16_relu", (BF16, BF16), count=1024, lanes=_L32),
            # relu_aie2.h: F = RELU_ELEMS / 32 iterations; relu_aie2p.h: i < n; i += 32
            Entry(
                "relu_bf16_size",
                (BF16, BF16, I32),
                size_param=2,
                lanes=_L32,
                loop={"aie2": "floor", "aie2p": "ceil"},
            ),
        ),
    ),
    KernelSource(
        "silu",
        {FAMILY: _both("activation/silu.cc"), ARCH_DIRS: _per_arch("silu.cc")},
        (
            Entry("silu_bf16", (BF16, BF16), count=1024, lanes=_LB),
            Entry("silu_bf16_size", (BF16, BF16, I32), size_param=2, lanes=_LB, loop=_CEIL),  # silu_impl
        ),
        lut_on=("aie2",),
    ),
    KernelSource(
        "gelu",
        {FAMILY: _both("activation/gelu.cc"), ARCH_DIRS: _per_arch("gelu.cc")},
        (Entry("gelu_bf16_size", (BF16, BF16, I32), size_param=2, lanes=_LB, loop=_CEIL),),
        lut_on=("aie2",),
    ),
    KernelSource(
        "softmax",
        {FAMILY: _both("activation/softmax.cc"), ARCH_DIRS: _per_arch("softmax.cc")},
        (Entry("softmax_bf16", (BF16, BF16, I32), size_param=2, lanes=_LB, loop=_FLOOR),),  # n / 32 vectors
        lut_on=("aie2",),
    ),
    KernelSource(
        "add",
        {FAMILY: _both("eltwise/add.cc"), ARCH_DIRS: _per_arch("add.cc")},
        (
            Entry("eltwise_add_bf16_vector", (BF16, BF16, BF16), count=1024, lanes=_LB),
            Entry(
                "eltwise_add_bf16_vector_size", (BF16, BF16, BF16, "int"), size_param=3, lanes=_LB, tail=True
            ),
        ),
    ),
    KernelSource(
        "mul",
        {FAMILY: _both("eltwise/mul.cc"), ARCH_DIRS: _per_arch("mul.cc")},
        (
            Entry("eltwise_mul_bf16_vector", (BF16, BF16, BF16), count=1024, lanes=_LB),
            Entry(
                "eltwise_mul_bf16_vector_size", (BF16, BF16, BF16, "int"), size_param=3, lanes=_LB, tail=True
            ),
        ),
    ),
    KernelSource(
        "passthrough",
        {FAMILY: _both("eltwise/passThrough.cc"), ARCH_DIRS: _both("generic/passThrough.cc")},
        # the element type follows BIT_WIDTH; the loop copies 64 bytes per step
        (Entry("passThroughLine", ("T *", "T *", I32), size_param=2),),
        required=("BIT_WIDTH",),
    ),
    KernelSource(
        "axpy",
        {FAMILY: _both("datamovement/axpy.cc"), ARCH_DIRS: _both("generic/axpy.cc")},
        (
            Entry(
                "saxpy",
                (BF16, BF16, "const float", BF16, "const int32_t"),
                size_param=4,
                lanes={"aie2": 64, "aie2p": 64},
                loop=_FLOOR,  # steps = vector_size / 64
            ),
        ),
    ),
    KernelSource(
        "mm",
        {FAMILY: _both("linalg/mm.cc"), ARCH_DIRS: _per_arch("mm.cc")},
        (
            Entry("matmul_bf16_bf16", (BF16, BF16, BF16)),
            Entry("matmul_i16_i32", ("int16 *", "int16 *", "int32 *")),
            # aie2/mm.cc with -Di8_i32_ONLY (upstream examples; iron's GEMM does not offer i8)
            Entry("matmul_i8_i32", ("int8 *", "int8 *", "int32 *")),
            Entry("zero_bf16", (BF16,)),
            Entry("zero_i32", ("int32 *",)),
        ),
        # -D<in>_<out>_ONLY selects one combo; DIM_M/K/N default to 64 when unset, so
        # iron always passes them (the kernel's tile must be the L1 tile).
        required=("DIM_M", "DIM_K", "DIM_N"),
        include={FAMILY: "zero/zero.cc"},
    ),
    # iron's own kernels (iron/kernels/*.cc): upstream has no integer add/mul and no
    # weighted RMSNorm (eltwise.py@05dc9f34: "Only the bf16 variant is available").
    KernelSource(
        "eltwise_int",
        {"iron": _both("eltwise_int.cc")},
        tuple(
            Entry(f"eltwise_{op}_{t}_vector", (f"{c} *", f"{c} *", f"{c} *", I32), size_param=3, tail=True)
            for op in ("add", "mul")
            for t, c in (("i16", "int16_t"), ("i32", "int32_t"))
        ),
    ),
    KernelSource(
        "weighted_rms_norm",
        {"iron": _both("weighted_rms_norm.cc")},
        (Entry("weighted_rms_norm", (BF16, BF16, BF16, I32, "float"), size_param=3, tail=True),),
    ),
]
KERNELS: dict[str, KernelSource] = {k.key: k for k in _SOURCES}

#: The zero entry ``zero/zero.cc`` exports (family layout), typed by ``ZERO_TYPE`` and
#: sized by ``TILE_SIZE``; iron renames it to the ``zero_<t>`` the arch layout's mm.cc
#: exports, so one design links in both layouts.
ZERO_ENTRY = Entry("zero", ("ZERO_TYPE *",))
#: C spelling of ``ZERO_TYPE`` per MLIR element type (amd/IRON ``ZERO_CTYPES``).
ZERO_CTYPES = {"bf16": "bfloat16", "i32": "int32_t", "i16": "int16_t", "i8": "int8_t", "f32": "float"}
#: ``BIT_WIDTH`` per element type for passThrough.cc (8, 16 or 32; anything else #errors).
BIT_WIDTHS = {"i8": 8, "bf16": 16, "i16": 16, "i32": 32, "f32": 32}
#: Bytes one passThrough loop step copies (a ``v64uint8``).
PASSTHROUGH_STEP_BYTES = 64

#: GEMM input dtype -> (output dtype, ``-D`` that instantiates only that combo).
MM_COMBOS = {"bf16": ("bf16", "bf16_bf16_ONLY"), "i16": ("i32", "i16_i32_ONLY")}


@dataclass(frozen=True)
class MicroTile:
    """One mmul shape of mm.cc and the divisibility its ``static_assert`` s demand:
    ``DIM_M % m_div``, ``DIM_K % s``, ``DIM_N % n_div`` must all be 0."""

    r: int
    s: int
    t: int
    m_div: int
    n_div: int


#: (arch, input dtype) -> micro-tile (mm_aie2.h@087517df, mm_aie2p.h@0f7f898c).
MICRO_TILES = {
    ("aie2", "bf16"): MicroTile(4, 8, 4, 16, 16),  # matmul_vectorized_4x8x4_bf16_bf16
    ("aie2", "i16"): MicroTile(4, 4, 4, 8, 8),  # matmul_vectorized_4x4x4_i16_i32
    # matmul_vectorized_4x8x8_i8_i32 (aie2/mm.cc): r, s, t = 4, 8, 8; m % (4 * r), n % (2 * t)
    ("aie2", "i8"): MicroTile(4, 8, 8, 16, 16),
    ("aie2p", "bf16"): MicroTile(4, 8, 8, 8, 16),  # matmul_vectorized_4x8x8_bf16_bf16
    ("aie2p", "i16"): MicroTile(4, 4, 8, 8, 16),  # matmul_vectorized_4x4x8_i16_i32
}


@dataclass(frozen=True)
class ExampleEntry:
    """An ``extern "C"`` entry of a kernel source of upstream's programming examples, which
    iron never compiles or links (foreign designs bring the object): what sim's model of it
    needs. ``source`` is ``path@commit`` in Xilinx/mlir-aie and ``lines`` the line range
    of the loop the model follows. ``lanes``: elements per vector step, with ``F = N /
    lanes`` whole steps (the last ``N % lanes`` elements untouched); 0 for a scalar loop
    over all ``N``. ``dims``: the ``-D`` names of the fixed sizes and their defaults in
    the source (``#ifndef DIM_M / #define DIM_M 32``)."""

    entry: Entry
    source: str
    lines: str
    lanes: int = 0
    dims: tuple[tuple[str, int], ...] = ()


_SCALE_OLD = "aie_kernels/aie2/scale.cc@6c69e1710d4327e4931a92188db65872d94a71e0"
_SCALE_OLDER = "aie_kernels/aie2/scale.cc@01b62cae4b5fb76ed02aca8d563529caf61b4149"
_MV = "aie_kernels/aie2/mv.cc@15707c4fdc5603b4a16f0bc204e2fd14e5bab37d"
_MV_DIMS = (("DIM_M", 32), ("DIM_K", 32))
_SCALE32 = ("int32_t *", "int32_t *", "int32_t *", I32)
_SCALE16 = ("int16_t *", "int16_t *", "int32_t *", I32)

#: Programming-example kernels by symbol (sources read in Xilinx/mlir-aie, path@commit).
#: scale.cc's vectorised int32 and int16 loops both step 32 lanes (``vec_factor = 32``,
#: ``F = N / vec_factor``) in the older file; the oldest one's int32 loop steps 16.
EXAMPLE_KERNELS: dict[str, ExampleEntry] = {
    e.entry.symbol: e
    for e in (
        ExampleEntry(Entry("vector_scalar_mul_int32_scalar", _SCALE32, size_param=3), _SCALE_OLD, "23-30"),
        ExampleEntry(
            Entry("vector_scalar_mul_int32_vector", _SCALE32, size_param=3), _SCALE_OLD, "56-75", 32
        ),
        ExampleEntry(Entry("vector_scalar_mul_int16_scalar", _SCALE16, size_param=3), _SCALE_OLD, "23-30"),
        ExampleEntry(
            Entry("vector_scalar_mul_int16_vector", _SCALE16, size_param=3), _SCALE_OLD, "33-53", 32
        ),
        ExampleEntry(Entry("vector_scalar_mul_aie_scalar", _SCALE32, size_param=3), _SCALE_OLDER, "18-25"),
        ExampleEntry(Entry("vector_scalar_mul_aie", _SCALE32, size_param=3), _SCALE_OLDER, "27-44", 16),
        ExampleEntry(
            Entry("matvec_scalar_i16_i32", ("int16 *", "int16 *", "int32 *")), _MV, "26-37", 0, _MV_DIMS
        ),
        ExampleEntry(
            Entry("zero_scalar_i32", ("int32 *",)),
            _MV,
            "zero_scalar_c_func: zero_scalar<int32, DIM_M, 1>",
            0,
            _MV_DIMS,
        ),
        # matvec_vectorized<int16, int32, acc32, DIM_M, DIM_K, 16, 8>: lanes = r = 16 rows a step
        ExampleEntry(
            Entry("matvec_vectorized_i16_i32", ("int16 *", "int16 *", "int32 *")),
            _MV,
            "from line 39 (matvec_vectorized template)",
            16,
            _MV_DIMS,
        ),
        ExampleEntry(
            Entry("zero_vectorized_i32", ("int32 *",)),
            _MV,
            "zero_vectorized_c_func: zero_vectorized<int32, DIM_M, 1>",
            0,
            _MV_DIMS,
        ),
    )
}


class KernelTableError(IronError):
    """A kernel, entry or shape the table does not have."""


def kernel(key: str) -> KernelSource:
    if key not in KERNELS:
        raise KernelTableError(f"kernel {key!r} is not in iron's kernel table; known: {', '.join(KERNELS)}")
    return KERNELS[key]


def entry(symbol: str) -> tuple[KernelSource, Entry]:
    """The kernel source and entry that export ``symbol``."""
    for k in _SOURCES:
        for e in k.entries:
            if e.symbol == symbol:
                return k, e
    raise KernelTableError(f"no kernel in iron's table exports {symbol!r}")


def elementwise_entry(key: str, tile: int) -> Entry:
    """The entry an elementwise operator calls for ``tile`` elements per call: the fixed
    entry when ``tile`` is its count, else the runtime-size entry."""
    src = kernel(key)
    fixed = [e for e in src.entries if e.count is not None]
    sized = [e for e in src.entries if e.size_param is not None]
    for e in fixed:
        if e.count == tile:
            return e
    if sized:
        return sized[0]
    counts = ", ".join(str(e.count) for e in fixed)
    raise KernelTableError(f"kernel {key}: its entries process a fixed {counts} elements; tile_size={tile}")


def micro_tile(arch: str, dtype: str) -> MicroTile:
    if (arch, dtype) not in MICRO_TILES:
        raise KernelTableError(f"mm.cc has no micro-tile for {dtype} on {arch}")
    return MICRO_TILES[(arch, dtype)]


def mm_check(arch: str, dtype: str, m: int, k: int, n: int) -> str | None:
    """Why mm.cc's static_asserts reject DIM_M/K/N = ``m, k, n`` (None: accepted)."""
    mt = micro_tile(arch, dtype)
    bad = [
        f"{name}={v} is not a multiple of {d}"
        for name, v, d in (("DIM_M", m, mt.m_div), ("DIM_K", k, mt.s), ("DIM_N", n, mt.n_div))
        if v % d
    ]
    if not bad:
        return None
    return (
        f"mm.cc's {dtype} {mt.r}x{mt.s}x{mt.t} kernel on {arch} static_asserts "
        f"DIM_M % {mt.m_div} == 0, DIM_K % {mt.s} == 0, DIM_N % {mt.n_div} == 0: " + "; ".join(bad)
    )


def mm_stream_dims(m: int, k: int, n: int, mt: MicroTile) -> dict[str, tuple[tuple[int, int], ...]]:
    """``(size, stride)`` dims (outermost first) that turn row-major A ``m x k``, B ``k x n``
    into mm.cc's tile-major micro-tiles, and tile-major C ``m x n`` back into row-major:
    upstream's ``mm_stream_dims`` (row-major B and C)."""
    r, s, t = mt.r, mt.s, mt.t
    return {
        "A": ((m // r, r * k), (k // s, s), (r, k), (s, 1)),
        "B": ((k // s, s * n), (n // t, t), (s, n), (t, 1)),
        "C": ((m // r, r * n), (r, t), (n // t, r * t), (t, 1)),
    }


def layout_defines(src: KernelSource, layout: str, defines: dict[str, str]) -> dict[str, str]:
    """Defines the layout adds to an object's own: the family layout's GEMM object folds
    ``zero/zero.cc`` in, which needs ``ZERO_TYPE`` and ``TILE_SIZE`` (= DIM_M * DIM_N)."""
    if src.key != "mm" or layout != FAMILY:
        return {}
    out = _mm_out(defines)
    return {"ZERO_TYPE": ZERO_CTYPES[out], "TILE_SIZE": str(int(defines["DIM_M"]) * int(defines["DIM_N"]))}


def layout_renames(src: KernelSource, layout: str, defines: dict[str, str]) -> dict[str, str]:
    """Symbols renamed in the compiled object (family GEMM: ``zero`` -> ``zero_<out>``)."""
    if src.key != "mm" or layout != FAMILY:
        return {}
    return {ZERO_ENTRY.symbol: f"zero_{_mm_out(defines)}"}


def _mm_out(defines: dict[str, str]) -> str:
    for dtype, (out, flag) in MM_COMBOS.items():
        if flag in defines:
            return out
    raise KernelTableError(f"mm object without one of {', '.join(f for _, f in MM_COMBOS.values())}")
