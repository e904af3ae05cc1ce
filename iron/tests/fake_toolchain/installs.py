"""Fake mlir-aie installs in both ``aie_kernels`` layouts, plus a fake Peano.

Each stub source declares exactly the ``extern "C"`` entries (names, parameter lists) of
the upstream file it stands for (iron.target.kernels names them with path@commit) and
fails like the real one: passThrough.cc ``#error`` s without ``BIT_WIDTH`` (family
layout; the older one silently takes the 32-bit branch), zero.cc without ``ZERO_TYPE`` /
``TILE_SIZE``, mm.cc's micro-tile ``static_assert`` s become ``#error`` s, every kernel
includes ``<aie_api/aie.hpp>``, which includes ``<adf.h>`` (absent) unless
``__AIE_API_AIE_ADF_HPP__`` is defined, and the aie2 LUT kernels reference the tables only
``lut_based_ops.cpp`` defines. The older layout is the one after PR #3740 (``*_size``
entries) and before the reorganisation; ``build_install(..., sizes=False)`` drops the
``*_size`` entries (a wheel before #3740).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

AIE_HPP = """\
#ifndef __AIE_API_AIE_ADF_HPP__
#include <adf.h>
#endif
typedef unsigned short bfloat16;
typedef short int16;
typedef int int32;
typedef signed char int8;
"""
ARCH_H = """\
#if __AIE_ARCH__ == 20
#define AIE_TUNED_AIE2 1
#define AIE_TUNED_AIE2P 0
#else
#define AIE_TUNED_AIE2 0
#define AIE_TUNED_AIE2P 1
#endif
"""
LUT_H = "extern int16_t tanh_lut_ab[];\nextern int16_t exp_ilut_ab[];\n"
LUT_CPP = '#include "lut_based_ops.h"\nint16_t tanh_lut_ab[] = {0};\nint16_t exp_ilut_ab[] = {0};\n'
LUT_USE = "#if __AIE_ARCH__ == 20\nextern int16_t tanh_lut_ab[];\n#endif\n"
B = "bfloat16 *"


def _fn(name: str, params: str) -> str:
    return f"void {name}({params}) {{}}\n"


def _extern(*fns: str, head: str = "") -> str:
    return head + 'extern "C" {\n' + "".join(fns) + '} // extern "C"\n'


def _eltwise(op: str, sizes: bool) -> str:
    fns = [
        _fn(f"eltwise_{op}_bf16_scalar", "bfloat16 *a_in, bfloat16 *b_in, bfloat16 *c_out"),
        _fn(f"eltwise_{op}_bf16_vector", "bfloat16 *a_in, bfloat16 *b_in, bfloat16 *c_out"),
    ]
    if sizes:
        fns.append(
            _fn(f"eltwise_{op}_bf16_vector_size", "bfloat16 *a_in, bfloat16 *b_in, bfloat16 *c_out, int size")
        )
    return _extern(*fns, head=INC)


def _unary(fixed: str | None, sized: str, lut: bool, sizes: bool) -> str:
    fns = [_fn(fixed, "bfloat16 *restrict input, bfloat16 *restrict output")] if fixed else []
    if sizes:
        fns.append(_fn(sized, "bfloat16 *restrict input, bfloat16 *restrict output, int32_t input_size"))
    return _extern(*fns, head=INC + (LUT_USE if lut else ""))


INC = '#include <stdint.h>\n#include "../aie_kernel_utils.h"\n#include <aie_api/aie.hpp>\n'
SOFTMAX = _extern(
    _fn("softmax_bf16", "bfloat16 *restrict input, bfloat16 *restrict output, const int32_t n"),
    head=INC + LUT_USE,
)
AXPY = _extern(
    _fn(
        "saxpy",
        "bfloat16 *restrict x, bfloat16 *restrict y, const float a, bfloat16 *restrict z, const int32_t vector_size",
    ),
    _fn("saxpy_scalar", "bfloat16 *x, bfloat16 *y, const bfloat16 a, bfloat16 *z, const int32_t vector_size"),
    head=INC,
)
RMS = _extern(
    _fn("rms_norm", "bfloat16 *input, bfloat16 *output, int32_t cols"),
    _fn("rms_norm_eps", "bfloat16 *input, bfloat16 *output, int32_t cols, float epsilon"),
    head=INC,
)
PASS_BODY = "".join(
    f"#{'if' if i == 0 else 'elif'} BIT_WIDTH == {w}\n"
    + _fn("passThroughLine", f"{c} *in, {c} *out, int32_t lineWidth")
    + _fn("passThroughTile", f"{c} *in, {c} *out, int32_t tileHeight, int32_t tileWidth")
    for i, (w, c) in enumerate(((8, "uint8_t"), (16, "int16_t"), (32, "int32_t")))
)
PASS_NEW = INC + (
    '#ifndef BIT_WIDTH\n#error "passThrough.cc: BIT_WIDTH selects the element type of the exported wrappers and '
    'has no safe default. Pass -DBIT_WIDTH=8, 16 or 32."\n#endif\n'
    'extern "C" {\n'
    + PASS_BODY
    + '#else\n#error "passThrough.cc: BIT_WIDTH has no safe default"\n#endif\n} // extern "C"\n'
)
PASS_OLD = (
    INC + 'extern "C" {\n' + PASS_BODY.replace("#elif BIT_WIDTH == 32", "#else") + '#endif\n} // extern "C"\n'
)
# mm.cc: (arch, combo) -> (r, s, t, m_div, n_div) of mm_aie2.h@087517df / mm_aie2p.h@0f7f898c
MM_SHAPES = {
    (20, "bf16_bf16"): (16, 8, 16),
    (20, "i16_i32"): (8, 4, 8),
    (21, "bf16_bf16"): (8, 8, 16),
    (21, "i16_i32"): (8, 4, 16),
}
MM_TYPES = {"bf16_bf16": ("bfloat16", "bfloat16", "bf16"), "i16_i32": ("int16", "int32", "i32")}


def _mm(arch: int, zero: bool) -> str:
    out = INC + "#ifndef DIM_M\n#define DIM_M 64\n#endif\n#ifndef DIM_K\n#define DIM_K 64\n#endif\n"
    out += "#ifndef DIM_N\n#define DIM_N 64\n#endif\n"
    for combo, (tin, tout, zt) in MM_TYPES.items():
        m, k, n = MM_SHAPES[(arch, combo)]
        out += f"#ifdef {combo}_ONLY\n"
        out += f"#if (DIM_M % {m}) || (DIM_K % {k}) || (DIM_N % {n})\n"
        out += f'#error "static assertion failed: DIM_M % {m}, DIM_K % {k}, DIM_N % {n} must be 0"\n#endif\n'
        fns = [
            _fn(f"matmul_{combo}", f"{tin} *a_in, {tin} *b_in, {tout} *c_out"),
            _fn(f"matmul_scalar_{combo}", f"{tin} *a_in, {tin} *b_in, {tout} *c_out"),
        ]
        if zero:
            fns += [_fn(f"zero_{zt}", f"{tout} *c_out"), _fn(f"zero_scalar_{zt}", f"{tout} *c_out")]
        out += _extern(*fns) + "#endif\n"
    return out


def _mm_family(arch: int) -> str:
    return _mm(arch, zero=False)


ZERO = (
    '#include "../common/zero.h"\n'
    "#ifndef ZERO_TYPE\n#error \"use of undeclared identifier 'ZERO_TYPE'\"\n#endif\n"
    "#ifndef TILE_SIZE\n#error \"use of undeclared identifier 'TILE_SIZE'\"\n#endif\n"
    'extern "C" void zero(ZERO_TYPE *__restrict output) {}\n'
    'extern "C" void zero_window(ZERO_TYPE *__restrict output, int32_t offset, int32_t count) {}\n'
)


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def kernel_files(layout: str, sizes: bool = True) -> dict[str, str]:
    """``{path under aie_kernels: stub text}`` of one layout."""
    common = {"aie_kernel_utils.h": "#include <stdint.h>\n", "aie_arch.h": ARCH_H}
    if layout == "family":
        return {
            **common,
            "eltwise/add.cc": _eltwise("add", True),
            "eltwise/mul.cc": _eltwise("mul", True),
            "eltwise/relu.cc": _unary("bf16_relu", "relu_bf16_size", False, True),
            "eltwise/passThrough.cc": PASS_NEW,
            "activation/silu.cc": _unary("silu_bf16", "silu_bf16_size", True, True),
            "activation/gelu.cc": _unary("gelu_bf16", "gelu_bf16_size", True, True),
            "activation/softmax.cc": SOFTMAX,
            "datamovement/axpy.cc": AXPY,
            "norm/rms_norm.cc": RMS,
            "linalg/mm.cc": '#include "../aie_arch.h"\n#if AIE_TUNED_AIE2\n#include "mm_aie2.h"\n#else\n#include "mm_aie2p.h"\n#endif\n',
            "linalg/mm_aie2.h": _mm_family(20),
            "linalg/mm_aie2p.h": _mm_family(21),
            "zero/zero.cc": ZERO,
            "common/zero.h": "#include <aie_api/aie.hpp>\n#include <stdint.h>\n",
            "common/lut_kernel.cc": '#include AIE_LUT_KERNEL_SOURCE\n#include "lut_based_ops.cpp"\n',
        }
    files = dict(common)
    for arch, a in (("aie2", 20), ("aie2p", 21)):
        lut = arch == "aie2"
        files.update(
            {
                f"{arch}/add.cc": _eltwise("add", sizes),
                f"{arch}/mul.cc": _eltwise("mul", sizes),
                f"{arch}/relu.cc": _unary("bf16_relu", "relu_bf16_size", False, sizes),
                f"{arch}/silu.cc": _unary("silu_bf16", "silu_bf16_size", lut, sizes),
                f"{arch}/gelu.cc": _unary(None, "gelu_bf16_size", lut, True),
                f"{arch}/softmax.cc": SOFTMAX if lut else SOFTMAX.replace(LUT_USE, ""),
                f"{arch}/rms_norm.cc": RMS,
                f"{arch}/mm.cc": _mm(a, zero=True),
            }
        )
    files["generic/passThrough.cc"] = PASS_OLD
    files["generic/axpy.cc"] = AXPY
    return files


def _launcher(path: Path, module: str, log: Path | None) -> None:
    env = f"os.environ['FAKE_CLANG_LOG'] = {str(log)!r}\n" if log else ""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"#!{sys.executable} -S\nimport os, sys\n{env}sys.path.insert(0, {str(HERE)!r})\n"
        f"from {module} import main\nsys.exit(main(sys.argv[1:]))\n"
    )
    path.chmod(0o755)


def build_install(root: Path, layout: str, *, sizes: bool = True, clang_log: Path | None = None) -> Path:
    """Write a fake mlir-aie install of ``layout`` (``family`` or ``arch``) at ``root``
    (``aie_kernels/``, ``include/aie_api``, ``aie_runtime_lib``) with a fake Peano in
    ``root/peano`` (``bin/clang++``, ``bin/llvm-objcopy``); returns ``root``."""
    _write(root / "aie_kernels", kernel_files(layout, sizes))
    _write(root / "include", {"aie_api/aie.hpp": AIE_HPP})
    _write(
        root / "aie_runtime_lib",
        {"AIE2/lut_based_ops.h": LUT_H, "AIE2/lut_based_ops.cpp": LUT_CPP, "AIE2P/.keep": ""},
    )
    _launcher(root / "peano" / "bin" / "clang++", "clang", clang_log)
    _launcher(root / "peano" / "bin" / "llvm-objcopy", "objcopy", None)
    return root


#: What the fakes of the steps that cannot run here print: Peano's code generation and the
#: programs aiecc runs for the xclbin and the full ELF. Each exits 1, as a missing tool makes aiecc fail.
MISSING = "{name}: a fake (iron/tests/fake_toolchain): the real {name} is not installed here"


def missing_tools(bindir: Path, names) -> Path:
    """Write a failing stand-in (:data:`MISSING`) for each program in ``names`` into ``bindir``."""
    bindir.mkdir(parents=True, exist_ok=True)
    for name in names:
        path = bindir / name
        path.write_text(f"#!/bin/sh\necho '{MISSING.format(name=name)}' >&2\nexit 1\n")
        path.chmod(0o755)
    return bindir
