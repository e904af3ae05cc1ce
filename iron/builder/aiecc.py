"""The real toolchain path: compile the materialized module with mlir-aie's aiecc.

Used by :func:`iron.build` when ``aiecc`` is on PATH (the C++ driver needs no
Python bindings; :func:`available`). The result is iron's own ELF container
(:mod:`iron.artifact.elf`): iron's sections (``.iron.meta``, ``.iron.trace``, ``.iron.sum``
...) beside aiecc's full ELF or xclbin, which it holds byte for byte
(``.iron.full_elf``, ``.iron.xclbin``), so XRT is handed aiecc's bytes, never a
rewritten file (docs/design.md 10.2). With
sources on, the core ELFs aiecc linked go in too (``.iron.core.<n>``, under
synthetic names: :func:`core_elfs`), so a capture maps EVENT_PC program counters
to functions without ``--core-elf``.

**Fused dispatch** (npu2): one aiecc run over the whole module asks for one full
ELF (aiebu): ``--generate-full-elf`` (legacy drivers) or ``--get-full-elf``
(declarative driver), and ``--full-elf-name``.

**Separate dispatch** (npu1, npu2 with ``dispatch="separate"``): real aiecc puts
one device in an xclbin, so iron runs aiecc once per distinct device that a
kernel uses, in first-use order (the empty ``iron_reset`` device included when
scheduled), as amd/IRON's separate dispatch does. Run *i* selects its device
with ``--device-name`` (and ``--sequence-name``), asks for an xclbin
(``--aie-generate-xclbin`` / ``--get-xclbin``) and the instruction binary
(``--aie-generate-npu-insts`` / ``--get-npu-insts``), names its kernel with
``--xclbin-kernel-name`` = ``--xclbin-instance-name`` =
:func:`iron.artifact.schema.xclbin_kernel_name` (device) and ``--xclbin-kernel-id`` = ``0x901 + i``,
and links onto the previous run's xclbin with ``--xclbin-input``. The last
xclbin therefore carries every kernel, each with its own PDI; the host
registers it once and calls each device's kernel by name
(:mod:`iron.runtime.xrt`). The xclbin firmware loads the dispatched kernel's
PDI itself, so iron removes each sequence's ``load_pdi`` of its own device
from aiecc's input (in an xclbin every PDI carries ``pdi_id`` 1, so an
in-stream load by id would be ambiguous); the reset kernel's sequence is then
empty, and dispatching it is what switches PDIs.

**Materialization.** iron hands aiecc an already materialized module: every
``aiex.configure``/``aiex.run`` is inlined by :mod:`iron.lower.materialize`,
which also translates numeric ``address_patch arg_idx`` to the dispatched
sequence's arguments (aiecc's ``aie-materialize-runtime-sequences`` does not;
that was the original trace bug). aiecc's pass then has nothing to do; iron
still passes ``--no-materialize`` when the driver's ``--help`` lists it, so
aiecc cannot touch the translated patches. iron does **not** pass
``--expand-load-pdis`` (amd/IRON does for its fused ELF): iron's trace
isolation relies on real PDI loads (a different PDI resets DMA channels and
trace units; ``iron_reset`` forces one between consecutive traced calls of a
design), and expanding them into register writes would change that.

Flag names (mlir-aie ``python/compiler/aiecc/cl_arguments.py`` for the legacy
Python driver, ``tools/aiecc/aiecc.cpp`` for the C++ driver with legacy flags,
``tools/aiecc/CommandLineOptions.h`` for the declarative ``--get-<name>``
driver): :func:`flag_style` reads ``aiecc --help`` to pick one. Paths in the
argv are relative: aiecc runs in the work directory.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

from iron.artifact import elf, schema
from iron.builder import aiecc_input, peano, sections as sec, toolchain
from iron.artifact.schema import xclbin_kernel_name
from iron.errors import IronError
from iron.mlir import ir
from iron.mlir.printer import print_module
from iron.target.xclbin import XCLBIN_KERNEL_ID_BASE, XCLBIN_KERNEL_ID_MAX, XCLBIN_MAX_PDIS

EXE = "aiecc"
FULL_ELF = "aie.elf"
#: How each flag style selects an output: legacy flag, or ``--get-<name>``.
OUTPUT_FLAGS = {
    "full-elf": "--generate-full-elf",
    "xclbin": "--aie-generate-xclbin",
    "npu-insts": "--aie-generate-npu-insts",
}
#: Switches that turn off Chess (cores and linker), host code and the simulator on drivers
#: that default to them. Each is passed when the driver lists it, whatever its output-flag
#: style: the declarative driver's first releases still compiled with Chess by default, and
#: its newest one (Peano by default) rejects them as unknown.
LEGACY_OFF = ["--no-aiesim", "--no-xchesscc", "--no-xbridge", "--no-compile-host"]
#: The C++ driver lowers object FIFOs dynamically by default (a9e39fae
#: ``tools/aiecc/CommandLineOptions.h``: ``dynamicObjFifos``, ``cl::init(true)``); the Python
#: drivers before it statically (``--dynamic-objFifos`` was opt-in). iron asks for the static
#: lowering everywhere: it is the one iron's object-FIFO model is checked against
#: (``objectFifo-stateful-transform`` lit tests, the real aie-opt), and the dynamic one needs
#: an MLIR newer than some builds of that era have ("held counter could not be promoted").
STATIC_FIFOS = "--dynamic-objFifos=false"
#: Instruction-binary name templates. Legacy: {0} device, {1} sequence; the
#: declarative driver expands {0} to its device/sequence key.
INSTS = {"legacy": "insts_{0}_{1}.bin", "get": "insts_{0}.bin"}


class AieccError(IronError):
    """aiecc failed or produced no output."""


def available() -> bool:
    """True when mlir-aie's aiecc is on PATH. iron needs no Python bindings (``aie``): it only
    runs aiecc and aie-opt, and the C++ aiecc (a9e39fae ``tools/aiecc``, the wheels' driver
    since then) is a program of its own; the older Python driver brings ``aie`` with it."""
    return shutil.which(EXE) is not None


def xclbin_kernel_id(index: int) -> str:
    """``--xclbin-kernel-id`` of the ``index``-th device's kernel: ``0x901 + index``."""
    kid = XCLBIN_KERNEL_ID_BASE + index
    if index < 0 or kid > XCLBIN_KERNEL_ID_MAX:
        raise AieccError(
            f"kernel index {index}: xclbin kernel ids run from {XCLBIN_KERNEL_ID_BASE:#x} "
            f"to {XCLBIN_KERNEL_ID_MAX:#x}"
        )
    return f"{kid:#x}"


