"""Decoder outputs at scale: streamed JSON, the native Perfetto trace, import laziness."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from iron.trace.engine import ENGINES, NUMBA, NUMPY

ROOT = Path(__file__).resolve().parents[2]


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "; import sys; print(' '.join(sorted(sys.modules)))"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    return set(out.stdout.split())


BUILD_SIDE = {
    "iron.fuse.fusion",
    "iron.design",
    "iron.operators",
    "iron.lower",
    "iron.builder.build",
    "iron.runtime",
}


def test_decoding_imports_nothing_from_the_build_side():
    mods = _modules_after(
        "import iron.trace.decode, iron.trace.capture, iron.trace.cli, iron.trace.export.perfetto"
    )
    assert not mods & BUILD_SIDE, mods & BUILD_SIDE
    assert "numba" not in mods  # loaded only when a big input needs the compiled scans


def test_cli_decode_imports_nothing_from_the_build_side(tmp_path):
    g = ROOT / "iron" / "tests" / "data" / "mlir-aie-test1"
    argv = ["trace", "decode", str(g / "trace.txt"), "--mlir", str(g / "aie.mlir"), "-o", str(tmp_path / "o")]
    for fmt in ("summary", "mlir-aie", "perfetto"):
        mods = _modules_after(f"from iron.cli import main; main({argv + ['--format', fmt]!r})")
        assert not mods & BUILD_SIDE, (fmt, mods & BUILD_SIDE)


def test_small_text_decode_loads_neither_the_ir_nor_openssl(tmp_path):
    """test1's capture with its lowered MLIR (what mlir-aie's parser reads): the trace
    registers come from iron.mlir.trace_config's scan, not the IR of the whole design,
    and nothing a small decode does not use is loaded (issue 28)."""
    g = ROOT / "iron" / "tests" / "data" / "mlir-aie-test1"
    argv = ["trace", "decode", str(g / "trace.txt"), "--mlir", str(g / "aie.mlir"), "-o", str(tmp_path / "o")]
    unused = {
        "iron.mlir.ir",
        "iron.mlir.reader",
        "iron.instrument.declarative",
        "_hashlib",
        "zipfile",
        "gzip",
    }
    for fmt in ("summary", "mlir-aie", "perfetto"):
        mods = _modules_after(f"from iron.cli import main; main({argv + ['--format', fmt]!r})")
        assert "iron.mlir.trace_config" in mods and not mods & unused, (fmt, mods & unused)


def test_package_root_names_still_resolve():
    mods = _modules_after(
        "import iron; iron.Sequence, iron.TraceOptions, iron.build; from iron import Sequence"
    )
    assert "iron.fuse.fusion" in mods and "iron.options" in mods


# --------------------------------------------------------------------------- text rows
def _rendered(n, pieces, method) -> bytes:
    """:func:`render` of ``pieces`` as bytes; "plain": arrays handed over as lists; "halves":
    compiled, every render of two rows or more in two halves on two threads (:func:`render_parts`)."""
    from iron.trace.export.textout import Choice, Fixed, Varint, render, render_parts

    if method == "plain":

        def as_list(p):
            if isinstance(p, Choice):
                return Choice(p.index.tolist(), p.strings)
            if isinstance(p, Fixed):
                return Fixed(p.value.tolist(), p.places)
            if isinstance(p, Varint):
                return Varint(p.value.tolist(), p.offset, p.factor, p.sized)
            return p if isinstance(p, bytes) else p.tolist()

        pieces = [as_list(p) for p in pieces]
    if method in ("numba", "halves"):
        pytest.importorskip("numba")
    if method == "halves":
        parts = render_parts(n, pieces, NUMBA, split=2)
        assert len(parts) == (2 if n >= 2 else 1)
        return b"".join(bytes(p) for p in parts)
    return bytes(render(n, pieces, ENGINES[method]))


@pytest.mark.parametrize("method", ["numpy", "numba", "plain", "halves"])
def test_render_matches_python_formatting(method):
    """Rows rendered from arrays (vectorized, compiled or the compiled kernel as plain
    Python) equal Python's own formatting of the same values."""
    import json
    from decimal import Decimal

    import numpy as np

    from iron.trace.export.textout import Choice, Fixed, render

    rng = np.random.default_rng(1)
    edges = [10**k + d for k in range(19) for d in (-1, 0)] + [2**63 - 1]  # every digit count
    v = np.concatenate([[0, 1, 9, 10, 99, 100, 10**6, 10**12 + 7], edges, rng.integers(0, 10**13, 500)])
    names = [b"a", b"LOCK_STALL", b""]  # strings shorter and longer than 8 bytes
    pieces = [b"{", v, b",", Fixed(v, 6), b",", Choice(v % 3, names), b",", Fixed(v, 3), b"}\n"]
    got = _rendered(len(v), pieces, method)

    def fixed(x, places=6):  # shortest decimal of x / 10**places, as Decimal prints it normalized
        return format(Decimal(int(x)).scaleb(-places).normalize(), "f")

    want = "".join(
        "{%s,%s,%s,%s}\n" % (json.dumps(x), fixed(x), names[x % 3].decode(), fixed(x, 3)) for x in v.tolist()
    )
    assert got.decode() == want
    assert _rendered(0, [b"x", v[:0]], method) == b""
    for part in (v[v < 10**9], v[(v >= 10**9) & (v < 10**10)]):  # the numpy path's 32-bit digits, and not
        assert _rendered(len(part), [part, b"\n"], method).decode() == "".join(
            f"{x}\n" for x in part.tolist()
        )


