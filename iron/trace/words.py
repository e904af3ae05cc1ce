"""Trace input formats: mlir-aie text, raw little-endian binary, iron capture files."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from iron.errors import IronError

CAPTURE_MAGIC = b"PK\x03\x04"  # iron capture files are .npz (zip) archives

_HEX = np.full(256, 255, dtype=np.uint8)
for _i, _c in enumerate(b"0123456789abcdef"):
    _HEX[_c] = _i
for _i, _c in enumerate(b"ABCDEF"):
    _HEX[_c] = 10 + _i


class TraceInputError(IronError):
    """A trace input file cannot be read; the message names the file."""


def detect_format(path: str | os.PathLike) -> str:
    """``"capture"``, ``"bin"`` or ``"text"``."""
    p = Path(path)
    try:
        with open(p, "rb") as f:
            head = f.read(4096)
    except OSError as exc:
        raise TraceInputError(f"{p}: cannot read: {exc.strerror or exc}") from None
    if head.startswith(CAPTURE_MAGIC):
        return "capture"
    if p.suffix.lower() == ".bin":
        return "bin"
    if any(b < 9 or 13 < b < 32 or b > 126 for b in head):  # not plain text
        return "bin"
    return "text"


def parse_text(data: bytes | str, name: str = "<text>") -> np.ndarray:
    """mlir-aie text trace (one hex word per line, optional 0x) -> uint32 words."""
    if isinstance(data, str):
        data = data.encode()
    n = len(data)
    # Fast path: exactly "xxxxxxxx\n" per line.
    if n and data[-1:] != b"\n":
        data += b"\n"
        n += 1
    arr = np.frombuffer(data, dtype=np.uint8)
    if n % 9 == 0 and (arr[8::9] == 10).all():
        digits = arr.reshape(-1, 9)[:, :8]
    else:
        toks = data.split()
        bad = [i for i, t in enumerate(toks) if len(t.removeprefix(b"0x").removeprefix(b"0X")) > 8]
        if bad:
            raise TraceInputError(
                f"{name}: word {bad[0] + 1} ({toks[bad[0]][:20]!r}) is longer than 8 hex digits"
            )
        toks = [t.removeprefix(b"0x").removeprefix(b"0X").rjust(8, b"0") for t in toks]
        digits = np.frombuffer(b"".join(toks), dtype=np.uint8).reshape(-1, 8)
    vals = _HEX[digits]
    if (vals == 255).any():
        line = int(np.flatnonzero((vals == 255).any(axis=1))[0])
        raise TraceInputError(f"{name}: word {line + 1} is not hexadecimal")
    words = np.zeros(len(vals), dtype=np.uint32)
    for i in range(8):
        words |= vals[:, i].astype(np.uint32) << np.uint32(4 * (7 - i))
    return words


def format_text(words: np.ndarray) -> str:
    """Inverse of :func:`parse_text` (lowercase, one word per line)."""
    return "".join(f"{int(w):08x}\n" for w in np.asarray(words, dtype=np.uint32))


def read_bin(path: str | os.PathLike) -> np.ndarray:
    """A binary file of little-endian 32-bit words, memory-mapped read-only: no
    copy in memory, and pages are read as the decoder reaches them."""
    size = os.path.getsize(path)
    if size % 4:
        raise TraceInputError(f"{path}: {size} bytes is not a whole number of 32-bit words")
    if size == 0:  # mmap cannot map an empty file
        return np.zeros(0, dtype=np.uint32)
    words = np.memmap(path, dtype="<u4", mode="r")
    return words if np.little_endian else words.astype(np.uint32)


def read_words(path: str | os.PathLike):
    """Read any supported input: ``(words, manifest or None)``."""
    fmt = detect_format(path)
    if fmt == "capture":
        from iron.trace.capture import load_capture

        cap = load_capture(path)
        return cap.words, cap.manifest
    if fmt == "bin":
        return read_bin(path), None
    return parse_text(Path(path).read_bytes(), str(path)), None
