"""Decode throughput, memory and output size of every ``iron trace decode`` format.

Two inputs (``--inputs``), each at 1, 16 and 64 MiB by default:

* ``tiled`` (issue 16's reference input): the 16 packets of one core unit that
  mlir-aie's test1 hardware capture holds (``iron/tests/data/mlir-aie-test1``, the
  words before its zero padding) repeated up to the size. That is how the density
  of the issue's "tiled hardware packets (one unit, about 373k intervals per MiB)"
  was matched: this gives 372,737 intervals per MiB, and mlir-aie's test MLIR
  configures it.
* ``synthetic``: several units' packets interleaved (4 core modules + 2 memory
  modules, made with iron's encoder from a random activity model), about 0.93 M
  intervals per MiB, with a matching mlir-aie MLIR file.

The package is built once as ``pip install`` builds it (``setup.py build_py``,
which compiles the decoder's kernels into it; the time is printed), and each
buffer, written as ``.bin``, is decoded with every output format in fresh
processes of that built package (``python -m iron trace decode``, with Python's
bytecode cache on as after an install, whatever ``PYTHONDONTWRITEBYTECODE`` says
here), each after a ``sync``: to ``/dev/null``, a ``cold`` run with no compiled
kernels at all (``NUMBA_CACHE_DIR`` set to a new folder: what a package whose
shipped kernels do not fit this machine, or a source checkout, costs once), a
``first`` run after the install (an empty user cache: the shipped kernels are
copied and loaded) and a ``warm`` run, whose time the first and cold runs' are
divided by; then a warm run writing the output file (``file``: the difference
is the disk). Prints wall time, MiB/s, peak RSS
(of that process alone) and its ratio to the buffer, output bytes and, for the
native Perfetto trace, bytes per interval; then per format the warm speed per MiB
and per interval against mlir-aie's parser: issue 16 measured it at 100 s for
16 MiB of the tiled input (6.25 s per MiB, 16.8 us per interval).

    python benchmarks/bench_decode.py [--inputs tiled synthetic] [--mib 1 16 64]
                                      [--formats ...] [--dir DIR]
                                      [--mlir-aie-parse PATH/TO/parse.py]
    python benchmarks/bench_decode.py --slope [--inputs tiled] [--mib 64 128]

``--slope``: warm runs only (to ``/dev/null``) at the two sizes, and per format
the growth of the peak RSS between them per raw byte (issue 16's memory goal is
"at most 2x the raw buffer plus a constant").

With ``--mlir-aie-parse`` mlir-aie's parser runs on the same words (as
``trace.txt``) in the same run (``python parse.py --input --mlir --output``,
which needs mlir-aie's Python package) and the measured ratios are printed too.
Goals (issue 16; 2-core machine): see README "Measured".
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

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
#: mlir-aie's parser on the tiled input, as issue 16 measured it on this machine (100 s at 16 MiB).
MLIR_AIE_S_PER_MIB = 100.0 / 16
MLIR_AIE_S_PER_INTERVAL = 100.0 / (16 * 372_737)
SUFFIX = {"summary": "txt", "perfetto": "json", "pftrace": "pftrace", "mlir-aie": "json"}


def run(cmd: list[str], env: dict | None = None, cwd: Path = ROOT) -> tuple[float, int, int]:
    """(wall s, peak RSS bytes of that process alone, exit status) of a fresh process.

    GNU time measures the RSS: a child forked from this (big) process would count
    this process's pages until it execs."""
    if hasattr(os, "sync"):
        os.sync()  # the previous run's output is on disk, not written back during this one
    with tempfile.NamedTemporaryFile("r", suffix=".time") as rep:
        timer = ["/usr/bin/time", "-q", "-f", "%M", "-o", rep.name] if os.path.exists("/usr/bin/time") else []
        t = time.perf_counter()
        proc = subprocess.run(
            timer + cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        dt = time.perf_counter() - t
        lines = [x for x in open(rep.name).read().split() if x.isdigit()]
    if proc.returncode:
        print(f"  failed ({proc.returncode}): {proc.stderr.decode().strip()[-500:]}")
    return dt, int(lines[-1]) * 1024 if lines else 0, proc.returncode


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
    ap.add_argument("--inputs", nargs="+", default=["tiled", "synthetic"], choices=("tiled", "synthetic"))
    ap.add_argument("--mib", type=float, nargs="+", default=[1.0, 16.0, 64.0])
    ap.add_argument("--formats", nargs="+", default=list(FORMATS), choices=FORMATS)
    ap.add_argument("--dir", default=None, help="work folder (default: a temporary one, removed)")
    ap.add_argument("--mlir-aie-parse", default=None, metavar="PARSE_PY", help="mlir-aie's parse.py")
    ap.add_argument("--slope", action="store_true", help="memory growth per raw byte between two sizes")
    args = ap.parse_args()
    tmp = Path(args.dir or tempfile.mkdtemp(prefix="iron-bench-")).resolve()
    tmp.mkdir(parents=True, exist_ok=True)
    for kind in args.inputs:
        print(f"\n== input: {kind}")
        (bench_slope if args.slope else bench_input)(kind, args, tmp)
    if not args.dir:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


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


def bench_slope(kind: str, args, tmp: Path) -> None:
    """Peak RSS at two sizes, warm, to /dev/null; growth per raw byte between them."""
    mlir, gen = _inputs(kind, tmp)
    sizes = sorted(args.mib)[-2:]
    peak = {}
    for size in sizes:
        big = tmp / f"{kind}-{size:g}MiB.bin"
        nbytes = gen(big, size)
        for fmt in args.formats:
            cmd = [sys.executable, "-m", "iron", "trace", "decode", str(big), "--mlir", str(mlir)]
            cmd += ["--format", fmt, "-o", os.devnull]
            run(cmd, _env())  # fills the kernel cache
            dt, rss, _rc = run(cmd, _env())
            peak[fmt, size] = (nbytes, rss)
            print(f"{size:5g} MiB {fmt:10s} warm {dt:8.2f} s, peak RSS {rss / 2**20:6.0f} MiB", flush=True)
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


def bench_input(kind: str, args, tmp: Path) -> None:
    mlir, gen = _inputs(kind, tmp)
    lib = build_package(tmp)
    print("size      format     run     wall s   MiB/s  peak RSS MiB  xbuffer  output MB  B/interval")
    for size in args.mib:
        big = tmp / f"{kind}-{size:g}MiB.bin"
        nbytes = gen(big, size)
        mib = nbytes / 2**20
        intervals = count_intervals(big, mlir)
        speed = {}
        for fmt in args.formats:
            out = tmp / f"out-{size:g}.{SUFFIX[fmt]}"
            cmd = [sys.executable, "-m", "iron", "trace", "decode", str(big), "--mlir", str(mlir)]
            cmd += ["--format", fmt, "-o", str(out)]
            cold = tempfile.mkdtemp(prefix="numba-", dir=tmp)
            home = tempfile.mkdtemp(prefix="home-", dir=tmp)  # an empty user cache
            installed = _env(HOME=home, PYTHONPATH=str(lib))
            installed.pop("NUMBA_CACHE_DIR", None)
            envs = {"cold": {**installed, "NUMBA_CACHE_DIR": cold}, "first": installed}
            for label in ("cold", "first", "warm", "file"):
                dt, rss, rc = run(
                    cmd if label == "file" else cmd[:-1] + [os.devnull], envs.get(label, installed), tmp
                )
                size_out = out.stat().st_size if label == "file" and out.exists() and not rc else 0
                per = f"{size_out / intervals:10.1f}" if fmt == "pftrace" and intervals and size_out else ""
                print(
                    f"{mib:5.0f} MiB {fmt:10s} {label:6s} {dt:8.2f} {mib / dt:7.1f} {rss / 2**20:13.0f} "
                    f"{rss / nbytes:8.2f} {size_out / 1e6:10.1f}  {per}",
                    flush=True,
                )
                speed[(fmt, label)] = dt
            warm = speed[fmt, "warm"]
            print(
                f"          {fmt:9s} first run after the install / warm: {speed[fmt, 'first'] / warm:.2f}x, "
                f"cold (compiling) / warm: {speed[fmt, 'cold'] / warm:.2f}x"
            )
            shutil.rmtree(cold, ignore_errors=True)
            shutil.rmtree(home, ignore_errors=True)
            out.unlink(missing_ok=True)
        print(f"{mib:5.0f} MiB: {intervals} intervals ({intervals / mib / 1e3:.0f}k per MiB)")
        for (fmt, label), t in speed.items():
            if label in ("file", "warm") and fmt != "summary":
                per_mib = MLIR_AIE_S_PER_MIB / (t / mib)
                per_iv = MLIR_AIE_S_PER_INTERVAL / (t / intervals) if intervals else 0
                print(
                    f"          {fmt:9s} {label:4s} {t / mib:6.3f} s/MiB: {per_mib:5.1f}x mlir-aie's parser per MiB, "
                    f"{per_iv:5.1f}x per interval (issue 16's figure: 6.25 s/MiB, 16.8 us/interval)"
                )
        if args.mlir_aie_parse:
            txt = tmp / f"{kind}-{size:g}MiB.txt"
            from iron.trace.words import format_text

            txt.write_text(format_text(np.fromfile(big, "<u4")))
            out = tmp / "mlir-aie.json"
            cmd = [sys.executable, args.mlir_aie_parse, "--input", str(txt), "--mlir", str(mlir)]
            dt, rss, rc = run(cmd + ["--output", str(out)])
            print(f"{mib:5.0f} MiB mlir-aie parse.py  {dt:8.2f} s, peak RSS {rss / 2**20:.0f} MiB (rc {rc})")
            for (fmt, label), t in speed.items():
                if label == "file":
                    print(
                        f"          iron {fmt} warm (to the file) is {dt / t:.1f}x faster than mlir-aie's parser"
                    )
            txt.unlink(missing_ok=True)
            out.unlink(missing_ok=True)
        big.unlink(missing_ok=True)


if __name__ == "__main__":
    sys.exit(main())