def test_render_halves_raise_the_second_threads_error(monkeypatch):
    """An error rendering the second half (on its own thread) is raised by the call, and
    no render thread is left running; the same for an error in the first half."""
    import threading
    import time

    pytest.importorskip("numba")
    from iron.trace.export import textout as T

    real = T.jit

    def failing(half):
        def jit(pyfunc):
            kernel = real(pyfunc)

            def run(*args):
                if (args[-2] > 0) == (half == "second"):  # args[-2]: the first row rendered
                    raise RuntimeError(f"{half} half")
                time.sleep(0.1)  # the other half still running when the failing one raises
                return kernel(*args)

            return run

        return jit

    v = np.arange(1000, dtype=np.int64)
    for half in ("second", "first"):
        monkeypatch.setattr(T, "jit", failing(half))
        with pytest.raises(RuntimeError, match=f"{half} half"):
            T.render_parts(len(v), [v, b"\n"], NUMBA, split=2)
        assert not [t for t in threading.enumerate() if t.name == "iron-render"]
    monkeypatch.setattr(T, "jit", real)
    assert b"".join(bytes(p) for p in T.render_parts(len(v), [v, b"\n"], NUMBA, split=2)) == b"".join(
        b"%d\n" % x for x in range(1000)
    )


@pytest.mark.parametrize("engine", ["numpy", "numba"])
@pytest.mark.parametrize("clock_mhz", [1250, 1000, 1100, 1, 2e6, 3e6])
def test_perfetto_event_times_are_the_decimal_microseconds(clock_mhz, engine):
    """The Perfetto JSON's ts/dur (written with as few decimal places as a cycle's picoseconds
    need; the compiled renderer: 6) are round(cycles * 1e6 / clock) picoseconds as
    microseconds, shortest decimal; past 2**53 picoseconds they are float64's rounding, as before."""
    from decimal import Decimal

    from iron.trace.export.perfetto import _event_times
    from iron.trace.export.textout import Fixed, render

    ps = 1e6 / clock_mhz
    begin = np.array([0, 1, 3, 7, 10, 999, 10**6 + 3, 2**40 + 5], np.int64)
    end = begin + np.array([1, 2, 5, 1, 100, 1, 10**5, 3])
    offset = 17
    for lo in (begin, begin[:1]):
        hi = end[: len(lo)]
        if engine == "numba":
            pytest.importorskip("numba")
        ts, dur, places = _event_times(lo, hi, offset, ps, ENGINES[engine])
        got = bytes(render(len(ts), [Fixed(ts, places), b" ", Fixed(dur, places), b"\n"], ENGINES[engine]))
        got = got.decode()

        def us(cycles):  # the picoseconds rounded half to even, as microseconds
            return format(Decimal(int(np.rint(cycles * ps))).scaleb(-6).normalize(), "f")

        want = "".join(f"{us(b + offset)} {us(e - b)}\n" for b, e in zip(lo.tolist(), hi.tolist()))
        assert got == want
    assert _event_times(begin, end, offset, 800.0, NUMPY)[2] == 4  # 800 ps: 4 places
    assert _event_times(begin, end, 2**52, 800.0, NUMPY)[2] == 6  # past 2**53 ps: float64's, 6 places


@pytest.mark.parametrize("method", ["numpy", "numba", "plain", "halves"])
def test_render_varints_are_the_protos_varints(method):
    """Varint rows equal the protobuf library's own encoding of the same values."""
    import numpy as np
    from google.protobuf.internal.encoder import _VarintBytes

    from iron.trace.export.textout import Varint

    v = np.array([0, 1, 127, 128, 300, 2**32 - 1, 2**35, 2**63 - 1, 2**64 - 1], np.uint64)
    got = _rendered(len(v), [b"<", Varint(v), b">"], method)
    assert got == b"".join(b"<" + _VarintBytes(int(x)) + b">" for x in v.tolist())


