"""The artifact container: a minimal ELF32 little-endian file of non-loaded sections.

Every artifact is written here with ``struct`` (pyelftools cannot write), whichever
back end built it: an aiecc build keeps aiecc's full ELF or xclbin *inside* the
container as one section, byte for byte, instead of adding iron's sections to aiecc's
file. XRT finds a full ELF's control code through the member indices of its
``SHT_GROUP`` sections (XRT ``xrt_elf.cpp`` ``parse_single_group_section``); a
rewrite that adds sections renumbers them (lief does, and leaves the group lists
stale), so XRT would read the wrong sections. Which sections an artifact holds is
:mod:`iron.artifact.schema`; this module knows only the container's rules: every
iron section name starts with :data:`PREFIX`, :data:`CHECKSUM` holds a sha256 over
the others, and sidecars (``<elf><name>.json``, written by iron releases that added
sections to aiecc's ELF) are still read.

Names avoid ``.ctrl``, ``.pdi``, ``.pad``, ``.dump`` and ``.preempt``: XRT matches
those substrings when it walks a full ELF (docs/design.md 6).
"""

from __future__ import annotations

import hashlib
import io
import os
import struct
from pathlib import Path

from iron.errors import IronError

PREFIX = ".iron."
CHECKSUM = f"{PREFIX}sum"
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
                # a damaged name table can point into any bytes: show the name on one line, cut short
                raise CorruptArtifactError(f"{origin}: section {sec.name[:64]!r} is truncated")
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


def read_sections(path: str | os.PathLike, *, verify: bool = True, sidecars=()) -> dict[str, bytes]:
    """Sections of the ELF at ``path`` by name, plus the sidecar of each section named in
    ``sidecars`` that is not inside (older iron releases). Raises :class:`ArtifactError`."""
    from iron import limits

    limits.check_input(path, limits.MAX_ARTIFACT_BYTES, "artifact", ArtifactError)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ArtifactError(f"cannot read artifact {os.fspath(path)!r}: {exc.strerror}") from None
    sections = parse_sections(data, verify=False, origin=os.fspath(path))
    for name in sidecars:
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
    """Where an older iron release put section ``name`` it could not add to aiecc's ELF."""
    return Path(f"{os.fspath(elf_path)}{name}.json")
