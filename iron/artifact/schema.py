"""The artifact schema: what :func:`iron.build` writes and the runtime reads.

One owner for every fact both sides of an artifact must agree on: the names of
iron's sections, the ``.iron.meta`` layout and its records (kernels, their
arguments, the dispatch schedule, host buffers), the name of the trace buffer,
and the naming rules of kernels (iron's, a full ELF's, an xclbin's) and of
embedded core ELFs. The container itself (ELF sections, checksum, sidecars) is
:mod:`iron.artifact.elf`; a device's built-in PDI payload is
:mod:`iron.artifact.pdi`. Fusion writes its schedule in these records, so this
module imports only base, target, ``iron.mlir`` and the manifest schema.

Sections, all ``SHT_PROGBITS`` without flags:

=====================  ==========================================================
``.iron.meta``         JSON (:func:`meta_json`): name, target, dispatch, kernels (args,
                       code section), schedule, PDI ids, buffers, inputs/outputs,
                       toolchain, iron version, cache key, source names
``.iron.code.<n>``     control code of kernel ``n`` (TXN binary, iron.mlir.txn_codec)
``.iron.dev.<n>``      payload of PDI ``n`` (JSON, iron.artifact.pdi)
``.iron.trace``        the trace manifest (JSON, iron.artifact.manifest), when traced
``.iron.src.<n>``      design sources under synthetic names (debug flag only)
``.iron.core.<n>``     a core ELF aiecc linked, under a synthetic name (sources flag
                       only; meta ``core_elfs``: section -> :func:`embedded_name`)
``.iron.xclbin``       aiecc's xclbin (separate dispatch built with aiecc only)
``.iron.full_elf``     aiecc's full ELF, byte for byte (fused dispatch built with aiecc
                       only): XRT is handed exactly these bytes (:mod:`iron.runtime.xrt`)
``.iron.sum``          sha256 over every other ``.iron.*`` section (name + data)
=====================  ==========================================================
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from iron.artifact import elf
from iron.artifact.elf import ArtifactError, CorruptArtifactError
from iron.artifact.pdi import DevicePayload
from iron.artifact.manifest import Manifest, ManifestError, kernel_name  # noqa: F401 (re-exported)
from iron.mlir import ir
from iron.target.geometry import TARGETS
from iron.target.xclbin import XCLBIN_NAME_MAX

#: Version of the ``.iron.meta`` layout; readers reject newer ones.
META_SCHEMA = 1

META = f"{elf.PREFIX}meta"
TRACE = f"{elf.PREFIX}trace"
XCLBIN = f"{elf.PREFIX}xclbin"
#: aiecc's full ELF, stored verbatim: XRT finds each kernel's control code through the
#: member indices of its SHT_GROUP sections, so the file it loads must keep aiebu's
#: section numbering; iron's sections therefore travel beside it, never inside it.
FULL_ELF = f"{elf.PREFIX}full_elf"
#: Sections read from a sidecar (older iron releases added them to aiecc's ELF with lief,
#: and wrote a sidecar when that failed).
SIDECARS = (META, TRACE, elf.CHECKSUM)

#: Name of the trace buffer among an artifact's host buffers (a Sequence may not use it).
TRACE_BUFFER = "trace"


def code_section(index: int) -> str:
    return f"{elf.PREFIX}code.{index}"


def dev_section(index: int) -> str:
    return f"{elf.PREFIX}dev.{index}"


def src_section(index: int) -> str:
    return f"{elf.PREFIX}src.{index}"


def core_section(index: int) -> str:
    return f"{elf.PREFIX}core.{index}"


# --------------------------------------------------------------------------- naming rules
# kernel_name (``<device>:<sequence>``) is defined with the manifest, whose slices name their
# kernel by it; the artifact and the runtime use the same function.


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def xclbin_kernel_name(device: str) -> str:
    """The xclbin kernel (and instance) name of ``device``'s kernel under separate dispatch.

    The one naming rule, used by the build (``--xclbin-kernel-name``) and by the
    XRT runner (``pyxrt.kernel(ctx, name)``): the device symbol itself when it
    is a C identifier of at most :data:`XCLBIN_NAME_MAX` characters
    (``op0_GEMM``, ``iron_reset``); otherwise its first 24 characters with every
    character outside ``[A-Za-z0-9_]`` replaced by ``_`` (and a ``k`` before a
    leading digit), then ``_`` and the first 6 hex digits of the symbol's
    SHA-1, so distinct symbols keep distinct names.
    """
    if _IDENTIFIER.match(device) and len(device) <= XCLBIN_NAME_MAX:
        return device
    stem = re.sub(r"[^A-Za-z0-9_]", "_", device)
    if not stem or stem[0].isdigit():
        stem = "k" + stem
    return f"{stem[:24]}_{hashlib.sha1(device.encode()).hexdigest()[:6]}"


#: Synthetic name of an embedded core ELF: ``[<device>/]core_<col>_<row>.elf``, the
#: column and row of the tile in its device's MLIR (aiecc's own file naming).
EMBEDDED = re.compile(r"(?:(?P<device>[^/]+)/)?core_(?P<col>\d+)_(?P<row>\d+)\.elf\Z")


def embedded_name(device: str, column: int, row: int) -> str:
    """The synthetic name under which an artifact and a capture keep a core's ELF."""
    return f"{device + '/' if device else ''}core_{column}_{row}.elf"


