"""An :class:`Artifact`: what :func:`iron.build` returns and what runners load.

Everything comes from the ELF itself (section ``.iron.meta`` and friends, see
:mod:`iron.artifact.elf`), so an artifact copied anywhere can be inspected and
run without MLIR or a build directory.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from iron.artifact import elf
from iron.artifact.elf import ArtifactError
from iron.artifact.pdi import DevicePayload
from iron.fuse.fusion import KernelArg
from iron.mlir import ir
from iron.instrument.manifest import Manifest, ManifestError

#: Version of the ``.iron.meta`` layout; readers reject newer ones.
META_SCHEMA = 1


@dataclass
class KernelImage:
    """One dispatchable kernel ``<device>:<sequence>`` and its control code."""

    name: str
    device: str
    sequence: str
    args: list[KernelArg]  # bindings of its first dispatch; the types are its signature
    control: bytes  # TXN binary (empty when the control code lives in aiecc's own sections)

    def decode(self):
        """``(TxnHeader, [ops])`` of the control code."""
        from iron.mlir import txn

        return txn.decode(self.control)


@dataclass
class Dispatch:
    """One kernel run: which kernel, and which host buffers (or windows) bind its arguments.

    Separate dispatch runs one kernel per call site, so a design called twice is
    the same kernel bound to different buffers and trace sub-buffers.
    """

    kernel: str
    args: list[KernelArg]


@dataclass
class Artifact:
    path: Path
    name: str
    target: str
    dispatch: str  # "fused" | "separate"
    kernels: dict[str, KernelImage]
    schedule: list["Dispatch"]  # dispatches in order (a kernel may run several times)
    pdis: dict[int, DevicePayload]  # PDI id -> payload
    pdi_ids: dict[str, int]  # device symbol -> PDI id
    buffers: dict[str, ir.MemRefType]
    inputs: list[str]
    outputs: list[str]
    manifest: Manifest | None
    key: str
    toolchain: str
    iron_version: str
    backend: str = "builtin"  # "builtin" | "aiecc-full-elf" | "aiecc-xclbin"
    sources: dict[str, str] = field(default_factory=dict)  # synthetic name -> text
    #: synthetic name ``<device>/core_<col>_<row>.elf`` -> ELF bytes (aiecc builds with sources on)
    core_elfs: dict[str, bytes] = field(default_factory=dict)
    cached: bool = False  # True when iron.build found it in the cache

    @property
    def traced(self) -> bool:
        return self.manifest is not None

    @property
    def trace_size(self) -> int:
        """Total bytes of the trace buffer (0 when untraced)."""
        return self.manifest.total_size if self.manifest else 0

    @classmethod
    def open(cls, path: str | os.PathLike) -> "Artifact":
        """Read an artifact; raises :class:`ArtifactError` if it is damaged or not iron's."""
        path = Path(path)
        sections = elf.read_sections(path)
        if elf.META not in sections:
            raise ArtifactError(f"{path}: no {elf.META} section; not an iron artifact")
        try:
            meta = json.loads(sections[elf.META])
            return cls._from_meta(path, meta, sections)
        except ArtifactError:
            raise
        except (ValueError, KeyError, TypeError) as exc:
            raise elf.CorruptArtifactError(f"{path}: unreadable {elf.META}: {exc!r}") from None

    @classmethod
    def _from_meta(cls, path: Path, meta: dict, sections: dict[str, bytes]) -> "Artifact":
        if meta.get("schema", 0) > META_SCHEMA:
            raise ArtifactError(
                f"{path}: artifact format {meta['schema']} is newer than this iron supports ({META_SCHEMA})"
            )
        kernels = {}
        for k in meta["kernels"]:
            args = _args(k["args"])
            code = sections.get(k["section"], b"") if k.get("section") else b""
            if k.get("section") and k["section"] not in sections:
                raise elf.CorruptArtifactError(f"{path}: missing section {k['section']}")
            kernels[k["name"]] = KernelImage(k["name"], k["device"], k["sequence"], args, code)
        pdis = {}
        for pid, entry in meta["pdis"].items():
            pdis[int(pid)] = DevicePayload.from_json(sections[entry["section"]])
        manifest = None
        if elf.TRACE in sections:
            try:
                manifest = Manifest.from_json(sections[elf.TRACE])
            except ManifestError as exc:
                raise elf.CorruptArtifactError(f"{path}: {exc}") from None
        sources = {name: sections[sec].decode() for sec, name in meta.get("sources", {}).items()}
        for sec in meta.get("core_elfs", {}):
            if sec not in sections:
                raise elf.CorruptArtifactError(f"{path}: missing section {sec}")
        core_elfs = {name: sections[sec] for sec, name in meta.get("core_elfs", {}).items()}
        return cls(
            path=path,
            name=meta["name"],
            target=meta["target"],
            dispatch=meta["dispatch"],
            kernels=kernels,
            schedule=[Dispatch(d["kernel"], _args(d["args"])) for d in meta["schedule"]],
            pdis=pdis,
            pdi_ids={e["device"]: int(pid) for pid, e in meta["pdis"].items()},
            buffers={b["name"]: _memref(b) for b in meta["buffers"]},
            inputs=list(meta["inputs"]),
            outputs=list(meta["outputs"]),
            manifest=manifest,
            key=meta["key"],
            toolchain=meta["toolchain"],
            iron_version=meta["iron_version"],
            backend=meta.get("backend", "builtin"),
            sources=sources,
            core_elfs=core_elfs,
        )

    def load(self, device: str = "auto"):
        """A runner for this artifact on ``device`` ("auto", "sim" or "xrt")."""
        from iron.runtime import runner

        return runner.load(self, device)


def _args(entries: list[dict]) -> list[KernelArg]:
    return [KernelArg(a["buffer"], _memref(a), a.get("offset", 0)) for a in entries]


def _memref(entry: dict) -> ir.MemRefType:
    return ir.MemRefType(tuple(entry["shape"]), entry["dtype"])


def memref_json(t: ir.MemRefType) -> dict:
    return {"shape": list(t.shape), "dtype": t.dtype}
