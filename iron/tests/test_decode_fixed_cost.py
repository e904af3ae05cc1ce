"""What a small decode pays before it decodes: the modules it imports (issue 37).

Every ``iron trace decode`` pays its interpreter's start and its imports; for the 8 KB
captures most users decode that fixed cost is most of the time beside mlir-aie's parser.
These tests bound which modules a whole ``python -m iron trace decode`` process loads
(behaviour, not timing: the times are ``benchmarks/bench_small.py``'s).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from iron.tests.golden import DATA, TEST1, decode_argv

ROOT = Path(__file__).resolve().parents[2]


def _run(code: str, cwd: Path, site: bool = True) -> subprocess.CompletedProcess:
    """``python -c code`` in a fresh process that imports this checkout's iron; ``site``
    False: without ``site`` (``-S``), whose imports an editable install's finder adds
    (pathlib ...) are no decode's."""
    path = [str(ROOT), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    argv = [sys.executable, *([] if site else ["-S"]), "-c", code]
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)


#: Loaded by no small decode, whatever its format: numpy / numba (only sizes that pay for
#: them), the build side (its IR reader, ``trace wire``'s parser), and what the plain records
#: (iron/record.py), the shutil-free help formatter and lazy imports keep out: dataclasses
#: with inspect, argparse's shutil, events.py's difflib (a misspelt name's hint), typing,
#: pathlib (with urllib.parse and ipaddress: iron.files.pure_path names paths as it does).
NOT_FOR_A_SMALL_DECODE = (
    "numpy",
    "numba",
    "iron.mlir.ir",
    "iron.mlir.reader",
    "iron.fuse",
    "dataclasses",
    "inspect",
    "shutil",
    "difflib",
    "typing",
    "pathlib",
)
#: ... nor by a summary: protobuf (pftrace only), json (a JSON manifest or writer only), queue
#: and threading (a threaded writer, the kernels' loader).
NOT_FOR_A_SMALL_SUMMARY = (*NOT_FOR_A_SMALL_DECODE, "google.protobuf", "json", "queue", "threading")


def _decode_modules(tmp_path: Path, fmt: str) -> tuple[set[str], bytes]:
    """(modules loaded, output bytes) of a fresh ``python -m iron trace decode`` of test1."""
    out = tmp_path / f"out.{fmt}"
    argv = ["iron", "trace", "decode", str(TEST1 / "trace.txt"), "--mlir", str(TEST1 / "aie.mlir")]
    argv += ["--format", fmt, "-o", str(out)]
    code = f"""
import runpy, sys
sys.argv = {argv!r}
try:
    runpy.run_module("iron", run_name="__main__", alter_sys=True)
except SystemExit as exc:
    assert not exc.code, exc.code
print(" ".join(sorted(sys.modules)))
"""
    res = _run(code, tmp_path, site=False)  # a plain decode needs no site-packages
    assert res.returncode == 0, res.stderr
    return set(res.stdout.split()), out.read_bytes()


def _loaded(mods: set[str], names) -> set[str]:
    return {m for m in names if m in mods or any(n.startswith(m + ".") for n in mods)}


@pytest.mark.parametrize("fmt", ["summary", "perfetto", "pftrace", "mlir-aie"])
def test_small_decode_loads_nothing_it_does_not_use(tmp_path, fmt):
    mods, out = _decode_modules(tmp_path, fmt)
    # the decode ran to its end: the output stored before issue 37's work (data/decode_hashes.json)
    want = json.loads((DATA / "decode_hashes.json").read_text())["mlir-aie-test1/trace.txt"][fmt]
    assert hashlib.sha256(out).hexdigest() == want
    assert not _loaded(mods, NOT_FOR_A_SMALL_SUMMARY if fmt == "summary" else NOT_FOR_A_SMALL_DECODE)


def test_decoder_records_compare_and_print_as_dataclasses_did():
    """The decoder's records are plain classes (a dataclass compiles its methods at
    import); they keep what the dataclasses gave: keyword and positional construction,
    defaults (a new dict per unit), ``==`` over the fields, ``repr`` without ``last``."""
    from iron.trace.decode import NO_OPS, DecodedSlice, DecodedUnit, Runs

    a, b = DecodedUnit(1, 2, 3, None), DecodedUnit(packet_type=1, column=2, row=3, unit=None)
    assert a == b and a is not b and not (a != b)
    assert a.ops is NO_OPS and a.diagnostics == {} and a.diagnostics is not b.diagnostics
    b.diagnostics["x"] = 1
    assert a != b and a.diagnostics == {}
    b.diagnostics.clear()
    b.last = 7  # compared, not shown
    assert a != b and repr(a) == repr(b)
    assert repr(a).startswith("DecodedUnit(packet_type=1, column=2, row=3, unit=None, packets=0,")
    assert "last" not in repr(a) and "reload=None)" in repr(a)
    s = DecodedSlice(None, "ok", {}, [a], [], [])
    assert s == DecodedSlice(None, "ok", {}, [b.__class__(1, 2, 3, None)], [], [])
    assert s.column_shift == 0 and str(s.engine) == "numpy"
    assert Runs(1, 2, 3, 4) != (1, 2, 3, 4)  # another class is never equal
    assert repr(Runs(1, 2, 3, 4)) == "Runs(time=1, mask=2, count=3, step=4)"
    try:
        hash(a)
    except TypeError:
        pass
    else:
        raise AssertionError("a mutable record is unhashable, as a dataclass with eq")


