"""How a core-body op is declared: its SSA results, fields, text and regions.

The npu ops of a runtime sequence are declared with :class:`iron.mlir.decl.Syntax`. The
ops of an ``aie.core`` region (``arith``, ``scf``, object-FIFO acquires, calls ...) have
SSA results, free-form types and nested regions, so they get this sibling form: one
:class:`Form` per op class (``@declare(Form(...))`` in :mod:`iron.mlir.body`), read by
the generic code: :func:`format_op` prints an op's line, :func:`read_op` builds an op
from its text, and the printer and reader (:mod:`iron.mlir.printer`,
:mod:`iron.mlir.reader`) walk the regions. As xDSL's declarative assembly format, much
smaller::

    %r = arith.addi %a, %b : i32
         ^^^^^^^^^^                         the name (Form.names)
    ^^                                      results (Form.results: "", "1" or "*")
                   ^^^^^^^^^^^^^^^^         Form.text = " %{lhs}, %{rhs}[? {flags:attr}?] : {type}"

``Form.text`` is what follows the op name: ``%{field}`` is an SSA value, ``@{field}`` a
symbol, ``{field}`` or ``{field:kind}`` another field, ``[?`` ... ``?]`` an optional group
(printed when its first field is set, read when it is there), anything else literal text,
printed as written; the reader takes any whitespace between tokens. Kinds: ``%,`` a
comma-separated list of SSA values (possibly empty), ``int``, ``word`` (an identifier),
``attr`` (``overflow<nsw>``), ``dict`` (an attribute dictionary ``{in_bounds = [true]}``), ``pairs`` (``%a = %b, %c = %d``), ``text`` (the default:
balanced text such as a type) and ``text*`` (possibly empty). ``Form.regions`` names the fields
holding each region's ops: printed ``{`` ... ``}``, a later region after ``} <join> {``
(``Form.joins``; ``scf.if``'s ``else``); an empty trailing region is not printed.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from iron.errors import IronError
from iron.mlir.decl import NAME
from iron.mlir.scan import split_top

#: An SSA value a body op uses: a name, or one result of a result group (``%0#1``).
VALUE = rf"{NAME}(?:#\d+)?"
#: A result as an op defines it: a name, or a group of ``N`` results (``%0:2``).
RESULT = rf"{NAME}(?::\d+)?"

_PATTERNS = {
    "%": re.compile(rf"\s*%({VALUE})"),
    "@": re.compile(rf"\s*@({NAME})"),
    "int": re.compile(r"\s*(-?\d+)"),
    "uint": re.compile(r"\s*(\d+)"),
    "lit": re.compile(r"\s*(-?(?:0x[0-9a-fA-F]+|\d+))"),
    "str": re.compile(r'([^"\\]+(?:\\.[^"\\]*)*|(?:\\.[^"\\]*)+)'),
    "word": re.compile(r"\s*([A-Za-z_]\w*)"),
    "attr": re.compile(r"\s*([A-Za-z_]\w*<[^<>]*>)"),
    "%,": re.compile(rf"\s*((?:%{VALUE}\s*,\s*)*%{VALUE})?"),
    "@,": re.compile(rf"\s*((?:@{NAME}\s*,\s*)*@{NAME})?"),
    "int,": re.compile(r"\s*((?:-?\d+\s*,\s*)*-?\d+)?"),
    "pairs": re.compile(rf"\s*((?:%{VALUE}\s*=\s*%{VALUE}\s*,\s*)*%{VALUE}\s*=\s*%{VALUE})"),
}
_TEXT = ("text", "text*", "text,", "dict")
_LISTS = ("%,", "pairs", "@,", "int,", "text,")
_RE_VALUE = re.compile(rf"%({VALUE})")
_RE_SYMBOL = re.compile(rf"@({NAME})")
_RE_INT = re.compile(r"-?\d+")


class FormError(IronError, ValueError):
    """A core-body op with a field its form cannot print (the message names op and field)."""


@dataclass(frozen=True)
class Field:
    name: str
    kind: str = "text"


@dataclass(frozen=True)
class Optional:
    tokens: tuple


def _tokens(template: str) -> tuple:
    """``Form.text`` as literal strings, :class:`Field` and :class:`Optional` tokens."""
    stack: list[list] = [[]]
    i = 0
    while i < len(template):
        if template.startswith("[?", i):
            stack.append([])
            i += 2
        elif template.startswith("?]", i):
            group = tuple(stack.pop())
            stack[-1].append(Optional(group))
            i += 2
        elif template.startswith(("{{", "}}"), i):  # a literal brace
            stack[-1].append(template[i])
            i += 2
        elif template[i] == "{":
            j = template.index("}", i)
            name, _, kind = template[i + 1 : j].partition(":")
            last = stack[-1][-1] if stack[-1] and isinstance(stack[-1][-1], str) else ""
            if last.endswith(("%", "@")):  # ``%{x}``: an SSA value, ``@{x}``: a symbol
                kind = last[-1]
                stack[-1][-1] = last[:-1]
            if kind and kind not in _PATTERNS and kind not in _TEXT:
                raise ValueError(f"form {template!r}: unknown field kind {kind!r}")
            stack[-1].append(Field(name, kind or "text"))
            i = j + 1
        else:
            ends = [k for k in (template.find(c, i) for c in ("{", "}}", "[?", "?]")) if k >= 0]
            j = min(ends, default=len(template))
            stack[-1].append(template[i:j])
            i = j
    if len(stack) != 1:
        raise ValueError(f"form {template!r}: '[?' without '?]'")
    return tuple(stack[0])


def _fields(tokens) -> list[Field]:
    out = []
    for tok in tokens:
        if isinstance(tok, Field):
            out.append(tok)
        elif isinstance(tok, Optional):
            out += _fields(tok.tokens)
    return out


@dataclass(frozen=True)
class Form:
    """One op's (or one family's) textual form; see the module docstring."""

    names: tuple[str, ...]
    text: str = ""
    results: str = ""
    regions: tuple[str, ...] = ()
    joins: tuple[str, ...] = ()

    def __post_init__(self):
        names = (self.names,) if isinstance(self.names, str) else tuple(self.names)
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "regions", tuple(self.regions))
        object.__setattr__(self, "joins", tuple(self.joins))
        object.__setattr__(self, "tokens", _tokens(self.text))
        object.__setattr__(self, "fields", tuple(_fields(self.tokens)))


#: Declared core-body op classes by op name.
BY_NAME: dict[str, type] = {}


def declare(form: Form):
    """Class decorator (above ``@dataclass``): attach ``FORM`` and register the op's names.
    A class declared for one name gets it as ``name``; a family (``arith.addi``, ``arith.subi``
    ...) keeps the name of each op in a ``name`` field."""

    def wrap(cls):
        have = {f.name for f in dataclasses.fields(cls)}
        need = {f.name for f in form.fields} | set(form.regions) | ({"results"} if form.results else set())
        if need - have or (len(form.names) > 1) != ("name" in have):
            raise TypeError(f"{cls.__name__}: fields {sorted(have)} do not fit its form {form}")
        cls.FORM = form
        if "name" not in have:
            cls.name = form.names[0]
        for name in form.names:
            BY_NAME[name] = cls
        return cls

    return wrap


# --------------------------------------------------------------------------- printing
def format_op(op) -> str:
    """The op's line: ``%results = name`` and its form's text (without regions)."""
    form = type(op).FORM
    results = getattr(op, "results", ())
    _check_results(op, form, results)
    head = ", ".join(f"%{r}" for r in results) + " = " if results else ""
    return head + op.name + _print(form.tokens, op, op.name)


def _check_results(op, form: Form, results) -> None:
    if not isinstance(results, tuple) or not all(
        isinstance(r, str) and re.fullmatch(RESULT, r) for r in results
    ):
        raise FormError(f"{op.name}: results must be a tuple of SSA names, got {results!r}")
    if (form.results == "1" and len(results) != 1) or (not form.results and results):
        raise FormError(f"{op.name}: {len(results)} results; the op has {form.results or 'no'} result")


def _present(value) -> bool:
    return value is not None and value != ()


def print_text(form: Form, op, what: str) -> str:
    """``form.text`` printed from the fields of ``op`` (any object with them as attributes);
    a field its kind cannot hold is a :class:`FormError` naming ``what`` (the op) and the field."""
    return _print(form.tokens, op, what)


def _print(tokens, op, what: str) -> str:
    parts = []
    for tok in tokens:
        if isinstance(tok, str):
            parts.append(tok)
        elif isinstance(tok, Optional):
            if _present(getattr(op, _fields(tok.tokens)[0].name)):
                parts.append(_print(tok.tokens, op, what))
        else:
            parts.append(_field_text(op, tok, what))
    return "".join(parts)


def _is_value(v) -> bool:
    return isinstance(v, str) and _RE_IS_VALUE.fullmatch(v) is not None


_RE_IS_VALUE, _RE_IS_NAME = re.compile(VALUE), re.compile(NAME)
#: What a field of each kind may hold (else the printer names the op and the field).
_VALID = {
    "%": _is_value,
    "@": lambda v: isinstance(v, str) and _RE_IS_NAME.fullmatch(v) is not None,
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "uint": lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0,
    "@,": lambda v: isinstance(v, tuple) and all(isinstance(x, str) and _RE_IS_NAME.fullmatch(x) for x in v),
    "int,": lambda v: isinstance(v, tuple) and all(isinstance(x, int) and not isinstance(x, bool) for x in v),
    "text,": lambda v: isinstance(v, tuple) and all(isinstance(x, str) for x in v),
    "%,": lambda v: isinstance(v, tuple) and all(map(_is_value, v)),
    "pairs": lambda v: isinstance(v, tuple) and all(len(p) == 2 and all(map(_is_value, p)) for p in v),
    "text*": lambda v: isinstance(v, str),
}


def _field_text(op, f: Field, what: str) -> str:
    value = getattr(op, f.name)
    ok = _VALID.get(f.kind, lambda v: isinstance(v, str) and bool(v.strip()))
    if not ok(value):
        raise FormError(f"{what}: field {f.name!r} ({f.kind}) cannot be {value!r}")
    if f.kind == "%":
        return f"%{value}"
    if f.kind == "@":
        return f"@{value}"
    if f.kind == "%,":
        return ", ".join(f"%{v}" for v in value)
    if f.kind == "pairs":
        return ", ".join(f"%{a} = %{b}" for a, b in value)
    if f.kind == "@,":
        return ", ".join(f"@{v}" for v in value)
    if f.kind in ("int,", "text,"):
        return ", ".join(str(v) for v in value)
    return str(value)


# --------------------------------------------------------------------------- reading
def read_op(name: str, results: tuple[str, ...], rest: str, regions: tuple = (), joins: tuple = ()):
    """The declared op ``%results = name rest`` with ``regions`` (lists of ops, the
    ``joins`` between them), or None when no form reads it (the caller keeps the text):
    an undeclared name, the wrong number of results or regions, text the form does not
    match, or a match that would print other tokens than ``rest`` holds."""
    cls = BY_NAME.get(name)
    if cls is None:
        return None
    form = cls.FORM
    if (form.results == "1" and len(results) != 1) or (not form.results and results):
        return None
    if (
        len(regions) > len(form.regions)
        or (form.regions and not regions)
        or joins != form.joins[: len(joins)]
    ):
        return None
    values = match_text(form, rest, check=False)
    if values is None:
        return None
    values.update(zip(form.regions, [list(r) for r in regions] + [[] for _ in form.regions[len(regions) :]]))
    if form.results:
        values["results"] = tuple(results)
    if len(form.names) > 1:
        values["name"] = name
    op = cls(**values)
    return op if _same(_print(form.tokens, op, name), rest) else None


def match_text(form: Form, rest: str, check: bool = True) -> dict | None:
    """The fields ``rest`` (the text after the op name) holds in ``form`` (a field it leaves
    out: None, or ``()`` for a list), or None when it does not match; with ``check``, also
    None when the fields would print other tokens than ``rest`` holds (whitespace aside)."""
    values: dict = {}
    if _match(form.tokens, 0, rest, 0, values) is None:
        return None
    for f in form.fields:
        values.setdefault(f.name, () if f.kind in _LISTS else None)
    if check and not _same(_print(form.tokens, _Fields(values), ""), rest):
        return None
    return values


class _Fields:
    """Field values as attributes (what :func:`_print` reads)."""

    def __init__(self, values: dict):
        self.__dict__.update(values)


def _same(printed: str, rest: str) -> bool:
    return "".join(printed.split()) == "".join(rest.split())


def _match(tokens, i: int, s: str, pos: int, out: dict) -> int | None:
    """Match ``tokens[i:]`` against ``s[pos:]`` to its end (fields into ``out``); the end, or None."""
    if i == len(tokens):
        return pos if not s[pos:].strip() else None
    tok = tokens[i]
    if isinstance(tok, str):
        end = _literal(tok, s, pos)
        return None if end is None else _match(tokens, i + 1, s, end, out)
    if isinstance(tok, Optional):
        trial: dict = {}
        end = _match(tok.tokens + tokens[i + 1 :], 0, s, pos, trial)
        if end is not None:
            out.update(trial)
            return end
        return _match(tokens, i + 1, s, pos, out)
    if tok.kind in _TEXT:
        for stop in _text_ends(s, pos, tok.kind in ("text*", "text,")):
            if tok.kind == "dict" and not s[pos:stop].lstrip().startswith("{"):
                return None
            trial = {}
            end = _match(tokens, i + 1, s, stop, trial)
            if end is not None:
                out[tok.name] = _value(tok.kind, s[pos:stop].strip())
                out.update(trial)
                return end
            if tok.kind == "dict":
                return None  # a dictionary ends at its closing brace
        return None
    m = _PATTERNS[tok.kind].match(s, pos)
    if m is None:
        return None
    end = _match(tokens, i + 1, s, m.end(), out)
    if end is not None:
        out[tok.name] = _value(tok.kind, m.group(1))
    return end


def _value(kind: str, text: str | None):
    if kind in ("int", "uint"):
        return int(text)
    if kind == "@,":
        return tuple(_RE_SYMBOL.findall(text or ""))
    if kind == "int,":
        return tuple(int(v) for v in _RE_INT.findall(text or ""))
    if kind == "text,":
        return tuple(p.strip() for p in split_top(text)) if text else ()
    if kind == "%,":
        return tuple(_RE_VALUE.findall(text or ""))
    if kind == "pairs":
        found = _RE_VALUE.findall(text)
        return tuple(zip(found[0::2], found[1::2]))
    return text


def _literal(lit: str, s: str, pos: int) -> int | None:
    """The end of literal ``lit`` at ``s[pos:]`` (whitespace before each character skipped)."""
    for ch in lit:
        if ch.isspace():
            continue
        while pos < len(s) and s[pos].isspace():
            pos += 1
        if pos >= len(s) or s[pos] != ch:
            return None
        pos += 1
    word = lit.rstrip()
    if word and (word[-1].isalnum()) and pos < len(s) and (s[pos].isalnum() or s[pos] == "_"):
        return None  # `to` must not match the start of `total`
    return pos


def _text_ends(s: str, pos: int, empty: bool):
    """Every end of a balanced, non-blank text at ``s[pos:]`` (``<([{`` closed; ``->`` and
    string literals are no brackets), nearest first."""
    if empty:
        yield pos
    depth, quoted, i = 0, False, pos
    while i < len(s):
        c = s[i]
        if quoted:
            if c == "\\":
                i += 1
            elif c == '"':
                quoted = False
        elif c == '"':
            quoted = True
        elif c in "<([{":
            depth += 1
        elif c in ">)]}" and not (c == ">" and i > pos and s[i - 1] == "-"):
            depth -= 1
            if depth < 0:
                return
        i += 1
        if depth == 0 and not quoted and not s[i - 1].isspace():  # non-blank: ends in a character
            yield i
