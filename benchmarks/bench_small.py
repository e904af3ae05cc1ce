"""The capture most users decode: mlir-aie's own 8 KB ``test1`` capture, whole process.

Each output format is decoded by a fresh ``python -m iron trace decode trace.txt --mlir
aie.mlir --format F -o OUT`` process, ``--runs`` times, formats (and the baseline and the
peer, when given) alternating so that load changes hit all alike. Per format the row gives
the fastest and the median wall time, the least and the median CPU time (user + system:
what the other users of a shared machine do not change much) and the largest peak RSS
(``wait4``'s ``ru_maxrss`` of that child), beside mlir-aie's parser on the same input run
in the same loop (``benchmarks/peer.py`` finds it; ``--no-peer``: none, and no ratio). Then, per format, the heavy packages the decode
loaded (numpy, numba, protobuf: a small decode should load none; and whether the iron run is
an editable install, whose finder every process imports) and its slowest imports
(``python -X importtime``, cumulative). The load average before and after is printed:
wall times on a loaded 2-core machine are worth little, CPU times more.

    python benchmarks/bench_small.py [--runs 7] [--top 8] [--tiled 64 ...] [--methods [ENGINE ...]]
                                     [--baseline DIR] [--mlir-aie-src DIR] [--no-peer] [--markdown]

``--tiled KIB``: also test1's packets repeated to a KIB KiB buffer, written as mlir-aie's
text (the ``trace_size`` range users run is 8-64 KiB), to see where the plain decode hands
over to numpy (``iron/trace/engine.py``: ``PLAIN_BYTES``, ``PLAIN_INTERVALS``).
``--methods [ENGINE ...]``: also each decode with these engines forced (default: plain and
numpy), set in the child before it decodes: plain (no interval bound), numpy (``PLAIN_BYTES
= 0`` and no compiled bound), numba (``COMPILED_BYTES = 0``: the cached kernels; without
them the child compiles and says so): where the bounds should sit (``CROSSOVERS``). ``--baseline DIR``: another iron checkout (e.g. ``git archive main | tar -x -C DIR``) run in
the same loop. ``--markdown``: the README "Measured" row of this run (machine and load named).
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peer  # noqa: E402
from peer import machine  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TEST1 = ROOT / "iron" / "tests" / "data" / "mlir-aie-test1"  # source: its SOURCES.md
FORMATS = ("summary", "mlir-aie", "perfetto", "pftrace")
HEAVY = ("numpy", "numba", "google.protobuf")


#: Children run as an installed iron does: with bytecode (a ``pip install`` compiles it; a
#: shell with PYTHONDONTWRITEBYTECODE=1 would compile every module on every run).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run_once(argv: list[str], cwd: Path = ROOT) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak RSS MiB) of one child process (:func:`peer.measure`)."""
    got = peer.measure(argv, ENV, cwd)
    if got.rc:
        raise SystemExit(f"{' '.join(map(str, argv))} failed ({got.rc})")
    return got.wall, got.cpu, got.rss / 2**20


def iron_argv(src: Path, fmt: str, out: Path, force: str | None = None) -> list[str]:
    """The decode command; ``force`` "plain" / "numpy" / "numba": that engine whatever the input."""
    args = ["trace", "decode", str(src), "--mlir", str(TEST1 / "aie.mlir"), "--format", fmt, "-o", str(out)]
    if force is None:
        return [sys.executable, "-m", "iron", *args]
    limits = {
        "plain": "K.PLAIN_BYTES = K.PLAIN_INTERVALS = 1 << 60",
        "numpy": "K.PLAIN_BYTES = 0; K.COMPILED_BYTES = K.COLD_COMPILED_BYTES = 1 << 60",
        "numba": "K.PLAIN_BYTES = 0; K.COMPILED_BYTES = 0",
    }[force]
    code = (
        f"import sys, iron.trace.engine as K; {limits}; from iron.cli import main; sys.exit(main({args!r}))"
    )
    return [sys.executable, "-c", code]


def imports(src: Path, fmt: str, out: Path, top: int) -> tuple[list[str], list[str]]:
    """(heavy packages loaded, the ``top`` slowest imports, cumulative) of one decode; the
    heavy list names an editable install's finder too (``pip install -e``: ``site`` imports
    it, and pathlib with it, in every process; a ``pip install .`` has none)."""
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
    heavy += [
        f"editable install's finder ({c / 1e3:.1f} ms)" for c, _, n in rows if n.startswith("__editable__")
    ]
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


