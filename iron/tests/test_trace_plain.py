"""Small captures decoded without numpy (issue 28): the plain engine runs the decoder's
compiled kernels as plain Python (:mod:`iron.trace.jit`). Its outputs are the numpy
path's byte for byte in every format, on every stored capture (the hardware captures of
``iron/tests/data``, ``/work/shared/golden`` and ``/work/shared/external``, whose SOURCES.md
name them) and on generated streams; and a small decode imports neither numpy nor
protobuf. The numpy path itself is checked against mlir-aie's and xdna-emu's outputs
elsewhere (test_trace_decode, test_upstream_trace, test_trace_outputs)."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, reject, settings
from hypothesis import strategies as st

from iron.artifact.manifest import Manifest, Slice, TraceUnit
from iron.target import frames as F
from iron.trace.engine import PLAIN, PLAIN_INTERVALS, PlainOverflow
from iron.tests.golden import DATA, TEST1, TEST1_EVENTS, TEST2

FORMATS = ("summary", "perfetto", "pftrace", "mlir-aie")
SHARED = Path("/work/shared")
MODES = DATA / "xdna-emu-modes"
QUICK = settings(max_examples=60, deadline=None, database=None, suppress_health_check=list(HealthCheck))

EVENTS = [f"E{i}" for i in range(8)]
#: core (1,2) id 2 and memtile (1,1) id 1: the units of xdna-emu's captures (SOURCES.md)
XDNA_UNITS = [
    TraceUnit(
        1, 2, "core", 0, 2, EVENTS[:6] + ["INSTR_EVENT_0", "INSTR_EVENT_1"], list(range(1, 9)), 122, 121
    ),
    TraceUnit(1, 1, "memtile", 3, 1, EVENTS, list(range(1, 9)), 157, 156),
]


def _manifest_file(tmp_path: Path, nbytes: int) -> Path:
    sl = Slice(0, "add_one", 0, "npu1", "sequence", 0, nbytes, XDNA_UNITS)
    path = tmp_path / "xdna.json"
    path.write_text(Manifest("npu1", 4, 0, 1000.0, "npu1:sequence", 0, nbytes, [sl]).to_json())
    return path


def _stored_captures(tmp_path: Path) -> dict[Path, list[str]]:
    """Every stored capture with a configuration that explains it: its own MLIR where
    there is one, else the mode-1 capture's configuration (same units) or a manifest
    of xdna-emu's two units."""
    mode1_mlir = ["--mlir", str(MODES / "mode1_mixed_r0.aie.mlir")]
    out = {
        TEST1 / "trace.txt": ["--mlir", str(TEST1 / "aie.mlir")],
        TEST2 / "trace.txt": ["--mlir", str(TEST2 / "aie.mlir")],
        DATA
        / "xdna-emu-vecscalar"
        / "trace_hw.bin": [
            "--mlir",
            str(DATA / "xdna-emu-vecscalar" / "input_with_addresses.mlir"),
        ],
        MODES / "mode1_mixed_r0.bin": mode1_mlir,
        MODES / "mode2_mixed_r0.bin": mode1_mlir,  # the core in mode 2: reported, not decoded
        MODES / "mode0_add_one_objfifo_r0.bin": ["--manifest", str(_manifest_file(tmp_path, 348))],
    }
    if SHARED.is_dir():  # the shared copies (same bytes as the repository's, by their blob ids)
        ext = SHARED / "external"
        out[SHARED / "golden" / "mlir-aie-test1" / "trace.txt"] = [
            "--mlir",
            str(SHARED / "golden" / "mlir-aie-test1" / "aie.mlir"),
        ]
        out[ext / "xdna-emu-vecscalar-hw" / "trace_hw.bin"] = [
            "--mlir",
            str(ext / "xdna-emu-vecscalar-hw" / "input_with_addresses.mlir"),
        ]
        out[ext / "xdna-emu-mode1-mixed" / "mode1_mixed_r0.bin"] = mode1_mlir
        out[ext / "xdna-emu-mode2-mixed" / "mode2_mixed_r0.bin"] = mode1_mlir
        out[ext / "xdna-emu-mode0-core-memtile" / "mode0_add_one_objfifo_r0.bin"] = out[
            MODES / "mode0_add_one_objfifo_r0.bin"
        ]
    return out


