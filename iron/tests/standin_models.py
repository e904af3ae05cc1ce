"""Stand-in kernel models for the built-in operators' kernels, until the kernels branch merges.

sim computes outputs only by executing a design; a ``func.call`` needs a model of its
kernel (:func:`iron.runtime.sim.kernel_models.model_for`). The "kernels" helper writes
the real models (read from the kernel sources, with their fixed counts and layouts) on
its branch; until that merge, ``iron/tests/conftest.py`` falls back to these for the
kernels today's built-in operators call, so the operator tests still check the
**data movement** the engine executes against the references. They apply the
operator's own tile math to one kernel call's buffers (a stand-in, not a kernel
model: no fixed counts, no blocked layouts). Delete this module, and the fallback in
conftest, once ``kernel_models.model_for`` covers these symbols.
"""

from __future__ import annotations

import numpy as np

from iron.bf16 import from_bf16, to_bf16


def _elementwise(cls, dtype):
    def model(*operands):
        *bufs, n = operands
        ins, out = bufs[:-1], bufs[-1]
        op = cls(int(n), tile_size=int(n), dtype=dtype)
        out.reshape(-1)[:n] = op.reference(*(b.reshape(-1)[:n] for b in ins))[0]

    return model


def _saxpy(x, y, a, out, n):
    from iron.operators import AXPY

    out.reshape(-1)[:n] = AXPY(int(n), tile_size=int(n), a=float(a)).reference(x[:n], y[:n])[0]


def _softmax(x, y, cols):
    from iron.operators import Softmax

    y.reshape(-1)[:cols] = Softmax(1, int(cols)).reference(x.reshape(-1)[:cols])[0].reshape(-1)


def _rms_norm(x, w, y, cols, eps):
    from iron.operators import RMSNorm

    y.reshape(-1)[:cols] = RMSNorm(1, int(cols), eps=float(eps)).reference(x[:cols], w[:cols])[0].reshape(-1)


def _zero(c):
    c[...] = 0


def _matmul(a, b, c):
    if c.dtype == np.uint16:  # bf16: exact float64 sum, one rounding (C is zeroed before)
        acc = from_bf16(c).astype(np.float64) + from_bf16(a).astype(np.float64) @ from_bf16(b).astype(
            np.float64
        )
        c[...] = to_bf16(acc.astype(np.float32))
    else:
        c[...] = (c.astype(np.int64) + a.astype(np.int64) @ b.astype(np.int64)).astype(c.dtype)


def _passthrough(x, y, n):
    y.reshape(-1)[:n] = x.reshape(-1)[:n]


def add_one(inp, out, n):
    """Xilinx/mlir-aie test/npu-xrt/add_one_func_link_with_peano/add_one_kernel.cc @0a1b8db:
    ``for (i = 0; i < n; i++) out[i] = in[i] + 1;`` (int32). A test design's own kernel, not a
    built-in one: this model stays until kernel_models has test-kernel models."""
    out.reshape(-1)[:n] = inp.reshape(-1)[:n] + 1


def standin(symbol: str, defines, arch):
    """The stand-in model of ``symbol`` (None: none)."""
    from iron.operators import GELU, ElementwiseAdd, ElementwiseMul, ReLU, SiLU

    if symbol.startswith("zero_"):
        return _zero
    if symbol.startswith("matmul_"):
        return _matmul
    for cls, stem in ((ElementwiseAdd, "eltwise_add_"), (ElementwiseMul, "eltwise_mul_")):
        if symbol.startswith(stem) and symbol.endswith("_vector"):
            return _elementwise(cls, symbol[len(stem) : -len("_vector")])
    table = {
        "relu_bf16_size": _elementwise(ReLU, "bf16"),
        "silu_bf16": _elementwise(SiLU, "bf16"),
        "gelu_bf16_size": _elementwise(GELU, "bf16"),
        "passThroughLine": _passthrough,
        "saxpy": _saxpy,
        "softmax_bf16": _softmax,
        "weighted_rms_norm": _rms_norm,
        "add_one": add_one,
    }
    return table.get(symbol)
