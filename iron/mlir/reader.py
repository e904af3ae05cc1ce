"""Tolerant reader for mlir-aie textual assembly -> :mod:`iron.mlir.ir`.

Reads iron's own output and foreign mlir-aie files. Structured ops (devices,
tiles, packet flows, shim DMA allocations, blockwrite globals, runtime
sequences and their npu ops, configure/run, subview + reinterpret_cast views,
cores and the ops of their bodies declared in :mod:`iron.mlir.body`) become IR
objects; every other op, including ops with regions, is kept as one
:class:`~iron.mlir.ir.Opaque` with its verbatim text. Comment lines outside
opaque ops are dropped (a core whose text the printer would not give back keeps
it verbatim: :attr:`iron.mlir.ir.Core.text`).

npu ops are accepted in the attribute form (``aiex.npu.write32 {address = ..}``)
and in the newer SSA form whose operands are ``arith.constant`` values
(``aiex.npu.write32(%a, %v) : i32, i32``; see mlir-aie ``AIEX.td``). An SSA-form
op whose operands are not constants stays opaque. ``arith.constant``,
``memref.get_global`` and ``memref.subview`` ops that only feed structured ops
are dropped (the printer re-creates what it needs).

One pass over the lines with a few regexes per line: linear in the file size.
"""

from __future__ import annotations

import re

from iron import limits
from iron.errors import IronError
from iron.mlir import body as _body  # noqa: F401 (declares the core-body ops read_op reads)
from iron.mlir import ir
from iron.mlir import structural_ops as _structural_ops  # noqa: F401 (declares the structural ops)
from iron.mlir.decl import BY_MLIR, REQUIRED
from iron.mlir.decl import NAME as _NAME
from iron.mlir.form import RESULT, read_op
from iron.mlir.printer import AUTO_GLOBAL_PREFIX
from iron.mlir.scan import split_top, unquoted
from iron.mlir.structure import STARTS, ReadError, memref_type, read_structural
from iron.target import geometry


class MlirSyntaxError(IronError):
    """Malformed MLIR; the message starts with ``file:line:column``."""


#: ``aie.device`` targets that are not NPUs but may appear in foreign files
#: (mlir-aie ``AIEAttrs.td`` AIEDevice enum).
_OTHER_TARGETS = ("xcvc1902", "xcve2302", "xcve2802")

_INT = r"-?(?:0x[0-9a-fA-F]+|\d+)"

#: A string literal. The unrolled form (runs of plain characters between escapes): the
#: alternation ``(?:[^"\\]|\\.)*`` made the regex engine keep ~150 bytes per character.
_RE_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_RE_MODULE = re.compile(rf"^(module\s*(?:@{_NAME}\s*)?(?:attributes\s*\{{.*\}}\s*)?)\{{(\}})?$")
_SEQUENCE_HEADS = ("aie.runtime_sequence", "aiex.runtime_sequence")
_RE_GLOBAL = re.compile(
    rf'^memref\.global\s+"private"\s+constant\s+@({_NAME})\s*:\s*memref<(\d+)xi32>\s*=\s*dense<(.*)>$', re.S
)
_RE_CONST = re.compile(rf"^%({_NAME})\s*=\s*arith\.constant\s+({_INT}|true|false)\s*:\s*(i\d+|index)$")
_RE_GET_GLOBAL = re.compile(rf"^%({_NAME})\s*=\s*memref\.get_global\s+@({_NAME})\s*:\s*memref<\d+xi32>$")
_RE_SUBVIEW = re.compile(
    rf"^%({_NAME})\s*=\s*memref\.subview\s+%({_NAME})\s*\[\s*(\d+)\s*\]\s*\[\s*(\d+)\s*\]\s*\[\s*1\s*\]\s*:\s*"
    rf"memref<(\d+)x(\w+)>\s+to\s+memref<(\d+)x(\w+)\s*,\s*strided<\[\s*1\s*\]\s*,\s*offset:\s*(\d+)\s*>\s*>$",
    re.S,
)
_RE_COLLAPSE = re.compile(
    rf"^%({_NAME})\s*=\s*memref\.collapse_shape\s+%({_NAME})\s*\[\[([\d,\s]*)\]\]\s*:\s*(memref<[^>]*>)\s+into\s+"
    r"(memref<[^>]*>)$",
    re.S,
)
_RE_CAST = re.compile(
    rf"^%({_NAME})\s*=\s*memref\.reinterpret_cast\s+%({_NAME})\s+to\s+offset:\s*\[\s*0\s*\]\s*,\s*"
    r"sizes:\s*\[([\d,\s]*)\]\s*,\s*strides:\s*\[([\d,\s]*)\]\s*:\s*(.*?)\s+to\s+(memref<[^>]*>)$",
    re.S,
)
_RE_MEMCPY = re.compile(
    rf"^aiex\.npu\.dma_memcpy_nd\s*\(\s*(?:\d+\s*,\s*\d+\s*,\s*)?%({_NAME})\s*"
    r"\[([^\]]*)\]\s*\[([^\]]*)\]\s*\[([^\]]*)\]\s*(?:,\s*packet\s*=\s*<([^<>]*)>\s*)?\)\s*(\{.*\})?\s*:\s*(.*)$",
    re.S,
)
_RE_NPU = re.compile(r"^(aiex\.npu\.\w+)\s*(?:\(([^()]*)\))?\s*(\{.*\})?\s*(?::\s*(.*))?$", re.S)
_RE_ITEM = re.compile(r"[^,]+")
#: Words a splat ``dense<v>`` global may stand for: a memtile's 512 KiB (the largest memory a
#: blockwrite can target, iron.target.geometry.MEMTILE_MEMORY).
MAX_SPLAT_WORDS = geometry.MEMTILE_MEMORY // 4
_RE_SSA_REF = re.compile(rf"%({_NAME})")
_RE_SYM_REF = re.compile(rf"@({_NAME})")


