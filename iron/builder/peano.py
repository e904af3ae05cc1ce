"""Compile the kernels a design links with Peano (llvm-aie), for the real toolchain.

A :class:`~iron.design.KernelObject` names a kernel of iron's table
(:mod:`iron.target.kernels`), the core architecture and its ``-D`` values. Here that
becomes a file and a command line:

* **layout**: which ``aie_kernels/`` layout the install has is read from the files present
  (:func:`detect_layout`), never from a version number;
* **flags**: the command of mlir-aie's ``cxx_core_compile_command``
  (``python/utils/compile/utils.py``@b37b11df): ``-D__AIE_API_AIE_ADF_HPP__`` (stock
  aie_api since PR #3262), ``--system-header-prefix=aie_api/ -Werror=undef`` and
  ``-ffunction-sections -fdata-sections -fstack-size-section``. The older-layout kernels
  were written before ``-Werror=undef``, so that layout gets the command without the
  ``-Werror=undef`` pair (as the helper of those wheels, ``utils.py``@00b33bd6);
* **companions**: aie2 LUT kernels are compiled through ``common/lut_kernel.cc`` with
  ``-DAIE_LUT_KERNEL_SOURCE="<source>"`` (family layout) or with ``lut_based_ops.cpp``
  ``-include`` d (older layout); the family GEMM object ``-include`` s ``zero/zero.cc``
  and its ``zero`` is renamed ``zero_<t>`` (``llvm-objcopy --redefine-sym``);
* **symbol check** before anything is compiled: the source is preprocessed with the
  same flags (``clang++ -E``) and every function the design declares must be defined in
  an ``extern "C"`` block with the declared parameter count (:func:`check_symbols`);
* **cache**: each object is kept under ``kernels/<key>.o`` where the key covers the
  compiler identity, the mlir-aie version, the command line and the bytes of every
  source compiled in (an mlir-aie upgrade never reuses an object of old sources), and
  copied into aiecc's working directory under the design's ``link_with`` name.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sysconfig
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from iron import options
from iron.files import atomic_write
from iron.builder.toolchain import ToolchainError, installed_version
from iron.design import KernelObject
from iron.mlir import ir
from iron.target import kernels as table

#: Flags of ``cxx_core_compile_command`` before the include folders (family layout).
CXX_FLAGS = (
    "-std=c++20",
    "-Wno-parentheses",
    "-Wno-attributes",
    "-Wno-macro-redefined",
    "-Wno-empty-body",
    "--system-header-prefix=aie_api/",
    "-Werror=undef",
    "-O2",
    "-DNDEBUG",
    "-D__AIE_API_AIE_ADF_HPP__",
)
#: Object-only flags (aiecc's stack-size analysis reads ``.stack_sizes`` per function).
OBJECT_FLAGS = ("-ffunction-sections", "-fdata-sections", "-fstack-size-section")
#: Dropped for the older layout, whose kernels predate ``-Werror=undef``.
NEW_ONLY_FLAGS = ("--system-header-prefix=aie_api/", "-Werror=undef")
#: Files whose presence says the layout (relative to ``aie_kernels``).
LAYOUT_MARKERS = {table.FAMILY: "linalg/mm.cc", table.ARCH_DIRS: "aie2p/mm.cc"}
#: The output path the cache key's command line is built with (the real one is a temp file).
KEY_OUTPUT = Path("kernel.o")
#: iron's own kernel sources (package data).
IRON_KERNELS = Path(__file__).resolve().parents[1] / "kernels"


def mlir_aie_root(env=None) -> Path:
    """mlir-aie's install folder: ``MLIR_AIE_INSTALL_DIR``, else the folder above ``bin/aiecc``."""
    given = options.toolchain_dirs(env)["MLIR_AIE_INSTALL_DIR"]
    if given is not None:
        return given
    exe = shutil.which("aiecc")
    if exe is None:
        raise ToolchainError("cannot find mlir-aie: aiecc is not on PATH and MLIR_AIE_INSTALL_DIR is unset")
    return Path(exe).resolve().parent.parent


def find_peano(env=None) -> Path:
    """Peano's install folder, looked for where mlir-aie's aiecc looks."""
    given = options.toolchain_dirs(env)["PEANO_INSTALL_DIR"]
    root = mlir_aie_root(env)
    places = [given] if given is not None else []
    places += [root / "peano", root.parent / "peano", Path(sysconfig.get_path("platlib")) / "llvm-aie"]
    for place in places:
        if (place / "bin" / "clang++").exists():
            return place
    looked = ", ".join(str(p) for p in places)
    raise ToolchainError(f"cannot find Peano (llvm-aie): no bin/clang++ in {looked}; set PEANO_INSTALL_DIR")


