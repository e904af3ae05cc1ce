"""Compile the kernels a design links with Peano (llvm-aie), for the real toolchain.

Each :class:`~iron.design.KernelObject` names its source under mlir-aie's installed
``aie_kernels``, the core architecture and its ``-D`` values; its object name differs
whenever one of those does. iron compiles each distinct object once per compiler
(the command line of mlir-aie's ``aie.utils.compile``, ``compile_cxx_core_function``),
keeps it in the build cache under ``kernels/<compiler>/`` and copies it into aiecc's
working directory, where aiecc resolves ``link_with`` names (relative to its cwd).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess

import sysconfig
import tempfile
from pathlib import Path

from iron import options
from iron.artifact.toolchain import ToolchainError
from iron.design import KernelObject

#: Flags mlir-aie's ``compile_cxx_core_function`` passes to Peano's clang++.
CXX_FLAGS = (
    "-std=c++20",
    "-Wno-parentheses",
    "-Wno-attributes",
    "-Wno-macro-redefined",
    "-Wno-empty-body",
    "-O2",
    "-DNDEBUG",
)
#: Runtime headers per core architecture (``aie_runtime_lib/<dir>``).
RUNTIME_DIRS = {"aie2": "AIE2", "aie2p": "AIE2P"}


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


def kernel_source(obj: KernelObject, root: Path) -> Path:
    """The installed source of ``obj``; one clear error naming where iron looked."""
    places = [root / "aie_kernels", root / "include" / "aie_kernels"]
    for place in places:
        if (place / obj.source).is_file():
            return place / obj.source
    looked = ", ".join(str(p / obj.source) for p in places)
    raise ToolchainError(f"kernel source {obj.source} not found in the mlir-aie install; looked at {looked}")


def compile_command(obj: KernelObject, source: Path, out: Path, peano: Path, root: Path) -> list[str]:
    """The clang++ argv that compiles ``obj``."""
    includes = [
        source.parent,
        source.parent.parent,
        root / "include",
        root / "aie_runtime_lib" / RUNTIME_DIRS[obj.arch],
    ]
    argv = [str(peano / "bin" / "clang++"), str(source), "-c", "-o", str(out), *CXX_FLAGS]
    argv.append(f"--target={obj.arch}-none-unknown-elf")
    argv += [f"-I{p}" for p in includes]
    argv += [f"-D{k}={v}" for k, v in obj.defines]
    return argv


def compiler_identity(peano: Path) -> str:
    """First line of ``clang++ --version`` plus the install path (different builds, different objects)."""
    try:
        out = subprocess.run(
            [str(peano / "bin" / "clang++"), "--version"], capture_output=True, text=True, timeout=60
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ToolchainError(f"cannot run {peano / 'bin' / 'clang++'} --version: {exc}") from None
    first = (out.stdout or out.stderr).strip().splitlines()[:1]
    return f"{first[0] if first else 'unknown'} @ {peano}"


def compile_kernels(kernels: list[KernelObject], work: Path, cache_dir: Path, status=None) -> list[Path]:
    """Compile (or take from the cache) every distinct object and copy it into ``work``."""
    distinct = {k.name: k for k in kernels}
    if not distinct:
        return []
    peano, root = find_peano(), mlir_aie_root()
    tag = hashlib.sha1(compiler_identity(peano).encode()).hexdigest()[:12]
    store = cache_dir / "kernels" / tag
    store.mkdir(parents=True, exist_ok=True)
    placed = []
    for name, obj in distinct.items():
        cached = store / name
        if not cached.is_file():
            source = kernel_source(obj, root)
            if status is not None:
                status.step(f"compiling {obj.source} -> {name}")
            with tempfile.TemporaryDirectory(dir=store, prefix=".tmp-") as tmp:
                out = Path(tmp) / name
                argv = compile_command(obj, source, out, peano, root)
                proc = subprocess.run(argv, capture_output=True, text=True)
                if proc.returncode != 0 or not out.is_file():
                    tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-20:])
                    raise ToolchainError(
                        f"Peano failed on {obj.source} (exit {proc.returncode}): {' '.join(argv)}\n{tail}"
                    )
                os.replace(out, cached)  # atomic: a concurrent build sees all or nothing
        shutil.copyfile(cached, work / name)
        placed.append(work / name)
    return placed
