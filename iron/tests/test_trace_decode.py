"""Trace decoder: mlir-aie goldens, frame/packet format, diagnostics, numba == numpy."""

from __future__ import annotations

import json

import numpy as np
import pytest

from iron.trace import decode as D
from iron.trace import encode as E
from iron.target import frames as F
from iron.trace import mlir_manifest as mlir_config
from iron.trace.export import mlir_aie
from iron.trace.capture import decode_mlir_aie
from iron.trace.cli import main
from iron.artifact.manifest import TraceUnit
from iron.trace.words import parse_text

from iron.tests.golden import TEST1 as GOLDEN
from iron.tests.golden import TEST2


def _unit(kind="core", col=0, row=2, ids=(33, 34, 37, 75, 79, 44, 45, 26)):
    from iron.target.events import PACKET_TYPE, event_name

    return TraceUnit(
        col, row, kind, PACKET_TYPE[kind], 1, [event_name(kind, i) for i in ids], list(ids), 122, 121
    )


# --------------------------------------------------------------------------- goldens
def _api_records(folder):
    words = parse_text((folder / "trace.txt").read_bytes())
    return decode_mlir_aie(words, (folder / "aie.mlir").read_text())


def _cli_json(folder, tmp_path):
    out = tmp_path / "out.json"
    argv = ["trace", "decode", str(folder / "trace.txt"), "--mlir", str(folder / "aie.mlir")]
    assert main(argv + ["--format", "mlir-aie", "-o", str(out)]) == 0
    return out.read_bytes()


def test_golden_test1_api():
    expected = json.loads((GOLDEN / "expected.json").read_text())
    assert len(expected) == 366
    assert _api_records(GOLDEN) == expected


def test_golden_test1_cli_bytes(tmp_path):
    expected = (GOLDEN / "expected.json").read_bytes()
    assert _cli_json(GOLDEN, tmp_path).rstrip(b"\n") == expected.rstrip(b"\n")


def test_golden_test2_core_and_mem_interleaved():
    """mlir-aie test/parse-trace/test2: core + memory-module packets in one buffer.

    The full upstream golden_json.txt, record for record and in order: the core unit's
    events first, then the memory module's (pid 1), each keeping mlir-aie's ordering.
    """
    expected = json.loads((TEST2 / "expected.json").read_text())
    assert len(expected) == 396
    assert _api_records(TEST2) == expected


def test_golden_test2_cli_bytes(tmp_path):
    expected = (TEST2 / "expected.json").read_bytes()
    assert len(expected) == 32676  # upstream golden_json.txt size
    assert _cli_json(TEST2, tmp_path).rstrip(b"\n") == expected.rstrip(b"\n")


def test_mlir_config_units_and_colshift():
    units = mlir_config.units_from_mlir((TEST2 / "aie.mlir").read_text())
    assert [(u.kind, u.column, u.row, u.packet_id) for u in units] == [("core", 0, 2, 1), ("mem", 0, 2, 2)]
    assert units[0].event_ids == [26, 34, 37, 75, 79, 44, 45, 33]  # 0x4B25221A, 0x212D2C4F
    assert units[1].event_ids == [93, 21, 20, 22, 58, 41, 45, 48]
    assert (units[0].start_event, units[0].stop_event) == (122, 121)
    words = parse_text((GOLDEN / "trace.txt").read_bytes())
    recs = decode_mlir_aie(words, (GOLDEN / "aie.mlir").read_text(), colshift=1)
    assert recs[0]["args"]["name"] == "core_trace for tile2,1"
    assert len(recs) == 366
    # A wrong explicit shift: the data's unit is not configured -> metadata only.
    recs = decode_mlir_aie(words, (GOLDEN / "aie.mlir").read_text(), colshift=2)
    assert len(recs) == 9 and recs[0]["args"]["name"] == "core_trace for tile2,2"


