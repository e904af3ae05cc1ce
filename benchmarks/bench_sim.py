"""sim executing designs: a 512x512x512 GEMM and the demo block, untraced and traced.

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
    """512^3 is the target; iron's GEMM keeps all of B (K x N) in each core's L1, so 512^3 does
    not fit (the table says so) until the design tiles K and N; 512x128x128 is the largest
    square-ish one that builds."""
    return {
        "gemm_512": lambda: GEMM(512, 512, 512, columns=4, cores_per_column=4),
        "gemm_512x128": lambda: GEMM(512, 128, 128, columns=4, cores_per_column=4),
        "gemm_128": lambda: GEMM(128, 128, 128, columns=2, cores_per_column=2),
        "gemm_512x64": lambda: GEMM(512, 64, 64, columns=4, cores_per_column=4),
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
        runner(*inputs) if single else runner(**inputs)
        best = min(best, time.perf_counter() - t0)
    dev = runner.backend.device
    return {"case": name, "traced": trace, "seconds": best, "kernel_calls": len(dev.kernel_calls) // repeat}


def main() -> int:
    cache = tempfile.mkdtemp(prefix="bench-sim-")
    print(f"{'case':12} {'traced':>6} {'s/run':>8} {'kernel calls':>13}")
    for name, make in cases().items():
        try:
            op = make()
            build(op, target="npu2", cache_dir=cache, trace=False)
        except IronError as e:
            print(f"{name:12} not buildable: {str(e)[:120]}")
            continue
        for trace in (False, True):
            r = run(name, op, cache, trace)
            print(f"{r['case']:12} {str(r['traced']):>6} {r['seconds']:8.3f} {r['kernel_calls']:13d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
