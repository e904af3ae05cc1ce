"""The trace configuration of a lowered mlir-aie module, read without building its IR.

``iron trace decode trace.txt --mlir aie.mlir`` needs, of the whole design, only
the device's name and symbol, the runtime sequence's name and its constant
``aiex.npu.write32`` ops (the trace register writes). :func:`scan` finds those in
the text with a few regexes; the full reader (:mod:`iron.mlir.reader`, which makes
every op an :mod:`iron.mlir.ir` object) costs a small decode more than its trace
takes. The scan covers the common case only, and says so: it returns None for a
module with more than one device or sequence, with declarative ``aie.trace`` ops,
``#aie.trace_buffer`` / ``trace_slices`` attributes, configure/run, a write32 it
cannot read in full (an operand that is not one ``arith.constant``, an attribute
it does not know), so the caller reads such a module with the full reader. The
full reader stays the owner of MLIR syntax: ``iron/tests/test_mlir_reader.py``
checks on every MLIR file of the tests that where the scan answers, it answers
what the full reader reads.
"""

from __future__ import annotations

import re

from iron.mlir.names import DEFAULT_DEVICE, DEFAULT_SEQUENCE
from iron.record import Record

#: Text the scan does not cover: the full reader reads modules holding any of it.
_NOT_COVERED = ("aie.trace", "trace_buffer", "trace_slices", "aiex.configure", "aiex.run")
_NAME = r"[A-Za-z0-9_$.\-]+"  # iron.mlir.decl.NAME
_RE_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')  # unrolled: no backtracking state per byte
_INT = r"-?(?:0x[0-9a-fA-F]+|\d+)"
_RE_DEVICE = re.compile(rf"\baie\.device\s*\(\s*(\w+)\s*\)\s*(?:@({_NAME}))?")
_RE_SEQUENCE = re.compile(rf"\baiex?\.runtime_sequence\s*(?:@({_NAME}))?\s*\(")
_RE_CONST = re.compile(rf"%({_NAME})\s*=\s*arith\.constant\s+({_INT})\s*:\s*(?:i\d+|index)\b")
_RE_WRITE32 = re.compile(r"\baiex\.npu\.write32\b")
_RE_ATTR_FORM = re.compile(r"aiex\.npu\.write32\s*\{([^{}]*)\}")
_RE_SSA_FORM = re.compile(
    rf"aiex\.npu\.write32\s*\(\s*%({_NAME})\s*,\s*%({_NAME})\s*\)\s*(?:\{{([^{{}}]*)\}})?\s*:\s*i32\s*,\s*i32\b"
)
_RE_ARG = re.compile(rf"\s*%{_NAME}\s*:\s*memref<(?:\d+x)+\w+>\s*")
_RE_BODY = re.compile(r"\s*\{")  # no ``attributes {...}``: the full reader reads those
_RE_ENTRY = re.compile(rf"^\s*(\w+)\s*=\s*({_INT})\s*:\s*u?i32\s*$")


class TraceConfigText(Record, frozen=True):
    """What a lowered single-device module says about its trace (see :func:`scan`)."""

    target: str  # the device name, e.g. "npu1_1col"
    device: str  # its symbol (mlir-aie's default when it has none)
    sequence: str  # the runtime sequence's symbol (likewise)
    writes: list[tuple[int, int, int | None, int | None]]  # (address, value, column, row), in order


def scan(text: str) -> TraceConfigText | None:
    """The device, sequence and write32 ops of ``text``, or None where the full reader
    must read it (module docstring)."""
    if any(word in text for word in _NOT_COVERED) or text.count("aie.device") != 1:
        return None  # before any copy of the text
    # strings emptied (they may hold anything, "//" too), then comments dropped
    code = "\n".join(_RE_STRING.sub('""', line).split("//", 1)[0] for line in text.splitlines())
    if code.count("{") != code.count("}") or code.count("(") != code.count(")"):
        return None  # cut short or malformed: the full reader says where
    devices = _RE_DEVICE.findall(code)
    sequences = list(_RE_SEQUENCE.finditer(code))
    if len(devices) != 1 or len(sequences) > 1 or code.count("aie.device") != 1:
        return None
    constants: dict[str, int] = {}
    for name, value in _RE_CONST.findall(code):
        if constants.setdefault(name, _int(value)) != _int(value):
            return None  # one name, two values (other regions): the full reader resolves scopes
    body = _sequence_body(code, sequences[0].end()) if sequences else len(code)
    if body is None:
        return None
    if any(m.start() < body for m in _RE_WRITE32.finditer(code)):
        return None  # a write32 outside the runtime sequence
    writes = []
    for m in _RE_WRITE32.finditer(code):
        op = _write32(code, m.start(), constants)
        if op is None:
            return None
        writes.append(op)
    target, symbol = devices[0]
    name = sequences[0].group(1) if sequences else None
    return TraceConfigText(target, symbol or DEFAULT_DEVICE, name or DEFAULT_SEQUENCE, writes)


def _sequence_body(code: str, args_at: int) -> int | None:
    """Where the runtime sequence's body starts (after ``(args) {``), or None unless every
    argument is a plain ``memref`` (the full reader keeps other sequences opaque)."""
    depth, end = 1, args_at
    while depth and end < len(code):
        depth += {"(": 1, ")": -1}.get(code[end], 0)
        end += 1
    if depth:
        return None
    inner = code[args_at : end - 1].strip()
    if inner and not all(_RE_ARG.fullmatch(a) for a in inner.split(",")):
        return None
    brace = _RE_BODY.match(code, end)
    return brace.end() if brace else None


def _int(text: str) -> int:
    """An MLIR integer literal (decimal, or hex with 0x) as the full reader reads it."""
    digits = text.lstrip("-")
    value = int(digits, 16) if digits[:2] in ("0x", "0X") else int(digits)
    return -value if text.startswith("-") else value


def _write32(code: str, at: int, constants: dict[str, int]):
    """(address, value, column, row) of the write32 at ``at``, or None."""
    attr = _RE_ATTR_FORM.match(code, at)
    ssa = None if attr else _RE_SSA_FORM.match(code, at)
    fields: dict[str, int] = {}
    if ssa is not None:
        if ssa.group(1) not in constants or ssa.group(2) not in constants:
            return None  # the full reader keeps a write32 of other operands opaque
        fields = {"address": constants[ssa.group(1)], "value": constants[ssa.group(2)]}
    elif attr is None:
        return None
    entries = (attr or ssa).group(1 if attr else 3)
    for entry in (entries or "").split(","):
        if not entry.strip() and not (entries or "").strip():
            continue
        m = _RE_ENTRY.match(entry)
        if m is None or m.group(1) not in ("address", "value", "column", "row") or m.group(1) in fields:
            return None
        fields[m.group(1)] = _int(m.group(2))
    if "address" not in fields or "value" not in fields:
        return None
    word = 0xFFFFFFFF  # address and value are 32-bit words (iron.mlir.ir.Write32)
    return fields["address"] & word, fields["value"] & word, fields.get("column"), fields.get("row")
