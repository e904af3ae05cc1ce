"""The build cache writes only its own regular files in its own folder (issue 36, "files outside
what was asked"), and never keeps or returns an entry it cannot stand behind.

Each test fails on the code before the fix: a symlink at an entry's path was written through
(the user's file changed), a FIFO there hung the build, an entry with the build's key but other
outputs was returned, a 300-byte folder name was a bare OSError, and a buffer no artifact may
declare was stored as an entry the cache could not read back.
"""

from __future__ import annotations

import os
import stat
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import iron
from iron.artifact import elf
from iron.artifact.schema import META, read_sections
from iron.builder.cache import CacheError
from iron.errors import IronError, OptionError
from iron.operators import ReLU

OP = ReLU(1024, "bf16")


@pytest.fixture(scope="module")
def entry_name(tmp_path_factory) -> str:
    """The entry name of ``OP``'s untraced build (its key is iron's, not a constant here)."""
    return iron.build(OP, trace=False, cache_dir=tmp_path_factory.mktemp("c")).path.name


def _build(cache: Path):
    return iron.build(OP, trace=False, cache_dir=cache)


@pytest.mark.parametrize("target_kind", ["file", "dangling", "directory"])
def test_a_symlink_at_an_entry_path_is_not_written_through(tmp_path, entry_name, target_kind):
    cache = tmp_path / "cache"
    cache.mkdir()
    outside = tmp_path / "user"
    if target_kind == "file":
        outside.write_bytes(b"the user's file")
    elif target_kind == "directory":
        outside.mkdir()
    os.symlink(outside, cache / entry_name)
    with pytest.raises(CacheError, match=r"a symlink sits at this cache entry's path"):
        _build(cache)
    assert (cache / entry_name).is_symlink()  # left as the user made it
    if target_kind == "file":
        assert outside.read_bytes() == b"the user's file"
    else:
        assert not outside.exists() or list(outside.iterdir()) == []


def test_a_fifo_at_an_entry_path_is_refused_not_opened(tmp_path, entry_name):
    cache = tmp_path / "cache"
    cache.mkdir()
    os.mkfifo(cache / entry_name)  # opening it for writing blocked until a reader came: forever
    with pytest.raises(CacheError, match=r"a special file \(FIFO, device or socket\)"):
        _build(cache)
    assert stat.S_ISFIFO((cache / entry_name).lstat().st_mode)


def test_store_replaces_a_link_that_appears_after_the_lookup(tmp_path):
    """The entry is renamed onto the path itself: a link placed there between lookup and store
    (another process) is replaced, its target untouched."""
    from iron.files import atomic_write

    outside = tmp_path / "user"
    outside.write_bytes(b"mine")
    link = tmp_path / "entry.elf"
    os.symlink(outside, link)
    atomic_write(link, b"new", follow=False)
    assert outside.read_bytes() == b"mine" and not link.is_symlink() and link.read_bytes() == b"new"


def _resign(path: Path, edit) -> None:
    """Rewrite the artifact at ``path`` with its meta edited, checksum recomputed (elf.write_elf)."""
    import json

    sections = read_sections(path)
    meta = json.loads(sections[META])
    edit(meta)
    sections[META] = json.dumps(meta, sort_keys=True, indent=1).encode()
    path.write_bytes(
        elf.write_elf({k: v for k, v in sections.items() if k.startswith(".iron.") and k != ".iron.sum"})
    )


def test_an_entry_with_the_key_but_other_outputs_is_rebuilt(tmp_path):
    art = _build(tmp_path)
    assert art.outputs == ["out"] or len(art.outputs) == 1  # ReLU: one output
    _resign(art.path, lambda m: m.update(outputs=[]))
    with pytest.warns(UserWarning, match=r"has this build's key but other outputs"):
        again = _build(tmp_path)
    assert again.outputs == art.outputs and not again.cached


def test_a_300_byte_cache_dir_name_is_an_option_error(tmp_path):
    with pytest.raises(OptionError, match=r"the folder name .* is 300 bytes; accepted: names of at most 255"):
        _build(tmp_path / ("d" * 300))


def test_a_buffer_no_artifact_may_declare_is_refused_before_the_cache(tmp_path):
    from iron.tests.test_integer_literals_and_encodings import _design

    text = _design(a=("%in : memref<64xi32>", "%in : memref<99999999999999999999xi32>"))
    op = iron.from_mlir(text, reference=lambda a, b: (a + 1,))
    with pytest.raises(
        IronError, match=r"buffer 'in' is memref<99999999999999999999xi32>.*at most 17179869184"
    ):
        iron.build(op, target="npu1", cache_dir=tmp_path, trace=False)
    assert [p.name for p in tmp_path.iterdir() if p.name != ".locks"] == []


# --------------------------------------------------------------------------- property
def _snapshot(root: Path) -> dict:
    return {
        str(p.relative_to(root)): (
            p.lstat().st_mode,
            p.read_bytes() if p.is_file() and not p.is_symlink() else b"",
        )
        for p in sorted(root.rglob("*"))
        if not stat.S_ISFIFO(p.lstat().st_mode)
    }


OCCUPANTS = st.sampled_from(
    ["link-file", "link-dangling", "link-dir", "fifo", "garbage", "empty-dir", "full-dir", "none"]
)
FOLDERS = st.one_of(
    st.text(st.characters(codec="utf-8", exclude_characters="/\0"), min_size=1, max_size=12),
    st.integers(250, 300).map(lambda n: "x" * n),
)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(occupant=OCCUPANTS, folder=FOLDERS)
def test_whatever_sits_in_the_cache_nothing_outside_it_changes(
    tmp_path_factory, entry_name, occupant, folder
):
    """Whatever occupies the entry's path, and whatever the folder is called, the build returns
    an artifact or raises IronError, and nothing outside the cache folder changes."""
    root = tmp_path_factory.mktemp("prop")
    outside = root / "outside"
    outside.mkdir()
    (outside / "f").write_bytes(b"user")
    cache = root / folder
    try:
        cache.mkdir(exist_ok=True)
    except OSError:
        cache = None
    if cache is not None and cache != outside:
        entry = cache / entry_name
        if occupant == "link-file":
            os.symlink(outside / "f", entry)
        elif occupant == "link-dangling":
            os.symlink(outside / "nothing", entry)
        elif occupant == "link-dir":
            os.symlink(outside, entry)
        elif occupant == "fifo":
            os.mkfifo(entry)
        elif occupant == "garbage":
            entry.write_bytes(b"\x7fELF garbage")
        elif occupant in ("empty-dir", "full-dir"):
            entry.mkdir()
            if occupant == "full-dir":
                (entry / "keep").write_bytes(b"k")
    before = _snapshot(outside)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            art = _build(root / folder)
            assert art.path.parent == root / folder and art.path.is_file() and not art.path.is_symlink()
        except IronError:
            pass
    assert _snapshot(outside) == before
