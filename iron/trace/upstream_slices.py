"""Trace layout that upstream mlir-aie records on a runtime sequence.

``-aie-fuse-trace-buffers`` (mlir-aie PR #3652) writes, in the sequence header's
``attributes {...}``:

* ``trace_slices = [#aie.trace_slice<device = "d", sequence = "s", offset = o, size = n>, ...]``:
  one region of the fused trace buffer per traced ``aiex.run``, in program order;
* ``trace_buffer = #aie.trace_buffer<arg_index = i, offset = o, size = n, dedicated = b>``:
  which host argument (and which byte range of it) holds the trace.

Older builds print the same records as dictionaries
(``{device = "d", offset = 0 : i64, ...}``); both forms are read. Only this
module parses those attribute texts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from iron.errors import IronError
from iron.limits import IntegerError, parse_int
from iron.mlir.reader import split_top


class TraceMetaError(IronError):
    """A ``trace_slices`` / ``trace_buffer`` attribute cannot be read."""


@dataclass(frozen=True)
class UpstreamSlice:
    device: str
    sequence: str
    offset: int
    size: int


@dataclass(frozen=True)
class TraceBuffer:
    arg_index: int
    offset: int
    size: int
    dedicated: bool


_RE_VALUE = re.compile(
    r'^\s*(?:"([^"\\]*(?:\\.[^"\\]*)*)"|(-?(?:0x[0-9a-fA-F]+|\d+))|(true|false))\s*(?::\s*\w+)?\s*$'
)


def _close(text: str, start: int, open_c: str, close_c: str) -> int:
    """Index just past the bracket matching ``text[start] == open_c`` (strings skipped)."""
    depth, i, n = 0, start, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i = text.index('"', i + 1) + 1 if '"' in text[i + 1 :] else n
            continue
        if c == open_c:
            depth += 1
        elif c == close_c:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise TraceMetaError(f"unbalanced {open_c!r} in {text!r}")


def _fields(body: str, what: str) -> dict:
    """``k = v, ...`` -> dict of str / int / bool."""
    out = {}
    for part in (p for p in split_top(body) if p.strip()):
        key, eq, value = part.partition("=")
        m = _RE_VALUE.match(value) if eq else None
        if not m:
            raise TraceMetaError(f"{what}: cannot read {part.strip()!r} (expected key = value)")
        s, i, b = m.groups()
        try:
            out[key.strip()] = s if s is not None else parse_int(i) if i is not None else b == "true"
        except IntegerError as exc:
            raise TraceMetaError(f"{what}: {key.strip()}: {exc}") from None
    return out


def _record(text: str, pos: int, mnemonic: str, what: str) -> tuple[dict, int]:
    """The record at ``text[pos:]``: ``#aie.<mnemonic><...>`` or ``{...}``; (fields, end)."""
    head = f"#aie.{mnemonic}"
    if text.startswith(head, pos):
        lt = pos + len(head)
        while text[lt].isspace():
            lt += 1
        if text[lt] != "<":
            raise TraceMetaError(f"{what}: expected '<' after {head}")
        end = _close(text, lt, "<", ">")
        return _fields(text[lt + 1 : end - 1], what), end
    if text.startswith("{", pos):
        end = _close(text, pos, "{", "}")
        return _fields(text[pos + 1 : end - 1], what), end
    raise TraceMetaError(f"{what}: expected {head}<...> or a dictionary at {text[pos:pos + 40]!r}")


def _attr_value_at(attrs: str, name: str) -> int | None:
    """Offset of the value of top-level attribute ``name`` in ``{...}`` text, else None."""
    m = re.search(rf"(?:^|[{{,\s]){name}\s*=\s*", attrs)
    return m.end() if m else None


def _check(rec: dict, keys: dict, what: str) -> dict:
    for key, typ in keys.items():
        if key not in rec:
            raise TraceMetaError(f"{what}: missing {key!r} (has {', '.join(sorted(rec)) or 'nothing'})")
        if typ is int and (isinstance(rec[key], bool) or not isinstance(rec[key], int) or rec[key] < 0):
            raise TraceMetaError(f"{what}: {key} = {rec[key]!r} is not a non-negative integer")
        if typ is str and not isinstance(rec[key], str):
            raise TraceMetaError(f"{what}: {key} = {rec[key]!r} is not a string")
    return rec


def trace_slices(attrs: str | None, where: str = "runtime_sequence") -> list[UpstreamSlice]:
    """The ``trace_slices`` of a sequence's attribute text (``[]`` when absent)."""
    if not attrs:
        return []
    pos = _attr_value_at(attrs, "trace_slices")
    if pos is None:
        return []
    what = f"{where}: trace_slices"
    if attrs[pos] != "[":
        raise TraceMetaError(f"{what}: expected a list '[...]'")
    end = _close(attrs, pos, "[", "]")
    out, i = [], pos + 1
    while True:
        while i < end and attrs[i] in " \t\n,":
            i += 1
        if i >= end - 1:
            break
        rec, i = _record(attrs, i, "trace_slice", what)
        rec = _check(rec, {"device": str, "sequence": str, "offset": int, "size": int}, what)
        out.append(UpstreamSlice(rec["device"], rec["sequence"], rec["offset"], rec["size"]))
    return out


def trace_buffer(attrs: str | None, where: str = "runtime_sequence") -> TraceBuffer | None:
    """The ``trace_buffer`` of a sequence's attribute text (None when absent)."""
    if not attrs:
        return None
    pos = _attr_value_at(attrs, "trace_buffer")
    if pos is None:
        return None
    what = f"{where}: trace_buffer"
    rec, _ = _record(attrs, pos, "trace_buffer", what)
    rec = _check(rec, {"arg_index": int, "offset": int, "size": int}, what)
    return TraceBuffer(rec["arg_index"], rec["offset"], rec["size"], bool(rec.get("dedicated", True)))
