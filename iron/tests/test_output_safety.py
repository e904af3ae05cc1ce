"""Outputs go only where they were asked, whole or not at all (issue 36, "files outside what was
asked"): aiecc's kernel objects stay inside aiecc's folder, ``link_with`` names the file system
cannot hold are refused with the name, and mlir-aie's per-slice JSON files are all written or none.
Each test fails on the code before its fix (noted per test)."""

from __future__ import annotations

import pytest

import iron
from iron.errors import IronError
from iron.tests.test_foreign_real_path import EVENT_TRACE
from iron.tests.test_artifact import fake_aiecc  # noqa: F401  (the recording fake aiecc)


def _design(tmp_path, link_with: str):
    folder = tmp_path / "user_build"
    folder.mkdir()
    text = EVENT_TRACE.read_text().replace("NPUDEVICE", "npu1_1col").replace('"scale.o"', f'"{link_with}"')
    (folder / "aie_trace.mlir").write_text(text)
    return folder / "aie_trace.mlir"


def test_an_absolute_link_with_is_not_written_outside_aieccs_folder(tmp_path, fake_aiecc):
    """Before: iron copied the objects= file to ``work / "/abs/scale.o"``, i.e. onto the user's file."""
    runs, _ = fake_aiecc("legacy")
    victim = tmp_path / "victim" / "scale.o"
    victim.parent.mkdir()
    victim.write_bytes(b"the user's own scale.o")
    path = _design(tmp_path, str(victim))
    other = tmp_path / "objs" / "scale.o"
    other.parent.mkdir()
    other.write_bytes(b"another object")
    op = iron.from_mlir(path, name="event_trace", objects=[other])
    with pytest.raises(IronError, match=r"names a path outside aiecc's folder"):
        iron.build(op, trace=False, target="npu1", cache_dir=tmp_path / "cache")
    assert victim.read_bytes() == b"the user's own scale.o" and not (tmp_path / "aiecc.log").exists()


def test_a_relative_link_with_leaving_the_folder_is_refused(tmp_path, fake_aiecc):
    runs, _ = fake_aiecc("legacy")
    path = _design(tmp_path, "../../escaped.o")
    other = tmp_path / "escaped.o"
    other.write_bytes(b"obj")
    op = iron.from_mlir(path, name="event_trace", objects=[other])
    with pytest.raises(IronError, match=r'link_with = "\.\./\.\./escaped\.o" names a path outside'):
        iron.build(op, trace=False, target="npu1", cache_dir=tmp_path / "cache")
    assert not (tmp_path / "aiecc.log").exists()  # aiecc never ran


def test_an_absolute_link_with_naming_the_found_file_is_read_in_place(tmp_path, fake_aiecc):
    """A design linking an object by its absolute path (the file exists) builds: nothing is copied."""
    runs, inputs = fake_aiecc("legacy")
    obj = tmp_path / "objs" / "scale.o"
    obj.parent.mkdir()
    obj.write_bytes(b"\x7fELF scale")
    path = _design(tmp_path, str(obj))
    iron.build(iron.from_mlir(path, name="event_trace"), trace=False, target="npu1", cache_dir=tmp_path / "c")
    assert len(runs()) == 1 and obj.read_bytes() == b"\x7fELF scale"


@pytest.mark.parametrize("as_file", [False, True])
def test_a_link_with_longer_than_a_file_name_is_one_error(tmp_path, as_file):
    """Before: OSError "File name too long" where iron looked for the object beside the design."""
    name = "k" * 300 + ".o"
    path = _design(tmp_path, name)
    source = path if as_file else path.read_text()
    with pytest.raises(
        IronError, match=r"link_with = 'k{60}'\.\.\.: a file name of 302 bytes; accepted: .* 255"
    ):
        iron.from_mlir(source, name="event_trace")


def test_per_slice_files_are_all_written_or_none(tmp_path):
    """Before: the first slice's file stayed when the second could not be written."""
    from iron.trace.cli import main
    from iron.tests.test_upstream_trace import _fused_module, _fused_words

    mlir = tmp_path / "fused.mlir"
    mlir.write_text(_fused_module())
    trace = tmp_path / "trace.txt"
    trace.write_text("\n".join(f"{w:08x}" for w in _fused_words()) + "\n")
    (tmp_path / "trace_1_dev_b_sequence.json").mkdir()  # the second file cannot be written
    argv = ["trace", "decode", str(trace), "--mlir", str(mlir), "--format", "mlir-aie"]
    assert main([*argv, "-o", str(tmp_path / "trace.json")]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "fused.mlir",
        "trace.txt",
        "trace_1_dev_b_sequence.json",
    ]