def _header(code: str) -> str:
    """A container's header: its line without the ``{`` (or empty ``{}``) that opens its region."""
    return code[:-2] if code.endswith("{}") else code[:-1]


#: Internal: a problem in the current statement, near ``key`` (declared ops' ``read`` raise it too).
_Err = ReadError


# ------------------------------------------------------------------ scanning helpers
def _code(s: str) -> str:
    """``s`` without a trailing ``//`` comment (string literals respected)."""
    if "//" not in s:
        return s
    if '"' not in s:
        return s[: s.index("//")].rstrip()
    for i, c in unquoted(s):
        if c == "/" and s.startswith("//", i):
            return s[:i].rstrip()
    return s


def _depth(code: str) -> int:
    """Net bracket depth change of a line of code."""
    if '"' in code:
        code = _RE_STRING.sub("", code)
    return (
        code.count("{")
        - code.count("}")
        + code.count("(")
        - code.count(")")
        + code.count("[")
        - code.count("]")
    )


def _parse_int(text: str) -> int:
    """An integer literal as MLIR reads it (:func:`iron.limits.parse_int`: leading zeros are
    decimal, ``0x`` hex, at most ``MAX_INT_DIGITS`` digits); ValueError otherwise."""
    return limits.parse_int(text)


#: A digit run longer than any integer iron reads, outside a word (``0x`` + hex blobs
#: and identifiers are words): refused once before reading, so no ``int()`` of a field
#: ever sees more than :data:`iron.limits.MAX_INT_DIGITS` digits.
_RE_LONG_DIGITS = re.compile(rf"(?<![\w.])[0-9]{{{limits.MAX_INT_DIGITS + 1},}}")


_RE_ENTRY = re.compile(r"\s*([A-Za-z_][\w$.]*)\s*(?:=\s*(.*?))?\s*", re.S)


def _attr_dict(text: str | None) -> dict[str, str]:
    """``{a = 1 : i32, b = @x, c}`` -> {"a": "1 : i32", "b": "@x", "c": ""}."""
    if not text:
        return {}
    inner = text.strip()[1:-1]
    if not inner.strip():
        return {}
    out = {}
    match = _RE_ENTRY.fullmatch
    for part in split_top(inner):
        m = match(part)
        if m is None:
            raise _Err(f"malformed attribute {part.strip()!r}")
        out[m.group(1)] = m.group(2) or ""
    return out


def _int_attr(attrs: dict, key: str, op: str, mask32: bool = False) -> int:
    try:
        value = attrs[key]
    except KeyError:
        raise _Err(f"{op}: missing required attribute '{key}'", op) from None
    number, colon, typ = value.partition(":")
    try:
        if colon and not typ.strip().isidentifier():
            raise ValueError
        v = _parse_int(number)
    except ValueError:
        raise _Err(f"{op}: attribute '{key}' must be an integer, got {value!r}", key) from None
    return v & 0xFFFFFFFF if mask32 else v


def _sym_attr(attrs: dict, key: str, op: str) -> str:
    if key not in attrs:
        raise _Err(f"{op}: missing required attribute '{key}'", op)
    m = re.fullmatch(rf"@({_NAME})", attrs[key])
    if not m:
        raise _Err(f"{op}: attribute '{key}' must be a symbol reference, got {attrs[key]!r}", key)
    return m.group(1)


def _packet_info(text: str, op: str) -> tuple[int, int]:
    """``pkt_type = 0, pkt_id = 3`` (either order; AIE's PacketInfoAttr) -> ``(pkt_type, pkt_id)``."""
    fields = dict(part.split("=", 1) for part in text.split(",") if "=" in part)
    fields = {k.strip(): v.strip() for k, v in fields.items()}
    if set(fields) != {"pkt_type", "pkt_id"} or text.count("=") != 2:
        raise _Err(f"{op}: packet = <{text}>: expected <pkt_type = N, pkt_id = N>", "packet")
    try:
        return _parse_int(fields["pkt_type"]), _parse_int(fields["pkt_id"])
    except ValueError:
        raise _Err(f"{op}: packet = <{text}>: pkt_type and pkt_id must be integers", "packet") from None


def _int_list(text: str) -> tuple[int, ...] | None:
    try:
        return tuple(_parse_int(p) for p in text.split(",")) if text.strip() else ()
    except ValueError:
        return None  # dynamic (SSA) operands


# ------------------------------------------------------------------ parse state
class _Seq:
    """Per-runtime-sequence state: SSA values the structured ops may consume."""

    def __init__(self, seq: ir.RuntimeSequence):
        self.seq = seq
        self.consts: dict[str, int] = {}
        self.gets: dict[str, str] = {}  # get_global result -> symbol
        self.subviews: dict[str, tuple] = {}  # name -> (source, offset, size, dtype)
        self.flats: dict[str, str] = {}  # collapse_shape result -> the (multi-dim) source
        self.scope: dict[str, ir.MemRefType] = {a.name: a.type for a in seq.args}
        self.droppable: list[tuple[str, ir.Opaque]] = []  # (defined name, op) removed if unused


