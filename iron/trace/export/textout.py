"""Text (and binary) rows straight from numpy arrays: one byte buffer per chunk of rows.

The writers (:mod:`iron.trace.export.perfetto`, :mod:`iron.trace.export.pftrace`) describe a
row as a list of pieces: constant bytes, a choice among a few constant strings
per row, a non-negative integer per row (decimal, or a protobuf varint), or a
fixed-point number per row. :func:`render`
lays out every row's bytes with vector operations (digit by digit, template
byte by template byte), so no Python object is made per row. The plain
engine (small outputs, :mod:`iron.trace.engine`) runs the compiled renderer's
kernel as plain Python over lists instead. The streamed writers take a chunk's rows
from :func:`render_parts`: with the compiled renderer (which releases the GIL), the two
halves of a big chunk rendered at once on two threads, written one after the other.
"""

from __future__ import annotations

import functools
import itertools
import threading

from iron.trace.engine import NUMBA, NUMPY, PLAIN, Engine, choose
from iron.trace.jit import jit, kernel, np

POW10 = tuple(10**k for k in range(19))
_ZERO = ord("0")


@functools.cache
def _pow10():
    return np.array(POW10, np.int64)


class Choice:
    """Per row, one of a few constant strings: ``strings[index[row]]`` (``index``
    an integer array, or a list for the plain renderer)."""

    def __init__(self, index, strings: list[bytes]):
        self.index = index
        self.strings = [bytes(s) for s in strings]


class Fixed:
    """Per row, ``value / 10**places`` written in the shortest decimal form
    (``12``, ``12.5``, ``0.055``): ``value`` is a non-negative integer array (or list)."""

    def __init__(self, value, places: int):
        self.value = value
        self.places = places


class Varint:
    """Per row, ``value`` (non-negative) as a protobuf base-128 varint. With ``offset``
    and ``factor``: of ``round((offset + value) * factor)`` (halves to even, as
    ``np.rint``: cycles to time units). ``sized``: strings, one of which goes before the
    varint, chosen by its byte count (``sized[k]`` for a k-byte varint, e.g. a length
    that counts it). The compiled renderer does both in its one pass."""

    def __init__(self, value, offset: int = 0, factor: float = 1.0, sized: list[bytes] | None = None):
        self.value, self.offset, self.factor = value, offset, factor
        self.sized = [bytes(s) for s in sized] if sized is not None else None

    @property
    def scaled(self) -> bool:
        return self.offset != 0 or self.factor != 1.0

    def pieces(self) -> list:
        """The same bytes as a Choice (when sized) and a plain Varint: what the numpy path renders."""
        v = np.rint((self.offset + self.value) * self.factor).astype(np.int64) if self.scaled else self.value
        head = [Choice(varint_size(v), self.sized)] if self.sized is not None else []
        return head + [Varint(v)]


