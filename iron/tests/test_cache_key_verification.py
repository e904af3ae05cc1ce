"""The build cache verifies the full key stored in an artifact, not only its file name."""

from __future__ import annotations

from iron import build
from iron.builder import cache
from iron.tests.test_build_wiring_checks import ADD  # noqa: F401


def test_cache_lookup_verifies_the_full_key_not_the_name(tmp_path, monkeypatch):
    first = build(ADD, trace=False, cache_dir=tmp_path)
    other = first.key[:8] + ("0" if first.key[8] != "0" else "1") + first.key[9:]
    assert other != first.key and other[:8] == first.key[:8]
    store = cache.Cache(tmp_path)
    assert store.lookup(first.path, other) is None and store.lookup(first.path, first.key) is not None
    monkeypatch.setattr(cache, "cache_key", lambda **_kw: other)  # e.g. another toolchain
    second = build(ADD, trace=False, cache_dir=tmp_path)
    assert second.path == first.path  # same file name ...
    assert second.key == other and not second.cached  # ... but rebuilt for the other key