def _cli_outputs(monkeypatch, tmp_path: Path, src: Path, config: list[str], plain: bool) -> tuple[dict, set]:
    """Every format of ``iron trace decode SRC CONFIG``, and the methods its decodes took."""
    from iron.trace import capture
    from iron.trace import engine as E
    from iron.trace.cli import main

    methods: set[str] = set()
    real = capture.decode_manifest

    def spy(*args, **kw):
        decoded = real(*args, **kw)
        methods.update(ds.engine.name for ds in decoded.slices)
        return decoded

    with monkeypatch.context() as m:
        m.setattr(capture, "decode_manifest", spy)
        if not plain:
            m.setattr(E, "PLAIN_BYTES", 0)
        out = {}
        for fmt in FORMATS:
            dst = tmp_path / f"out.{'plain' if plain else 'numpy'}.{fmt}"
            assert main(["trace", "decode", str(src), *config, "--format", fmt, "-o", str(dst)]) == 0
            out[fmt] = dst.read_bytes()
    return out, methods


def test_plain_outputs_are_the_numpy_outputs_on_every_stored_capture(monkeypatch, tmp_path):
    captures = _stored_captures(tmp_path)
    roots = [DATA] + ([SHARED / "golden", SHARED / "external"] if SHARED.is_dir() else [])
    stored = {p for root in roots for p in root.rglob("*") if p.suffix == ".bin" or p.name == "trace.txt"}
    assert stored == set(captures), stored ^ set(captures)  # a new capture is compared too
    for src, config in captures.items():
        got, methods = _cli_outputs(monkeypatch, tmp_path, src, config, plain=True)
        want, numpy_methods = _cli_outputs(monkeypatch, tmp_path, src, config, plain=False)
        assert methods == {"plain"} and numpy_methods == {"numpy"}, (src, methods, numpy_methods)
        for fmt in FORMATS:
            assert got[fmt] == want[fmt], (src, fmt)
        assert len(want["perfetto"]) > 300, src
    test1 = _cli_outputs(monkeypatch, tmp_path, TEST1 / "trace.txt", captures[TEST1 / "trace.txt"], True)[0]
    assert test1["mlir-aie"] == (TEST1 / "expected.json").read_bytes()  # mlir-aie's own output