class _Dev:
    def __init__(self, dev: ir.Device):
        self.dev = dev
        self.tiles: dict[str, ir.Tile] = {}
        self.globals: dict[str, ir.MemrefGlobal] = {}
        self.blockwrites: list[ir.BlockWrite] = []
        self.opaque_syms: set[str] = set()  # @symbols mentioned by opaque ops
        self.consts: dict[str, int] = {}  # device-level arith.constant values (aiecc hoists them there)


class _Frame:
    __slots__ = ("kind", "body", "obj", "line", "col")

    def __init__(self, kind, body, obj, line, col):
        self.kind, self.body, self.obj, self.line, self.col = kind, body, obj, line, col


class _Reader:
    def __init__(self, text: str, filename: str | None):
        self.lines = text.split("\n")
        self.filename = filename or "<string>"
        self.module = ir.Module()
        self.stack: list[_Frame] = [_Frame("top", self.module.extra, None, 0, 0)]
        self.dev: _Dev | None = None
        self.seq: _Seq | None = None

    def error(self, msg: str, line: int, col: int) -> MlirSyntaxError:
        return MlirSyntaxError(f"{self.filename}:{line}:{col}: {msg}")

    def check_text(self) -> None:
        """Refuse, naming line and column, what no MLIR holds and later steps would
        misreport: a NUL character, and integers longer than any field (see
        :data:`_RE_LONG_DIGITS`)."""
        for i, raw in enumerate(self.lines):
            if "\0" in raw:
                raise self.error("a NUL character (U+0000): not MLIR text", i + 1, raw.index("\0") + 1)
            if len(raw) > limits.MAX_INT_DIGITS:
                m = _RE_LONG_DIGITS.search(raw)
                if m:
                    raise self.error(
                        f"an integer of {m.end() - m.start()} digits; at most {limits.MAX_INT_DIGITS} are read",
                        i + 1,
                        m.start() + 1,
                    )

    # -------------------------------------------------------------- main loop
    def run(self) -> ir.Module:
        self.check_text()
        lines, n, i = self.lines, len(self.lines), 0
        while i < n:
            raw = lines[i]
            s = raw.strip()
            if not s or s.startswith("//"):
                i += 1
                continue
            col = len(raw) - len(raw.lstrip()) + 1
            code = _code(s)
            if code.startswith(_SEQUENCE_HEADS) and not code.endswith("{"):
                code, i = self.sequence_header(i, code)
            if code[0] == "}":
                self.close(code, i + 1, col)
                i += 1
                continue
            if code[-1] == "{" or code.endswith("{}"):
                if self.open_container(code, i + 1, col):
                    i += 1
                    continue
            text, code_text, j = self.gather(i, code)
            try:
                self.statement(text, code_text, i + 1)
            except _Err as e:
                kcol = raw.find(e.key) + 1 if e.key and e.key in raw else col
                raise self.error(str(e), i + 1, kcol) from None
            except IronError as e:  # e.g. an unsupported value in an ir constructor
                raise self.error(str(e), i + 1, col) from None
            i = j
        if len(self.stack) > 1:
            f = self.stack[-1]
            raise self.error("unbalanced braces: '{' opened here is never closed", f.line, f.col)
        return self.module

    def sequence_header(self, i: int, code: str) -> tuple[str, int]:
        """A runtime sequence header that aie-opt wrapped over several lines (long
        ``attributes {trace_buffer = ...}``): the lines joined, and the index of its last line."""
        parts, j = [code], i
        while j + 1 < len(self.lines):
            joined = " ".join(parts)
            if joined.endswith("{") and _depth(joined[:-1]) == 0:
                break
            j += 1
            parts.append(_code(self.lines[j].strip()))
        joined = " ".join(p for p in parts if p)
        return (joined, j) if joined.endswith("{") else (code, i)

    def gather(self, i: int, code: str) -> tuple[str, str, int]:
        """Collect one statement starting at line ``i`` (brackets balanced).

        Returns (verbatim text dedented to the first line, code for parsing, next line).
        """
        lines, n = self.lines, len(self.lines)
        depth = _depth(code)
        j = i + 1
        if depth == 0 and (j >= n or not lines[j].lstrip().startswith((":", "->", "to "))):
            return lines[i].strip(), code, j  # the common single-line case
        raw0 = lines[i]
        lead = len(raw0) - len(raw0.lstrip())
        texts, codes = [raw0.strip()], [code]
        while True:
            while depth > 0:
                if j >= n:
                    raise self.error("unbalanced braces: statement never closed", i + 1, lead + 1)
                line = lines[j].rstrip()
                c = _code(line.strip())
                depth += _depth(c)
                strip = min(lead, len(line) - len(line.lstrip()))
                texts.append(line[strip:])
                codes.append(c)
                j += 1
            if j < n and lines[j].lstrip().startswith((":", "->", "to ")):
                depth = _depth(_code(lines[j].strip()))
                continue_line = lines[j].rstrip()
                strip = min(lead, len(continue_line) - len(continue_line.lstrip()))
                texts.append(continue_line[strip:])
                codes.append(_code(continue_line.strip()))
                j += 1
                continue
            break
        if depth < 0:
            raise self.error("unbalanced braces: unexpected closing bracket", i + 1, lead + 1)
        return "\n".join(texts), "\n".join(codes), j

    # -------------------------------------------------------------- containers
    def open_container(self, code: str, line: int, col: int) -> bool:
        """Open the block that ``code`` (a line ending in ``{``) starts where it may stand:
        a module, device, runtime sequence or configure. False: not one (a statement)."""
        kind = self.stack[-1].kind
        if code.startswith("module") and kind == "top":
            return self.open_module(code, line, col)
        if code.startswith("aie.device") and kind in ("top", "module"):
            return self.open_device(code, line, col)
        if "runtime_sequence" in code and kind == "device":
            return self.open_sequence(code, line, col)
        if code.startswith("aiex.configure") and kind in ("sequence", "configure"):
            return self.open_configure(code, line, col)
        return False

    def open_module(self, code: str, line: int, col: int) -> bool:
        """``module [attributes] {``: its header is kept, its body holds the devices."""
        m = _RE_MODULE.match(code)
        if not m:
            return False
        self.module.header = " ".join(m.group(1).split())
        self.stack.append(_Frame("module", self.module.extra, None, line, col))
        if m.group(2):
            self.close("}", line, col)
        return True

    def open_device(self, code: str, line: int, col: int) -> bool:
        """``aie.device(<target>) [@symbol] {``: a new device (an unknown target is an error)."""
        dev = read_structural("module", _header(code), self)
        if dev is None:
            raise self.error(f"malformed aie.device header {code!r}", line, col)
        target = dev.target
        if target not in _OTHER_TARGETS:
            try:
                geometry.device_columns(target)
            except IronError:
                raise self.error(
                    f"unknown aie.device target {target!r}; accepted: npu1[_Ncol], npu2[_Ncol], "
                    + ", ".join(_OTHER_TARGETS),
                    line,
                    col + code.find(target),
                ) from None
        self.module.devices.append(dev)
        self.dev = _Dev(dev)
        self.stack.append(_Frame("device", dev.body, dev, line, col))
        if code.endswith("{}"):
            self.close("}", line, col)
        return True

    def open_sequence(self, code: str, line: int, col: int) -> bool:
        """``aie(x).runtime_sequence [@name](args) {`` of memref arguments; False (kept opaque)
        for a sequence with scalar or unsupported arguments."""
        try:
            seq = read_structural("device", _header(code), self)
        except ReadError as e:
            raise self.error(str(e), line, col + code.find(e.key)) from None
        if not isinstance(seq, ir.RuntimeSequence):
            return False  # scalar or unsupported arguments: kept opaque
        self.dev.dev.body.append(seq)
        self.seq = _Seq(seq)
        self.stack.append(_Frame("sequence", seq.body, seq, line, col))
        if code.endswith("{}"):
            self.close("}", line, col)
        return True

    def open_configure(self, code: str, line: int, col: int) -> bool:
        """``aiex.configure @device {`` inside a runtime sequence (or another configure)."""
        conf = read_structural("sequence", _header(code), self)
        if not isinstance(conf, ir.Configure):
            return False
        self.stack[-1].body.append(conf)
        self.stack.append(_Frame("configure", conf.body, conf, line, col))
        if code.endswith("{}"):
            self.close("}", line, col)
        return True

    def close(self, code: str, line: int, col: int) -> None:
        if len(self.stack) == 1:
            raise self.error("unbalanced braces: unexpected '}'", line, col)
        frame = self.stack.pop()
        # Trailing text after '}' (e.g. configure's attributes) is ignored.
        if frame.kind == "sequence":
            self.finish_sequence()
        elif frame.kind == "device":
            self.finish_device()

    # -------------------------------------------------------------- statements
    def statement(self, text: str, code: str, line: int) -> None:
        kind = self.stack[-1].kind
        body = self.stack[-1].body
        op = None
        if kind == "device":
            op = self.device_op(code, text)
        elif kind in ("sequence", "configure"):
            op = self.runtime_op(code, text)
            if op is _DONE:
                return
        if op is None:
            op = ir.Opaque(text)
            self.note_opaque(op)
        body.append(op)

    def note_opaque(self, op: ir.Opaque) -> None:
        if self.dev is not None and "@" in op.text:
            self.dev.opaque_syms.update(_RE_SYM_REF.findall(op.text))

    def read_op(self, table: tuple, code: str):
        """The op ``code`` spells, read by the first reader of ``table`` whose prefix it has;
        None (kept opaque) if no reader applies or the reader declines."""
        for prefix, reader in table:
            if code.startswith(prefix):
                return reader(self, code)
        return None

    @property
    def tiles(self) -> dict:
        """The current device's tiles by SSA name (what declared ops' ``read`` may ask)."""
        return self.dev.tiles if self.dev is not None else {}

    @property
    def scope(self) -> dict:
        """The current sequence's memref values by SSA name."""
        return self.seq.scope if self.seq is not None else {}

    def device_op(self, code: str, text: str = ""):
        """A structured op of a device body, or None (kept opaque)."""
        if code.startswith(("%", "aie.core")) and _RE_CORE.match(code.split("\n", 1)[0]):
            return self.core(text)
        if code.startswith(STARTS["device"]):
            op = read_structural("device", code, self)
            if op is not None:
                return op
        return self.read_op(_DEVICE_OPS, code)

    def core(self, text: str):
        """``[%c = ]aie.core(%tile) { ... } [{attrs}]``: an :class:`~iron.mlir.ir.Core` whose body
        is read op by op (:func:`read_region`); the verbatim ``text`` is kept when the generic
        printer would not give it back (comments, blank lines, other indentation or spacing)."""
        lines = text.split("\n")
        head = _RE_CORE.match(_code(lines[0].strip()))
        tail = _code(lines[-1].strip())
        if head is None or len(lines) < 2 or not tail.startswith("}"):
            return None
        attrs = tail[1:].strip() or None
        if attrs is not None and not (attrs.startswith("{") and attrs.endswith("}")):
            return None
        core = ir.Core(head.group(1), head.group(2), read_region(lines[1:-1]), attrs)
        from iron.mlir.printer import core_lines, opaque_lines

        if core_lines(core) != opaque_lines(text):
            core.text = text
        self.note_opaque(ir.Opaque(text))
        return core

    def device_value(self, code: str):
        """``%x = ...`` in a device body: a declared op (a tile; constants are noted and kept verbatim)."""
        op = read_structural("device", code, self)
        if isinstance(op, ir.Tile):
            self.dev.tiles[op.name] = op
        if op is not None:
            return op
        m = _RE_CONST.match(code)
        if m and m.group(2) not in ("true", "false"):
            self.dev.consts[m.group(1)] = _parse_int(m.group(2))
        return None

    def memref_global(self, code: str):
        m = _RE_GLOBAL.match(code)
        if not m:
            return None
        n = int(m.group(2))
        dense = m.group(3).strip()
        try:
            if dense.startswith("["):  # one value at a time: a list of the pieces cost 6 bytes per byte
                values = tuple(
                    _parse_int(v.group()) & 0xFFFFFFFF for v in _RE_ITEM.finditer(dense, 1, len(dense) - 1)
                )
            elif dense.startswith('"0x'):
                raw = bytes.fromhex(dense[3:-1])
                values = tuple(int.from_bytes(raw[k : k + 4], "little") for k in range(0, len(raw), 4))
            elif n > MAX_SPLAT_WORDS:  # 40 bytes of text would ask for gigabytes
                raise _Err(
                    f"memref.global @{m.group(1)}: memref<{n}xi32> of one value; at most {MAX_SPLAT_WORDS} words "
                    "(a memtile's memory) are read",
                    "memref",
                )
            else:
                values = (_parse_int(dense) & 0xFFFFFFFF,) * n
        except ValueError:
            raise _Err(f"memref.global @{m.group(1)}: bad dense payload {dense!r}", "dense") from None
        if len(values) != n:
            raise _Err(f"memref.global @{m.group(1)}: {len(values)} values for memref<{n}xi32>", "dense")
        glob = ir.MemrefGlobal(m.group(1), values)
        self.dev.globals[glob.symbol] = glob
        return glob

    def runtime_op(self, code: str, text: str):
        """A structured op of a runtime sequence or configure block, or None (kept opaque)."""
        if code[0] == "%":
            return self.value_def(code, text)
        op = read_structural("sequence", code, self) if code.startswith(STARTS["sequence"]) else None
        return op if op is not None else self.read_op(_RUNTIME_OPS, code)

    def npu_op(self, code: str):
        m = _RE_NPU.match(code)
        if not m:
            return None
        name = m.group(1)
        cls = BY_MLIR.get(name)
        if cls is None and name != "aiex.npu.blockwrite":
            return None
        operands = [o.strip() for o in m.group(2).split(",")] if m.group(2) and m.group(2).strip() else []
        attrs = _attr_dict(m.group(3))
        if cls is None:
            return self.blockwrite(operands, attrs, name)
        return self.declared(cls, operands, attrs, name)

    def value_def(self, code: str, text: str):
        """``%x = ...`` inside a sequence."""
        st = self.seq
        m = _RE_CONST.match(code)
        if m:
            if m.group(2) not in ("true", "false"):
                st.consts[m.group(1)] = _parse_int(m.group(2))
            return self.droppable(m.group(1), text)
        m = _RE_GET_GLOBAL.match(code)
        if m:
            st.gets[m.group(1)] = m.group(2)
            return self.droppable(m.group(1), text)
        if "memref.collapse_shape" in code:
            m = _RE_COLLAPSE.match(code)
            if m and m.group(2) in st.scope:
                src, flat = memref_type(m.group(4)), memref_type(m.group(5))
                full = ", ".join(str(d) for d in range(len(src.shape))) if src else None
                dims = ", ".join(d.strip() for d in m.group(3).split(","))
                if (
                    src == st.scope[m.group(2)]
                    and flat == ir.MemRefType((src.numel,), src.dtype)
                    and dims == full
                ):
                    st.flats[m.group(1)] = m.group(2)
                    return self.droppable(m.group(1), text)
            return None
        if "memref.subview" in code:
            m = _RE_SUBVIEW.match(code)
            if m and m.group(6) == m.group(8) and m.group(4) == m.group(7) and m.group(3) == m.group(9):
                source = st.flats.get(m.group(2), m.group(2))
                st.subviews[m.group(1)] = (source, int(m.group(3)), int(m.group(4)), m.group(6))
                return self.droppable(m.group(1), text)
            return None
        if "memref.reinterpret_cast" in code:
            m = _RE_CAST.match(code)
            if not m or m.group(2) not in st.subviews:
                return None
            source, offset, size, dtype = st.subviews[m.group(2)]
            typ = memref_type(m.group(6))
            sizes = _int_list(m.group(3))
            strides = _int_list(m.group(4))
            if typ is None or typ.dtype != dtype or sizes != typ.shape or typ.numel != size:
                return None
            expect, acc = [], 1
            for d in reversed(typ.shape):
                expect.append(acc)
                acc *= d
            if strides != tuple(reversed(expect)) or source not in st.scope:
                return None
            view = ir.View(m.group(1), source, offset, typ)
            st.scope[view.name] = typ
            return view
        return None

    def droppable(self, name: str, text: str):
        op = ir.Opaque(text)
        self.seq.droppable.append((name, op))
        self.stack[-1].body.append(op)
        return _DONE

    def const(self, operand: str, op: str) -> int | None:
        name = operand.split(":")[0].strip()
        if not name.startswith("%"):
            raise _Err(f"{op}: malformed operand {operand!r}", operand)
        value = self.seq.consts.get(name[1:])
        return self.dev.consts.get(name[1:]) if value is None else value

    def int_list(self, text: str) -> tuple[int, ...] | None:
        """Static or constant-valued SSA operands (``[0, %c1_i64]``); None if any is dynamic."""
        out = []
        for part in text.split(",") if text.strip() else []:
            part = part.strip()
            if part.startswith("%"):
                value = self.const(part, "aiex.npu.dma_memcpy_nd")
                if value is None:
                    return None
                out.append(value)
            else:
                try:
                    out.append(_parse_int(part))
                except ValueError:
                    return None
        return tuple(out)

    def memcpy(self, code: str):
        m = _RE_MEMCPY.match(code)
        if not m:
            return None
        arg = m.group(1)
        offs, sizes, strides = (self.int_list(m.group(k)) for k in (2, 3, 4))
        if None in (offs, sizes, strides) or not (len(offs) == len(sizes) == len(strides) == 4):
            return None
        if arg not in self.seq.scope:
            return None
        attrs = _attr_dict(m.group(6))
        op = "aiex.npu.dma_memcpy_nd"
        extra = set(attrs) - {"id", "metadata", "issue_token"}
        if extra:
            return None  # zero padding, burst length...: not modelled (kept as text)
        bd = _int_attr(attrs, "id", op)
        meta = _sym_attr(attrs, "metadata", op)
        token = attrs.get("issue_token", "false")
        if token not in ("true", "false", ""):
            raise _Err(f"{op}: issue_token must be true or false, got {token!r}", "issue_token")
        packet = None if m.group(5) is None else _packet_info(m.group(5), op)
        return ir.DmaMemcpyNd(
            arg, offs, sizes, strides[:3], meta, bd, token in ("true", ""), strides[3], packet
        )

    # ------------------------------------------------------------ npu ops
    def declared(self, cls, operands: list[str], attrs: dict, op: str):
        """An op with an :class:`~iron.mlir.decl.Syntax`, in today's SSA form (operands
        that are ``arith.constant`` values) or the older attribute form. None: keep it
        opaque (attributes iron does not model, operands that are not constants)."""
        spec = cls.MLIR
        expected = spec.operands
        if operands and not expected:
            return None
        if spec.ignored:
            attrs = {k: v for k, v in attrs.items() if k not in spec.ignored}
        if not (spec.ssa_attr_names if operands else spec.attr_names).issuperset(attrs):
            return None
        values = {}
        if operands:
            if len(operands) != len(expected):
                names = ", ".join(a.name for a in expected)
                raise _Err(f"{op}: expected {len(expected)} operand{'s' * (len(expected) > 1)} ({names})", op)
            for a, text in zip(expected, operands):
                values[a.name] = self.const(text, op)
                if values[a.name] is None:
                    return None
        for a in spec.attrs:
            if a.name in values:
                pass
            elif a.name in attrs:
                values[a.name] = (
                    _sym_attr(attrs, a.name, op) if a.type == "sym" else _int_attr(attrs, a.name, op)
                )
            elif a.default is REQUIRED:
                raise _Err(f"{op}: missing required attribute '{a.name}'", op)
            else:
                values[a.name] = a.default
            if a.word and values[a.name] is not None:
                values[a.name] &= 0xFFFFFFFF
        return cls(values) if spec.bag else cls(**values)

    def blockwrite(self, operands, attrs, op):
        if set(attrs) - {"address", "column", "row"}:
            return None
        if len(operands) != 1:
            raise _Err(f"{op}: expected 1 operand (the data memref)", op)
        addr = _int_attr(attrs, "address", op, True)
        col = _int_attr(attrs, "column", op) if "column" in attrs else None
        row = _int_attr(attrs, "row", op) if "row" in attrs else None
        sym = self.seq.gets.get(operands[0].lstrip("%"))
        glob = self.dev.globals.get(sym) if sym else None
        if glob is None:
            return None
        bw = ir.BlockWrite(addr, tuple(glob.values), col, row, sym)
        self.dev.blockwrites.append(bw)
        return bw

    # --------------------------------------------------------------- finishing
    def finish_sequence(self) -> None:
        """Drop constant/get_global/subview ops that nothing opaque still uses."""
        st = self.seq
        self.seq = None
        if not st.droppable:
            return
        used: set[str] = set()
        drop_ids = {id(op) for _, op in st.droppable}
        for op in ir.walk(st.seq.body):
            if isinstance(op, ir.Opaque):
                if id(op) not in drop_ids and "%" in op.text:
                    used.update(_RE_SSA_REF.findall(op.text))
            elif isinstance(op, ir.Run):
                used.update(op.args)
        drop = {id(op) for name, op in st.droppable if name not in used}
        # A dropped op may itself use another droppable value (a subview of a
        # get_global...): those are only consumed by structured ops, so fine.
        if drop:
            _filter(st.seq.body, drop)
        for name, op in st.droppable:
            if id(op) not in drop:
                self.note_opaque(op)

    def finish_device(self) -> None:
        """Fold blockwrite globals that only blockwrites use back into the ops."""
        dv = self.dev
        self.dev = None
        if not dv.blockwrites:
            return
        users: dict[str, list[ir.BlockWrite]] = {}
        for bw in dv.blockwrites:
            users.setdefault(bw.symbol, []).append(bw)
        in_body = {id(op) for op in dv.dev.body}
        # Only globals the printer would re-create (iron's own names) fold back into their
        # blockwrites; a named one stays where the file declared it.
        fold = {
            id(g)
            for sym, g in dv.globals.items()
            if sym in users
            and sym not in dv.opaque_syms
            and id(g) in in_body
            and sym.startswith(AUTO_GLOBAL_PREFIX)
        }
        if not fold:
            return
        dv.dev.body[:] = [op for op in dv.dev.body if id(op) not in fold]
        for sym, g in dv.globals.items():
            if id(g) in fold:
                for bw in users[sym]:
                    bw.symbol = None


