"""Nightly-style robustness run (issue 14): thousands of mutated manifests, capture
files, text and binary traces and artifacts through the CLI entry points and the
public API. Nothing but iron's own errors (:class:`iron.IronError`) may escape, and
memory stays bounded: the peak traced allocation of every example is measured
(tracemalloc) and must stay below ``--max-mib``.

    python benchmarks/bench_robustness.py [--examples N] [--max-mib M] [--only KIND ...] [--no-memory]
    python benchmarks/bench_robustness.py --reader-memory [MB]

Prints examples run per kind, failures (none expected), the largest per-example peak
and the wall time. Exit status 1 on any failure. ``--no-memory``: no tracemalloc (the
escape check alone, several times faster). Kinds: the issue-14 inputs (manifest,
capture, text, words, artifact) and issue 26's (from_mlir: foreign designs; wire: fused
modules through ``iron trace wire``; meta: re-signed ``.iron.meta``; core_elf: core ELFs
through ``--core-elf``). ``--reader-memory``: the MLIR reader's peak memory per input
byte on inputs of several shapes (one long string, a dense global, many ops ...) of MB
megabytes each (default 40), one row per shape.
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
    # issue 26: the surfaces added since
    "from_mlir": (lambda: fuzz.mutated_mlir(fuzz.FOREIGN), fuzz.check_from_mlir),
    "wire": (lambda: fuzz.mutated_mlir(fuzz.FUSED), fuzz.check_wire),
    "meta": (fuzz.mutated_meta, fuzz.check_meta),
    "core_elf": (lambda: fuzz.mutated_bytes(fuzz.reference_core_elf()), fuzz.check_core_elf),
}


def run_kind(name: str, examples: int, max_bytes: int) -> dict:
    strategy, check = KINDS[name]
    stats = {"examples": 0, "peak": 0}

    def one(value):
        if not tracemalloc.is_tracing():
            check(value)
            stats["examples"] += 1
            return
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
    p.add_argument("--no-memory", action="store_true", help="skip the per-example memory peak (faster)")
    p.add_argument("--reader-memory", nargs="?", type=float, const=40.0, metavar="MB",
                   help="measure the MLIR reader's memory per input byte instead")  # fmt: skip
    args = p.parse_args(argv)
    if args.reader_memory is not None:
        return reader_memory(args.reader_memory)
    fuzz.reference()
    if not args.no_memory:
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


#: MLIR inputs of one shape each, ``n`` bytes of body (the reader's worst cases, issue 26).
SHAPES = {
    "long string": lambda n: '    "x.y"() {a = "' + "a" * n + '"} : () -> ()\n',
    "dense global": lambda n: '    memref.global "private" constant @g : memref<%dxi32> = dense<[%s]>\n'
    % (n // 11, ", ".join(["123456789"] * (n // 11))),
    "many ops": lambda n: "    %c = arith.constant 1 : i32\n" * (n // 30),
    "deep braces": lambda n: "    x.y {" + "{" * (n // 2) + "}" * (n // 2) + "}\n",
    "long attrs": lambda n: "    aiex.npu.write32 {"
    + ", ".join(f"a{i} = {i} : i32" for i in range(n // 16))
    + "}\n",
}


def reader_memory(mb: float) -> int:
    """Peak traced memory of :func:`iron.mlir.reader.parse` per input byte, per shape."""
    from iron.mlir.reader import parse

    n = int(mb * 1e6)
    worst = 0.0
    for name, body in SHAPES.items():
        text = "module {\n  aie.device(npu1_1col) {\n    %t = aie.tile(0, 2)\n" + body(n) + "  }\n}\n"
        tracemalloc.start()
        start = time.perf_counter()
        try:
            parse(text, "bench.mlir")
            result = "parsed"
        except Exception as exc:  # noqa: BLE001 - an IronError is a fine answer; shown
            result = type(exc).__name__
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        worst = max(worst, peak / len(text))
        print(f"{name:<13} {len(text) / 1e6:7.1f} MB  peak {peak / len(text):5.1f} bytes/byte  "
              f"{time.perf_counter() - start:6.1f} s  {result}", flush=True)  # fmt: skip
    print(f"worst         {worst:.1f} bytes per input byte (target: under 10)")
    return 0 if worst < 10 else 1


if __name__ == "__main__":
    sys.exit(main())
