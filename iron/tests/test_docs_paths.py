"""What README, docs/ and docstrings point a reader at exists.

A path in backticks under iron/, docs/, benchmarks/ or .ci/ names a file or folder of
this repository, a dotted ``iron.x.y`` name resolves to a module or an attribute of one,
and every "docs/design.md N.M" / "section N" citation in the code names a heading of
docs/design.md. (docs/design.md itself quotes upstream paths, so its own backticks are
not checked as ours.)
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").glob("*.md") if p.name != "design.md")]
PATH = re.compile(r"`((?:iron|docs|benchmarks|\.ci)/[^`\s:]*)")
NAME = re.compile(r"`(iron(?:\.[A-Za-z_][A-Za-z0-9_]*)+)")
CITE = re.compile(r"docs/design\.md(?:,? section|,)? (\d+(?:\.\d+)?)")


def _paths():
    for page in PAGES:
        for m in PATH.finditer(page.read_text()):
            if "<" not in m.group(1):  # a placeholder such as iron/operators/<name>.py
                yield page.name, m.group(1)


def _names():
    for page in PAGES:
        for m in NAME.finditer(page.read_text()):
            yield page.name, m.group(1)


@pytest.mark.parametrize("page,path", sorted(set(_paths())))
def test_path_exists(page, path):
    pattern = path.rstrip("/")
    assert any(ROOT.glob(pattern)) or (ROOT / pattern).exists(), f"{page} names {path}, which is not here"


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


@pytest.mark.parametrize("page,name", sorted(set(_names())))
def test_module_name_resolves(page, name):
    assert _resolves(name), f"{page} names {name}, which does not resolve"


def _headings() -> set[str]:
    text = (ROOT / "docs" / "design.md").read_text()
    return set(re.findall(r"^#{2,3} (\d+(?:\.\d+)?)\.? ", text, flags=re.M))


def test_design_citations_name_a_heading():
    headings = _headings()
    assert {"3.2", "4", "9.3"} <= headings  # the parser of headings itself
    bad = []
    for src in sorted((ROOT / "iron").rglob("*.py")) + [ROOT / "README.md", *PAGES]:
        for m in CITE.finditer(src.read_text()):
            if m.group(1) not in headings:
                bad.append(f"{src.relative_to(ROOT)}: docs/design.md {m.group(1)}")
    assert not bad, "citations of sections docs/design.md does not have:\n" + "\n".join(bad)