def kernels_dir(root: Path) -> Path:
    """The install's ``aie_kernels`` folder (wheel: ``<root>/include/aie_kernels``)."""
    places = [root / "aie_kernels", root / "include" / "aie_kernels"]
    for place in places:
        if any((place / m).is_file() for m in LAYOUT_MARKERS.values()):
            return place
    looked = ", ".join(str(p / m) for p in places for m in LAYOUT_MARKERS.values())
    raise ToolchainError(
        f"the mlir-aie install at {root} has no kernel sources iron knows: looked for {looked} "
        f"(layouts iron supports: {', '.join(table.LAYOUTS)})"
    )


def detect_layout(kdir: Path) -> str:
    """``family`` or ``arch``, from the files present under ``aie_kernels``."""
    for layout, marker in LAYOUT_MARKERS.items():
        if (kdir / marker).is_file():
            return layout
    raise ToolchainError(f"{kdir}: neither {' nor '.join(LAYOUT_MARKERS.values())} exists")


@dataclass
class Recipe:
    """How one object is built: the file compiled, its defines, the companions and renames."""

    obj: KernelObject
    layout: str
    source: Path  # the file handed to clang++
    checked: Path  # the file whose symbols are checked (the kernel source itself)
    defines: dict[str, str]
    extra: list[str] = field(default_factory=list)  # -include / -I of companions
    inputs: list[Path] = field(default_factory=list)  # every source whose bytes key the object
    renames: dict[str, str] = field(default_factory=dict)


def recipe(obj: KernelObject, root: Path, kdir: Path | None = None) -> Recipe:
    """Resolve ``obj`` against the install at ``root``."""
    src = table.kernel(obj.source)
    defines = dict(obj.defines)
    if src.iron_own:
        path = IRON_KERNELS / src.path("iron", obj.arch)
        if not path.is_file():
            raise ToolchainError(f"iron's own kernel source {path} is missing (a broken iron install)")
        return Recipe(obj, "iron", path, path, defines, inputs=[path])
    kdir = kdir or kernels_dir(root)
    layout = detect_layout(kdir)
    path = kdir / src.path(layout, obj.arch)
    if not path.is_file():
        raise ToolchainError(
            f"kernel source {src.path(layout, obj.arch)} not found in the mlir-aie install "
            f"({layout} layout at {kdir}); looked at {path}"
        )
    defines.update(table.layout_defines(src, layout, defines))
    r = Recipe(
        obj, layout, path, path, defines, inputs=[path], renames=table.layout_renames(src, layout, defines)
    )
    if layout in src.include:
        comp = kdir / src.include[layout]
        _need(comp, root)
        r.extra += [f"-include{comp}"]
        r.inputs.append(comp)
    if obj.arch in src.lut_on:
        runtime = root / "aie_runtime_lib" / table.RUNTIME_DIRS[obj.arch]
        if layout == table.FAMILY:
            wrapper = kdir / "common" / "lut_kernel.cc"
            _need(wrapper, root)
            r.source = wrapper
            r.extra += [f'-DAIE_LUT_KERNEL_SOURCE="{path}"', f"-I{runtime}"]
            r.inputs.append(wrapper)
        else:
            r.extra += [f"-include{runtime / 'lut_based_ops.cpp'}"]
        _need(runtime / "lut_based_ops.cpp", root)
        r.inputs.append(runtime / "lut_based_ops.cpp")
    return r


def _need(path: Path, root: Path) -> None:
    if not path.is_file():
        raise ToolchainError(
            f"{path} (a companion source iron compiles in) is missing from the mlir-aie install {root}"
        )


def compile_command(r: Recipe, out: Path, peano: Path, root: Path, *, preprocess: bool = False) -> list[str]:
    """The clang++ argv that compiles ``r`` (``preprocess``: the same with ``-E``)."""
    flags = [f for f in CXX_FLAGS if r.layout == table.FAMILY or f not in NEW_ONLY_FLAGS]
    emit = ["-E"] if preprocess else ["-c"]
    argv = [str(peano / "bin" / "clang++"), str(r.source), *emit, "-o", str(out), f"-I{root / 'include'}"]
    argv += flags
    if not preprocess:
        argv += ["-MD", "-MF", f"{out}.d"]
    argv.append(f"--target={r.obj.arch}-none-unknown-elf")
    if not preprocess:
        argv += OBJECT_FLAGS
    includes = [
        r.checked.parent,
        r.checked.parent.parent,
        root / "aie_runtime_lib" / table.RUNTIME_DIRS[r.obj.arch],
    ]
    for p in includes:
        argv += ["-I", str(p)]
    argv += r.extra
    argv += [f"-D{k}={v}" for k, v in sorted(r.defines.items())]
    return argv


