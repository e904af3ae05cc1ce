"""The build cache: key, names, hits, corruption, interruption, concurrency, CLI."""

import multiprocessing
import os
import time

import pytest

from iron.builder import cache
from iron.artifact import elf, schema
from iron.artifact.schema import Artifact
from iron import build
from iron.builder.cli import main as cli_main
from iron.lower import npu
from iron.operators.binary import ElementwiseAdd

ADD = ElementwiseAdd(1024)


@pytest.fixture
def lowerings(monkeypatch):
    """Counts calls of the lowering (iron.lower.npu.lower_ops) made by builds."""
    calls = []
    real = npu.lower_ops

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(npu, "lower_ops", counted)
    return calls


BASE_KEY = dict(
    mlir="module {}",
    trace_options={"size": 0},
    target="npu2",
    dispatch="fused",
    toolchain="builtin-1",
    iron_version="0.1.0",
    sources=False,
)


@pytest.mark.parametrize(
    "field, value",
    [
        ("mlir", "module { }"),
        ("trace_options", {"size": 4096}),
        ("target", "npu1"),
        ("dispatch", "separate"),
        ("toolchain", "aiecc-1.0"),
        ("iron_version", "0.2.0"),
        ("negative_control", "own-arg-patch"),
        ("sources", True),
    ],
)
def test_every_key_input_changes_the_key(field, value):
    key = cache.cache_key(**BASE_KEY)
    assert len(key) == 64 and key == cache.cache_key(**BASE_KEY)
    assert cache.cache_key(**{**BASE_KEY, field: value}) != key


def test_names():
    key = "0123456789abcdef" * 4
    assert cache.artifact_name("GEMM", 0, key) == "GEMM_01234567.elf"
    assert cache.artifact_name("my seq/1", 4096, key) == "my_seq_1_traced4096_01234567.elf"


def test_untraced_traced_untraced_hits_the_cache(tmp_path, lowerings):
    a = build(ADD, trace=False, cache_dir=tmp_path)
    b = build(ADD, trace=True, trace_size=4096, cache_dir=tmp_path)
    assert len(lowerings) == 2 and not a.cached and not b.cached
    assert a.path != b.path and a.key != b.key
    assert a.path.name == f"ElementwiseAdd_{a.key[:8]}.elf"
    assert b.path.name == f"ElementwiseAdd_traced4096_{b.key[:8]}.elf"
    c = build(ADD, trace=False, cache_dir=tmp_path)
    assert len(lowerings) == 2  # no lowering ran
    assert c.cached and c.path == a.path and c.key == a.key
    assert sorted(p.name for p in tmp_path.glob("*.elf")) == sorted([a.path.name, b.path.name])


def test_trace_size_and_ntiles_change_the_key(tmp_path):
    base = build(ADD, trace=True, trace_size=4096, cache_dir=tmp_path)
    size = build(ADD, trace=True, trace_size=8192, cache_dir=tmp_path)
    with pytest.warns(UserWarning, match="compute tile"):
        tiles = build(ADD, trace=True, trace_size=4096, ntiles=2, cache_dir=tmp_path)
    assert len({base.key, size.key, tiles.key}) == 3
    assert len({base.path, size.path, tiles.path}) == 3


def test_truncated_entry_is_detected_and_rebuilt(tmp_path, lowerings):
    art = build(ADD, trace=True, trace_size=4096, cache_dir=tmp_path)
    good = art.path.read_bytes()
    art.path.write_bytes(good[: len(good) - 100])
    with pytest.warns(UserWarning, match=rf"{art.path.name} is corrupt"):
        again = build(ADD, trace=True, trace_size=4096, cache_dir=tmp_path)
    assert len(lowerings) == 2 and not again.cached
    assert again.path.read_bytes() == good