def toolchain_identity(exe: str = EXE) -> str:
    """The toolchain's part of the cache key (:func:`iron.builder.toolchain.identity`)."""
    return toolchain.identity(exe)


toolchain_identity.cache_clear = toolchain.identity.cache_clear  # tests swap the executable


@functools.lru_cache(maxsize=None)
def help_text(exe: str = EXE) -> str:
    """``aiecc --help`` (stdout and stderr), read once per executable."""
    try:
        out = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise AieccError(f"cannot run {exe} --help: {exc}") from None
    return out.stdout + out.stderr


def flag_style(exe: str = EXE) -> str:
    """``"get"`` for drivers that select outputs with ``--get-<name>``, else ``"legacy"``."""
    text = help_text(exe)
    return "legacy" if OUTPUT_FLAGS["full-elf"] in text or OUTPUT_FLAGS["xclbin"] in text else "get"


def supports(flag: str, exe: str = EXE) -> bool:
    """True when ``aiecc --help`` lists ``flag`` (an unknown flag makes aiecc fail)."""
    return re.search(re.escape(flag) + r"(?![\w-])", help_text(exe)) is not None


def _output(style: str, name: str) -> str:
    return f"--get-{name}" if style == "get" else OUTPUT_FLAGS[name]


def _base(exe: str, style: str, tmpdir: str, off: list[str] | None = None) -> list[str]:
    if style not in INSTS:
        raise AieccError(f"unknown aiecc flag style {style!r}")
    return [exe, f"--tmpdir={tmpdir}"] + (LEGACY_OFF if off is None else off)


def off_switches(exe: str = EXE) -> list[str]:
    """The Chess/host/simulator-off switches this driver lists in ``--help``."""
    return [flag for flag in LEGACY_OFF if supports(flag, exe)]


def fused_command(
    mlir: str,
    *,
    style: str = "legacy",
    exe: str = EXE,
    no_materialize: bool = False,
    off: list[str] | None = None,
) -> list[str]:
    """The aiecc argv that compiles the whole module into one full ELF (:data:`FULL_ELF`).
    ``off``: the off-switches to pass (default: all of :data:`LEGACY_OFF`)."""
    argv = _base(exe, style, "prj", off) + [_output(style, "full-elf"), f"--full-elf-name={FULL_ELF}"]
    return argv + (["--no-materialize"] if no_materialize else []) + [mlir]