# --------------------------------------------------------------------------- records
@dataclass
class KernelArg:
    buffer: str  # a Sequence buffer name, or TRACE_BUFFER
    type: ir.MemRefType
    offset: int = 0  # bytes into ``buffer`` (separate dispatch binds trace slices as sub-buffers)


@dataclass
class Kernel:
    """One dispatchable kernel ``<device>:<sequence>`` and its host buffers in order."""

    name: str
    device: str
    sequence: str
    args: list[KernelArg]


@dataclass
class KernelImage:
    """One dispatchable kernel ``<device>:<sequence>`` and its control code."""

    name: str
    device: str
    sequence: str
    args: list[KernelArg]  # bindings of its first dispatch; the types are its signature
    control: bytes  # TXN binary (empty when the control code lives in aiecc's own sections)


@dataclass
class Dispatch:
    """One kernel run: which kernel, and which host buffers (or windows) bind its arguments.

    Separate dispatch runs one kernel per call site, so a design called twice is
    the same kernel bound to different buffers and trace sub-buffers.
    """

    kernel: str
    args: list[KernelArg]


# --------------------------------------------------------------------------- .iron.meta, written
def memref_json(t: ir.MemRefType) -> dict:
    return {"shape": list(t.shape), "dtype": t.dtype}


def args_json(args) -> list[dict]:
    return [{"buffer": a.buffer, **memref_json(a.type), "offset": a.offset} for a in args]


def kernel_entry(kernel: Kernel, section: str | None) -> dict:
    """A kernel's ``.iron.meta`` entry; ``section``: its control code (None: in aiecc's sections)."""
    return {
        "name": kernel.name,
        "device": kernel.device,
        "sequence": kernel.sequence,
        "args": args_json(kernel.args),
        "section": section,
    }


def meta_json(
    *,
    name: str,
    target: str,
    dispatch: str,
    backend: str,
    kernels: list[dict],
    schedule: list[Kernel],
    pdis: dict,
    buffers: dict[str, ir.MemRefType],
    inputs: list[str],
    outputs: list[str],
    trace_options,
    toolchain: str,
    iron_version: str,
    key: str,
    sources: dict,
    core_elfs: dict | None = None,
) -> bytes:
    """``.iron.meta``; ``core_elfs``: section -> synthetic name of each embedded core ELF."""
    meta = {
        "schema": META_SCHEMA,
        "name": name,
        "target": target,
        "dispatch": dispatch,
        "backend": backend,
        "kernels": kernels,
        "schedule": [{"kernel": k.name, "args": args_json(k.args)} for k in schedule],
        "pdis": pdis,
        "buffers": [{"name": n, **memref_json(t)} for n, t in buffers.items()],  # in argument order
        "inputs": inputs,
        "outputs": outputs,
        "trace_options": trace_options,
        "toolchain": toolchain,
        "iron_version": iron_version,
        "key": key,
        "sources": sources,
        **({"core_elfs": core_elfs} if core_elfs else {}),
    }
    return json.dumps(meta, sort_keys=True, indent=1).encode()


# --------------------------------------------------------------------------- .iron.meta, validated
#: Backends that write an artifact (``backend``): iron's lowering, aiecc's full ELF, aiecc's xclbin.
BACKENDS = ("builtin", "aiecc-full-elf", "aiecc-xclbin")
DISPATCHES = ("fused", "separate")
#: Largest host buffer an artifact may declare: what one shim BD can move (2**32 - 1 words),
#: rounded up to 16 GiB; a re-signed artifact declaring 2**40 bytes was a MemoryError.
MAX_BUFFER_BYTES = 1 << 34
#: Largest memref rank read (mlir-aie's DMAs have 4 dimensions; the host shapes are numpy's).
MAX_RANK = 8
#: Largest count of kernels, dispatches, buffers and sources an artifact may list.
MAX_ENTRIES = 1 << 16


