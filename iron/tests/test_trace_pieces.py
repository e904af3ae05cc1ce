"""Streamed outputs of big traces: a unit parsed again piece by piece (payload in pieces of
packets, ops in chunks, a slot's intervals held in groups or streamed) writes the bytes of
the whole-stream numpy path, on real captures (mlir-aie's test1/test2, which the numpy path
matches record for record, and xdna-emu's hardware captures) cut at every packet boundary."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from iron.artifact.manifest import TraceUnit
from iron.tests.golden import TEST1, TEST2
from iron.trace.engine import ENGINES, NUMBA, NUMPY

DATA = Path(__file__).parent / "data"
FORMATS = ("perfetto", "pftrace", "mlir-aie")


def _mlir_capture(folder):
    from iron.trace.mlir_manifest import manifest_from_mlir
    from iron.trace.words import parse_text

    words = parse_text((folder / "trace.txt").read_bytes())
    return manifest_from_mlir((folder / "aie.mlir").read_text(), len(words) * 4), words


def _tiled_test1():
    """test1's packets repeated 40 times (bench_decode's reference input, small)."""
    _manifest, words = _mlir_capture(TEST1)
    used = words[: (np.flatnonzero(words)[-1] + 1) // 8 * 8]
    tiled = np.resize(used, 40 * len(used))
    from iron.trace.mlir_manifest import manifest_from_mlir

    return manifest_from_mlir((TEST1 / "aie.mlir").read_text(), len(tiled) * 4), tiled


def _with_idle_words():
    """test1 with some payload words replaced by the idle word (dropped by the gather)."""
    from iron.target.frames import IDLE_WORD

    manifest, words = _mlir_capture(TEST1)
    words = words.copy()
    words[[3, 13, 14, 60]] = IDLE_WORD
    return manifest, words


def _xdna(name, units):
    from iron.artifact.manifest import Manifest, Slice

    words = np.fromfile(name, "<u4")
    size = len(words) * 4
    sl = Slice(0, "add_one", 0, "npu1", "sequence", 0, size, units)
    return Manifest("npu1", 4, 0, 1000.0, "npu1:sequence", 0, size, [sl]), words


def _vecscalar():
    from iron.trace.mlir_manifest import manifest_from_mlir

    words = np.fromfile(DATA / "xdna-emu-vecscalar" / "trace_hw.bin", "<u4")
    mlir = (DATA / "xdna-emu-vecscalar" / "input_with_addresses.mlir").read_text()
    return manifest_from_mlir(mlir, len(words) * 4), words


EVENTS = [f"E{i}" for i in range(8)]
CORE = TraceUnit(1, 2, "core", 0, 2, EVENTS, list(range(1, 9)), 122, 121)
MEMTILE = TraceUnit(1, 1, "memtile", 3, 1, EVENTS, list(range(1, 9)), 157, 156)


def _captures():
    yield "test1", _mlir_capture(TEST1)
    yield "test2", _mlir_capture(TEST2)
    yield "test1 tiled", _tiled_test1()
    yield "vecscalar", _vecscalar()
    yield "test1 with idle words", _with_idle_words()
    yield "add_one", _xdna(DATA / "xdna-emu-modes" / "mode0_add_one_objfifo_r0.bin", [CORE, MEMTILE])


def _write_all(decoded, method, monkeypatch) -> dict:
    from iron.trace.export import mlir_aie, perfetto, pftrace

    for mod in (perfetto, pftrace, mlir_aie):
        monkeypatch.setattr(mod, "output_engine", lambda slices, m=method: ENGINES[m])
    out = {}
    for fmt in FORMATS:
        buf = io.BytesIO()
        decoded.write(buf, fmt)
        out[fmt] = buf.getvalue()
    return out


@pytest.mark.parametrize(
    "pieces, chunk_ops, held",
    [(1, 1, 16), (2, 3, 16), (3, 7, 1 << 30), (2, 5, 16 * 40), (1 << 16, 1 << 14, 1 << 25)],
)
def test_outputs_from_pieces_are_the_whole_stream_outputs(monkeypatch, pieces, chunk_ops, held):
    """Pieces of 1..3 packets cut frames and Repeat runs everywhere; ``held`` 16 bytes
    streams every slot a chunk at a time, 2**30 holds them all in one pass, 40
    intervals mixes held groups and streamed slots."""
    pytest.importorskip("numba")
    from iron.trace.capture import decode_manifest
    from iron.trace.decode import timing as events, packets, units
    from iron.trace.export.summary import summarize_unit, summary_text

    for name, (manifest, words) in _captures():
        want = _write_all(decode_manifest(manifest, words), "numpy", monkeypatch)
        monkeypatch.setattr(packets, "PIECE_PACKETS", pieces)
        monkeypatch.setattr(units, "CHUNK_OPS", chunk_ops)
        monkeypatch.setattr(units.DecodedUnit.op_chunks, "__defaults__", (chunk_ops,))
        monkeypatch.setattr(events, "HELD_INTERVAL_BYTES", held)
        monkeypatch.setattr(units, "choose", lambda nbytes, kernels: NUMBA)  # as for big inputs
        decoded = decode_manifest(manifest, words, analyze=summarize_unit)  # units keep no ops
        assert all(u.reload is not None for ds in decoded.slices for u in ds.units if u.mode == 0)
        got = _write_all(decoded, "numba", monkeypatch)
        got["summary"] = summary_text(decoded.slices)
        monkeypatch.undo()
        want["summary"] = summary_text(decode_manifest(manifest, words, analyze=summarize_unit).slices)
        for fmt in FORMATS + ("summary",):
            assert got[fmt] == want[fmt], (name, fmt, pieces, chunk_ops, held)
        assert summary_text(decode_manifest(manifest, words).slices) == want["summary"], name
        assert len(want["perfetto"]) > 500, name


def test_test1_mlir_aie_from_pieces_is_the_golden(monkeypatch):
    """mlir-aie's own output for test1, written from pieces of one packet."""
    pytest.importorskip("numba")
    from iron.trace.capture import decode_manifest
    from iron.trace.decode import packets
    from iron.trace.export.summary import summarize_unit

    monkeypatch.setattr(packets, "PIECE_PACKETS", 1)
    manifest, words = _mlir_capture(TEST1)
    got = _write_all(decode_manifest(manifest, words, analyze=summarize_unit), "numba", monkeypatch)
    assert got["mlir-aie"] == (TEST1 / "expected.json").read_bytes().rstrip(b"\n") + b"\n"


