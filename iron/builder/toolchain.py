"""Which mlir-aie iron targets, how it is found, and what identifies it in the cache key.

iron prints today's mlir-aie syntax (SSA npu ops, PR #3225: ``aiex.npu.write32(%a, %v)
{column, row} : i32, i32``, ``aiex.npu.address_patch(%off : i32) {addr, arg_idx}``).
Whether an install reads it is asked of mlir-aie's own parser: ``aie-opt`` (shipped
beside aiecc in the wheel's ``bin``) must accept :data:`GRAMMAR_PROBE`, a module in the
forms iron prints; one that rejects it is refused with aie-opt's own message. The gate
rests on that, not on a release number: mlir-aie's wheels are numbered ``X.Y.Z``,
``X.Y.(Z+1).devN[+g<sha>]`` and date-stamped ``0.0.1.<YYYYMMDDHH>+<sha>`` (still built
in 2026), and no source ties a number to a feature. Without ``aie-opt`` the grammar is
not checked (a warning says so) and aiecc reports what it cannot read. The release is
still read from the wheel's metadata (``mlir_aie``) for the cache key: ``aiecc
--aie-version`` prints a git SHA only.

Forms whose spelling changed since the oldest mlir-aie iron supports (a9e39fae, August 2026:
the acquire that returns an ``!aie.objectfifosubview``) are listed, each with a probe module
in both spellings, in :mod:`iron.target.mlir_eras`; :func:`era` asks the install's
``aie-opt`` which spelling it reads (once per install identity: path, mtime, size) and the
builds that go through that install print it (:func:`iron.mlir.printer.print_module`). With
no ``aie-opt``, today's forms.

Full-ELF builds from PR #3252 until PR #3345 folded the DDR aperture offset into host
buffers from index 5 on (``test/Targets/NPU/npu_address_patch_ddr_offset.mlir``); no
parse can show that, so iron keeps host buffers few (docs/design.md 3.2) rather than gating it.
"""

from __future__ import annotations

import functools
import importlib.metadata
import os
import re
import shutil
import subprocess
import tempfile
import warnings
from pathlib import Path

from iron.errors import IronError
from iron.target.mlir_eras import CHANGES, TODAY, Era

#: The oldest mlir-aie release line known to read iron's output (advice in messages only:
#: the gate is :func:`check_grammar`).
MIN_MLIR_AIE = (1, 4, 2)
#: A module in the forms iron prints and older mlir-aie cannot parse (SSA npu ops).
GRAMMAR_PROBE = """module {
  aie.device(npu2_1col) {
    aie.runtime_sequence(%arg0: memref<16xi32>) {
      %c0_i32 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      aiex.npu.write32(%c0_i32, %c1_i32) {column = 0 : i32, row = 0 : i32} : i32, i32
      aiex.npu.address_patch(%c0_i32 : i32) {addr = 118788 : ui32, arg_idx = 0 : i32}
    }
  }
}
"""
DISTRIBUTIONS = ("mlir_aie", "mlir-aie")
PEANO_DISTRIBUTION = "llvm-aie"

_VERSION = re.compile(r"^(\d+)\.(\d+)\.(\d+)(?:\.(dev)?(\d+))?(?:\+.*)?$")


class ToolchainError(IronError):
    """The real toolchain is missing a piece, or is too old for iron."""


#: The programs aiecc runs for each output, besides itself: aiebu-asm assembles the full ELF
#: (mlir-aie ``python/compiler/aiecc/main.py`` ``assemble_full_elf``: ``aiebu-asm -t
#: aie2_config``), bootgen packs each device's PDI, xclbinutil writes the xclbin (the C++
#: driver's ``ShellCommand{"xclbinutil"}``, ``tools/aiecc/``). Each ships outside the mlir-aie
#: wheel (aiebu and xclbinutil with XRT, bootgen with mlir-aie's install or Vitis).
TOOLS = {"fused": ("aiebu-asm", "bootgen"), "separate": ("bootgen", "xclbinutil")}
TOOL_HINTS = {
    "aiebu-asm": "it ships with XRT (/opt/xilinx/xrt/bin) and aiebu (github.com/Xilinx/aiebu)",
    "bootgen": "mlir-aie's install puts it in its bin folder; also github.com/Xilinx/bootgen",
    "xclbinutil": "it ships with XRT (/opt/xilinx/xrt/bin): source XRT's setup.sh",
}


def require_toolchain(dispatch: str | None = None, exe: str = "aiecc") -> None:
    """Check, before a build starts, every piece an aiecc build of ``dispatch`` needs:
    aiecc on PATH (the C++ driver or the Python one; iron imports no ``aie`` bindings), the programs aiecc runs (:data:`TOOLS`; both sets
    when ``dispatch`` is None) and a supported mlir-aie. Each missing piece is one
    :class:`ToolchainError` naming it and where it comes from."""
    if shutil.which(exe) is None:
        raise ToolchainError(
            f"backend='aiecc' (or IRON_BACKEND=aiecc) needs mlir-aie's {exe} on PATH; found none "
            "(pip install mlir_aie, or source mlir-aie's utils/env_setup.sh)"
        )
    needed = TOOLS.get(dispatch) or tuple(dict.fromkeys(t for ts in TOOLS.values() for t in ts))
    for tool in needed:
        if shutil.which(tool) is None:
            raise ToolchainError(
                f"aiecc runs {tool} for a {dispatch or 'fused or separate'} build and it is not on PATH; "
                f"{TOOL_HINTS[tool]}"
            )
    require_supported(exe)


