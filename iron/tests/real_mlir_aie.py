"""The real mlir-aie compiler that the real-compiler tests ask.

Found in this order:

1. ``IRON_REAL_MLIR_AIE``: an mlir-aie install folder (``bin/aie-opt``, ``bin/aiecc``);
2. ``MLIR_AIE_INSTALL_DIR``, when its ``bin/aie-opt`` runs;
3. ``shared/tools/mlir-aie-oracle`` beside the repository: mlir-aie a9e39fae (2026-08-13),
   aie-opt / aie-translate / the C++ aiecc built against Debian's LLVM 22 (that folder's
   README says what it has and lacks). The script extracts it once and installs
   ``libllvm22`` when it can (root on Debian, as CI is).

Where none gives an ``aie-opt`` that runs, :func:`require` skips the calling test with
one line saying why. Object FIFOs are always lowered statically here
(``--dynamic-objFifos=false``): the dynamic mode needs an MLIR newer than 22.1.
"""

from __future__ import annotations

import functools
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ORACLE = REPO.parent / "shared" / "tools" / "mlir-aie-oracle"


def _oracle() -> Path:
    """The oracle script beside this checkout, or beside the main checkout of a git worktree
    (whose ``.git`` file points into the main checkout's ``.git``)."""
    if ORACLE.is_file():
        return ORACLE
    git = REPO / ".git"
    if git.is_file() and git.read_text().startswith("gitdir:"):
        main = Path(git.read_text().split(":", 1)[1].strip()).parents[2]  # <main>/.git/worktrees/<name>
        beside = main.parent / "shared" / "tools" / "mlir-aie-oracle"
        if beside.is_file():
            return beside
    return ORACLE


#: aiecc flags every lowering here uses (static object FIFOs, no progress line).
AIECC_FLAGS = ("--dynamic-objFifos=false", "--no-progress")


@dataclass(frozen=True)
class Install:
    """One real mlir-aie install."""

    root: Path

    @property
    def aie_opt(self) -> str:
        return str(self.root / "bin" / "aie-opt")

    @property
    def aiecc(self) -> str:
        return str(self.root / "bin" / "aiecc")

    @property
    def aie_translate(self) -> str:
        return str(self.root / "bin" / "aie-translate")


