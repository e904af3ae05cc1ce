"""Writing result files so that a failure never leaves a half-written one."""

from __future__ import annotations

import contextlib
import gzip
import os
import tempfile
from pathlib import Path


def atomic_write(path: str | os.PathLike, data: bytes | str) -> None:
    """Write ``data`` to ``path`` so readers see the old file or the whole new one
    (temp file in the same directory, fsync, rename)."""
    path = Path(path)
    if isinstance(data, str):
        data = data.encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    try:  # make the rename durable; not possible everywhere (e.g. Windows)
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike, *, gzip_level: int | None = None):
    """A binary file to stream a large result into; it appears at ``path`` only
    when the ``with`` block ends without an error (same rules as :func:`atomic_write`).
    ``gzip_level``: compress the stream with gzip at that level."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as raw:
            if gzip_level is None:
                yield raw
            else:
                # mtime=0: the same trace gives the same bytes
                with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=gzip_level, mtime=0) as gz:
                    yield gz
            raw.flush()
            os.fsync(raw.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; results are ordinary files
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