@pytest.mark.parametrize("method", ["numpy", "numba", "plain", "halves"])
def test_render_scaled_sized_varints(method):
    """A Varint of ``round((offset + v) * factor)`` (Python's round: halves to even)
    after the string its byte count picks, as protobuf encodes it; factors that give
    exact halves, and the identity (no rounding at all, up to 2**63 - 1)."""
    import numpy as np
    from google.protobuf.internal.encoder import _VarintBytes

    from iron.trace.export.textout import Varint

    rng = np.random.default_rng(2)
    v = np.concatenate(
        [[0, 1, 2, 3, 5, 127, 128, 2**14, 2**21 - 1], rng.integers(0, 2**40, 300)]
    ).astype(np.int64)
    sized = [b"#%d:" % k for k in range(11)]
    for offset, factor in ((0, 1.0), (7, 0.5), (3, 1.5), (1000, 1 / 1.2), (0, 1000.0)):
        got = _rendered(len(v), [b"<", Varint(v, offset, factor, sized), b">"], method)
        ts = [round((offset + x) * factor) for x in v.tolist()]
        assert got == b"".join(b"<#%d:" % len(_VarintBytes(t)) + _VarintBytes(t) + b">" for t in ts), factor
    big = np.array([2**63 - 1, 2**53 + 1], np.int64)  # unscaled: the exact integers
    assert _rendered(2, [Varint(big, sized=sized)], method) == b"".join(
        b"#%d:" % len(_VarintBytes(int(x))) + _VarintBytes(int(x)) for x in big.tolist()
    )


# --------------------------------------------------------------------------- mlir-aie JSON
def _golden_decoded(folder):
    from iron.trace.capture import decode_manifest
    from iron.trace.mlir_manifest import manifest_from_mlir
    from iron.trace.words import parse_text

    words = parse_text((folder / "trace.txt").read_bytes())
    return decode_manifest(manifest_from_mlir((folder / "aie.mlir").read_text(), len(words) * 4), words)


def test_mlir_aie_stream_in_tiny_chunks_is_the_golden(monkeypatch):
    """mlir-aie's own output for its test captures, byte for byte, however small the
    chunks the events and the text are made in (state carried across every boundary)."""
    import io

    from iron.tests.golden import TEST1, TEST2
    from iron.trace.decode import mlir_aie_timing as D
    from iron.trace.export import mlir_aie as P

    for folder in (TEST1, TEST2):
        expected = (folder / "expected.json").read_bytes().rstrip(b"\n") + b"\n"
        decoded = _golden_decoded(folder)
        for chunk_ops, rows, method in (
            (1, 1, "numpy"),
            (2, 3, "numpy"),
            (7, 5, "numba"),
            (1 << 16, 1 << 16, "numpy"),
            (1 << 16, 1 << 16, "numba"),  # the compiled renderer big traces use
        ):
            if method == "numba":
                pytest.importorskip("numba")
            monkeypatch.setattr(D, "CHUNK_OPS", chunk_ops)
            monkeypatch.setattr(D.mlir_aie_event_chunks, "__defaults__", (chunk_ops,))
            monkeypatch.setattr(P, "ROWS", rows)
            monkeypatch.setattr(P, "output_engine", lambda slices, m=method: ENGINES[m])
            buf = io.BytesIO()
            P.write_mlir_aie(decoded.slices, buf)
            assert buf.getvalue() == expected, (folder.name, chunk_ops, rows, method)


def _random_ops(rng, n):
    from iron.trace import decode as D

    kind = rng.choice([0, 0, 0, 0, 0, 1, 2], n).astype(np.uint8)
    single = (kind == 0) & (rng.random(n) < 0.5)
    one_bit = 1 << rng.integers(0, 8, n)
    mask = np.where(single | (rng.random(n) < 0.3), one_bit, rng.integers(0, 256, n))
    mask = np.where(kind == 0, mask, 0).astype(np.uint8)
    value = np.where((kind == 0) & (rng.random(n) < 0.5), rng.integers(1, 20, n), 0).astype(np.uint32)
    reps = np.where((kind != 2) & (rng.random(n) < 0.4), rng.integers(0, 6, n), 0).astype(np.uint32)
    return D.Ops(kind, mask, value, reps, single)


def test_compiled_mlir_aie_events_are_the_vectorized_ones(monkeypatch):
    """The compiled mlir-aie timing (big traces) gives the events of the
    vectorized one (checked above against mlir-aie's own output) on random ops
    (Singles, Multiples of one and several slots, cycles 0, replays, orphan
    Repeats, Event_Syncs) cut into random chunks, with output arrays so small
    that calls stop and resume mid-chunk; and both refuse the same expansions."""
    from iron.trace.decode import mlir_aie_timing as T
    from iron.trace.decode.timing import OPS_FIELDS, Ops, ops_of
    from iron.trace.words import TraceInputError

    pytest.importorskip("numba")
    rng = np.random.default_rng(11)
    monkeypatch.setattr(T, "EVENTS_PER_CALL", 7)
    for _ in range(300):
        ops = _random_ops(rng, int(rng.integers(0, 60)))
        cuts = np.unique(rng.integers(0, len(ops) + 1, int(rng.integers(0, 5))))
        bounds = [0, *cuts.tolist(), len(ops)]
        chunks = [Ops(*(getattr(ops, f)[a:b] for f in OPS_FIELDS)) for a, b in zip(bounds, bounds[1:])]
        want = T.mlir_aie_events(ops)
        parts = list(T.mlir_aie_event_stream(chunks, NUMBA))
        got = tuple(np.concatenate(c) for c in zip(*parts)) if parts else tuple(np.zeros(0) for _ in range(3))
        assert all(np.array_equal(a, b) for a, b in zip(want, got)), ops
    big = ops_of([0], [1], [3], [40], [True])  # one Single of 3 cycles, replayed 40 times
    monkeypatch.setattr(T, "MAX_MLIR_AIE_RECORDS_PER_UNIT", 77)  # 2 * 39 replays of one slot: 78
    for method in ("numpy", "numba"):
        with pytest.raises(TraceInputError, match="more mlir-aie records than the limit"):
            list(T.mlir_aie_event_stream([big], ENGINES[method]))
    monkeypatch.setattr(T, "MAX_MLIR_AIE_RECORDS_PER_UNIT", 78)
    assert [len(c[0]) for c in T.mlir_aie_event_stream([big], NUMPY)] == [81]
    assert sum(len(c[0]) for c in T.mlir_aie_event_stream([big], NUMBA)) == 81


