"""Upstream mlir-aie syntax vectors (``iron/tests/data/upstream``, sources in its SOURCES.md).

:func:`canon` makes two pieces of MLIR comparable "up to SSA value names": comments
and blank lines go, FileCheck captures (``%[[X:.+]]`` / ``%[[X]]``) become plain
names, and every SSA name is renamed by order of first appearance.
"""

from __future__ import annotations

import re
from pathlib import Path

UPSTREAM = Path(__file__).parent / "data" / "upstream"

_SSA = re.compile(r"%[A-Za-z0-9_$.\-]+")
_CAPTURE = re.compile(r"%\[\[([A-Za-z0-9_]+)(?::[^\]]*)?\]\]")


def check_lines(name: str, after: str | None = None) -> list[str]:
    """The ``CHECK:``/``CHECK-DAG:``/``CHECK-SAME:`` patterns of upstream file ``name``
    (after the first line containing ``after``), with captures as plain SSA names."""
    text = (UPSTREAM / name).read_text()
    if after is not None:
        text = text[text.index(after) :]
    out = []
    for line in text.splitlines():
        m = re.match(r"\s*//\s*CHECK(?:-DAG|-SAME|-NEXT)?:\s?(.*)$", line)
        if m:
            out.append(_CAPTURE.sub(lambda c: "%" + c.group(1), m.group(1)).strip())
    return out


def source_lines(name: str) -> list[str]:
    """Code lines of upstream file ``name`` (comments and blank lines dropped)."""
    return [code for line in (UPSTREAM / name).read_text().splitlines() if (code := _code(line))]


def _code(line: str) -> str:
    s = line.strip()
    return "" if s.startswith("//") else s


def canon(lines) -> list[str]:
    """Lines with SSA names replaced by ``%v0, %v1, ...`` in order of first appearance."""
    if isinstance(lines, str):
        lines = lines.split("\n")
    names: dict[str, str] = {}
    rename = lambda m: names.setdefault(m.group(0), f"%v{len(names)}")  # noqa: E731
    return [_SSA.sub(rename, s) for line in lines if (s := _code(line))]
