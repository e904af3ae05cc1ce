"""Text traces in the encodings mlir-aie's parser reads (BOM, UTF-16), and text that is not hex
as one clear error.
"""

from __future__ import annotations

import json

import pytest

from iron.tests.golden import TEST1
from iron.trace.cli import main as trace_main


def golden_text_variants():
    text = (TEST1 / "trace.txt").read_text()
    # each padded so that the file size is a multiple of 4: the old reader took them for binary words
    return {
        "utf-8-bom": b"\xef\xbb\xbf" + text.encode() + b"\n",
        "utf-16": text.encode("utf-16") + "\n".encode("utf-16-le"),
        "utf-16-be-bom": b"\xfe\xff" + (text + "\n").encode("utf-16-be"),
        "utf-16-le-no-bom": text.encode("utf-16-le"),
        "crlf": text.replace("\n", "\r\n").encode(),
    }


@pytest.mark.parametrize("variant", sorted(golden_text_variants()))
def test_text_traces_with_bom_or_utf16_decode_like_mlir_aie(tmp_path, variant):
    data = golden_text_variants()[variant]
    assert len(data) % 4 == 0
    path = tmp_path / "trace.txt"
    path.write_bytes(data)
    out = tmp_path / "out.json"
    argv = ["trace", "decode", str(path), "--mlir", str(TEST1 / "aie.mlir"), "--format", "mlir-aie"]
    assert trace_main(argv + ["-o", str(out)]) == 0
    assert json.loads(out.read_text()) == json.loads((TEST1 / "expected.json").read_text())  # mlir-aie's


def test_text_that_is_not_hex_is_one_clear_error(tmp_path, capsys):
    path = tmp_path / "trace.txt"
    path.write_bytes("zzzzzzzz\n".encode("utf-16"))
    assert trace_main(["trace", "decode", str(path), "--mlir", str(TEST1 / "aie.mlir")]) == 2
    assert "not hexadecimal" in capsys.readouterr().err