# --------------------------------------------------------------------------- symbol check
_EXTERN_BLOCK = re.compile(r'extern\s+"C"\s*\{')
_EXTERN_ONE = re.compile(r'extern\s+"C"\s+(?!\{)')
_FUNC = re.compile(r"\b([A-Za-z_]\w*)\s*\(([^()]*)\)\s*(?:noexcept\s*)?\{")


def c_definitions(text: str) -> dict[str, int]:
    """``{name: parameter count}`` of the functions preprocessed C++ ``text`` defines with
    C linkage (inside ``extern "C" { ... }`` at its top level, or ``extern "C" <def>``)."""
    text = re.sub(r"^\s*#.*$", "", text, flags=re.M)  # line markers
    found: dict[str, int] = {}
    for m in _EXTERN_BLOCK.finditer(text):
        depth, i, start = 1, m.end(), m.end()
        top = []  # text at depth 1 only: function heads, not their bodies
        while i < len(text) and depth:
            c = text[i]
            if c == "{":
                if depth == 1:
                    top.append(text[start : i + 1])
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 1:
                    start = i + 1
            i += 1
        for chunk in top:
            for f in _FUNC.finditer(chunk):
                found[f.group(1)] = _count(f.group(2))
    for m in _EXTERN_ONE.finditer(text):
        f = _FUNC.search(text, m.end())
        if f is not None and ";" not in text[m.end() : f.start()]:
            found[f.group(1)] = _count(f.group(2))
    return found


def _count(params: str) -> int:
    params = params.strip()
    return 0 if params in ("", "void") else params.count(",") + 1


def _fixed_hint(sym: str, have: dict[str, int]) -> str:
    """For a missing runtime-size entry: the fixed-count entry this source has instead."""
    try:
        src, e = table.entry(sym)
    except table.KernelTableError:
        return ""
    if e.size_param is None:
        return ""
    fixed = [x for x in src.entries if x.count is not None and x.symbol in have]
    if not fixed:
        return ""
    return (
        f"; runtime-size entries came with mlir-aie PR #3740: with this install use "
        f"tile_size={fixed[0].count} ({fixed[0].symbol}) or a newer mlir-aie"
    )


def check_symbols(r: Recipe, wanted: dict[str, int], defined: dict[str, int], root: Path) -> None:
    """Every ``wanted`` symbol (after the recipe's renames) defined with that arity, else one
    :class:`ToolchainError` naming symbol, file, what it defines and the install."""
    have = {r.renames.get(k, k): v for k, v in defined.items()}
    bad = []
    for sym, n in wanted.items():
        if sym not in have:
            bad.append(f"{sym} (not defined{_fixed_hint(sym, have)})")
        elif have[sym] != n:
            bad.append(f"{sym} (defined with {have[sym]} parameters, the design passes {n})")
    if bad:
        listing = ", ".join(f"{k}/{v}" for k, v in sorted(have.items())) or "nothing with C linkage"
        where = (
            f"iron's own kernels ({IRON_KERNELS})"
            if r.layout == "iron"
            else f"the mlir-aie install {root} ({r.layout} layout)"
        )
        raise ToolchainError(
            f"kernel {r.checked} compiled with {' '.join(f'-D{k}={v}' for k, v in sorted(r.defines.items())) or 'no defines'}"
            f" lacks {'; '.join(bad)}; it defines {listing}; in {where}"
        )


def declared_funcs(module) -> dict[str, dict[str, tuple[str, ...]]]:
    """``{object: {symbol: parameter types}}`` of every ``func.func private @f(...)
    attributes {link_with = "x.o"}`` in an :class:`iron.mlir.ir.Module`."""
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for device in module.devices:
        for op in device.body:
            if isinstance(op, ir.FuncDecl) and op.link_with:
                out.setdefault(op.link_with, {})[op.name] = tuple(op.types)
    return out