# --------------------------------------------------------------------------- Perfetto JSON
def test_perfetto_json_gz_and_compact(tmp_path):
    """A ``.json.gz`` name gives the same trace gzipped; the JSON is compact."""
    import gzip
    import json

    from iron.tests.golden import TEST2

    decoded = _golden_decoded(TEST2)
    decoded.to_perfetto(tmp_path / "t.json")
    decoded.to_perfetto(tmp_path / "t.json.gz")
    text = (tmp_path / "t.json").read_bytes()
    assert gzip.decompress((tmp_path / "t.json.gz").read_bytes()) == text
    assert b', "' not in text and b'": ' not in text  # compact separators
    obj = json.loads(text)
    x = [e for e in obj["traceEvents"] if e["ph"] == "X"]
    # every B of mlir-aie's golden begins one interval of iron's (its E may close several)
    golden = json.loads((TEST2 / "expected.json").read_text())
    begins = sum(r["ph"] == "B" for r in golden)
    kernel = [e for e in x if e["name"] == "mlir-aie"]
    assert len(x) - len(kernel) <= begins and len(x) > 0
    assert oct((tmp_path / "t.json").stat().st_mode & 0o777) == oct(0o666 & ~_umask())


def _umask() -> int:
    import os

    m = os.umask(0)
    os.umask(m)
    return m


# --------------------------------------------------------------------------- native Perfetto trace
def _read_pftrace(data: bytes):
    """Parse with the perfetto package's protos: per event name, begin and end times."""
    import collections

    from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

    trace = pb.Trace.FromString(data)
    names, begins, ends, tracks = {}, collections.defaultdict(list), collections.defaultdict(list), []
    for p in trace.packet:
        if p.HasField("track_descriptor") and p.track_descriptor.HasField("process"):
            tracks.append(p.track_descriptor.process.process_name)
        elif p.HasField("track_descriptor"):
            names[p.trusted_packet_sequence_id] = p.interned_data.event_names[0].name
            tracks.append(p.track_descriptor.name)
        elif p.HasField("track_event"):
            name = names[p.trusted_packet_sequence_id]
            if p.track_event.type == pb.TrackEvent.TYPE_SLICE_BEGIN:
                assert p.track_event.name_iid == 1
                begins[name].append(p.timestamp)
            else:
                assert p.track_event.type == pb.TrackEvent.TYPE_SLICE_END
                ends[name].append(p.timestamp)
    return trace, tracks, begins, ends


def test_pftrace_parses_back_to_the_golden_events(tmp_path):
    """The native trace, read with Perfetto's own protos, holds one slice per
    B record of mlir-aie's golden output for its test1 capture, at its time
    (1000 MHz: ns = cycles), named after its slot's event; the bulk packets
    made from arrays are the bytes the protos themselves would write."""
    import collections
    import json

    from iron.tests.golden import TEST1

    decoded = _golden_decoded(TEST1)
    path = tmp_path / "t.pftrace"
    decoded.to_perfetto(path)
    data = path.read_bytes()
    trace, tracks, begins, ends = _read_pftrace(data)
    assert trace.SerializeToString() == data
    golden = json.loads((TEST1 / "expected.json").read_text())
    tid = {r["tid"]: r["args"]["name"] for r in golden if r["name"] == "thread_name"}
    want = collections.defaultdict(list)
    for r in golden:
        if r.get("ph") == "B":
            want[tid[r["tid"]]].append(r["ts"])
    assert sum(map(len, want.values())) == 179
    for name, ts in want.items():
        assert begins[name] == sorted(ts), name
        assert len(ends[name]) == len(ts)
    assert tracks[0] == "0: mlir-aie #0" and tracks[1] == "core(0,2) kernel"
    assert len(begins["mlir-aie"]) == 4  # one per INSTR_EVENT_0 -> INSTR_EVENT_1 invocation