def test_mlir_address_bits_npu2_column0():
    """Write32 without column/row attributes (tile bits in the address), npu2 at column 0."""
    mlir = """module {
  aie.device(npu2) {
    aie.runtime_sequence @seq(%a: memref<8xi32>) {
      aiex.npu.write32 {address = 2310368 : ui32, value = 555885089 : ui32}
      aiex.npu.write32 {address = 2310372 : ui32, value = 0 : ui32}
      aiex.npu.write32 {address = 2179296 : ui32, value = 21 : ui32}
    }
  }
}"""
    units = mlir_config.units_from_mlir(mlir)
    # 2310368 = 0x2340E0: column 0, row 2, core; 2179296 = 0x2140E0: memory module
    assert [(u.kind, u.column, u.row) for u in units] == [("core", 0, 2), ("mem", 0, 2)]
    assert units[0].event_ids == [0x21, 0x22, 0x22, 0x21, 0, 0, 0, 0]  # 555885089 = 0x21222221
    assert units[0].events[:2] == ["INSTR_EVENT_0", "INSTR_EVENT_1"] and units[0].events[7] == "NONE"
    core = [(5, 1), (6, 1), (9, 2), (30, 3)]
    mem = [(7, 1), (300, 1)]
    words = E.interleave(
        [E.packetize(0, 2, 0, 1, E.encode_unit(core)), E.packetize(0, 2, 1, 2, E.encode_unit(mem))],
        end_marker=True,
    )
    ds = D.decode_words(words, units)
    assert ds.column_shift == 0 and ds.status == "ok"
    assert ds.unit("core", 0, 2).runs.records() == core
    assert ds.unit("mem", 0, 2).runs.records() == mem
    recs = mlir_aie.mlir_aie_records([ds])
    names = [r["args"]["name"] for r in recs if r["name"] == "process_name"]
    assert names == ["core_trace for tile2,0", "mem_trace for tile2,0"]
    # mlir-aie timing of the core unit: B at t; E one cycle after the previous frame's
    # timer when the next frame has cycles; a zero-cycle frame of the same slot extends it.
    core_ev = [(r["ts"], r["ph"], r["tid"]) for r in recs if r.get("pid") == 0 and r["ph"] in "BE"]
    assert core_ev == [(5, "B", 0), (7, "E", 0), (9, "B", 1), (10, "E", 1), (30, "B", 0), (30, "B", 1)]


# --------------------------------------------------------------------------- format
def test_header_parity_and_fields():
    assert F.make_header(1, 2, 0, 1) == 0x00220001  # golden test1 header
    assert F.make_header(0, 2, 0, 1) == 0x80020001  # parity bit set
    assert F.make_header(1, 2, 1, 2) == 0x80221002  # golden test2 memory-module header
    hdr = np.array([0x00220001, 0x80220001, 0x00220021, 0x10220001, 0x00A20001], np.uint32)
    assert F.header_valid(hdr).tolist() == [True, False, False, False, False]


@pytest.mark.parametrize(
    "data, kind, mask, value",
    [
        ([0x5A], D.OP_EVENT, 1 << 5, 10),  # Single0 slot 5, 10 cycles
        ([0x81, 0x23], D.OP_EVENT, 1 << 0, 0x123),  # Single1
        ([0xBE, 0x12, 0x34], D.OP_EVENT, 1 << 7, 0x21234),  # Single2
        ([0xC8, 0x80], D.OP_EVENT, 0x88, 0),  # Multiple0 (golden test1)
        ([0xD2, 0x07, 0xFF], D.OP_EVENT, 0x81, 0x3FF),  # Multiple1
        ([0xD7, 0xFE, 0x12, 0x34], D.OP_EVENT, 0xFF, 0x21234),  # Multiple2
        ([0xFF], D.OP_SYNC, 0, 0),
    ],
)
def test_frame_fields(data, kind, mask, value):
    for method in ("numpy", "numba"):
        ops, _, diag = D.parse_stream(np.array(data, np.uint8), method)
        assert (ops.kind.tolist(), ops.mask.tolist(), ops.value.tolist()) == ([kind], [mask], [value])
        assert diag["frames"] == 1


