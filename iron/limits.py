"""Resource limits: how much iron reads, and the checks that apply them before reading.

Every input file is checked here before a byte of it is read: it must be a regular
file (``/dev/zero``, FIFOs and terminals are refused: they have no size and may
never end) no larger than the limit for its kind. The limits are far above any
honest input: a trace buffer is at most one BD's length per call site
(:data:`iron.options.MAX_TRACE_SIZE`), an artifact a few MB.
"""

from __future__ import annotations

import os
import re
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
#: Regions a core body nests that the reader reads as objects (iron's and upstream's designs
#: nest 3 or 4); an op nested deeper is kept as text, so no printer, equality or sim recursion
#: can exceed Python's stack on a hostile file.
MAX_REGION_DEPTH = 100
#: Longest file name (one path component) Linux file systems take, in bytes (NAME_MAX,
#: ``include/uapi/linux/limits.h``); a longer one is a bare ENAMETOOLONG where it is used.
NAME_MAX = 255


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
            f"{name}: not a regular file (a device, FIFO or socket has no size); the {what} must be a file"
        )
    if st.st_size > limit:
        raise error(f"{name}: {st.st_size} bytes is more than the largest {what} iron reads ({limit} bytes)")
    return st.st_size


# --------------------------------------------------------------------------- integers
#: Digits an integer may have (after its sign and any ``0x``): 2**128 has 39 decimal
#: digits, so every value any field holds fits; far below Python's 4300-digit limit
#: on ``int(str)``, so a huge literal is one clear error, never a ValueError traceback.
MAX_INT_DIGITS = 40

_INT_LITERAL = re.compile(r"\s*([+-]?)\s*(?:0x([0-9a-fA-F]+)|([0-9]+))\s*")


class IntegerError(ValueError):
    """Text that is not an integer :func:`parse_int` reads (a ValueError, so callers that
    catch ValueError keep working; callers turn it into their own IronError).
    ``reason``: what is wrong, without the text."""

    def __init__(self, message: str, reason: str):
        super().__init__(message)
        self.reason = reason


def parse_int(text) -> int:
    """The integer ``text`` spells, read as MLIR reads an integer literal (llvm-project
    ``mlir/lib/AsmParser/Lexer.cpp``, ``Lexer::lexNumber``: ``digit+ | 0x hex_digit+``;
    ``Token::getUInt64IntegerValue`` reads a literal whose second character is ``x`` as
    hex and every other one in base 10): decimal digits, leading zeros included
    (``08192`` is 8192, not octal), or ``0x`` and hex digits, after an optional sign.
    ``0X``, ``1_000``, ``0o7`` and non-ASCII digits are not integers. The one integer
    parser of options, MLIR attributes and fields; at most :data:`MAX_INT_DIGITS`
    digits. Raises :class:`IntegerError` saying what is accepted."""
    if not isinstance(text, str):
        raise IntegerError(f"{text!r} is not an integer", "not text")
    plain = text.strip()
    if len(plain) <= MAX_INT_DIGITS and plain.isdigit() and plain.isascii():
        return int(plain, 10)  # the common case, plain decimal digits (several times faster than the regex)
    m = _INT_LITERAL.fullmatch(text)
    if m is None:
        shown = text if len(text) <= 40 else text[:37] + "..."
        reason = "accepted: decimal digits, or 0x and hex digits"
        raise IntegerError(f"{shown!r} is not an integer ({reason})", reason)
    digits = m.group(2) or m.group(3)
    if len(digits) > MAX_INT_DIGITS:
        reason = f"{len(digits)} digits; at most {MAX_INT_DIGITS} are read"
        raise IntegerError(f"an integer of {reason}", reason)
    value = int(digits, 16) if m.group(2) is not None else int(digits, 10)
    return -value if m.group(1) == "-" else value


# --------------------------------------------------------------------------- text files
def decode_text(data: bytes, name: str, what: str, error=None) -> str:
    """``data`` (the bytes of ``name``) as UTF-8 text (a BOM is dropped); one ``error``
    (default :class:`iron.errors.IronError`) naming the file and the byte offset of the
    first byte that is not UTF-8."""
    from iron.errors import IronError

    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        at = exc.start + (3 if data.startswith(b"\xef\xbb\xbf") else 0)
        raise (error or IronError)(
            f"{name}: the {what} is not UTF-8 text: byte {at} (0x{data[at]:02x}) cannot be decoded"
        ) from None


def read_text(path, limit: int, what: str, error=None) -> str:
    """The UTF-8 text of the file ``path`` after :func:`check_input` (a regular file of at
    most ``limit`` bytes); errors as :func:`check_input` and :func:`decode_text`."""
    return decode_text(read_bytes(path, limit, what, error), os.fspath(path), what, error)


def read_bytes(path, limit: int, what: str, error=None) -> bytes:
    """The bytes of the file ``path`` after :func:`check_input` (a regular file of at most
    ``limit`` bytes); a file that grows while it is read is refused, not read past the check."""
    from iron.errors import IronError

    error = error or IronError
    size = check_input(path, limit, what, error)
    name = os.fspath(path)
    try:
        with open(name, "rb") as f:
            data = f.read(size + 1)  # read(n) allocates n bytes first: never the limit itself
    except OSError as exc:
        raise error(f"{name}: cannot read {what}: {exc.strerror or exc}") from None
    if len(data) > size:
        raise error(f"{name}: the {what} grew while iron read it ({size} bytes when checked)")
    return data
