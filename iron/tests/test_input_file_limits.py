"""Input files of the entry points: special files (FIFOs, devices) are refused before reading,
oversized ones by their size, at exactly one byte past each documented limit.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from iron.builder.cli import main as artifact_main
from iron.errors import IronError
from iron.trace.cli import main as trace_main
from iron.trace.words import TraceInputError


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
@pytest.mark.parametrize(
    "argv",
    [
        ["trace", "decode", "/dev/zero"],
        ["trace", "decode", "{bin}", "--artifact", "/dev/zero"],
        ["trace", "decode", "{bin}", "--manifest", "/dev/zero"],
        ["trace", "decode", "{bin}", "--mlir", "/dev/zero"],
    ],
)
def test_special_files_are_refused_before_reading(tmp_path, capsys, argv):
    np.zeros(16, "<u4").tofile(tmp_path / "t.bin")
    argv = [a.format(bin=tmp_path / "t.bin") for a in argv]
    assert trace_main(argv) == 2
    assert "/dev/zero: not a regular file" in capsys.readouterr().err


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_inspect_dev_zero_is_refused(capsys):
    assert artifact_main(["inspect", "/dev/zero"]) != 0
    assert "/dev/zero: not a regular file" in capsys.readouterr().err


def test_oversized_inputs_are_refused_by_size_not_by_reading(tmp_path, monkeypatch):
    from iron import limits

    big = tmp_path / "big.bin"
    with open(big, "wb") as f:
        f.truncate(4096)  # sparse: nothing to read
    monkeypatch.setattr(limits, "MAX_TRACE_BYTES", 1024)
    with pytest.raises(TraceInputError, match="more than the largest binary trace"):
        from iron.trace.words import read_bin

        read_bin(big)


def _sparse(path, size: int):
    with open(path, "wb") as f:
        f.truncate(size)  # sparse: no disk used, nothing read
    return path


def test_check_input_accepts_the_limit_and_refuses_one_byte_more(tmp_path):
    from iron import limits

    assert limits.check_input(_sparse(tmp_path / "a", 1000), 1000, "x") == 1000
    with pytest.raises(IronError, match="1001 bytes is more than the largest x iron reads \\(1000 bytes\\)"):
        limits.check_input(_sparse(tmp_path / "b", 1001), 1000, "x")


@pytest.mark.parametrize(
    "name, documented",
    [  # docs/guide.md "Limits" table
        ("MAX_TRACE_BYTES", 16 << 30),  # .bin trace, words in a capture: 16 GiB
        ("MAX_TEXT_BYTES", 48 << 30),  # text trace: 48 GiB (12 bytes per word)
        ("MAX_MANIFEST_BYTES", 256 << 20),  # manifest JSON: 256 MiB
        ("MAX_ARTIFACT_BYTES", 1 << 30),  # artifact: 1 GiB
        ("MAX_MLIR_BYTES", 1 << 30),  # MLIR: 1 GiB
    ],
)
def test_a_file_of_the_documented_limit_plus_one_byte_is_refused(tmp_path, name, documented):
    """The limits docs/guide.md documents, at their edge: a sparse file of exactly the
    limit passes the size check, one byte more is refused (by size, never read)."""
    from iron import limits

    limit = getattr(limits, name)
    assert limits.check_input(_sparse(tmp_path / "ok", documented), limit, name) == documented
    with pytest.raises(IronError, match=f"{documented + 1} bytes is more than the largest"):
        limits.check_input(_sparse(tmp_path / "big", documented + 1), limit, name)


def test_entry_points_refuse_one_byte_past_their_documented_limit(tmp_path, monkeypatch):
    """read_bin / read_text refuse a file one byte past the limit docs/guide.md documents for them
    (sparse files: refused by size before a byte is read)."""
    from pathlib import Path

    from iron.trace.words import read_bin, read_text

    monkeypatch.setattr(Path, "read_bytes", lambda self: pytest.fail(f"{self} read past its limit"))
    with pytest.raises(TraceInputError, match="more than the largest binary trace"):
        read_bin(_sparse(tmp_path / "t.bin", (16 << 30) + 4))
    with pytest.raises(TraceInputError, match="more than the largest text trace"):
        read_text(_sparse(tmp_path / "t.txt", (48 << 30) + 1))
