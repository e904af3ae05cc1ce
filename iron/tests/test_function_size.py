"""No function in ``iron/`` (tests excluded) is over 60 lines, except the numba kernels (issue 29).

A function's length is what ``ast`` gives for its ``def``: ``end_lineno - lineno + 1``
(signature, docstring and body; decorators not counted). Methods and nested functions
count on their own.

The kernels are found in the code, not listed by hand: a module-level function handed by
name to :mod:`iron.trace.jit`'s ``jit``, ``kernel`` or ``plain`` (how every module hands
its kernels over, e.g. ``kernel(scan_ops, method)``), where it is defined or imported
from. A kernel is one loop numba compiles as a whole, so it stays in one piece; whatever
else sits beside it (its numpy twin, its driver) is held to the limit.
"""

from __future__ import annotations

import ast
import functools
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 60
JIT_MODULE = "iron.trace.jit"
#: iron.trace.jit's functions whose first argument is a kernel (compiled, or run as plain Python).
COMPILERS = ("jit", "kernel", "plain")
#: Functions over the limit that another branch is rewriting now (issue 29); each entry must
#: still be over the limit (``test_every_pending_entry_is_live``), so the list empties itself.
PENDING: dict[tuple[str, str], str] = {}

#: A source tree: module name -> source text.
Tree = dict[str, str]


@functools.cache
def _tree() -> Tree:
    """iron's modules (tests excluded) with their source."""
    out = {}
    for path in sorted(ROOT.rglob("*.py")):
        if "tests" in path.relative_to(ROOT).parts:
            continue
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path.read_text()
    return out


def function_lengths(tree: Tree) -> dict[tuple[str, str], int]:
    """Lines of every function: ``(module, qualified name)`` -> length (``Class.method``,
    ``outer.inner`` for nested ones)."""
    out = {}

    def visit(module: str, node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                out[module, name] = child.end_lineno - child.lineno + 1
                visit(module, child, name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(module, child, prefix + child.name + ".")
            else:
                visit(module, child, prefix)

    for module, source in tree.items():
        visit(module, ast.parse(source), "")
    return out


def _compiler_names(module: str, root: ast.Module) -> tuple[set[str], set[str]]:
    """Names this module calls the compilers by (``jit``, an alias) and names it gives
    the ``iron.trace.jit`` module itself (``J`` in ``J.jit(f)``)."""
    direct, modules = set(), set()
    if module == JIT_MODULE:
        direct |= set(COMPILERS)
    for node in ast.walk(root):
        if isinstance(node, ast.ImportFrom) and node.module == JIT_MODULE:
            direct |= {a.asname or a.name for a in node.names if a.name in COMPILERS}
        elif isinstance(node, ast.ImportFrom) and node.module == JIT_MODULE.rpartition(".")[0]:
            modules |= {a.asname or a.name for a in node.names if a.name == "jit"}
        elif isinstance(node, ast.Import):
            modules |= {a.asname for a in node.names if a.name == JIT_MODULE and a.asname}
    return direct, modules


def kernels(tree: Tree) -> set[tuple[str, str]]:
    """``(module, function)`` of every module-level function handed to a compiler, by the
    module that defines it."""
    found = set()
    for module, source in tree.items():
        root = ast.parse(source)
        direct, modules = _compiler_names(module, root)
        defined = {n.name for n in root.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        imported = {
            a.asname or a.name: (n.module, a.name)
            for n in root.body
            if isinstance(n, ast.ImportFrom) and n.module
            for a in n.names
        }
        for call in ast.walk(root):
            if not isinstance(call, ast.Call) or not call.args or not isinstance(call.args[0], ast.Name):
                continue
            f = call.func
            by_name = isinstance(f, ast.Name) and f.id in direct
            by_module = (
                isinstance(f, ast.Attribute)
                and f.attr in COMPILERS
                and isinstance(f.value, ast.Name)
                and f.value.id in modules
            )
            if not (by_name or by_module):
                continue
            name = call.args[0].id
            if name in defined:
                found.add((module, name))
            elif name in imported:
                found.add(imported[name])
    return found


def too_long(tree: Tree) -> dict[tuple[str, str], int]:
    """Functions over :data:`MAX_LINES`, kernels left out."""
    exempt = kernels(tree)
    return {k: n for k, n in function_lengths(tree).items() if n > MAX_LINES and k not in exempt}


def test_no_function_over_60_lines_but_the_kernels():
    long = {k: n for k, n in too_long(_tree()).items() if k not in PENDING}
    assert not long, f"functions over {MAX_LINES} lines (split them into named steps):\n" + "\n".join(
        f"  {n} lines: {m}.{f}" for (m, f), n in sorted(long.items())
    )


def test_the_kernels_found_are_functions_of_the_tree():
    """The finder sees the kernels (a finder that saw none would exempt nothing, and the
    test above would say so), and each one it names is a module-level function."""
    tree = _tree()
    found = kernels(tree)
    lengths = function_lengths(tree)
    assert found and all(k in lengths for k in found), sorted(found)


def test_every_pending_entry_is_live():
    lengths = function_lengths(_tree())
    stale = [k for k in PENDING if lengths.get(k, 0) <= MAX_LINES]
    assert not stale, f"no longer over {MAX_LINES} lines (or gone): drop them from PENDING: {stale}"


# ----------------------------------------------------------------------------- self-test
def _function(name: str, lines: int, body_indent: str = "    ") -> str:
    """Source of a function of ``lines`` lines in all."""
    return f"def {name}(x):\n" + f"{body_indent}x += 1\n" * (lines - 2) + f"{body_indent}return x\n"


def test_self_test_a_61_line_function_is_caught_and_60_is_not():
    tree = {"iron.a": _function("ok", 60) + _function("long", 61)}
    assert function_lengths(tree)[("iron.a", "ok")] == 60
    assert too_long(tree) == {("iron.a", "long"): 61}


def test_self_test_methods_and_nested_functions_count_on_their_own():
    method = textwrap.indent(_function("step", 61), "    ")
    nested = textwrap.indent(_function("inner", 61), "    ")
    tree = {"iron.a": "class C:\n" + method + "\n\ndef outer():\n" + nested + "    return inner\n"}
    assert set(too_long(tree)) == {("iron.a", "C.step"), ("iron.a", "outer"), ("iron.a", "outer.inner")}


def test_self_test_only_functions_handed_to_the_compilers_are_exempt():
    tree = {
        "iron.trace.k": (
            "from iron.trace.jit import jit, kernel as compiled\n"
            + _function("_kernel_a", 61)
            + _function("_kernel_b", 61)
            + _function("_driver", 61)
            + "def run(m):\n    return jit(_kernel_a), compiled(_kernel_b, m), _driver\n"
        ),
        # a kernel defined elsewhere and handed over here, through the module's name
        "iron.trace.user": (
            "from iron.trace import jit as J\nfrom iron.trace.k import _driver\n"
            "def run(m):\n    return J.plain(_driver)\n"
        ),
        # the same name handed to another module's jit is not exempt
        "iron.other": _function("_kernel_a", 61) + "def jit(f):\n    return f\n\n\njit(_kernel_a)\n",
    }
    assert kernels(tree) == {
        ("iron.trace.k", "_kernel_a"),
        ("iron.trace.k", "_kernel_b"),
        ("iron.trace.k", "_driver"),
    }
    tree["iron.trace.user"] = "from iron.trace.k import _driver\n"  # no longer handed over
    assert set(too_long(tree)) == {("iron.trace.k", "_driver"), ("iron.other", "_kernel_a")}