def test_flipped_byte_is_detected_and_rebuilt(tmp_path, lowerings):
    art = build(ADD, trace=True, trace_size=4096, cache_dir=tmp_path)
    data = bytearray(art.path.read_bytes())
    code = elf.read_sections(art.path)[schema.code_section(0)]
    data[bytes(data).index(code) + 40] ^= 0x10  # inside the control code
    art.path.write_bytes(bytes(data))
    with pytest.warns(UserWarning, match="checksum mismatch"):
        again = build(ADD, trace=True, trace_size=4096, cache_dir=tmp_path)
    assert len(lowerings) == 2 and Artifact.open(again.path).kernels["main:sequence"].control == code


def test_interrupted_write_leaves_nothing(tmp_path, monkeypatch):
    def boom(fd):
        raise KeyboardInterrupt("interrupted during the write")

    monkeypatch.setattr(os, "fsync", boom)
    with pytest.raises(KeyboardInterrupt):
        build(ADD, trace=True, trace_size=4096, cache_dir=tmp_path)
    assert [p.name for p in tmp_path.iterdir() if p.name != cache.LOCK_DIR] == []
    monkeypatch.undo()
    art = build(ADD, trace=True, trace_size=4096, cache_dir=tmp_path)  # the lock was released
    assert not art.cached and Artifact.open(art.path).key == art.key


def test_atomic_write_replaces_whole_file(tmp_path):
    target = tmp_path / "x.elf"
    cache.atomic_write(target, b"old")
    cache.atomic_write(target, b"new contents")
    assert target.read_bytes() == b"new contents"
    assert [p.name for p in tmp_path.iterdir()] == ["x.elf"]


def _child_build(cache_dir, barrier, results):
    # Slow the lowering down so that all four processes contend for the lock.
    real = npu.lower_ops

    def slow(*args, **kwargs):
        time.sleep(0.3)
        return real(*args, **kwargs)

    npu.lower_ops = slow
    barrier.wait(timeout=60)
    try:
        art = build(ADD, trace=True, trace_size=4096, cache_dir=cache_dir)
        results.put((str(art.path), art.cached, art.key))
    except BaseException as exc:  # reported to the parent as a failure
        results.put(("error", repr(exc), ""))


