"""Core ELFs iron reads (``iron.trace.pcmap``): symbols near 2**64 and special or huge input
files are one CoreElfError, checked before reading.
"""

from __future__ import annotations

import os
import struct

import pytest

from iron.trace.pcmap import CoreElfError, read_core_elf, read_core_elf_data


def elf64(symbols) -> bytes:
    """A minimal little-endian ELF64 (ELF spec, gABI): .text, .symtab of STT_FUNC ``symbols``
    ``(name, value, size)``, .strtab, .shstrtab."""
    text = bytes(16)
    strtab, syms, off = b"\0", [bytes(24)], 1
    for name, value, size in symbols:
        strtab += name.encode() + b"\0"
        syms.append(struct.pack("<IBBHQQ", off, 0x12, 0, 1, value, size))  # GLOBAL FUNC, shndx .text
        off += len(name) + 1
    shstr = b"\0.text\0.symtab\0.strtab\0.shstrtab\0"
    body = [text, b"".join(syms), strtab, shstr]
    offs, pos = [], 64
    for b in body:
        offs.append(pos)
        pos += len(b)
    sh = [bytes(64)]
    sh.append(struct.pack("<IIQQQQIIQQ", 1, 1, 6, 0, offs[0], len(text), 0, 0, 4, 0))
    sh.append(struct.pack("<IIQQQQIIQQ", 7, 2, 0, 0, offs[1], len(body[1]), 3, 1, 8, 24))
    sh.append(struct.pack("<IIQQQQIIQQ", 15, 3, 0, 0, offs[2], len(strtab), 0, 0, 1, 0))
    sh.append(struct.pack("<IIQQQQIIQQ", 23, 3, 0, 0, offs[3], len(shstr), 0, 0, 1, 0))
    hdr = (
        b"\x7fELF\x02\x01\x01"
        + bytes(9)
        + struct.pack("<HHIQQQIHHHHHH", 2, 62, 1, 0, 0, pos, 0, 64, 0, 0, 64, 5, 4)
    )
    return hdr + b"".join(body) + b"".join(sh)


def test_elf64_symbol_near_2_64_is_a_core_elf_error():
    assert read_core_elf_data(elf64([("f", 0x100, 0x20)]), "ok.elf").function(0x110) == "f"
    with pytest.raises(CoreElfError, match=r"big\.elf: function 'g' spans 0xfffffffffffffff0"):
        read_core_elf_data(elf64([("g", (1 << 64) - 16, 8)]), "big.elf")


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


@pytest.fixture
def huge(tmp_path):
    path = tmp_path / "huge.bin"
    with open(path, "wb") as f:  # sparse: 1 GiB + 1 byte on no disk
        f.truncate((1 << 30) + 1)
    return path


@pytest.mark.parametrize("which", ["/dev/zero", "fifo", "huge", "dir"])
def test_core_elf_inputs_are_checked_before_reading(which, fifo, huge, tmp_path):
    path = {"/dev/zero": "/dev/zero", "fifo": fifo, "huge": huge, "dir": tmp_path}[which]
    with pytest.raises(CoreElfError, match="not a regular file|more than the largest|is a directory"):
        read_core_elf(path)  # /dev/zero: MemoryError, a FIFO: hangs, before the checks