def test_pftrace_child_tracks_keep_their_order_by_increasing_sibling_rank(tmp_path):
    """A slice's process track asks for EXPLICIT child ordering, under which Perfetto sorts
    the child tracks by ``sibling_order_rank`` (perfetto protos/perfetto/trace/track_event/
    track_descriptor.proto, ``ChildTracksOrdering``): ranks strictly increasing in the order
    iron writes the tracks keep the kernel track first and the slots in slot order."""
    from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

    from iron.tests.golden import TEST1

    path = tmp_path / "t.pftrace"
    _golden_decoded(TEST1).to_perfetto(path)
    trace = pb.Trace.FromString(path.read_bytes())
    tracks = [p.track_descriptor for p in trace.packet if p.HasField("track_descriptor")]
    (process,) = [t for t in tracks if t.HasField("process")]
    assert process.child_ordering == pb.TrackDescriptor.ChildTracksOrdering.EXPLICIT
    children = [t for t in tracks if t.parent_uuid == process.uuid]
    assert len(children) > 2 and children[0].name == "core(0,2) kernel"
    ranks = [t.sibling_order_rank for t in children]
    assert all(a < b for a, b in zip(ranks, ranks[1:])), ranks


def test_pftrace_field_table_is_perfettos():
    """iron encodes the descriptor packets itself (no protobuf import): every field
    number, wire type and enum value it uses is the one of the ``perfetto`` package's
    protos (the external reference)."""
    from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

    from iron.trace.export import pftrace as T

    for message, fields in T.PROTO.items():
        desc = getattr(pb, message).DESCRIPTOR
        for name, (number, kind) in fields.items():
            fd = desc.fields_by_name[name]
            assert fd.number == number, (message, name)
            if kind == "varint":
                assert fd.type in (fd.TYPE_UINT64, fd.TYPE_UINT32, fd.TYPE_INT32, fd.TYPE_ENUM), (
                    message,
                    name,
                )
            elif kind == "string":
                assert fd.type == fd.TYPE_STRING, (message, name)
            else:
                assert fd.message_type.name == kind, (message, name)
    assert (T.TYPE_SLICE_BEGIN, T.TYPE_SLICE_END) == (
        pb.TrackEvent.TYPE_SLICE_BEGIN,
        pb.TrackEvent.TYPE_SLICE_END,
    )
    assert T.SEQ_INCREMENTAL_STATE_CLEARED == pb.TracePacket.SEQ_INCREMENTAL_STATE_CLEARED
    assert T.EXPLICIT == pb.TrackDescriptor.EXPLICIT


def test_pftrace_packets_are_the_bytes_protobuf_writes(monkeypatch):
    """Every packet of the native traces of the golden captures (one and two slices, the
    bound's note, the metadata) is what the ``perfetto`` package's protos serialize for
    the same fields: the writer with each descriptor packet built and serialized by
    protobuf writes the same file."""
    import io

    from google.protobuf import json_format
    from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

    from iron.tests.golden import TEST1, TEST2
    from iron.trace.export import bound
    from iron.trace.export import pftrace as T

    def by_protobuf(f, packet: dict) -> None:
        trace = pb.Trace()
        trace.packet.append(json_format.ParseDict(packet, pb.TracePacket()))
        f.write(trace.SerializeToString())

    for decoded in (_golden_decoded(TEST1), _golden_decoded(TEST2), _two_slices_of_two_cores()):
        for limit in (None, 100):  # 100: the bound's note too
            out = []
            for writer in (T._write_packet, by_protobuf):
                monkeypatch.setattr(T, "_write_packet", writer)
                if limit:
                    monkeypatch.setattr(bound, "default_interval_limit", lambda slices: limit)
                buf = io.BytesIO()
                decoded.write(buf, "pftrace")
                out.append(buf.getvalue())
                monkeypatch.undo()
            assert out[0] == out[1]
            assert pb.Trace.FromString(out[0]).SerializeToString() == out[0]
            assert len(out[0]) > 1000


@pytest.mark.parametrize("ns_per_cycle", [1.0, 0.8, 1000 / 1.5])
@pytest.mark.parametrize("order", ["sorted", "shuffled"])
def test_pftrace_event_rows_by_numpy_are_the_bytes_protobuf_writes(ns_per_cycle, order):
    """The event packets the numpy engine lays out (rows of one width per byte count
    of their timestamps; out of order: the general renderer) are what the ``perfetto``
    package's protos serialize for the same packets, with timestamps rounded halves to
    even (Python's ``round``) from cycles of every varint size, 1 to 10 bytes."""
    rng = np.random.default_rng(7)
    cycles = np.unique(np.concatenate([[1 << (7 * k) for k in range(9)], rng.integers(0, 1 << 40, 500)]))
    top = (1 << 62) // int(np.ceil(ns_per_cycle))  # past 2**53: where 1 ns a cycle takes floats too
    cycles = np.concatenate([cycles, [(1 << 53) - 7, 1 << 53]])
    cycles = np.unique(np.concatenate([[0, 1], cycles[cycles < top], [top + 3]])).astype(np.int64)
    for exact in (True, False):  # float64 holds every time exactly (below 2**53), or not
        _check_event_rows(cycles[cycles < 1 << 53] if exact else cycles, ns_per_cycle, order, rng)


