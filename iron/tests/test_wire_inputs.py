"""``iron trace wire``: its inputs go through the input checks, its sizes are validated as
``iron.build`` validates them, and it writes both outputs or neither.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from iron import cli as iron_cli
from iron.artifact.manifest import Manifest
from iron.fuse.wire import WireError, manifest_path, wire
from iron.tests.upstream import UPSTREAM
from iron.tests.test_core_elf_inputs import fifo, huge  # noqa: F401

DATA = Path(__file__).parent / "data"


CONFIGURE_RUN = UPSTREAM / "test_trace_configure_run.mlir"


def _wire_cli(capsys, *argv) -> tuple[int, str]:
    code = iron_cli.main(["trace", "wire", *map(str, argv)])
    err = capsys.readouterr().err
    assert code == 0 or err.count("\n") == 1, err
    return code, err


@pytest.mark.parametrize("which", ["/dev/zero", "fifo", "huge"])
def test_wire_input_goes_through_the_input_checks(which, fifo, huge, tmp_path, capsys):
    path = {"/dev/zero": "/dev/zero", "fifo": fifo, "huge": huge}[which]
    code, err = _wire_cli(capsys, path, "-o", tmp_path / "o.mlir")
    assert code == 2 and ("not a regular file" in err or "more than the largest MLIR file" in err)
    assert not (tmp_path / "o.mlir").exists()


@pytest.mark.parametrize(
    "size, message",
    [
        ("8200", "not a multiple of 32"),
        (str(1 << 66), "exceeds what a shim BD length can address"),
        ("-64", "buffer_size=-64: must be >= 0"),  # read as MLIR reads it (issue 36), then refused
    ],
)
def test_wire_validates_host_config_sizes_as_build_does(size, message, tmp_path, capsys):
    src = tmp_path / "in.mlir"
    src.write_text(CONFIGURE_RUN.read_text().replace("buffer_size = 8192", f"buffer_size = {size}", 1))
    code, err = _wire_cli(capsys, src, "-o", tmp_path / "o.mlir")
    assert code == 2 and message in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.mlir"]


@pytest.mark.parametrize("size, message", [("100", "not a multiple of 32"), ("9" * 5000, "not an integer")])
def test_wire_trace_size_is_validated(size, message, tmp_path, capsys):
    code, err = _wire_cli(capsys, CONFIGURE_RUN, "--trace-size", size, "-o", tmp_path / "o.mlir")
    assert code == 2 and message in err
    with pytest.raises(WireError, match=message):
        wire(CONFIGURE_RUN.read_text(), trace_size=size)


def test_wire_to_a_directory_leaves_nothing_behind(tmp_path, capsys):
    out = tmp_path / "d"
    out.mkdir()
    code, err = _wire_cli(capsys, CONFIGURE_RUN, "-o", out)
    assert code == 2 and "is a directory" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]  # no d.manifest.json
    code, err = _wire_cli(capsys, CONFIGURE_RUN, "-o", f"{tmp_path}/new/")
    assert code == 2 and sorted(p.name for p in tmp_path.iterdir()) == ["d"]


def test_wire_writes_both_or_neither(tmp_path, monkeypatch):
    from iron import files
    from iron.fuse import wire as wire_mod

    out = tmp_path / "traced.mlir"
    real = files.atomic_write

    def failing(path, data):
        if str(path) == str(out):
            raise files.OutputError(path, "No space left on device")
        real(path, data)

    monkeypatch.setattr(files, "atomic_write", failing)
    with pytest.raises(files.OutputError):
        wire_mod.write_wired(CONFIGURE_RUN, out)
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    manifest_path(out).write_text("old")
    with pytest.raises(files.OutputError):
        wire_mod.write_wired(CONFIGURE_RUN, out)
    assert manifest_path(out).read_text() == "old" and not out.exists()
    monkeypatch.setattr(files, "atomic_write", real)
    wire_mod.write_wired(CONFIGURE_RUN, out)
    assert Manifest.from_json(manifest_path(out).read_text()).total_size == 16384


def test_write_errors_name_the_path_once(tmp_path, capsys):
    from iron.trace.cli import main

    words = tmp_path / "w.bin"
    words.write_bytes(bytes(64))
    out = tmp_path / "missing" / "x.json"
    (tmp_path / "missing").write_text("a file where a folder should be")
    code = main(["trace", "decode", str(words), "--mlir", str(DATA / "mlir-aie-test1/aie.mlir"),
                 "--format", "perfetto", "-o", str(out)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and err.count(str(out)) == 1, err
