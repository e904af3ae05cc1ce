"""The import rules of docs/ARCHITECTURE.md ("Layers"), checked against the source.

Every ``import``/``from ... import`` of an iron module, at module level or inside a
function, is an arrow; so is ``importlib.import_module("iron...")`` / ``__import__``, and a
name of the package facade (``from iron import build``, ``import iron`` ... ``iron.load``)
counts as the modules behind it, so the facade is no back door. The build side is an
ordered list of layers; a module may import its own layer and the layers before it. The
read side (``iron.trace``) and the artifact contract modules have their own short lists.
No import cycle of any length; the few arrows kept against the rules are EXCEPTIONS, each
with its reason, and the list cannot go stale.
"""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Build-side layers in data-flow order: a module imports only its own layer and earlier ones.
LAYERS = [
    ("base", ["iron.errors", "iron.files", "iron.progress", "iron.limits", "iron.bf16", "iron.record"]),
    ("target", ["iron.target"]),
    ("options", ["iron.options"]),
    ("mlir", ["iron.mlir"]),
    ("artifact", ["iron.artifact"]),  # the contracts: manifest, artifact schema, ELF container, PDI payload
    ("operators", ["iron.design", "iron.operators"]),
    ("instrument", ["iron.instrument"]),
    ("fuse", ["iron.fuse"]),
    ("lower", ["iron.lower"]),
    ("builder", ["iron.builder"]),
    ("runtime", ["iron.runtime"]),
]
#: Inside ``iron/options/`` (docs/ARCHITECTURE.md): a module imports only those before it; the
#: package ``__init__`` re-exports their public names.
OPTIONS_ORDER = [
    "iron.options.defaults",
    "iron.options.items",
    "iron.options.sizes",
    "iron.options.parsers",
    "iron.options.table",
    "iron.options.values",
    "iron.options.resolving",
]
#: May import anything: the package facade and the programs built on the whole library.
TOP = {"iron", "iron.__main__", "iron.cli", "iron.demo", "iron.testing", "iron.sim_timing"}
BASE = ["iron.errors", "iron.files", "iron.progress", "iron.limits", "iron.bf16", "iron.record"]
#: What the read side may import besides itself.
READ_SIDE = "iron.trace"
READ_SIDE_MAY_IMPORT = [
    *BASE,
    "iron.target",
    "iron.mlir.ir",
    "iron.mlir.reader",
    "iron.mlir.names",
    "iron.mlir.trace_config",  # a lowered module's trace registers, without the IR
    "iron.artifact",  # the manifest schema, section names, core-ELF naming, the container
    # upstream's flow: the design's MLIR is the trace metadata ("decode --mlir"), its aie.trace ops
    "iron.instrument.declarative",
]
#: The contracts (``iron/artifact/``): what the build side writes and the runtime and read side
#: read. They import only what CONTRACT_MAY_IMPORT lists, so every later stage may import them.
CONTRACT = ["iron.artifact"]
CONTRACT_MAY_IMPORT = [*BASE, "iron.target", "iron.mlir", *CONTRACT]
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

#: Arrows the rules refuse (or that close an import cycle) but that stay, each with the
#: reason a fix would be a redesign. Every entry must be a live arrow that the rules or the
#: cycle check would refuse without it (``test_every_exception_is_live``).
_ARTIFACT_LOAD = (
    "Artifact.load() is the public `art.load(device)` (README, snapshot, tests); it calls the"
    " facade's iron.load at call time, which composes the runtime with the operator library sim"
    " runs. Moving load off the contract record changes the public API (issue 29, item 3)."
)
EXCEPTIONS: dict[tuple[str, str], str] = {
    ("iron.artifact.schema", "iron.runtime.runner"): _ARTIFACT_LOAD,
    ("iron.artifact.schema", "iron.operators"): _ARTIFACT_LOAD,
    ("iron.artifact.schema", "iron.options"): _ARTIFACT_LOAD,
}

#: A source tree: module name -> (is a package ``__init__``, source text).
Tree = dict[str, tuple[bool, str]]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _tree() -> Tree:
    """iron's modules (tests excluded) with their source."""
    return {
        _module_name(p): (p.name == "__init__.py", p.read_text())
        for p in sorted(ROOT.rglob("*.py"))
        if "tests" not in p.relative_to(ROOT).parts
    }


@functools.lru_cache(maxsize=None)
def _parse(source: str) -> ast.Module:
    # one parse per source text: the self-test re-reads the tree once per injected import
    return ast.parse(source)


def _is_iron(module: str) -> bool:
    return module == "iron" or module.startswith("iron.")


def _direct_imports(name: str, tree: Tree, facade: dict[str, set[str]], body=None) -> set[str]:
    """The iron modules module ``name`` (or the AST ``body`` inside it) names in imports.

    ``from a import b`` counts ``a.b`` when that is a module. A facade name reached by
    ``from iron import X`` or ``import iron`` ... ``iron.X`` counts as the modules behind
    it (``facade``), so the facade is no back door; ``importlib.import_module("iron...")``
    and ``__import__("iron...")`` count like ``import``.
    """
    is_package, source = tree[name]
    package = name if is_package else name.rsplit(".", 1)[0]
    root = _parse(source) if body is None else body
    found: set[str] = set()
    binds_iron = False

    def facade_name(attr: str) -> None:
        sub = f"iron.{attr}"
        found.update({sub} if sub in tree else facade.get(attr, {"iron"}))

    for node in ast.walk(root):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.add(alias.name)
                binds_iron |= alias.name.split(".")[0] == "iron" and alias.asname is None
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for alias in node.names:
                if module == "iron":
                    facade_name(alias.name)
                    continue
                sub = f"{module}.{alias.name}"
                found.add(sub if sub in tree else module)
        elif isinstance(node, ast.Call) and node.args:
            func, arg = node.func, node.args[0]
            named = (isinstance(func, ast.Attribute) and func.attr == "import_module") or (
                isinstance(func, ast.Name) and func.id in ("import_module", "__import__")
            )
            if named and isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                found.add(arg.value)
            elif named and isinstance(arg, ast.JoinedStr) and arg.values:
                head = arg.values[0]  # f"iron.operators.{x}": at least the package it names
                if isinstance(head, ast.Constant) and _is_iron(head.value.rstrip(".")):
                    found.add(head.value.rstrip("."))
    if binds_iron:
        for node in ast.walk(root):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "iron"
            ):
                facade_name(node.attr)
    return {m for m in found if _is_iron(m)}


def _facade(tree: Tree) -> dict[str, set[str]]:
    """Each public name of the package facade (``iron/__init__.py``) -> the modules it reaches.

    A name imported at module level reaches its module; a lazy name (``_LAZY``) its
    module; a function or class what its body imports, and what the facade names it uses
    reach in turn. ``__version__`` and facade-only classes reach nothing.
    """
    body = _parse(tree["iron"][1]).body
    direct: dict[str, set[str]] = {}
    uses: dict[str, set[str]] = {}
    for node in body:
        if isinstance(node, ast.ImportFrom) and node.module and _is_iron(node.module):
            for alias in node.names:
                direct[alias.asname or alias.name] = {node.module}
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict):
            if [getattr(t, "id", None) for t in node.targets] == ["_LAZY"]:
                for k, v in zip(node.value.keys, node.value.values):
                    direct[k.value] = {v.value}
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            direct[node.name] = _direct_imports("iron", tree, {}, body=node) - {"iron"}
            uses[node.name] = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    reach = {k: set(v) for k, v in direct.items()}
    changed = True
    while changed:  # transitive: build() calls machine()
        changed = False
        for name, used in uses.items():
            for other in used & reach.keys() - {name}:
                if not reach[other] <= reach[name]:
                    reach[name] |= reach[other]
                    changed = True
    return reach


def _arrows(tree: Tree | None = None) -> set[tuple[str, str]]:
    tree = _tree() if tree is None else tree
    facade = _facade(tree)
    return {(m, imported) for m in tree for imported in _direct_imports(m, tree, facade) if imported != m}


def _under(module: str, prefixes) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def _layer(module: str) -> int | None:
    for i, (_, prefixes) in enumerate(LAYERS):
        if _under(module, prefixes):
            return i
    return None


def _allowed(importer: str, imported: str) -> bool:
    if importer in TOP or imported in (importer, "iron"):
        # ``from iron import __version__`` reaches only the facade itself; facade names
        # that reach a module are counted as that module (``_facade``)
        return True
    if _under(importer, CONTRACT):
        return _under(imported, CONTRACT_MAY_IMPORT)
    if _under(importer, ["iron.target"]):
        return _under(imported, ["iron.errors", "iron.record", "iron.target"])
    if _under(importer, [READ_SIDE]):
        return _under(imported, [READ_SIDE, *READ_SIDE_MAY_IMPORT])
    if _under(importer, ["iron.runtime"]):
        return _under(imported, RUNTIME_MAY_IMPORT)
    if _under(imported, [READ_SIDE]):
        return False  # the build side never needs the decoder
    if (
        _under(importer, ["iron.options"])
        and _under(imported, ["iron.options"])
        and importer != "iron.options"
    ):
        mine = OPTIONS_ORDER.index(importer) if importer in OPTIONS_ORDER else 0
        return imported in OPTIONS_ORDER[:mine]
    mine, theirs = _layer(importer), _layer(imported)
    if mine is None or theirs is None:
        return False
    return theirs <= mine


def _refused(arrows) -> list[tuple[str, str]]:
    return sorted(a for a in arrows if not _allowed(*a))


