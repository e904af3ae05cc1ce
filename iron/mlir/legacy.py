"""Old mlir-aie syntax users still have, translated before aiecc sees it (or refused).

iron prints a core body as it read it (:mod:`iron.mlir.body` reads the older acquire
form too, for sim), so a design written against an older mlir-aie would reach today's
aiecc unchanged, and today's verifier rejects it. So the text is translated here, before
anything reads it. What has exactly one modern form is rewritten, each rewrite reported as a
:class:`Translation` (``file:line``, old text, new text); what has none is one
:class:`LegacySyntaxError` naming the line and what to write instead.

Translated: the object-FIFO acquire that returned an ``!aie.objectfifosubview`` and
the ``aie.objectfifo.subview.access`` ops that took its elements out::

    %s = aie.objectfifo.acquire @of(Consume, 2) : !aie.objectfifosubview<memref<16xi32>>
    %a = aie.objectfifo.subview.access %s[0] : !aie.objectfifosubview<memref<16xi32>> -> memref<16xi32>
    %b = aie.objectfifo.subview.access %s[1] : !aie.objectfifosubview<memref<16xi32>> -> memref<16xi32>

become today's acquire, whose results are the elements themselves::

    %a, %b = aie.objectfifo.acquire @of(Consume, 2) : memref<16xi32>, memref<16xi32>

(today's form as mlir-aie's lit tests write it, e.g.
``test/objectFifo-stateful-transform/access_patterns/AIE2_single_multiple_release.mlir``,
``%1, %2 = aie.objectfifo.acquire @of (Consume, 2) : memref<16xi32>, memref<16xi32>``).
The access lines become blank lines, so every other line keeps its number. An element
accessed twice keeps the first access's name (later uses are renamed); an element
never accessed gets a fresh name. Refused: a subview used by anything but an access
(passed to a function, a block argument, a loop's ``iter_args``), an access out of the
acquired range or of another type, and the pre-2023 capitalised dialects (``AIE.``,
``AIEX.``) and ``aiex.ipu.`` ops, whose op names and forms changed with them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from iron.errors import IronError
from iron.mlir.decl import NAME
from iron.target.geometry import MEMTILE_MEMORY
from iron.target.mlir_eras import RETIRED

_MEMREF = r"memref<[^<>]*(?:<[^<>]*>[^<>]*)*>"
_RE_ACQUIRE = re.compile(
    rf"^(?P<lead>\s*)%(?P<name>{NAME})\s*=\s*aie\.objectfifo\.acquire\s*@(?P<fifo>{NAME})\s*"
    rf"\(\s*(?P<port>Produce|Consume)\s*,\s*(?P<count>\d+)\s*\)\s*:\s*"
    rf"!aie\.objectfifosubview\s*<\s*(?P<type>{_MEMREF})\s*>\s*(?P<comment>//.*)?$"
)
_RE_ACCESS = re.compile(
    rf"^\s*%(?P<name>{NAME})\s*=\s*aie\.objectfifo\.subview\.access\s+%(?P<sub>{NAME})\s*\[\s*(?P<index>\d+)\s*\]"
    rf"\s*:\s*!aie\.objectfifosubview\s*<\s*(?P<type>{_MEMREF})\s*>\s*->\s*(?P<out>{_MEMREF})\s*(?://.*)?$"
)
_RE_DEFINES = re.compile(rf"^\s*(?:scf\.for\s+)?(%{NAME}(?:\s*,\s*%{NAME})*)\s*=")
_RE_SUBVIEW_TYPE = re.compile(r"!aie\.objectfifosubview\b")
_RE_OLD_DIALECT = re.compile(r"^\s*(?:%[^=]+=\s*)?(AIEX?\.[A-Za-z_]\w*(?:\.\w+)*)")
_RE_IPU = re.compile(r"\baiex\.ipu\.\w+")

#: Most objects one acquire may name (a memtile's bytes: no FIFO is deeper).
MAX_OBJECTS = MEMTILE_MEMORY


class LegacySyntaxWarning(UserWarning):
    """An old form was translated (the message says where, from what, to what)."""


class LegacySyntaxError(IronError):
    """Old syntax with no one-to-one modern form; the message names ``file:line`` and what to write."""


@dataclass(frozen=True)
class Translation:
    """One rewrite: where, the old text (its lines joined with `` / ``), the new text."""

    where: str
    old: str
    new: str

    def __str__(self) -> str:
        return f"{self.where}: translated `{self.old}` to today's `{self.new}`"


def _use(name: str) -> re.Pattern:
    return re.compile(rf"%{re.escape(name)}(?![A-Za-z0-9_$.\-])")


def translate(text: str, filename: str = "<mlir>") -> tuple[str, list[Translation]]:
    """``text`` in today's syntax and the translations made (empty when nothing was old): the
    retired spellings of :data:`iron.target.mlir_eras.RETIRED` line by line, then the acquire."""
    text, notes = _retired(text, filename)
    text, more = _acquires(text, filename)
    return text, notes + more


def _dma_bd(m: re.Match) -> str:
    """A positional ``aie.dma_bd`` (before PR #3306) in its keyword form."""
    if m["pad"]:
        raise ValueError("padding dimensions")
    parts = [f"offset = {m['offset']}"] + ([f"len = {m['len']}"] if m["len"] else [])
    if m["dims"] is not None:
        dims = _RE_DIM.findall(m["dims"])
        if len(dims) != len([d for d in m["dims"].split(">") if d.strip(" ,")]):
            raise ValueError("dimensions other than <size = n, stride = m>")
        parts += [
            f"sizes = [{', '.join(d[0] for d in dims)}]",
            f"strides = [{', '.join(d[1] for d in dims)}]",
        ]
    return f"aie.dma_bd({m['buf']} : {m['type']} {' '.join(parts)})"


def _host_config(m: re.Match) -> str:
    pairs = re.findall(r"(\w+)\s*=\s*(-?\d+)", m["pairs"])
    return "aie.trace.host_config {" + ", ".join(f"{k} = {v} : i32" for k, v in pairs) + "}"


#: Each retired spelling's rewrite (name as in RETIRED): pattern and replacement (a string or a
#: function of the match; a ValueError from it means no one-to-one form: LegacySyntaxError).
_RULES = {
    "device npu1_4col": (re.compile(r"\baie\.device\s*\(\s*npu1_4col\s*\)"), "aie.device(npu1)"),
    "objectfifo stream dimensions": (
        re.compile(r"(?<=\S)(\s+)(to|from)Stream(?=\s*\[)"),
        lambda m: f"{m[1]}dimensions{m[2].capitalize()}Stream",
    ),
    "bundle Ctrl": (re.compile(rf'(%{NAME}\s*,\s*)"?Ctrl"?(\s*:)'), r"\1TileControl\2"),
    "dma_bd positional": (
        re.compile(
            rf"aie\.dma_bd\(\s*(?P<buf>%{NAME})\s*:\s*(?P<type>{_MEMREF})\s*,\s*(?P<offset>-?\d+)\s*"
            r"(?:,\s*(?P<len>\d+)\s*)?(?:,\s*\[(?P<dims>[^\]]*)\]\s*)?(?P<pad>,[^)]*)?\)"
        ),
        _dma_bd,
    ),
    "trace host_config": (
        re.compile(r"aie\.trace\.host_config\s+(?P<pairs>(?:\w+\s*=\s*-?\d+\s*)+)$"),
        _host_config,
    ),
}
_RE_DIM = re.compile(r"<\s*size\s*=\s*(\d+)\s*,\s*stride\s*=\s*(\d+)\s*>")
_RETIRED_HINT = re.compile(r"npu1_4col|Stream\s*\[|Ctrl|aie\.dma_bd\(|host_config\s+\w")


def _retired(text: str, filename: str) -> tuple[str, list[Translation]]:
    """Each line's retired spellings (:data:`_RULES`) rewritten, one :class:`Translation` a line."""
    if not _RETIRED_HINT.search(text):
        return text, []
    lines, notes = text.split("\n"), []
    for n, line in enumerate(lines):
        code, sep, comment = line.partition("//")
        new = code.rstrip()
        tail = code[len(new) :]
        for name, (pattern, repl) in _RULES.items():
            try:
                new = pattern.sub(repl, new)
            except ValueError as exc:
                raise LegacySyntaxError(
                    f"{filename}:{n + 1}: `{line.strip()}`: {RETIRED[name].old!r} with {exc} has no one-to-one "
                    f"form in today's {RETIRED[name].new!r} ({RETIRED[name].changed_by}); rewrite it by hand"
                ) from None
        if new + tail != code:
            lines[n] = new + tail + sep + comment
            notes.append(Translation(f"{filename}:{n + 1}", line.strip(), lines[n].strip()))
    return "\n".join(lines), notes


def _acquires(text: str, filename: str) -> tuple[str, list[Translation]]:
    """The subview acquires and their accesses in today's acquire (see the module docstring)."""
    if "objectfifosubview" not in text and "AIE" not in text and "aiex.ipu." not in text:
        return text, []
    lines = text.split("\n")
    _refuse_old_dialects(lines, filename)
    out = list(lines)
    notes: list[Translation] = []
    live: dict[str, dict] = {}  # subview name -> its acquire (the latest definition above)
    done: list[dict] = []
    renames: dict[str, str] = {}
    for n, line in enumerate(lines):
        where = f"{filename}:{n + 1}"
        if renames and "%" in line:
            for old, new in renames.items():
                line = _use(old).sub(f"%{new}", line)
            out[n] = line
        if d := _RE_DEFINES.match(line):  # a name defined again: the old acquire's scope is over
            for name in re.findall(rf"%({NAME})", d.group(1)):
                if name in live:
                    done.append(live.pop(name))
                renames.pop(name, None)
        if m := _RE_ACQUIRE.match(line):
            live[m["name"]] = {"m": m, "line": n, "access": {}, "lines": [n]}
            continue
        if m := _RE_ACCESS.match(line):
            acq = live.get(m["sub"])
            if acq is None:
                raise LegacySyntaxError(
                    f"{where}: `{line.strip()}` accesses %{m['sub']}, which no `!aie.objectfifosubview` "
                    "acquire above defines"
                )
            a, index = acq["m"], int(m["index"])
            if index >= int(a["count"]) or m["type"] != a["type"] or m["out"] != a["type"]:
                raise LegacySyntaxError(
                    f"{where}: `{line.strip()}` does not match its acquire (line {acq['line'] + 1}: "
                    f"{a['count']} x {a['type']}); access an acquired element of that type"
                )
            if index in acq["access"]:
                renames[m["name"]] = acq["access"][index]
            else:
                acq["access"][index] = m["name"]
            acq["lines"].append(n)
            out[n] = ""
            _rewrite(out, acq, lines, text)
            continue
        _refuse_subview_use(line, live, where)
    for acq in sorted(done + list(live.values()), key=lambda a: a["line"]):
        _rewrite(out, acq, lines, text)
        notes.append(
            Translation(
                f"{filename}:{acq['line'] + 1}",
                " / ".join(lines[k].strip() for k in acq["lines"]),
                out[acq["line"]].strip(),
            )
        )
    return "\n".join(out), notes


def _refuse_subview_use(line: str, live: dict, where: str) -> None:
    """A line that uses a live subview other than by an access, or names the subview type."""
    for sub in [s for s in live if _use(s).search(line)]:
        raise LegacySyntaxError(
            f"{where}: `{line.strip()}` uses %{sub}, an `!aie.objectfifosubview` (line "
            f"{live[sub]['line'] + 1}); today's acquire returns the memrefs themselves: write "
            f"`%e0, ... = aie.objectfifo.acquire @{live[sub]['m']['fifo']}(...) : memref<...>, ...` and use "
            "the element values instead of the subview"
        )
    if _RE_SUBVIEW_TYPE.search(line):
        raise LegacySyntaxError(
            f"{where}: `{line.strip()}`: the `!aie.objectfifosubview` type no longer exists; pass the "
            "acquired memrefs (today's `aie.objectfifo.acquire` returns them) instead"
        )


def _rewrite(out: list[str], acq: dict, lines: list[str], text: str) -> None:
    """The acquire's line in today's form, with the names its accesses gave the elements."""
    a = acq["m"]
    count = int(a["count"]) if len(a["count"]) <= 12 else MAX_OBJECTS + 1
    if count > MAX_OBJECTS:  # one name per object is written below: bound the loop first
        raise LegacySyntaxError(
            f"line {acq['line'] + 1}: `aie.objectfifo.acquire @{a['fifo']}({a['port']}, {a['count'][:20]})`: more than "
            f"{MAX_OBJECTS} objects; "
            "accepted: the FIFO's depth at most (no tile holds more: one byte each fills a memtile)"
        )
    names = []
    for k in range(count):
        name = acq["access"].get(k)
        if name is None:
            name, i = f"{a['name']}_{k}", 0
            while _use(name).search(text):
                i += 1
                name = f"{a['name']}_{k}_{i}"
        names.append(f"%{name}")
    comment = f" {a['comment']}" if a["comment"] else ""
    types = ", ".join([a["type"]] * count)
    out[acq["line"]] = (
        f"{a['lead']}{', '.join(names)} = aie.objectfifo.acquire @{a['fifo']}({a['port']}, {count}) : {types}{comment}"
    )


def _refuse_old_dialects(lines: list[str], filename: str) -> None:
    for n, line in enumerate(lines):
        code = line.split("//", 1)[0]
        if m := _RE_OLD_DIALECT.match(code):
            raise LegacySyntaxError(
                f"{filename}:{n + 1}: `{m.group(1)}`: the capitalised AIE/AIEX dialects (before 2023) have no "
                "one-to-one modern form; write today's `aie.` / `aiex.` ops (e.g. `aie.tile`, `aie.objectfifo @name(...)`)"
            )
        if m := _RE_IPU.search(code):
            raise LegacySyntaxError(
                f"{filename}:{n + 1}: `{m.group(0)}`: the `aiex.ipu.` ops were renamed `aiex.npu.` (2024) and "
                "their operands changed since; write today's `aiex.npu.` op (see mlir-aie's AIEX.td)"
            )