_DONE = object()  # statement() already appended the op


# ------------------------------------------------------------------ core bodies
#: ``[%c = ]aie.core(%tile) {``: the first line of a core.
_RE_CORE = re.compile(rf"^(?:%({_NAME})\s*=\s*)?aie\.core\s*\(\s*%({_NAME})\s*\)\s*\{{\s*$")
#: ``%a, %b:2 = name rest`` of a core-body op.
_RE_BODY_OP = re.compile(
    rf"^(?:(%{RESULT}(?:\s*,\s*%{RESULT})*)\s*=\s*)?([A-Za-z_][\w.$]*)(?=[\s(]|$)(.*)$", re.S
)
#: ``} else {``: a closing brace that opens the next region of the same op.
_RE_JOIN = re.compile(r"^\}\s*(\w+)\s*\{$")


def read_region(lines: list[str]) -> list:
    """The ops of a region's lines (without its own braces): each op its form declares
    (:mod:`iron.mlir.body`, regions nested) as that op, any other as an
    :class:`~iron.mlir.ir.Opaque` with its verbatim lines (an op with regions whole)."""
    stmts = _statements(lines)
    ops: list = []
    k = 0
    while k < len(stmts):
        part, k, closer = _region(stmts, k, lines)
        ops += part
        if closer is not None:  # a '}' that closes nothing: kept as text
            ops.append(ir.Opaque(_verbatim(lines, closer[1], closer[2])))
            k += 1
    return ops


