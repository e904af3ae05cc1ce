"""Operators to the kernels' contract, through fake mlir-aie installs in both layouts.

The fakes (iron/tests/fake_toolchain) stand for upstream: stub sources with upstream's
``extern "C"`` signatures that ``#error`` like the real ones, a preprocessing fake
clang++ that records what each object defines, and a link check that fails like the core
link. Expected flag lists are copied from upstream text (``python/utils/compile/utils.py``
@b37b11df ``cxx_core_compile_command``); GEMM's design against upstream's generated matmul
designs is iron/tests/test_gemm_upstream.py.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from iron.builder import peano as K
from iron.builder.toolchain import ToolchainError
from iron.errors import IronError
from iron.mlir import ir
from iron.mlir.printer import print_module
from iron.mlir.reader import parse
from iron.operators import (
    AXPY,
    GELU,
    GEMM,
    ElementwiseAdd,
    ElementwiseMul,
    MemCopy,
    ReLU,
    RMSNorm,
    SiLU,
    Softmax,
)
from iron.target import kernels as kt
from iron.tests.fake_toolchain.installs import build_install
from iron.tests.fake_toolchain.link import LinkError, check_links

DATA = Path(__file__).parent / "data" / "upstream_kernels"


@pytest.fixture
def install(tmp_path, monkeypatch):
    """``install(layout, sizes=True)``: a fake mlir-aie + Peano, selected through the env."""

    def make(layout: str, sizes: bool = True, version: str = "1.4.3"):
        root = build_install(
            tmp_path / f"mlir_aie_{layout}", layout, sizes=sizes, clang_log=tmp_path / "clang.log"
        )
        monkeypatch.setenv("MLIR_AIE_INSTALL_DIR", str(root))
        monkeypatch.setenv("PEANO_INSTALL_DIR", str(root / "peano"))
        monkeypatch.setattr(K, "installed_version", lambda: version)
        return root

    return make


def ops(tile: int) -> list:
    """Every built-in operator, each dtype it accepts, with tiles of ``tile`` elements."""
    out = [
        ReLU(2 * tile, tile_size=tile),
        SiLU(2 * tile, tile_size=tile),
        GELU(2 * tile, tile_size=tile),
        AXPY(2 * tile, tile_size=tile, a=0.5),
        *(MemCopy(2 * tile, dt, tile_size=tile) for dt in MemCopy.DTYPES),
        *(
            cls(2 * tile, dt, tile_size=tile)
            for cls in (ElementwiseAdd, ElementwiseMul)
            for dt in ("bf16", "i16", "i32")
        ),
        Softmax(2, tile // 8),
        RMSNorm(2, tile // 8),
        (
            GEMM(32, 32, 32, m=16, k=32, n=32)
            if tile == 1024
            else GEMM(64, 64, 64, columns=2, m=32, k=32, n=32)
        ),
        (
            GEMM(32, 32, 32, "i16", m=16, k=32, n=32)
            if tile == 1024
            else GEMM(32, 64, 64, "i16", cores_per_column=2, m=8, k=32, n=32)
        ),
    ]
    return out


def build_and_link(op, target: str, work: Path, cache: Path) -> str:
    d = op.design(target)
    text = print_module(ir.Module([d.device]))
    work.mkdir(exist_ok=True)
    K.compile_kernels(d.kernels, work, cache, None, K.declared_funcs(ir.Module([d.device])))
    check_links(text, work)
    return text


@pytest.mark.parametrize("layout", ["family", "arch"])
@pytest.mark.parametrize("target", ["npu1", "npu2"])
def test_every_operator_builds_and_links(tmp_path, install, layout, target):
    """Done-when of issue 22: each built-in operator, each dtype it accepts, tiles of 1024
    and 256, compiles (symbols checked first) and links through the fakes."""
    install(layout)
    for tile in (1024, 256):
        for i, op in enumerate(ops(tile)):
            build_and_link(op, target, tmp_path / f"w{tile}_{i}", tmp_path / "cache")


def test_layout_detection_from_files(tmp_path):
    for layout in ("family", "arch"):
        root = build_install(tmp_path / layout, layout)
        assert K.detect_layout(K.kernels_dir(root)) == layout
    (tmp_path / "empty" / "aie_kernels").mkdir(parents=True)
    with pytest.raises(ToolchainError, match=r"no kernel sources iron knows.*family, arch"):
        K.kernels_dir(tmp_path / "empty")


# upstream cxx_core_compile_command (utils.py@b37b11df), flags after the -I of <root>/include
UPSTREAM_FLAGS = [
    "-std=c++20", "-Wno-parentheses", "-Wno-attributes", "-Wno-macro-redefined", "-Wno-empty-body",
    "--system-header-prefix=aie_api/", "-Werror=undef", "-O2", "-DNDEBUG",
]  # fmt: skip


def test_compile_command_is_upstreams(tmp_path, install):
    root = install("family")
    r = K.recipe(GEMM(32, 32, 32, m=16, k=32, n=32).design("npu2").kernels[0], root)
    argv = K.compile_command(r, tmp_path / "mm.o", root / "peano", root)
    assert argv[1:6] == [
        str(root / "aie_kernels/linalg/mm.cc"),
        "-c",
        "-o",
        str(tmp_path / "mm.o"),
        f"-I{root}/include",
    ]
    assert argv[6:15] == UPSTREAM_FLAGS
    assert argv[15:19] == ["-MD", "-MF", f"{tmp_path / 'mm.o'}.d", "-D__AIE_API_AIE_ADF_HPP__"] or (
        "-D__AIE_API_AIE_ADF_HPP__" in argv and "--target=aie2p-none-unknown-elf" in argv
    )
    for flag in (
        "-D__AIE_API_AIE_ADF_HPP__",
        "-ffunction-sections",
        "-fdata-sections",
        "-fstack-size-section",
    ):
        assert argv.count(flag) == 1
    assert f"-include{root}/aie_kernels/zero/zero.cc" in argv  # amd/IRON folds zero.cc in
    assert argv[-6:] == [
        "-DDIM_K=32",
        "-DDIM_M=16",
        "-DDIM_N=32",
        "-DTILE_SIZE=512",
        "-DZERO_TYPE=bfloat16",
        "-Dbf16_bf16_ONLY=1",
    ]
    old = install("arch")
    r = K.recipe(GEMM(32, 32, 32, m=16, k=32, n=32).design("npu2").kernels[0], old)
    argv = K.compile_command(r, tmp_path / "mm.o", old / "peano", old)
    assert argv[1] == str(old / "aie_kernels/aie2p/mm.cc")
    assert "-Werror=undef" not in argv and "-D__AIE_API_AIE_ADF_HPP__" in argv
    assert not any(a.startswith("-include") for a in argv) and r.renames == {}


def test_without_the_adf_guard_every_kernel_fails_like_clang(tmp_path, install):
    root = install("family")
    r = K.recipe(ReLU(64, tile_size=32).design("npu1").kernels[0], root)
    argv = [
        a
        for a in K.compile_command(r, tmp_path / "x.o", root / "peano", root)
        if a != "-D__AIE_API_AIE_ADF_HPP__"
    ]
    proc = subprocess.run(argv, capture_output=True, text=True)
    assert proc.returncode == 1 and "fatal error: 'adf.h' file not found" in proc.stderr


def test_missing_bit_width_is_the_sources_error(tmp_path, install, monkeypatch):
    """Break of issue 22: MemCopy without BIT_WIDTH hits passThrough.cc's #error (family
    layout); the older source would compile its 32-bit branch (the model refuses that)."""
    install("family")
    monkeypatch.setattr(MemCopy, "kernel_defines", lambda self: {})
    with pytest.raises(
        ToolchainError, match=r"BIT_WIDTH selects the element type .*Pass -DBIT_WIDTH=8, 16 or 32"
    ):
        build_and_link(MemCopy(64, "bf16", tile_size=32), "npu1", tmp_path / "w", tmp_path / "c")


def test_install_without_size_entries_names_symbol_file_and_install(tmp_path, install):
    root = install("arch", sizes=False)
    with pytest.raises(ToolchainError) as e:
        build_and_link(SiLU(1024, tile_size=512), "npu2", tmp_path / "w", tmp_path / "c")
    msg = str(e.value)
    assert (
        "lacks silu_bf16_size (not defined; runtime-size entries came with mlir-aie PR #3740: with this install use tile_size=1024 (silu_bf16)"
        in msg
    )
    assert "aie_kernels/aie2p/silu.cc" in msg
    assert "it defines silu_bf16/2" in msg and f"the mlir-aie install {root} (arch layout)" in msg
    build_and_link(SiLU(1024, tile_size=1024), "npu2", tmp_path / "w2", tmp_path / "c")  # the fixed entry


def test_wrong_parameter_count_is_refused_before_compiling(tmp_path, install, monkeypatch):
    install("family")
    op = ReLU(64, tile_size=32)
    d = op.design("npu1")
    text = print_module(ir.Module([d.device])).replace(
        "memref<32xbf16>, memref<32xbf16>, i32)", "memref<32xbf16>, memref<32xbf16>)", 1
    )
    with pytest.raises(
        ToolchainError, match=r"relu_bf16_size \(defined with 3 parameters, the design passes 2\)"
    ):
        K.compile_kernels(d.kernels, tmp_path, tmp_path / "c", None, K.declared_funcs(parse(text)))


def test_fake_link_fails_like_the_linker(tmp_path, install, monkeypatch):
    install("family")
    text = build_and_link(ReLU(64, tile_size=32), "npu1", tmp_path / "w", tmp_path / "c")
    with pytest.raises(LinkError, match="undefined symbol: relu_bf16_sizeX"):
        check_links(text.replace("@relu_bf16_size(", "@relu_bf16_sizeX("), tmp_path / "w")
    with pytest.raises(LinkError, match="wrong parameter count"):
        check_links(text.replace(", i32) attributes", ") attributes", 1), tmp_path / "w")


@pytest.mark.parametrize("layout", ["family", "arch"])
def test_aie2_lut_kernels_need_their_tables(tmp_path, install, monkeypatch, layout):
    install(layout)
    build_and_link(SiLU(1024, tile_size=512), "npu1", tmp_path / "w", tmp_path / "c")
    silu = kt.KERNELS["silu"]
    saved = silu.lut_on
    object.__setattr__(silu, "lut_on", ())  # a frozen table row: restored below, whatever happens
    try:
        with pytest.raises(LinkError, match="undefined symbol: tanh_lut_ab"):
            build_and_link(SiLU(1024, tile_size=512), "npu1", tmp_path / "w2", tmp_path / "c2")
    finally:
        object.__setattr__(silu, "lut_on", saved)


def test_object_cache_keys_on_source_bytes_and_mlir_aie_version(tmp_path, install):
    root = install("family")
    op = ElementwiseAdd(2048)
    log = tmp_path / "clang.log"
    compiles = lambda: [
        json.loads(x) for x in log.read_text().splitlines() if "-c" in json.loads(x)
    ]  # noqa: E731
    build_and_link(op, "npu2", tmp_path / "w", tmp_path / "cache")
    build_and_link(op, "npu2", tmp_path / "w", tmp_path / "cache")
    assert len(compiles()) == 1
    src = root / "aie_kernels/eltwise/add.cc"
    src.write_text(src.read_text() + "\n// changed\n")
    build_and_link(op, "npu2", tmp_path / "w", tmp_path / "cache")
    assert len(compiles()) == 2
    install("family", version="1.4.4")  # same files rebuilt, another release
    build_and_link(op, "npu2", tmp_path / "w", tmp_path / "cache")
    assert len(compiles()) == 3


@pytest.mark.parametrize(
    "op,target,companion",
    [
        (GEMM(64, 64, 64, m=32, k=32, n=32), "npu2", "aie_kernels/zero/zero.cc"),  # -include'd
        (SiLU(1024, tile_size=512), "npu1", "aie_kernels/common/lut_kernel.cc"),  # the file compiled
        (SiLU(1024, tile_size=512), "npu1", "aie_runtime_lib/AIE2/lut_based_ops.cpp"),  # its tables
    ],
    ids=["gemm-zero", "silu-lut-wrapper", "silu-lut-tables"],
)
def test_object_cache_keys_on_the_companion_sources_compiled_in(tmp_path, install, op, target, companion):
    """An object is rebuilt when a source compiled into it beside its own changes (the
    family GEMM folds zero/zero.cc in; aie2 LUT kernels compile through lut_kernel.cc with
    lut_based_ops.cpp): a cached object built from the old bytes would link stale code."""
    root = install("family")
    log = tmp_path / "clang.log"
    compiles = lambda: sum("-c" in json.loads(x) for x in log.read_text().splitlines())  # noqa: E731
    build_and_link(op, target, tmp_path / "w", tmp_path / "cache")
    before = compiles()
    path = root / companion
    path.write_text(path.read_text() + "\n// changed\n")
    build_and_link(op, target, tmp_path / "w", tmp_path / "cache")
    assert compiles() > before


def test_c_definitions_of_preprocessed_text():
    text = (
        '# 1 "x.cc"\nstatic inline void helper(int a) { }\n'
        'extern "C" {\nvoid f(bfloat16 *a, int32_t n) { for (int i = 0; i < n; i++) { a[i] = 0; } }\n'
        "void g(void) {}\n}\n"
        'extern "C" void zero(int *__restrict out) { }\n'
    )
    assert K.c_definitions(text) == {"f": 2, "g": 0, "zero": 1}


# ------------------------------------------------------------------ operators to the contract
def test_entries_by_tile_and_refusals():
    assert SiLU(2048, tile_size=1024).kernel().func == "silu_bf16"  # fixed 1024
    assert SiLU(1024, tile_size=512).kernel().func == "silu_bf16_size"
    assert ElementwiseAdd(1024).kernel().operands == ("a", "b", "c")  # no size to a fixed entry
    assert ElementwiseAdd(64, tile_size=32).kernel().func == "eltwise_add_bf16_vector_size"
    assert ElementwiseMul(64, "i16", tile_size=32).kernel().func == "eltwise_mul_i16_vector"
    assert MemCopy(64, "bf16", tile_size=32).kernel_defines() == {"BIT_WIDTH": 16}
    with pytest.raises(IronError, match=r"relu_bf16_size's vector loop steps 32 elements"):
        ReLU(48, tile_size=16)
    with pytest.raises(IronError, match=r"64-byte copy step"):
        MemCopy(32, "i32", tile_size=8)
    with pytest.raises(IronError, match=r"saxpy's vector loop steps 64"):
        AXPY(64, tile_size=32)


def test_gemm_refuses_what_the_static_asserts_reject():
    with pytest.raises(IronError, match=r"mm.cc's bf16 4x8x4 kernel on aie2 static_asserts DIM_M % 16 == 0"):
        GEMM(8, 16, 16, m=8, k=16, n=16)  # fine on aie2p (m % 8), rejected on aie2
    with pytest.raises(IronError, match=r"DIM_N=8 is not a multiple of 16"):
        GEMM(16, 16, 8, m=16, k=16, n=8)
    g = GEMM(64, 64, 32, m=16, k=32, n=32)
    assert g.kernel_defines() == {"DIM_M": 16, "DIM_K": 32, "DIM_N": 32, "bf16_bf16_ONLY": 1}  # the L1 tile


def test_cores_loop_forever_like_upstream_workers():
    text = print_module(ir.Module([ReLU(64, tile_size=32).design("npu1").device]))
    # range_(sys.maxsize): the bound IRON's Worker and mlir-aie's designs emit
    assert "%cmax = arith.constant 9223372036854775807 : index" in text
    assert "scf.for %run = %c0 to %cmax step %c1 {" in text


# ------------------------------------------------------------------ through iron.build and aiecc
@pytest.fixture
def aiecc_with_link(tmp_path, monkeypatch, install):
    """test_artifact's recording fake aiecc (it links like aiecc: fake_toolchain/link.py)."""
    import os
    import sys

    from iron.builder import aiecc, toolchain
    from iron.tests import test_artifact as ta

    def make(layout: str):
        root = install(layout)
        bindir, inputs = root / "bin", tmp_path / "inputs"
        bindir.mkdir()
        inputs.mkdir(exist_ok=True)
        text = ta.FAKE_AIECC.format(
            python=sys.executable, help=ta.HELP["legacy"], log=str(tmp_path / "aiecc.log"), inputs=str(inputs),
            core=ta.core_elf().hex(), link_dir=str(ta.LINK_DIR),
        )  # fmt: skip
        (bindir / "aiecc").write_text(text)
        (bindir / "aiecc").chmod(0o755)
        monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
        ta.aiecc_prerequisites(bindir, tmp_path / "py")  # issue 24: checked before a build
        monkeypatch.syspath_prepend(str(tmp_path / "py"))
        monkeypatch.setenv("IRON_BACKEND", "aiecc")  # asked for: auto builds with aiecc on an NPU only
        monkeypatch.setattr(aiecc, "available", lambda: True)
        monkeypatch.setattr(toolchain, "installed_version", lambda: "1.4.3")
        for cached in (aiecc.toolchain_identity, aiecc.help_text):
            cached.cache_clear()
        return root

    yield make
    for cached in (aiecc.toolchain_identity, aiecc.help_text):
        cached.cache_clear()


