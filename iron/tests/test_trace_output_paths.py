"""Where decoded outputs go: a ``.gz`` name is gzipped, plotting leaves nothing in ``$HOME``
but iron's cache, an output name ending in a separator is refused.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


def test_summary_to_a_gz_name_is_gzipped(tmp_path):
    import gzip

    from iron.trace.cli import main

    out = tmp_path / "s.txt.gz"
    args = [
        "trace",
        "decode",
        str(DATA / "mlir-aie-test1/trace.txt"),
        "--mlir",
        str(DATA / "mlir-aie-test1/aie.mlir"),
    ]
    assert main([*args, "-o", str(out)]) == 0
    assert main([*args, "-o", str(tmp_path / "s.txt")]) == 0
    assert out.read_bytes()[:2] == b"\x1f\x8b"  # gzip's magic (RFC 1952)
    assert gzip.decompress(out.read_bytes()) == (tmp_path / "s.txt").read_bytes()


def test_trace_plot_keeps_matplotlib_files_out_of_home(tmp_path):
    import subprocess
    import sys

    home = tmp_path / "home"
    home.mkdir()
    env = {
        k: v for k, v in os.environ.items() if k not in ("MPLCONFIGDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME")
    }
    env["HOME"] = str(home)
    cmd = [sys.executable, "-m", "iron", "trace", "plot", str(DATA / "mlir-aie-test1/trace.txt"),
           "--mlir", str(DATA / "mlir-aie-test1/aie.mlir"), "-o", str(tmp_path / "p.png")]  # fmt: skip
    subprocess.run(cmd, env=env, check=True, capture_output=True, timeout=120)
    made = sorted(str(p.relative_to(home)) for p in home.rglob("*") if p.is_dir())
    assert (tmp_path / "p.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert all(p == ".cache" or p.startswith(".cache/iron") for p in made), made


def test_output_name_ending_in_a_separator_is_refused(tmp_path):
    from iron.files import OutputError, atomic_write

    with pytest.raises(OutputError, match="ends with a path separator"):
        atomic_write(f"{tmp_path}/newdir/", b"x")
    assert list(tmp_path.iterdir()) == []


def test_decoded_event_outputs_are_not_forced_to_disk_but_cache_entries_are(tmp_path, monkeypatch):
    """Issue 37: an event output (made again from its input any time) is renamed into place
    without an fsync (tens of MB forced to disk cost a 1 MiB decode about 0.1-0.2 s), and is
    whole; a cache entry (``atomic_write``) is still synced before its rename."""
    import json

    from iron.files import atomic_write
    from iron.trace.cli import main

    synced = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd) or real(fd))
    src = DATA / "mlir-aie-test1"
    out = tmp_path / "t.json"
    args = ["trace", "decode", str(src / "trace.txt"), "--mlir", str(src / "aie.mlir"), "-o", str(out)]
    for fmt in ("perfetto", "mlir-aie"):
        assert main([*args, "--format", fmt]) == 0
        assert json.loads(out.read_bytes()) and not synced, fmt
    assert out.read_bytes() == (src / "expected.json").read_bytes()  # mlir-aie's own output (SOURCES.md)
    atomic_write(tmp_path / "entry", b"x")
    assert synced
