"""Writing result files so that a failure never leaves a half-written one.

The one writer of every file iron produces (cache entries, captures, Perfetto and
mlir-aie JSON, summaries, PNG). Rules:

* a regular file (or a new path) is replaced atomically: a temp file in the same
  directory, fsync, rename (``durable=False``: no fsync, for outputs made again from
  their input, e.g. decoded traces: still never half-written after a crash of the
  process, and tens of MB are not forced to disk before the command returns). The new file gets the permissions a plain ``open()``
  would give: a new file ``0o666`` minus the umask (the kernel applies it, and any
  default ACL), an existing file keeps its mode (and, when allowed, its group), so a
  ``chmod`` of a shared cache survives rewrites;
* a symlink is followed: its target is replaced, the link stays;
* anything else that exists and is not a directory (``/dev/null``, a FIFO, a
  terminal, ``/dev/stdout``) is written through in place, never replaced;
* errors are :class:`OutputError` naming the caller's path, never the temp file;
* big streamed outputs (``threaded=True``) are written, and gzipped, on a thread,
  so producing the next chunk overlaps the disk.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat

from iron.errors import IronError

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: importing typing costs every decode ~3 ms (issue 37)
    from typing import BinaryIO, Iterator

#: Paths under these are never renamed over (``/dev/stdout`` -> ``/proc/self/fd/1`` may
#: resolve to the regular file a shell redirected into).
_WRITE_THROUGH_PREFIXES = ("/dev/", "/proc/")


class OutputError(IronError, OSError):
    """An output file cannot be written; the message names the user's path."""

    def __init__(self, path: str | os.PathLike, reason: str):
        super().__init__(f"{os.fspath(path)}: cannot write: {reason}")
        self.path = os.fspath(path)


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def pure_path(path: str | os.PathLike) -> str:
    """``str(pathlib.Path(path))`` without importing pathlib (with urllib.parse and
    ipaddress: ~2 ms of a small decode, issue 37): on POSIX, the path with empty and
    ``.`` components dropped ("" is "."), a leading ``//`` kept, ``..`` kept."""
    if os.name != "posix":
        from pathlib import Path

        return str(Path(path))
    name = os.fspath(path)
    if not isinstance(name, str):
        from pathlib import Path

        return str(Path(path))  # its TypeError for bytes
    root = "//" if name[:2] == "//" and name[2:3] != "/" else "/" if name[:1] == "/" else ""
    return root + "/".join(part for part in name.split("/") if part not in ("", ".")) or "."


def _existing(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)  # follows symlinks
    except FileNotFoundError:
        return None


@contextlib.contextmanager
def atomic_open(
    path: str | os.PathLike, *, gzip_level: int | None = None, threaded: bool = False, durable: bool = True
) -> Iterator[BinaryIO]:
    """A binary file to write ``path``'s new content to (see the module rules).

    The content becomes visible only when the block ends without an exception;
    on an exception the old file (if any) is left as it was. ``gzip_level``:
    compress the stream with gzip at that level (mtime 0: same trace, same bytes).
    ``threaded``: :class:`ThreadedWriter` (writes and compression on a thread;
    each object written must not change afterwards). ``durable``: fsync before the
    rename (see the module rules).
    """
    with _atomic_raw(path, durable) as raw:
        with contextlib.ExitStack() as stack:
            f = raw
            if gzip_level is not None:
                import gzip  # imports of what a small decode never uses are made where used

                f = stack.enter_context(
                    gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=gzip_level, mtime=0)
                )
            if not threaded:
                yield f
                return
            writer = ThreadedWriter(f)
            try:
                yield writer
            except BaseException:
                writer.abort()
                raise
            writer.close()


