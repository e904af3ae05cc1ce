"""The build cache (DESIGN.md 3.4): the one owner of the cache key.

Key = sha256 over the canonical printed fused MLIR (which contains the trace
program), the trace options, target, dispatch mode, toolchain identity (aiecc
version or iron's built-in lowering version), iron's version, the negative-
control switch ``emulate_bug`` and whether sources are embedded. Traced and
untraced builds therefore never share an entry, and toggling tracing off and on
again hits the cache.

Entries are named ``<name>[_traced<size>]_<key8>.elf``. Writes are atomic (temp
file in the same directory, fsync, ``os.replace``); concurrent builds of one key
(several processes) are serialized by a ``filelock`` per key; every entry carries
a checksum (section ``.iron.sum``) that is verified on load, and a corrupt or
truncated entry is reported and rebuilt.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

from iron import options
from iron.files import atomic_write  # noqa: F401  (re-exported: the cache's writes)

#: Version of iron's built-in lowering (materialize + lower.npu + txn + elf).
#: Bump when the bytes it produces for the same module change.
BUILTIN_LOWERING_VERSION = "1"
LOCK_DIR = ".locks"
SUFFIX = ".elf"
_NAME = re.compile(r"^(?P<name>.+?)(?:_traced(?P<size>\d+))?_(?P<key8>[0-9a-f]{8})\.elf$")


def iron_version() -> str:
    """iron's version: ``iron.__version__``, else the installed distribution's."""
    import iron

    version = getattr(iron, "__version__", None)
    if version:
        return str(version)
    try:
        from importlib.metadata import version as dist_version

        return dist_version("iron-npu-trace")
    except Exception:  # not installed (source tree): still a stable string
        return "0+unknown"


def builtin_toolchain() -> str:
    return f"builtin-{BUILTIN_LOWERING_VERSION}"


def cache_key(
    *,
    mlir: str,
    trace_options: dict,
    target: str,
    dispatch: str,
    toolchain: str,
    iron_version: str,
    emulate_bug: str | None,
    sources: bool,
) -> str:
    """The full cache key (64 hex digits) of one build."""
    identity = {
        "trace": trace_options,
        "target": target,
        "dispatch": dispatch,
        "toolchain": toolchain,
        "iron": iron_version,
        "emulate_bug": emulate_bug,
        "sources": bool(sources),
    }
    h = hashlib.sha256()
    h.update(json.dumps(identity, sort_keys=True, separators=(",", ":")).encode())
    h.update(b"\0")
    h.update(mlir.encode())
    return h.hexdigest()


def artifact_name(name: str, trace_size: int, key: str) -> str:
    """``<name>[_traced<size>]_<key8>.elf`` with ``name`` made file-system safe."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._") or "artifact"
    traced = f"_traced{trace_size}" if trace_size else ""
    return f"{safe}{traced}_{key[:8]}{SUFFIX}"


class Cache:
    """One cache directory (default :func:`iron.options.cache_dir`)."""

    def __init__(self, directory: str | os.PathLike | None = None):
        self.dir = options.cache_dir(directory)

    def path(self, name: str, trace_size: int, key: str) -> Path:
        return self.dir / artifact_name(name, trace_size, key)

    def lock(self, key: str, timeout: float = -1) -> FileLock:
        """Inter-process lock serializing builds of ``key``."""
        locks = self.dir / LOCK_DIR
        locks.mkdir(parents=True, exist_ok=True)
        return FileLock(str(locks / f"{key[:32]}.lock"), timeout=timeout)

    def lookup(self, path: Path, key: str, *, report: bool = True):
        """The valid cached :class:`Artifact` at ``path`` for ``key``, or None.

        A damaged entry (truncated, checksum mismatch, unreadable metadata) is a
        miss; with ``report`` a warning names the file. The caller rebuilds it.
        """
        from iron.artifact.artifact import Artifact
        from iron.artifact.elf import ArtifactError

        if not path.exists():
            return None
        try:
            art = Artifact.open(path)
        except ArtifactError as exc:
            if report:
                warnings.warn(f"iron cache: {path} is corrupt ({exc}); rebuilding it", stacklevel=3)
            return None
        if art.key != key:  # an 8-digit name collision: rebuild over it
            return None
        art.cached = True
        return art

    def store(self, path: Path, data: bytes) -> None:
        atomic_write(path, data)


@dataclass
class CacheEntry:
    path: Path
    name: str
    trace_size: int
    key8: str
    size: int  # bytes on disk
    mtime: float

    @property
    def traced(self) -> bool:
        return self.trace_size > 0


def list_entries(directory: str | os.PathLike | None = None) -> list[CacheEntry]:
    """Artifacts in the cache, newest first."""
    root = options.cache_dir(directory)
    if not root.is_dir():
        return []
    out = []
    for p in root.glob(f"*{SUFFIX}"):
        m = _NAME.match(p.name)
        if not m or not p.is_file():
            continue
        st = p.stat()
        out.append(CacheEntry(p, m["name"], int(m["size"] or 0), m["key8"], st.st_size, st.st_mtime))
    return sorted(out, key=lambda e: (-e.mtime, e.path.name))


def clear(directory: str | os.PathLike | None = None) -> int:
    """Remove every cache entry (with sidecars, locks and stale temp files); returns
    the number of artifacts removed."""
    root = options.cache_dir(directory)
    if not root.is_dir():
        return 0
    entries = list_entries(root)
    for e in entries:
        e.path.unlink(missing_ok=True)
        for side in root.glob(f"{glob_escape(e.path.name)}.*.json"):
            side.unlink(missing_ok=True)
    for tmp in root.glob(f".*{SUFFIX}.*.tmp"):
        tmp.unlink(missing_ok=True)
    shutil.rmtree(root / LOCK_DIR, ignore_errors=True)
    return len(entries)


def glob_escape(text: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", text)


def age(mtime: float) -> str:
    """Short human age of a modification time (for ``iron cache list``)."""
    s = max(0.0, time.time() - mtime)
    for unit, n in (("d", 86400), ("h", 3600), ("m", 60)):
        if s >= n:
            return f"{s / n:.0f}{unit}"
    return f"{s:.0f}s"
