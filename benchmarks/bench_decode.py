"""Decode time, memory and output of every ``iron trace decode`` format, beside mlir-aie's parser.

Sizes (``--mib``, default 1/16 = 64 KiB, 1 and 16 MiB; bench_small.py takes the 8 KB capture)
of two inputs (``--inputs``):

* ``tiled`` (issue 16's reference input): the 16 packets of one core unit that
  mlir-aie's test1 hardware capture holds (``iron/tests/data/mlir-aie-test1``, the
  words before its zero padding) repeated up to the size: 372,737 intervals per MiB,
  and mlir-aie's test MLIR configures it.
* ``synthetic``: several units' packets interleaved (4 core modules + 2 memory
  modules, made with iron's encoder from a random activity model), about 0.93 M
  intervals per MiB, with a matching MLIR file.

Each buffer is written as mlir-aie's text (``trace.txt``: one hex word per line), the input
both tools read, and decoded whole-process (``python -m iron trace decode IN --mlir M
--format F -o OUT``; Python's bytecode cache on, as after an install; compiled kernels
warm: one unmeasured run of each format first) in every format, ``--runs`` times,
alternating with mlir-aie's parser (``benchmarks/peer.py`` finds it: an installed
``aie.utils.trace``, else its source) on the same input, so that load changes hit both
alike. Per size and format: iron's best and median wall time, best CPU time (user +
system), peak RSS (that process alone) per raw byte and output size; the peer's; and the
ratios of the best wall and CPU times (the peer's time / iron's). The peer's JSON is
compared byte for byte with iron's ``--format mlir-aie``.

The peer at 16 MiB takes minutes and about 8.5 GiB: above ``--peer-max-mib`` (default 2)
its time is its time per MiB at the largest size it ran at in this run, times the size
(said in the output); ``--peer-max-mib 64`` runs it at every size.

    python benchmarks/bench_decode.py [--inputs tiled synthetic] [--mib 0.0625 1 16]
                                      [--formats ...] [--runs 3] [--markdown]
                                      [--mlir-aie-src DIR] [--no-peer] [--peer-max-mib 2]
    python benchmarks/bench_decode.py --slope [--inputs tiled] [--mib 64 128]
    python benchmarks/bench_decode.py --install [--mib 16]

``--markdown``: the README "Measured" rows of this run, machine and load included.
``--slope``: warm runs only (to ``/dev/null``) at the two sizes, and per format the growth
of the peak RSS between them per raw byte (issue 16's memory goal: at most 2x the raw
buffer plus a constant). ``--install``: the package built as ``pip install`` builds it
(``setup.py build_py``, which compiles the decoder's kernels into it), and per format a
``cold`` run (no compiled kernels: ``NUMBA_CACHE_DIR`` a new folder), a ``first`` run after
the install (empty user cache) and a ``warm`` one, to ``/dev/null``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import peer  # noqa: E402

from iron.target.registers import TRACE_REGISTERS, trace_events, tile_address  # noqa: E402
from iron.trace import encode as E  # noqa: E402
from iron.target import frames as F  # noqa: E402

CORE_EVENTS = [33, 34, 37, 23, 24, 26, 75, 79]  # the default core set (docs/design.md 3.1)
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


GOLDEN = ROOT / "iron" / "tests" / "data" / "mlir-aie-test1"  # source: its SOURCES.md


def generate_tiled(path: Path, mib: float) -> int:
    """Issue 16's reference input: the packets of mlir-aie's test1 hardware capture
    (16 packets of one core unit, the words before its zero padding) repeated up to
    ``mib``. Gives 372,737 intervals per MiB, the issue's "about 373k"."""
    from iron.trace.capture import read_words

    words = np.asarray(read_words(str(GOLDEN / "trace.txt"))[0], np.uint32)
    used = words[: (np.flatnonzero(words)[-1] + 1) // F.PACKET_WORDS * F.PACKET_WORDS]
    tiled = np.resize(used, int(mib * 2**20) // 4)
    tiled.astype("<u4").tofile(path)
    return tiled.nbytes


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


FORMATS = ("summary", "perfetto", "pftrace", "mlir-aie")
SUFFIX = {"summary": "txt", "perfetto": "json", "pftrace": "pftrace", "mlir-aie": "json"}


Sample = peer.Sample


def run(cmd: list[str], env: dict | None = None, cwd: Path = ROOT) -> Sample:
    """One fresh process, measured (:func:`peer.measure`)."""
    return peer.measure(cmd, env, cwd)


def count_intervals(big: Path, mlir: Path) -> int:
    """Intervals in the Perfetto outputs (slot intervals + kernel invocations)."""
    code = (
        "import sys; from pathlib import Path; import numpy as np\n"
        "from iron.trace.mlir_manifest import manifest_from_mlir\n"
        "from iron.trace.capture import decode_manifest\n"
        "from iron.trace.export.perfetto import unit_tracks\n"
        "w = np.fromfile(sys.argv[1], '<u4')\n"
        "d = decode_manifest(manifest_from_mlir(Path(sys.argv[2]).read_text(), len(w) * 4), w)\n"
        "print(sum(len(b) for s in d.slices for u in s.units for t in unit_tracks(u, None) for b, _ in t[3]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(big), str(mlir)], cwd=ROOT, capture_output=True)
    return int(out.stdout or 0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", nargs="+", default=["tiled"], choices=("tiled", "synthetic"))
    ap.add_argument("--mib", type=float, nargs="+", default=None, help="sizes (default 1/16 1 16)")
    ap.add_argument("--formats", nargs="+", default=list(FORMATS), choices=FORMATS)
    ap.add_argument("--runs", type=int, default=3, help="alternating runs per size (best and median)")
    ap.add_argument("--peer-max-mib", type=float, default=2.0, help="largest size the peer runs at")
    ap.add_argument("--markdown", action="store_true", help="also print README 'Measured' rows")
    ap.add_argument("--dir", default=None, help="work folder (default: a temporary one, removed)")
    ap.add_argument("--slope", action="store_true", help="memory growth per raw byte between two sizes")
    ap.add_argument("--install", action="store_true", help="cold / first / warm runs of the built package")
    peer.add_arguments(ap)
    args = ap.parse_args()
    args.mib = args.mib or ([64.0, 128.0] if args.slope else [1 / 16, 1.0, 16.0])
    tmp = Path(args.dir or tempfile.mkdtemp(prefix="iron-bench-")).resolve()
    tmp.mkdir(parents=True, exist_ok=True)
    print(f"{machine()}; load average before: {load()}")
    for kind in args.inputs:
        print(f"\n== input: {kind}")
        if args.slope:
            bench_slope(kind, args, tmp)
        elif args.install:
            bench_install(kind, args, tmp)
        else:
            bench_live(kind, args, tmp)
    print(f"load average after: {load()}")
    if not args.dir:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


machine = peer.machine


def _inputs(kind: str, tmp: Path) -> tuple[Path, Callable[[Path, float], int]]:
    """The MLIR file of an input kind and its buffer generator ``(path, MiB) -> bytes``."""
    mlir = tmp / f"{kind}.mlir"
    if kind == "tiled":
        shutil.copy(GOLDEN / "aie.mlir", mlir)
        return mlir, generate_tiled
    mlir.write_text(make_mlir())
    return mlir, generate


def _env(**extra) -> dict:
    env = {**os.environ, **extra}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: bytecode cached
    return env


def iron_cmd(src: Path, mlir: Path, fmt: str, out: Path | str) -> list[str]:
    return [sys.executable, "-m", "iron", "trace", "decode", str(src), "--mlir", str(mlir), "--format", fmt, "-o", str(out)]  # fmt: skip


def bench_slope(kind: str, args, tmp: Path) -> None:
    """Peak RSS at two sizes, warm, to /dev/null; growth per raw byte between them."""
    mlir, gen = _inputs(kind, tmp)
    sizes = sorted(args.mib)[-2:]
    peak = {}
    for size in sizes:
        big = tmp / f"{kind}-{size:g}MiB.bin"
        nbytes = gen(big, size)
        for fmt in args.formats:
            cmd = iron_cmd(big, mlir, fmt, os.devnull)
            run(cmd, _env())  # fills the kernel cache
            s = run(cmd, _env())
            peak[fmt, size] = (nbytes, s.rss)
            print(
                f"{size:5g} MiB {fmt:10s} warm {s.wall:8.2f} s, peak RSS {s.rss / 2**20:6.0f} MiB", flush=True
            )
        big.unlink(missing_ok=True)
    for fmt in args.formats:
        (b0, r0), (b1, r1) = peak[fmt, sizes[0]], peak[fmt, sizes[1]]
        print(
            f"  {fmt:10s} peak grows {(r1 - r0) / (b1 - b0):.2f} bytes per raw byte from {sizes[0]:g} to {sizes[1]:g} MiB"
        )


def build_package(tmp: Path) -> Path:
    """The package as ``pip install`` builds it (with its compiled kernels), under ``tmp/lib``."""
    lib = tmp / "lib"
    if not (lib / "iron" / "trace" / "_kernels").is_dir():
        env = _env(HOME=str(tmp / "build-home"))
        env.pop("NUMBA_CACHE_DIR", None)
        t = time.perf_counter()
        cmd = [sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(lib)]
        subprocess.run(cmd, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
        print(f"package built with its kernels in {time.perf_counter() - t:.1f} s")
    return lib


def bench_install(kind: str, args, tmp: Path) -> None:
    """cold / first / warm runs of the package as ``pip install`` builds it, to /dev/null."""
    mlir, gen = _inputs(kind, tmp)
    lib = build_package(tmp)
    for size in args.mib:
        big = tmp / f"{kind}-{size:g}MiB.bin"
        gen(big, size)
        for fmt in args.formats:
            cmd = iron_cmd(big, mlir, fmt, os.devnull)
            cold = tempfile.mkdtemp(prefix="numba-", dir=tmp)
            home = tempfile.mkdtemp(prefix="home-", dir=tmp)  # an empty user cache
            installed = _env(HOME=home, PYTHONPATH=str(lib))
            installed.pop("NUMBA_CACHE_DIR", None)
            got = {}
            for label, env in (
                ("cold", {**installed, "NUMBA_CACHE_DIR": cold}),
                ("first", installed),
                ("warm", installed),
            ):
                got[label] = run(cmd, env, tmp)
            w = got["warm"].wall
            print(
                f"{size:5g} MiB {fmt:9s} cold {got['cold'].wall:6.2f} s ({got['cold'].wall / w:.2f}x warm), first "
                f"{got['first'].wall:6.2f} s ({got['first'].wall / w:.2f}x), warm {w:6.2f} s, "
                f"peak RSS cold {got['cold'].rss / 2**20:.0f} MiB, warm {got['warm'].rss / 2**20:.0f} MiB",
                flush=True,
            )
            shutil.rmtree(cold, ignore_errors=True)
            shutil.rmtree(home, ignore_errors=True)
        big.unlink(missing_ok=True)


def _best(samples: list[Sample]) -> tuple[float, float, float, int]:
    """(best wall, median wall, best CPU, largest peak RSS) of good runs."""
    ok = [s for s in samples if not s.rc] or samples
    walls = [s.wall for s in ok]
    return min(walls), statistics.median(walls), min(s.cpu for s in ok), max(s.rss for s in ok)


def bench_live(kind: str, args, tmp: Path) -> None:
    """iron in every format and the peer, alternating, per size; ratios from this run."""
    mlir, gen = _inputs(kind, tmp)
    the_peer = None if args.no_peer else peer.find_peer(args.mlir_aie_src)
    print(
        f"peer: {the_peer.origin if the_peer else 'not run (--no-peer)' if args.no_peer else 'not found (see benchmarks/peer.py): no ratios'}"
    )
    peer_per_mib: tuple[float, float, float] | None = None  # (s/MiB wall, s/MiB CPU, at MiB)
    rows = []
    try:
        for size in sorted(args.mib):
            rows.append(_live_size(kind, size, mlir, gen, the_peer, args, tmp, peer_per_mib))
            peer_per_mib = rows[-1]["peer_per_mib"] or peer_per_mib
    finally:
        if the_peer:
            the_peer.close()
    if args.markdown:
        print(f"\nREADME rows ({kind}; {time.strftime('%b %Y')}, {machine()}):")
        for row in rows:
            print(markdown_row(kind, row, args))


def _live_size(kind, size, mlir, gen, the_peer, args, tmp, peer_per_mib) -> dict:
    big = tmp / f"{kind}-{size:g}MiB.bin"
    nbytes = gen(big, size)
    mib = nbytes / 2**20
    words = np.fromfile(big, "<u4")
    text = tmp / f"{kind}-{size:g}MiB.txt"
    from iron.trace.words import format_text

    text.write_text(format_text(words))
    intervals = count_intervals(big, mlir)
    outs = {fmt: tmp / f"out-{size:g}-{fmt}.{SUFFIX[fmt]}" for fmt in args.formats}
    peer_out = tmp / "peer.json"
    run_peer = the_peer is not None and size <= args.peer_max_mib
    for fmt in args.formats:  # unmeasured: bytecode written, kernels cached and loaded once
        run(iron_cmd(text, mlir, fmt, outs[fmt]), _env(), tmp)
    samples: dict[str, list[Sample]] = {fmt: [] for fmt in args.formats}
    peer_samples: list[Sample] = []
    load0 = load()
    for _ in range(args.runs):
        if run_peer:
            peer_samples.append(run(the_peer.command(text, mlir, peer_out), _env(), tmp))
        for fmt in args.formats:
            samples[fmt].append(run(iron_cmd(text, mlir, fmt, outs[fmt]), _env(), tmp))
    row = {"mib": mib, "size": size, "intervals": intervals, "load": f"{load0} / {load()}", "iron": {}}
    row["out"] = {fmt: outs[fmt].stat().st_size if outs[fmt].exists() else 0 for fmt in args.formats}
    for fmt in args.formats:
        row["iron"][fmt] = _best(samples[fmt])
    row["peer_per_mib"] = None
    if run_peer:
        pw, pmed, pcpu, prss = _best(peer_samples)
        row["peer"] = (pw, pcpu, prss, f"measured at {mib:g} MiB")
        row["peer_per_mib"] = (pw / mib, pcpu / mib, mib)
        if "mlir-aie" in outs and peer_out.exists():
            row["identical"] = outs["mlir-aie"].read_bytes() == peer_out.read_bytes()
    elif peer_per_mib:
        w, c, at = peer_per_mib
        row["peer"] = (w * mib, c * mib, 0, f"its time per MiB at {at:g} MiB in this run x {mib:g}")
    _print_size(kind, row, args)
    for p in (big, text, peer_out, *outs.values()):
        p.unlink(missing_ok=True)
    return row


def _size_name(mib: float) -> str:
    return f"{mib * 1024:g} KiB" if mib < 1 else f"{mib:g} MiB"


def _print_size(kind: str, row: dict, args) -> None:
    mib = row["mib"]
    print(f"{_size_name(mib)} ({row['intervals']} intervals; load average {row['load']}; {args.runs} runs)")
    peer_t = row.get("peer")
    if peer_t:
        pw, pcpu, prss, how = peer_t
        mem = f", peak RSS {prss / 2**20:.0f} MiB" if prss else ""
        print(f"  mlir-aie parse.py     wall best {pw:8.3f} s, CPU {pcpu:8.3f} s{mem} ({how})")
        if "identical" in row:
            print(f"  iron --format mlir-aie output byte-identical to the peer's: {row['identical']}")
    for fmt, (best, med, cpu, rss) in row["iron"].items():
        ratio = f" = {peer_t[0] / best:6.1f}x faster (CPU {peer_t[1] / cpu:6.1f}x)" if peer_t else ""
        print(
            f"  iron {fmt:16s} wall best {best:8.3f} s, median {med:7.3f} s, CPU {cpu:7.3f} s, "
            f"peak RSS {rss / 2**20:5.0f} MiB ({rss / (mib * 2**20):5.2f} x raw), out {row['out'][fmt] / 1e6:8.1f} MB"
            f"{ratio}",
            flush=True,
        )


def markdown_row(kind: str, row: dict, args) -> str:
    """One README "Measured" row: this size, every format, its ratios."""
    mib, peer_t = row["mib"], row.get("peer")
    cells = []
    for fmt, (best, med, cpu, rss) in row["iron"].items():
        ratio = f" = **{peer_t[0] / best:.1f}x** (CPU {peer_t[1] / cpu:.1f}x)" if peer_t else ""
        cells.append(f"{fmt} {best:.3f} s (median {med:.3f}), {rss / 2**20:.0f} MiB{ratio}")
    if peer_t:
        pw, pcpu, prss, how = peer_t
        mem = f", {prss / 2**20:.0f} MiB" if prss else ""
        same = {True: ", byte-identical to iron's mlir-aie output", False: ", NOT identical"}.get(
            row.get("identical"), ""
        )
        peer_cell = f"mlir-aie parse.py {pw:.3f} s{mem} ({how}{same})"
    else:
        peer_cell = "peer not run"
    what = (
        f"`iron trace decode` {kind} {_size_name(mib)} as mlir-aie text, whole process, warm, to the file, beside "
        f"mlir-aie's parser (`python benchmarks/bench_decode.py --mib {row['size']:g} --runs {args.runs} --markdown`; "
        f"{time.strftime('%b %Y')}, {machine()}, load average {row['load']}; best of {args.runs})"
    )
    return f"| {what} | {'; '.join(cells)}; {peer_cell} |"


if __name__ == "__main__":
    sys.exit(main())