def parse_version(text: str) -> tuple[int, int, int, int]:
    """``(major, minor, patch, dev)`` with ``dev = -1`` for a release, so tuples order
    as the releases do (``1.4.2.dev16`` < ``1.4.2``)."""
    m = _VERSION.match(text.strip())
    if not m:
        raise ToolchainError(f"cannot read mlir-aie version {text!r} (expected X.Y.Z[.devN][+local])")
    major, minor, patch, dev, n = m.groups()
    return int(major), int(minor), int(patch), int(n) if dev else -1


def check_version(text: str) -> None:
    """Refuse a version string iron cannot read (the number itself gates nothing)."""
    if re.fullmatch(r"0\.0\.1\.\d{10}(?:\+.*)?", text.strip()):
        return  # a date-stamped wheel
    parse_version(text)


def aie_opt(exe: str = "aiecc") -> str | None:
    """mlir-aie's parser: ``aie-opt`` beside ``exe``, else in ``$MLIR_AIE_INSTALL_DIR/bin``,
    else on PATH, else None."""
    found = shutil.which(exe)
    if found:
        beside = Path(found).resolve().parent / "aie-opt"
        if beside.is_file():
            return str(beside)
    install = os.environ.get("MLIR_AIE_INSTALL_DIR")
    if install and (Path(install) / "bin" / "aie-opt").is_file():
        return str(Path(install) / "bin" / "aie-opt")
    return shutil.which("aie-opt")


def _stamp(opt: str) -> tuple[int, int]:
    """What identifies one build of ``opt`` beside its path: mtime (ns) and size."""
    st = Path(opt).stat()
    return st.st_mtime_ns, st.st_size


@functools.lru_cache(maxsize=None)
def _grammar(opt: str, stamp, probe: str = GRAMMAR_PROBE) -> str:
    """aie-opt's complaint about the module ``probe`` ("" when it reads it)."""
    with tempfile.TemporaryDirectory(prefix="iron-probe-") as tmp:
        path = Path(tmp) / "iron_syntax.mlir"
        path.write_text(probe)
        try:
            out = subprocess.run([opt, str(path)], capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"cannot run {opt}: {exc}"
    if out.returncode == 0:
        return ""
    lines = (out.stderr or out.stdout or f"exit status {out.returncode}").strip().splitlines()
    return next((line for line in lines if "error" in line), lines[0])


def check_grammar(exe: str = "aiecc") -> None:
    """Refuse an mlir-aie whose parser rejects the syntax iron prints (:data:`GRAMMAR_PROBE`)."""
    opt = aie_opt(exe)
    if opt is None:
        warnings.warn(
            "iron: no aie-opt beside aiecc or on PATH, so iron cannot check that this mlir-aie reads "
            "the syntax it prints (SSA npu ops); aiecc will say if it does not",
            stacklevel=3,
        )
        return
    complaint = _grammar(opt, _stamp(opt))
    if complaint:
        minimum = ".".join(map(str, MIN_MLIR_AIE))
        raise ToolchainError(
            f"this mlir-aie does not read the syntax iron prints (SSA npu ops, mlir-aie PR #3225): "
            f"{opt} rejects it: {complaint}; install a newer mlir_aie (releases from {minimum} read it)"
        )


def era(exe: str = "aiecc") -> Era:
    """The :class:`~iron.target.mlir_eras.Era` the installed mlir-aie reads (asked of its
    ``aie-opt``, :func:`aie_opt`; once per install identity); today's forms without one.
    Raises :class:`ToolchainError` when it reads neither spelling of a changed form."""
    opt = aie_opt(exe)
    return TODAY if opt is None else _era(opt, _stamp(opt))


def _era(opt: str, stamp) -> Era:
    old = []
    for change in CHANGES.values():
        new_says = _grammar(opt, stamp, change.probe_new)
        if not new_says:
            continue
        old_says = _grammar(opt, stamp, change.probe_old)
        if old_says:
            raise ToolchainError(
                f"{opt} reads neither spelling of {change.name} iron knows (iron.target.mlir_eras): "
                f"today's ({change.new!r}): {new_says}; the older one: {old_says}"
            )
        old.append(change.name)
    return Era(frozenset(old))


def installed_version() -> str | None:
    """The installed mlir-aie wheel's version, or None."""
    for dist in DISTRIBUTIONS:
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def require_supported(exe: str = "aiecc") -> str | None:
    """The installed mlir-aie version (None when no wheel says), after :func:`check_grammar`;
    raises :class:`ToolchainError` otherwise."""
    version = installed_version()
    if version is not None:
        check_version(version)
    check_grammar(exe)
    era(exe)  # reads one spelling of every changed form, or one clear error now
    return version


@functools.lru_cache(maxsize=None)
def identity(exe: str = "aiecc") -> str:
    """What the cache key records of the toolchain: mlir-aie release, aiecc build, Peano."""
    parts = [f"mlir_aie-{installed_version()}"]
    for flag in ("--aie-version", "--version"):
        try:
            out = subprocess.run([exe, flag], capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            continue
        text = " ".join((out.stdout or out.stderr).split())
        if out.returncode == 0 and text:
            parts.append(f"aiecc-{text}")
            break
    else:
        raise ToolchainError(f"cannot read the build of {exe} (tried --aie-version and --version)")
    try:
        parts.append(f"peano-{importlib.metadata.version(PEANO_DISTRIBUTION)}")
    except importlib.metadata.PackageNotFoundError:
        pass  # a Peano outside a wheel: the compiler's own --version goes into each object's key
    return " ".join(parts)
