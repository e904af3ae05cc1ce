"""The build cache (docs/design.md 3.4): the one owner of the cache key.

Key = sha256 over the canonical printed fused MLIR (which contains the trace
program), the trace options, target, dispatch mode, the build back end
(``builtin`` or ``aiecc``) and its toolchain identity (aiecc version or iron's
built-in lowering version), iron's version, whether sources
are embedded and, for the negative-control builds of the tests only, the bug they
reproduce. Traced and untraced builds therefore never share an entry, and toggling
tracing off and on again hits the cache.

Entries are named ``<name>[_traced<size>]_<key8>.elf`` and are recognised by
content (the key recorded in their ``.iron.meta`` section), never by name alone:
``iron cache list`` and ``clear`` leave every other file alone and say so, and
``clear`` skips entries whose build lock is held.  Writes are atomic (temp
file in the same directory, fsync, ``os.replace``); concurrent builds of one key
(several processes) are serialized by a ``filelock`` per key; every entry carries
a checksum (section ``.iron.sum``) that is verified on load, and a corrupt or
truncated entry is reported and rebuilt.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import stat
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock, Timeout

from iron import options
from iron.errors import IronError
from iron.files import TEMP_NAME, atomic_write  # noqa: F401  (re-exported: the cache's writes)

#: Version of iron's built-in lowering (materialize + lower.npu + txn + elf).
#: Bump when the bytes it produces for the same module change.
BUILTIN_LOWERING_VERSION = "1"
LOCK_DIR = ".locks"
SUFFIX = ".elf"
_NAME = re.compile(r"^(?P<name>.+?)(?:_traced(?P<size>\d+))?_(?P<key8>[0-9a-f]{8})\.elf$")
#: iron.files' temp files (and older mkstemp ones) of an entry being written.
_TEMP = re.compile(r"^\.(?P<entry>.+?_[0-9a-f]{8}\.elf)\.[0-9a-f]{8}\.tmp\Z")  # iron.files.temp_name
#: Sidecars of older iron releases (sections lief could not add to aiecc's ELF).
_SIDECAR = re.compile(r"^.+?_[0-9a-f]{8}\.elf\.iron\.[a-z]+\.json$")
#: Files larger than this are not read to check whether they are iron's (foreign).
MAX_ENTRY_BYTES = 1 << 30


class CacheError(IronError):
    """The cache directory holds something iron cannot use or replace."""


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
    sources: bool,
    negative_control: str | None = None,
    backend: str = "builtin",
) -> str:
    """The full cache key (64 hex digits) of one build.

    ``negative_control`` names the fixed bug a test build reproduces on purpose
    (``iron.builder.build._EMULATED_BUG``); None for every real build. It is
    serialized under the field name it had as a public ``build`` keyword
    (``emulate_bug``, null for real builds), so moving the switch out of the public
    API left every real build's key, and the artifact bytes that record it, unchanged.
    ``backend`` (``builtin`` | ``aiecc``) enters the key of aiecc builds only, so built-in
    keys stay what they were; the toolchain identities differ as well.
    """
    identity = {
        "trace": trace_options,
        "target": target,
        "dispatch": dispatch,
        "toolchain": toolchain,
        "iron": iron_version,
        "emulate_bug": negative_control,
        "sources": bool(sources),
        **({"backend": backend} if backend != "builtin" else {}),
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

    def lookup(self, path: Path, key: str, *, report: bool = True, expect: dict | None = None):
        """The valid cached :class:`Artifact` at ``path`` for ``key``, or None.

        A damaged entry (truncated, checksum mismatch, unreadable metadata) is a
        miss; with ``report`` a warning names the file. So is an entry with this key whose
        description differs from ``expect`` (:class:`Artifact` field -> the value this build
        gives it: its outputs, buffers, ...): the key alone does not prove what it holds.
        The caller rebuilds it.
        """
        from iron.artifact.elf import ArtifactError
        from iron.artifact.schema import Artifact

        if path.is_dir() and not path.is_symlink():
            _heal_directory(path)
            return None
        if not _regular_or_absent(path):
            return None
        try:
            art = Artifact.open(path)
        except ArtifactError as exc:
            if report:
                warnings.warn(f"iron cache: {path} is corrupt ({exc}); rebuilding it", stacklevel=3)
            return None
        if art.key != key:  # an 8-digit name collision: rebuild over it
            return None
        differ = [f for f, want in (expect or {}).items() if getattr(art, f) != want]
        if differ:
            if report:
                warnings.warn(
                    f"iron cache: {path} has this build's key but other {', '.join(differ)} "
                    f"({', '.join(f'{f}={getattr(art, f)!r}' for f in differ)[:300]}); rebuilding it",
                    stacklevel=3,
                )
            return None
        art.cached = True
        return art

    def store(self, path: Path, data: bytes) -> None:
        """Write an entry: a new regular file renamed onto ``path`` itself, never through a
        symlink or into a FIFO or device sitting there (:func:`lookup` refused those)."""
        _regular_or_absent(path)
        atomic_write(path, data, follow=False)


def _regular_or_absent(path: Path) -> bool:
    """True: a regular file sits at ``path``; False: nothing does. Anything else (a symlink,
    dangling or not, a FIFO, a device, a socket) is a :class:`CacheError`: writing through it
    would change a file outside the cache, or hang on a FIFO nobody reads."""
    try:
        st = path.lstat()
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise CacheError(f"{path}: cannot look at this cache entry's path: {exc.strerror or exc}") from None
    if stat.S_ISREG(st.st_mode):
        return True
    what = "a symlink" if stat.S_ISLNK(st.st_mode) else "a special file (FIFO, device or socket)"
    raise CacheError(
        f"{path}: {what} sits at this cache entry's path; iron writes its cache entries only as "
        "regular files and does not delete what it did not write: move or remove it, then build again"
    )


def _heal_directory(path: Path) -> None:
    """A directory where an entry belongs: remove it if empty (nothing lost), else
    report it; iron never deletes what it did not write."""
    try:
        path.rmdir()
    except OSError:
        raise CacheError(
            f"{path}: a directory sits at this cache entry's path and is not empty; "
            "iron does not delete what it did not write: move or remove it, then build again"
        ) from None
    warnings.warn(f"iron cache: removed the empty directory at entry path {path}", stacklevel=4)


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


@dataclass
class Listing:
    """What a cache directory holds: iron's entries, and everything else (never touched)."""

    entries: list[CacheEntry]
    foreign: list[Path]  # files iron did not write (or cannot recognise as its own)
    problems: list[str]  # entry paths iron cannot use (a directory in the way ...)


