"""The build cache directory: clearing it leaves user files alone, a dangling symlink is an
option error.
"""

from __future__ import annotations

import pytest

from iron import build
from iron.errors import OptionError
from iron.operators import ElementwiseAdd


def test_cache_clear_leaves_user_files_named_like_temp_files(tmp_path):
    from iron.builder import cache

    art = build(ElementwiseAdd(1024, "i32"), trace=False, cache_dir=tmp_path)
    key8 = art.path.name[-12:-4]
    mine = [
        tmp_path / f".{art.path.name}.backup.tmp",  # not iron's 8-hex temp suffix
        tmp_path / ".notes_0123abcd.elf.89abcdef.tmp",  # no build of key 0123abcd ever ran here
    ]
    for p in mine:
        p.write_text("user data")
    stale = tmp_path / f".{art.path.name}.0123abcd.tmp"
    stale.write_bytes(b"half")
    cache.clear(tmp_path)
    assert [p.read_text() for p in mine] == ["user data"] * 2 and not stale.exists() and key8


def test_dangling_symlink_cache_dir_is_an_option_error(tmp_path):
    link = tmp_path / "cache"
    link.symlink_to(tmp_path / "gone")
    with pytest.raises(OptionError, match=r"a symlink to .*gone.*which does not exist"):
        build(ElementwiseAdd(1024, "i32"), trace=False, cache_dir=link)
