"""Integer literals and text encodings of the inputs iron reads: integers read as MLIR's lexer
reads them (``mlir/lib/AsmParser/Lexer.cpp``), huge ones as one clear error in options and
MLIR text, non-UTF-8 or NUL bytes named with their position.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from iron import limits, options
from iron.errors import OptionError
from iron.mlir.reader import MlirSyntaxError, parse, parse_file

DATA = Path(__file__).parent / "data"


PEANO = DATA / "foreign/mlir-aie__test__npu-xrt__add_one_func_link_with_peano__aie.mlir"


def _design(**edits) -> str:
    text = PEANO.read_text(encoding="utf-8").replace("NPUDEVICE", "npu1_1col")
    for old, new in edits.values():
        assert old in text
        text = text.replace(old, new)
    return text


@pytest.mark.parametrize(
    "text, value",
    [
        ("08192", 8192),  # MLIR's lexer: digits are decimal, leading zeros and all
        ("0x1F", 31),
        ("-0x10", -16),
        ("  42 ", 42),
        ("0" * 40, 0),
    ],
)
def test_parse_int_reads_as_mlir_does(text, value):
    assert limits.parse_int(text) == value


@pytest.mark.parametrize("text", ["0X10", "1_000", "0o7", "\u0661", "", "0x", "1" * 41, "9" * 5000, "1e3"])
def test_parse_int_refuses_what_mlir_does_not_read(text):
    with pytest.raises(limits.IntegerError):
        limits.parse_int(text)


@pytest.mark.parametrize(
    "env",
    [
        {"IRON_TRACE_SIZE": "9" * 5000},
        {"IRON_TRACE_SIZE": "4096", "IRON_TRACE_NTILES": "9" * 5000},
        {"IRON_TRACE_SIZE": "4096", "IRON_TRACE_SIZES": "0:" + "9" * 5000},
        {"IRON_TRACE_SIZE": "4096", "IRON_TRACE_START": "broadcast=" + "9" * 5000},
        {"IRON_TRACE_SIZE": "4096", "IRON_TRACE_OP": "9" * 5000},
        {"IRON_TRACE_SIZE": "4096", "IRON_TRACE_UNITS": "core(0," + "9" * 5000 + ")"},
    ],
)
def test_huge_integers_in_options_are_one_option_error(env):
    with pytest.raises(OptionError, match="not an integer"):
        options.resolve(env=env)


def test_huge_python_int_option_is_an_option_error():
    with pytest.raises(OptionError, match="bits"):
        options.resolve(True, size=10**5000)


def test_leading_zeros_read_as_decimal_everywhere():
    assert options.resolve(env={"IRON_TRACE_SIZE": "04096"}).size == 4096
    assert (
        options.resolve(env={"IRON_TRACE_SIZE": "4096", "IRON_TRACE_START": "broadcast=08"}).start
        == "broadcast=8"
    )
    from iron.instrument.declarative import _boundary_spec

    assert _boundary_spec({"broadcast": "08"}) == "broadcast=8"  # int("08", 0) raised here
    from iron.trace.upstream_slices import _fields

    assert _fields("offset = 08192, size = 0x20", "slice") == {"offset": 8192, "size": 32}


def test_huge_integer_in_mlir_is_a_syntax_error_with_position():
    text = _design(t=("aie.tile(0, 2)", "aie.tile(0, " + "2" * 5000 + ")"))
    with pytest.raises(MlirSyntaxError, match=r"x\.mlir:21:\d+: an integer of 5000 digits"):
        parse(text, "x.mlir")


def test_trace_slice_field_with_huge_integer_is_an_iron_error():
    from iron.trace.upstream_slices import TraceMetaError, _fields

    with pytest.raises(TraceMetaError):
        _fields("offset = " + "1" * 5000, "slice")


def test_non_utf8_mlir_names_the_file_and_byte_offset(tmp_path):
    path = tmp_path / "bad.mlir"
    data = _design().encode()
    at = data.index(b"aie.tile(0, 2)")
    path.write_bytes(data[:at] + b"\xff\xfe" + data[at:])
    with pytest.raises(
        MlirSyntaxError, match=rf"bad\.mlir: the MLIR file is not UTF-8 text: byte {at} \(0xff\)"
    ):
        parse_file(path)


def test_non_utf8_mlir_for_decode_is_one_error_line(tmp_path, capsys):
    from iron.trace.cli import main

    mlir, words = tmp_path / "bad.mlir", tmp_path / "w.bin"
    mlir.write_bytes(b"module {\n\x80}\n")
    words.write_bytes(b"\0" * 64)
    assert main(["trace", "decode", str(words), "--mlir", str(mlir)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "byte 9 (0x80)" in err and "bad.mlir" in err


def test_negative_memref_size_is_named_not_no_runtime_sequence():
    text = _design(a=("%in : memref<64xi32>", "%in : memref<-1xi32>"))
    with pytest.raises(MlirSyntaxError, match=r"'memref<-1xi32>' is not a memref type"):
        parse(text, "x.mlir")


def test_nul_after_module_is_named_at_its_position():
    with pytest.raises(MlirSyntaxError, match=r"x\.mlir:1:9: a NUL character"):
        parse("module {\0\n}\n", "x.mlir")