def entry_key(path: Path) -> str | None:
    """The cache key recorded inside the artifact at ``path`` (its ``.iron.meta``), or
    None when ``path`` is not a readable iron artifact: ownership is proven by content,
    not by the file name."""
    from iron.artifact.schema import META, ArtifactError, read_sections

    try:
        if path.stat().st_size > MAX_ENTRY_BYTES:
            return None
        meta = read_sections(path, verify=False).get(META)
        key = json.loads(meta).get("key") if meta else None
    except (ArtifactError, OSError, ValueError, AttributeError):
        return None
    return key if isinstance(key, str) else None


def scan(directory: str | os.PathLike | None = None) -> Listing:
    """Sort the cache directory's contents into iron's entries and the rest."""
    root = options.cache_dir(directory)
    listing = Listing([], [], [])
    sidecars: list[Path] = []
    if not root.is_dir():
        return listing
    for p in sorted(root.iterdir()):
        if p.name == LOCK_DIR and p.is_dir() and not p.is_symlink():
            continue  # iron's lock files
        m = _NAME.match(p.name)
        if m and p.is_dir() and not p.is_symlink():
            listing.problems.append(f"{p}: a directory sits at a cache entry's path")
            continue
        if _TEMP.match(p.name):
            continue  # an entry being written, or a stale temp file: handled by clear
        if _SIDECAR.match(p.name):
            sidecars.append(p)
            continue
        key = entry_key(p) if m and p.is_file() and not p.is_symlink() else None
        if key is None or not key.startswith(m["key8"]):
            listing.foreign.append(p)
            continue
        st = p.stat()
        listing.entries.append(
            CacheEntry(p, m["name"], int(m["size"] or 0), m["key8"], st.st_size, st.st_mtime)
        )
    owned = {e.path.name for e in listing.entries}
    for p in sidecars:  # a sidecar is iron's when its entry is
        if p.name.split(".elf.iron.", 1)[0] + ".elf" not in owned:
            listing.foreign.append(p)
    listing.foreign.sort()
    listing.entries.sort(key=lambda e: (-e.mtime, e.path.name))
    return listing