def device_dir(index: int) -> str:
    """Where run ``index`` of separate dispatch writes its xclbin and instruction binaries."""
    return f"dev{index}"


def device_command(
    mlir: str,
    device: str,
    index: int,
    *,
    sequence: str | None = None,
    xclbin_input: str | None = None,
    style: str = "legacy",
    exe: str = EXE,
    no_materialize: bool = False,
    off: list[str] | None = None,
) -> list[str]:
    """The aiecc argv of separate dispatch's run ``index``: ``device``'s xclbin (linked onto
    ``xclbin_input``) and instruction binaries, written under :func:`device_dir`."""
    out = device_dir(index)
    name = xclbin_kernel_name(device)
    argv = _base(exe, style, f"prj{index}", off) + [f"--device-name={device}"]
    if sequence is not None:
        argv.append(f"--sequence-name={sequence}")
    argv += [
        _output(style, "xclbin"),
        f"--xclbin-name={out}/{{0}}.xclbin",
        f"--xclbin-kernel-name={name}",
        f"--xclbin-instance-name={name}",
        f"--xclbin-kernel-id={xclbin_kernel_id(index)}",
    ]
    if xclbin_input is not None:
        argv.append(f"--xclbin-input={xclbin_input}")
    argv += [_output(style, "npu-insts"), f"--npu-insts-name={out}/{INSTS[style]}"]
    return argv + (["--no-materialize"] if no_materialize else []) + [mlir]


def find_output(directory: Path, names: list[str], pattern: str, what: str) -> Path:
    """The first of ``names`` in ``directory``, else the only file matching ``pattern``."""
    for name in names:
        if (directory / name).is_file():
            return directory / name
    found = sorted(directory.glob(pattern))
    if len(found) == 1:
        return found[0]
    listing = ", ".join(p.name for p in found) or "nothing"
    raise AieccError(f"aiecc wrote no {what} in {directory} (looked for {', '.join(names)}; found {listing})")


def find_insts(directory: Path, device: str, sequence: str) -> Path:
    """The instruction binary aiecc wrote for ``device``/``sequence`` (either template style)."""
    names = [f"insts_{device}_{sequence}.bin", f"insts_{device}.bin"]
    return find_output(directory, names, "insts_*.bin", f"instruction binary for {device}:{sequence}")


#: Where aiecc leaves a linked core ELF: ``core_<col>_<row>.elf`` (the legacy Python
#: driver's ``corefile()``, aiecc/main.py), in the work dir or a ``<device>/`` folder of
#: it, or named by the C++ driver's per-core key ``<device>_core_<col>_<row>``
#: (tools/aiecc/IRTransforms.h ``coreKey``) with ``.elf``.
_CORE_ELF = re.compile(r"(?:(?P<device>.+)_)?core_(?P<col>\d+)_(?P<row>\d+)\.elf\Z")


def core_elfs(work: Path, devices) -> dict[str, bytes]:
    """The core ELFs aiecc wrote under ``work``, by synthetic name
    (:func:`iron.artifact.schema.embedded_name`: device and tile, never a path). The
    device comes from the file name or its folder when it is one of ``devices``;
    an ELF of an unknown device keeps only the tile. The first file found (sorted
    by path) wins for each tile."""
    known = set(devices)
    out: dict[str, bytes] = {}
    for path in sorted(work.rglob("*.elf")):
        m = _CORE_ELF.match(path.name)
        if m is None or not path.is_file():
            continue
        device = m["device"] if m["device"] in known else ""
        if not device and m["device"] is None:
            device = next((p.name for p in path.relative_to(work).parents if p.name in known), "")
        out.setdefault(schema.embedded_name(device, int(m["col"]), int(m["row"])), path.read_bytes())
    return out


def core_sections(ctx, work: Path) -> tuple[dict[str, bytes], dict[str, str]]:
    """Sections and meta entries (section -> synthetic name) of the core ELFs to
    embed: only when the build embeds its sources (the same debug flag)."""
    if not ctx.with_sources:
        return {}, {}
    found = core_elfs(work, ctx.pdi_ids)
    sections = {schema.core_section(i): data for i, data in enumerate(found.values())}
    return sections, dict(zip(sections, found))