def test_repeat_start_filler_skip():
    data = np.array(
        [0xF0, 0, 0, 0, 0, 0x04, 0x06, 0xFF, 0x70, 0xDB, 0xFF, 0xFE, 0xE8, 0xDC, 1, 2, 3, 0x10], np.uint8
    )
    ops, start, diag = D.parse_stream(data)
    assert start == 0x0406FF
    assert diag["start_frames"] == 1 and diag["frames"] == 7
    assert ops.kind.tolist() == [D.OP_EVENT, D.OP_EVENT]
    assert ops.reps.tolist() == [1023 + 8, 0]
    # Single0 slot 7 at 1, held for 1031 more cycles; slot 1 one cycle later
    r = D.ops_to_runs(ops)
    assert (r.time.tolist(), r.count.tolist(), r.mask.tolist()) == ([1, 2, 1033], [1, 1031, 1], [128, 128, 2])
    assert r.intervals(7)[0].tolist() == [1] and r.intervals(7)[1].tolist() == [1033]


def test_sync_adds_0x3ffff():
    ops, _, _ = D.parse_stream(np.array([0x00, 0xFF, 0xFF, 0x01], np.uint8))
    assert D.ops_to_runs(ops).records() == [(1, 1), (1 + 2 * 0x3FFFF + 2, 1)]
    # ... but not for mlir-aie's JSON timer
    ts, ph, slot = D.mlir_aie_events(ops)
    assert ts.tolist() == [1, 2, 3]


def test_frame_starts_doubling_matches_numba():
    rng = np.random.default_rng(0)
    for _ in range(30):
        b = rng.integers(0, 256, size=int(rng.integers(1, 4000)), dtype=np.uint8)
        L = F.LENGTH_OF_BYTE[b]
        assert np.array_equal(D.frame_starts(L, "numpy"), D.frame_starts(L, "numba"))


def _walk_chain(lengths) -> list[int]:
    """Frame starts by their definition: each frame starts where the previous one ends."""
    out, i = [], 0
    while i < len(lengths):
        out.append(i)
        i += int(lengths[i])
    return out


@pytest.mark.parametrize("block", [8, 16, 256])
def test_frame_starts_blockwise_follow_the_chain(block):
    """The numpy frame scan (block by block, issue 37) gives the chain of frame starts as
    its definition walks it (a frame starts where the previous one ends: mlir-aie's
    ``convert_to_commands`` reads the stream so), on random bytes and on streams whose
    chains from neighbouring offsets never meet (all 2-byte frames after a 1-byte one)."""
    from iron.trace.decode.scan import frame_starts_blocks

    rng = np.random.default_rng(3)
    streams = [np.zeros(0, np.uint8), np.array([0xF0], np.uint8), np.full(1000, 0x80, np.uint8)]
    streams.append(np.concatenate([[0x00], np.full(2000, 0x80)]).astype(np.uint8))  # odd chain only
    for _ in range(60):
        n = int(rng.integers(1, 3000))
        streams.append(rng.integers(0, 256, n).astype(np.uint8))
        streams.append(rng.choice(np.array([0x80, 0xA0, 0xF0, 0x10, 0xD4], np.uint8), n))
    for data in streams:
        for table in (F.LENGTH_OF_BYTE, F.PC_LENGTH_OF_BYTE):
            lengths = table[data]
            assert frame_starts_blocks(lengths, block).tolist() == _walk_chain(lengths)


@pytest.mark.parametrize("table", ["frame", "pc"])
def test_frame_start_mask_follows_the_chain(table):
    """The numpy frame scan's sync points (bytes no earlier frame runs past) and its walks
    between them (issue 37) give the chain of frame starts as its definition walks it; a
    stream whose stretches between sync points are longer than the walk's limit gives None
    (its caller then walks block by block)."""
    from iron.trace.decode.scan import frame_start_mask

    lengths_of = F.LENGTH_OF_BYTE if table == "frame" else F.PC_LENGTH_OF_BYTE

    rng = np.random.default_rng(4)
    streams = [np.array([0xF0], np.uint8), np.array([0x00, 0xF0, 0x80], np.uint8)]
    for _ in range(80):
        n = int(rng.integers(1, 2000))
        streams.append(rng.integers(0, 256, n).astype(np.uint8))
        streams.append(rng.choice(np.array([0x00, 0xC0, 0xF0, 0xFE, 0xD4, 0xE1, 0xD8, 0x81], np.uint8), n))
    for data in streams:
        lengths = lengths_of[data]
        mask = frame_start_mask(lengths, max_steps=10**6)
        assert np.flatnonzero(mask).tolist() == _walk_chain(lengths)
    # one 1-byte frame, then 2-byte frames whose second byte reads as a 2-byte frame: no sync point
    odd = np.array([1] + [2] * 500, np.uint8)
    assert frame_start_mask(odd, max_steps=64) is None
    assert np.flatnonzero(frame_start_mask(odd, max_steps=400)).tolist() == _walk_chain(odd)
    assert D.frame_starts(odd, "numpy").tolist() == _walk_chain(odd)  # by the blocks instead