def varint_size(value):
    """Bytes of the varint of each (non-negative) value (a list gives a list)."""
    if isinstance(value, list):
        return [max(1, (v.bit_length() + 6) // 7) for v in value]
    v = np.asarray(value, dtype=np.uint64)
    return 1 + np.searchsorted(_varint_limits(), v, side="right")


@functools.cache
def _varint_limits():
    return np.array([1 << (7 * k) for k in range(1, 10)], np.uint64)  # values needing k + 1 bytes


def scaled(values, offset: int, factor: float, engine: Engine, minus=None):
    """``round((offset + v - m) * factor)`` of each value ``v`` (and of ``minus``, ``m``,
    when given), halves to even as ``np.rint``: cycles to integer time units. A list
    for ``engine`` PLAIN (``values`` lists), else an int64 array."""
    if engine.plain:
        if minus is not None:
            return [round((offset + v - m) * factor) for v, m in zip(values, minus)]
        return [round((offset + v) * factor) for v in values]
    if minus is not None:
        values = values - minus
    return np.rint((offset + values) * factor).astype(np.int64)


def varint(n: int) -> bytes:
    """One non-negative integer as a protobuf varint."""
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _ndigits(v):
    return 1 + np.searchsorted(_pow10()[1:], v, side="right").astype(np.int64)


def _digit_columns(buf, keep, col, v, nd, width) -> None:
    """Right-aligned decimal digits of ``v`` in ``buf[:, col:col+width]``; ``keep``
    marks the ``nd`` used columns of each row. Digit by digit from the last, each
    step dividing what is left by 10, in 32-bit integers where the values fit (their
    division is about 3x faster than 64-bit's)."""
    digits = int(nd.max()) if len(nd) else 0
    if digits:
        dt = np.uint32 if digits < 10 or int(v.max()) < 1 << 32 else np.uint64
        x, ten = v.astype(dt), dt(10)
        out = np.empty((digits, len(v)), np.uint8)  # digit rows, contiguous: one strided copy below
        for d in range(digits - 1, -1, -1):
            q = x // ten
            out[d] = x - q * ten
            x = q
        out += _ZERO
        buf[:, col + width - digits : col + width] = out.T
    keep[:, col : col + width] = np.arange(width) >= (width - nd)[:, None]


def render(n: int, pieces: list, engine: Engine = NUMPY):
    """The bytes of ``n`` rows, each the concatenation of ``pieces`` (bytes,
    :class:`Choice`, :class:`Fixed`, :class:`Varint`, or an integer array of
    values >= 0 written in decimal), as a uint8 array (a bytearray: PLAIN).

    ``engine`` (:mod:`iron.trace.engine`) NUMBA: one compiled pass writing each row's bytes
    in place (:func:`_render_rows`; several times faster on big outputs, see
    :func:`render_engine`); PLAIN: that pass as plain Python over lists (small
    outputs); NUMPY: the vectorized path below. Same bytes.

    Numpy: every piece gets a fixed column range of its widest form in an ``n`` x width
    byte matrix, filled column-wise; a mask of the bytes each row really uses
    then packs the matrix into the text (no per-row Python, no scattered writes). Text with
    no NUL byte (the JSON writers) marks unused bytes NUL instead of in a mask (:func:`_render_text`)."""
    if n == 0:
        return b"" if engine.plain else np.zeros(0, np.uint8)
    if engine != NUMPY:
        return _render_compiled(n, pieces, engine)
    if _is_text(pieces):
        return _render_text(n, pieces)
    pieces = [q for p in pieces for q in (p.pieces() if isinstance(p, Varint) else [p])]
    plan, width = [], 0
    for p in pieces:
        kind, data, w = _column_plan(n, p)
        plan.append((kind, data, width))
        width += w
    buf = np.empty((n, width), np.uint8)
    keep = np.ones((n, width), bool)
    for kind, data, col in plan:
        _fill_columns(buf, keep, kind, data, col)
    return buf[keep]  # a uint8 array: files take it without another copy


def _is_text(pieces: list) -> bool:
    """Whether rows of ``pieces`` are text with no NUL byte (no varints, no NUL in a string):
    :func:`_render_text` can then mark unused bytes with NUL instead of a mask."""
    for p in pieces:
        if isinstance(p, Varint):
            return False
        strings = [bytes(p)] if isinstance(p, (bytes, bytearray)) else getattr(p, "strings", [])
        if any(0 in s for s in strings):
            return False
    return True


def _render_text(n: int, pieces: list):
    """:func:`render` of NUL-free text rows: as the mask path, but each piece writes NUL where a
    row does not use a byte of its columns (a shorter string, a leading digit, a trailing
    fractional zero), so one comparison finds the bytes to keep. About half the work of the
    mask path: no mask is gathered or written per piece."""
    plan, width = [], 0
    for p in pieces:
        kind, data, w = _text_plan(p)
        plan.append((kind, data, width))
        width += w
    buf, taken = _text_rows(n, plan, width)
    for kind, data, col in plan:
        if kind == "choice" and col != taken:
            index, table = data
            buf[:, col : col + table.shape[1]] = table.take(index, axis=0)
        elif kind == "int":
            v, w = data
            _nul_digits(buf[:, col : col + w], v, w)
        elif kind == "fixed":
            whole, part, w, places = data
            _nul_digits(buf[:, col : col + w], whole, w)
            _nul_fraction(buf[:, col + w : col + w + 1 + places], part, places)
    flat = buf.ravel()
    return flat[flat != 0]


def _text_rows(n: int, plan: list, width: int):
    """The ``n`` x ``width`` byte matrix of :func:`_render_text` with the rows' constant
    bytes in place (NUL in the other columns, until filled): one pass, not one per piece.
    With one choice among strings (mlir-aie's junctions), rows of the whole row for each
    string, taken per row. Returns the matrix and the column of the choice so filled (-1: none)."""
    template = np.zeros(width, np.uint8)
    choices = []
    for kind, data, col in plan:
        if kind == "const":
            template[col : col + len(data)] = data
        elif kind == "choice":
            choices.append((data, col))
    if len(choices) == 1:
        (index, table), col = choices[0]
        rows = np.repeat(template[None, :], len(table), axis=0)
        rows[:, col : col + table.shape[1]] = table
        return rows.take(index, axis=0), col
    buf = np.empty((n, width), np.uint8)
    buf[...] = template
    return buf, -1


def _text_plan(p) -> tuple[str, object, int]:
    """How :func:`_render_text` lays out piece ``p``: ``(kind, data, width)``, ``width``
    the columns of its widest form."""
    if isinstance(p, (bytes, bytearray)):
        return "const", np.frombuffer(bytes(p), np.uint8), len(p)
    if isinstance(p, Choice):
        w = max(len(s) for s in p.strings)
        # NUL after a shorter string
        table = np.frombuffer(b"".join(s.ljust(w, b"\0") for s in p.strings), np.uint8).reshape(-1, w)
        return "choice", (np.asarray(p.index), table), w
    if isinstance(p, Fixed):
        value = np.asarray(p.value, np.int64)
        whole = value // POW10[p.places]
        w = len(str(int(whole.max())))
        return "fixed", (whole, value - whole * POW10[p.places], w, p.places), w + 1 + p.places
    v = np.asarray(p, dtype=np.int64)
    w = len(str(int(v.max())))
    return "int", (v, w), w


def _nul_digits(dst, v, width: int) -> None:
    """The decimal digits of ``v`` (>= 0) right-aligned in the ``width`` columns of ``dst``,
    NUL before them. Four digits at a time, each group one row of a table of 4-byte strings
    (:func:`_digit_groups`)."""
    groups = (width + 3) // 4
    wide = width > 9 and int(v.max()) >= 1 << 32  # 32-bit division where the values fit (3x faster)
    x = v.astype(np.uint64 if wide else np.uint32)
    big = x.dtype.type(10000)
    idx = np.empty((len(v), groups), np.intp)
    for k in range(groups):  # k: the group from the least significant
        if k < groups - 1:
            q = x // big
            idx[:, groups - 1 - k] = x - q * big
            x = q
        else:
            idx[:, 0] = x
        # the group's form: zero-padded after a non-zero group (v >= 10**(4k+4)), else NUL-led
        idx[:, groups - 1 - k] += (v < 10 ** (4 * k + 4)) * (10000 * (2 if k == 0 else 1))
    dst[...] = _digit_groups().take(idx, axis=0).reshape(len(v), 4 * groups)[:, 4 * groups - width :]


@functools.cache
def _digit_groups():
    """Rows of 4 bytes: ``[g]`` the 4 digits of ``g`` < 10**4 zero-padded, ``[10**4 + g]`` NUL
    before its digits (all NUL for 0: a group before the first digit), ``[2 * 10**4 + g]``
    the same but ``0`` for 0 (the last group of the number 0)."""
    g = np.arange(10000)
    full = _zero_padded(g, 4)
    lead = np.where(full == _ZERO, 0, 1).cumsum(axis=1) > 0  # from the first non-zero digit on
    last = lead.copy()
    last[:, 3] = True  # the units digit, a 0 too
    return np.concatenate([full, full * lead, full * last]).astype(np.uint8)


def _zero_padded(values, width: int):
    """The ``width`` decimal digits (ASCII, zero-padded) of each of ``values``, one row each."""
    out = np.empty((len(values), width), np.int64)
    for j in range(width):
        out[:, j] = values // 10 ** (width - 1 - j) % 10
    return out + _ZERO


def _nul_fraction(dst, part, places: int) -> None:
    """``part`` (< 10**places) as the decimal point and ``places`` fractional digits in the
    ``places + 1`` columns of ``dst``, trailing zeros NUL (all NUL, the point too, for 0).
    Up to 4 places one row of a table per value (:func:`_fractions`), else digit by digit."""
    if places <= 4:
        dst[...] = _fractions(places).take(part, axis=0)
        return
    x = part.astype(np.uint32 if places <= 9 else np.uint64)
    ten = x.dtype.type(10)
    out = np.empty((places + 1, len(part)), np.uint8)
    seen = np.zeros(len(part), bool)  # a nonzero digit at or right of this one
    for d in range(places, 0, -1):
        q = x // ten
        digit = (x - q * ten).astype(np.uint8)
        seen |= digit != 0
        digit += _ZERO
        digit *= seen
        out[d] = digit
        x = q
    out[0] = seen * np.uint8(ord("."))
    dst[...] = out.T


@functools.cache
def _fractions(places: int):
    """Per fraction ``g`` < 10**places, its ``places + 1`` bytes in :func:`_nul_fraction`."""
    digits = _zero_padded(np.arange(10**places), places)
    # a digit is written up to the last non-zero one; the point when any is
    kept = np.where(digits == _ZERO, 0, 1)[:, ::-1].cumsum(axis=1)[:, ::-1] > 0
    out = np.concatenate([np.full((len(digits), 1), ord(".")), digits], axis=1)
    return (out * np.concatenate([kept.any(axis=1, keepdims=True), kept], axis=1)).astype(np.uint8)


def _column_plan(n: int, p) -> tuple[str, object, int]:
    """How :func:`render` lays out piece ``p`` of ``n`` rows: ``(kind, data, width)``,
    ``width`` the columns of its widest form."""
    if isinstance(p, (bytes, bytearray)):
        return "const", bytes(p), len(p)
    if isinstance(p, Choice):
        w = max(len(s) for s in p.strings)
        table = np.zeros((len(p.strings), w), np.uint8)
        used = np.zeros((len(p.strings), w), bool)
        for i, s in enumerate(p.strings):
            table[i, : len(s)] = np.frombuffer(s, np.uint8)
            used[i, : len(s)] = True
        return "choice", (np.asarray(p.index), table, None if used.all() else used), w
    if isinstance(p, Fixed):
        whole, digits, fd = _fraction_digits(np.asarray(p.value, np.int64), p.places)
        wd = _ndigits(whole)
        w = int(wd.max())
        return "fixed", (whole, wd, w, digits, fd, p.places), w + 1 + p.places
    if isinstance(p, Varint):
        value = np.asarray(p.value, np.uint64)
        nb = varint_size(value)
        w = int(nb.max())
        return "varint", (value, nb, w), w
    v = np.asarray(p, dtype=np.int64)
    nd = _ndigits(v)
    w = int(nd.max())
    return "int", (v, nd, w), w


def _fraction_digits(value, places: int):
    """``value / 10**places`` split: the whole part, the fraction's ``places`` digits (ASCII,
    one row per digit, most significant first) and how many of them are written (trailing
    zeros dropped; 0: no point either). The fraction in 32-bit integers (about 3x faster
    division than 64-bit's)."""
    whole = value // POW10[places]
    x = (value - whole * POW10[places]).astype(np.uint32 if places <= 9 else np.uint64)
    digits = np.empty((places, len(value)), np.uint8)
    zeros = np.ones(len(value), bool)  # every digit after this one so far is zero
    tz = np.zeros(len(value), np.int8)
    ten = x.dtype.type(10)
    for d in range(places - 1, -1, -1):
        q = x // ten
        digit = x - q * ten
        digits[d] = digit
        zeros &= digit == 0
        tz += zeros
        x = q
    digits += _ZERO
    return whole, digits, places - tz


def _fill_columns(buf, keep, kind: str, data, col: int) -> None:
    """Write one piece's bytes (:func:`_column_plan`) into ``buf`` from column ``col``,
    marking in ``keep`` the bytes each row uses."""
    if kind == "const":
        buf[:, col : col + len(data)] = np.frombuffer(data, np.uint8)
    elif kind == "choice":
        index, table, used = data
        buf[:, col : col + table.shape[1]] = table[index]
        if used is not None:  # strings of several lengths
            keep[:, col : col + table.shape[1]] = used[index]
    elif kind == "varint":
        v, nb, w = data
        for k in range(w):
            more = (nb > k + 1).astype(np.uint8) << 7
            buf[:, col + k] = ((v >> np.uint64(7 * k)) & np.uint64(0x7F)).astype(np.uint8) | more
        keep[:, col : col + w] = np.arange(w) < nb[:, None]
    elif kind == "int":
        v, nd, w = data
        _digit_columns(buf, keep, col, v, nd, w)
    else:
        whole, wd, w, digits, fd, places = data
        _digit_columns(buf, keep, col, whole, wd, w)
        buf[:, col + w] = ord(".")
        keep[:, col + w] = fd > 0
        # the fraction left-aligned after the point: its first fd of `places` digits
        buf[:, col + w + 1 : col + w + 1 + places] = digits.T
        keep[:, col + w + 1 : col + w + 1 + places] = np.arange(places) < fd[:, None]


ROWS = 1 << 16  # rows per rendered chunk of the streamed writers


def output_engine(slices) -> Engine:
    """The engine the streamed writers render rows with for decoded ``slices``: PLAIN for
    slices decoded plain, else :func:`render_engine` of the raw bytes decoded."""
    if slices and all(ds.engine == PLAIN for ds in slices):
        return PLAIN
    return render_engine(sum(int(ds.diagnostics.get("size_bytes", 0)) for ds in slices))


# --------------------------------------------------------------------------- compiled
# Piece kinds of the compiled renderer's program (one entry of `kinds` per piece).
_P_STR, _P_INT, _P_FIXED, _P_VARINT = 0, 1, 2, 3


def render_engine(nbytes: int) -> Engine:
    """NUMBA or NUMPY for rendering the outputs of a trace of ``nbytes`` raw
    bytes: the decoder's rule (:func:`iron.trace.engine.choose`), so a
    small trace never waits for numba and a first big one compiles only where it pays."""
    return choose(nbytes, lambda: [jit(_render_rows)])


def _fold_constants(pieces: list) -> list:
    """The same rows in fewer pieces: runs of constant bytes joined, and each
    joined into the strings of a neighbouring :class:`Choice` (the one before
    it, else the one after) or of a sized :class:`Varint` after it."""
    out: list = []
    for p in pieces:
        if isinstance(p, (bytes, bytearray)) and out and isinstance(out[-1], (bytes, Choice)):
            prev = out[-1]
            out[-1] = (
                prev + bytes(p)
                if isinstance(prev, bytes)
                else Choice(prev.index, [s + p for s in prev.strings])
            )
        elif isinstance(p, Choice) and out and isinstance(out[-1], bytes):
            out[-1] = Choice(p.index, [out[-1] + s for s in p.strings])
        elif isinstance(p, Varint) and p.sized is not None and out and isinstance(out[-1], bytes):
            out[-1] = Varint(p.value, p.offset, p.factor, [out[-1] + s for s in p.sized])
        else:
            out.append(bytes(p) if isinstance(p, bytearray) else p)
    return out


def warm_render() -> None:
    """Compile (or load) :func:`_render_rows` on tiny inputs (see :func:`iron.trace.jit.load_kernels`)."""
    if jit(_render_rows) is not None:
        _render_compiled(1, [b"x", np.ones(1, np.int64)])


#: Rows from which :func:`render_parts` renders compiled rows in two halves at once (two
#: threads: the kernel releases the GIL). Below it a thread's start costs more than it saves.
SPLIT_ROWS = 1 << 14


def render_parts(n: int, pieces: list, engine: Engine = NUMPY, split: int = SPLIT_ROWS) -> list:
    """:func:`render`'s bytes as a list of buffers to write in order: with ``engine`` NUMBA and
    at least ``split`` rows, the first half of the rows and the second, rendered at once on two
    threads (about half the time on a second core); else one buffer."""
    if n >= split and engine == NUMBA:
        return _render_compiled(n, pieces, engine, halves=True)
    return [render(n, pieces, engine)]


def _render_compiled(n: int, pieces: list, engine: Engine = NUMBA, halves: bool = False):
    """:func:`render` by :func:`_render_rows`: pieces -> (program, values, string
    table); ``engine`` PLAIN: all of them lists, the kernel run as plain Python.
    ``halves`` (compiled): the two halves of the rows rendered on two threads at once,
    returned as two buffers (views of one allocation: no copy to join them)."""
    plain = engine.plain
    kinds, args, offsets, factors, vals, strings, width = _program(n, _fold_constants(pieces), plain)
    lens = [len(s) for s in strings]
    offs = [0, *itertools.accumulate(lens)][:-1]  # each string's start in the table
    table = b"".join(strings) or b"\0"
    if plain:
        out = bytearray(n * width)
        k = kernel(_render_rows, engine)(
            kinds, args, offsets, factors, vals, table, offs, lens, POW10, out, 0, n
        )
        return out[:k]
    kinds, args, offsets, offs, lens = (np.array(a, np.int64) for a in (kinds, args, offsets, offs, lens))
    factors = np.array(factors, np.float64)
    out = np.empty(n * width, np.uint8)  # pages are taken as written: the rows' bytes, not n * width
    table = np.frombuffer(table, np.uint8)
    program = (kinds, args, offsets, factors, vals, table, offs, lens, _pow10())

    def rows(first: int, stop: int):  # rows [first, stop) into out from row `first`'s widest place
        dst = out[first * width : stop * width]
        return dst[: jit(_render_rows)(*program, dst, first, stop)]

    if not halves:
        return rows(0, n)
    half = n // 2
    return list(_both(lambda: rows(0, half), lambda: rows(half, n)))


def _program(n: int, pieces: list, plain: bool) -> tuple:
    """:func:`_render_rows`' program for ``n`` rows of ``pieces``: per piece its kind, first
    string (-1: none) / decimal places, a Varint's offset and factor; every piece's values
    (piece p's: ``vals[p*n : p*n+n]``); the strings; the widest row's bytes."""
    m = len(pieces)
    kinds, args, offsets, factors = [0] * m, [0] * m, [0] * m, [1.0] * m
    vals = [0] * (m * n) if plain else np.empty(m * n, np.int64)  # piece p's values: [p*n, p*n+n)
    strings: list[bytes] = []
    width = 0
    for i, p in enumerate(pieces):
        row = slice(i * n, i * n + n)
        if isinstance(p, (bytes, bytearray)):
            kinds[i], args[i] = _P_STR, len(strings)
            vals[row] = [0] * n if plain else 0  # the one string
            strings.append(bytes(p))
            width += len(p)
        elif isinstance(p, Choice):
            kinds[i], args[i] = _P_STR, len(strings)
            vals[row] = p.index
            strings.extend(p.strings)
            width += max(len(s) for s in p.strings)
        elif isinstance(p, Fixed):
            kinds[i], args[i] = _P_FIXED, p.places
            vals[row] = p.value
            width += 20 + p.places
        elif isinstance(p, Varint):
            kinds[i], args[i], offsets[i], factors[i] = _P_VARINT, -1, p.offset, float(p.factor)
            if p.sized is not None:
                args[i] = len(strings)
                strings.extend(p.sized)
                width += max(len(s) for s in p.sized)
            vals[row] = p.value if plain else _int64_bits(p.value)
            width += 10
        else:
            kinds[i] = _P_INT
            vals[row] = p if plain else np.asarray(p, dtype=np.int64)
            width += 19
    return kinds, args, offsets, factors, vals, strings, width


def _both(first, second) -> tuple:
    """``(first(), second())``, ``second`` run on a thread meanwhile. Its exception is
    raised here (after ``first`` returns); the thread never outlives the call."""
    done: list = []

    def run() -> None:
        try:
            done.append((second(), None))
        except BaseException as exc:  # raised in the caller's thread
            done.append((None, exc))

    thread = threading.Thread(target=run, name="iron-render", daemon=True)
    thread.start()
    try:
        a = first()
    finally:
        thread.join()
    b, exc = done[0]
    if exc is not None:
        raise exc
    return a, b


def _int64_bits(values):
    """Varint values for the compiled renderer: int64, unsigned 64-bit values by their bits."""
    values = np.asarray(values)
    return values.view(np.int64) if values.dtype == np.uint64 else values.astype(np.int64, copy=False)


def _render_rows(kinds, args, offsets, factors, vals, table, offs, lens, pow10, out, first, stop):
    """Compiled :func:`render` (numba): rows ``first`` to ``stop - 1``, piece by piece, written in
    place from ``out[0]``; returns the bytes written. Piece ``p``: kind ``kinds[p]`` (:data:`_P_STR` ...),
    ``args[p]`` (first string in ``table``, -1: none / decimal places), a Varint's ``offsets[p]``,
    ``factors[p]``; row r's ``vals[p * n + r]``."""
    npieces, k = len(kinds), 0
    n = len(vals) // npieces
    for r in range(first, stop):
        for p in range(npieces):
            kind, v = kinds[p], vals[np.uint64(p * n + r)]
            s = args[p] + v if kind == 0 else -1  # the string of the table written first
            if kind == 3:
                if offsets[p] != 0 or factors[p] != 1.0:  # cycles to time units, halves to even
                    v = np.int64(np.rint((offsets[p] + v) * factors[p]))
                size = 1  # the varint's bytes: they pick the string before it, if any
                while size < 10 and np.uint64(v) >> np.uint64(7 * size):
                    size += 1
                s = args[p] + size if args[p] >= 0 else -1
            if s >= 0:
                o, ln = offs[s], lens[s]
                # unsigned indices here and below: numba checks a signed index for a negative
                # value on every access; without it the byte loops run about twice as fast
                ku, ou = np.uint64(k), np.uint64(o)
                for j in range(np.uint64(ln)):
                    out[ku + j] = table[ou + j]
                k += ln
            if kind == 3:  # varint of the unsigned 64 bits
                u = np.uint64(v)
                while u >= 128:
                    out[k] = np.uint8((u & np.uint64(0x7F)) | np.uint64(0x80))
                    u = u >> np.uint64(7)
                    k += 1
                out[k] = np.uint8(u)
                k += 1
            elif kind != 0:  # decimal, unsigned; the writers' divisors (1, 10**6) literal: no divisions
                places, u = (args[p] if kind == 2 else 0), np.uint64(v)
                if places == 0:
                    w, frac = u, np.uint64(0)
                else:
                    ten_p = np.uint64(1000000) if places == 6 else np.uint64(pow10[places])
                    w = u // np.uint64(1000000) if places == 6 else u // ten_p
                    frac = u - w * ten_p
                nd = 1  # the whole part's digits, counted first, written from the right
                while nd < 19 and w >= np.uint64(pow10[nd]):
                    nd += 1
                at = np.uint64(k + nd)
                for j in range(nd):
                    q = w // np.uint64(10)
                    at -= np.uint64(1)
                    out[at] = np.uint8(np.uint64(48) + w - q * np.uint64(10))
                    w = q
                k += nd
                if frac:
                    out[k] = 46  # "."
                    q, d = frac // np.uint64(10), places
                    while frac == q * np.uint64(10):  # trailing zeros dropped
                        frac, q, d = q, q // np.uint64(10), d - 1
                    at = np.uint64(k + d + 1)
                    for j in range(d):
                        q = frac // np.uint64(10)
                        at -= np.uint64(1)
                        out[at] = np.uint8(np.uint64(48) + frac - q * np.uint64(10))
                        frac = q
                    k += d + 1
    return k