def _statements(lines: list[str]) -> list[tuple[str, int, int]]:
    """``(code, first line, last line)`` per statement: a line, or lines joined while a
    bracket is open; a line opening a region (ending in ``{``) and one starting with ``}``
    end a statement."""
    out: list[tuple[str, int, int]] = []
    parts: list[str] = []
    first = depth = 0
    for i, raw in enumerate(lines):
        code = _code(raw.strip())
        if not code:
            continue
        if not parts:
            first, depth = i, 0
            if code.startswith("}"):
                out.append((code, i, i))
                continue
        parts.append(code)
        depth += _depth(code)
        if depth <= 0 or (depth == 1 and code.endswith("{")):
            out += [(op, first, i) for op in split_ops(" ".join(parts))]
            parts = []
    if parts:
        out.append((" ".join(parts), first, len(lines) - 1))
    return out


#: Where a second op starts on a line: ``%r = dialect.op`` or a result-less ``dialect.op``, after
#: whitespace at bracket depth 0 (MLIR's parser needs no line break between ops).
_RE_OP_START = re.compile(
    rf"(?:%{_NAME}(?::\d+)?(?:\s*,\s*%{_NAME}(?::\d+)?)*\s*=\s*)?[a-z_]+(?:\.[a-z_0-9]+)+\b(?![<.])"
)