@pytest.mark.parametrize("layout", ["family", "arch"])
def test_fused_build_compiles_checks_and_links(tmp_path, aiecc_with_link, layout):
    from iron import Sequence, build

    aiecc_with_link(layout)
    gemm, silu, copy = (
        GEMM(16, 32, 32, m=16, k=32, n=32),
        SiLU(512, tile_size=256),
        MemCopy(512, tile_size=256),
    )
    seq = Sequence(
        "k", [(gemm, "a", "b", "c"), (silu, "x", "y"), (copy, "y", "z")], ["a", "b", "x"], ["c", "z"]
    )
    art = build(seq, trace=False, target="npu1", cache_dir=tmp_path / "cache")
    assert art.backend == "aiecc-xclbin"  # npu1: one aiecc run per device, each linked
    runs = len((tmp_path / "aiecc.log").read_text().splitlines())
    # break: the design asks for an entry the install lacks -> one clear error before aiecc runs
    bad = Sequence("k2", [(SiLU(512, tile_size=256), "x", "y")], ["x"], ["y"])
    src = (
        tmp_path
        / f"mlir_aie_{layout}"
        / "aie_kernels"
        / ("activation/silu.cc" if layout == "family" else "aie2/silu.cc")
    )
    src.write_text(src.read_text().replace("silu_bf16_size", "silu_bf16_sized"))
    with pytest.raises(
        ToolchainError,
        match=r"lacks silu_bf16_size \(not defined; .*tile_size=1024 \(silu_bf16\).*\); it defines .*silu_bf16_sized/3",
    ):
        build(bad, trace=False, target="npu1", cache_dir=tmp_path / "cache")
    assert len((tmp_path / "aiecc.log").read_text().splitlines()) == runs  # aiecc never ran