def test_a_summary_output_is_not_forced_to_disk(tmp_path, monkeypatch):
    """The summary is written as the event outputs are (test_trace_output_paths): renamed
    into place whole, without an fsync of the file or its folder (made again from its
    input any time; the syncs took an 8 KB decode 4-16 ms); gzipped alike."""
    import gzip

    from iron.trace.cli import main

    synced = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd) or real(fd))
    want = json.loads((DATA / "decode_hashes.json").read_text())["mlir-aie-test1/trace.txt"]["summary"]
    args = decode_argv(TEST1, "summary")
    for name in ("s.txt", "s.txt.gz"):
        out = tmp_path / name
        out.write_bytes(b"old")  # replaced
        assert main([*args, "-o", str(out)]) == 0
        got = gzip.decompress(out.read_bytes()) if name.endswith(".gz") else out.read_bytes()
        assert hashlib.sha256(got).hexdigest() == want and not synced, name
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.txt", "s.txt.gz"]  # no temp file left


def _numba_loaded(tmp_path: Path, compiled_bytes: int) -> bool:
    """Whether a fresh summary decode of test1's packets tiled to 64 KiB, as text (147,456
    characters), loads numba with ``COMPILED_BYTES`` at ``compiled_bytes`` (and the
    kernels' loader started for any size, the plain engine off)."""
    words = (TEST1 / "trace.txt").read_text().split()
    used = words[: (max(i for i, w in enumerate(words) if int(w, 16)) + 1) // 8 * 8]
    src = tmp_path / "tiled.txt"
    src.write_text("".join(f"{used[i % len(used)]}\n" for i in range(64 * 256)))
    assert src.stat().st_size == 64 * 1024 * 9 // 4
    argv = ["trace", "decode", str(src), "--mlir", str(TEST1 / "aie.mlir"), "-o", str(tmp_path / "out")]
    code = f"""
import sys
import iron.trace.decode as D, iron.trace.engine as K
D.PARALLEL_BYTES = K.PLAIN_BYTES = 0
K.COMPILED_BYTES, K.COLD_COMPILED_BYTES = {compiled_bytes}, 1 << 60
from iron.cli import main
assert main({argv!r}) == 0
print("numba" in sys.modules)
"""
    res = _run(code, tmp_path)
    assert res.returncode == 0, res.stderr
    return res.stdout.split() == ["True"]


def test_the_kernel_loader_counts_a_text_inputs_raw_bytes(tmp_path):
    """Whether a decode loads numba ahead (on a thread, while it reads INPUT) follows the
    input's raw trace bytes, 4 per 9 characters of text, as the engine choice does: a text
    capture of 64 KiB of words (147,456 characters) loads it only when the compiled bound
    is below 64 KiB, never for the size of its text."""
    pytest.importorskip("numba")
    assert not _numba_loaded(tmp_path, 100_000)  # raw 65,536 < 100,000 <= 147,456 characters
    assert _numba_loaded(tmp_path, 60_000)


def _subparser(p, *names):
    """The parser of subcommand ``names`` under ``p``."""
    import argparse

    for name in names:
        p = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction)).choices[name]
    return p


DECODE_ARGVS = [
    ["trace", "decode", "t.txt"],
    [
        "trace",
        "decode",
        "t.txt",
        "--mlir",
        "a.mlir",
        "--format",
        "perfetto",
        "-o",
        "o.json",
        "--all-intervals",
    ],
    [
        "trace",
        "decode",
        "t.bin",
        "--manifest",
        "m.json",
        "--colshift",
        "-1",
        "--core-elf",
        "a",
        "--core-elf",
        "0,2=b",
    ],
    ["trace", "decode", "--form", "pftrace", "--art", "x.elf", "t.npz"],  # abbreviations
]


@pytest.mark.parametrize("argv", DECODE_ARGVS)
def test_a_decode_command_line_parses_as_the_whole_command_parses_it(argv):
    """``iron trace decode ...`` builds only its own parser (issue 37); it reads every
    command line as the parser of every subcommand does."""
    from iron.cli import parser

    assert vars(parser("trace decode").parse_args(argv)) == vars(parser().parse_args(argv))


def test_a_bad_decode_command_line_is_refused_as_by_the_whole_parser(capsys):
    from iron.cli import parser

    errors = []
    for command in ("trace decode", None):
        with pytest.raises(SystemExit) as exc:
            parser(command).parse_args(["trace", "decode", "t.txt", "--format", "json", "--mlir", "m"])
        errors.append((exc.value.code, capsys.readouterr().err))
    assert errors[0] == errors[1] and errors[0][0] == 2 and "invalid choice: 'json'" in errors[0][1]


@pytest.mark.parametrize("columns", ["37", "200", "", "wide", None])
def test_help_is_laid_out_as_argparse_lays_it_out(monkeypatch, columns):
    """iron's help formatter sizes itself without shutil (issue 37): every help text is
    argparse's own formatter's, for any ``$COLUMNS`` (none, empty or not a number: the
    terminal's width, 80 when there is none)."""
    import argparse

    from iron.cli import parser

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    p = parser()
    for names in [(), ("trace",), ("trace", "decode"), ("trace", "wire"), ("events",)]:
        sub = _subparser(p, *names)
        ours = sub.format_help()
        sub.formatter_class = argparse.HelpFormatter
        assert sub.format_help() == ours, names
