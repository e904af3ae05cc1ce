"""sim executing designs: 512x512x512 GEMMs, a 32-step sequence and the demo block, untraced and traced.

    python benchmarks/bench_sim.py                       # every case, this checkout
    python benchmarks/bench_sim.py --cases gemm_512_1x1,seq32 --rounds 5 --against 93dd6cb

Prints CPU seconds per run (``time.process_time``: on a shared machine it varies far less than
the wall clock, which is printed beside it; best of ``--repeat`` runs, build excluded, cache warm, outputs checked
against the reference), the executed kernel calls, and the load average (``uptime``) before
and after. sim runs every DMA object, link, core iteration and kernel call
(:mod:`iron.runtime.sim.engine`); kernel models come from :mod:`iron.runtime.sim.kernel_models`.

``--against REV`` measures another commit side by side in the same run: ``git archive REV`` is
exported into a temporary folder, and each round runs the same workload in a fresh process of
this checkout and of that tree, alternately (the machine is shared: only interleaved runs of both
compare), then prints both, their ratio (REV / this: above 1 means this checkout is faster) and
the best over the rounds, and whether both produced the same outputs and raw trace buffer (a
hash of each).

Per case it prints the **first** run (interpreted; recorded where the tree replays,
:mod:`iron.runtime.sim.replay`) and the best of ``--repeat`` **later** runs of the same loaded
runner, named ``replay`` when they replayed the recorded run (``replay*``: compiled,
:mod:`iron.runtime.sim.compiled`; else op by op, with the compiler's reason) and ``interp`` when
they were interpreted (with the reason), and whether the last produced the outputs and raw trace of a
runner that interprets as many runs (``same``). ``warm-up s`` is the CPU of the runs between the
first and the timed ones: up to and including the first replay, which compiles the recording.
A tree without replay interprets every run.

Each measurement runs in a worker process (``--worker TREE``), which imports iron from TREE, so
the same case definitions below measure both revisions.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cases():
    """name -> maker of the operator or sequence. 512^3 on one core and on the whole array of
    npu2 (upstream's whole_array shapes: 4 and 8 columns of 4 cores, m, k, n = 64, 64, 32), in
    bf16 and i16, beside a small GEMM, a large elementwise add, the demo block and ``seq32``: 32
    steps alternating two designs (a 128^3 GEMM and an add on 2 x 2 cores), one dispatch that
    reconfigures the device at every step."""
    from iron.demo import demo_sequence
    from iron.operators import GEMM, ElementwiseAdd

    return {
        "gemm_512_1x1": lambda: GEMM(512, 512, 512),
        "gemm_512_4x4": lambda: GEMM(512, 512, 512, columns=4, cores_per_column=4),
        "gemm_512_8x4": lambda: GEMM(512, 512, 512, columns=8, cores_per_column=4),
        "gemm_512_8x4_i16": lambda: GEMM(512, 512, 512, "i16", columns=8, cores_per_column=4),
        "gemm_128_2x2": lambda: GEMM(128, 128, 128, columns=2, cores_per_column=2),
        "add_256k": lambda: ElementwiseAdd(512 * 512, tile_size=1024, columns=4, cores_per_column=2),
        "demo": demo_sequence,
        "seq32": seq32,
    }


def seq32(dim: int = 128, steps: int = 32):
    """``h = gemm(x, w); y = add(h, b)``, ``steps / 2`` times over the same buffers: two distinct
    designs, ``steps`` device configurations in one dispatch (unchained, so the reference check
    holds bitwise: every step's rounding is the first)."""
    from iron.fuse.fusion import Sequence
    from iron.operators import GEMM, ElementwiseAdd

    gemm = GEMM(M=dim, K=dim, N=dim, columns=2, cores_per_column=2, m=64, k=dim, n=32)
    add = ElementwiseAdd(size=dim * dim, columns=2, cores_per_column=2)
    chain = [(gemm, "x", "w", "h"), (add, "h", "b", "y")] * (steps // 2)
    return Sequence("seq32", chain, inputs=["x", "w", "b"], outputs=["y"])


# ---------------------------------------------------------------------------- worker side
def measure(name: str, op, cache: str, trace: bool, repeat: int) -> dict:
    """CPU seconds of the first run of ``op`` on sim (interpreted, and recorded where the tree
    replays) and the best of ``repeat`` later runs (replays once the runner replays: at most
    ``WARMUP`` runs after the first), outputs checked; the kernel calls per run; whether the
    later runs replayed and produced the first run's outputs and raw trace (a digest of each)."""
    from iron import build, testing

    kw = {"trace": True, "trace_size": 65536, "ntiles": 4} if trace else {"trace": False}
    art = build(op, target="npu2", cache_dir=cache, **kw)
    runner = art.load("sim")
    single = not hasattr(op, "steps")
    inputs = op.example_inputs(0) if single else testing.example_inputs(op)
    replayer = getattr(runner.backend, "replay", None)  # None: a tree without replay
    if replayer is not None and os.environ.get("BENCH_SIM_INTERPRET") == "1":
        replayer.enabled, replayer = False, None  # --interpret: the interpreter alone, no recorder
    first, _wall, out = _timed(runner, inputs, single)
    # the runs after the first up to its first replay, which compiles the recording
    warmup = 0.0
    for _ in range(WARMUP + 1):
        if replayer is None or replayer.replayed:
            break
        warmup += _timed(runner, inputs, single)[0]
    best = wall = float("inf")
    replayed = replayer is not None
    for _ in range(repeat):
        seconds, w, out = _timed(runner, inputs, single)
        best, wall = min(best, seconds), min(wall, w)
        replayed = replayed and replayer.replayed
    calls = len(runner.backend.device.kernel_calls) // (runner.backend.runs or 1)
    ready = None if replayer is None else replayer.ready
    compiled = ready is not None and getattr(ready, "program", None) is not None
    digest = _digest(runner, out)
    return {"case": name, "traced": trace, "first": first, "warmup": warmup, "seconds": best, "wall": wall,
            "kernel_calls": calls, "checked": _check(op, inputs, out, single), "digest": digest,
            "replayed": replayed, "same": digest == _interpreted(art, inputs, single, runner.backend.runs),
            "why": None if replayer is None else replayer.reason, "compiled": compiled,
            "compile_why": getattr(ready, "compile_why", None)}  # fmt: skip


def _interpreted(art, inputs, single: bool, runs: int) -> str:
    """The digest of the last of ``runs`` interpreted runs of a fresh runner (replay off, where
    the tree has it): what every later run must produce (a first run may trace differently)."""
    runner = art.load("sim")
    if getattr(runner.backend, "replay", None) is not None:
        runner.backend.replay.enabled = False
    for _ in range(runs):
        out = runner(*inputs) if single else runner(**inputs)
    return _digest(runner, out)


#: Runs after the first a tree with replay may interpret before it replays (its control state
#: repeats from the second run; a traced run also compares its trace with the previous one).
WARMUP = 3


def _timed(runner, inputs, single: bool):
    t0, c0 = time.perf_counter(), time.process_time()
    out = runner(*inputs) if single else runner(**inputs)
    return time.process_time() - c0, time.perf_counter() - t0, out


def _digest(runner, out) -> str:
    """What sim produced: the outputs and the raw trace buffer."""
    import numpy as np

    digest = hashlib.sha256()
    for o in out if isinstance(out, tuple) else (out,):
        digest.update(np.ascontiguousarray(o).tobytes())
    if getattr(runner, "raw_trace", None) is not None:
        digest.update(runner.raw_trace.tobytes())
    return digest.hexdigest()[:12]


def _check(op, inputs, out, single: bool) -> str:
    """A figure counts only for a run whose outputs equal the reference (iron.testing's rule)."""
    from iron import testing

    seq = testing.as_sequence(op)
    named = dict(zip(seq.inputs, inputs)) if single else inputs
    outs = out if isinstance(out, tuple) else (out,)
    ulps = testing.reference_ulps(seq)
    expected, scales = testing.reference(seq, named), testing.reference_scales(seq, named)
    for got, want, scale in zip(outs, expected, scales):
        if not testing.matches_reference(got, want, ulps, scale):
            return f"output differs from the reference: {testing.first_difference(got, want)}"
    return "ok"


def worker(tree: str, names: list[str], traced: list[bool], repeat: int, cache: str) -> None:
    """Imports iron from ``tree`` and prints one JSON line per (case, traced)."""
    sys.path.insert(0, tree)
    import iron
    from iron import build
    from iron.errors import IronError

    if not Path(iron.__file__).resolve().is_relative_to(Path(tree).resolve()):
        raise SystemExit(f"worker: iron imported from {iron.__file__}, not from {tree}")
    made = cases()
    for name in names:
        try:
            op = made[name]()
            build(op, target="npu2", cache_dir=cache, trace=False)
        except IronError as e:
            print(json.dumps({"case": name, "error": f"not buildable: {str(e)[:120]}"}), flush=True)
            continue
        for trace in traced:
            print(json.dumps(measure(name, op, cache, trace, repeat)), flush=True)


# ---------------------------------------------------------------------------- driver side
def _uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "uptime unavailable"


def _run_worker(tree: Path, args, cache: Path) -> list[dict]:
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--worker",
        str(tree),
        "--cases",
        ",".join(args.cases),
    ]
    cmd += ["--repeat", str(args.repeat), "--cache", str(cache), "--traced", args.traced]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tree)
    if proc.returncode:
        raise SystemExit(f"worker in {tree} failed:\n{proc.stderr[-3000:]}")
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def _export(rev: str, into: Path) -> Path:
    """``git archive REV`` of this repository, unpacked into ``into``."""
    tar = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True, check=True).stdout
    into.mkdir(parents=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=tar, check=True)
    return into


