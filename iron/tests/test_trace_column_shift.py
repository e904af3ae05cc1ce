"""Column alignment of decoded traces: a configured unit that sent nothing does not shift
columns, ``--colshift`` on the command line, npu1 captures carry the partition's column offset
(mlir-aie test/parse-trace/test1, captured on Phoenix: header 0x00220001 is column 1, row 2).
"""

from __future__ import annotations

import json

from iron import build
from iron.tests.golden import TEST1, decode_argv
from iron.trace import decode as D
from iron.trace import mlir_manifest as mlir_config
from iron.trace.cli import main
from iron.trace.export import mlir_aie
from iron.trace.words import parse_text
from iron.tests.test_build_wiring_checks import ADD, SIZE  # noqa: F401


def _test1():
    words = parse_text((TEST1 / "trace.txt").read_bytes())
    (unit,) = mlir_config.units_from_mlir((TEST1 / "aie.mlir").read_text())
    expected = json.loads((TEST1 / "expected.json").read_text())
    return words, unit, expected


def _events(records):
    return [(r["name"], r["ph"], r["ts"]) for r in records if r["ph"] in "BE"]


def test_configured_unit_that_sent_nothing_does_not_shift_columns():
    """Units configured at columns 0 and 1 (column offset 0); only column 1 sent packets (the
    hardware capture's header says column 1). Every data unit is configured, so the shift is 0
    and the data belongs to the column-1 unit; aligning the smallest columns would shift by 1."""
    words, unit, expected = _test1()
    assert int(words[0]) == 0x00220001
    units = [unit, unit.replace(column=1)]
    ds = D.decode_words(words, units)
    assert ds.column_shift == 0 and ds.status == "ok"
    (du,) = ds.units
    assert (du.column, du.row) == (1, 2) and du.unit is units[1]
    assert _events(mlir_aie.mlir_aie_records([ds])) == _events(expected)


def test_explicit_colshift_on_the_command_line(tmp_path):
    """--colshift 1 maps the design's column 0 onto the capture's column 1: mlir-aie's golden
    output, byte for byte; --colshift 0 leaves the data unit unconfigured: no events."""
    out = tmp_path / "o.json"
    argv = decode_argv(TEST1, "mlir-aie")
    assert main(argv + ["--colshift", "1", "-o", str(out)]) == 0
    assert out.read_bytes().rstrip(b"\n") == (TEST1 / "expected.json").read_bytes().rstrip(b"\n")
    assert main(argv + ["--colshift", "0", "-o", str(out)]) == 0
    assert _events(json.loads(out.read_text())) == []


def test_npu1_captures_carry_the_partition_column_offset(tmp_path):
    """npu1 (Phoenix) partitions start at column 1: a core unit of a design placed at column 0,
    row 2, packet id 1 sends the same header word as the hardware capture, and iron's own
    manifest aligns it without any shift."""
    art = build(ADD, trace=True, trace_size=SIZE, ntiles=1, target="npu1", cache_dir=tmp_path)
    assert art.manifest.column_offset == 1
    run = art.load("sim")
    run(*ADD.example_inputs(0))
    words = run.raw_trace
    assert int(words[0]) == 0x00220001  # == the Phoenix capture's first word
    (s,) = run.trace.slices
    assert s.status == "ok" and s.column_shift == 0
    assert [(u.kind, u.column, u.row) for u in s.units] == [("core", 1, 2)]
