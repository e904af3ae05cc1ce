"""The capture most users decode: mlir-aie's own 8 KB ``test1`` capture, whole process.

Each output format is decoded by a fresh ``python -m iron trace decode trace.txt --mlir
aie.mlir --format F -o OUT`` process, ``--runs`` times, formats (and the baseline and the
peer, when given) alternating so that load changes hit all alike. Per format the row gives
the fastest and the median wall time, the least and the median CPU time (user + system:
what the other users of a shared machine do not change much) and the largest peak RSS
(``wait4``'s ``ru_maxrss`` of that child), beside mlir-aie's parser on the same input,
as issue 28 measured it on this machine (7 alternating pairs of whole-process runs,
``--format mlir-aie``): 0.37 s, 28 MiB. Then, per format, the heavy packages the decode
loaded (numpy, numba, protobuf: a small decode should load none) and its slowest imports
(``python -X importtime``, cumulative). The load average before and after is printed:
wall times on a loaded 2-core machine are worth little, CPU times more.

    python benchmarks/bench_small.py [--runs 7] [--top 8] [--tiled 64 ...] [--methods]
                                     [--baseline DIR] [--mlir-aie-parse PARSE_PY]

``--tiled KIB``: also test1's packets repeated to a KIB KiB buffer, written as mlir-aie's
text (the ``trace_size`` range users run is 8-64 KiB), to see where the plain decode hands
over to numpy (``iron/trace/jit.py``: ``PLAIN_BYTES``, ``PLAIN_INTERVALS``).
``--methods``: also each decode with the plain method forced (no interval bound) and with
numpy forced (``PLAIN_BYTES = 0``), set in the child before it decodes: where the bound
should sit. ``--baseline DIR``: another iron checkout (e.g. ``git archive main | tar -x -C DIR``) run in
the same loop. The peer cannot run here (its parser needs mlir-aie's ``aie`` package); with
``--mlir-aie-parse PATH/TO/parse.py`` (and ``aie`` importable) it runs in the same loop
instead of quoting the issue's figures.
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
TEST1 = ROOT / "iron" / "tests" / "data" / "mlir-aie-test1"  # source: its SOURCES.md
FORMATS = ("summary", "mlir-aie", "perfetto", "pftrace")
#: mlir-aie's parser (parse.py) on test1, whole process: issue 28's measurement.
PEER_SECONDS, PEER_MIB = 0.37, 28.0
HEAVY = ("numpy", "numba", "google.protobuf")


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


def iron_argv(src: Path, fmt: str, out: Path, force: str | None = None) -> list[str]:
    """The decode command; ``force`` "plain" / "numpy": that method whatever the input."""
    args = ["trace", "decode", str(src), "--mlir", str(TEST1 / "aie.mlir"), "--format", fmt, "-o", str(out)]
    if force is None:
        return [sys.executable, "-m", "iron", *args]
    limits = "K.PLAIN_BYTES = K.PLAIN_INTERVALS = 1 << 60" if force == "plain" else "K.PLAIN_BYTES = 0"
    code = f"import sys, iron.trace.jit as K; {limits}; from iron.cli import main; sys.exit(main({args!r}))"
    return [sys.executable, "-c", code]


def peer_argv(parse_py: str, out: Path) -> list[str]:
    return [sys.executable, parse_py, "--input", str(TEST1 / "trace.txt"), "--mlir", str(TEST1 / "aie.mlir"),
            "--output", str(out)]  # fmt: skip


def imports(src: Path, fmt: str, out: Path, top: int) -> tuple[list[str], list[str]]:
    """(heavy packages loaded, the ``top`` slowest imports, cumulative) of one decode."""
    res = subprocess.run(
        [sys.executable, "-X", "importtime", *iron_argv(src, fmt, out)[1:]],
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
    heavy = [h for h in HEAVY if any(n == h or n.startswith(h + ".") for _, _, n in rows)]
    rows.sort(reverse=True)
    return heavy, [f"    {c / 1e3:7.1f} ms cumulative {s / 1e3:6.1f} ms self  {n}" for c, s, n in rows[:top]]


def tiled_text(kib: int, folder: Path) -> Path:
    """test1's packets (the words before its zero padding) repeated to ``kib`` KiB, as text."""
    words = [int(x, 16) for x in (TEST1 / "trace.txt").read_text().split()]
    used = words[: (max(i for i, w in enumerate(words) if w) + 1) // 8 * 8]
    n = kib * 256
    path = folder / f"test1_tiled_{kib}k.txt"
    path.write_text("".join(f"{used[i % len(used)]:08x}\n" for i in range(n)))
    return path


def _row(name: str, samples: list, p_sec: float, p_mib: float) -> str:
    ts, cpu, mib = [s[0] for s in samples], [s[1] for s in samples], max(s[2] for s in samples)
    return (
        f"  {name:24s} wall min {min(ts):.3f} s, median {statistics.median(ts):.3f} s; CPU min {min(cpu):.3f} s,"
        f" median {statistics.median(cpu):.3f} s; peak RSS {mib:5.1f} MiB"
        f" = {min(ts) / p_sec:.2f}x the peer's time, {mib / p_mib:.2f}x its memory"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--top", type=int, default=8, help="slowest imports listed per format (0: none)")
    ap.add_argument("--tiled", type=int, nargs="*", default=[], metavar="KIB")
    ap.add_argument("--methods", action="store_true", help="also plain and numpy forced")
    ap.add_argument("--mlir-aie-parse", default=None, metavar="PARSE_PY")
    ap.add_argument(
        "--baseline", default=None, metavar="DIR", help="another iron checkout, run in the same loop"
    )
    args = ap.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} cores)")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        inputs = {"test1 8 KB": TEST1 / "trace.txt"} | {
            f"{k} KiB": tiled_text(k, Path(tmp)) for k in args.tiled
        }
        base = Path(args.baseline).resolve() if args.baseline else None
        kinds = [(ROOT, None)] + ([(base, None)] if base else [])
        kinds += [(ROOT, "plain"), (ROOT, "numpy")] if args.methods else []
        cases = [(i, fmt, where, force) for where, force in kinds for i in inputs for fmt in FORMATS]
        samples: dict = {c: [] for c in cases}
        peer: list[tuple[float, float, float]] = []
        for i, fmt, where, force in cases:  # once, unmeasured: bytecode written, caches warm
            run_once(iron_argv(inputs[i], fmt, out, force), where)
        for _ in range(args.runs):
            for i, fmt, where, force in cases:
                samples[i, fmt, where, force].append(run_once(iron_argv(inputs[i], fmt, out, force), where))
            if args.mlir_aie_parse:
                peer.append(run_once(peer_argv(args.mlir_aie_parse, out)))
        if peer:
            p_sec, p_mib = min(t for t, _, _ in peer), max(m for _, _, m in peer)
            origin = "measured in this run"
        else:
            p_sec, p_mib, origin = PEER_SECONDS, PEER_MIB, "issue 28's measurement"
        print(
            f"whole process, {args.runs} runs per row; mlir-aie parse.py on test1: {p_sec:.3f} s, {p_mib:.0f} MiB ({origin})"
        )
        for i in inputs:
            print(f"{i} (text capture + --mlir)")
            for fmt in FORMATS:
                print(_row(f"iron {fmt}", samples[i, fmt, ROOT, None], p_sec, p_mib))
                if base:
                    print(_row("  baseline", samples[i, fmt, base, None], p_sec, p_mib))
                for force in ("plain", "numpy") if args.methods else ():
                    print(_row(f"  {force} forced", samples[i, fmt, ROOT, force], p_sec, p_mib))
                if args.top:
                    heavy, top = imports(inputs[i], fmt, out, args.top)
                    print(
                        f"    loaded: {', '.join(heavy) or 'none of ' + ', '.join(HEAVY)}; slowest imports:"
                    )
                    print("\n".join(top))
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
