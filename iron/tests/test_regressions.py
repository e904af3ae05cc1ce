"""Tests for behaviour that slipped through before (issue 13, item 4).

Expected values are independent of the code under test: a hardware capture
(mlir-aie test/parse-trace/test1, captured on Phoenix: its first header word
0x00220001 says column 1, row 2, core, packet id 1 for a design placed at column 0),
upstream event ids (events_database.json: memtile BROADCAST_15 = 157, BROADCAST_14 = 156,
BROADCAST_0 = 142, DMA_S2MM_SEL0_FINISHED_BD = 25) and hand-written numbers.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from iron import Sequence
from iron.builder import build as build_mod
from iron.builder import cache
from iron import build
from iron.lower.verify import WiringError
from iron.mlir import ir
from iron.operators import ElementwiseAdd
from iron.trace import decode as D
from iron.trace import mlir_manifest as mlir_config
from iron.trace.export import mlir_aie
from iron.trace.cli import main
from iron.trace.words import parse_text

from iron.tests.golden import TEST1

ADD = ElementwiseAdd(4096, "i32", columns=1, cores_per_column=1, tile_size=512)
TWO = Sequence("two", [(ADD, "x", "y", "a"), (ADD, "a", "y", "b")], ["x", "y"], ["b"])
SIZE = 4096
DRAIN_WORD1 = 0x1D000 + 0x20 * 15 + 4  # shim BD 15 word 1 (docs/design.md 4)


# --------------------------------------------------------------------------- build refuses bad wiring
def _corrupt(monkeypatch, change):
    """Make the lowering hand ``build`` control code whose trace patches ``change`` edits."""
    real = build_mod.kernel_ops

    def broken(fm, kernel, translate_patches=True):
        ops = real(fm, kernel, translate_patches=translate_patches)
        where = [
            i
            for i, op in enumerate(ops)
            if isinstance(op, ir.AddressPatch) and op.addr & 0xFFFFF == DRAIN_WORD1
        ]
        return change(list(ops), where) if where else ops  # the iron_reset kernel has no patch

    monkeypatch.setattr(build_mod, "kernel_ops", broken)


def _offset(ops, where):
    ops[where[1]] = dataclasses.replace(ops[where[1]], arg_plus=0)  # call 1 drains into slice 0
    return ops


def _missing(ops, where):
    del ops[where[1]]
    return ops


def _index(ops, where):
    ops[where[0]] = dataclasses.replace(ops[where[0]], arg_idx=0)  # into input x
    return ops


@pytest.mark.parametrize(
    "change, says",
    [
        (
            _offset,
            r"call site 1 \(ElementwiseAdd\) patches host buffer 4 \+ 0 but its slice is buffer 4 \+ 4096",
        ),
        (_missing, r"1 trace address patches, expected 2"),
        (_index, r"call site 0 \(ElementwiseAdd\) patches host buffer 0 \+ 0 but its slice is buffer 4 \+ 0"),
    ],
    ids=["wrong-slice-offset", "missing-patch", "wrong-index"],
)
def test_build_refuses_bad_wiring(tmp_path, monkeypatch, change, says):
    _corrupt(monkeypatch, change)
    with pytest.raises(WiringError, match=says):
        build(TWO, trace=True, trace_size=SIZE, ntiles=1, target="npu2", cache_dir=tmp_path)
    assert not list(tmp_path.glob("*.elf"))  # nothing half-written


def test_build_refuses_a_separate_kernel_patching_beyond_its_slice(tmp_path, monkeypatch):
    def shifted(ops, where):
        ops[where[0]] = dataclasses.replace(ops[where[0]], arg_plus=64)
        return ops

    _corrupt(monkeypatch, shifted)
    with pytest.raises(WiringError, match=r"patches host buffer 3 \+ 64 but its slice is buffer 3 \+ 0"):
        build(TWO, trace=True, trace_size=SIZE, ntiles=1, target="npu1", cache_dir=tmp_path)


# --------------------------------------------------------------------------- column alignment
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
    units = [unit, dataclasses.replace(unit, column=1)]
    ds = D.decode_words(words, units)
    assert ds.column_shift == 0 and ds.status == "ok"
    (du,) = ds.units
    assert (du.column, du.row) == (1, 2) and du.unit is units[1]
    assert _events(mlir_aie.mlir_aie_records([ds])) == _events(expected)


def test_explicit_colshift_on_the_command_line(tmp_path):
    """--colshift 1 maps the design's column 0 onto the capture's column 1: mlir-aie's golden
    output, byte for byte; --colshift 0 leaves the data unit unconfigured: no events."""
    out = tmp_path / "o.json"
    argv = [
        "trace",
        "decode",
        str(TEST1 / "trace.txt"),
        "--mlir",
        str(TEST1 / "aie.mlir"),
        "--format",
        "mlir-aie",
    ]
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


# --------------------------------------------------------------------------- memtile from MLIR
MEMTILE_MLIR = """module {
  aie.device(npu1_1col) {
    %t01 = aie.tile(0, 1)
    aie.runtime_sequence @seq(%a: memref<8xi32>) {
      aiex.npu.write32 {address = 1654992 : ui32, value = 2627534848 : ui32}
      aiex.npu.write32 {address = 1654996 : ui32, value = 12291 : ui32}
      aiex.npu.write32 {address = 1655008 : ui32, value = 428773 : ui32}
      aiex.npu.write32 {address = 1655012 : ui32, value = 0 : ui32}
    }
  }
}"""
# 1654992 = 0x1940D0: column 0, row 1, memtile Trace_Control0 = 0x9C9D0000: stop 156 [31:24],
# start 157 [23:16]. 1654996 = 0x1940D4, Trace_Control1 = 0x3003: packet type 3, id 3.
# 1655008 = 0x1940E0, Trace_Event0 (slot values set by the test); 1655012, Trace_Event1 = 0.


def test_memtile_configuration_from_mlir_keeps_event_ids_above_127():
    text = MEMTILE_MLIR.replace(
        "428773", str(157 | 142 << 8 | 25 << 16)
    )  # BROADCAST_15, _0, SEL0_FINISHED_BD
    (unit,) = mlir_config.units_from_mlir(text)
    assert (unit.kind, unit.column, unit.row) == ("memtile", 0, 1)
    assert (unit.start_event, unit.stop_event) == (157, 156)
    assert (unit.packet_type, unit.packet_id) == (3, 3)
    assert unit.event_ids == [157, 142, 25, 0, 0, 0, 0, 0]
    assert unit.events[:3] == ["BROADCAST_15", "BROADCAST_0", "DMA_S2MM_SEL0_FINISHED_BD"]


# --------------------------------------------------------------------------- cache key
def test_cache_lookup_verifies_the_full_key_not_the_name(tmp_path, monkeypatch):
    first = build(ADD, trace=False, cache_dir=tmp_path)
    other = first.key[:8] + ("0" if first.key[8] != "0" else "1") + first.key[9:]
    assert other != first.key and other[:8] == first.key[:8]
    store = cache.Cache(tmp_path)
    assert store.lookup(first.path, other) is None and store.lookup(first.path, first.key) is not None
    monkeypatch.setattr(cache, "cache_key", lambda **_kw: other)  # e.g. another toolchain
    second = build(ADD, trace=False, cache_dir=tmp_path)
    assert second.path == first.path  # same file name ...
    assert second.key == other and not second.cached  # ... but rebuilt for the other key