class ThreadedWriter:
    """Writes to a binary file done in order on a thread, so the caller produces
    the next chunk while the disk (and gzip, which releases the GIL) takes the
    last one. At most ``depth`` chunks wait. :meth:`write` keeps a reference to
    the object (bytes or a numpy array that nobody changes afterwards); the first
    error of a write is raised by a later :meth:`write` or by :meth:`close`."""

    def __init__(self, f: BinaryIO, depth: int = 4):
        import queue  # here (and threading): only a big streamed output writes on a thread
        import threading

        self._f = f
        self._queue: queue.Queue = queue.Queue(depth)
        self._error: BaseException | None = None
        self._skip = False
        self._thread = threading.Thread(target=self._drain, name="iron-writer", daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        while (data := self._queue.get()) is not None:
            if self._error is None and not self._skip:
                try:
                    self._f.write(data)
                except BaseException as exc:  # raised in the caller's thread
                    self._error = exc

    def write(self, data) -> int:
        if self._error is not None:
            raise self._error
        self._queue.put(data)
        return len(data)

    def close(self) -> None:
        """Wait until everything is written; raise the first write error."""
        self._queue.put(None)
        self._thread.join()
        if self._error is not None:
            raise self._error

    def abort(self) -> None:
        """Drop what is still queued and stop the thread (the caller failed)."""
        self._skip = True
        self._queue.put(None)
        self._thread.join()


@contextlib.contextmanager
def _atomic_raw(path: str | os.PathLike, durable: bool = True) -> Iterator[BinaryIO]:
    user_path = os.fspath(path)
    p = pure_path(user_path)
    if user_path.endswith(("/", os.sep)) and not os.path.isdir(p):
        # pure_path drops the separator: "-o newdir/" would create a file named newdir
        raise OutputError(user_path, "ends with a path separator, so it names a directory, not a file")
    try:
        st = _existing(p)
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise OutputError(user_path, "is a directory")
        special = st is not None and not stat.S_ISREG(st.st_mode)
        if special or (st is not None and user_path.startswith(_WRITE_THROUGH_PREFIXES)):
            f = open(p, "wb")  # device node, FIFO, terminal: written through, never replaced
        else:
            f = None
    except OSError as exc:
        if isinstance(exc, OutputError):
            raise
        raise OutputError(user_path, _reason(exc)) from None
    if f is not None:
        try:
            with f:
                yield f
        except OSError as exc:
            if isinstance(exc, OutputError):
                raise
            raise OutputError(user_path, _reason(exc)) from None
        return

    target = pure_path(os.path.realpath(p)) if os.path.islink(p) else p  # replace the link's target
    with _replacing(target, user_path, st, durable) as f:
        yield f


@contextlib.contextmanager
def _replacing(target: str, user_path, st: os.stat_result | None, durable: bool = True) -> Iterator[BinaryIO]:
    """A new temp file beside ``target`` (a :func:`pure_path`; mode of ``st`` when given),
    renamed onto ``target`` once written and (``durable``) synced; removed on failure.
    Errors name ``user_path``."""
    parent, name = os.path.split(target)
    if not name:
        raise ValueError(f"{target!r} has an empty name")  # pathlib's with_name: "/" (refused before)
    parent = parent or "."  # pathlib's parent of a bare name
    tmp = os.path.join(parent, temp_name(name))
    try:
        os.makedirs(parent, exist_ok=True)
        # 0o666: the kernel applies the umask (and default ACLs) exactly as for open().
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
    except OSError as exc:
        raise OutputError(user_path, _reason(exc)) from None
    try:
        with os.fdopen(fd, "wb") as f:
            if st is not None:
                _keep_mode(f.fileno(), st)
            yield f
            f.flush()
            if durable:
                os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and not isinstance(exc, OutputError):
            raise OutputError(user_path, _reason(exc)) from None
        raise
    if durable:
        _sync_dir(parent)


#: The temp file of an output named ``<name>``: ``.<name>.<8 hex digits>.tmp`` (group ``name``).
TEMP_NAME = re.compile(r"^\.(?P<name>.+)\.[0-9a-f]{8}\.tmp\Z")


def temp_name(name: str) -> str:
    """The temp file beside an output named ``name`` while it is written (:data:`TEMP_NAME`)."""
    # os.urandom, not secrets: secrets loads OpenSSL (~3.5 MiB, every small decode writes a file)
    return f".{name}.{os.urandom(4).hex()}.tmp"


def atomic_write(path: str | os.PathLike, data: bytes | str, *, follow: bool = True) -> None:
    """Write ``data`` to ``path`` so readers see the old file or the whole new one
    (see the module rules; raises :class:`OutputError` naming ``path``).

    ``follow=False`` (the cache's entries): the new file is renamed onto ``path`` itself, so a
    symlink there is replaced, never written through, and nothing is opened in place."""
    if isinstance(data, str):
        data = data.encode()
    if not follow:
        _replace_path(pure_path(path), data)
        return
    with atomic_open(path) as f:
        f.write(data)


def _replace_path(path: str, data: bytes) -> None:
    with _replacing(path, path, None) as f:
        f.write(data)


def _keep_mode(fd: int, st: os.stat_result) -> None:
    """Give the new file the replaced file's mode and (when permitted) group."""
    os.fchmod(fd, stat.S_IMODE(st.st_mode))
    if hasattr(os, "fchown"):
        try:
            os.fchown(fd, -1, st.st_gid)
        except OSError:  # not a member of that group: keep ours
            pass


def _sync_dir(directory: str) -> None:
    """Make the rename durable; not possible everywhere (e.g. Windows)."""
    try:
        dfd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass
