"""Summaries straight from the bytes (compiled scan) == summaries from the frames (numpy);
compiled payload gather == numpy gather."""

from __future__ import annotations

import numpy as np
import pytest

from iron.target.events import KERNEL_END, KERNEL_START, PACKET_TYPE
from iron.trace import decode as D
from iron.trace import encode as E
from iron.target import frames as F
from iron.trace.export import summary as S
from iron.trace.engine import ENGINES, NUMBA, NUMPY
from iron.artifact.manifest import TraceUnit

pytest.importorskip("numba")


def _unit(slots=(0, 1)):
    """A core unit with the kernel start/end events at ``slots`` (None: not traced)."""
    names = [f"EV{i}" for i in range(8)]
    if slots is not None:
        names[slots[0]], names[slots[1]] = KERNEL_START, KERNEL_END
    return TraceUnit(0, 2, "core", PACKET_TYPE["core"], 1, names, list(range(8)), 122, 121)


def _summaries(data: np.ndarray, unit: TraceUnit) -> list[tuple]:
    """The summary of ``data`` by the compiled scan, by the numpy parse, and by the
    compiled scan run as plain Python over bytes (small inputs): the first two are
    returned (the plain one is checked equal to the compiled one here)."""
    out = []
    for method in ("numba", "numpy", "plain"):
        du = D.DecodedUnit(0, 0, 2, unit, packets=1, nbytes=len(data))
        S.summarize_unit(du, bytes(data) if method == "plain" else data, method)
        assert len(du.ops) == 0  # nothing per frame is kept
        out.append((du.summary, du.diagnostics, du.start_timer))
    assert out[2] == out[0]
    return out[:2]


def _random_stream(rng, n: int, trial: int) -> np.ndarray:
    """Random bytes, often biased towards Repeat, Sync, Start, filler and zero-cycle frames."""
    b = rng.integers(0, 256, size=n, dtype=np.uint8)
    if trial % 3:
        pick = rng.random(n) < 0.5
        b[pick] = rng.choice(
            [0xE3, 0xE0, 0xD8, 0xDB, 0xFF, 0xFE, 0x00, 0x10, 0x08, 0xC3, 0xF0], size=int(pick.sum())
        )
    return b


@pytest.mark.parametrize("slots", [(0, 1), (5, 2), None])
def test_compiled_summary_matches_numpy_on_random_bytes(slots):
    rng = np.random.default_rng(7)
    unit = _unit(slots)
    for trial in range(150):
        data = _random_stream(rng, int(rng.integers(0, 2500)), trial)
        fast, ref = _summaries(data, unit)
        assert fast == ref, trial


def test_compiled_summary_matches_numpy_on_encoded_kernels():
    """Realistic streams: kernel start/end pairs, held stalls (Repeat frames), both slots at once."""
    rng = np.random.default_rng(3)
    for trial in range(20):
        n = 300
        gaps = rng.integers(0, 40, n) + 1
        masks = rng.choice([1, 2, 3, 4, 0x81, 0x40], size=n)
        count = np.where(rng.random(n) < 0.3, rng.integers(2, 50, n), 1)
        step = np.where(rng.random(n) < 0.5, 1, rng.integers(2, 6, n))
        span = (count - 1) * step  # each run starts `gap` cycles after the previous run's last one
        t = np.cumsum(gaps) + np.concatenate([[0], np.cumsum(span)[:-1]])
        runs = np.stack([t, masks, count, step], axis=1)
        data = np.frombuffer(E.encode_unit(runs), np.uint8)
        fast, ref = _summaries(data, _unit((0, 1)))
        assert fast == ref, trial
        assert fast[0]["kernel"]["count"] > 0


def test_repeat_of_both_kernel_slots_counts_zero_cycle_invocations():
    # Multiple0 of slots 0+1 with 2 cycles, replayed 1023 + 5 times: every replay is
    # a separate pulse of both slots, i.e. an invocation of 0 cycles.
    data = np.array([0xC0, 0x32, 0xDB, 0xFF, 0xE5], np.uint8)
    fast, ref = _summaries(data, _unit((0, 1)))
    assert fast == ref
    assert fast[0]["kernel"] == {"count": 1029, "min": 0, "median": 0.0, "max": 0}
    assert fast[0]["cycles"]["0:INSTR_EVENT_0"] == 1029 and fast[0]["last"] == 3 + 1028 * 3


def test_kernel_stats_with_zero_durations():
    for d, zeros in (([5, 1, 9], 0), ([5, 1, 9, 4], 3), ([7], 1), ([], 2), ([3, 8], 5)):
        arr = np.array(d, np.int64)
        joined = np.concatenate([arr, np.zeros(zeros, np.int64)])
        got = S.kernel_stats(arr, zeros)
        assert got == {
            "count": len(joined),
            "min": int(joined.min()),
            "median": float(np.median(joined)),
            "max": int(joined.max()),
        }
    assert S.kernel_stats(np.zeros(0, np.int64)) == {"count": 0}


def test_compiled_payload_gather_matches_numpy():
    rng = np.random.default_rng(5)
    words = rng.integers(0, 2**32, size=800, dtype=np.uint32)
    words[rng.random(800) < 0.1] = F.IDLE_WORD
    start = np.sort(rng.choice(np.arange(0, 790, 8), size=60, replace=False)).astype(np.int64)
    nwords = rng.integers(0, F.PAYLOAD_WORDS + 1, size=60).astype(np.uint8)
    a, ia = D.unit_payload(words, start, nwords, NUMBA)
    b, ib = D.unit_payload(words, start, nwords, NUMPY)
    assert ia == ib > 0 and a.tobytes() == b.tobytes()


def test_decode_words_numba_equals_numpy():
    """Several units, segments, a bad header, idle words and a cut packet."""
    recs = [(3 * i + 1, 1 << (i % 8)) for i in range(400)]
    w = E.interleave(
        [E.packetize(0, 2, 0, 1, E.encode_unit(recs)), E.packetize(1, 3, 1, 2, E.encode_unit(recs[::3]))]
    )
    w = np.concatenate([w, np.zeros(9, np.uint32), w[:-3]])
    w[16] ^= 1 << 29  # an invalid header: its packet stays with the previous unit
    w[30] = F.IDLE_WORD
    units = [_unit(), TraceUnit(1, 3, "mem", PACKET_TYPE["mem"], 2, ["NONE"] * 8, [0] * 8, 0, 0)]
    got = {}
    for method in ("numba", "numpy"):
        ds = D.decode_words(w, units, engine=method)
        got[method] = (
            ds.status,
            ds.diagnostics,
            [(u.column, u.row, u.packets, u.nbytes, u.runs.records()) for u in ds.units],
        )
        summed = D.decode_words(w, units, engine=method, analyze=S.summarize_unit)
        got[method + " summary"] = (summed.diagnostics, [S.unit_summary(u) for u in summed.units])
    assert got["numba"] == got["numpy"]
    assert got["numba summary"] == got["numpy summary"]
    assert got["numba"][1]["segments"] == 2 and got["numba"][1]["idle_words"] == 1
    assert got["numba"][1]["truncated_packets"] == 1 and got["numba"][1]["bad_headers"] == 1
    # the summary of a decode that kept the frames is the same as the one straight from the bytes
    full = D.decode_words(w, units, engine="numpy")
    assert [S.unit_summary(u) for u in full.units] == got["numpy summary"][1]


def test_last_time_of_replayed_empty_mask_follows_the_frame_path():
    # Multiple0 with no slot and 2 cycles, replayed 3 times: its replays count for
    # "last" ... unless a Repeat after a Sync sends the numpy path the general way.
    plain = np.array([0xC0, 0x02, 0xE3], np.uint8)
    fast, ref = _summaries(plain, _unit())
    assert fast == ref and fast[0]["last"] == 3 + 3 * 3
    loose = np.array([0x10, 0xC0, 0x02, 0xE3, 0xFF, 0xE1], np.uint8)
    fast, ref = _summaries(loose, _unit())
    assert fast == ref and fast[0]["last"] == 1 + 3  # the slot-less frame itself, not its replays


def test_compiled_scan_in_tiny_chunks_is_the_numpy_parse(monkeypatch):
    """The one frame scanner hands its folded ops to an accumulator in chunks: joined,
    however small the chunks, they are the numpy parse's ops (a chunk never splits an
    op from the Repeat frames folded into it), and the summary folded chunk by chunk is
    the numpy path's (state carried across every boundary)."""
    from iron.trace.decode import scan

    rng = np.random.default_rng(11)
    unit = _unit((0, 1))
    for trial in range(80):
        data = _random_stream(rng, int(rng.integers(0, 700)), trial)
        ops, timer, diag = D.parse_stream(data, "numpy")
        for chunk in (1, 2, 3, 17):
            for method in ("numba", "plain"):  # plain: the same scan as Python over bytes, lists out
                monkeypatch.setattr(scan.compiled_scan, "__defaults__", (chunk, ENGINES[method], None))
                parts = []
                got = scan.compiled_scan(
                    bytes(data) if method == "plain" else data,
                    lambda o: parts.append([np.array(getattr(o, f)) for f in D.OPS_FIELDS]),
                )
                assert got == (diag, timer), (trial, chunk, method)
                assert all(len(p[0]) <= chunk for p in parts)
                for i, f in enumerate(D.OPS_FIELDS):
                    joined = np.concatenate([p[i] for p in parts]) if parts else getattr(D.empty_ops(), f)
                    assert np.array_equal(joined, getattr(ops, f)), (trial, chunk, f, method)
            fast, ref = _summaries(data, unit)
            assert fast == ref, (trial, chunk)


