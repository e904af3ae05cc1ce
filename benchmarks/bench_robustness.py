"""Nightly-style robustness run (issue 14): thousands of mutated manifests, capture
files, text and binary traces and artifacts through the CLI entry points and the
public API. Nothing but iron's own errors (:class:`iron.IronError`) may escape, and
memory stays bounded: the peak traced allocation of every example is measured
(tracemalloc) and must stay below ``--max-mib``.

    python benchmarks/bench_robustness.py [--examples N] [--max-mib M] [--only KIND ...]

Prints examples run per kind, failures (none expected), the largest per-example peak
and the wall time. Exit status 1 on any failure.
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, given, settings  # noqa: E402

from iron.tests import fuzz  # noqa: E402

KINDS = {
    "manifest": (fuzz.mutated_manifest, fuzz.check_manifest),
    "capture": (lambda: fuzz.mutated_bytes(fuzz.reference()["capture"]), fuzz.check_capture),
    "text": (lambda: fuzz.mutated_bytes(fuzz.reference()["text"]), fuzz.check_text),
    "words": (fuzz.mutated_words, fuzz.check_words),
    "artifact": (lambda: fuzz.mutated_bytes(fuzz.reference()["artifact"]), fuzz.check_artifact),
}


def run_kind(name: str, examples: int, max_bytes: int) -> dict:
    strategy, check = KINDS[name]
    stats = {"examples": 0, "peak": 0}

    def one(value):
        tracemalloc.reset_peak()
        check(value)
        peak = tracemalloc.get_traced_memory()[1]
        stats["examples"] += 1
        stats["peak"] = max(stats["peak"], peak)
        assert peak <= max_bytes, f"{name}: one example peaked at {peak / 2**20:.1f} MiB"

    test = settings(
        max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck)
    )(given(strategy())(one))
    start = time.perf_counter()
    try:
        test()
        stats["failure"] = None
    except Exception as exc:  # noqa: BLE001 - reported, then the run goes on with the next kind
        stats["failure"] = f"{type(exc).__name__}: {exc}"
    stats["seconds"] = time.perf_counter() - start
    return stats


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--examples", type=int, default=1000, help="examples per kind (default 1000)")
    p.add_argument("--max-mib", type=float, default=256.0, help="peak traced memory per example")
    p.add_argument("--only", nargs="*", choices=sorted(KINDS), default=sorted(KINDS))
    args = p.parse_args(argv)
    fuzz.reference()
    tracemalloc.start()
    total, failed = 0, 0
    for name in args.only:
        s = run_kind(name, args.examples, int(args.max_mib * 2**20))
        total += s["examples"]
        failed += s["failure"] is not None
        print(
            f"{name:<9} {s['examples']:>6} examples  {s['seconds']:7.1f} s  "
            f"peak/example {s['peak'] / 2**20:7.1f} MiB  {'FAILED: ' + s['failure'] if s['failure'] else 'ok'}",
            flush=True,
        )
    print(f"total     {total:>6} examples, {failed} kind(s) failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