def test_numpy_parser_folds_repeats_as_numba_does():
    """Streams without Event_Sync (every Repeat follows an event frame: the numpy scan's
    fold of Repeats into their events, issue 37) and with them (its general path)."""
    rng = np.random.default_rng(2)
    alphabet = np.array(
        [0x00, 0x15, 0x7F, 0xC1, 0x23, 0xE2, 0xEF, 0xD8, 0xD9, 0x81, 0xA3, 0xD1, 0xD6, 0xFE], np.uint8
    )
    for trial in range(80):
        b = rng.choice(alphabet, int(rng.integers(1, 3000)))
        b[0] = 0x31  # an event first: no Repeat opens the stream
        if trial % 4 == 0:
            b[rng.integers(0, len(b), 3)] = 0xFF  # Event_Syncs (a Repeat may follow one)
        o1, s1, d1 = D.parse_stream(b, "numba")
        o2, s2, d2 = D.parse_stream(b, "numpy")
        assert (s1, d1) == (s2, d2)
        for f in D.OPS_FIELDS:
            a1, a2 = getattr(o1, f), getattr(o2, f)
            assert a1.dtype == a2.dtype and np.array_equal(a1, a2), f


def test_slot_intervals_are_the_maximal_stretches_of_asserted_cycles():
    """``Runs.intervals`` of the timing model's runs (joined without gathering them when no
    pulse run asserts the slot, issue 37) and of encoder runs (any order: gathered) are the
    maximal stretches of consecutive cycles in which the slot is asserted, from every occurrence."""

    def stretches(runs, slot):
        t, m = runs.expand()
        cycles = np.unique(t[(m >> slot) & 1 == 1])
        if not len(cycles):
            return [], []
        new = np.flatnonzero(np.diff(cycles) != 1) + 1
        return cycles[np.r_[0, new]].tolist(), (cycles[np.r_[new - 1, len(cycles) - 1]] + 1).tolist()

    rng = np.random.default_rng(6)
    alphabet = np.array([0x00, 0x15, 0x7F, 0xC1, 0xC0, 0x23, 0xE2, 0xE1, 0xD8, 0x81, 0xFE, 0x40], np.uint8)
    for trial in range(60):
        b = rng.choice(alphabet, int(rng.integers(1, 400)))
        if trial % 3 == 0:
            b[rng.integers(0, len(b), 2)] = 0xFF  # Event_Syncs: Repeats after one are their own runs
        runs = D.ops_to_runs(D.parse_stream(b, "numpy")[0])
        for slot in range(F.SLOTS):
            begin, end = runs.intervals(slot)
            assert (begin.tolist(), end.tolist()) == stretches(runs, slot)
    enc = E.as_runs([(0, 1), (1, 2), (1, 1), (2, 3)])  # slot 0's runs not next to each other
    assert [x.tolist() for x in enc.intervals(0)] == [[0], [3]] == list(stretches(enc, 0))


def test_numba_and_numpy_parsers_agree_on_random_bytes():
    rng = np.random.default_rng(1)
    for trial in range(60):
        b = rng.integers(0, 256, size=int(rng.integers(0, 3000)), dtype=np.uint8)
        if trial % 2:
            b[rng.random(len(b)) < 0.4] = rng.choice([0xFE, 0xFF, 0xE3, 0xDB, 0x00])
        o1, s1, d1 = D.parse_stream(b, "numba")
        o2, s2, d2 = D.parse_stream(b, "numpy")
        assert (s1, d1) == (s2, d2)
        for f in D.OPS_FIELDS:
            assert np.array_equal(getattr(o1, f), getattr(o2, f)), f