def _run(argv: list[str], cwd: Path) -> None:
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-20:])
        raise AieccError(f"aiecc failed (exit {proc.returncode}): {' '.join(argv)}\n{tail}")


def place_foreign_objects(fm, work: Path) -> list[Path]:
    """Copy the kernel objects of the foreign designs in ``fm`` into aiecc's working folder,
    under the name their ``link_with`` gives (aiecc resolves it against its cwd). A name
    iron found nowhere, or one name for two different files, is one :class:`AieccError`
    before aiecc runs, naming the ``link_with`` and where iron looked."""
    placed: dict[str, tuple[str, bytes]] = {}
    missing = []
    for op in fm.operators.values():
        for obj in getattr(op, "kernel_objects", ()):
            if obj.path is None:
                missing.append(
                    f'link_with = "{obj.link_with}" of {op.op_name} (looked in: {"; ".join(obj.looked)})'
                )
                continue
            data = Path(obj.path).read_bytes()
            if obj.link_with in placed and placed[obj.link_with][1] != data:
                raise AieccError(
                    f'link_with = "{obj.link_with}": two different files ({placed[obj.link_with][0]}, {obj.path}) '
                    "would share one name in aiecc's folder; rename one object and its link_with"
                )
            placed[obj.link_with] = (obj.path, data)
    if missing:
        raise AieccError(
            "kernel objects not found, so aiecc could not link: "
            + "; ".join(missing)
            + ". Pass them with iron.from_mlir(..., objects=[...]) or put them beside the design file"
        )
    out = []
    for name, (src, data) in placed.items():
        dest = _object_destination(work, name, src)
        if dest is None:
            continue  # an absolute link_with naming the very file iron found: aiecc reads it there
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)
        out.append(dest)
    return out


def _object_destination(work: Path, name: str, src: str) -> Path | None:
    """Where the object ``link_with = name`` goes: inside aiecc's folder ``work``, never
    outside it. An absolute ``name`` that is the file iron found needs no copy (None); any
    other name leaving the folder (absolute, ``..``) is an :class:`AieccError`, before anything
    is written."""
    if Path(name).is_absolute() and os.path.realpath(name) == os.path.realpath(src):
        return None
    dest = Path(os.path.normpath(work / name))
    if Path(name).is_absolute() or not dest.is_relative_to(Path(os.path.normpath(work))):
        raise AieccError(
            f'link_with = "{name}" names a path outside aiecc\'s folder, and the object iron found for it '
            f"is {src}; iron writes kernel objects only inside that folder: give link_with a plain file "
            "name (resolved beside the design or from objects=[...])"
        )
    return dest


@dataclass(frozen=True)
class _Driver:
    """How to call this aiecc: its executable, flag style and the switches its ``--help`` lists."""

    exe: str
    style: str
    no_materialize: bool
    off: list[str]

    def flags(self) -> dict:
        """The keywords :func:`fused_command` and :func:`device_command` take from the driver."""
        return dict(style=self.style, exe=self.exe, no_materialize=self.no_materialize, off=self.off)


def _driver(exe: str, style: str | None) -> _Driver:
    """Ask ``exe --help`` which flags it takes (``style`` None: its output-flag style too)."""
    style = style or flag_style(exe)
    no_materialize = supports("--no-materialize", exe)
    off = off_switches(exe)
    if supports("--peano", exe):  # link the cores with the Peano that compiled the kernels
        off.append(f"--peano={peano.find_peano()}")
    if style == "get" and supports(STATIC_FIFOS.split("=")[0], exe):
        off.append(STATIC_FIFOS)
    return _Driver(exe, style, no_materialize, off)


def _write_input(ctx, work: Path) -> str:
    """Write aiecc's input into ``work``: the materialized module and every kernel object it
    links (compiled, or a foreign design's own). Returns the module's file name."""
    fm = ctx.fm
    module = aiecc_input.input_module(fm, ctx.translate_patches)
    src = "fused.mlir"
    (work / src).write_text(print_module(module, ctx.era))  # as sources' aiecc.mlir (aiecc_input)
    objects = [k for d in fm.designs.values() for k in d.kernels]
    place_foreign_objects(fm, work)  # a foreign design's own objects (missing: fails here)
    funcs = peano.declared_funcs(module)  # checked against each source first
    peano.compile_kernels(objects, work, ctx.cache_dir, ctx.status, funcs)  # where link_with resolves
    return src


