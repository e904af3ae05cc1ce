"""sim executing designs: 512x512x512 GEMMs and the demo block, untraced and traced.

Run as a script (``python benchmarks/bench_sim.py``) for a table of seconds per run (build
excluded, cache warm), the executed kernel calls and the engine agents. sim runs every DMA
object, link, core iteration and kernel call (:mod:`iron.runtime.sim.engine`); kernel
models come from :mod:`iron.runtime.sim.kernel_models`.
"""

from __future__ import annotations

import sys
import tempfile
import time

from iron import build, testing
from iron.errors import IronError
from iron.demo import demo_sequence
from iron.operators import GEMM, ElementwiseAdd
from iron.runtime.sim import kernel_models


def cases():
    """512^3 on one core and on the whole array of npu2 (upstream's whole_array shapes: 4 and 8
    columns of 4 cores, m, k, n = 64, 64, 32), in bf16 and i16, beside a small GEMM, a large
    elementwise add and the demo block."""
    return {
        "gemm_512_1x1": lambda: GEMM(512, 512, 512),
        "gemm_512_4x4": lambda: GEMM(512, 512, 512, columns=4, cores_per_column=4),
        "gemm_512_8x4": lambda: GEMM(512, 512, 512, columns=8, cores_per_column=4),
        "gemm_512_8x4_i16": lambda: GEMM(512, 512, 512, "i16", columns=8, cores_per_column=4),
        "gemm_128_2x2": lambda: GEMM(128, 128, 128, columns=2, cores_per_column=2),
        "add_256k": lambda: ElementwiseAdd(512 * 512, tile_size=1024, columns=4, cores_per_column=2),
        "demo": demo_sequence,
    }


def run(name, op, cache, trace: bool, repeat: int = 3) -> dict:
    kw = {"trace": True, "trace_size": 65536, "ntiles": 4} if trace else {"trace": False}
    art = build(op, target="npu2", cache_dir=cache, **kw)
    runner = art.load("sim")
    single = not hasattr(op, "steps")
    inputs = op.example_inputs(0) if single else testing.example_inputs(op)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = runner(*inputs) if single else runner(**inputs)
        best = min(best, time.perf_counter() - t0)
    _check(op, inputs, out, single)
    dev = runner.backend.device
    return {"case": name, "traced": trace, "seconds": best, "kernel_calls": len(dev.kernel_calls) // repeat}


def _check(op, inputs, out, single: bool) -> None:
    """A figure counts only for a run whose outputs equal the reference (iron.testing's rule)."""
    seq = testing.as_sequence(op)
    named = dict(zip(seq.inputs, inputs)) if single else inputs
    outs = out if isinstance(out, tuple) else (out,)
    ulps = testing.reference_ulps(seq)
    expected, scales = testing.reference(seq, named), testing.reference_scales(seq, named)
    for got, want, scale in zip(outs, expected, scales):
        if not testing.matches_reference(got, want, ulps, scale):
            raise SystemExit(
                f"{seq.name}: output differs from the reference: {testing.first_difference(got, want)}"
            )


def main() -> int:
    cache = tempfile.mkdtemp(prefix="bench-sim-")
    print(f"{'case':18} {'traced':>6} {'s/run':>8} {'kernel calls':>13}")
    for name, make in cases().items():
        try:
            op = make()
            build(op, target="npu2", cache_dir=cache, trace=False)
        except IronError as e:
            print(f"{name:18} not buildable: {str(e)[:120]}")
            continue
        for trace in (False, True):
            r = run(name, op, cache, trace)
            print(f"{r['case']:18} {str(r['traced']):>6} {r['seconds']:8.3f} {r['kernel_calls']:13d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