def _key(r: dict) -> tuple:
    return r["case"], r.get("traced")


def _fold(best: dict, results: list[dict]) -> None:
    for r in results:
        if "error" in r or r["checked"] != "ok":
            best.setdefault(_key(r), r)
        elif _key(r) not in best or r["seconds"] < best[_key(r)].get("seconds", float("inf")):
            best[_key(r)] = r


def _cell(r: dict | None) -> str:
    if r is None:
        return "-"
    if "error" in r:
        return r["error"][:40]
    return f"{r['seconds']:.4f}" + ("" if r["checked"] == "ok" else " WRONG")


def _print(this: dict, base: dict | None, rev: str | None) -> None:
    """One line per case: the first run, the later runs (``replay`` when they replayed, else
    ``interp``), and whether the last one gave an interpreting runner's outputs and trace
    after as many runs (``same``)."""
    head = f"{'case':18} {'traced':>6} {'first cpu s':>11} {'warm-up s':>9} {'later cpu s':>11} {'later':>7}"
    head += f" {'same':>5}"
    head += f" {'wall s':>7} {'calls':>6}"
    print(head + (f" {rev + ' later s':>16} {'ratio':>6}  same outputs+trace" if base is not None else ""))
    for key, r in this.items():
        later = ("replay*" if r.get("compiled") else "replay") if r.get("replayed") else "interp"
        line = f"{key[0]:18} {str(key[1]):>6} {r.get('first', 0):11.4f} {r.get('warmup', 0):9.4f}"
        line += f" {_cell(r):>11} {later:>7}"
        line += f" {str(r.get('same', '-')):>5} {r.get('wall', 0):7.3f} {r.get('kernel_calls', 0):6d}"
        if base is not None:
            b = base.get(key)
            ratio = (
                f"{b['seconds'] / r['seconds']:6.2f}" if b and "seconds" in b and "seconds" in r else "     -"
            )
            same = "-" if not b or "digest" not in b or "digest" not in r else str(b["digest"] == r["digest"])
            line += f" {_cell(b):>16} {ratio}  {same}"
        print(line)
        if "checked" in r and r["checked"] != "ok":
            print(f"   {r['checked']}")
        if r.get("why") and not r.get("replayed"):
            print(f"   interpreted: {r['why']}")
        if r.get("replayed") and r.get("compile_why"):
            print(f"   replayed op by op: {r['compile_why']}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--cases", default=None, help="comma-separated case names (default: all): " + ", ".join(CASE_NAMES)
    )
    p.add_argument(
        "--traced", choices=("both", "yes", "no"), default="both", help="untraced, traced or both runs"
    )
    p.add_argument("--repeat", type=int, default=3, help="runs per case in one process (best counts)")
    p.add_argument(
        "--rounds", type=int, default=1, help="worker processes per tree, alternating (best counts)"
    )
    p.add_argument("--against", metavar="REV", help="also measure this git revision, interleaved")
    p.add_argument(
        "--interpret",
        action="store_true",
        help="every run interpreted, no recorder (replay off): the interpreter's own cost",
    )
    p.add_argument("--worker", metavar="TREE", help=argparse.SUPPRESS)
    p.add_argument("--cache", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    args.cases = args.cases.split(",") if args.cases else list(CASE_NAMES)
    unknown = [c for c in args.cases if c not in CASE_NAMES]
    if unknown:
        p.error(f"unknown case(s) {unknown}; known: {', '.join(CASE_NAMES)}")
    traced = {"both": [False, True], "yes": [True], "no": [False]}[args.traced]
    if args.interpret:
        os.environ["BENCH_SIM_INTERPRET"] = "1"  # read by the workers (this tree's and REV's)
    if args.worker:
        worker(args.worker, args.cases, traced, args.repeat, args.cache)
        return 0
    with tempfile.TemporaryDirectory(prefix="bench-sim-") as tmp:
        trees = [("this", ROOT)]
        if args.against:
            trees.append((args.against, _export(args.against, Path(tmp) / "base")))
        best: dict[str, dict] = {label: {} for label, _ in trees}
        print(f"load before: {_uptime()}")
        for k in range(args.rounds):
            for label, tree in trees if k % 2 == 0 else trees[::-1]:
                _fold(best[label], _run_worker(tree, args, Path(tmp) / f"cache-{label}"))
        print(f"load after:  {_uptime()}")
        print(f"best of {args.rounds} round(s) x {args.repeat} run(s)")
        _print(best["this"], best.get(args.against) if args.against else None, args.against)
    return 0


CASE_NAMES = (
    "gemm_512_1x1", "gemm_512_4x4", "gemm_512_8x4", "gemm_512_8x4_i16", "gemm_128_2x2", "add_256k", "demo", "seq32",
)  # fmt: skip

if __name__ == "__main__":
    sys.exit(main())
