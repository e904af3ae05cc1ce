"""Saved capture files (``.npz``): a flipped byte or a truncated file is reported as damaged."""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest

from iron.artifact.manifest import Manifest
from iron.trace.capture import Capture, load_capture
from iron.trace.cli import main as trace_main
from iron.trace.words import TraceInputError
from iron.tests.test_manifest_checks import manifest_dict  # noqa: F401


def saved_capture(tmp_path):
    m = Manifest.from_dict(manifest_dict())
    words = np.arange(1024, dtype=np.uint32)
    path = tmp_path / "c.npz"
    Capture(m, words).save(path)
    return path


def test_capture_with_one_flipped_byte_is_reported_as_damaged(tmp_path):
    path = saved_capture(tmp_path)
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as zf:
        info = zf.getinfo("words.npy")
    # flip a byte in the middle of the compressed words (local header: 30 bytes + name + extra)
    name_len, extra_len = int.from_bytes(data[info.header_offset + 26 : info.header_offset + 28], "little"), (
        int.from_bytes(data[info.header_offset + 28 : info.header_offset + 30], "little")
    )
    at = info.header_offset + 30 + name_len + extra_len + info.compress_size // 2
    data[at] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(TraceInputError, match="damaged capture file") as info:
        load_capture(path)
    assert str(path) in str(info.value)
    assert trace_main(["trace", "decode", str(path)]) == 2


def test_truncated_capture_is_reported(tmp_path):
    path = saved_capture(tmp_path)
    path.write_bytes(path.read_bytes()[:-200])
    with pytest.raises(TraceInputError, match=str(path)):
        load_capture(path)