def _runs(root: Path) -> bool:
    try:
        out = subprocess.run([str(root / "bin" / "aie-opt"), "--version"], capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0


@functools.lru_cache(maxsize=None)
def find() -> Install | str:
    """The install, or one line saying why there is none."""
    for var in ("IRON_REAL_MLIR_AIE", "MLIR_AIE_INSTALL_DIR"):
        given = os.environ.get(var)
        if given and _runs(Path(given)):
            return Install(Path(given))
        if given and var == "IRON_REAL_MLIR_AIE":
            return f"{var}={given} has no bin/aie-opt that runs"
    oracle = _oracle()
    if not oracle.is_file():
        return (
            f"no real mlir-aie: set IRON_REAL_MLIR_AIE, or keep shared/tools beside the repository ({oracle})"
        )
    try:
        out = subprocess.run([str(oracle)], capture_output=True, text=True, timeout=900)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{oracle} did not run: {exc}"
    lines = (out.stderr or "").strip().splitlines()
    if out.returncode != 0:
        return f"{oracle} gives no mlir-aie here: {lines[-1] if lines else f'exit {out.returncode}'}"
    root = Path(out.stdout.strip())
    return Install(root) if _runs(root) else f"{root}/bin/aie-opt does not run"


def prefer(mp, install: Install) -> None:
    """Make iron use ``install`` through ``mp`` (a pytest MonkeyPatch): its ``bin`` first on
    PATH (so ``aiecc`` and the ``aie-opt`` beside it are the real ones, also on a staged machine
    whose fake aiecc is on PATH) and ``MLIR_AIE_INSTALL_DIR``; iron then prints the era it reads."""
    mp.setenv("PATH", f"{install.root / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")
    mp.setenv("MLIR_AIE_INSTALL_DIR", str(install.root))


def require() -> Install:
    """The install, or skip the calling test with the reason."""
    found = find()
    if isinstance(found, str):
        pytest.skip(f"real mlir-aie: {found}")
    return found


def aie_opt(text: str, *args: str) -> subprocess.CompletedProcess:
    """Run the real ``aie-opt`` on ``text`` with ``args`` (passes); output on stdout."""
    install = require()
    return subprocess.run(
        [install.aie_opt, *args, "-"], input=text, capture_output=True, text=True, timeout=300
    )


def verify(text: str) -> str:
    """ "" when the real ``aie-opt`` parses and verifies ``text``, else its first error line."""
    out = aie_opt(text)
    if out.returncode == 0:
        return ""
    lines = out.stderr.strip().splitlines() or [f"exit {out.returncode}"]
    return next((line for line in lines if "error" in line), lines[0])


#: The instruction binaries aiecc writes: the xclbin flow's ``insts_<key>.bin`` (the DDR
#: aperture offset folded into patches of host arguments from 5 on), and the ones it hands
#: aiebu for a full ELF (unfolded: a9e39fae ``tools/aiecc/aiecc.cpp``,
#: ``buildNpuProgramSubgraph(perSeq, "npu_program_full_elf_{0}.bin", false)``).
XCLBIN_INSTS = "insts_{0}.bin"
FULL_ELF_INSTS = "npu_insts_full_elf_{0}.bin"


def _aiecc(text: str, get: str, flags: tuple) -> dict[str, bytes]:
    """Run the real aiecc on ``text`` asking for output(s) ``get``; every file it wrote in its
    output folder (name -> bytes). Raises AssertionError with aiecc's output when it fails."""
    install = require()
    with tempfile.TemporaryDirectory(prefix="iron-real-aiecc-") as tmp:
        src = Path(tmp) / "design.mlir"
        src.write_text(text)
        out = subprocess.run(
            [install.aiecc, *AIECC_FLAGS, *flags, f"--get={get}", f"--tmpdir={tmp}/prj", str(src)],
            capture_output=True,
            text=True,
            cwd=tmp,
            timeout=600,
        )
        assert out.returncode == 0, f"real aiecc failed:\n{out.stdout}\n{out.stderr}"
        return {p.name: p.read_bytes() for p in sorted(Path(tmp).iterdir()) if p.is_file() and p != src}


def aiecc_insts(text: str, *flags: str, get: str = XCLBIN_INSTS) -> dict[str, bytes]:
    """The NPU instruction binaries the real aiecc writes for ``text``: runtime-sequence
    name (``<device>_<sequence>``, as aiecc expands ``{0}`` of ``get``) -> bytes. ``get``:
    :data:`XCLBIN_INSTS` or :data:`FULL_ELF_INSTS`. Raises AssertionError with aiecc's
    output when it fails."""
    head, tail = get.split("{0}")
    written = _aiecc(text, get, flags)
    return {
        name[len(head) : len(name) - len(tail)]: data
        for name, data in written.items()
        if name.startswith(head) and name.endswith(tail)
    }


def aiecc_output(text: str, edge: str, *flags: str) -> str:
    """The text of one intermediate of the real aiecc's pipeline for ``text``: ``edge`` is its
    name in ``aiecc --emit-dot`` (e.g. ``npu_materialized.mlir``, after aiecc's own
    ``aie-materialize-runtime-sequences``). Raises AssertionError with aiecc's output when it fails."""
    return _aiecc(text, edge, flags)[edge].decode()


#: The chunk marker of ``aie-opt --split-input-file`` (MLIR's default).
SPLIT = "// -----"


def verify_many(texts: dict[str, str]) -> dict[str, str]:
    """Each module of ``texts`` (name -> text) verified by the real ``aie-opt`` in one run
    (``--split-input-file``): name -> its first error line ("" when it verifies)."""
    install = require()
    names, chunks, starts, line = list(texts), [], [], 1
    for name in names:
        starts.append(line)
        chunks.append(texts[name].rstrip("\n"))
        line += chunks[-1].count("\n") + 2  # the chunk's lines and the marker's
    batch = f"\n{SPLIT}\n".join(chunks) + "\n"
    with tempfile.TemporaryDirectory(prefix="iron-real-verify-") as tmp:
        src = Path(tmp) / "batch.mlir"
        src.write_text(batch)
        out = subprocess.run(
            [install.aie_opt, "--split-input-file", str(src), "-o", os.devnull],
            capture_output=True,
            text=True,
            timeout=600,
        )
    errors = {name: "" for name in names}
    for err in out.stderr.splitlines():
        head = err.split(":")
        if len(head) > 3 and head[0] == str(src) and head[1].isdigit() and "error" in head[3]:
            k = max(i for i, s in enumerate(starts) if s <= int(head[1]))
            errors[names[k]] = errors[names[k]] or f"line {int(head[1]) - starts[k] + 1}:{':'.join(head[2:])}"
    if out.returncode != 0 and not any(errors.values()):
        errors = {name: out.stderr.strip() or f"exit {out.returncode}" for name in names}
    return errors
