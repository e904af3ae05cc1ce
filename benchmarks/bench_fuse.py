"""Fuse + wire + lower N traced call sites (alternating two small operators).

Run as a script for a table of timings (``python benchmarks/bench_fuse.py``) or
under pytest-benchmark (``pytest benchmarks/bench_fuse.py``). Target here:
fuse + wire (trace instrumentation and slice layout) of 500 sites under 1 s,
growing linearly with the number of sites.
"""

from __future__ import annotations

import sys
import time

from iron.builder import cache
from iron.builder.sections import pdi_ids
from iron.fuse.fusion import Sequence, fuse
from iron.lower import npu
from iron.mlir import txn_codec
from iron.lower.materialize import kernel_ops
from iron.mlir.printer import print_module
from iron.operators.binary import ElementwiseAdd, ElementwiseMul
from iron.options import resolve
from iron.target.geometry import device_columns

SIZES = (100, 200, 500)
TRACE_SIZE = 1024  # bytes per traced call site


def chain(n: int) -> Sequence:
    """t[i+1] = t[i] (+|*) y for i < n, alternating add and multiply."""
    ops = (ElementwiseAdd(1024), ElementwiseMul(1024))
    steps = [(ops[i % 2], f"t{i}", "y", f"t{i + 1}") for i in range(n)]
    return Sequence(f"chain{n}", steps, ["t0", "y"], [f"t{n}"])


def run(n: int) -> dict[str, float]:
    """Seconds spent in fuse (+ wiring), in keying (print + hash, done by every build,
    cache hits included) and in lowering, and the TXN size, for ``n`` sites."""
    seq = chain(n)
    options = resolve(True, size=TRACE_SIZE, env={})
    t0 = time.perf_counter()
    fm = fuse(seq, "npu2", options)
    t1 = time.perf_counter()
    cache.cache_key(
        mlir=print_module(fm.module), trace_options=options.key(), target="npu2", dispatch=fm.dispatch,
        toolchain=cache.builtin_toolchain(), iron_version=cache.iron_version(), sources=False,
    )  # fmt: skip
    tk = time.perf_counter()
    ids = pdi_ids(fm.module)
    nbytes = 0
    for kernel in fm.kernels:
        ops = kernel_ops(fm, kernel)
        columns = device_columns(fm.module.device(kernel.device).target)
        nbytes += len(
            txn_codec.encode(txn_codec.header_for("npu2", columns), npu.lower_ops(ops, ids, "npu2"))
        )
    t2 = time.perf_counter()
    assert len(fm.manifest.slices) == n
    return {"fuse": t1 - t0, "key": tk - t1, "lower": t2 - tk, "bytes": nbytes}


def main(argv=None) -> int:
    sizes = [int(a) for a in (argv or [])] or list(SIZES)
    run(10)  # warm imports and caches
    print(f"{'sites':>6} {'fuse+wire s':>12} {'key s':>8} {'lower s':>9} {'us/site':>8} {'TXN bytes':>10}")
    for n in sizes:
        best = min((run(n) for _ in range(3)), key=_total)
        print(
            f"{n:>6} {best['fuse']:>12.4f} {best['key']:>8.4f} {best['lower']:>9.4f} "
            f"{_total(best) / n * 1e6:>8.1f} {best['bytes']:>10}"
        )
    return 0


def _total(r: dict) -> float:
    return r["fuse"] + r["key"] + r["lower"]


# --------------------------------------------------------------------------- pytest-benchmark
def test_fuse_500_sites(benchmark):
    result = benchmark.pedantic(run, args=(500,), rounds=3, iterations=1)
    assert result["fuse"] < 1.0


def test_linear_growth():
    small = min(_total(run(100)) for _ in range(2))
    large = min(_total(run(500)) for _ in range(2))
    assert large < 2 * 5 * small  # 5x the sites: linear, with 2x slack for noise


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
