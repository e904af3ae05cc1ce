"""Decode outputs do not change when the decoder gets faster (issue 37).

Every format of ``iron trace decode`` on every stored capture (test_trace_plain's list:
the hardware captures that SOURCES.md name) and on mlir-aie's test1 / test2 hardware
packets tiled to the sizes where the decoder changes engine (plain Python below
``PLAIN_BYTES``, numpy, numba), hashed and compared with ``data/decode_hashes.json``:
the hashes of the outputs of commit b9ab5fa, before issue 37's work (its mlir-aie
outputs are mlir-aie's parse.py bytes, checked against upstream's expected.json in
test_trace_plain / test_upstream_trace). ``python -m iron.tests.test_decode_hashes``
rewrites the file: only for a change of output that is meant, said in the commit.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from iron.target import frames as F
from iron.tests.golden import DATA, TEST1, TEST2
from iron.tests.test_trace_plain import FORMATS, _stored_captures

HASHES = DATA / "decode_hashes.json"
#: (name, source capture, KiB, engine forced or None): the tiled inputs
TILED = [
    ("test1", TEST1, 64, None),
    ("test1", TEST1, 1024, None),
    ("test2", TEST2, 256, None),
    ("test1", TEST1, 256, "numba"),
    ("test2", TEST2, 1024, "numba"),
]


def _tiled(src: Path, kib: int, folder: Path) -> Path:
    """``src``'s hardware packets (its words before the zero padding) repeated to ``kib`` KiB."""
    from iron.trace.capture import read_words

    words = np.asarray(read_words(str(src / "trace.txt"))[0], np.uint32)
    used = words[: (np.flatnonzero(words)[-1] + 1) // F.PACKET_WORDS * F.PACKET_WORDS]
    path = folder / f"{src.name}-{kib}k.bin"
    np.resize(used, kib * 256).astype("<u4").tofile(path)
    return path


def _decode(src: Path, config: list[str], folder: Path) -> dict[str, str]:
    from iron.trace.cli import main

    out = {}
    for fmt in FORMATS:
        dst = folder / f"out.{fmt}"
        assert main(["trace", "decode", str(src), *config, "--format", fmt, "-o", str(dst)]) == 0
        out[fmt] = hashlib.sha256(dst.read_bytes()).hexdigest()
    return out


def _force(monkeypatch, engine: str | None) -> None:
    from iron.trace import engine as E

    if engine == "numba":
        pytest.importorskip("numba")
        monkeypatch.setattr(E, "COMPILED_BYTES", 0)
        monkeypatch.setattr(E, "COLD_COMPILED_BYTES", 0)


def all_hashes(monkeypatch, folder: Path) -> dict[str, dict[str, str]]:
    """Output hashes per case: stored captures by path relative to their root, tiled inputs by name."""
    got = {}
    for src, config in _stored_captures(folder).items():
        key = str(src.relative_to(DATA) if src.is_relative_to(DATA) else src)
        got[key] = _decode(src, config, folder)
    for name, src, kib, engine in TILED:
        with monkeypatch.context() as m:
            _force(m, engine)
            path = _tiled(src, kib, folder)
            got[f"{name} tiled {kib} KiB {engine or 'default'}"] = _decode(
                path, ["--mlir", str(src / "aie.mlir")], folder
            )
    return got


def test_outputs_are_those_before_issue_37(monkeypatch, tmp_path):
    want = json.loads(HASHES.read_text())
    got = all_hashes(monkeypatch, tmp_path)
    shared = {k for k in want if k.startswith("/")}  # present where /work/shared is
    assert set(got) - shared == set(want) - shared
    for key in got:
        assert got[key] == want[key], key


if __name__ == "__main__":  # regenerate (see the module docstring)
    import tempfile

    with tempfile.TemporaryDirectory() as d, pytest.MonkeyPatch.context() as mp:
        HASHES.write_text(json.dumps(all_hashes(mp, Path(d)), indent=1, sort_keys=True) + "\n")
    sys.exit(0)
