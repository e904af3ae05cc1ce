"""A fake Peano ``clang++`` that fails the way clang does on iron's kernel compiles.

It preprocesses for real (a small C preprocessor: ``#include "x"`` / ``<x>`` through
the file's folder and ``-I``, ``-include``, ``#define`` / ``#undef`` of object-like
macros, ``#if/#ifdef/#ifndef/#elif/#else/#endif`` with ``defined``, integer comparisons,
``!``, ``&&``, ``||``, and ``#error``), so a missing define hits the source's ``#error``,
an ``#if`` on an undefined name fails under ``-Werror=undef``, and a missing header
(``<adf.h>`` without ``-D__AIE_API_AIE_ADF_HPP__``) is "'adf.h' file not found".
``-E -o f`` writes the preprocessed text; ``-c -o f.o`` writes a JSON object recording the
``extern "C"`` functions the file defines with their parameter counts, the data it
defines and the data it references (``extern T name[];``). ``--target=aie2-...`` defines
``__AIE_ARCH__`` 20, ``aie2p`` 21. Run as a script (``installs.py`` writes the
launcher): ``python clang.py <clang++ argv...>``.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

VERSION = "clang version 19.0.0 (fake llvm-aie)"
#: The C/C++ library headers Peano ships (empty here); aie_api and adf.h are not among them.
SYSTEM_HEADERS = {"stdint.h", "stdlib.h", "stdio.h", "string.h", "math.h", "type_traits", "cstdint"}


class CompileError(Exception):
    pass


class Preprocessor:
    def __init__(self, includes: list[Path], defines: dict[str, str], werror_undef: bool):
        self.includes, self.macros, self.werror_undef = includes, dict(defines), werror_undef
        self.out: list[str] = []

    def run_file(self, path: Path) -> None:
        stack: list[list[bool]] = []  # per #if: [this branch active, some branch taken]
        active = lambda: all(s[0] for s in stack)  # noqa: E731
        text = path.read_text().replace("\\\n", " ")
        text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)  # comments go, as with clang -E
        lines = [re.sub(r"//.*$", "", ln) for ln in text.splitlines()]
        for no, line in enumerate(lines, 1):
            m = re.match(r"\s*#\s*(\w+)\s*(.*)$", line)
            if not m:
                if active():
                    self.out.append(self.expand(line))
                continue
            kw, rest = m.group(1), m.group(2).split("//")[0].strip()
            where = f"{path}:{no}"
            if kw in ("if", "ifdef", "ifndef"):
                if not active():
                    stack.append([False, True])
                    continue
                val = {"ifdef": lambda: rest in self.macros, "ifndef": lambda: rest not in self.macros}.get(
                    kw, lambda: self.eval(rest, where)
                )()
                stack.append([bool(val), bool(val)])
            elif kw == "elif":
                top = stack[-1]
                parent = all(s[0] for s in stack[:-1])
                if top[1] or not parent:
                    top[0] = False
                else:
                    top[0] = bool(self.eval(rest, where))
                    top[1] = top[0]
            elif kw == "else":
                top = stack[-1]
                top[0], top[1] = not top[1], True
            elif kw == "endif":
                stack.pop()
            elif not active():
                continue
            elif kw == "error":
                raise CompileError(f"{where}: error: {rest}")
            elif kw == "define":
                d = re.match(r"(\w+)(?:\s+(.*))?$", rest)
                self.macros[d.group(1)] = (d.group(2) or "").strip()
            elif kw == "undef":
                self.macros.pop(rest, None)
            elif kw == "include":
                if rest.strip('<>"') in SYSTEM_HEADERS:
                    continue
                self.run_file(self.find(rest, path, where))
            # #pragma and others: ignored

    def find(self, spec: str, current: Path, where: str) -> Path:
        spec = self.expand(spec).strip()
        quoted = spec.startswith('"')
        name = spec.strip('"<>')
        places = ([current.parent] if quoted else []) + self.includes
        if Path(name).is_absolute() and Path(name).is_file():
            return Path(name)
        for p in places:
            if (p / name).is_file():
                return p / name
        raise CompileError(f"{where}: fatal error: '{name}' file not found")

    def expand(self, text: str) -> str:
        for _ in range(8):
            new = re.sub(r"\b[A-Za-z_]\w*\b", lambda m: self.macros.get(m.group(0), m.group(0)), text)
            if new == text:
                break
            text = new
        return text

    def eval(self, expr: str, where: str) -> int:
        expr = re.sub(
            r"defined\s*\(\s*(\w+)\s*\)|defined\s+(\w+)",
            lambda m: "1" if (m.group(1) or m.group(2)) in self.macros else "0",
            expr,
        )
        expr = self.expand(expr)
        for name in re.findall(r"\b[A-Za-z_]\w*\b", expr):
            if self.werror_undef:
                raise CompileError(
                    f"{where}: error: '{name}' is not defined, evaluates to 0 [-Werror,-Wundef]"
                )
            expr = re.sub(rf"\b{name}\b", "0", expr)
        expr = expr.replace("&&", " and ").replace("||", " or ")
        expr = re.sub(r"!(?!=)", " not ", expr)
        return int(eval(expr, {}, {}))  # noqa: S307 - test fake, integer expressions only


def c_symbols(text: str) -> dict:
    """Functions defined with C linkage (name -> parameter count), data defined, data referenced."""
    funcs = {}
    heads = []  # text of each extern "C" block at its own brace depth (function heads)
    for m in re.finditer(r'extern\s+"C"\s*\{', text):
        depth, i, start = 1, m.end(), m.end()
        while depth and i < len(text):
            if text[i] == "{":
                if depth == 1:
                    heads.append(text[start : i + 1])
                depth += 1
            elif text[i] == "}":
                depth -= 1
                start = i + 1
            i += 1
    heads += [m.group(0) for m in re.finditer(r'extern\s+"C"\s+[^{;]*\{', text)]
    for h in heads:
        for f in re.finditer(r"\b(\w+)\s*\(([^()]*)\)\s*\{", h):
            p = f.group(2).strip()
            funcs[f.group(1)] = 0 if p in ("", "void") else p.count(",") + 1
    data = set(re.findall(r"^\s*(?!extern)[\w ]+?\b(\w+)\[\]\s*=", text, flags=re.M))
    refs = set(re.findall(r"^\s*extern\s+[\w ]+?\b(\w+)\[\];", text, flags=re.M)) - data
    return {"functions": funcs, "data": sorted(data), "undefined": sorted(refs)}


def main(argv: list[str]) -> int:
    if argv == ["--version"]:
        print(VERSION)
        return 0
    if os.environ.get("FAKE_CLANG_LOG"):
        with open(os.environ["FAKE_CLANG_LOG"], "a") as f:
            f.write(json.dumps(argv) + "\n")
    out = Path(argv[argv.index("-o") + 1])
    includes, defines, pre, sources = [], {}, [], []
    arch = None
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "-I":
            includes.append(Path(argv[i + 1]))
            i += 1
        elif a.startswith("-I"):
            includes.append(Path(a[2:]))
        elif a.startswith("-D"):
            k, _, v = a[2:].partition("=")
            defines[k] = v or "1"
        elif a.startswith("-include"):
            pre.append(Path(a[len("-include") :] or argv[i + 1]))
        elif a.startswith("--target="):
            arch = a.split("=")[1].split("-")[0]
        elif a in ("-o", "-MF"):
            i += 1
        elif not a.startswith("-"):
            sources.append(Path(a))
        i += 1
    if arch is not None:
        defines["__AIE_ARCH__"] = {"aie2": "20", "aie2p": "21"}[arch]
    pp = Preprocessor(includes, defines, "-Werror=undef" in argv)
    try:
        for p in pre:
            if not p.is_file():
                raise CompileError(f"<command line>: fatal error: '{p}' file not found")
            pp.run_file(p)
        for s in sources:
            if not s.is_file():
                raise CompileError(f"error: no such file or directory: '{s}'")
            pp.run_file(s)
    except CompileError as e:
        print(e, file=sys.stderr)
        print("1 error generated.", file=sys.stderr)
        return 1
    text = "\n".join(pp.out) + "\n"
    if "-E" in argv:
        out.write_text(text)
        return 0
    out.write_text(json.dumps({"fake_object": True, "arch": arch, **c_symbols(text)}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
