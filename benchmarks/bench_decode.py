"""Decode throughput and memory of ``iron trace decode BIG.bin --mlir ... --format summary``.

Generates a trace buffer (default 64 MiB) of several units' packets interleaved
(4 core modules + 2 memory modules, made with iron's encoder from a random
activity model), writes it as ``.bin`` with a matching mlir-aie MLIR file, then
decodes it through the CLI path in-process (wall time; peak traced memory with
tracemalloc in a second run) and in a subprocess (wall time, peak RSS).

    python benchmarks/bench_decode.py [--mib 64] [--dir DIR] [--keep] [--runs N]

Targets (2-core machine): >= 50 MiB/s, peak memory <= 8x the buffer.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from iron.target.registers import TRACE_REGISTERS, trace_events, tile_address  # noqa: E402
from iron.trace import encode as E  # noqa: E402
from iron.trace import frames as F  # noqa: E402
from iron.trace.cli import main as cli_main  # noqa: E402

CORE_EVENTS = [33, 34, 37, 23, 24, 26, 75, 79]  # the default core set (DESIGN.md 3.1)
MEM_EVENTS = [21, 22, 19, 20, 23, 24, 25, 26]
UNITS = [("core", 0, 2), ("core", 0, 3), ("core", 1, 2), ("core", 1, 3), ("mem", 0, 2), ("mem", 1, 2)]


def activity(rng: np.random.Generator, n: int, t0: int) -> np.ndarray:
    """n runs (time, mask, count, step): mostly short gaps, some held stalls."""
    gaps = np.where(rng.random(n) < 0.9, rng.integers(1, 14, n), rng.integers(14, 3000, n))
    held = rng.random(n) < 0.15
    count = np.where(held, rng.integers(2, 400, n), 1)
    masks = np.where(rng.random(n) < 0.7, 1 << rng.integers(0, 8, n), rng.integers(1, 256, n))
    # each run starts `gap` cycles after the previous run's last cycle
    span = count - 1
    start = t0 + np.cumsum(gaps) + np.concatenate([[0], np.cumsum(span)[:-1]])
    return np.stack([start, masks, count, np.ones(n, np.int64)], axis=1)


def unit_stream(rng, nbytes: int) -> bytes:
    chunks, size, t0 = [], 0, 0
    while size < nbytes:
        runs = activity(rng, 200_000, t0)
        data = E.encode_unit(runs, t0=t0)
        t0 = int(runs[-1, 0] + (runs[-1, 2] - 1))
        chunks.append(data)
        size += len(data)
    return b"".join(chunks)[: nbytes - nbytes % 1]


def make_mlir() -> str:
    lines = []
    for kind, col, row in UNITS:
        regs = TRACE_REGISTERS[kind]
        ev0, ev1 = trace_events(CORE_EVENTS if kind == "core" else MEM_EVENTS)
        for off, val in ((regs.trace_event0, ev0), (regs.trace_event1, ev1)):
            lines.append(
                f"      aiex.npu.write32 {{address = {tile_address(col, row, off)} : ui32, value = {val} : ui32}}"
            )
    body = "\n".join(lines)
    return (
        "module {\n  aie.device(npu2) {\n    aie.runtime_sequence @sequence(%arg0: memref<16xi32>) {\n"
        f"{body}\n    }}\n  }}\n}}\n"
    )


def generate(path: Path, mib: float, seed: int = 0) -> int:
    rng = np.random.default_rng(seed)
    total_words = int(mib * 2**20) // 4
    per_unit = (total_words // len(UNITS)) // F.PACKET_WORDS * F.PAYLOAD_BYTES
    packets = []
    for i, (kind, col, row) in enumerate(UNITS):
        ptype = ("core", "mem", "shim", "memtile").index(kind)
        packets.append(E.packetize(col, row, ptype, i + 1, unit_stream(rng, per_unit)))
    words = E.interleave(packets)
    if len(words) < total_words:  # pad with zeros up to the buffer size
        words = np.concatenate([words, np.zeros(total_words - len(words), np.uint32)])
    words.astype("<u4").tofile(path)
    return words.nbytes


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=float, default=64.0)
    ap.add_argument("--dir", default=None)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--runs", type=int, default=1, help="fresh-process runs")
    args = ap.parse_args()
    tmp = Path(args.dir or tempfile.mkdtemp(prefix="iron-bench-"))
    tmp.mkdir(parents=True, exist_ok=True)
    big, mlir, out = tmp / "BIG.bin", tmp / "trace.mlir", tmp / "summary.txt"
    mlir.write_text(make_mlir())
    t = time.perf_counter()
    nbytes = generate(big, args.mib)
    mib = nbytes / 2**20
    print(
        f"generated {mib:.1f} MiB ({len(UNITS)} units interleaved) in {time.perf_counter() - t:.1f} s: {big}"
    )
    argv = ["trace", "decode", str(big), "--mlir", str(mlir), "--format", "summary", "-o", str(out)]

    cli_main(argv)  # warm-up: numba JIT cache, imports
    t = time.perf_counter()
    rc = cli_main(argv)
    dt = time.perf_counter() - t
    print(f"in-process CLI decode: {dt:.2f} s, {mib / dt:.0f} MiB/s (rc {rc})")

    tracemalloc.start()
    cli_main(argv)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"in-process peak traced memory: {peak / 2**20:.0f} MiB = {peak / nbytes:.2f}x the buffer")

    # A fresh process through the `iron` command (iron.cli:main), as a user runs it.
    cmd = [sys.executable, "-m", "iron", *argv]
    for _ in range(args.runs):
        t = time.perf_counter()
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        dt_sub = time.perf_counter() - t
        # peak over the children so far (KiB on Linux): these runs, the largest
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
        print(
            f"subprocess CLI decode: {dt_sub:.2f} s wall incl. interpreter start, {mib / dt_sub:.0f} MiB/s "
            f"(rc {proc.returncode}); peak RSS {rss / 2**20:.0f} MiB = {rss / nbytes:.2f}x the buffer"
        )
    if proc.returncode:
        print(proc.stderr, file=sys.stderr)
    print(out.read_text())
    if not args.keep and not args.dir:
        for p in (big, mlir, out):
            p.unlink(missing_ok=True)
        os.rmdir(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