class MetaError(CorruptArtifactError):
    """A ``.iron.meta`` field of the wrong type or out of range; the message names it."""


def _bad(where: str, value, accepted: str):
    shown = repr(value)
    raise MetaError(
        f"{META}: {where} = {shown if len(shown) <= 60 else shown[:57] + '...'}: accepted: {accepted}"
    )


def _m_str(value, where):
    if not isinstance(value, str):
        _bad(where, value, "a string")


def _m_int(lo: int, hi: int):
    def check(value, where):
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            _bad(where, value, f"an integer from {lo} to {hi}")

    return check


def _m_one_of(options):
    def check(value, where):
        if not isinstance(value, str) or value not in options:
            _bad(where, value, ", ".join(map(str, options)))

    return check


def _m_list(item):
    def check(value, where):
        if not isinstance(value, list) or len(value) > MAX_ENTRIES:
            _bad(where, value, f"a list of at most {MAX_ENTRIES} items")
        for i, v in enumerate(value):
            item(v, f"{where}[{i}]")

    return check


def _m_names(value, where):
    if not isinstance(value, dict) or len(value) > MAX_ENTRIES:
        _bad(where, value, "an object of section -> name")
    for k, v in value.items():
        if not isinstance(v, str):
            _bad(f"{where}[{k!r}]", v, "a string")


def _m_memref(value, where):
    shape, dtype = value.get("shape"), value.get("dtype")
    if not isinstance(dtype, str) or dtype not in ir.ELEMENT_BYTES:
        _bad(f"{where}.dtype", dtype, ", ".join(ir.ELEMENT_BYTES))
    if (
        not isinstance(shape, list)
        or not 1 <= len(shape) <= MAX_RANK
        or not all(
            isinstance(d, int) and not isinstance(d, bool) and 0 <= d <= MAX_BUFFER_BYTES for d in shape
        )
    ):
        _bad(f"{where}.shape", shape, f"a list of 1 to {MAX_RANK} sizes, each from 0 to {MAX_BUFFER_BYTES}")
    nbytes = ir.ELEMENT_BYTES[dtype]
    for d in shape:
        nbytes *= d
    if nbytes > MAX_BUFFER_BYTES:
        _bad(f"{where}.shape", shape, f"a buffer of at most {MAX_BUFFER_BYTES} bytes (this one: {nbytes})")


def _m_object(spec: dict, optional=()):
    def check(value, where):
        if not isinstance(value, dict):
            _bad(where, value, "a JSON object")
        unknown = sorted(set(value) - set(spec), key=str)
        if unknown:
            raise MetaError(f"{META}: unknown field {where}.{unknown[0]!r}; accepted: {', '.join(spec)}")
        missing = [k for k in spec if k not in value and k not in optional]
        if missing:
            raise MetaError(f"{META}: {where}.{missing[0]} is missing")
        for k, c in spec.items():
            if k in value:
                c(value, where) if c is _m_memref else c(value[k], f"{where}.{k}")

    return check


_ARG = _m_object(
    {"buffer": _m_str, "shape": _m_memref, "dtype": lambda v, w: None, "offset": _m_int(0, MAX_BUFFER_BYTES)},
    optional=("offset",),
)
_KERNEL = _m_object(
    {
        "name": _m_str,
        "device": _m_str,
        "sequence": _m_str,
        "args": _m_list(_ARG),
        "section": lambda v, w: None if v is None else _m_str(v, w),
        "xclbin_kernel": _m_str,  # separate dispatch built by aiecc: the kernel's name in the xclbin
    },
    optional=("section", "xclbin_kernel"),
)
_BUFFER = _m_object({"name": _m_str, "shape": _m_memref, "dtype": lambda v, w: None})
_PDI = _m_object({"device": _m_str, "section": _m_str})
_TRACE_OPTIONS = lambda v, w: None if isinstance(v, dict) else _bad(w, v, "a JSON object")  # noqa: E731
#: Every ``.iron.meta`` field (:func:`meta_json`) and its check; ``core_elfs`` and
#: ``backend`` may be absent (older artifacts, untraced builds).
META_FIELDS = {
    "schema": _m_int(0, META_SCHEMA),
    "name": _m_str,
    "target": _m_one_of(tuple(TARGETS)),
    "dispatch": _m_one_of(DISPATCHES),
    "backend": _m_one_of(BACKENDS),
    "kernels": _m_list(_KERNEL),
    "schedule": _m_list(_m_object({"kernel": _m_str, "args": _m_list(_ARG)})),
    "pdis": lambda v, w: _m_pdis(v, w),
    "buffers": _m_list(_BUFFER),
    "inputs": _m_list(_m_str),
    "outputs": _m_list(_m_str),
    "trace_options": _TRACE_OPTIONS,
    "toolchain": _m_str,
    "iron_version": _m_str,
    "key": _m_str,
    "sources": _m_names,
    "core_elfs": _m_names,
}
_META_OPTIONAL = ("backend", "core_elfs", "schema")