def _check_event_rows(cycles, ns_per_cycle: float, order: str, rng) -> None:
    from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

    from iron.trace.engine import NUMPY
    from iron.trace.export import pftrace as T

    begin, end = cycles[:-1], cycles[1:]
    if order == "shuffled":
        perm = rng.permutation(len(begin))
        begin, end = begin[perm], end[perm]
    offset, seq = 5, 3
    got = T._EventBytes(seq).rows(begin, end, offset, ns_per_cycle, NUMPY)
    trace = pb.Trace()
    for b, e in zip(begin.tolist(), end.tolist()):
        for cycle, kind in ((b, pb.TrackEvent.TYPE_SLICE_BEGIN), (e, pb.TrackEvent.TYPE_SLICE_END)):
            p = trace.packet.add(
                timestamp=round((offset + cycle) * ns_per_cycle), trusted_packet_sequence_id=seq
            )
            p.track_event.type = kind
            if kind == pb.TrackEvent.TYPE_SLICE_BEGIN:
                p.track_event.name_iid = T.NAME_IID
    assert b"".join(bytes(p) for p in got) == trace.SerializeToString()


def test_pftrace_is_written_without_protobuf(tmp_path):
    """Writing the native trace imports no protobuf module (about 0.2 s and 8 MiB)."""
    from iron.tests.golden import TEST1

    code = f"""
import sys
from iron.cli import main
args = ["trace", "decode", {str(TEST1 / "trace.txt")!r}, "--mlir", {str(TEST1 / "aie.mlir")!r}]
assert main(args + ["--format", "pftrace", "-o", "t.pftrace"]) == 0
print([m for m in sys.modules if m.startswith(("google", "perfetto"))])
"""
    root = Path(__file__).resolve().parents[2]
    res = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env={"PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
    )
    assert res.returncode == 0 and res.stdout.split() == ["[]"], (res.stdout, res.stderr)
    assert (tmp_path / "t.pftrace").stat().st_size > 1000


def test_compiled_renderer_writes_the_same_files(monkeypatch):
    """Perfetto JSON and the native trace of the golden captures: the compiled
    renderer (big traces) writes the bytes of the vectorized one (checked above
    against mlir-aie's goldens, Python's formatting and the protos)."""
    import io

    from iron.tests.golden import TEST1, TEST2
    from iron.trace.export import perfetto as P
    from iron.trace.export import pftrace as T

    pytest.importorskip("numba")
    for folder in (TEST1, TEST2):
        decoded = _golden_decoded(folder)
        out = {}
        for method in ("numpy", "numba"):
            monkeypatch.setattr(P, "output_engine", lambda slices, m=method: ENGINES[m])
            monkeypatch.setattr(T, "output_engine", lambda slices, m=method: ENGINES[m])
            for fmt in ("perfetto", "pftrace"):
                buf = io.BytesIO()
                decoded.write(buf, fmt)
                out[method, fmt] = buf.getvalue()
        for fmt in ("perfetto", "pftrace"):
            assert out["numba", fmt] == out["numpy", fmt], (folder.name, fmt)
            assert len(out["numpy", fmt]) > 1000


def test_compiled_slot_intervals_are_the_runs_intervals():
    """One compiled pass over the ops gives each slot's intervals exactly as the
    vectorized timing model and merge do (random ops: replays on consecutive and
    spaced cycles, orphan Repeats, Event_Syncs, empty masks), and on the golden captures."""
    import numpy as np

    from iron.tests.golden import TEST1, TEST2
    from iron.trace import decode as D

    pytest.importorskip("numba")
    rng = np.random.default_rng(5)
    cases = []
    for _ in range(200):
        n = int(rng.integers(0, 50))
        kind = rng.choice([0, 0, 0, 0, 0, 1, 2], n).astype(np.uint8)
        mask = np.where(kind == 0, rng.integers(0, 256, n), 0).astype(np.uint8)
        value = np.where((kind == 0) & (rng.random(n) < 0.5), rng.integers(1, 20, n), 0).astype(np.uint32)
        reps = np.where((kind != 2) & (rng.random(n) < 0.4), rng.integers(0, 5, n), 0).astype(np.uint32)
        cases.append(D.Ops(kind, mask, value, reps, (kind == 0) & (rng.random(n) < 0.5)))
    for folder in (TEST1, TEST2):
        cases += [u.ops for ds in _golden_decoded(folder).slices for u in ds.units]
    for ops in cases:
        runs = D.ops_to_runs(ops)
        for slot in range(8):
            want, got = runs.intervals(slot), D.slot_intervals(ops, slot)
            assert np.array_equal(want[0], got[0]) and np.array_equal(want[1], got[1]), (ops, slot)


def test_pftrace_and_json_hold_the_same_intervals(tmp_path):
    """Both Perfetto outputs of a multi-slice capture: same tracks, same intervals."""
    import json

    from iron.tests.golden import TEST2

    decoded = _golden_decoded(TEST2)
    decoded.to_perfetto(tmp_path / "t.pftrace")
    _trace, tracks, begins, ends = _read_pftrace((tmp_path / "t.pftrace").read_bytes())
    obj = json.loads(json.dumps(decoded.perfetto()))
    threads = [e["args"]["name"] for e in obj["traceEvents"] if e["name"] == "thread_name"]
    procs = [e["args"]["name"] for e in obj["traceEvents"] if e["name"] == "process_name"]
    assert tracks == procs[:1] + threads
    for name in begins:
        x = [e for e in obj["traceEvents"] if e["ph"] == "X" and e["name"] == name]
        assert [round(e["ts"] * 1000) for e in x] == begins[name]
        assert [round((e["ts"] + e["dur"]) * 1000) for e in x] == ends[name]