def test_small_decode_imports_neither_numpy_nor_protobuf(tmp_path):
    """A fresh process decoding mlir-aie's test1 capture in every format loads neither
    numpy, numba nor the protobuf module (what made it slower and bigger than
    mlir-aie's parser: issue 28)."""
    code = f"""
import sys
from iron.cli import main
for fmt in {FORMATS!r}:
    args = ["trace", "decode", {str(TEST1 / "trace.txt")!r}, "--mlir", {str(TEST1 / "aie.mlir")!r}]
    assert main(args + ["--format", fmt, "-o", "out." + fmt]) == 0
print(sorted(m for m in sys.modules if m.split(".")[0] in ("numpy", "numba", "google", "perfetto")))
"""
    root = Path(__file__).resolve().parents[2]
    env = {"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    res = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["[]"], res.stdout
    assert (tmp_path / "out.mlir-aie").read_bytes() == (TEST1 / "expected.json").read_bytes()


def test_expanding_repeats_are_written_by_the_numpy_path(monkeypatch, tmp_path):
    """A small input whose Repeat frames stand for many intervals is decoded plainly,
    then, past PLAIN_INTERVALS, again with numpy for the event outputs (the summary stays
    plain); the bytes are those of the numpy path either way."""
    from iron.trace import engine as E
    from iron.trace.encode import encode_unit, interleave, packetize

    unit = XDNA_UNITS[0]
    payload = encode_unit([(5, 0x04, E.PLAIN_INTERVALS + 10, 2)])  # slot 2 every other cycle
    words = interleave([packetize(1, 2, 0, unit.packet_id, payload)], pad_to=256)
    words.astype("<u4").tofile(tmp_path / "w.bin")
    config = ["--manifest", str(_manifest_file(tmp_path, 1024))]
    got, methods = _cli_outputs(monkeypatch, tmp_path, tmp_path / "w.bin", config, plain=True)
    want, _ = _cli_outputs(monkeypatch, tmp_path, tmp_path / "w.bin", config, plain=False)
    assert methods == {"plain", "numpy"}
    assert got == want
    assert E.plain_output(E.PLAIN_INTERVALS) and not E.plain_output(E.PLAIN_INTERVALS + 1)


def _tiled_test1(kib: int) -> list[int]:
    """test1's packets (the words before its zero padding) repeated to ``kib`` KiB:
    about 0.36 intervals per byte (``benchmarks/bench_decode.py``'s reference input)."""
    from iron.trace.words import parse_text

    words = parse_text((TEST1 / "trace.txt").read_bytes(), plain=True)
    used = words[: (max(i for i, w in enumerate(words) if w) + 1) // 8 * 8]
    return [used[i % len(used)] for i in range(kib * 256)]


def test_a_dense_small_input_goes_to_numpy_early(monkeypatch, tmp_path):
    """32 KiB of test1's packets (within ``PLAIN_BYTES``) hold about 11,400 intervals: the plain decode projects
    its count over the unit's bytes and gives up within the first chunks; the event
    outputs are the numpy path's, the summary stays plain."""
    from iron.trace.mlir_manifest import manifest_from_mlir
    from iron.trace import engine as E
    from iron.trace.capture import decode_manifest
    from iron.trace.export import summary

    words = _tiled_test1(32)
    positions, real = [], summary.compiled_scan

    def spy(data, accumulate, chunk, method, progress):
        def seen(pos):
            positions.append((pos, len(data)))
            progress(pos)

        return real(data, accumulate, chunk, method, seen if progress else None)

    monkeypatch.setattr(summary, "compiled_scan", spy)
    manifest = manifest_from_mlir((TEST1 / "aie.mlir").read_text(), 4 * len(words))
    with pytest.raises(E.PlainOverflow):
        decode_manifest(manifest, words, analyze=summary.summarize_counting, engine="plain")
    assert positions and positions[-1][0] < positions[-1][1] // 4, positions  # given up early
    monkeypatch.undo()
    src = tmp_path / "tiled.txt"
    src.write_text("".join(f"{w:08x}\n" for w in words))
    config = ["--mlir", str(TEST1 / "aie.mlir")]
    got, methods = _cli_outputs(monkeypatch, tmp_path, src, config, plain=True)
    want, _ = _cli_outputs(monkeypatch, tmp_path, src, config, plain=False)
    assert methods == {"plain", "numpy"} and got == want


# --------------------------------------------------------------------------- generated streams
_FRAME_BYTES = [
    0x00,
    0x13,
    0x27,
    0x81,
    0xA5,
    0xC3,
    0xD1,
    0xD6,
    0xE0,
    0xE7,
    0xD8,
    0xDB,
    0xDC,
    0xF0,
    0xFE,
    0xFF,
]
_KEYS = [(0, 2, 0, 1), (0, 3, 0, 2), (0, 2, 1, 3), (0, 1, 3, 4)]  # (column, row, packet type, id)


@st.composite
def _streams(draw):
    """(words, configured units): 1-3 units' random frame bytes (biased to every frame
    kind, mode-0 Start frames first, sometimes a mode-1 one), packetized and interleaved,
    then cut by zero runs, an end marker, idle words, damaged headers or a cut end."""
    keys = draw(st.lists(st.sampled_from(_KEYS), min_size=1, max_size=3, unique=True))
    packets = []
    for col, row, ptype, pid in keys:
        body = draw(st.lists(st.sampled_from(_FRAME_BYTES) | st.integers(0, 255), max_size=120))
        start = draw(
            st.sampled_from([b"", b"\xf0" + bytes(7), b"\xf0\0\0\0\0\0\x12\x34", b"\xf1" + bytes(7)])
        )
        packets.append(packetize_list(col, row, ptype, pid, start + bytes(body)))
    from iron.trace.encode import interleave

    words = interleave([np.array(p, np.uint32) for p in packets]).tolist()
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(words)))
        edit = draw(st.sampled_from(["zeros", "gap", "marker", "idle", "header", "cut"]))
        if edit == "zeros":
            words[at:at] = [0] * draw(st.integers(1, 12))
        elif edit == "gap":
            words[at:at] = [0] * 8
        elif edit == "marker":
            words[at:at] = [F.END_MARKER, 0, 0]
        elif edit == "idle" and at < len(words):
            words[at] = F.IDLE_WORD
        elif edit == "header" and at < len(words):
            words[at] ^= 1 << draw(st.integers(0, 31))
        elif edit == "cut":
            words = words[:at]
    words += [0] * draw(st.integers(0, 10))
    configured = [k for k in keys if draw(st.booleans())] or keys[:1]
    units = [TraceUnit(c, r, ["core", "mem", "shim", "memtile"][t], t, i, EVENTS[:6] + ["INSTR_EVENT_0", "INSTR_EVENT_1"],
                       list(range(1, 9)), 0, 0) for c, r, t, i in configured]  # fmt: skip
    return words, units


