"""Trace input formats: mlir-aie text, raw little-endian binary (iron capture files:
:mod:`iron.trace.capture`, which also reads any of them with ``read_words``)."""

from __future__ import annotations

import functools
import os
import struct
from iron.errors import IronError
from iron.files import pure_path
from iron.trace.jit import np

CAPTURE_MAGIC = b"PK\x03\x04"  # iron capture files are .npz (zip) archives
HEX_DIGITS = b"0123456789abcdefABCDEF"


@functools.cache
def _hex_table():
    """Byte -> its hex digit's value, 255 for other bytes."""
    table = np.full(256, 255, dtype=np.uint8)
    for i, c in enumerate(HEX_DIGITS):
        table[c] = i if i < 16 else i - 6
    return table


class TraceInputError(IronError):
    """A trace input file cannot be read; the message names the file."""


def check_words(values, name: str = "words"):
    """``values`` as a 1-D uint32 array, refusing what a cast would silently change:
    floats, booleans and other non-integer arrays, more than one dimension, and
    integers outside 0 .. 2**32 - 1. Raises :class:`TraceInputError` naming ``name``."""
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError) as exc:
        raise TraceInputError(f"{name}: not an array of 32-bit words ({exc})") from None
    if arr.ndim != 1:
        raise TraceInputError(f"{name}: expected a 1-D array of 32-bit words, got shape {arr.shape}")
    if arr.dtype == np.uint32:
        return arr
    if arr.dtype.kind not in "ui" or arr.dtype == np.bool_:
        if arr.size == 0 and arr.dtype.kind == "f":  # np.asarray([]) is float64
            return np.zeros(0, dtype=np.uint32)
        raise TraceInputError(f"{name}: expected integer words (uint32), got dtype {arr.dtype}")
    if arr.size and (int(arr.min()) < 0 or int(arr.max()) > 0xFFFFFFFF):
        bad = int(arr[(arr < 0) | (arr > 0xFFFFFFFF)][0])
        raise TraceInputError(f"{name}: word {bad} does not fit 32 bits (accepted: 0 to 0xFFFFFFFF)")
    return arr.astype(np.uint32)


UTF8_BOM = b"\xef\xbb\xbf"
UTF16_BOMS = {b"\xff\xfe": "utf-16-le", b"\xfe\xff": "utf-16-be"}


#: The bytes of plain ASCII text: whitespace (tab to carriage return) and the printable characters.
_PLAIN_TEXT = bytes(range(9, 14)) + bytes(range(32, 127))


def _plain(data: bytes) -> bool:
    """ASCII text without control characters other than whitespace (``bytes.translate``
    deletes those it may hold: about 100x faster than a Python loop over the bytes)."""
    return not data.translate(None, _PLAIN_TEXT)