def test_eltwise_add_data_movement_matches_upstream_iron():
    """IRON's generated 65536-element bf16 add on two cores (1024-element tiles)."""
    up = (DATA / "iron_eltwise_add_bf16_65536_2cores.mlir").read_text()
    mine = print_module(
        ir.Module([ElementwiseAdd(65536, cores_per_column=2, tile_size=1024).design("npu1").device])
    )
    fifo = r"aie\.objectfifo @\w+\(%\w+, \{[^}]*\}, (\d+) : i32\) : !aie\.objectfifo<(memref<\w+>)>"
    assert sorted(re.findall(fifo, up)) == sorted(re.findall(fifo, mine))  # shapes and depths
    links = r"aie\.objectfifo\.link \[[^\]]*\] -> \[[^\]]*\](\(.*\))"
    assert sorted(re.findall(links, up)) == sorted(re.findall(links, mine))  # [0, 1024] offsets
    for text in (up, mine):
        assert (
            "arith.constant 9223372036854775807 : index" in text
            and "%c32 = arith.constant 32 : index" in text
        )
        calls = re.findall(r"func\.call @(\w+)\(([^)]*)\)", text)
        assert [(f, a.count("%")) for f, a in calls] == [
            ("eltwise_add_bf16_vector", 3)
        ] * 2  # one per iteration


def test_object_cache_hits_wherever_the_cache_lives(tmp_path, install, monkeypatch):
    """The per-compile temp folder under the cache is not part of the key (the cache is
    usually not under the system temp folder)."""
    import tempfile

    install("family")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "systemp"))
    (tmp_path / "systemp").mkdir()
    log = tmp_path / "clang.log"
    for _ in range(2):
        build_and_link(ElementwiseAdd(2048), "npu2", tmp_path / "w", tmp_path / "home" / "cache")
    assert sum("-c" in json.loads(x) for x in log.read_text().splitlines()) == 1
