"""Every hardware number lives in an iron/target/ table (docs/ARCHITECTURE.md, "Owners").

Two checks over iron's source outside ``iron/target/`` and ``iron/tests/``:

* no hex integer literal >= 0x100 that is not a plain bit mask (2**k - 1) or a power of
  two: hex is how register offsets, field layouts and device limits get written, so
  one outside the tables is a fact with a second home;
* no int literal, in any base, equal to a register offset of
  ``iron/target/registers.py``, ``iron/target/shim_dma.py`` or ``iron/target/tile_dma.py``
  (>= 0x1000): the literals
  of those tables and every offset their functions give (each BD word, each channel
  register, each Event_Broadcast).

The scanner itself is checked on a small source of known literals, so an empty finding
means "none there", not "none seen".
"""

from __future__ import annotations

import io
import tokenize
from pathlib import Path

from iron.target import registers, shim_dma, tile_dma

IRON = Path(__file__).resolve().parents[1]
TABLES = ("target", "tests")  # folders of iron/ the checks skip
REGISTER_TABLES = (
    IRON / "target" / "registers.py",
    IRON / "target" / "shim_dma.py",
    IRON / "target" / "tile_dma.py",
)
SMALLEST_OFFSET = 0x1000


def _int_literals(text: str):
    """``(line, spelling, value)`` of every integer literal of a Python source."""
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type != tokenize.NUMBER:
            continue
        try:
            value = int(tok.string.replace("_", ""), 0)
        except ValueError:  # floats, imaginary numbers, legacy octal-looking decimals
            continue
        yield tok.start[0], tok.string, value


def _name(path: Path) -> str:
    return str(path.relative_to(IRON.parent)) if path.is_absolute() else str(path)


def _mask_or_power(value: int) -> bool:
    return value & (value + 1) == 0 or value & (value - 1) == 0


def _sources() -> list[Path]:
    return sorted(p for p in IRON.rglob("*.py") if p.relative_to(IRON).parts[0] not in TABLES)


def hex_literals(path: Path, text: str | None = None) -> list[str]:
    """``file:line: literal`` of the hex literals >= 0x100 of ``path`` that are neither a
    bit mask nor a power of two."""
    text = path.read_text() if text is None else text
    return [
        f"{_name(path)}:{line}: {spelling}"
        for line, spelling, value in _int_literals(text)
        if spelling[:2].lower() == "0x" and value >= 0x100 and not _mask_or_power(value)
    ]


def register_offsets() -> set[int]:
    """Register offsets of the two register tables: their literals and what their
    functions compute."""
    found = set()
    for path in REGISTER_TABLES:
        found |= {v for _l, _s, v in _int_literals(path.read_text()) if v >= SMALLEST_OFFSET}
    for regs in registers.TRACE_REGISTERS.values():
        found |= {getattr(regs, f) for f in regs._fields} - {None}
        found |= {regs.event_broadcast(n) for n in range(registers.BROADCAST_CHANNELS)}
        if regs.port_select1 is not None:
            found.add(regs.port_select1)
    for bd in range(shim_dma.SHIM_BD_COUNT):
        found |= {shim_dma.bd_word(bd, w) for w in range(shim_dma.SHIM_BD_WORDS)}
    for d in shim_dma.DIRECTIONS:
        for c in range(shim_dma.SHIM_DMA_CHANNELS):
            found |= {shim_dma.channel_ctrl(d, c), shim_dma.task_queue(d, c), shim_dma.channel_status(d, c)}
    for kind in (tile_dma.MEMTILE, tile_dma.TILE):
        found |= set(tile_dma.channel_registers(kind))
        for bd in range(kind.bd_count):
            found |= {tile_dma.bd_address(kind, bd) + 4 * w for w in range(kind.words)}
    return {v for v in found if v >= SMALLEST_OFFSET and not _mask_or_power(v)}


def register_literals(path: Path, offsets: set[int], text: str | None = None) -> list[str]:
    """``file:line: literal`` of every int literal of ``path`` equal to a register offset."""
    text = path.read_text() if text is None else text
    return [
        f"{_name(path)}:{line}: {spelling}"
        for line, spelling, value in _int_literals(text)
        if value in offsets
    ]


def test_no_hex_literal_outside_target():
    found = [hit for path in _sources() for hit in hex_literals(path)]
    assert not found, "hardware numbers belong in an iron/target/ table; found:\n" + "\n".join(found)


def test_no_register_offset_outside_target():
    offsets = register_offsets()
    found = [hit for path in _sources() for hit in register_literals(path, offsets)]
    assert not found, (
        "register offsets belong to iron/target/registers.py, shim_dma.py or tile_dma.py (use their names); found:\n"
        + "\n".join(found)
    )


def test_the_checks_see_what_they_look_for():
    # 0x1D208 is DMA_S2MM_1_Ctrl (aie-rt XAIEMLGBL_NOC_MODULE_DMA_S2MM_1_CTRL); 119304 is the
    # same offset in decimal, 0x340E0 Trace_Event0 (docs/design.md section 4), 0x1D1E4 BD 15 word 1.
    source = (
        "CTRL = 0x1D208\n"
        "SAME = 119304\n"
        "EVENTS = 0x340E0  # comment 0x34000\n"
        "WORD1 = 0x1D1E4\n"
        "MASK = 0xFFFF\n"
        "POWER = 0x10000\n"
        "SMALL = 0xF0\n"
        "TEXT = '0x1D20C'\n"
        "FLOAT = 1.5e3\n"
    )
    path = Path("example.py")
    assert hex_literals(path, source) == [
        "example.py:1: 0x1D208",
        "example.py:3: 0x340E0",
        "example.py:4: 0x1D1E4",
    ]
    offsets = register_offsets()
    assert {0x1D208, 0x340E0, 0x1D1E4, 0x1D20C, 0x3404C} <= offsets  # docs/design.md section 4 addresses
    assert register_literals(path, offsets, source) == [
        "example.py:1: 0x1D208",
        "example.py:2: 119304",
        "example.py:3: 0x340E0",
        "example.py:4: 0x1D1E4",
    ]
    assert _sources() and not any("target" in p.relative_to(IRON).parts[:1] for p in _sources())
