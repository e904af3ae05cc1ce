"""What aiecc's core link checks, on the fake objects of clang.py: every
``func.func private @f(...) attributes {link_with = "x.o"}`` needs ``x.o`` in ``cwd``
defining ``f`` with that many parameters, and every data symbol an object references
defined in it (the LUT tables of ``lut_based_ops.cpp``). An object that is not one of
clang.py's records (a foreign design's own prebuilt object in a test) is only required
to be there: what it defines is not known to the fake."""

from __future__ import annotations

import json
import re
from pathlib import Path

_DECL = re.compile(r'func\.func private @([\w$.]+)\((.*)\) attributes \{link_with = "([^"]+)"\}')


class LinkError(Exception):
    pass


def _arity(types: str) -> int:
    depth, n = 0, 1 if types.strip() else 0
    for c in types:
        depth += {"<": 1, ">": -1, "(": 1, ")": -1}.get(c, 0)
        n += c == "," and depth == 0
    return n


def check_links(mlir_text: str, cwd: Path) -> None:
    errors = []
    for m in _DECL.finditer(mlir_text):
        name, n, objname = m.group(1), _arity(m.group(2)), m.group(3)
        path = Path(cwd) / objname
        if not path.is_file():
            errors.append(f"ld.lld: error: cannot open {objname}: No such file or directory")
            continue
        try:
            obj = json.loads(path.read_text())
            funcs = obj["functions"]
        except (ValueError, KeyError, TypeError, UnicodeDecodeError):
            continue  # not a fake-clang record: its symbols are not known here
        if name not in funcs:
            errors.append(
                f"ld.lld: error: undefined symbol: {name}\n>>> referenced by core (link_with {objname})"
            )
        elif funcs[name] != n:
            errors.append(
                f"error: call to {name} with {n} arguments, {objname} defines it with {funcs[name]} parameters "
                "(wrong parameter count)"
            )
        for ref in obj.get("undefined", []):
            errors.append(f"ld.lld: error: undefined symbol: {ref}\n>>> referenced by {objname}")
    if errors:
        raise LinkError("\n".join(dict.fromkeys(errors)))
