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


def test_short_words_in_lines_of_nine_characters_are_words_each():
    """Lines of 8 characters and a newline that hold several short words (``"12 34 56"``)
    are read word by word (mlir-aie's reader splits on whitespace: each token is one
    hex word), not as one 32-bit word per line: the fast path for ``xxxxxxxx`` lines
    must not take them."""
    from iron.trace.words import parse_text

    text = b"12 34 56\n78 9a bc\n" * 2  # 12 bytes of hex digits: 3 words if misread as packed bytes
    assert parse_text(text).tolist() == [0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC] * 2
    assert parse_text(b"0000000A\n0000000b\n").tolist() == [10, 11]
