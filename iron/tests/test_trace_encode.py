"""Encoder: exact inverse of the decoder (hypothesis), packets, interleaving, robustness."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iron.trace import decode as D
from iron.trace import encode as E
from iron.target import frames as F
from iron.artifact.manifest import TraceUnit

GAPS = st.one_of(
    st.integers(1, 20),
    st.sampled_from([15, 16, 17, 1023, 1024, 1025, F.MAX_CYCLES, F.MAX_CYCLES + 1, F.MAX_CYCLES + 2]),
    st.integers(1, 5 * F.SYNC_CYCLES),
)
MASKS = st.one_of(st.sampled_from([1 << i for i in range(8)]), st.integers(1, 255))
RUNS = st.lists(
    st.tuples(
        GAPS, MASKS, st.one_of(st.just(1), st.integers(1, 3000)), st.one_of(st.just(1), st.integers(1, 300))
    ),
    max_size=40,
)


def _layout(spec, t0=0):
    """Gaps -> absolute runs (time, mask, count, step)."""
    runs, last = [], t0
    for gap, mask, count, step in spec:
        t = last + gap
        runs.append((t, mask, count, step))
        last = t + (count - 1) * step
    return runs


def _occurrences(runs):
    return [(t + i * s, m) for t, m, c, s in runs for i in range(c)]


def _decode_bytes(data: bytes, method="auto"):
    ops, start, diag = D.parse_stream(np.frombuffer(data, np.uint8), method)
    assert diag["unknown_frames"] == diag["truncated_frames"] == 0
    return D.ops_to_runs(ops).records(), start


@settings(max_examples=150, deadline=None)
@given(RUNS, st.booleans(), st.one_of(st.none(), st.integers(0, (1 << 56) - 1)))
def test_round_trip_frames(spec, use_repeat, start):
    runs = _layout(spec)
    data = E.encode_unit(runs, start_timer=start, use_repeat=use_repeat)
    recs, got_start = _decode_bytes(data, "numpy")
    assert recs == _occurrences(runs)
    assert got_start == start


@settings(max_examples=60, deadline=None)
@given(st.lists(RUNS, min_size=1, max_size=4))
def test_round_trip_packets_interleaved(specs):
    units = []
    arrays = []
    for i, spec in enumerate(specs):
        kind = ("core", "mem")[i % 2]
        col, row = i // 2, 2
        u = TraceUnit(col, row, kind, i % 2, i + 1, ["NONE"] * 8, [0] * 8, 0, 0)
        units.append((u, _layout(spec)))
        arrays.append(E.packetize(col, row, i % 2, i + 1, E.encode_unit(units[-1][1])))
    words = E.interleave(arrays, end_marker=True, pad_to=sum(len(a) for a in arrays) + 64)
    ds = D.decode_words(words, [u for u, _ in units])
    assert ds.status == "ok" and ds.diagnostics["bad_headers"] == 0
    for u, runs in units:
        du = ds.unit(u.kind, u.column, u.row)
        if du is None:  # a unit without events sends no packets
            assert not runs
            continue
        assert du.runs.records() == _occurrences(runs)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=600), st.integers(0, 2))
def test_random_bytes_never_raise(blob, shift):
    words = np.frombuffer(blob[: len(blob) // 4 * 4], dtype="<u4")
    if shift and len(words):
        words = np.concatenate([E.packetize(1, 2, 0, 1, b"\x11\x22"), words])
    unit = TraceUnit(0, 2, "core", 0, 1, ["NONE"] * 8, [0] * 8, 0, 0)
    ds = D.decode_words(words, [unit])
    assert ds.status in D.STATUSES
    from iron.trace.export import mlir_aie, perfetto, summary

    mlir_aie.mlir_aie_records([ds])
    perfetto.perfetto_trace([ds], 1000.0)
    summary.summary_text([ds])
    for method in ("numpy", "numba"):
        D.parse_stream(np.frombuffer(blob, np.uint8), method)


def test_packetize_exact_words():
    w = E.packetize(1, 2, 0, 1, bytes([0x70, 0xDB, 0xFF]))
    assert w.tolist() == [0x00220001, 0x70DBFFFE] + [0xFEFEFEFE] * 6
    assert E.packetize(0, 2, 1, 2, b"").tolist() == []


def test_interleave_round_robin_and_marker():
    a = E.packetize(0, 2, 0, 1, bytes(range(1, 60)))  # 3 packets
    b = E.packetize(0, 2, 1, 2, bytes([1]))  # 1 packet
    w = E.interleave([a, b], end_marker=True, pad_to=40)
    headers = w[0:32:8].tolist()
    assert headers == [a[0], b[0], a[0], a[0]]
    assert w[32:35].tolist() == [F.END_MARKER, 0, 0] and len(w) == 40


def test_shortest_frames_and_syncs():
    assert E.encode_unit([(1, 1)]) == bytes([0x00])
    assert E.encode_unit([(17, 4)]) == bytes([0x80 | (2 << 2), 16])  # Single1
    assert E.encode_unit([(1, 0x81)]) == bytes([0xC8, 0x10])  # Multiple0
    assert E.encode_unit([(1, 1, 5)]) == bytes([0x00, 0xE4])  # held 5 cycles: Single0 + Repeat0(4)
    gap = F.MAX_CYCLES + 2  # one Event_Sync, then 1 cycle left in the frame
    assert E.encode_unit([(gap, 1)]) == bytes([0xFF, 0x01])


def test_encoder_rejects_bad_records():
    with pytest.raises(E.EncodeError):
        E.encode_unit([(5, 1), (5, 2)])
    with pytest.raises(E.EncodeError):
        E.encode_unit([(0, 1)])
    with pytest.raises(E.EncodeError):
        E.encode_unit([(3, 0)])
