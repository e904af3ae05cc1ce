"""Decoder outputs at scale: streamed JSON, the native Perfetto trace, import laziness."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "; import sys; print(' '.join(sorted(sys.modules)))"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    return set(out.stdout.split())


BUILD_SIDE = {
    "iron.fuse",
    "iron.design",
    "iron.operators",
    "iron.lower",
    "iron.artifact.build",
    "iron.runtime",
}


def test_decoding_imports_nothing_from_the_build_side():
    mods = _modules_after("import iron.trace.decode, iron.trace.capture, iron.trace.cli, iron.trace.perfetto")
    assert not mods & BUILD_SIDE, mods & BUILD_SIDE
    assert "numba" not in mods  # loaded only when a big input needs the compiled scans


def test_cli_decode_imports_nothing_from_the_build_side(tmp_path):
    g = ROOT / "iron" / "tests" / "data" / "mlir-aie-test1"
    argv = ["trace", "decode", str(g / "trace.txt"), "--mlir", str(g / "aie.mlir"), "-o", str(tmp_path / "o")]
    for fmt in ("summary", "mlir-aie", "perfetto"):
        mods = _modules_after(f"from iron.cli import main; main({argv + ['--format', fmt]!r})")
        assert not mods & BUILD_SIDE, (fmt, mods & BUILD_SIDE)


def test_package_root_names_still_resolve():
    mods = _modules_after(
        "import iron; iron.Sequence, iron.TraceOptions, iron.build; from iron import Sequence"
    )
    assert "iron.fuse" in mods and "iron.options" in mods