def split_ops(code: str) -> list[str]:
    """The ops of one statement: ``%v = memref.load ... %w = arith.addi ...`` on one line is two
    ops; an op name right after ``=`` (its own) or a region opener's text is not a new op."""
    cuts, depth, quoted = [], 0, False
    for i, c in enumerate(code):
        if c == '"':
            quoted = not quoted
        elif quoted:
            continue
        elif c in "([{<":
            depth += 1
        elif c in ")]}>" and not (c == ">" and code[i - 1 : i] == "-"):
            depth -= 1
        elif depth == 0 and i and code[i - 1] in " \t" and c in "%abcdefghijklmnopqrstuvwxyz_":
            before = code[:i].rstrip()
            if before and before[-1] not in "=,:" and not before.endswith("->"):
                m = _RE_OP_START.match(code, i)
                if m and (c != "%" or "=" in m.group(0)) and "." in m.group(0).split("=")[-1]:
                    cuts.append(i)
    bounds = [0, *cuts, len(code)]
    return [code[a:b].strip() for a, b in zip(bounds, bounds[1:]) if code[a:b].strip()]


def _region(stmts: list, k: int, lines: list[str], depth: int = 0) -> tuple[list, int, tuple | None]:
    """Ops from ``stmts[k]`` to the end of their region (``depth`` regions deep): (ops,
    index of the closing statement, that statement; None at the end of the lines)."""
    ops: list = []
    while k < len(stmts):
        code, first, last = stmts[k]
        if code.startswith("}"):
            return ops, k, stmts[k]
        if code.endswith("{") and depth >= limits.MAX_REGION_DEPTH:
            end = _region_end(stmts, k)
            op, k = (
                ir.Opaque(_verbatim(lines, first, stmts[end][2] if end < len(stmts) else len(lines) - 1)),
                end + 1,
            )
        elif code.endswith("{"):
            op, k = _region_op(stmts, k, lines, depth)
        else:
            op, k = _body_op(code) or ir.Opaque(_opaque_text(code, lines, first, last)), k + 1
        ops.append(op)
    return ops, k, None