def test_unit_figures_in_tiny_chunks_are_the_whole_ones(monkeypatch):
    """unit_figures walks the folded ops CHUNK_OPS at a time: however small the chunks,
    the first and last times, cycles per slot and interval starts (in no promised order:
    their one reader sorts them) are those of one chunk (the timer and the previous event
    carried across every boundary)."""
    rng = np.random.default_rng(5)
    slots = (0, 1, 5)
    chunked = 0
    for trial in range(90):
        ops = D.parse_stream(_random_stream(rng, int(rng.integers(1, 500)), trial), "numpy")[0]
        if (ops.kind == D.OP_REPEAT).any():
            continue  # the general path (ops_to_runs): no chunks
        chunked += 1
        monkeypatch.setattr(S, "CHUNK_OPS", 1 << 18)
        whole = S.unit_figures(ops, slots)
        for chunk in (1, 2, 7):
            monkeypatch.setattr(S, "CHUNK_OPS", chunk)
            got = S.unit_figures(ops, slots)
            assert (got["first"], got["last"]) == (whole["first"], whole["last"]), (trial, chunk)
            assert np.array_equal(got["cycles"], whole["cycles"]), (trial, chunk)
            for s in slots:  # a chunk lists its frames' starts, then its replays': compare as sets
                assert np.array_equal(np.sort(got["starts"][s]), np.sort(whole["starts"][s])), (
                    trial,
                    chunk,
                    s,
                )
    assert chunked >= 20  # enough streams took the chunked path


def test_invocations_follow_mlir_aie_pairing_rule():
    """Start -> end pairs by the rule mlir-aie's get_cycles_summary applies (the
    first start after an invocation ended opens the next, the first end after it
    closes it, extra ones are ignored; at the same cycle the start comes first),
    written out event by event, on random slot begins with many ties."""
    import numpy as np

    from iron.trace.export.summary import invocations

    def rule(starts, ends):
        out, begin = [], None
        for t, typ in sorted([(t, 0) for t in starts] + [(t, 1) for t in ends]):
            if typ == 0 and begin is None:
                begin = t
            elif typ == 1 and begin is not None:
                out.append((begin, t))
                begin = None
        return out

    rng = np.random.default_rng(4)
    for _ in range(2000):
        a = np.sort(rng.integers(0, 30, rng.integers(0, 12)))
        b = np.sort(rng.integers(0, 30, rng.integers(0, 12)))
        if rng.random() < 0.3:  # out of time order (the numpy summary gathers starts per chunk)
            a, b = rng.permutation(a), rng.permutation(b)
        begin, end = invocations(a, b)
        assert list(zip(begin.tolist(), end.tolist())) == rule(a.tolist(), b.tolist()), (a, b)
        assert invocations(a.tolist(), b.tolist()) == (begin.tolist(), end.tolist())  # lists: plain


def test_the_event_writers_last_time_is_the_summarys_by_the_timing_model():
    """The last event time the event writers take without a summary (``last_event_time``,
    kept as ``DecodedUnit.last``), worked by hand from the frame rules (iron.target.frames:
    a frame of c cycles advances the timer 1 + c, each replay as much again, an Event_Sync
    0x3FFFF): an event of 2 cycles at 3; one of 0 cycles at 4 replayed 3 times (to 7); a sync
    (262150); an event of 5 cycles and no slots at 262156 replayed twice (to 262168); a
    trailing sync adds no event."""
    from iron.trace.decode.timing import ops_of

    E_, S_ = D.OP_EVENT, D.OP_SYNC
    ops = ops_of([E_, E_, S_, E_, S_], [1, 2, 0, 0, 0], [2, 0, 0, 5, 0], [0, 3, 0, 2, 0], [True] * 5)
    assert S.last_event_time(ops) == 262168 == S.unit_figures(ops)["last"]
    assert S.last_event_time(ops_of([S_], [0], [0], [0], [False])) is None
    assert S.last_event_time(ops_of(*([],) * 5)) is None


def test_an_event_decode_knows_the_last_time_its_summary_prints():
    """mlir-aie's test1 capture decoded for the event writers (numpy, ops kept, no summary
    made): each unit's last time is the one the summary, made on demand, prints."""
    from pathlib import Path

    from iron.tests.golden import TEST1
    from iron.trace.capture import decode_manifest, read_words
    from iron.trace.mlir_manifest import manifest_from_mlir

    words = read_words(TEST1 / "trace.txt")[0]
    manifest = manifest_from_mlir(Path(TEST1 / "aie.mlir").read_text(), len(words) * 4)
    decoded = decode_manifest(manifest, words, analyze=S.summarize_counting, engine="numpy")
    units = [u for ds in decoded.slices for u in ds.units]
    assert units and all(u.summary is None and isinstance(u.last, int) for u in units)
    printed = [u["last"] for s in decoded.summary_dict()["slices"] for u in s["units"]]
    assert [u.last_time() for u in units] == printed