def test_scan_of_byte_pieces_cut_inside_frames_is_the_whole_scan():
    """The hardware captures pad frames to whole words, so packet pieces never cut a
    frame: here each unit's payload is cut into pieces of 1..5 bytes (frames split
    across pieces, carried over) and both timing models still give the whole stream's
    ops (Repeats folded across the cuts), frame diagnostics, summary, intervals and
    mlir-aie events; so do the streams cut short (inside a frame, sometimes)."""
    pytest.importorskip("numba")
    from iron.trace import decode as D

    rng = np.random.default_rng(3)
    for name, (_manifest, words) in _captures():
        pk = D.packet_table(words)
        for rows in pk.units().values():
            data, _ = D.unit_payload(words, pk.start[rows], pk.words[rows], NUMPY)
            if D.unit_mode(None, data)[0] != 0:
                continue
            for end in (len(data), *(len(data) // 2 + j for j in range(4))):  # and cut inside frames
                _check_byte_pieces(name, data[:end], rng)


def _check_byte_pieces(name, data, rng):
    from iron.trace import decode as D
    from iron.trace.decode.timing import OPS_FIELDS, SlotIntervals
    from iron.trace.decode.scan import scan_pieces
    from iron.trace.export.summary import summarize_counting, summarize_unit

    ops = D.parse_stream(data, "numpy")[0]
    cuts = np.cumsum(rng.integers(1, 6, len(data)))
    cuts = cuts[cuts < len(data)]
    parts = [[getattr(o, f).copy() for f in OPS_FIELDS] for o in scan_pieces(np.split(data, cuts), 3)]
    for f, got in zip(OPS_FIELDS, zip(*parts)):  # the whole scan's ops, Repeats folded alike
        assert np.array_equal(getattr(ops, f), np.concatenate(got)), (name, f)

    def chunks(cuts=cuts, data=data):
        return scan_pieces(np.split(data, cuts), chunk_ops=int(rng.integers(1, 9)))

    runs, si = D.ops_to_runs(ops), SlotIntervals(chunks)
    for slot in range(8):
        want, got = runs.intervals(slot), si(slot)
        assert np.array_equal(want[0], got[0]) and np.array_equal(want[1], got[1]), (name, slot)
    whole, cut, counted = (D.DecodedUnit(0, 1, 2, CORE) for _ in range(3))
    summarize_unit(whole, data, "numba")
    summarize_unit.pieces(cut, np.split(data, cuts))
    # the writers' interval counts, taken in the summary's scan: the numpy model's counts
    summarize_counting.pieces(counted, np.split(data, cuts))
    assert counted.interval_counts.tolist() == [len(runs.intervals(s)[0]) for s in range(8)], name
    assert counted.summary == whole.summary and cut.interval_counts is None, name
    assert (cut.summary, cut.diagnostics, cut.start_timer, cut.frames) == (
        whole.summary,
        whole.diagnostics,
        whole.start_timer,
        whole.frames,
    ), name
    want = D.mlir_aie_events(ops)
    parts = [tuple(a.copy() for a in c) for c in D.mlir_aie_timing.mlir_aie_event_stream(chunks())]
    got = tuple(np.concatenate(c) for c in zip(*parts)) if parts else None
    assert got is not None and all(np.array_equal(a, b) for a, b in zip(want, got)), name


def test_scan_chunks_stay_intact_until_the_ring_comes_round():
    """scan_pieces(..., buffers=R) hands out views that only the R-th later chunk
    overwrites (what the summary's scan thread relies on, R = ahead.reuse_after):
    with pieces of 1..5 bytes (ops held back across pieces) and tiny chunks, the
    R - 1 chunks before each new one still hold what they held when handed out."""
    pytest.importorskip("numba")
    from iron.trace import decode as D
    from iron.trace.decode.timing import OPS_FIELDS
    from iron.trace.decode.scan import scan_pieces

    rng = np.random.default_rng(5)
    _manifest, words = next(c for _name, c in _captures())
    pk = D.packet_table(words)
    rows = next(iter(pk.units().values()))
    data, _ = D.unit_payload(words, pk.start[rows], pk.words[rows], NUMPY)
    ops = D.parse_stream(data, "numpy")[0]
    for ring in (1, 2, 6):
        cuts = np.cumsum(rng.integers(1, 6, len(data)))
        kept, seen = [], []
        for chunk in scan_pieces(np.split(data, cuts[cuts < len(data)]), 3, buffers=ring):
            for view, copy in kept[-(ring - 1) :] if ring > 1 else []:
                assert all(np.array_equal(getattr(view, f), c) for f, c in zip(OPS_FIELDS, copy)), ring
            kept.append((chunk, [getattr(chunk, f).copy() for f in OPS_FIELDS]))
            seen.append(kept[-1][1])
        for f, got in zip(OPS_FIELDS, zip(*seen)):
            assert np.array_equal(getattr(ops, f), np.concatenate(got)), (ring, f)


def test_given_interval_counts_save_the_counting_pass():
    """SlotIntervals with the counts of an earlier scan (the CLI's summary pass)
    parses the ops only to fill: one pass for slots that fit one group."""
    pytest.importorskip("numba")
    from iron.trace import decode as D
    from iron.trace.decode.timing import SlotIntervals, interval_counts

    _manifest, words = next(c for _name, c in _captures())
    pk = D.packet_table(words)
    rows = next(iter(pk.units().values()))
    data, _ = D.unit_payload(words, pk.start[rows], pk.words[rows], NUMPY)
    ops = D.parse_stream(data, "numpy")[0]
    passes = []

    def chunks():
        passes.append(1)
        return [ops]

    counts = interval_counts([ops])
    si = SlotIntervals(chunks, counts)
    runs = D.ops_to_runs(ops)
    for slot in range(8):
        assert np.array_equal(si(slot)[0], runs.intervals(slot)[0])
    assert len(passes) == 1 and counts.sum() > 0


def test_numba_without_extras_hides_them_only_inside(tmp_path):
    """In a fresh process (as the ``iron`` command): numba loads a kernel inside the
    block without importing scipy, cffi or yaml (it marks BLAS and cffi missing);
    after it each imports as before. With a ``.numba_config.yaml`` in the working
    directory yaml stays importable (numba reads that file with it)."""
    import importlib.util
    import subprocess
    import sys

    pytest.importorskip("numba")
    code = (
        "import sys\n"
        "from iron.trace.jit import numba_without_extras\n"
        "from iron.trace.decode.scan import warm_ops\n"
        "extras = ('scipy', 'cffi', 'yaml')\n"
        "with numba_without_extras():\n"
        "    warm_ops()\n"
        "    print(*[x in sys.modules and sys.modules[x] is not None for x in extras])\n"
        "import numba.np.arraymath as m, numba.core.typing.cffi_utils as c\n"
        "print(m._HAVE_BLAS, c.SUPPORTED)\n"
        "for x in extras:\n"
        "    try:\n"
        "        __import__(x)\n"
        "        print('imported')\n"
        "    except ImportError:\n"
        "        print('absent')\n"
    )

    def run(cwd):
        return subprocess.run(
            [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, check=True
        ).stdout.split()

    installed = ["imported" if importlib.util.find_spec(x) else "absent" for x in ("scipy", "cffi", "yaml")]
    assert run(tmp_path) == ["False", "False", "False", "False", "False", *installed]
    if installed[2] == "imported":  # yaml installed: a numba config file keeps it visible
        (tmp_path / ".numba_config.yaml").write_text("{}\n")
        assert run(tmp_path)[:3] == ["False", "False", "True"]


def test_built_package_decodes_without_compiling(tmp_path):
    """The package as ``pip install`` builds it (setup.py's ``build_py``, which runs
    ``python -m iron.trace.warm --into``) decodes to every format with the compiled
    paths in a fresh process and an empty user cache, compiling nothing: every
    kernel is loaded from the kernels the build shipped, each with the argument
    types the decoder and the writers pass (a missed type or kernel would compile).
    The mlir-aie output is mlir-aie's own golden (test2's expected.json, SOURCES.md)."""
    import os
    import subprocess
    import sys

    pytest.importorskip("numba")
    pytest.importorskip("setuptools", minversion="64")
    root = Path(__file__).resolve().parents[2]
    if not (root / "setup.py").exists():
        pytest.skip("not a source checkout")
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH")}
    lib = tmp_path / "lib"
    build = [sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(lib)]
    subprocess.run(build, cwd=root, env={**env, "HOME": str(tmp_path / "build-home")}, check=True)
    assert not (tmp_path / "build-home" / ".cache").exists()  # all went into the package
    code = f"""
import iron, iron.trace.jit as K, iron.trace.engine as E
E.COMPILED_BYTES = E.COLD_COMPILED_BYTES = E.PLAIN_BYTES = 0  # every slice takes the compiled paths
from iron.cli import main
for fmt in ("summary", "perfetto", "pftrace", "mlir-aie"):
    args = ["trace", "decode", {str(TEST2 / "trace.txt")!r}, "--mlir", {str(TEST2 / "aie.mlir")!r}]
    assert main(args + ["--format", fmt, "-o", "out." + fmt]) == 0
stats = [d.stats for d in K._JIT.values() if d is not None]
print(iron.__file__, sum(sum(s.cache_hits.values()) for s in stats), sum(sum(s.cache_misses.values()) for s in stats))
"""
    home = tmp_path / "home"
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env={**env, "HOME": str(home), "PYTHONPATH": str(lib)},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert out == [str(lib / "iron" / "__init__.py"), "6", "0"], out  # 6 kernels loaded, none compiled
    golden = (TEST2 / "expected.json").read_bytes().rstrip(b"\n")
    assert (tmp_path / "out.mlir-aie").read_bytes().rstrip(b"\n") == golden
    assert len(list((home / ".cache" / "iron" / "numba").glob("*/*.nbi"))) == 6  # now in the user cache


def test_seed_copies_shipped_kernels_only_over_missing_or_stale_ones(tmp_path, monkeypatch):
    """:func:`iron.trace.jit.seed` with numba's own index files: a missing or stale
    (other source) user index takes the shipped one; a fresh one, even with other
    entries, is kept; a stale shipped index is never copied."""
    pytest.importorskip("numba")
    from numba.core import caching

    from iron.trace import jit as K

    def index(folder, stamp, data, base="m.k-1.py311"):
        folder.mkdir(parents=True, exist_ok=True)
        caching.IndexDataCacheFile(str(folder), base, stamp).save("key", data)

    def load(folder, stamp, base="m.k-1.py311"):
        return caching.IndexDataCacheFile(str(folder), base, stamp).load("key")

    shipped, user = tmp_path / "shipped", tmp_path / "user"
    monkeypatch.setattr(K, "SHIPPED_DIR", shipped)
    index(shipped / "mod", b"now", "built")
    K.seed(user / "mod", b"now", caching)  # the folder does not exist: nothing to seed into
    (user / "mod").mkdir(parents=True)
    K.seed(user / "mod", b"now", caching)
    assert load(user / "mod", b"now") == "built"
    index(user / "mod", b"before", "old")  # a stale user index
    K.seed(user / "mod", b"now", caching)
    assert load(user / "mod", b"now") == "built"
    index(user / "mod", b"now", "compiled here")  # a fresh user index stays
    K.seed(user / "mod", b"now", caching)
    assert load(user / "mod", b"now") == "compiled here"
    K.seed(user / "other", b"now", caching)  # no shipped folder for that module
    assert not (user / "other").exists()
    index(user / "mod2", b"before", "old")
    index(shipped / "mod2", b"before", "built from an older source")
    K.seed(user / "mod2", b"now", caching)
    assert load(user / "mod2", b"before") == "old"