def _opaque_text(code: str, lines: list[str], first: int, last: int) -> str:
    """An op kept as text: its verbatim lines, or its own code when it shares them with
    another op (:func:`split_ops`), so no op's text is printed twice."""
    whole = " ".join(c for c in (_code(ln.strip()) for ln in lines[first : last + 1]) if c)
    return _verbatim(lines, first, last) if whole == code else code


def _region_end(stmts: list, k: int) -> int:
    """Index of the ``}`` that closes the op opening regions at ``stmts[k]`` (past the end: none)."""
    open_ = 0
    for j in range(k, len(stmts)):
        code = stmts[j][0]
        open_ += code.endswith("{") - code.startswith("}")
        if open_ == 0:
            return j
    return len(stmts)


def _region_op(stmts: list, k: int, lines: list[str], depth: int) -> tuple[object, int]:
    """The op opening regions at ``stmts[k]`` and the index after its last ``}``."""
    code, first, _ = stmts[k]
    regions, joins = [], []
    while True:
        part, k, closer = _region(stmts, k + 1, lines, depth + 1)
        regions.append(part)
        if closer is None:  # never closed: the rest of the lines are this op's
            return ir.Opaque(_verbatim(lines, first, len(lines) - 1)), k
        m = _RE_JOIN.match(closer[0])
        if m is None:
            break
        joins.append(m.group(1))
    op = _body_op(code[:-1], regions, joins) if closer[0] == "}" else None
    return op or ir.Opaque(_verbatim(lines, first, closer[2])), k + 1