def list_entries(directory: str | os.PathLike | None = None) -> list[CacheEntry]:
    """iron's artifacts in the cache, newest first (foreign files are not listed)."""
    return scan(directory).entries


@dataclass
class ClearReport:
    removed: list[CacheEntry]
    busy: list[CacheEntry]  # their lock was held (a build or a clear in progress): left alone
    foreign: list[Path]
    problems: list[str]


def clear(directory: str | os.PathLike | None = None) -> ClearReport:
    """Remove iron's cache entries with their sidecars and stale temp files.

    Files iron cannot recognise as its own are left alone (and reported); an entry
    whose build lock is held by another build is skipped, so clearing never breaks a
    build in progress. Lock files stay (empty files; removing a lock file another
    process may be waiting on would break the lock)."""
    root = options.cache_dir(directory)
    listing = scan(root)
    report = ClearReport([], [], listing.foreign, listing.problems)
    if not root.is_dir():
        return report
    for e in listing.entries:
        with _entry_locks(root, e.key8) as held:
            if not held:
                report.busy.append(e)
                continue
            e.path.unlink(missing_ok=True)
            for leftover in _belongings(root, e.path.name):
                leftover.unlink(missing_ok=True)
        report.removed.append(e)
    # Stale temp files of entries that never finished (their lock is free).
    for tmp in root.iterdir():
        m = _TEMP.match(tmp.name)
        if not m or not tmp.is_file() or (root / m["entry"]).exists():
            continue
        name = _NAME.match(m["entry"])
        if name is None or not any((root / LOCK_DIR).glob(f"{name['key8']}*.lock")):
            continue  # no build of that key ever ran here: not iron's temp file
        with _entry_locks(root, name["key8"]) as held:
            if held:
                tmp.unlink(missing_ok=True)
    return report


@contextlib.contextmanager
def _entry_locks(root: Path, key8: str):
    """Hold every build lock of entries named with ``key8`` (True), or none if one is
    taken (False)."""
    locks = [FileLock(str(p), timeout=0) for p in sorted((root / LOCK_DIR).glob(f"{key8}*.lock"))]
    taken = []
    try:
        for lock in locks:
            try:
                lock.acquire()
            except Timeout:
                yield False
                return
            taken.append(lock)
        yield True
    finally:
        for lock in reversed(taken):
            lock.release()


def _belongings(root: Path, entry: str) -> list[Path]:
    """Sidecars (``<entry>.iron.*.json``) and temp files of one entry."""
    escaped = glob_escape(entry)
    temps = [p for p in root.glob(f".{escaped}.*.tmp") if TEMP_NAME.match(p.name)]
    return [*root.glob(f"{escaped}.iron.*.json"), *temps]


def glob_escape(text: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", text)


def age(mtime: float) -> str:
    """Short human age of a modification time (for ``iron cache list``)."""
    s = max(0.0, time.time() - mtime)
    for unit, n in (("d", 86400), ("h", 3600), ("m", 60)):
        if s >= n:
            return f"{s / n:.0f}{unit}"
    return f"{s:.0f}s"