def text_encoding(head: bytes) -> str | None:
    """How a text trace starting with ``head`` is encoded: ``"ascii"``, ``"utf-8-sig"``
    (byte-order mark), ``"utf-16-le"`` / ``"utf-16-be"`` (with a byte-order mark, or
    without one when every other byte is zero), or None when it is not text."""
    if head.startswith(UTF8_BOM):
        return "utf-8-sig" if _plain(head[3:]) else None
    for bom, enc in UTF16_BOMS.items():
        if head.startswith(bom):
            text = head[2 : 2 + (len(head) - 2) // 2 * 2].decode(enc, errors="replace")
            return enc if text.isascii() and _plain(text.encode()) else None
    even = head[: len(head) // 2 * 2]
    if len(even) >= 4:
        if not any(even[1::2]) and _plain(even[0::2]):
            return "utf-16-le"
        if not any(even[0::2]) and _plain(even[1::2]):
            return "utf-16-be"
    return "ascii" if _plain(head) else None


def _suffix(path: str) -> str:
    """pathlib's ``suffix`` of a :func:`~iron.files.pure_path`: the last name's text from
    its last dot, if that dot neither starts nor ends the name."""
    name = path.rpartition("/")[2]
    i = name.rfind(".")
    return name[i:] if 0 < i < len(name) - 1 else ""


def detect_format(path: str | os.PathLike) -> str:
    """``"capture"``, ``"bin"`` or ``"text"`` (refuses non-files and oversized files)."""
    from iron import limits

    p = pure_path(path)  # as pathlib names it (without importing pathlib: issue 37)
    limits.check_input(
        p, max(limits.MAX_TEXT_BYTES, limits.MAX_CAPTURE_BYTES), "trace input", TraceInputError
    )
    try:
        with open(p, "rb") as f:
            head = f.read(4096)
    except OSError as exc:
        raise TraceInputError(f"{p}: cannot read: {exc.strerror or exc}") from None
    if head.startswith(CAPTURE_MAGIC):
        return "capture"
    if _suffix(p).lower() == ".bin":
        return "bin"
    if text_encoding(head) is not None:
        return "text"
    foreign = _foreign_character(head)
    if foreign is not None:  # text, but not hex words: never read as binary words
        line, char = foreign
        raise TraceInputError(
            f"{p}: line {line} holds {char!r} (U+{ord(char):04X}), which is not a hex digit; accepted: "
            "a text trace of ASCII hex words (one per line, optional 0x), or binary words in a .bin file"
        )
    return "bin"


def _foreign_character(head: bytes) -> tuple[int, str] | None:
    """(line, character) of the first non-ASCII character of ``head`` when it is UTF-8 text, or
    UTF-16 with a byte-order mark (no control characters but whitespace; the last character
    may be cut), else None."""
    enc = next((e for bom, e in UTF16_BOMS.items() if head.startswith(bom)), "utf-8")
    if enc != "utf-8":
        head = head[2 : 2 + (len(head) - 2) // 2 * 2]
    try:
        text = head.decode(enc).lstrip("\ufeff")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 3 or exc.reason not in ("unexpected end of data", "truncated data"):
            return None
        text = head[: exc.start].decode(enc).lstrip("\ufeff")
    if not _plain(text.encode("ascii", errors="replace")):
        return None
    at = next((i for i, c in enumerate(text) if ord(c) > 126), None)
    return None if at is None else (text.count("\n", 0, at) + 1, text[at])


def _ascii_text(data: bytes, name: str) -> bytes:
    """Text trace bytes as plain ASCII (byte-order marks and UTF-16 decoded)."""
    enc = text_encoding(data[:4096])
    if enc in (None, "ascii"):
        return data
    try:
        text = data.decode(enc).lstrip("\ufeff")  # the UTF-16 decoders keep the byte-order mark
    except UnicodeDecodeError as exc:
        raise TraceInputError(f"{name}: looks like {enc} text but does not decode: {exc.reason}") from None
    try:
        return text.encode("ascii")
    except UnicodeEncodeError:
        raise TraceInputError(f"{name}: {enc} text with characters that are not hex words") from None


def parse_text(data: bytes | str, name: str = "<text>", plain: bool = False):
    """mlir-aie text trace (one hex word per line, optional 0x) -> uint32 words.
    ASCII, UTF-8 with a byte-order mark and UTF-16 (either byte order) are read.
    ``plain``: a list of ints (no numpy: small inputs, :data:`iron.trace.engine.PLAIN_BYTES`)."""
    if isinstance(data, str):
        data = data.lstrip("\ufeff").encode("ascii", errors="replace")  # "?" is then reported as not hex
    data = _ascii_text(bytes(data), name)
    n = len(data)
    # Fast path: exactly "xxxxxxxx\n" per line.
    if n and data[-1:] != b"\n":
        data += b"\n"
        n += 1
    # (8 characters and a newline each, all hex digits: else the words are read as tokens,
    # so "0x0 0x0 " is two words, not one bad one)
    fast = n % 9 == 0 and data[8::9] == b"\n" * (n // 9)
    raw = _fast_hex(data, n) if fast else None
    if plain:
        if raw is not None:
            return list(struct.unpack(f">{len(raw) // 4}I", raw))
        toks = [data[i : i + 8] for i in range(0, n, 9)] if fast else []
        if not fast or any(t.translate(None, HEX_DIGITS) for t in toks):
            toks = _tokens(data, name)
        for i, t in enumerate(toks):
            if t.translate(None, HEX_DIGITS):
                raise TraceInputError(f"{name}: word {i + 1} is not hexadecimal")
        return [int(t, 16) for t in toks]
    if raw is not None:
        return np.frombuffer(raw, ">u4").astype(np.uint32)
    vals = _hex_table()[np.frombuffer(data, dtype=np.uint8).reshape(-1, 9)[:, :8]] if fast else None
    if vals is None or (vals == 255).any():
        vals = _hex_table()[np.frombuffer(b"".join(_tokens(data, name)), dtype=np.uint8).reshape(-1, 8)]
    if (vals == 255).any():
        line = int(np.flatnonzero((vals == 255).any(axis=1))[0])
        raise TraceInputError(f"{name}: word {line + 1} is not hexadecimal")
    words = np.zeros(len(vals), dtype=np.uint32)
    for i in range(8):
        words |= vals[:, i].astype(np.uint32) << np.uint32(4 * (7 - i))
    return words


def _fast_hex(data: bytes, n: int) -> bytes | None:
    """The words of a text of ``n`` bytes in lines of 8 characters and a newline as
    big-endian bytes, by C's hex parser, or None when a line is not 8 hex digits (the
    slower checks then report it). The parser skips whitespace between byte pairs, so 4
    bytes a line means 8 hex digits a line."""
    try:
        raw = bytes.fromhex(data.decode("ascii"))
    except ValueError:
        return None
    return raw if len(raw) == 4 * (n // 9) else None


def _tokens(data: bytes, name: str) -> list[bytes]:
    """The words of a text trace as 8 hex digits each (the 0x prefix dropped, zeros in
    front); a word longer than that is refused. Its digits are checked by the caller."""
    toks = data.split()
    bad = [i for i, t in enumerate(toks) if len(t.removeprefix(b"0x").removeprefix(b"0X")) > 8]
    if bad:
        raise TraceInputError(
            f"{name}: word {bad[0] + 1} ({toks[bad[0]][:20]!r}) is longer than 8 hex digits"
        )
    return [t.removeprefix(b"0x").removeprefix(b"0X").rjust(8, b"0") for t in toks]


def format_text(words) -> str:
    """Inverse of :func:`parse_text` (lowercase, one word per line)."""
    return "".join(f"{int(w):08x}\n" for w in np.asarray(words, dtype=np.uint32))


def read_bin(path: str | os.PathLike, plain: bool = False):
    """A binary file of little-endian 32-bit words, memory-mapped read-only: no
    copy in memory, and pages are read as the decoder reaches them. ``plain``: read
    whole into a list of ints (small inputs, no numpy)."""
    from iron import limits

    size = limits.check_input(path, limits.MAX_TRACE_BYTES, "binary trace", TraceInputError)
    if size % 4:
        raise TraceInputError(f"{path}: {size} bytes is not a whole number of 32-bit words")
    if plain:
        try:
            with open(pure_path(path), "rb") as f:
                data = f.read()
        except OSError as exc:
            raise TraceInputError(f"{path}: cannot read: {exc.strerror or exc}") from None
        return list(struct.unpack(f"<{len(data) // 4}I", data[: len(data) // 4 * 4]))
    if size == 0:  # mmap cannot map an empty file
        return np.zeros(0, dtype=np.uint32)
    words = np.memmap(path, dtype="<u4", mode="r")
    return words if np.little_endian else words.astype(np.uint32)


def read_text(path: str | os.PathLike, plain: bool = False):
    """An mlir-aie text trace file -> uint32 words (size-checked before reading;
    ``plain``: see :func:`parse_text`)."""
    from iron import limits

    limits.check_input(path, limits.MAX_TEXT_BYTES, "text trace", TraceInputError)
    try:
        with open(pure_path(path), "rb") as f:
            data = f.read()
    except OSError as exc:
        raise TraceInputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return parse_text(data, str(path), plain)
