"""The artifact container: a minimal ELF32 little-endian file of non-loaded sections.

iron's own artifact (built-in lowering) is written here with ``struct``
(pyelftools cannot write). Sections, all ``SHT_PROGBITS`` without flags:

=====================  ==========================================================
``.iron.meta``         JSON: name, target, dispatch, kernels (args, code section),
                       schedule, PDI ids, buffers, inputs/outputs, toolchain,
                       iron version, cache key, source names
``.iron.code.<n>``     control code of kernel ``n`` (TXN binary, iron.mlir.txn)
``.iron.dev.<n>``      payload of PDI ``n`` (JSON, iron.artifact.pdi)
``.iron.trace``        the trace manifest (JSON, iron.instrument.manifest), when traced
``.iron.src.<n>``      design sources under synthetic names (debug flag only)
``.iron.core.<n>``     a core ELF aiecc linked, under a synthetic name (sources flag
                       only; meta ``core_elfs``: section -> ``<device>/core_<col>_<row>.elf``)
``.iron.xclbin``       aiecc's xclbin (separate dispatch built with aiecc only)
``.iron.sum``          sha256 over every other ``.iron.*`` section (name + data)
=====================  ==========================================================

Names avoid ``.ctrl``, ``.pdi``, ``.pad``, ``.dump`` and ``.preempt``: XRT matches
those substrings when it walks a full ELF (DESIGN.md 6), and the same sections
are added with lief to aiecc's ELF (:func:`add_section`).
"""

from __future__ import annotations

import hashlib
import io
import os
import struct
import subprocess
import sys
import warnings
from pathlib import Path

from iron.errors import IronError

META = ".iron.meta"
TRACE = ".iron.trace"
CHECKSUM = ".iron.sum"
XCLBIN = ".iron.xclbin"
PREFIX = ".iron."
SIDECAR_SECTIONS = (META, TRACE, CHECKSUM)  # read from sidecars when lief could not add them
FORBIDDEN = (".ctrl", ".pdi", ".pad", ".dump", ".preempt")

# ELF constants (System V ABI, ELF32).
_ELF_HEADER = struct.Struct("<16sHHIIIIIHHHHHH")  # 52 bytes
_SECTION_HEADER = struct.Struct("<10I")  # 40 bytes
_ELFCLASS32, _ELFDATA2LSB, _EV_CURRENT = 1, 1, 1
_ET_NONE, _EM_NONE = 0, 0
_SHT_PROGBITS, _SHT_STRTAB = 1, 3
_ALIGN = 4


class ArtifactError(IronError):
    """An artifact cannot be read: not an ELF, not iron's, or damaged."""


class CorruptArtifactError(ArtifactError):
    """An artifact is truncated or its checksum does not match."""


def code_section(index: int) -> str:
    return f"{PREFIX}code.{index}"


def dev_section(index: int) -> str:
    return f"{PREFIX}dev.{index}"


def src_section(index: int) -> str:
    return f"{PREFIX}src.{index}"


def core_section(index: int) -> str:
    return f"{PREFIX}core.{index}"


def check_name(name: str) -> str:
    if not name.startswith(PREFIX) or "\0" in name:
        raise ArtifactError(f"section name {name!r}: iron sections start with {PREFIX!r}")
    bad = [f for f in FORBIDDEN if f in name]
    if bad:
        raise ArtifactError(f"section name {name!r} contains {bad[0]!r}, which XRT reserves")
    return name


def checksum(sections: dict[str, bytes]) -> str:
    """sha256 (hex) over the ``.iron.*`` sections other than the checksum, by name."""
    h = hashlib.sha256()
    for name in sorted(sections):
        if name.startswith(PREFIX) and name != CHECKSUM:
            data = sections[name]
            h.update(name.encode() + b"\0" + len(data).to_bytes(8, "little"))
            h.update(data)
    return h.hexdigest()