# --------------------------------------------------------------------------- compile
def compiler_identity(peano: Path) -> str:
    """First line of ``clang++ --version`` plus the install path (different builds, different objects)."""
    exe = peano / "bin" / "clang++"
    try:
        st = exe.stat()
    except OSError as exc:
        raise ToolchainError(f"cannot run {exe} --version: {exc}") from None
    return _identity(str(peano), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=16)
def _identity(peano: str, _mtime: int, _size: int) -> str:
    """One ``--version`` run per compiler file (keyed on its path, mtime and size)."""
    peano = Path(peano)
    try:
        out = subprocess.run(
            [str(peano / "bin" / "clang++"), "--version"], capture_output=True, text=True, timeout=60
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ToolchainError(f"cannot run {peano / 'bin' / 'clang++'} --version: {exc}") from None
    first = (out.stdout or out.stderr).strip().splitlines()[:1]
    return f"{first[0] if first else 'unknown'} @ {peano}"


def object_key(r: Recipe, argv: list[str], compiler: str, mlir_aie: str | None) -> str:
    """Cache key of one object: compiler, mlir-aie version, command (built with a fixed
    output name, :data:`KEY_OUTPUT`), renames and the bytes of every source compiled in."""
    h = hashlib.sha256()
    for part in (compiler, str(mlir_aie), repr(argv[1:]), repr(sorted(r.renames.items()))):
        h.update(part.encode() + b"\0")
    for p in r.inputs:
        h.update(p.read_bytes() + b"\0")
    return h.hexdigest()[:24]


def _run(argv: list[str], what: str) -> subprocess.CompletedProcess:
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-20:])
        raise ToolchainError(f"Peano failed on {what} (exit {proc.returncode}): {' '.join(argv)}\n{tail}")
    return proc


def compile_kernels(
    kernels: list[KernelObject], work: Path, cache_dir: Path, status=None, funcs: dict | None = None
) -> list[Path]:
    """Check, compile (or take from the cache) every distinct object and copy it into ``work``.

    ``funcs`` maps an object name to ``{symbol: parameter types}`` of the functions the
    design declares with ``link_with`` = that object (checked before compiling)."""
    distinct = {k.name: k for k in kernels}
    if not distinct:
        return []
    peano, root = find_peano(), mlir_aie_root()
    compiler, version = compiler_identity(peano), installed_version()
    store = cache_dir / "kernels"
    store.mkdir(parents=True, exist_ok=True)
    placed = []
    for name, obj in distinct.items():
        r = recipe(obj, root)
        with tempfile.TemporaryDirectory(dir=store, prefix=".tmp-") as tmp:
            out = Path(tmp) / name
            argv = compile_command(r, out, peano, root)
            key = object_key(r, compile_command(r, KEY_OUTPUT, peano, root), compiler, version)
            cached = store / f"{Path(name).stem}-{key}.o"
            symbols = cached.with_suffix(".symbols.json")  # what the source defines, same key
            if symbols.is_file():
                defined = json.loads(symbols.read_text())
            else:
                pre = Path(tmp) / "pre.ii"
                _run(compile_command(r, pre, peano, root, preprocess=True), f"{r.checked} (preprocessing)")
                defined = c_definitions(pre.read_text(errors="replace"))
            wanted = {s: len(t) for s, t in (funcs or {}).get(name, {}).items()}
            check_symbols(r, wanted, defined, root)
            if not cached.is_file():
                if status is not None:
                    status.step(f"compiling {r.checked.name} -> {name}")
                _run(argv, str(r.checked))
                if not out.is_file():
                    raise ToolchainError(f"Peano wrote no object for {r.checked}: {' '.join(argv)}")
                if r.renames:
                    objcopy = peano / "bin" / "llvm-objcopy"
                    if not objcopy.is_file():
                        raise ToolchainError(
                            f"{objcopy} is missing: iron renames {', '.join(r.renames)} in {name} with it "
                            f"(the {r.layout}-layout GEMM object folds zero/zero.cc in, as amd/IRON does)"
                        )
                    ren = [f"--redefine-sym={a}={b}" for a, b in sorted(r.renames.items())]
                    _run([str(objcopy), *ren, str(out)], f"{out.name} (renaming {', '.join(r.renames)})")
                os.replace(out, cached)  # atomic: a concurrent build sees all or nothing
            if not symbols.is_file():
                atomic_write(symbols, json.dumps(defined, sort_keys=True))
        shutil.copyfile(cached, work / name)
        placed.append(work / name)
    return placed
