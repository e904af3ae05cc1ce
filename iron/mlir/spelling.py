"""Spell printed text the way an older mlir-aie reads it (:mod:`iron.target.mlir_eras`).

The printer writes today's forms; for an older :class:`~iron.target.mlir_eras.Era` its last
step, :func:`respell`, rewrites each changed form line by line, over the whole module text,
so iron's own cores, foreign cores kept verbatim and opaque ops are all spelled alike. Today's
era returns the text unchanged (same bytes). The reader reads both spellings
(:mod:`iron.mlir.legacy` translates the older acquire back).

Changed forms spelled here:

* ``objectfifo.acquire``: ``%a, %b = aie.objectfifo.acquire @of(Consume, 2) : memref<T>, memref<T>``
  becomes ``%subview_a = aie.objectfifo.acquire @of(Consume, 2) : !aie.objectfifosubview<memref<T>>``
  and one ``%a = aie.objectfifo.subview.access %subview_a[0] : !aie.objectfifosubview<memref<T>> -> memref<T>``
  per result (mlir-aie a9e39fae's ``AIEOps.td``; its lit tests write it so).
"""

from __future__ import annotations

import re

from iron.errors import IronError
from iron.mlir.decl import NAME
from iron.mlir.scan import split_top
from iron.target.mlir_eras import TODAY, Era

_RE_SSA = re.compile(r"%([A-Za-z0-9_$.\-]+)")
_RE_ACQUIRE = re.compile(
    rf"^(?P<lead>\s*)(?P<results>%{NAME}(?::\d+)?(?:\s*,\s*%{NAME}(?::\d+)?)*)\s*=\s*aie\.objectfifo\.acquire\s*"
    rf"@(?P<fifo>{NAME})\s*\(\s*(?P<port>Produce|Consume)\s*,\s*(?P<count>\d+)\s*\)\s*:\s*"
    r"(?P<types>[^/]*?)\s*(?P<comment>//.*)?$"
)


class SpellingError(IronError):
    """A printed form that has no spelling in the requested era (the message names the line)."""


def respell(text: str, era: Era = TODAY) -> str:
    """``text`` (printed in today's forms) with each form ``era`` spells the older way rewritten."""
    if not era.old:
        return text
    if era.uses_old("objectfifo.acquire") and "aie.objectfifo.acquire" in text:
        text = _subview_acquires(text)
    return text


def _subview_acquires(text: str) -> str:
    taken = set(_RE_SSA.findall(text))
    lines = text.split("\n")
    out: list[str] = []
    for n, line in enumerate(lines):
        m = _RE_ACQUIRE.match(line)
        if m is None or m["types"].lstrip().startswith("!aie.objectfifosubview"):
            out.append(line)
            continue
        results = [r.strip()[1:] for r in m["results"].split(",")]
        types = [t.strip() for t in split_top(m["types"]) if t.strip()]
        if any(":" in r for r in results) or len(types) != len(results) or len(set(types)) != 1:
            raise SpellingError(
                f"line {n + 1}: `{line.strip()}`: the older acquire (one !aie.objectfifosubview) needs one "
                "named result per element, all of one memref type"
            )
        name, k = f"subview_{results[0]}", 0
        while name in taken:
            k += 1
            name = f"subview_{results[0]}_{k}"
        taken.add(name)
        sub = f"!aie.objectfifosubview<{types[0]}>"
        comment = f" {m['comment']}" if m["comment"] else ""
        pad = m["lead"]
        out.append(
            f"{pad}%{name} = aie.objectfifo.acquire @{m['fifo']}({m['port']}, {m['count']}) : {sub}{comment}"
        )
        out += [
            f"{pad}%{r} = aie.objectfifo.subview.access %{name}[{i}] : {sub} -> {types[0]}"
            for i, r in enumerate(results)
        ]
    return "\n".join(out)
