"""The `iron` command: demo, events, errors; the README's main job end to end."""

import json
import subprocess
import sys

import numpy as np
import pytest

from iron.cli import main
from iron import testing
from iron.demo import demo_sequence


def test_demo_writes_every_output(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("IRON_TRACE_NTILES", raising=False)
    assert main(["demo", "--out", str(tmp_path / "out")]) == 0
    printed = capsys.readouterr().out
    assert "checked outputs y against the numpy references: within 4 bf16 ulp(s)" in printed  # two GEMM calls
    out = tmp_path / "out"
    perfetto = json.loads((out / "demo.perfetto.json").read_text())
    processes = [e["args"]["name"] for e in perfetto["traceEvents"] if e["name"] == "process_name"]
    assert processes == ["0: GEMM #0", "1: SiLU #0", "2: ElementwiseMul #0", "3: GEMM #1"]
    assert [s["status"] for s in perfetto["metadata"]["slices"]] == ["ok"] * 4
    assert (out / "demo.timeline.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    summary = (out / "demo.summary.txt").read_text()
    assert summary.count("core(") == 16  # 4 traced cores in each of the 4 slices
    # The capture decodes on its own, in a fresh process, to the same summary.
    fresh = subprocess.run(
        [
            sys.executable,
            "-m",
            "iron",
            "trace",
            "decode",
            str(out / "demo.capture.npz"),
            "--format",
            "summary",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path / "out",
        check=True,
    )
    assert fresh.stdout.strip() == summary.strip()


def test_reference_chain_is_the_composition_of_references():
    seq = demo_sequence(dim=32, columns=1, cores=1)
    inputs = testing.example_inputs(seq)
    (gemm, *_), (silu, *_), (mul, *_), _ = seq.steps
    h = gemm.reference(inputs["x"], inputs["w1"])[0]
    p = mul.reference(silu.reference(h.reshape(-1))[0], inputs["g"])[0]
    y = gemm.reference(p.reshape(32, 32), inputs["w2"])[0]
    assert np.array_equal(testing.reference(seq, inputs)[0], y)


def test_events_lists_tables(capsys):
    assert main(["events", "core"]) == 0
    out = capsys.readouterr().out
    assert "  33  INSTR_EVENT_0" in out and "# core (packet type 0)" in out
    assert "# mem" not in out


def test_user_errors_exit_2_with_one_line(tmp_path, capsys):
    assert main(["inspect", str(tmp_path / "missing.elf")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("iron: error:") and "missing.elf" in err[0]


def test_bad_trace_variable_is_one_clear_error(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("IRON_TRACE_SIZE", "100")
    assert main(["demo", "--out", str(tmp_path)]) == 2
    assert "IRON_TRACE_SIZE='100': not a multiple of 32" in capsys.readouterr().err


def test_version():
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0


def test_unwritable_output_is_one_line(tmp_path, capsys):
    from iron.tests.golden import TEST1

    (tmp_path / "a_file").write_text("not a directory")
    out = tmp_path / "a_file" / "x.json"
    code = main(
        ["trace", "decode", str(TEST1 / "trace.txt"), "--mlir", str(TEST1 / "aie.mlir"), "-o", str(out)]
    )
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(out) in err[0]


def test_decode_runs_without_the_collector_and_restores_it(tmp_path, monkeypatch):
    """`iron trace decode` turns the cyclic garbage collector off while it decodes
    (numba's load makes about a million objects) and leaves it as it found it."""
    import gc

    from iron.tests.golden import TEST2
    from iron.trace import cli as T

    seen = []
    decode = T._decode
    monkeypatch.setattr(T, "_decode", lambda args: seen.append(gc.isenabled()) or decode(args))
    args = [
        "trace",
        "decode",
        str(TEST2 / "trace.txt"),
        "--mlir",
        str(TEST2 / "aie.mlir"),
        "-o",
        str(tmp_path / "s"),
    ]
    for enabled in (True, False):
        (gc.enable if enabled else gc.disable)()
        try:
            assert main(args) == 0
            assert gc.isenabled() is enabled
        finally:
            gc.enable()
    assert seen == [False, False]