# --------------------------------------------------------------------------- diagnostics
def _words(n_events=20, col=1):
    recs = [(3 * i + 1, 1 << (i % 8)) for i in range(n_events)]
    return E.packetize(col, 2, 0, 1, E.encode_unit(recs)), recs


def test_empty_slice():
    ds = D.decode_words(np.zeros(256, np.uint32), [_unit()])
    assert ds.status == "empty" and ds.units == [] and ds.diagnostics["used_bytes"] == 0


def test_full_slice_is_flagged():
    w, recs = _words(200, col=0)
    ds = D.decode_words(w[:64], [_unit()])  # the buffer filled up: last word non-zero
    assert ds.status == "full"
    assert ds.diagnostics["used_bytes"] == 256


def test_corrupted_header_keeps_previous_unit():
    w, recs = _words(60, col=0)
    assert len(w) >= 24
    bad = w.copy()
    bad[8] ^= 0x1000_0000  # reserved bit: header invalid, payload stays with the previous unit
    ds = D.decode_words(bad, [_unit()])
    assert ds.status == "bad_headers" and ds.diagnostics["bad_headers"] == 1
    assert ds.units[0].runs.records() == recs
    # corrupt first header: its packet has no unit and is dropped, counted
    bad = w.copy()
    bad[0] ^= 1 << 7
    ds = D.decode_words(bad, [_unit()])
    assert ds.diagnostics["orphan_packets"] == 1 and ds.diagnostics["bad_headers"] == 1


def test_segments_idle_and_end_marker():
    w, recs = _words(30, col=0)
    gap = np.zeros(8, np.uint32)
    idle = np.insert(w, 3, F.IDLE_WORD)[:-1]  # an idle word inside a packet is dropped
    ds = D.decode_words(np.concatenate([w, gap, w]), [_unit()])
    assert ds.diagnostics["segments"] == 2
    r = ds.units[0].runs.records()
    assert len(r) == 2 * len(recs)
    marker = np.concatenate([w, [F.END_MARKER, 0, 0], w[:8]])  # cut after the end marker
    ds = D.decode_words(marker, [_unit()])
    assert ds.units[0].runs.records() == recs and ds.diagnostics["end_marker_headers"] == 1
    ds = D.decode_words(idle, [_unit()])
    assert ds.diagnostics["idle_words"] == 1
    # a short leading zero run keeps the first segment starting with zero: mlir-aie skips it
    ds = D.decode_words(np.concatenate([[0, 0], w]), [_unit()])
    assert ds.diagnostics["skipped_segments"] == 1 and ds.units == []


def test_auto_column_shift_aligns_the_smallest_columns_when_the_highest_unit_is_silent():
    """mlir-aie's parser (python/utils/trace/parse.py@93d0a7cc, _get_column_start_shift)
    aligns the smallest configured column with the smallest column in the data. A
    design configured on columns 0 and 1, run from column 2, whose column-1 unit
    sent nothing: its data at column 2 is the column-0 unit's (shift 2), with the
    column-0 unit's events; the column-1 unit (column 3 after the shift) is absent."""
    w, recs = _words(20, col=2)
    col0 = _unit(col=0)
    col1 = _unit(col=1, ids=(1, 24, 26, 32, 38, 39, 40, 41))  # other events: a mix-up shows
    ds = D.decode_words(w, [col0, col1])
    assert ds.column_shift == 2
    assert ds.config_columns == [2, 3]
    (du,) = ds.units
    assert (du.column, du.row) == (2, 2) and du.unit is col0
    assert du.events == col0.events
    assert ds.diagnostics.get("unconfigured_units", 0) == 0


def test_unconfigured_unit_and_truncation():
    w, recs = _words(40, col=3)
    ds = D.decode_words(w[:-3], [_unit(col=3), _unit(col=3, row=4)])
    assert ds.column_shift == 0
    assert ds.diagnostics["truncated_packets"] == 1
    ds = D.decode_words(w, [_unit(kind="mem", col=3)])
    assert ds.diagnostics["unconfigured_units"] == 1 and ds.units[0].unit is None
    assert mlir_aie.mlir_aie_records([ds])[0]["args"]["name"] == "mem_trace for tile2,3"