def _m_pdis(value, where):
    if not isinstance(value, dict) or len(value) > MAX_ENTRIES:
        _bad(where, value, "an object of PDI id -> {device, section}")
    for pid, entry in value.items():
        if not (isinstance(pid, str) and pid.isascii() and pid.isdigit() and len(pid) <= 9):
            _bad(f"{where} key", pid, "a PDI id (decimal digits)")
        _PDI(entry, f"{where}[{pid!r}]")


def validate_meta(meta) -> None:
    """Check a loaded ``.iron.meta`` object field by field (:data:`META_FIELDS`) and across
    fields (kernel and buffer names unique; every argument, input and output a declared
    buffer; every dispatch a declared kernel; every PDI device distinct); the first
    violation raises one :class:`MetaError` naming the field, its value and what is
    accepted. Code past :meth:`Artifact.open` can trust every field."""
    if isinstance(meta, dict) and isinstance(meta.get("schema"), int) and meta["schema"] > META_SCHEMA:
        raise ArtifactError(
            f"artifact format {meta['schema']} is newer than this iron supports ({META_SCHEMA})"
        )
    _m_object(META_FIELDS, optional=_META_OPTIONAL)(meta, "meta")
    buffers = [b["name"] for b in meta["buffers"]]
    for what, names in (("buffers", buffers), ("kernels", [k["name"] for k in meta["kernels"]])):
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise MetaError(f"{META}: {what}: {dup[0]!r} is listed twice")
    known = set(buffers) | {TRACE_BUFFER}
    kernels = {k["name"] for k in meta["kernels"]}
    places = [(f"kernels[{i}]", k) for i, k in enumerate(meta["kernels"])]
    places += [(f"schedule[{i}]", d) for i, d in enumerate(meta["schedule"])]
    for where, entry in places:
        for j, a in enumerate(entry["args"]):
            if a["buffer"] not in known:
                _bad(f"{where}.args[{j}].buffer", a["buffer"], "a name in buffers (or 'trace')")
    for i, d in enumerate(meta["schedule"]):
        if d["kernel"] not in kernels:
            _bad(f"schedule[{i}].kernel", d["kernel"], "a name in kernels")
    for what in ("inputs", "outputs"):
        for i, name in enumerate(meta[what]):
            if name not in buffers:
                _bad(f"{what}[{i}]", name, "a name in buffers")
    devices = [e["device"] for e in meta["pdis"].values()]
    if len(set(devices)) != len(devices):
        raise MetaError(f"{META}: pdis: a device listed twice")
    for sec, name in meta.get("core_elfs", {}).items():
        if not EMBEDDED.match(name):
            _bad(f"core_elfs[{sec!r}]", name, "[<device>/]core_<col>_<row>.elf")


def load_meta(data: bytes, path) -> dict:
    """The validated ``.iron.meta`` of the artifact at ``path`` (:func:`validate_meta`)."""
    try:
        meta = json.loads(data)
    except RecursionError:  # a 100k-deep JSON
        raise MetaError(f"{path}: unreadable {META}: nested too deeply") from None
    except ValueError as exc:  # UnicodeDecodeError is a ValueError
        raise MetaError(f"{path}: unreadable {META}: {exc}") from None
    try:
        validate_meta(meta)
    except ArtifactError as exc:
        raise type(exc)(f"{path}: {exc}") from None
    return meta