def build_elf(ctx, *, exe: str = EXE, style: str | None = None) -> bytes:
    """Compile ``ctx.fm`` with aiecc; the artifact bytes (iron sections included)."""
    driver = _driver(exe, style)
    if ctx.fm.dispatch not in ("fused", "separate"):
        raise AieccError(f"dispatch {ctx.fm.dispatch!r}: expected 'fused' or 'separate'")
    with tempfile.TemporaryDirectory(prefix="iron-aiecc-") as tmp:
        work = Path(tmp)
        src = _write_input(ctx, work)
        own = sec.IronSections.of(ctx)  # sim can still run the artifact
        if ctx.fm.dispatch == "fused":
            return _fused_elf(ctx, work, src, driver, own)
        return _separate_elf(ctx, work, src, driver, own)


def _fused_elf(ctx, work: Path, src: str, driver: _Driver, own: sec.IronSections) -> bytes:
    """Fused dispatch: one aiecc run writes the full ELF, kept verbatim beside iron's sections."""
    ctx.status.step("aiecc")
    _run(fused_command(src, **driver.flags()), work)
    out = work / FULL_ELF
    if not out.exists():
        raise AieccError(f"aiecc did not write {out}")
    entries = [schema.kernel_entry(k, None) for k in ctx.fm.kernels]
    cores, core_names = core_sections(ctx, work)
    meta = own.meta(ctx, entries, "aiecc-full-elf", core_names)
    # aiecc's ELF goes in verbatim: adding sections to it would renumber the ones
    # its SHT_GROUP member lists name (docs/design.md 10.2)
    return elf.write_elf(
        {schema.META: meta, schema.FULL_ELF: out.read_bytes(), **own.devices, **own.sources, **cores}
    )


def _separate_elf(ctx, work: Path, src: str, driver: _Driver, own: sec.IronSections) -> bytes:
    """Separate dispatch: every kernel's instruction binary and the last xclbin (it carries
    every kernel) beside iron's sections."""
    fm = ctx.fm
    insts, xclbin = _run_per_device(ctx, work, src, driver)
    sections = {}
    entries = []
    for i, k in enumerate(fm.kernels):
        sections[schema.code_section(i)] = insts[k.device, k.sequence]
        entry = schema.kernel_entry(k, schema.code_section(i))
        entry["xclbin_kernel"] = xclbin_kernel_name(k.device)
        entries.append(entry)
    sections[schema.XCLBIN] = xclbin.read_bytes()  # the last one: it carries every kernel
    cores, core_names = core_sections(ctx, work)
    return elf.write_elf(
        {
            schema.META: own.meta(ctx, entries, "aiecc-xclbin", core_names),
            **sections,
            **own.devices,
            **own.sources,
            **cores,
        }
    )


def _run_per_device(ctx, work: Path, src: str, driver: _Driver) -> tuple[dict, Path]:
    """One aiecc run per device, each xclbin linked onto the previous one: the instruction
    binaries by (device, sequence) and the last xclbin."""
    fm = ctx.fm
    devices = list(dict.fromkeys(k.device for k in fm.kernels))
    if len(devices) > XCLBIN_MAX_PDIS:
        warnings.warn(
            f"{fm.name}: separate dispatch needs {len(devices)} PDIs in one xclbin; the amdxdna "
            f"driver registers at most {XCLBIN_MAX_PDIS}",
            stacklevel=4,  # build_elf's caller (iron.builder.build.build)
        )
    insts: dict[tuple[str, str], bytes] = {}
    xclbin: Path | None = None
    for i, device in enumerate(devices):
        sequences = [k.sequence for k in fm.kernels if k.device == device]
        (work / device_dir(i)).mkdir()
        argv = device_command(
            src,
            device,
            i,
            sequence=sequences[0] if len(sequences) == 1 else None,
            xclbin_input=None if xclbin is None else str(xclbin.relative_to(work)),
            **driver.flags(),
        )
        ctx.status.step(f"aiecc {device}")
        _run(argv, work)
        out = work / device_dir(i)
        xclbin = find_output(out, [f"{device}.xclbin"], "*.xclbin", f"xclbin for {device}")
        for seq in sequences:
            insts[device, seq] = find_insts(out, device, seq).read_bytes()
    return insts, xclbin