def packetize_list(column, row, ptype, pid, payload: bytes) -> list[int]:
    from iron.trace.encode import packetize

    return packetize(column, row, ptype, pid, payload).tolist()


def _all_outputs(decoded) -> dict:
    """Every output of ``decoded``, and its summary figures in full (every slot's cycles)."""
    from iron.trace.export.summary import summary_dict, summary_text

    out = {"summary": summary_text(decoded.slices).encode(), "figures": summary_dict(decoded.slices)}
    for fmt in ("perfetto", "pftrace", "mlir-aie"):
        buf = io.BytesIO()
        try:
            decoded.write(buf, fmt)
            out[fmt] = buf.getvalue()
        except Exception as exc:  # noqa: BLE001 - both paths must fail alike
            out[fmt] = f"{type(exc).__name__}: {exc}"
    return out


def test_eight_words_of_repeats_leave_the_plain_path():
    """Hypothesis found it: one Repeat1-heavy packet stands for more intervals than a plain decode
    writes (:data:`PLAIN_INTERVALS`); the plain scan gives up early (the CLI then decodes with numpy,
    test_a_dense_small_input_goes_to_numpy_early), and numpy decodes it."""
    from iron.trace.capture import decode_manifest
    from iron.trace.export.summary import summarize_counting

    words = [2_147_614_721, 3_520_463_067] + [4_278_124_286] * 6
    unit = TraceUnit(
        0, 2, "core", 0, 1, EVENTS[:6] + ["INSTR_EVENT_0", "INSTR_EVENT_1"], list(range(1, 9)), 0, 0
    )
    manifest = Manifest("npu1", 4, 0, 1000.0, "k", 0, 32, [Slice(0, "Op", 0, "d", "s", 0, 32, [unit])])
    with pytest.raises(PlainOverflow):
        decode_manifest(manifest, words, analyze=summarize_counting, engine="plain")
    from iron.trace.decode.timing import bound_runs

    ref = decode_manifest(manifest, np.array(words, np.uint32), analyze=summarize_counting)
    _kept, dropped = bound_runs(ref.slices[0].units[0].runs, PLAIN_INTERVALS)
    assert dropped > 0  # more intervals than PLAIN_INTERVALS indeed


@QUICK
@given(_streams(), st.sampled_from([1000.0, 1200.0, 1300.0, 997.3]))
def test_plain_decode_is_the_numpy_decode_on_generated_streams(stream, clock_mhz):
    """Any stream, any clock (Perfetto's times are rounded from cycles / MHz)."""
    from iron.trace.capture import decode_manifest
    from iron.trace.export.summary import summarize_counting

    words, units = stream
    size = 4 * len(words)
    manifest = Manifest("npu1", 4, 0, clock_mhz, "k", 0, size, [Slice(0, "Op", 0, "d", "s", 0, size, units)])
    try:
        plain = decode_manifest(manifest, list(words), analyze=summarize_counting, engine="plain")
    except PlainOverflow:  # projected past PLAIN_INTERVALS: the CLI decodes it with numpy (tested below)
        reject()
    pulses = sum(
        c for ds in plain.slices for u in ds.units if u.summary for c in u.summary["cycles"].values()
    )
    assume(pulses < 20_000)  # bounded test time (the CLI hands such inputs to numpy anyway)
    ref = decode_manifest(manifest, np.array(words, np.uint32), analyze=summarize_counting)
    assert [ds.engine.name for ds in plain.slices] == ["plain"] and ref.slices[0].engine.name == "numpy"
    assert _all_outputs(plain) == _all_outputs(ref)


