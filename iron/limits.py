"""Resource limits: how much iron reads, and the checks that apply them before reading.

Every input file is checked here before a byte of it is read: it must be a regular
file (``/dev/zero``, FIFOs and terminals are refused: they have no size and may
never end) no larger than the limit for its kind. The limits are far above any
honest input: a trace buffer is at most one BD's length per call site
(:data:`iron.options.MAX_TRACE_SIZE`), an artifact a few MB.
"""

from __future__ import annotations

import os
import stat

#: Largest trace read: raw words (``.bin``), or the words of a capture file.
MAX_TRACE_BYTES = 1 << 34  # 16 GiB
#: mlir-aie text traces: up to 12 bytes per word ("0x" + 8 digits + CRLF).
MAX_TEXT_BYTES = MAX_TRACE_BYTES // 4 * 12
#: Capture files (npz, compressed): never larger than what they hold.
MAX_CAPTURE_BYTES = MAX_TRACE_BYTES + (1 << 30)
#: Manifest JSON (may embed the design sources).
MAX_MANIFEST_BYTES = 1 << 28  # 256 MiB
#: Artifacts (ELF) and MLIR files; an xclbin inside an artifact is tens of MB.
MAX_ARTIFACT_BYTES = 1 << 30
MAX_MLIR_BYTES = 1 << 30


def check_input(path, limit: int, what: str, error=None) -> int:
    """Size of the regular file ``path`` (``what`` names it in errors); raise ``error``
    (default :class:`iron.errors.IronError`) if it is missing, not a regular file
    or larger than ``limit`` bytes."""
    from iron.errors import IronError

    error = error or IronError
    try:
        name = os.fspath(path)
        st = os.stat(name)
    except OSError as exc:
        raise error(f"{name}: cannot read {what}: {exc.strerror or exc}") from None
    except (TypeError, ValueError) as exc:  # not a path, or a NUL in it
        raise error(f"{name!r}: not a usable path for the {what} ({exc})") from None
    if stat.S_ISDIR(st.st_mode):
        raise error(f"{name}: is a directory, not a {what}")
    if not stat.S_ISREG(st.st_mode):
        raise error(
            f"{name}: not a regular file (a device, FIFO or socket has no size); a {what} must be a file"
        )
    if st.st_size > limit:
        raise error(f"{name}: {st.st_size} bytes is more than the largest {what} iron reads ({limit} bytes)")
    return st.st_size