# --------------------------------------------------------------------------- first run
def test_compiled_kernels_only_where_they_pay_off(monkeypatch):
    """numpy below the import break-even (numba not even asked); with no cached
    kernels numpy below the compile break-even; numba otherwise."""
    from iron.trace import engine as E
    from iron.trace import jit as K

    def never():
        raise AssertionError("numba consulted for a small slice")

    assert E.choose(E.COMPILED_BYTES - 1, never) == E.NUMPY

    class Disp:
        def __init__(self, cached):
            self.cached = cached

    monkeypatch.setattr(K, "cached", lambda d: d.cached)
    assert E.choose(E.COMPILED_BYTES, lambda: [Disp(True), Disp(True)]) == E.NUMBA
    assert E.choose(E.COMPILED_BYTES, lambda: [Disp(True), Disp(False)]) == E.NUMPY
    assert E.choose(E.COLD_COMPILED_BYTES, lambda: [Disp(False)]) == E.NUMBA
    assert E.choose(E.COLD_COMPILED_BYTES, lambda: [None]) == E.NUMPY  # no numba


def test_a_decode_that_compiles_says_so_once(monkeypatch, capsys):
    """Issue 37: a decode that will compile kernels (none cached, a slice past the compile
    break-even) says so on stderr once per process, naming ``python -m iron.trace.warm``;
    one that loads cached kernels or stays on numpy says nothing."""
    from iron.trace import engine as E
    from iron.trace import jit as K

    class Disp:
        def __init__(self, cached):
            self.cached = cached

    monkeypatch.setattr(K, "cached", lambda d: d.cached)
    monkeypatch.setattr(K, "_STATE", {})  # a fresh process's state
    assert E.choose(E.COLD_COMPILED_BYTES, lambda: [Disp(True)]) == E.NUMBA
    assert E.choose(E.COMPILED_BYTES, lambda: [Disp(False)]) == E.NUMPY
    assert capsys.readouterr().err == ""
    for _ in range(3):
        assert E.choose(E.COLD_COMPILED_BYTES, lambda: [Disp(True), Disp(False)]) == E.NUMBA
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "compiling" in err and "python -m iron.trace.warm" in err


@pytest.mark.parametrize("fmt", ["perfetto", "pftrace", "mlir-aie"])
def test_event_outputs_scan_each_unit_once_on_the_numpy_path(monkeypatch, tmp_path, fmt):
    """Issue 37: below the compiled paths' size the event writers take the ops the
    counting scan found (mlir-aie's test2 capture: a core and a memory-module unit,
    decoded with numpy) instead of scanning each unit's frames again."""
    from iron.trace import engine as E
    from iron.trace.cli import main
    from iron.trace.decode import scan
    from iron.tests.golden import TEST2

    calls = []
    real = scan._parse_numpy
    monkeypatch.setattr(scan, "_parse_numpy", lambda data: calls.append(len(data)) or real(data))
    monkeypatch.setattr(E, "PLAIN_BYTES", 0)  # numpy, not plain
    args = ["trace", "decode", str(TEST2 / "trace.txt"), "--mlir", str(TEST2 / "aie.mlir")]
    assert main(args + ["--format", fmt, "-o", str(tmp_path / "out")]) == 0
    assert len(calls) == 2, calls  # test2 holds two units (its SOURCES.md)


def test_kernel_cache_is_outside_the_package():
    """The compiled kernels land in iron's user cache folder, not next to the installed sources."""
    import numpy as np

    from iron.trace import jit as K
    from iron.trace.decode import scan

    disp = K.jit(scan._scan_starts)
    if disp is None:
        return  # numba not installed
    disp(np.ones(4, np.uint8), np.empty(4, np.int64))
    index = disp._cache._cache_file._index_path
    import os

    if os.environ.get("NUMBA_CACHE_DIR"):
        return  # numba's own setting wins
    assert index.startswith(str(K.CACHE_DIR / "iron.trace.decode.scan")) and os.path.exists(index)


def test_segments_found_block_by_block_are_the_same(monkeypatch):
    """The buffer-wide scans in blocks (bounded temporaries) find the segments a
    single block does (checked against mlir-aie's goldens elsewhere), whatever
    the block size: zero runs and end markers across block boundaries."""
    import numpy as np

    from iron.trace.decode import packets as D
    from iron.target import frames as F

    rng = np.random.default_rng(3)
    for _ in range(400):
        n = int(rng.integers(0, 60))
        w = np.where(rng.random(n) < 0.5, 0, rng.integers(1, 5, n)).astype(np.uint32)
        w[rng.random(n) < 0.1] = F.END_MARKER
        monkeypatch.setattr(D, "SCAN_BLOCK", 1 << 20)
        want = D.segments(w)
        for block in (1, 2, 3, 7):
            monkeypatch.setattr(D, "SCAN_BLOCK", block)
            assert D.segments(w) == want, (w, block)


