"""The real toolchain path: compile the materialized module with mlir-aie's aiecc.

Used by :func:`iron.build` when ``aiecc`` is on PATH and the ``aie`` Python
package is importable. Fused dispatch (npu2) asks for one full ELF (aiebu);
separate dispatch asks for an xclbin plus one instruction binary per sequence.
iron's own sections (``.iron.meta``, ``.iron.trace``, ``.iron.sum``) are then
added to the full ELF with lief (sidecar files if that fails); for separate
dispatch iron writes its own ELF holding the instruction binaries and the xclbin.

aiecc's flags changed over time (mlir-aie ``tools/aiecc/CommandLineOptions.h``):
older drivers take ``--generate-full-elf``, ``--aie-generate-xclbin`` and
``--aie-generate-npu-insts``; the declarative C++ driver selects outputs with
``--get-full-elf``, ``--get-xclbin``, ``--get-npu-insts``. :func:`flag_style`
reads ``aiecc --help`` to pick one.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from iron.errors import IronError

EXE = "aiecc"
FULL_ELF = "aie.elf"
XCLBIN = "final.xclbin"
#: Instruction-binary name templates ({0} device symbol, {1} sequence where supported).
INSTS = {"legacy": "{0}_{1}.bin", "get": "insts_{0}.bin"}


class AieccError(IronError):
    """aiecc failed or produced no output."""


def available() -> bool:
    """True when the real toolchain is installed (aiecc on PATH and ``aie`` importable)."""
    return shutil.which(EXE) is not None and importlib.util.find_spec("aie") is not None


@functools.lru_cache(maxsize=None)
def toolchain_identity(exe: str = EXE) -> str:
    """``aiecc-<version>`` from ``aiecc --version`` (or ``--aie-version``), part of the cache key."""
    for flag in ("--version", "--aie-version"):
        try:
            out = subprocess.run([exe, flag], capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            continue
        text = " ".join((out.stdout or out.stderr).split())
        if out.returncode == 0 and text:
            return f"aiecc-{text}"
    raise AieccError(f"cannot read the version of {exe} (tried --version and --aie-version)")


@functools.lru_cache(maxsize=None)
def flag_style(exe: str = EXE) -> str:
    """``"get"`` for drivers that select outputs with ``--get-<name>``, else ``"legacy"``."""
    try:
        out = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise AieccError(f"cannot run {exe} --help: {exc}") from None
    text = out.stdout + out.stderr
    return "legacy" if "--generate-full-elf" in text or "--aie-generate-xclbin" in text else "get"


def command(
    mlir_path: str | os.PathLike,
    workdir: str | os.PathLike,
    *,
    dispatch: str,
    style: str = "legacy",
    exe: str = EXE,
) -> list[str]:
    """The aiecc argv for one build; outputs land in ``workdir``."""
    if style not in INSTS:
        raise AieccError(f"unknown aiecc flag style {style!r}")
    work = Path(workdir)
    argv = [exe, f"--tmpdir={work / 'prj'}"]
    if style == "legacy":
        argv += ["--no-aiesim", "--no-xchesscc", "--no-xbridge", "--no-compile-host"]
    get = (lambda name: f"--get-{name}") if style == "get" else None
    if dispatch == "fused":
        argv += [get("full-elf") if get else "--generate-full-elf", f"--full-elf-name={work / FULL_ELF}"]
    elif dispatch == "separate":
        argv += [get("xclbin") if get else "--aie-generate-xclbin", f"--xclbin-name={work / XCLBIN}"]
        argv += [
            get("npu-insts") if get else "--aie-generate-npu-insts",
            f"--npu-insts-name={work / INSTS[style]}",
        ]
    else:
        raise AieccError(f"dispatch {dispatch!r}: expected 'fused' or 'separate'")
    return argv + [str(mlir_path)]


def find_insts(workdir: Path, device: str, sequence: str, style: str) -> Path:
    """The instruction binary aiecc wrote for ``device``/``sequence``."""
    for name in (INSTS[style].format(device, sequence), INSTS["legacy"].format(device, sequence)):
        if (workdir / name).exists():
            return workdir / name
    raise AieccError(f"aiecc wrote no instruction binary for {device}:{sequence} in {workdir}")


def build_elf(ctx, *, exe: str = EXE, style: str | None = None) -> bytes:
    """Compile ``ctx.fm`` with aiecc; the artifact bytes (iron sections included)."""
    from iron.artifact import build as b
    from iron.artifact import elf
    from iron.lower.materialize import materialize
    from iron.mlir.printer import print_module

    fm = ctx.fm
    style = style or flag_style(exe)
    with tempfile.TemporaryDirectory(prefix="iron-aiecc-") as tmp:
        work = Path(tmp)
        src = work / "fused.mlir"
        src.write_text(print_module(materialize(fm, translate_patches=ctx.translate_patches)))
        argv = command(src, work, dispatch=fm.dispatch, style=style, exe=exe)
        ctx.status.step("aiecc")
        proc = subprocess.run(argv, cwd=work, capture_output=True, text=True)
        if proc.returncode != 0:
            tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-20:])
            raise AieccError(f"aiecc failed (exit {proc.returncode}): {' '.join(argv)}\n{tail}")
        dev_sections, pdis = b.pdi_sections(ctx)  # sim can still run the artifact
        texts = b.source_texts(ctx)
        extra: dict[str, bytes] = {}
        src_names = {}
        for i, (name, text) in enumerate(texts.items()):
            extra[elf.src_section(i)] = text.encode()
            src_names[elf.src_section(i)] = name
        manifest = b.manifest_json(ctx, texts)
        if manifest is not None:
            extra[elf.TRACE] = manifest
        if fm.dispatch == "fused":
            out = work / FULL_ELF
            if not out.exists():
                raise AieccError(f"aiecc did not write {out}")
            kernels = [b.kernel_entry(k, None) for k in fm.kernels]
            meta = b.meta_json(ctx, kernels, pdis, src_names, "aiecc-full-elf")
            sections = {elf.META: meta, **dev_sections, **extra}
            sections[elf.CHECKSUM] = elf.checksum(sections).encode()
            sidecars = elf.add_sections(out, sections)
            if sidecars:
                raise AieccError(
                    f"could not add iron's sections to aiecc's ELF (see the warning); "
                    f"a cached artifact needs them inside: {', '.join(map(str, sidecars.values()))}"
                )
            return out.read_bytes()
        # separate: iron's own container with aiecc's instruction binaries and xclbin
        sections = {}
        kernels = []
        for i, k in enumerate(fm.kernels):
            sections[elf.code_section(i)] = find_insts(work, k.device, k.sequence, style).read_bytes()
            kernels.append(b.kernel_entry(k, elf.code_section(i)))
        sections[elf.XCLBIN] = (work / XCLBIN).read_bytes()
        return elf.write_elf(
            {
                elf.META: b.meta_json(ctx, kernels, pdis, src_names, "aiecc-xclbin"),
                **sections,
                **dev_sections,
                **extra,
            }
        )
