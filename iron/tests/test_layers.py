"""The import rules of docs/ARCHITECTURE.md ("Layers"), checked against the source.

Every ``import``/``from ... import`` of an iron module, at module level or inside a
function, is an arrow. The build side is an ordered list of layers; a module may
import its own layer and the layers before it. The read side (``iron.trace``) and
the artifact contract modules have their own short lists.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Build-side layers in data-flow order: a module imports only its own layer and earlier ones.
LAYERS = [
    ("base", ["iron.errors", "iron.files", "iron.progress", "iron.limits", "iron.bf16"]),
    ("target", ["iron.target"]),
    ("options", ["iron.options"]),
    ("mlir", ["iron.mlir"]),
    ("operators", ["iron.design", "iron.operators"]),
    ("instrument", ["iron.instrument"]),
    ("fuse", ["iron.fuse"]),
    ("lower", ["iron.lower"]),
    ("artifact", ["iron.artifact"]),
    ("runtime", ["iron.runtime"]),
]
#: May import anything: the package facade and the programs built on the whole library.
TOP = {"iron", "iron.__main__", "iron.cli", "iron.demo", "iron.testing"}
BASE = ["iron.errors", "iron.files", "iron.progress", "iron.limits", "iron.bf16"]
#: What the read side may import besides itself.
READ_SIDE = "iron.trace"
READ_SIDE_MAY_IMPORT = [
    *BASE,
    "iron.target",
    "iron.mlir.ir",
    "iron.mlir.reader",
    "iron.mlir.names",
    "iron.mlir.trace_config",  # a lowered module's trace registers, without the IR
    "iron.instrument.manifest",
    # upstream's flow: the design's MLIR is the trace metadata ("decode --mlir")
    "iron.instrument.mlir_config",
    "iron.instrument.declarative",
    "iron.instrument.upstream_meta",
    "iron.artifact.elf",
    "iron.artifact.schema",  # section names, manifest and core-ELF naming of an artifact
]
#: The artifact contract: what build writes and the runtime reads. It imports only what
#: CONTRACT_MAY_IMPORT lists, so fusion (which writes the kernel records) and every later
#: stage may import it.
CONTRACT = ["iron.artifact.schema", "iron.artifact.elf", "iron.artifact.pdi"]
CONTRACT_MAY_IMPORT = [*BASE, "iron.target", "iron.mlir", "iron.instrument.manifest", *CONTRACT]
#: The runtime reads the artifact contract only; sim also executes the op declarations
#: (``iron.mlir``) and drives the operators it is handed (their contract, ``iron.design``);
#: captures go to the read side.
RUNTIME_MAY_IMPORT = [
    *BASE,
    "iron.target",
    "iron.mlir",
    "iron.design",
    "iron.runtime",
    "iron.trace",
    *CONTRACT,
]

#: (importer, imported) arrows that break the rules today; each entry is work left.
KNOWN_DEBTS: set[tuple[str, str]] = {}
#: Pairs of modules importing each other today (same rule: the list only shrinks).
KNOWN_CYCLES: set[tuple[str, str]] = {}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Every iron module ``path`` imports (``from a import b`` counts ``a.b`` when that is a module)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                found.add(sub if _is_module(sub) else module)
    return {m for m in found if m == "iron" or m.startswith("iron.")}


def _is_module(dotted: str) -> bool:
    p = ROOT.parent / dotted.replace(".", "/")
    return p.with_suffix(".py").is_file() or (p / "__init__.py").is_file()


def _under(module: str, prefixes) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def _layer(module: str) -> int | None:
    for i, (_, prefixes) in enumerate(LAYERS):
        if _under(module, prefixes):
            return i
    return None


def _allowed(importer: str, imported: str) -> bool:
    if importer in TOP or imported in (importer, "iron"):
        # ``from iron import __version__`` reaches only the lazy facade
        return True
    if _under(importer, CONTRACT):
        return _under(imported, CONTRACT_MAY_IMPORT)
    if _under(importer, ["iron.target"]):
        return _under(imported, ["iron.errors", "iron.target"])
    if _under(importer, [READ_SIDE]):
        return _under(imported, [READ_SIDE, *READ_SIDE_MAY_IMPORT])
    if _under(importer, ["iron.runtime"]):
        return _under(imported, RUNTIME_MAY_IMPORT)
    if _under(imported, [READ_SIDE]):
        return False  # the build side never needs the decoder
    mine, theirs = _layer(importer), _layer(imported)
    if mine is None or theirs is None:
        return False
    if _under(imported, CONTRACT) and mine >= _layer("iron.fuse"):
        return True  # the contract sits after the manifest schema: fusion writes its schedule in it
    return theirs <= mine


def _arrows() -> set[tuple[str, str]]:
    arrows = set()
    for path in sorted(ROOT.rglob("*.py")):
        if "tests" in path.relative_to(ROOT).parts:
            continue
        importer = _module_name(path)
        for imported in _imports(path):
            arrows.add((importer, imported))
    return arrows


def test_every_module_has_a_place():
    placed = {m for m, _ in _arrows()} | {
        _module_name(p) for p in ROOT.rglob("*.py") if "tests" not in p.parts
    }
    homeless = sorted(m for m in placed if m not in TOP and _layer(m) is None and not _under(m, [READ_SIDE]))
    assert not homeless, f"modules outside every layer of docs/ARCHITECTURE.md: {homeless}"


def test_imports_point_one_way():
    bad = sorted(a for a in _arrows() if not _allowed(*a))
    assert not bad, "imports against docs/ARCHITECTURE.md's layers:\n" + "\n".join(
        f"{a} -> {b}" for a, b in bad
    )


def test_no_two_modules_import_each_other():
    arrows = _arrows()
    cycles = sorted((a, b) for a, b in arrows if a < b and (b, a) in arrows and "iron" not in (a, b))
    assert not cycles, f"modules importing each other: {cycles}"


def test_the_rules_catch_a_backward_arrow():
    """The checker itself: arrows the picture forbids are refused."""
    assert not _allowed("iron.target.geometry", "iron.mlir.ir")
    assert not _allowed("iron.mlir.printer", "iron.operators.gemm")
    assert not _allowed("iron.trace.decode", "iron.fuse.fusion")
    assert not _allowed("iron.runtime.xrt", "iron.artifact.aiecc")
    assert not _allowed("iron.artifact.pdi", "iron.operators")
    assert not _allowed("iron.artifact.schema", "iron.runtime.runner")
    assert not _allowed("iron.fuse.fusion", "iron.artifact.build")
    assert not _allowed("iron.instrument.codegen", "iron.artifact.schema")
    assert _allowed("iron.fuse.fusion", "iron.artifact.schema")
    assert not _allowed("iron.lower.npu", "iron.trace.decode")
    assert _allowed("iron.lower.verify", "iron.instrument.manifest")
    assert _allowed("iron.trace.cli", "iron.artifact.elf")


def test_decoding_loads_no_build_side_module():
    code = "import sys, iron.trace.decode; print('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    loaded = [m for m in out.split() if m.startswith("iron.")]
    allowed = [READ_SIDE, *READ_SIDE_MAY_IMPORT]
    parents = {p.rsplit(".", 1)[0] for p in allowed}  # packages of allowed modules (docstring-only inits)
    build_side = [m for m in loaded if not _under(m, allowed) and m not in parents]
    assert not build_side, f"import iron.trace.decode loads the build side: {build_side}"