def write_elf(sections: dict[str, bytes], *, add_checksum: bool = True) -> bytes:
    """An ELF32 LE image with ``sections`` (in order) plus, by default, the checksum section."""
    sections = {check_name(n): bytes(d) for n, d in sections.items()}
    if add_checksum:
        sections.pop(CHECKSUM, None)
        sections[CHECKSUM] = checksum(sections).encode()
    names = list(sections)
    strtab = b"\0" + b"".join(n.encode() + b"\0" for n in [*names, ".shstrtab"])
    name_off, pos = {}, 1
    for n in [*names, ".shstrtab"]:
        name_off[n] = pos
        pos += len(n) + 1

    body = bytearray()
    offsets = []
    base = _ELF_HEADER.size
    for data in [*sections.values(), strtab]:
        body += b"\0" * (-(base + len(body)) % _ALIGN)
        offsets.append(base + len(body))
        body += data
    body += b"\0" * (-(base + len(body)) % _ALIGN)
    shoff = base + len(body)

    headers = [_SECTION_HEADER.pack(*[0] * 10)]
    for i, n in enumerate(names):
        data = sections[n]
        headers.append(
            _SECTION_HEADER.pack(name_off[n], _SHT_PROGBITS, 0, 0, offsets[i], len(data), 0, 0, 1, 0)
        )
    headers.append(
        _SECTION_HEADER.pack(name_off[".shstrtab"], _SHT_STRTAB, 0, 0, offsets[-1], len(strtab), 0, 0, 1, 0)
    )
    ident = b"\x7fELF" + bytes([_ELFCLASS32, _ELFDATA2LSB, _EV_CURRENT]) + b"\0" * 9
    shnum = len(headers)
    header = _ELF_HEADER.pack(
        ident, _ET_NONE, _EM_NONE, _EV_CURRENT, 0, 0, shoff, 0,
        _ELF_HEADER.size, 0, 0, _SECTION_HEADER.size, shnum, shnum - 1,
    )  # fmt: skip
    return header + bytes(body) + b"".join(headers)


def parse_sections(data: bytes, *, verify: bool = True, origin: str = "<bytes>") -> dict[str, bytes]:
    """Every named section of an ELF image (pyelftools), checksum verified when present."""
    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile

    try:
        elf = ELFFile(io.BytesIO(data))
        out: dict[str, bytes] = {}
        for sec in elf.iter_sections():
            if not sec.name or sec["sh_type"] in ("SHT_NOBITS", "SHT_NULL"):
                continue
            content = sec.data()
            if len(content) != sec["sh_size"]:
                raise CorruptArtifactError(f"{origin}: section {sec.name} is truncated")
            out[sec.name] = content
    except CorruptArtifactError:
        raise
    except (ELFError, struct.error, ValueError, IndexError, KeyError, UnicodeDecodeError) as exc:
        raise CorruptArtifactError(
            f"{origin}: not a readable ELF file (truncated or damaged): {exc}"
        ) from None
    if verify:
        verify_checksum(out, origin)
    return out


def read_sections(path: str | os.PathLike, *, verify: bool = True) -> dict[str, bytes]:
    """Sections of the ELF at ``path`` by name, plus any sidecar of an iron section that
    :func:`add_sections` could not put inside. Raises :class:`ArtifactError`."""
    from iron import limits

    limits.check_input(path, limits.MAX_ARTIFACT_BYTES, "artifact", ArtifactError)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ArtifactError(f"cannot read artifact {os.fspath(path)!r}: {exc.strerror}") from None
    sections = parse_sections(data, verify=False, origin=os.fspath(path))
    for name in SIDECAR_SECTIONS:
        side = sidecar_path(path, name)
        if name not in sections and side.exists():
            limits.check_input(side, limits.MAX_MANIFEST_BYTES, "artifact sidecar", ArtifactError)
            try:
                sections[name] = side.read_bytes()
            except OSError as exc:
                raise ArtifactError(f"cannot read {side}: {exc.strerror}") from None
    if verify:
        verify_checksum(sections, os.fspath(path))
    return sections


def verify_checksum(sections: dict[str, bytes], origin: str) -> None:
    if CHECKSUM in sections and sections[CHECKSUM].decode(errors="replace") != checksum(sections):
        raise CorruptArtifactError(f"{origin}: checksum mismatch (the file is damaged)")


def sidecar_path(elf_path: str | os.PathLike, name: str) -> Path:
    """Where :func:`add_sections` puts section ``name`` when it cannot go inside."""
    return Path(f"{os.fspath(elf_path)}{name}.json")


