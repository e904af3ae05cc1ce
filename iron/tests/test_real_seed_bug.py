"""The original trace bug, reproduced with the real mlir-aie a9e39fae aiecc, next to iron's fix.

A fused traced sequence of three calls (GEMM -> SiLU -> Mul on npu2) is one wrapper runtime
sequence that ``aiex.configure`` / ``aiex.run``\\ s each operator's own sequence. Each callee
drains its trace with an ``aiex.npu.address_patch`` whose ``arg_idx`` is the trace argument's
position in the *callee's* signature (GEMM ``%arg3``, SiLU ``%arg2``, Mul ``%arg3``).

aiecc's own ``aie-materialize-runtime-sequences`` (the ``npu_materialized.mlir`` edge of the
C++ aiecc's pipeline, what runs when iron does not pass ``--no-materialize``) inlines the callees
but keeps those numbers, so in the wrapper the three drain BDs are patched with data buffers
(wrapper arguments 3, 2, 3: the 4096-element bf16 buffers), and every operator's trace lands
over the data. iron's materialization (:mod:`iron.lower.materialize`, in ``aiecc.mlir``: the
module iron's aiecc back end hands aiecc, with ``--no-materialize``) translates them to the
wrapper's trace buffer (argument 5, ``memref<24576xi8>``) at each call's slice, 0, 8192 and
16384. The numbers were measured with this install when issue 33 was filed; the test shows both
from the tools themselves.
"""

from __future__ import annotations

import re
import tempfile

import pytest

import iron
from iron.builder.sections import AIECC_INPUT
from iron.operators import GEMM, ElementwiseMul, SiLU
from iron.tests import real_mlir_aie
from iron.builder.build import OWN_ARG_PATCH
from iron.tests.bugs import emulated_bug

SLICE = 8192
FUSED_TEXT = "fused.mlir"  # the module iron prints, before materialization (iron.builder.sections)
_SEQ = re.compile(r"aie\.runtime_sequence\((?P<args>[^{]*)\)\s*\{")
_ARG = re.compile(r"%arg(\d+): (memref<[^>]*>)")
_CONST = re.compile(r"(%[\w.]+) = arith\.constant (-?\d+) : i32")
_PATCH = re.compile(
    r"aiex\.npu\.address_patch\((%[\w.]+) : i32\) \{addr = (\d+) : ui32, arg_idx = (\d+) : i32\}"
)


def _texts(bug: str | None = None) -> tuple[str, str]:
    """(iron's printed module, aiecc.mlir) of the traced three-call sequence, printed in the
    install's era (iron asks its aie-opt, found through ``MLIR_AIE_INSTALL_DIR``); ``bug``: a
    negative control of :mod:`iron.tests.bugs` the build reproduces."""
    install = real_mlir_aie.require()
    gemm, silu, mul = GEMM(64, 64, 64), SiLU(64 * 64), ElementwiseMul(64 * 64)
    seq = iron.Sequence(
        "gemm_silu_mul",
        [(gemm, "x", "w", "h"), (silu, "h", "s"), (mul, "s", "g", "y")],
        inputs=["x", "w", "g"],
        outputs=["y"],
    )
    with pytest.MonkeyPatch.context() as mp, tempfile.TemporaryDirectory() as tmp, emulated_bug(bug):
        real_mlir_aie.prefer(mp, install)
        art = iron.build(
            seq, target="npu2", trace=True, trace_size=SLICE, cache_dir=tmp, sources=True, backend="builtin"
        )
    assert art.dispatch == "fused"
    return art.sources[FUSED_TEXT], art.sources[AIECC_INPUT]


@pytest.fixture(scope="module")
def texts():
    return _texts()


def wrapper(text: str, trace_type: str) -> tuple[dict[int, str], str]:
    """The argument types and body of the runtime sequence that takes ``trace_type``
    (the wrapper's: only it binds the whole trace buffer)."""
    for m in _SEQ.finditer(text):
        args = {int(i): t for i, t in _ARG.findall(m["args"])}
        if trace_type in args.values():
            end = text.find("aie.device(", m.end())
            return args, text[m.end() : end if end >= 0 else len(text)]
    raise AssertionError(f"no runtime sequence takes {trace_type}")


def patches(body: str, addresses: set[int] | None = None) -> list[tuple[int, int, int]]:
    """``(addr, arg_idx, arg_plus)`` of each address patch in ``body``, in order (only those
    at ``addresses`` when given)."""
    consts = {name: int(v) for name, v in _CONST.findall(body)}
    out = [(int(a), int(i), consts[c]) for c, a, i in _PATCH.findall(body)]
    return [p for p in out if addresses is None or p[0] in addresses]


def test_aiecc_materialization_patches_data_buffers_where_iron_patches_the_trace_slices(texts):
    printed, iron_input = texts
    trace = f"memref<{3 * SLICE}xi8>"
    aiecc_args, aiecc_body = wrapper(real_mlir_aie.aiecc_output(printed, "npu_materialized.mlir"), trace)
    # before DMA lowering, the only patches are the callees' trace drains
    theirs = patches(aiecc_body)
    drains = {addr for addr, _, _ in theirs}
    iron_args, iron_body = wrapper(iron_input, trace)
    mine = patches(iron_body, drains)

    assert [(i, plus) for _, i, plus in theirs] == [(3, 0), (2, 0), (3, 0)]  # the seed bug
    assert [aiecc_args[i] for _, i, _ in theirs] == [
        "memref<4096xbf16>",
        "memref<4096xbf16>",
        "memref<4096xbf16>",
    ]
    assert [(i, plus) for _, i, plus in mine] == [(5, 0), (5, SLICE), (5, 2 * SLICE)]  # iron's wiring
    assert iron_args[5] == aiecc_args[5] == trace
    assert [addr for addr, _, _ in mine] == [addr for addr, _, _ in theirs]  # the same three BD words


def test_irons_negative_control_reproduces_exactly_the_real_passs_patches(texts):
    """iron's emulated bug (callee patches left untranslated, :mod:`iron.tests.bugs`) is the
    real pass's behaviour, patch for patch: the negative control tests are about the real bug."""
    printed, _ = texts
    trace = f"memref<{3 * SLICE}xi8>"
    _, aiecc_body = wrapper(real_mlir_aie.aiecc_output(printed, "npu_materialized.mlir"), trace)
    theirs = patches(aiecc_body)
    _, buggy = wrapper(_texts(OWN_ARG_PATCH)[1], trace)
    assert patches(buggy, {addr for addr, _, _ in theirs}) == theirs
