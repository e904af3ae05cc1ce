"""Every code block in README.md and docs/ is real: Python blocks parse, and every shell
command names a program a user has, with arguments that program accepts (``iron`` lines
are parsed by iron's own command-line parser, ``python -m`` modules and ``python FILE``
scripts exist, variables are declared options). README's Python example also runs
(test_readme.py); README's commands are what .ci/run runs (its own test)."""

from __future__ import annotations

import ast
import importlib.util
import re
import shlex
from pathlib import Path

import pytest

from iron.options import OPTIONS

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
ASSIGN = re.compile(r"^([A-Z_][A-Z0-9_]*)=(\S*)$")
PROGRAMS = {"pip", "python", "iron", "black"}


def _blocks(lang: str):
    for page in PAGES:
        for i, m in enumerate(BLOCK.finditer(page.read_text())):
            if m.group(1) == lang:
                yield pytest.param(m.group(2), id=f"{page.name}#{i}")


@pytest.mark.parametrize("code", list(_blocks("python")))
def test_python_blocks_parse(code):
    ast.parse(code)


def _commands(block: str):
    for line in block.splitlines():
        line = line.split("  #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        for cmd in line.split("&&"):
            yield shlex.split(cmd)


def _check_command(words: list[str]) -> None:
    declared = {o.env for o in OPTIONS}
    while words and ASSIGN.match(words[0]):
        name = ASSIGN.match(words[0]).group(1)
        assert name in declared, f"{name} is no declared option (iron/options/table.py OPTIONS)"
        words = words[1:]
    program, args = words[0], words[1:]
    assert program in PROGRAMS, f"{program}: not a program the docs may assume"
    if program == "iron":
        from iron.cli import parser

        parser().parse_args(args)
    elif program == "python" and args[:1] == ["-m"]:
        assert importlib.util.find_spec(args[1]) is not None, f"python -m {args[1]}: no such module"
    elif program == "python":
        assert (ROOT / args[0]).is_file(), f"python {args[0]}: no such script"
    elif program == "pip":
        assert args[0] == "install" and all(a in (".", ".[test]", "-e") for a in args[1:]), args


@pytest.mark.parametrize("block", list(_blocks("sh")))
def test_shell_commands_are_real(block):
    for words in _commands(block):
        _check_command(words)


def test_the_checks_catch_a_wrong_command():
    with pytest.raises(SystemExit):
        _check_command(["iron", "trace", "decode", "x.txt", "--format", "csv"])
    with pytest.raises(AssertionError):
        _check_command(["IRON_TRACE_SIZ=1", "python", "-m", "pytest"])
    with pytest.raises(AssertionError):
        _check_command(["python", "-m", "iron.trace.nowhere"])