def read_manifest(path: str | os.PathLike):
    """The trace manifest of an artifact (iron's or aiecc's ELF, or its sidecar), or None."""
    from iron.instrument.manifest import Manifest

    from iron.instrument.manifest import ManifestError

    sections = read_sections(path)
    if META not in sections and TRACE not in sections:
        raise ArtifactError(f"{os.fspath(path)}: an ELF without iron's sections; not an iron artifact")
    try:
        return Manifest.from_json(sections[TRACE]) if TRACE in sections else None
    except ManifestError as exc:
        raise CorruptArtifactError(f"{os.fspath(path)}: {exc}") from None


def read_core_elfs(path: str | os.PathLike) -> dict[str, bytes]:
    """The core ELFs embedded in an artifact (sources flag): synthetic name -> bytes."""
    import json

    sections = read_sections(path)
    if META not in sections:
        return {}
    try:
        names = json.loads(sections[META]).get("core_elfs", {})
    except (ValueError, AttributeError) as exc:
        raise CorruptArtifactError(f"{os.fspath(path)}: unreadable {META}: {exc}") from None
    missing = [sec for sec in names if sec not in sections]
    if missing:
        raise CorruptArtifactError(f"{os.fspath(path)}: missing section {missing[0]}")
    return {name: sections[sec] for sec, name in names.items()}


def add_section(elf_path: str | os.PathLike, name: str, data: bytes) -> Path | None:
    """Add one non-loaded section to an existing ELF; see :func:`add_sections`."""
    return add_sections(elf_path, {name: data}).get(name)


def add_sections(elf_path: str | os.PathLike, sections: dict[str, bytes]) -> dict[str, Path]:
    """Add non-loaded sections to an existing ELF (e.g. aiecc's full ELF) with lief.

    lief runs in a child process (it aborts the interpreter on some inputs); the
    result is read back with pyelftools and replaces the ELF only if every
    section reads back intact. Otherwise the ELF is left untouched, each
    section goes to a sidecar ``<elf><name>.json`` and a warning says so.
    Returns ``{name: sidecar path}`` for the sections that went to sidecars.
    """
    sections = {check_name(n): bytes(d) for n, d in sections.items()}
    path = Path(elf_path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.lief")
    spec = path.with_name(f".{path.name}.{os.getpid()}.sections")
    try:
        spec.write_bytes(write_elf(sections, add_checksum=False))  # the sections to add
        proc = subprocess.run(
            [sys.executable, "-m", "iron.artifact.elf", str(path), str(spec), str(tmp)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        if proc.returncode != 0:
            lines = (proc.stderr or proc.stdout or f"exit status {proc.returncode}").strip().splitlines()
            raise ArtifactError(f"lief failed: {lines[-1] if lines else proc.returncode}")
        back = parse_sections(tmp.read_bytes(), verify=False, origin=str(tmp))
        missing = [n for n, d in sections.items() if back.get(n) != d]
        if missing:
            raise ArtifactError(f"section(s) {', '.join(missing)} do not read back")
        os.replace(tmp, path)
        return {}
    except Exception as exc:  # any failure means: keep the ELF, use sidecars
        out = {}
        for name, data in sections.items():
            out[name] = sidecar_path(path, name)
            out[name].write_bytes(data)
        warnings.warn(
            f"could not add {', '.join(sections)} to {path} ({exc}); wrote "
            f"{', '.join(str(p) for p in out.values())} instead",
            stacklevel=2,
        )
        return out
    finally:
        tmp.unlink(missing_ok=True)
        spec.unlink(missing_ok=True)


def _lief_add(path: str, spec: str, out: str) -> None:
    """Child-process side of :func:`add_sections`: copy ``spec``'s sections into ``path``."""
    import lief

    binary = lief.ELF.parse(path)
    if binary is None:
        raise SystemExit(f"lief cannot parse {path}")
    for name, data in parse_sections(Path(spec).read_bytes(), verify=False).items():
        if not name.startswith(PREFIX):
            continue
        section = lief.ELF.Section(name)
        section.type = lief.ELF.Section.TYPE.PROGBITS
        section.content = memoryview(data)
        section.alignment = 1
        if binary.add(section, loaded=False) is None:
            raise SystemExit(f"lief refused section {name}")
    binary.write(out)


if __name__ == "__main__":
    _lief_add(*sys.argv[1:4])
