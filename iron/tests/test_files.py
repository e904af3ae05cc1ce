"""iron.files: the one writer of result files (issue 14, item 1).

Expected behaviour is POSIX's, not iron's: a file made by a plain ``open()`` gets
``0o666 & ~umask``; ``chmod`` on a file survives rewrites; a symlink or FIFO at the
destination stays what it is.
"""

from __future__ import annotations

import os
import stat

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iron.errors import IronError
from iron.files import OutputError, atomic_open, atomic_write

posix = pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")


@pytest.fixture
def umask():
    def set_(mask):
        old = os.umask(mask)
        restore.append(old)

    restore: list[int] = []
    yield set_
    for old in reversed(restore):
        os.umask(old)


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def reference_mode(tmp_path, name="ref") -> int:
    """What a plain open() gives under the current umask."""
    ref = tmp_path / name
    with open(ref, "w"):
        pass
    return mode(ref)


@posix
@pytest.mark.parametrize("mask", [0o022, 0o002, 0o077])
def test_new_file_gets_what_open_gives(tmp_path, umask, mask):
    umask(mask)
    atomic_write(tmp_path / "out.json", "{}")
    assert mode(tmp_path / "out.json") == reference_mode(tmp_path) == 0o666 & ~mask


@posix
def test_rewrite_keeps_a_users_chmod(tmp_path, umask):
    umask(0o022)
    path = tmp_path / "shared.elf"
    atomic_write(path, b"one")
    os.chmod(path, 0o664)
    atomic_write(path, b"two")
    assert path.read_bytes() == b"two"
    assert mode(path) == 0o664


@posix
def test_symlink_is_written_through_not_replaced(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    atomic_write(link, "new")
    assert link.is_symlink()
    assert real.read_text() == "new"
    dangling = tmp_path / "dangling.txt"
    dangling.symlink_to(tmp_path / "made.txt")
    atomic_write(dangling, "made")
    assert dangling.is_symlink() and (tmp_path / "made.txt").read_text() == "made"


@posix
def test_fifo_is_written_through_not_replaced(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader exists: opening to write won't block
    try:
        atomic_write(fifo, b"through the pipe")
        got = os.read(reader, 100)
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced by a regular file"
    assert got == b"through the pipe"


def test_dev_null_is_written_through():
    if not os.path.exists("/dev/null"):
        pytest.skip("no /dev/null")
    before = os.stat("/dev/null")
    atomic_write("/dev/null", b"discarded")
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino


def test_error_names_the_users_path_not_the_temp_file(tmp_path):
    target = tmp_path / "a_directory"
    target.mkdir()
    with pytest.raises(OutputError) as info:
        atomic_write(target, "x")
    assert isinstance(info.value, IronError) and isinstance(info.value, OSError)
    assert str(target) in str(info.value) and ".tmp" not in str(info.value)
    blocked = tmp_path / "file"
    blocked.write_text("")
    with pytest.raises(OutputError) as info:
        atomic_write(blocked / "below" / "out.json", "x")  # a parent is a regular file
    assert str(blocked / "below" / "out.json") in str(info.value) and ".tmp" not in str(info.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_directory", "file"]


def test_failure_leaves_the_old_file_and_no_temp(tmp_path):
    path = tmp_path / "trace.json"
    atomic_write(path, "old")
    with pytest.raises(RuntimeError):
        with atomic_open(path) as f:
            f.write(b"half")
            raise RuntimeError("stop")
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["trace.json"]


# --------------------------------------------------------------------------- threaded writes
def test_threaded_writes_arrive_whole_and_in_order(tmp_path):
    import gzip

    import numpy as np

    chunks = [bytes([i % 251]) * (i * 37 % 5000) for i in range(400)]
    chunks += [np.arange(i, i + 3000, dtype=np.uint8) for i in range(50)]  # arrays, as the renderers give
    want = b"".join(bytes(c) for c in chunks)
    for name, level in (("a.json", None), ("a.json.gz", 1)):
        with atomic_open(tmp_path / name, gzip_level=level, threaded=True) as f:
            for c in chunks:
                f.write(c)
        got = (tmp_path / name).read_bytes()
        assert (gzip.decompress(got) if level else got) == want


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("writes", [1, 64])  # the error raised by close / by a later write
def test_threaded_write_error_reaches_the_caller_naming_the_path(writes):
    with pytest.raises(OutputError) as info:
        with atomic_open("/dev/full", threaded=True) as f:
            for _ in range(writes):
                f.write(b"x" * (1 << 16))
    assert "/dev/full" in str(info.value) and "space" in str(info.value).lower()


def test_threaded_failure_leaves_the_old_file_and_no_thread(tmp_path):
    import threading

    path = tmp_path / "trace.json"
    atomic_write(path, "old")
    with pytest.raises(RuntimeError):
        with atomic_open(path, threaded=True) as f:
            for _ in range(100):
                f.write(b"half" * 1000)
            raise RuntimeError("stop")
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["trace.json"]
    assert not [t for t in threading.enumerate() if t.name == "iron-writer"]


@given(
    st.lists(
        st.sampled_from(["/", "//", "///", ".", "..", "a", "b.c", ".bin", "x.BIN", " ", "\\", "~"]),
        max_size=8,
    )
)
@settings(max_examples=400, deadline=None)
def test_pure_path_is_pathlibs_string(parts):
    """iron.files names paths as pathlib does, without importing it (issue 37): the oracle is
    ``str(Path(...))`` itself, over paths of separators, dots and names in any order."""
    from pathlib import Path

    from iron.files import pure_path
    from iron.trace.words import _suffix

    name = "".join(parts)
    assert pure_path(name) == str(Path(name)), name
    assert pure_path(Path(name)) == str(Path(name))
    assert _suffix(pure_path(name)) == Path(name).suffix, name  # what tells a .bin capture


def test_an_output_named_with_dots_and_doubled_separators_is_the_file_pathlib_names(tmp_path, monkeypatch):
    """``-o ./sub//out.txt/.`` writes ``sub/out.txt`` (what pathlib made of it: the trailing
    ``.`` dropped), into a folder made as needed; a bare name is written in the working folder."""
    monkeypatch.chdir(tmp_path)
    atomic_write("./sub//out.txt/.", b"x")
    atomic_write("bare.txt", b"y")
    assert (tmp_path / "sub" / "out.txt").read_bytes() == b"x" and (
        tmp_path / "bare.txt"
    ).read_bytes() == b"y"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bare.txt", "sub"]  # no temp file left
    with pytest.raises(OutputError, match="is a directory"):
        atomic_write("", b"z")  # pathlib's "." : the working folder