def test_four_processes_build_once(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(4)
    results = ctx.Queue()
    procs = [ctx.Process(target=_child_build, args=(str(tmp_path), barrier, results)) for _ in range(4)]
    for p in procs:
        p.start()
    out = [results.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    assert all(r[0] != "error" for r in out), out
    assert len({r[0] for r in out}) == 1 and len({r[2] for r in out}) == 1
    assert sorted(r[1] for r in out) == [False, True, True, True]  # built once
    assert [p.name for p in tmp_path.glob("*.elf")] == [os.path.basename(out[0][0])]
    assert Artifact.open(out[0][0]).traced
    assert not list(tmp_path.glob(".*.tmp"))


def test_list_and_clear(tmp_path, capsys):
    a = build(ADD, trace=False, cache_dir=tmp_path)
    b = build(ADD, trace=True, trace_size=4096, cache_dir=tmp_path)
    entries = cache.list_entries(tmp_path)
    assert {(e.path, e.trace_size, e.key8) for e in entries} == {
        (a.path, 0, a.key[:8]),
        (b.path, 4096, b.key[:8]),
    }
    assert cli_main(["cache", "list", "--cache-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "2 artifacts" in out and b.path.name in out and "traced 4096" in out and "untraced" in out
    assert cli_main(["cache", "clear", "--cache-dir", str(tmp_path)]) == 0
    assert "removed 2 artifacts" in capsys.readouterr().out
    assert cache.list_entries(tmp_path) == [] and [p.name for p in tmp_path.iterdir()] == [cache.LOCK_DIR]
    assert cli_main(["cache", "list", "--cache-dir", str(tmp_path)]) == 0
    assert "empty" in capsys.readouterr().out


def test_default_cache_dir_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("IRON_CACHE_DIR", str(tmp_path / "env-cache"))
    art = build(ADD, trace=False)
    assert art.path.parent == tmp_path / "env-cache"
    monkeypatch.delenv("IRON_CACHE_DIR")
    monkeypatch.chdir(tmp_path)
    assert build(ADD, trace=False).path.parent.resolve() == (tmp_path / "build" / "iron-cache").resolve()


# ---------------------------------------------------------------- issue 14 item 2: only iron's own entries
def _foreign_files(root):
    """Files a user may keep next to the cache, some named like entries."""
    (root / "notes.json").write_text("{}")
    (root / "firmware.elf").write_bytes(b"\x7fELF not iron's")
    (root / "lookalike_traced4096_0123abcd.elf").write_bytes(elf.write_elf({".iron.code.0": b"1234"}))
    (root / "garbage_89abcdef.elf").write_bytes(b"\0" * 64)
    (root / ".editor.swp.tmp").write_text("x")
    (root / "subdir").mkdir()
    return sorted(["notes.json", "firmware.elf", "lookalike_traced4096_0123abcd.elf", "garbage_89abcdef.elf",
                   ".editor.swp.tmp", "subdir"])  # fmt: skip


def test_clear_and_list_leave_foreign_files_alone_and_say_so(tmp_path, capsys):
    art = build(ADD, trace=True, trace_size=4096, cache_dir=tmp_path)
    renamed = tmp_path / f"{art.path.name[:-len('_12345678.elf')]}_ffffffff.elf"  # key does not match name
    renamed.write_bytes(art.path.read_bytes())
    foreign = sorted([*_foreign_files(tmp_path), renamed.name])
    assert [e.path for e in cache.list_entries(tmp_path)] == [art.path]
    assert cli_main(["cache", "list", "--cache-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "1 artifacts" in out and "lookalike" not in out.split("left alone")[0]
    assert f"left alone {len(foreign)} item(s) that are not iron's" in out
    assert cli_main(["cache", "clear", "--cache-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "removed 1 artifacts" in out and "not iron's" in out
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != cache.LOCK_DIR) == foreign
    assert (tmp_path / "notes.json").read_text() == "{}"


def test_clear_skips_an_entry_whose_build_is_in_progress(tmp_path, monkeypatch):
    """A clear that runs while a build holds the key's lock (here: from inside the
    build's store step) must not delete what the build is about to open."""
    real_store = cache.Cache.store
    reports = []

    def store_then_clear(self, path, data):
        real_store(self, path, data)
        reports.append(cache.clear(tmp_path))

    monkeypatch.setattr(cache.Cache, "store", store_then_clear)
    art = build(ADD, trace=True, trace_size=4096, cache_dir=tmp_path)
    assert art.path.exists() and not art.cached
    assert [e.path for e in reports[0].busy] == [art.path] and reports[0].removed == []
    monkeypatch.undo()
    assert [e.path for e in cache.clear(tmp_path).removed] == [art.path]


def test_clear_removes_stale_temp_files_but_not_a_live_one(tmp_path):
    art = build(ADD, trace=False, cache_dir=tmp_path)
    key8 = art.path.name[-12:-4]
    stale = tmp_path / f".{art.path.name}.0123abcd.tmp"
    stale.write_bytes(b"half")
    live_name = f"Other_{key8[:4]}0000.elf"
    live = tmp_path / f".{live_name}.89abcdef.tmp"
    live.write_bytes(b"half")
    with cache.Cache(tmp_path).lock(f"{key8[:4]}0000" + "0" * 24):
        report = cache.clear(tmp_path)
    assert report.removed and not stale.exists() and live.exists()


def test_directory_at_an_entry_path_is_healed_or_reported(tmp_path):
    art = build(ADD, trace=False, cache_dir=tmp_path)
    art.path.unlink()
    art.path.mkdir()  # empty: nothing to lose, healed
    with pytest.warns(UserWarning, match="empty directory"):
        again = build(ADD, trace=False, cache_dir=tmp_path)
    assert again.path.is_file() and not again.cached
    again.path.unlink()
    again.path.mkdir()
    (again.path / "keep.txt").write_text("user data")
    with pytest.raises(cache.CacheError, match="directory sits at this cache entry's path"):
        build(ADD, trace=False, cache_dir=tmp_path)
    assert (again.path / "keep.txt").read_text() == "user data"
    report = cache.clear(tmp_path)
    assert any(str(again.path) in p for p in report.problems)
