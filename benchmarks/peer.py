"""mlir-aie's trace parser, run beside iron in the benchmarks (issue 37: no stored peer figure).

The peer is mlir-aie's ``python/utils/trace/parse.py`` (installed as ``aie.utils.trace.parse``),
run whole-process as its users run it: ``parse.py --input trace.txt --mlir aie.mlir --output
out.json``. Where it comes from, first found first:

1. ``aie.utils.trace.parse`` importable by this Python (an mlir-aie wheel): run as it is.
2. An mlir-aie source: ``--mlir-aie-src`` or ``$MLIR_AIE_SRC``, a checkout or a git directory
   (read at :data:`REV`, the last commit that changed parse.py, mlir-aie PR #3504: the parser
   whose bytes iron's ``--format mlir-aie`` matches, tests/data/xdna-emu-modes/SOURCES.md), else a
   git mirror of mlir-aie in a ``.mirror`` folder above this checkout. Its three files
   (``parse.py``, ``utils.py``, ``events/__init__.py``) are read at run time, nothing of them
   is kept in iron. What they import from mlir-aie's compiled MLIR bindings (``aie.ir``,
   ``aie.dialects``: not on PyPI) is stood in for by :data:`STANDIN_DIR`: the MLIR file's
   ``aiex.npu.write32`` ops and device read with regular expressions, the event enums made
   from iron's table of upstream's event database. All decoding and writing is upstream's
   code. The stand-in imports less than the real bindings do (a C++ MLIR library), so the
   peer's times measured so are if anything shorter than an installed mlir-aie's.

If neither is found the benchmarks say so and print no ratio.

Also here, for every benchmark that runs the peer: :func:`measure` (one fresh process's
wall time, CPU time and peak RSS) and :func:`machine`.
"""

from __future__ import annotations

import importlib.util
import os
import contextlib
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: andrej/mlir-aie (a fork carrying Xilinx/mlir-aie's main history): "trace: add core
#: EVENT_PC mode support (#3504)", 2026-08-07, the last change of python/utils/trace/parse.py.
REV = "4a9829608f60cb829fe939486cc1084a181f9331"
FILES = ("parse.py", "utils.py", "events/__init__.py")
STANDIN_DIR = Path(__file__).resolve().parent / "peer_standin"


@dataclass
class Peer:
    """How to run the peer: ``argv + ["--input", T, "--mlir", M, "--output", O]``."""

    argv: list[str]
    origin: str
    folder: Path | None = None  # a temporary tree to remove

    def command(self, text: Path, mlir: Path, out: Path) -> list[str]:
        return [*self.argv, "--input", str(text), "--mlir", str(mlir), "--output", str(out)]

    def close(self) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


def _mirrors() -> list[Path]:
    for up in ROOT.parents:
        found = sorted((up / ".mirror").glob("*mlir-aie*/repo"))
        if found:
            return found
    return []


def _read_source(src: Path, rev: str) -> dict[str, bytes] | None:
    """The three files from a checkout (``src/python/utils/trace``) or a git directory at ``rev``."""
    tree = src / "python" / "utils" / "trace"
    if tree.is_dir():
        return {f: (tree / f).read_bytes() for f in FILES}
    out = {}
    for f in FILES:
        cmd = ["git", f"--git-dir={src}", "show", f"{rev}:python/utils/trace/{f}"]
        res = subprocess.run(cmd, capture_output=True)
        if res.returncode:
            return None
        out[f] = res.stdout
    return out


def find_peer(src: str | None = None, rev: str = REV) -> Peer | None:
    """The peer (see the module docstring), or None."""
    if src is None and importlib.util.find_spec("aie") and importlib.util.find_spec("aie.utils.trace.parse"):
        return Peer([sys.executable, "-m", "aie.utils.trace.parse"], "installed aie.utils.trace.parse")
    candidates = [Path(src)] if src else [Path(p) for p in filter(None, [os.environ.get("MLIR_AIE_SRC")])]
    candidates += [] if src else _mirrors()
    for cand in candidates:
        files = _read_source(cand, rev)
        if files is None:
            continue
        folder = Path(tempfile.mkdtemp(prefix="mlir-aie-peer-"))
        shutil.copytree(STANDIN_DIR, folder, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
        trace = folder / "aie" / "utils" / "trace"
        trace.mkdir(parents=True, exist_ok=True)
        (trace / "__init__.py").write_text("")  # upstream's imports its setup helpers: not needed here
        for name, data in files.items():
            (trace / name).parent.mkdir(parents=True, exist_ok=True)
            (trace / name).write_bytes(data)
        # iron's event table for the stand-in enums: the checkout's iron package, nothing else of it
        (folder / "iron_root.txt").write_text(str(ROOT))
        origin = f"mlir-aie parse.py from {cand} @ {rev[:8]} (compiled bindings stood in for)"
        boot = f"import runpy, sys; sys.path.insert(0, {str(folder)!r}); runpy.run_module('aie.utils.trace.parse', run_name='__main__', alter_sys=True)"
        return Peer([sys.executable, "-c", boot], origin, folder)
    return None


def add_arguments(ap) -> None:
    ap.add_argument("--mlir-aie-src", default=None, metavar="DIR", help="an mlir-aie checkout or git dir")
    ap.add_argument("--no-peer", action="store_true", help="do not run mlir-aie's parser")


@dataclass
class Sample:
    wall: float  # seconds
    cpu: float  # user + system seconds of that process
    rss: int  # peak RSS bytes of that process
    rc: int


TIME = "/usr/bin/time"


def measure(cmd: list[str], env: dict | None = None, cwd: Path = ROOT) -> Sample:
    """One fresh process: its wall time, CPU time and peak RSS. GNU time measures the
    CPU and RSS where it is installed: a child forked from this (bigger) process would
    count this process's pages until it execs; else ``wait4`` does."""
    if hasattr(os, "sync"):
        os.sync()  # the previous run's output is on disk, not written back during this one
    with tempfile.NamedTemporaryFile("r", suffix=".time") as rep:
        timer = [TIME, "-q", "-f", "%M %U %S", "-o", rep.name] if os.path.exists(TIME) else []
        t = time.perf_counter()
        proc = subprocess.Popen(
            timer + cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        _, status, usage = os.wait4(proc.pid, 0)
        dt = time.perf_counter() - t
        err = proc.stderr.read().decode()
        proc.stderr.close()
        fields = rep.read().split()[-3:] if timer else []
    rc = os.waitstatus_to_exitcode(status)
    if rc:
        print(f"  failed ({rc}): {' '.join(map(str, cmd))[:200]}: {err.strip()[-500:]}")
    if len(fields) == 3:
        return Sample(dt, float(fields[1]) + float(fields[2]), int(fields[0]) * 1024, rc)
    return Sample(dt, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, rc)


def machine() -> str:
    """This machine, as the README rows name it."""
    model = ""
    with contextlib.suppress(OSError, StopIteration):
        model = next(
            ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")
        )
    return f"{os.cpu_count()} cores{', ' + model if model else ''}, Python {sys.version.split()[0]}"