# --------------------------------------------------------------------------- track identity (issue 27)
def _two_slices_of_two_cores():
    """Two slices, each with two core units tracing all 8 slots (test1's events,
    so each unit has a kernel track too): 2 x 2 x 9 tracks. Every slot fires at
    a cycle unique to its unit, so an event drawn on another unit's track shows."""
    from iron.artifact.manifest import Manifest
    from iron.tests.golden import TEST1_EVENTS
    from iron.trace.capture import decode_manifest
    from iron.trace.encode import encode_trace

    ids = [33, 34, 37, 75, 79, 44, 45, 26]  # test1's aie.mlir, in slot order
    units, words = [], []
    for row, pid in ((2, 1), (3, 2)):
        units.append(dict(column=0, row=row, kind="core", packet_type=0, packet_id=pid, events=TEST1_EVENTS))
        units[-1].update(event_ids=ids, start_event=122, stop_event=121, mode=0, ports=[])
    for s in range(2):
        recs = [[(100 * (1 + s) + 10 * row + k, 1 << k) for k in range(8)] for row in (2, 3)]
        words.append(encode_trace([(0, 2, 0, 1, recs[0]), (0, 3, 0, 2, recs[1])], end_marker=True))
    size = max(len(w) for w in words) * 4
    words = np.concatenate([np.pad(w, (0, size // 4 - len(w))) for w in words])
    slices = [
        dict(index=s, operator=f"Op{s}", call=0, device="main", sequence="sequence", offset=s * size)
        | dict(size=size, units=units, kernel="main:sequence", arg_index=-1, upstream_index=-1)
        for s in range(2)
    ]
    m = dict(schema=1, target="npu1", columns=1, column_offset=0, clock_mhz=1000.0, kernel="main:sequence")
    m.update(trace_arg_index=-1, total_size=2 * size, slices=slices, sources={})
    return decode_manifest(Manifest.from_dict(m), words)


def test_perfetto_json_tracks_are_unique_per_unit_and_slot():
    """Trace Event Format: a thread is identified by (pid, tid) alone, so two
    tracks sharing one merge in the viewer. With two core units in each of two
    slices, every kernel and slot track is its own (pid, tid), named after its
    unit, and every event sits on its unit's track at its unit's cycles."""
    from iron.tests.golden import TEST1_EVENTS

    decoded = _two_slices_of_two_cores()
    obj = decoded.perfetto()
    ev, offsets = obj["traceEvents"], obj["metadata"]["slice_offsets_us"]
    names = [((e["pid"], e["tid"]), e["args"]["name"]) for e in ev if e["name"] == "thread_name"]
    assert len(names) == 2 * 2 * 9
    assert len(set(k for k, _ in names)) == len(names), names
    assert len(set((e["pid"], e["args"]["name"]) for e in ev if e["name"] == "process_name")) == 2
    track = dict(names)
    rows = {"core(0,2)": 2, "core(0,3)": 3}
    seen = 0
    for e in (e for e in ev if e["ph"] == "X"):
        unit, _, what = track[e["pid"], e["tid"]].partition(" ")
        if what == "kernel":
            continue
        k = TEST1_EVENTS.index(what)
        assert e["name"] == what
        cycle = round((e["ts"] - offsets[e["pid"] - 1]) * 1000)  # 1000 MHz
        assert cycle == 100 * e["pid"] + 10 * rows[unit] + k, (e, unit)
        seen += 1
    assert seen == 2 * 2 * 8


def test_pftrace_tracks_have_unique_uuids_under_their_process(tmp_path):
    """Perfetto's TrackDescriptor: ``uuid`` identifies a track in the whole trace
    and ``parent_uuid`` nests it (perfetto protos, track_descriptor.proto). Each
    of the 2 x 2 x 9 unit tracks has a uuid of its own, parented by the process
    track of its slice, and its sequence's default TrackEvent track is itself."""
    from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

    decoded = _two_slices_of_two_cores()
    decoded.to_perfetto(tmp_path / "t.pftrace")
    trace = pb.Trace.FromString((tmp_path / "t.pftrace").read_bytes())
    procs, tracks = {}, []
    for p in trace.packet:
        if p.HasField("track_descriptor"):
            td = p.track_descriptor
            if td.HasField("process"):
                procs[td.uuid] = td.process.pid
            else:
                tracks.append((td.uuid, td.parent_uuid, td.name, p))
    assert sorted(procs.values()) == [1, 2]
    uuids = list(procs) + [u for u, *_ in tracks]
    assert len(uuids) == 2 + 2 * 2 * 9 and len(set(uuids)) == len(uuids), uuids
    assert all(u != 0 for u in uuids)
    parents = [parent for _, parent, _, _ in tracks]
    assert all(parent in procs for parent in parents)
    by_pid = [procs[parent] for parent in parents]
    assert by_pid == [1] * 18 + [2] * 18  # a slice's tracks under its own process
    for u, _, name, p in tracks:
        assert p.trace_packet_defaults.track_event_defaults.track_uuid == u, name
