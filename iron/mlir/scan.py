"""Lexical helpers every reader of mlir-aie text shares: string literals and top-level commas."""

from __future__ import annotations


def unquoted(s: str):
    """``(index, char)`` of every character of ``s`` outside string literals."""
    in_str = escaped = False
    for i, c in enumerate(s):
        if in_str:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
        else:
            yield i, c


def split_top(s: str) -> list[str]:
    """Split on commas outside brackets and strings."""
    if not any(c in s for c in '[(<{"'):
        return s.split(",")
    parts, depth, start = [], 0, 0
    for i, c in unquoted(s):
        if c in "[(<{":
            depth += 1
        elif c in "])>}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(s[start:i])
            start = i + 1
    parts.append(s[start:])
    return parts