def _row(name: str, samples: list, p_sec, p_cpu, p_mib) -> str:
    ts, cpu, mib = [s[0] for s in samples], [s[1] for s in samples], max(s[2] for s in samples)
    ratio = (
        f" = {min(ts) / p_sec:.2f}x the peer's time (CPU {min(cpu) / p_cpu:.2f}x), {mib / p_mib:.2f}x its memory"
        if p_sec
        else ""
    )
    return (
        f"  {name:24s} wall min {min(ts):.3f} s, median {statistics.median(ts):.3f} s; CPU min {min(cpu):.3f} s,"
        f" median {statistics.median(cpu):.3f} s; peak RSS {mib:5.1f} MiB{ratio}"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--top", type=int, default=8, help="slowest imports listed per format (0: none)")
    ap.add_argument("--tiled", type=int, nargs="*", default=[], metavar="KIB")
    ap.add_argument(
        "--methods",
        nargs="*",
        choices=("plain", "numpy", "numba"),
        default=None,
        metavar="ENGINE",
        help="also these engines forced (none named: plain and numpy)",
    )
    ap.add_argument("--markdown", action="store_true", help="also print the README 'Measured' row")
    peer.add_arguments(ap)
    ap.add_argument(
        "--baseline", default=None, metavar="DIR", help="another iron checkout, run in the same loop"
    )
    args = ap.parse_args()
    load0 = _load()
    print(f"load average before: {load0} ({machine()})")
    the_peer = None if args.no_peer else peer.find_peer(args.mlir_aie_src)
    print(
        f"peer: {the_peer.origin if the_peer else 'not run (--no-peer)' if args.no_peer else 'not found (see benchmarks/peer.py): no ratios'}"
    )
    try:
        with tempfile.TemporaryDirectory() as tmp:
            rows = _measure(args, Path(tmp), the_peer)
    finally:
        if the_peer:
            the_peer.close()
    load1 = _load()
    print(f"load average after: {load1}")
    if args.markdown:
        print(markdown_row(rows, args, f"{load0} / {load1}"))
    return 0


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _measure(args, tmp: Path, the_peer) -> dict:
    """Alternating runs of every case and the peer per input; prints the rows, returns
    {input: {fmt: samples}, ...} with the peer's samples under "peer"."""
    out = tmp / "out"
    inputs = {"test1 8 KB": TEST1 / "trace.txt"} | {f"{k} KiB": tiled_text(k, tmp) for k in args.tiled}
    base = Path(args.baseline).resolve() if args.baseline else None
    kinds = [(ROOT, None)] + ([(base, None)] if base else [])
    forced = _forced(args.methods)
    kinds += [(ROOT, f) for f in forced]
    cases = [(i, fmt, where, force) for where, force in kinds for i in inputs for fmt in FORMATS]
    samples: dict = {c: [] for c in cases}
    peer_samples: dict = {i: [] for i in inputs}
    identical: dict = {}
    for i, fmt, where, force in cases:  # once, unmeasured: bytecode written, caches warm
        run_once(iron_argv(inputs[i], fmt, out, force), where)
    for _ in range(args.runs):
        for i in inputs:
            if the_peer:
                peer_out = tmp / "peer.json"
                peer_samples[i].append(run_once(the_peer.command(inputs[i], TEST1 / "aie.mlir", peer_out)))
                run_once(iron_argv(inputs[i], "mlir-aie", out, None))
                identical[i] = peer_out.read_bytes() == out.read_bytes()
            for case in [c for c in cases if c[0] == i]:
                samples[case].append(run_once(iron_argv(inputs[i], case[1], out, case[3]), case[2]))
    print(f"whole process, {args.runs} runs per row, alternating with mlir-aie's parser (the peer)")
    rows = {}
    for i in inputs:
        ps = peer_samples[i]
        p_sec, p_cpu, p_mib = (
            (min(x[0] for x in ps), min(x[1] for x in ps), max(x[2] for x in ps)) if ps else (None,) * 3
        )
        print(f"{i} (text capture + --mlir)")
        if ps:
            print(f"  {'mlir-aie parse.py':24s} wall min {p_sec:.3f} s, CPU min {p_cpu:.3f} s; peak RSS {p_mib:5.1f} MiB; "
                  f"its output byte-identical to iron's --format mlir-aie: {identical[i]}")  # fmt: skip
        rows[i] = {"peer": (p_sec, p_cpu, p_mib, identical.get(i))}
        for fmt in FORMATS:
            rows[i][fmt] = samples[i, fmt, ROOT, None]
            print(_row(f"iron {fmt}", samples[i, fmt, ROOT, None], p_sec, p_cpu, p_mib))
            if base:
                print(_row("  baseline", samples[i, fmt, base, None], p_sec, p_cpu, p_mib))
            for force in forced:
                print(_row(f"  {force} forced", samples[i, fmt, ROOT, force], p_sec, p_cpu, p_mib))
            if args.top:
                heavy, top = imports(inputs[i], fmt, out, args.top)
                print(f"    loaded: {', '.join(heavy) or 'none of ' + ', '.join(HEAVY)}; slowest imports:")
                print("\n".join(top))
    return rows


def _forced(methods: list[str] | None) -> list[str]:
    """The engines ``--methods`` forces: none without it, plain and numpy when it names none."""
    if methods is None:
        return []
    return list(dict.fromkeys(methods)) or ["plain", "numpy"]


def markdown_row(rows: dict, args, load: str) -> str:
    """The README "Measured" row of this run."""
    cells = []
    for i, row in rows.items():
        p_sec, p_cpu, p_mib, same = row["peer"]
        parts = []
        for fmt in FORMATS:
            ts, cpu, mib = [x[0] for x in row[fmt]], [x[1] for x in row[fmt]], max(x[2] for x in row[fmt])
            ratio = (
                f" = **{min(ts) / p_sec:.2f}x** the peer's time (CPU {min(cpu) / p_cpu:.2f}x)"
                if p_sec
                else ""
            )
            parts.append(f"{fmt} {min(ts):.3f} s, {mib:.1f} MiB{ratio}")
        peer_cell = f"; mlir-aie parse.py {p_sec:.3f} s, {p_mib:.1f} MiB" if p_sec else "; peer not run"
        same_cell = {True: ", byte-identical to iron's mlir-aie output", False: ", NOT identical"}.get(
            same, ""
        )
        cells.append(f"{i}: " + "; ".join(parts) + peer_cell + same_cell)
    tiled = f" --tiled {' '.join(map(str, args.tiled))}" if args.tiled else ""
    what = (
        f"mlir-aie's test1 capture (8 KB) and larger, whole process, every format, beside mlir-aie's parser "
        f"(`python benchmarks/bench_small.py --runs {args.runs}{tiled} --markdown`; {time.strftime('%b %Y')}, "
        f"{machine()}, load average {load}; best of {args.runs} wall, best CPU)"
    )
    return f"| {what} | {' '.join(cells)} |"


if __name__ == "__main__":
    sys.exit(main())