def _body_op(code: str, regions: tuple = (), joins: tuple = ()):
    """The declared op ``code`` spells (iron.mlir.form.read_op), or None."""
    m = _RE_BODY_OP.match(code.strip())
    if m is None:
        return None
    results = tuple(r.strip()[1:] for r in m.group(1).split(",")) if m.group(1) else ()
    return read_op(m.group(2), results, m.group(3), tuple(regions), tuple(joins))


def _verbatim(lines: list[str], first: int, last: int) -> str:
    """Lines ``first..last`` as one op's text, dedented relative to its first line."""
    lead = len(lines[first]) - len(lines[first].lstrip())
    out = [lines[first].strip()]
    for line in lines[first + 1 : last + 1]:
        line = line.rstrip()
        out.append(line[min(lead, len(line) - len(line.lstrip())) :])
    return "\n".join(out)


def read_func_decl(code: str) -> ir.FuncDecl | None:
    """``func.func private @f(types) attributes {link_with = "f.o"}`` (a kernel declaration),
    or None: other spellings and attributes stay opaque."""
    op = read_structural("device", code.strip(), {})
    return op if isinstance(op, ir.FuncDecl) else None


#: (op-name prefix, reader) of the structured ops of a device body read by hand, tried in order
#: after the declared ones (iron.mlir.structure; ``%x = `` values: _Reader.device_value).
_DEVICE_OPS = (
    ("%", _Reader.device_value),
    ("memref.global", _Reader.memref_global),
)
#: The same for a runtime sequence (``%x = ...`` values: _Reader.value_def); npu ops with a
#: declaration in iron.mlir.decl are read by _Reader.declared.
_RUNTIME_OPS = (
    ("aiex.npu.dma_memcpy_nd", _Reader.memcpy),
    ("aiex.npu.", _Reader.npu_op),
)


def _filter(ops: list, drop: set[int]) -> None:
    ops[:] = [op for op in ops if id(op) not in drop]
    for op in ops:
        if isinstance(op, ir.Configure):
            _filter(op.body, drop)


def parse(text: str, filename: str | None = None, *, legacy: bool = False) -> ir.Module:
    """Read mlir-aie assembly into an :class:`~iron.mlir.ir.Module`.

    ``legacy=True`` first translates old syntax with one modern form
    (:func:`iron.mlir.legacy.translate`; each rewrite is a ``LegacySyntaxWarning``, other
    old forms a ``LegacySyntaxError``), for text that goes on to aiecc.

    Raises :class:`MlirSyntaxError` (``file:line:column: message``) for
    unbalanced braces, unknown device targets, and structured ops with a
    missing or malformed required attribute.
    """
    text = newlines(text)
    if legacy:
        import warnings

        from iron.mlir import legacy as old_syntax

        text, notes = old_syntax.translate(text, filename or "<string>")
        for note in notes:
            warnings.warn(str(note), old_syntax.LegacySyntaxWarning, stacklevel=2)
    return _Reader(text, filename).run()


def newlines(text: str) -> str:
    """``text`` with every line ending as ``\\n``: CRLF (Windows) and a lone CR (old Mac
    editors) are line endings to MLIR's lexer too (``mlir/lib/AsmParser/Lexer.cpp``
    skips ``\\r`` as whitespace), so a design saved with either reads as with ``\\n``."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def parse_file(path) -> ir.Module:
    """:func:`parse` the file at ``path`` (a regular file of at most
    :data:`iron.limits.MAX_MLIR_BYTES`, UTF-8: :func:`iron.limits.read_text`)."""
    return parse(limits.read_text(path, limits.MAX_MLIR_BYTES, "MLIR file", MlirSyntaxError), str(path))