# --------------------------------------------------------------------------- the artifact, read
@dataclass
class Artifact:
    """What :func:`iron.build` returns and what runners load, read from the ELF alone
    (:meth:`open`), so an artifact copied anywhere can be inspected and run without
    MLIR or a build directory."""

    path: Path
    name: str
    target: str
    dispatch: str  # "fused" | "separate"
    kernels: dict[str, KernelImage]
    schedule: list[Dispatch]  # dispatches in order (a kernel may run several times)
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
    def trace_total_size(self) -> int:
        """Bytes of the whole trace buffer, every slice (0 when untraced); not the per-site
        ``trace_size`` the build was given."""
        return self.manifest.total_size if self.manifest else 0

    @classmethod
    def open(cls, path: str | os.PathLike) -> "Artifact":
        """Read an artifact; raises :class:`ArtifactError` if it is damaged or not iron's."""
        path = Path(path)
        sections = read_sections(path)
        if META not in sections:
            raise ArtifactError(f"{path}: no {META} section; not an iron artifact")
        meta = load_meta(sections[META], path)  # every field checked: _from_meta trusts them
        return cls._from_meta(path, meta, sections)

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
                raise CorruptArtifactError(f"{path}: missing section {k['section']!r}")
            kernels[k["name"]] = KernelImage(k["name"], k["device"], k["sequence"], args, code)
        pdis = {}
        for pid, entry in meta["pdis"].items():
            if entry["section"] not in sections:
                raise CorruptArtifactError(f"{path}: missing section {entry['section']!r}")
            try:
                pdis[int(pid)] = DevicePayload.from_json(sections[entry["section"]])
            except ArtifactError:
                raise
            except (ValueError, KeyError, TypeError, AttributeError, IndexError, RecursionError) as exc:
                # the payload's own reader (iron.artifact.pdi) on a damaged section
                raise CorruptArtifactError(f"{path}: unreadable {entry['section']!r}: {exc!r}") from None
        manifest = None
        if TRACE in sections:
            try:
                manifest = Manifest.from_json(sections[TRACE])
            except ManifestError as exc:
                raise CorruptArtifactError(f"{path}: {exc}") from None
        for sec in meta.get("sources", {}):
            if sec not in sections:
                raise CorruptArtifactError(f"{path}: missing section {sec!r}")
        try:
            sources = {name: sections[sec].decode() for sec, name in meta.get("sources", {}).items()}
        except UnicodeDecodeError as exc:
            raise CorruptArtifactError(f"{path}: a source section is not UTF-8 text: {exc}") from None
        for sec in meta.get("core_elfs", {}):
            if sec not in sections:
                raise CorruptArtifactError(f"{path}: missing section {sec!r}")
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

    def load(self, device: str | None = None, *, kernels=None):
        """A runner for this artifact on ``device`` ("auto", "sim" or "xrt"; None:
        ``IRON_DEVICE``): :func:`iron.load` (``kernels``: sim's models of kernels it has none of).

        The package facade composes the runtime with the operator library sim
        runs; the artifact knows neither (docs/ARCHITECTURE.md, "Loading")."""
        import iron

        return iron.load(self, device, kernels=kernels)


def _args(entries: list[dict]) -> list[KernelArg]:
    return [KernelArg(a["buffer"], _memref(a), a.get("offset", 0)) for a in entries]


def _memref(entry: dict) -> ir.MemRefType:
    return ir.MemRefType(tuple(entry["shape"]), entry["dtype"])


def read_sections(path: str | os.PathLike, *, verify: bool = True) -> dict[str, bytes]:
    """Sections of the artifact at ``path``, with any sidecar of :data:`SIDECARS`."""
    return elf.read_sections(path, verify=verify, sidecars=SIDECARS)


def read_manifest(path: str | os.PathLike) -> Manifest | None:
    """The trace manifest of an artifact (iron's or aiecc's ELF, or its sidecar), or None."""
    sections = read_sections(path)
    if META not in sections and TRACE not in sections:
        raise ArtifactError(f"{os.fspath(path)}: an ELF without iron's sections; not an iron artifact")
    try:
        return Manifest.from_json(sections[TRACE]) if TRACE in sections else None
    except ManifestError as exc:
        raise CorruptArtifactError(f"{os.fspath(path)}: {exc}") from None


def read_core_elfs(path: str | os.PathLike) -> dict[str, bytes]:
    """The core ELFs embedded in an artifact (sources flag): synthetic name -> bytes."""
    sections = read_sections(path)
    if META not in sections:
        return {}
    names = load_meta(sections[META], os.fspath(path)).get("core_elfs", {})
    missing = [sec for sec in names if sec not in sections]
    if missing:
        raise CorruptArtifactError(f"{os.fspath(path)}: missing section {missing[0]!r}")
    return {name: sections[sec] for sec, name in names.items()}
