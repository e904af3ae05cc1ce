"""Behaviour snapshot: hashes of everything iron produces, to compare two revisions.

Used for refactors that must not change behaviour (issue 15): run it on the old
and the new revision and diff the JSON. It goes through public entry points only
(``iron.build``, ``Artifact.load``, the runner, ``iron trace decode``), so it runs
unchanged on both sides of a move.

    python benchmarks/snapshot.py > before.json   # old revision
    python benchmarks/snapshot.py > after.json    # new revision
    diff before.json after.json

The decode entries read captures from the project's shared folder (``../shared`` beside the
checkout; ``--shared DIR`` for a worktree elsewhere).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

SHARED = Path(__file__).resolve().parents[2] / "shared"


def _h(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _builds(out: dict, tmp: Path) -> None:
    import iron
    from iron import testing
    from iron.demo import demo_sequence
    from iron.operators import GEMM, ElementwiseAdd, ReLU, RMSNorm, Softmax

    cases = {
        "demo": demo_sequence(),
        "add": ElementwiseAdd(16, tile_size=16),
        "relu": ReLU(32, tile_size=32),  # the smallest the kernels' contracts allow (issue 22)
        "gemm": GEMM(16, 8, 16, m=16, k=8, n=16),
        "softmax": Softmax(1, 32),
        "rmsnorm": RMSNorm(1, 16),
    }
    for name, op in cases.items():
        for target in ("npu1", "npu2"):
            for traced in (False, True):
                key = f"{name}/{target}/{'traced' if traced else 'plain'}"
                kw = dict(trace_size=8192, ntiles=4) if traced else {}
                art = iron.build(op, trace=traced, target=target, cache_dir=tmp / "cache", **kw)
                out[key + "/elf"] = _h(Path(art.path).read_bytes())
                seq = op if isinstance(op, iron.Sequence) else None
                runner = art.load(device="sim")
                if seq is not None:
                    inputs = testing.example_inputs(seq)
                    res = runner(**inputs)
                else:
                    inputs = op.example_inputs(0)
                    res = runner(*inputs)
                res = res if isinstance(res, tuple) else (res,)
                out[key + "/outputs"] = _h(b"".join(np.ascontiguousarray(r).tobytes() for r in res))
                if traced:
                    trace = runner.trace
                    for suffix in ("json", "pftrace"):
                        path = tmp / f"{name}_{target}.{suffix}"
                        trace.to_perfetto(path)
                        out[f"{key}/{suffix}"] = _h(path.read_bytes())
                    out[key + "/summary"] = _h(trace.summary().encode())
                    cap = tmp / f"{name}_{target}.npz"
                    trace.save(cap)
                    for fmt in ("summary", "perfetto", "mlir-aie", "pftrace"):
                        dst = tmp / f"{name}_{target}.cli.{fmt}"
                        _cli(["trace", "decode", str(cap), "--format", fmt, "-o", str(dst)])
                        out[f"{key}/cli-{fmt}"] = _h(dst.read_bytes())


def _cli(args: list[str]) -> bytes:
    """stdout of ``iron ARGS``; a failure is part of the behaviour: its exit code and message."""
    proc = subprocess.run([sys.executable, "-m", "iron", *args], capture_output=True)
    if proc.returncode:
        return f"exit {proc.returncode}: {proc.stderr.decode()}".encode()
    return proc.stdout


def _decodes(out: dict, tmp: Path) -> None:
    g = SHARED / "golden" / "mlir-aie-test1"
    x = SHARED / "external"
    inputs = {
        "golden-test1": (g / "trace.txt", ["--mlir", str(g / "aie.mlir")]),
        "vecscalar-hw": (
            x / "xdna-emu-vecscalar-hw" / "trace_hw.bin",
            ["--mlir", str(x / "xdna-emu-vecscalar-hw" / "input_with_addresses.mlir")],
        ),
    }
    for name, (src, extra) in inputs.items():
        for fmt in ("summary", "perfetto", "mlir-aie", "pftrace"):
            dst = tmp / f"{name}.{fmt}"
            result = _cli(["trace", "decode", str(src), *extra, "--format", fmt, "-o", str(dst)])
            out[f"decode/{name}/{fmt}"] = _h(dst.read_bytes() if dst.exists() else result)
    wire_in = Path(__file__).resolve().parents[1] / "iron/tests/data/upstream"
    for mlir in sorted(wire_in.glob("*.mlir")):
        dst = tmp / (mlir.stem + ".wired.mlir")
        result = _cli(["trace", "wire", str(mlir), "-o", str(dst)])
        out[f"wire/{mlir.name}"] = _h(
            dst.read_bytes()
            if dst.exists()
            else result.replace(str(tmp).encode(), b"").replace(
                str(wire_in.parents[3]).encode(), b""
            )  # paths differ per checkout
        )


def main() -> None:
    global SHARED
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", type=Path, default=SHARED, help=f"the shared folder (default {SHARED})")
    SHARED = ap.parse_args().shared
    if not SHARED.is_dir():  # the decode entries would hash an error message instead of outputs
        ap.error(f"--shared {SHARED}: no such folder (the decode entries need its captures)")
    out: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        os.environ.pop("IRON_TRACE_SIZE", None)
        _builds(out, tmp)
        _decodes(out, tmp)
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