def _cycles(arrows) -> list[list[str]]:
    """Import cycles of any length: the strongly connected components of more than one
    module (Tarjan), the package facade left out (it imports everything lazily, and the
    arrows into it are counted as the modules behind its names)."""
    graph: dict[str, list[str]] = {}
    for a, b in sorted(arrows):
        if "iron" not in (a, b):
            graph.setdefault(a, []).append(b)
            graph.setdefault(b, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:  # recursion depth is bounded by the module count (~200)
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return sorted(found)


def test_every_module_has_a_place():
    placed = {m for m, _ in _arrows()} | set(_tree())
    homeless = sorted(m for m in placed if m not in TOP and _layer(m) is None and not _under(m, [READ_SIDE]))
    assert not homeless, f"modules outside every layer of docs/ARCHITECTURE.md: {homeless}"


def test_every_options_module_has_a_place():
    options = sorted(m for m in _tree() if _under(m, ["iron.options"]) and m != "iron.options")
    assert options == sorted(OPTIONS_ORDER), "iron/options/ modules and OPTIONS_ORDER differ"


def test_imports_point_one_way():
    bad = [a for a in _refused(_arrows()) if a not in EXCEPTIONS]
    assert not bad, "imports against docs/ARCHITECTURE.md's layers:\n" + "\n".join(
        f"{a} -> {b}" for a, b in bad
    )


def test_no_import_cycles():
    cycles = _cycles(_arrows() - EXCEPTIONS.keys())
    assert not cycles, "modules importing each other (directly or round a longer loop):\n" + "\n".join(
        " <-> ".join(c) for c in cycles
    )


def test_every_exception_is_live():
    """Each EXCEPTIONS entry is an arrow of today's source that the rules or the cycle check
    would refuse without it; once fixed, the entry must go."""
    arrows = _arrows()
    refused = set(_refused(arrows))
    in_cycle = set()
    for component in _cycles(arrows):
        in_cycle |= {(a, b) for a, b in arrows if a in component and b in component}
    stale = sorted(a for a in EXCEPTIONS if a not in arrows or (a not in refused and a not in in_cycle))
    assert not stale, f"EXCEPTIONS entries no longer needed (remove them): {stale}"


def _with(tree: Tree, module: str, extra: str) -> Tree:
    """``tree`` with ``extra`` source appended to ``module``."""
    changed = dict(tree)
    is_package, source = changed[module]
    changed[module] = (is_package, source + "\n" + extra + "\n")
    return changed


def test_the_checker_sees_injected_bad_imports():
    """The whole checker on today's tree with one bad import injected: each is caught."""
    tree = _tree()
    base_refused, base_cycles = set(_refused(_arrows(tree))), _cycles(_arrows(tree))

    def new_refusals(t):
        return set(_refused(_arrows(t))) - base_refused

    # a facade back door: the target layer reaching the build through ``from iron import``
    assert ("iron.target.geometry", "iron.builder.build") in new_refusals(
        _with(tree, "iron.target.geometry", "def f():\n    from iron import build")
    )
    # the same through ``import iron`` and an attribute
    assert ("iron.mlir.ir", "iron.runtime.runner") in new_refusals(
        _with(tree, "iron.mlir.ir", "def f(a):\n    import iron\n    return iron.load(a)")
    )
    # a lazy facade name reaches its module
    assert ("iron.instrument.layout", "iron.fuse.fusion") in new_refusals(
        _with(tree, "iron.instrument.layout", "from iron import Sequence")
    )
    # importlib and __import__
    assert ("iron.operators.gemm", "iron.lower.npu") in new_refusals(
        _with(tree, "iron.operators.gemm", 'import importlib\nM = importlib.import_module("iron.lower.npu")')
    )
    assert ("iron.design", "iron.fuse.wire") in new_refusals(
        _with(tree, "iron.design", 'M = __import__("iron.fuse.wire")')
    )
    # a three-module cycle within one layer (each arrow allowed by the layers)
    cyclic = _with(
        _with(_with(tree, "iron.errors", "import iron.files"), "iron.files", "import iron.progress"),
        "iron.progress",
        "import iron.errors",
    )
    assert not new_refusals(cyclic)
    loop = {"iron.errors", "iron.files", "iron.progress"}
    assert not any(loop <= set(c) for c in base_cycles)
    assert any(loop <= set(c) for c in _cycles(_arrows(cyclic)))


def test_the_rules_catch_a_backward_arrow():
    """The checker itself: arrows the picture forbids are refused."""
    assert not _allowed("iron.target.geometry", "iron.mlir.ir")
    assert not _allowed("iron.mlir.printer", "iron.operators.gemm")
    assert not _allowed("iron.trace.decode", "iron.fuse.fusion")
    assert not _allowed("iron.runtime.xrt", "iron.builder.aiecc")
    assert not _allowed("iron.artifact.pdi", "iron.operators")
    assert not _allowed("iron.artifact.schema", "iron.runtime.runner")
    assert not _allowed("iron.fuse.fusion", "iron.builder.build")
    assert not _allowed("iron.artifact.manifest", "iron.instrument.codegen")
    assert not _allowed("iron.instrument.codegen", "iron.builder.cache")
    assert not _allowed("iron.trace.mlir_manifest", "iron.builder.build")
    assert _allowed("iron.fuse.fusion", "iron.artifact.schema")
    assert not _allowed("iron.lower.npu", "iron.trace.decode")
    assert _allowed("iron.lower.verify", "iron.artifact.manifest")
    assert _allowed("iron.trace.cli", "iron.artifact.elf")
    assert not _allowed("iron.options.parsers", "iron.options.table")
    assert not _allowed("iron.options.values", "iron.options")  # the package only re-exports
    assert _allowed("iron.options.table", "iron.options.parsers")
    assert _allowed("iron.options", "iron.options.resolving")


def test_decoding_loads_no_build_side_module():
    code = "import sys, iron.trace.decode; print('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    loaded = [m for m in out.split() if m.startswith("iron.")]
    allowed = [READ_SIDE, *READ_SIDE_MAY_IMPORT]
    parents = {p.rsplit(".", 1)[0] for p in allowed}  # packages of allowed modules (docstring-only inits)
    build_side = [m for m in loaded if not _under(m, allowed) and m not in parents]
    assert not build_side, f"import iron.trace.decode loads the build side: {build_side}"
