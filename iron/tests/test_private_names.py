"""No library module reaches into another module's private (``_name``) names: what modules
share has a public name in its owner (issue 38, item 3). Checked on the source: ``from m import
_x`` and ``m._x`` where ``m`` is another iron module. A package's own private submodules
(``from iron.operators import _checks`` inside ``iron/operators/``) are the package's to share.
Tests may poke the private hooks they document (``iron/tests/bugs.py``)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def reaches(source: str, module: str) -> list[str]:
    """The private names of other iron modules that ``source`` (module ``module``) uses."""
    tree = ast.parse(source)
    package = module.rsplit(".", 1)[0]
    aliases: dict[str, str] = {}  # local name -> the iron module it is bound to
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            aliases.update((a.asname or a.name, a.name) for a in node.names if a.name.startswith("iron"))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("iron"):
            for a in node.names:
                own = ROOT.parent.joinpath(*package.split("."), f"{a.name}.py")
                if _private(a.name) and not (node.module == package and own.exists()):
                    found.append(f"{node.module}.{a.name}")
                aliases[a.asname or a.name] = f"{node.module}.{a.name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr) and isinstance(node.value, ast.Name):
            if node.value.id in aliases and aliases[node.value.id] != module:
                found.append(f"{aliases[node.value.id]}.{node.attr}")
    return sorted(set(found))


def test_no_library_module_uses_another_modules_private_names():
    bad = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).parts
        if (rel[0] == "tests" and path.name.startswith("test_")) or path.name == "bugs.py":
            continue
        bad += [
            f"{path.relative_to(ROOT.parent)}: {name}" for name in reaches(path.read_text(), _module(path))
        ]
    assert not bad, "private names used outside their module (give them a public name):\n" + "\n".join(bad)


def test_the_check_sees_both_forms():
    here = "iron.lower.dma_task"
    assert reaches("from iron.lower.task_text import _first", here) == ["iron.lower.task_text._first"]
    assert reaches("from iron.fuse import fusion\nfusion._needs_reset(1)", here) == [
        "iron.fuse.fusion._needs_reset"
    ]
    assert reaches("from iron.lower.task_text import first_line", here) == []
    # a package's own private submodule is the package's to share
    assert reaches("from iron.operators import _checks", "iron.operators.gemm") == []
    assert reaches("from iron.operators import _checks", "iron.lower.npu") == ["iron.operators._checks"]