@QUICK
@given(
    st.lists(st.sampled_from([0, 0, 0, F.END_MARKER, F.IDLE_WORD, 0x12345678]) | st.integers(0, 2**32 - 1))
)
def test_plain_packet_table_is_the_numpy_one(words):
    """Segments, headers and units of any words, in one Python pass as by numpy."""
    from iron.trace.decode.packets import packet_table

    words = [F.make_header(0, 2, 0, 1) if w == 0x12345678 else w for w in words]
    ref = packet_table(np.array(words, np.uint32))
    got = packet_table(words, PLAIN)
    assert got.diagnostics == ref.diagnostics
    assert got.start == ref.start.tolist() and got.words == ref.words.tolist() and got.key == ref.key.tolist()
    assert {k: v.tolist() for k, v in ref.units().items()} == got.units()
    assert list(got.diagnostics) == list(ref.diagnostics)  # the same order: it is written out


@QUICK
@given(
    st.lists(st.integers(0, 2**32 - 1), max_size=20),
    st.sampled_from(["{:08x}\n", "0x{:x} ", "{:X}\r\n", "{:08x}\n"]),
    st.sampled_from([None, "zz", "0x0x1", "123456789", "12 34", "+1", "1_0"]),
    st.integers(0, 20),
)
def test_plain_text_reader_is_the_numpy_one(words, form, bad, at):
    """The same words from any spacing and prefix (found by it: "0x0 0x0 " read as one
    bad fixed-width line), the same error for a bad word."""
    from iron.trace.words import TraceInputError, parse_text

    text = "".join(form.format(w) for w in words)
    if bad is not None:
        lines = text.splitlines(keepends=True)
        lines.insert(min(at, len(lines)), bad + "\n")
        text = "".join(lines)
    results = []
    for plain in (True, False):
        try:
            got = parse_text(text.encode(), "t.txt", plain)
            results.append(list(map(int, got)))
        except TraceInputError as exc:
            results.append(str(exc))
    assert results[0] == results[1]
    if bad is None:
        assert results[0] == words


@pytest.mark.parametrize("plain", [True, False])
def test_text_words_of_nine_byte_lines_that_are_not_fixed_width(plain):
    """Whitespace-separated words whose text happens to have a newline every 9th byte
    are still words (they were refused as one bad fixed-width word)."""
    from iron.trace.words import parse_text

    assert list(map(int, parse_text(b"0x0 0x0 ", "t", plain))) == [0, 0]
    assert list(map(int, parse_text(b"1234 678\nabcdef01\n", "t", plain))) == [0x1234, 0x678, 0xABCDEF01]


def test_plain_kernel_is_the_compiled_kernel_code():
    """The plain engine runs the very code numba compiles, with plain Python's integers."""
    pytest.importorskip("numba")
    from iron.trace import jit
    from iron.trace.decode.scan import scan_ops

    assert jit.plain(scan_ops).__code__ is scan_ops.__code__
    assert jit.jit(scan_ops).py_func.__code__ is scan_ops.__code__
    assert jit.plain(scan_ops).__globals__["np"] is jit.PLAIN_NP
    assert jit.jit(scan_ops).py_func.__globals__["np"] is np
    assert TEST1_EVENTS  # (the golden the stored-capture test ends with)


def test_plain_bound_counts_raw_bytes_of_a_text_input(monkeypatch, tmp_path):
    """Issue 37: ``PLAIN_BYTES`` bounds the raw trace bytes, a text input counting 4 per
    9 characters: 32 KiB of words (72 KiB of text) decode plain, 64 KiB of words (144 KiB
    of text, past the measured crossover) with numpy, as a 64 KiB ``.bin`` does."""
    from iron.trace import capture
    from iron.trace.cli import main

    methods: list[str] = []
    real = capture.decode_manifest
    monkeypatch.setattr(capture, "decode_manifest", lambda *a, **k: _note(real(*a, **k), methods))
    config = ["--mlir", str(TEST1 / "aie.mlir"), "--format", "summary", "-o", str(tmp_path / "out")]
    for kib, suffix, want in ((32, "txt", "plain"), (64, "txt", "numpy"), (64, "bin", "numpy")):
        words = _tiled_test1(kib)
        src = tmp_path / f"in.{suffix}"
        if suffix == "txt":
            src.write_text("".join(f"{w:08x}\n" for w in words))
        else:
            np.asarray(words, "<u4").tofile(src)
        methods.clear()
        assert main(["trace", "decode", str(src), *config]) == 0
        assert methods == [want], (kib, suffix, methods)


def _note(decoded, methods: list) -> object:
    methods.extend(ds.engine.name for ds in decoded.slices)
    return decoded
