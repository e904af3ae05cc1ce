"""The capture most users decode: mlir-aie's own 8 KB ``test1`` capture, whole process.

Each output format is decoded by a fresh ``python -m iron trace decode trace.txt --mlir
aie.mlir --format F -o OUT`` process, ``--runs`` times; the row gives the fastest and the
median wall time and the largest peak RSS (``wait4``'s ``ru_maxrss`` of that child), beside
mlir-aie's parser on the same input, as issue 28 measured it on this machine (7
alternating pairs of whole-process runs, ``--format mlir-aie``): 0.37 s, 28 MiB. With
``--importtime`` the slowest imports of one run (``python -X importtime``) follow.

    python benchmarks/bench_small.py [--runs 7] [--importtime]

The peer cannot run here (its parser needs mlir-aie's ``aie`` package); with
``--mlir-aie-parse PATH/TO/parse.py`` (and the ``aie`` package importable) it is run on the
same input in the same loop instead of quoting the issue's figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEST1 = ROOT / "iron" / "tests" / "data" / "mlir-aie-test1"
FORMATS = ("summary", "mlir-aie", "perfetto", "pftrace")
#: mlir-aie's parser (parse.py) on test1, whole process: issue 28's measurement.
PEER_SECONDS, PEER_MIB = 0.37, 28.0


#: Children run as an installed iron does: with bytecode (a ``pip install`` compiles it; a
#: shell with PYTHONDONTWRITEBYTECODE=1 would compile every module on every run).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run_once(argv: list[str], cwd: Path = ROOT) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak RSS MiB) of one child process."""
    t = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd, env=ENV)
    _, status, usage = os.wait4(proc.pid, 0)
    dt = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode()
    proc.stderr.close()
    if proc.returncode:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}): {err}")
    return dt, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024  # Linux: KiB


def iron_argv(fmt: str, out: Path) -> list[str]:
    return [sys.executable, "-m", "iron", "trace", "decode", str(TEST1 / "trace.txt"), "--mlir",
            str(TEST1 / "aie.mlir"), "--format", fmt, "-o", str(out)]  # fmt: skip


def peer_argv(parse_py: str, out: Path) -> list[str]:
    return [sys.executable, parse_py, "--input", str(TEST1 / "trace.txt"), "--mlir", str(TEST1 / "aie.mlir"),
            "--output", str(out)]  # fmt: skip


def importtime(fmt: str, out: Path, top: int = 12) -> list[str]:
    """The ``top`` slowest imports (cumulative) of one decode."""
    res = subprocess.run(
        [sys.executable, "-X", "importtime", *iron_argv(fmt, out)[1:]],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=ENV,
    )
    rows = []
    for line in res.stderr.splitlines():
        if not line.startswith("import time:"):
            continue
        self_us, cum_us, name = (x.strip() for x in line.split(":", 1)[1].split("|"))
        if self_us.isdigit():  # not the header row
            rows.append((int(cum_us), int(self_us), name))
    rows.sort(reverse=True)
    return [f"    {c / 1e3:7.1f} ms cumulative {s / 1e3:6.1f} ms self  {n}" for c, s, n in rows[:top]]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--importtime", action="store_true")
    ap.add_argument("--mlir-aie-parse", default=None, metavar="PARSE_PY")
    ap.add_argument(
        "--baseline",
        default=None,
        metavar="DIR",
        help="another iron checkout (e.g. `git archive main | tar -x -C DIR`), run in the same loop",
    )
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        samples: dict[str, list[tuple[float, float, float]]] = {f: [] for f in FORMATS}
        peer: list[tuple[float, float, float]] = []
        base = Path(args.baseline).resolve() if args.baseline else None
        before: dict[str, list[tuple[float, float, float]]] = {f: [] for f in FORMATS}
        for fmt in FORMATS:  # once, unmeasured: bytecode written, caches warm
            run_once(iron_argv(fmt, out))
            if base:
                run_once(iron_argv(fmt, out), base)
        for _ in range(args.runs):  # alternate formats (and the peer) so load changes hit all alike
            for fmt in FORMATS:
                samples[fmt].append(run_once(iron_argv(fmt, out)))
                if base:
                    before[fmt].append(run_once(iron_argv(fmt, out), base))
            if args.mlir_aie_parse:
                peer.append(run_once(peer_argv(args.mlir_aie_parse, out)))
        if peer:
            p_sec, p_mib = min(t for t, _, _ in peer), max(m for _, _, m in peer)
            origin = "measured in this run"
        else:
            p_sec, p_mib, origin = PEER_SECONDS, PEER_MIB, "issue 28's measurement"
        print(f"test1 (8 KB text capture + --mlir), whole process, {args.runs} runs per format")
        print(f"  mlir-aie parse.py: {p_sec:.3f} s, {p_mib:.0f} MiB ({origin})")
        for fmt in FORMATS:
            ts = [t for t, _, _ in samples[fmt]]
            cpu = min(c for _, c, _ in samples[fmt])
            mib = max(m for _, _, m in samples[fmt])
            print(
                f"  iron {fmt:9s} wall min {min(ts):.3f} s, median {statistics.median(ts):.3f} s; CPU min {cpu:.3f} s;"
                f" peak RSS {mib:5.1f} MiB = {min(ts) / p_sec:.2f}x the peer's time, {mib / p_mib:.2f}x its memory"
            )
            if base:
                ts0 = [t for t, _, _ in before[fmt]]
                print(
                    f"    baseline    wall min {min(ts0):.3f} s, median {statistics.median(ts0):.3f} s; CPU min"
                    f" {min(c for _, c, _ in before[fmt]):.3f} s; peak RSS {max(m for _, _, m in before[fmt]):5.1f} MiB"
                )
            if args.importtime:
                print("\n".join(importtime(fmt, out)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
