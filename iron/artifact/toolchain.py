"""Which mlir-aie iron targets, how it is found, and what identifies it in the cache key.

iron prints today's mlir-aie syntax (SSA npu ops, PR #3225; tile-operand shim
allocations; func-level ``link_with``) and relies on full-ELF builds patching every
host-buffer index right (PR #3345 stopped folding the DDR aperture offset into
arguments from index 5 on, ``test/Targets/NPU/npu_address_patch_ddr_offset.mlir``).
Both are in the release line from :data:`MIN_MLIR_AIE` on, so older installs are
refused with one message. The release is read from the wheel's metadata
(``mlir_aie``): ``aiecc --aie-version`` prints a git SHA only.

Version strings follow mlir-aie's wheels: tags ``X.Y.Z``, builds after a tag
``X.Y.(Z+1).devN[+g<sha>]`` (a pre-release of the next tag), and the date-stamped
``0.0.1.<YYYYMMDDHH>+<sha>`` wheels of before Nov 2025, which predate every
feature above.
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import re
import shutil
import subprocess

from iron.errors import IronError

#: The oldest mlir-aie release iron's output is written for.
MIN_MLIR_AIE = (1, 4, 2)
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
    aiecc on PATH, the ``aie`` package, the programs aiecc runs (:data:`TOOLS`; both sets
    when ``dispatch`` is None) and a supported mlir-aie. Each missing piece is one
    :class:`ToolchainError` naming it and where it comes from."""
    if shutil.which(exe) is None:
        raise ToolchainError(
            f"backend='aiecc' (or IRON_BACKEND=aiecc) needs mlir-aie's {exe} on PATH; found none "
            "(pip install mlir_aie, or source mlir-aie's utils/env_setup.sh)"
        )
    if importlib.util.find_spec("aie") is None:
        raise ToolchainError(f"{exe} is on PATH but mlir-aie's Python package 'aie' is not importable")
    needed = TOOLS.get(dispatch) or tuple(dict.fromkeys(t for ts in TOOLS.values() for t in ts))
    for tool in needed:
        if shutil.which(tool) is None:
            raise ToolchainError(
                f"aiecc runs {tool} for a {dispatch or 'fused or separate'} build and it is not on PATH; "
                f"{TOOL_HINTS[tool]}"
            )
    require_supported()


def parse_version(text: str) -> tuple[int, int, int, int]:
    """``(major, minor, patch, dev)`` with ``dev = -1`` for a release, so tuples order
    as the releases do (``1.4.2.dev16`` < ``1.4.2``)."""
    m = _VERSION.match(text.strip())
    if not m:
        raise ToolchainError(f"cannot read mlir-aie version {text!r} (expected X.Y.Z[.devN][+local])")
    major, minor, patch, dev, n = m.groups()
    return int(major), int(minor), int(patch), int(n) if dev else -1


def check_version(text: str) -> None:
    """Refuse an mlir-aie release older than :data:`MIN_MLIR_AIE`."""
    minimum = ".".join(map(str, MIN_MLIR_AIE))
    v = parse_version(text)
    if v[:3] < MIN_MLIR_AIE or (v[:3] == MIN_MLIR_AIE and v[3] >= 0):
        raise ToolchainError(
            f"mlir-aie {text} is older than {minimum}, the first release whose syntax iron prints "
            f"(SSA npu ops) and whose full-ELF builds patch host buffers from index 5 on correctly; "
            f"install mlir_aie>={minimum}"
        )


def installed_version() -> str | None:
    """The installed mlir-aie wheel's version, or None."""
    for dist in DISTRIBUTIONS:
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def require_supported() -> str:
    """The installed mlir-aie version, checked; raises :class:`ToolchainError` otherwise."""
    version = installed_version()
    if version is None:
        raise ToolchainError(
            "aiecc is on PATH but no mlir_aie distribution is installed, so iron cannot tell its release; "
            f"install mlir_aie>={'.'.join(map(str, MIN_MLIR_AIE))}"
        )
    check_version(version)
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
