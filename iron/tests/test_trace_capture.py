"""Capture files, manifest decoding, Perfetto/summary/PNG outputs and the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from iron.target.events import PACKET_TYPE, event_id
from iron.trace import encode as E
from iron.trace.capture import Capture, load_capture
from iron.trace.cli import main
from iron.artifact.manifest import Manifest, Slice, TraceUnit
from iron.options import DEFAULT_CORE_EVENTS
from iron.trace.words import format_text

ROOT = Path(__file__).resolve().parents[2]
CORE = list(DEFAULT_CORE_EVENTS)


def _unit(col, row, kind="core", pid=1):
    names = CORE if kind == "core" else ["DMA_S2MM_0_START_TASK"] + ["NONE"] * 7
    return TraceUnit(
        col, row, kind, PACKET_TYPE[kind], pid, names, [event_id(kind, n) for n in names], 122, 121
    )


def _kernel_records(n, period=100, length=40, t0=10):
    """n kernel invocations (event0 ... event1 after `length` cycles), a lock stall between."""
    recs = []
    for i in range(n):
        t = t0 + i * period
        recs += [(t, 0b1), (t + 5, 0b100, 10, 1), (t + length, 0b10), (t + length + 5, 1 << 5, 30, 1)]
    return recs


def _manifest(size=4096):
    slices = [
        Slice(0, "Gemm", 0, "dev0", "seq", 0, size, [_unit(0, 2), _unit(0, 2, "mem", 2)], "main:sequence", 3),
        Slice(1, "Silu", 0, "dev1", "seq", size, size, [_unit(0, 2), _unit(1, 2, pid=3)], "main:sequence", 3),
        Slice(2, "Gemm", 1, "dev0", "seq", 2 * size, size, [_unit(0, 2)], "main:sequence", 3),
    ]
    return Manifest("npu2", 4, 0, 1000.0, "main:sequence", 3, 3 * size, slices)


def _capture(size=4096):
    m = _manifest(size)
    buf = np.zeros(3 * size // 4, np.uint32)
    s0 = E.interleave(
        [
            E.packetize(0, 2, 0, 1, E.encode_unit(_kernel_records(5))),
            E.packetize(0, 2, 1, 2, E.encode_unit([(12, 1), (400, 1)])),
        ]
    )
    s1 = E.interleave(
        [
            E.packetize(0, 2, 0, 1, E.encode_unit(_kernel_records(3, 200, 90))),
            E.packetize(1, 2, 0, 3, E.encode_unit([(7, 4)])),
        ]
    )
    buf[: len(s0)] = s0
    buf[size // 4 : size // 4 + len(s1)] = s1
    # slice 2 is empty (the trace never arrived)
    return Capture(m, buf)


def test_decode_manifest_slices_and_summary():
    cap = _capture()
    assert [s.status for s in cap.slices] == ["ok", "ok", "empty"]
    assert cap.slices is cap.slices  # decoded once
    d = cap.summary_dict()
    core = d["slices"][0]["units"][0]
    assert core["unit"] == "core(0,2)" and core["kernel"] == {
        "count": 5,
        "min": 40,
        "median": 40.0,
        "max": 40,
    }
    assert core["stalls"] == {"MEMORY_STALL": 0, "STREAM_STALL": 0, "LOCK_STALL": 150}
    assert core["first"] == 10 and core["last"] == 10 + 400 + 45 + 29
    assert d["slices"][1]["units"][0]["kernel"]["median"] == 90.0
    text = cap.summary()
    assert "slice 0:Gemm#0: status ok" in text and "slice 2:Gemm#1: status empty" in text
    assert "5/40/40.0/40" in text and "LOCK_STALL 150" in text


def test_perfetto_output(tmp_path):
    cap = _capture()
    path = tmp_path / "t.json"
    cap.to_perfetto(path)
    obj = json.loads(path.read_text())
    assert obj["displayTimeUnit"] == "ns"
    ev = obj["traceEvents"]
    procs = [e["args"]["name"] for e in ev if e["name"] == "process_name"]
    assert procs == ["0: Gemm #0", "1: Silu #0", "2: Gemm #1"]
    x = [e for e in ev if e["ph"] == "X" and e["pid"] == 1 and e["name"] == "LOCK_STALL"]
    assert len(x) == 5 and x[0]["ts"] == pytest.approx(0.055) and x[0]["dur"] == pytest.approx(0.030)
    threads = {e["tid"]: e["args"]["name"] for e in ev if e["name"] == "thread_name" and e["pid"] == 1}
    assert threads[1] == "core(0,2) kernel" and threads[2] == "core(0,2) INSTR_EVENT_0"
    # One kernel event per INSTR_EVENT_0 -> INSTR_EVENT_1 pair, named after the operator.
    kernels = [e for e in ev if e["ph"] == "X" and e["pid"] == 1 and e["tid"] == 1]
    assert {e["name"] for e in kernels} == {"Gemm"} and len(kernels) == 5
    meta = obj["metadata"]
    assert [s["status"] for s in meta["slices"]] == ["ok", "ok", "empty"] and meta["clock_mhz"] == 1000.0


def test_save_load_in_fresh_process(tmp_path):
    cap = _capture()
    path = tmp_path / "cap.npz"
    cap.save(path)
    back = load_capture(path)
    assert np.array_equal(back.words, cap.words) and back.manifest == cap.manifest
    code = (
        "import sys; from iron.trace.capture import load_capture; "
        "print(load_capture(sys.argv[1]).summary_dict()['slices'][0]['units'][0]['kernel']['count'])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "5"


# matplotlib's tab20 colors 0..5 (its documented palette): one per event name, first use first.
TAB20 = [(31, 119, 180), (174, 199, 232), (255, 127, 14), (255, 187, 120), (44, 160, 44), (152, 223, 138)]


def test_plot_png_shows_the_promised_regions(tmp_path):
    """The timeline promises one row per unit, one color per event that fired and a separator
    between slices. _capture() has 3 distinct units (core(0,2), mem(0,2), core(1,2)): the figure
    is 14 x (1.2 + 0.8 * 3) inches at 100 dpi; 5 events fire (INSTR_EVENT_0, INSTR_EVENT_1,
    INSTR_VECTOR, LOCK_STALL on cores, START_TASK on the memory module): tab20 colors 0-4 and
    not 5; 3 slices: 2 gray (0.6) separator lines."""
    from matplotlib import image

    path = tmp_path / "t.png"
    _capture().plot(path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    px = np.rint(image.imread(str(path))[..., :3] * 255).astype(int)
    assert px.shape[:2] == (360, 1400)
    colors = {tuple(c) for c in px.reshape(-1, 3)}
    assert [c in colors for c in TAB20] == [True] * 5 + [False]
    gray = (px == 153).all(axis=2)
    columns = np.flatnonzero(gray.sum(axis=0) > px.shape[0] // 2)
    assert len(columns) and int((np.diff(columns) > 1).sum()) + 1 == 2  # two separator lines


def test_cli_formats_and_inputs(tmp_path, capsys):
    cap = _capture()
    npz, mani, txt, binf = tmp_path / "c.npz", tmp_path / "m.json", tmp_path / "t.txt", tmp_path / "t.bin"
    cap.save(npz)
    mani.write_text(cap.manifest.to_json())
    txt.write_text(format_text(cap.words))
    cap.words.astype("<u4").tofile(binf)
    outs = []
    for inp, extra in ((npz, []), (txt, ["--manifest", str(mani)]), (binf, ["--manifest", str(mani)])):
        out = tmp_path / f"{inp.name}.json"
        assert main(["trace", "decode", str(inp), *extra, "--format", "perfetto", "-o", str(out)]) == 0
        outs.append(json.loads(out.read_text()))
    assert outs[0] == outs[1] == outs[2]
    assert main(["trace", "decode", str(npz)]) == 0
    assert "slice 1:Silu#0: status ok" in capsys.readouterr().out
    assert main(["trace", "plot", str(binf), "--manifest", str(mani), "-o", str(tmp_path / "p.png")]) == 0
    assert (tmp_path / "p.png").exists()
    assert main(["trace", "decode", str(npz), "--format", "mlir-aie", "-o", str(tmp_path / "m.json")]) == 0
    recs = json.loads((tmp_path / "m.json").read_text())
    assert [r["args"]["name"] for r in recs if r["name"] == "process_name"][:2] == [
        "core_trace for tile2,0",
        "mem_trace for tile2,0",
    ]


def test_cli_errors_name_the_file(tmp_path, capsys):
    txt = tmp_path / "t.txt"
    txt.write_text("00220001\nzz\n")
    assert main(["trace", "decode", str(txt), "--mlir", str(tmp_path / "nope.mlir")]) == 2
    err = capsys.readouterr().err
    assert str(txt) in err and "word 2" in err and err.count("\n") == 1
    txt.write_text("00220001\n")
    assert main(["trace", "decode", str(txt)]) == 2
    assert "give --mlir, --manifest or --artifact" in capsys.readouterr().err
    assert main(["trace", "decode", str(txt), "--mlir", str(tmp_path / "nope.mlir")]) == 2
    assert "nope.mlir" in capsys.readouterr().err
    bad = tmp_path / "x.bin"
    bad.write_bytes(b"\x01\x02\x03")
    assert main(["trace", "decode", str(bad), "--manifest", str(txt)]) == 2
    assert "x.bin" in capsys.readouterr().err
    npz = tmp_path / "bad.npz"
    npz.write_bytes(b"PK\x03\x04garbage")
    assert main(["trace", "decode", str(npz)]) == 2
    assert "bad.npz" in capsys.readouterr().err
    mlir = tmp_path / "empty.mlir"
    mlir.write_text("module {\n  aie.device(npu1_1col) {\n  }\n}\n")
    txt.write_text("00220001\n00000000\n")
    assert main(["trace", "decode", str(txt), "--mlir", str(mlir)]) == 2
    assert "nothing is traced" in capsys.readouterr().err
