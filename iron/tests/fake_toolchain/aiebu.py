"""A stand-in for aiebu's full-ELF writer (``aiebu-asm -t aie2_config``), for the fake aiecc.

It writes a group ELF laid out as aiebu writes them, from aiecc's input module,
with iron's built-in lowering producing the control code:

* ELFIO order: index 0 the null section, index 1 ``.shstrtab`` (ELFIO makes it when
  the writer is created), then ``.strtab`` and ``.symtab`` (``init_symtab``), then
  per kernel instance ``.ctrltext.<n>`` / ``.ctrldata.<n>`` and its ``.group.<n>``
  whose data is ``[GRP_COMDAT, member indices...]``, ``sh_info`` = the instance's
  ``STT_OBJECT`` symbol, ``sh_link`` = ``.symtab`` (aiebu ``elfwriter.cpp``
  ``add_group``, ``aie2ps_elfwriter.h`` ``process``; ``init_symtab``,
  ``add_symtab`` (kernel: ``STT_FUNC``), ``add_symtab_section`` (instance:
  ``STT_OBJECT`` whose ``st_shndx`` is the kernel symbol's index)).
* one kernel per ``aie.device`` with runtime sequences (the unnamed wrapper is
  ``main``), one instance per sequence (aiecc's full-ELF config: mlir-aie
  ``python/compiler/aiecc/main.py`` ``generate_full_elf_config_json``); the kernel
  symbol is an Itanium-mangled signature (``_Z4mainPcPcPc``), one ``char*`` per
  argument of the widest sequence, as XRT demangles it (``xrt_elf.cpp``).
* ``.pdi.<id>``: one per device with a PDI (ids as iron numbers them, module order
  from 1). A real PDI is the device's configuration image; this fake's is the JSON
  of iron's sim payload for that device (:data:`PDI_DIR_ENV`, see :func:`pdi_key`),
  which the fake NPU's "firmware" (``iron/tests/fake_pyxrt.py``) loads.
* ``.note.xrt.configuration`` (partition columns, u32) and ``.note.xrt.UID``:
  ``is_full_elf()`` in XRT is "has ``.note.xrt.configuration``".
* header: ELFCLASS32 LE, ``ET_EXEC``, ``EM_M32`` (1), ``EI_OSABI`` 69 (aie2p), ABI
  version 0x10 (major 1: a group ELF, ``elf_reader_aie2p::is_group_elf``).

Sources: Xilinx/aiebu ``src/cpp/aiebu/src/elf/elfwriter.cpp`` (newest stored text),
``src/cpp/aiebu/src/elf/aie2ps/aie2ps_elfwriter.h``; Xilinx/XRT
``src/runtime_src/core/common/api/xrt_elf.cpp`` (``parse_single_group_section``,
``get_kernel_subkernel_from_symtab``, ``resolve_ctrlcode_id``, ``init_simple_buf_map``).
"""

from __future__ import annotations

import hashlib
import os
import struct
from pathlib import Path

SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB, SHT_NOTE, SHT_GROUP = 1, 2, 3, 7, 17
SHF_WRITE, SHF_ALLOC, SHF_EXECINSTR = 1, 2, 4
STB_WEAK, STT_OBJECT, STT_FUNC = 2, 1, 2
GRP_COMDAT = 1
ET_EXEC, EM_M32 = 2, 1
OSABI_AIE2P, ABI_GROUP = 69, 0x10
NT_XRT_UID, NT_XRT_PARTITION_SIZE = 4, 5
#: Where the test harness leaves sim payloads by :func:`pdi_key` (one JSON file each).
PDI_DIR_ENV = "IRON_FAKE_PDI_DIR"


class FakeAiebuError(Exception):
    pass


def mangle(name: str, nargs: int) -> str:
    """``_Z<len><name>`` + ``Pc`` per argument: ``name(char*, ...)`` demangled."""
    return f"_Z{len(name)}{name}" + "Pc" * nargs


def pdi_key(device) -> str:
    """What identifies a device's PDI for the fake: sha256 of the device printed
    without its runtime sequences (the sequences are control code, not configuration) and
    without declarative ``aie.trace`` ops (the module iron hands aiecc drops those no
    sequence configures: :func:`iron.lower.materialize.materialize`)."""
    from iron.mlir import ir
    from iron.mlir.printer import print_device
    from iron.mlir.trace_ops import is_trace_op

    kept = [op for op in device.body if not isinstance(op, ir.RuntimeSequence) and not is_trace_op(op)]
    bare = ir.Device(device.target, device.symbol, kept)
    return hashlib.sha256(print_device(bare).encode()).hexdigest()


def record_payloads(directory, module, payloads: dict[str, bytes]) -> None:
    """Harness side: store each device's sim payload under its :func:`pdi_key`."""
    Path(directory).mkdir(parents=True, exist_ok=True)
    for sym, data in payloads.items():
        (Path(directory) / f"{pdi_key(module.device(sym))}.json").write_bytes(data)


def _payload(device, directory) -> bytes:
    path = Path(directory) / f"{pdi_key(device)}.json"
    if not path.is_file():
        raise FakeAiebuError(f"fake aiebu: no PDI model for device @{device.symbol} in {directory}")
    return path.read_bytes()


def kernel_streams(mlir_text: str, *, drop_own_pdi: bool = False):
    """``(module, pdi ids, [(kernel, instance, nargs, txn bytes)])`` of every runtime
    sequence in aiecc's input, lowered with iron's built-in lowering."""
    from iron.builder.sections import pdi_ids as iron_pdi_ids
    from iron.lower import npu
    from iron.lower.materialize import sequence_ops
    from iron.mlir import ir, txn_codec
    from iron.mlir.reader import parse
    from iron.target.geometry import device_columns, target_for_device

    module = parse(mlir_text, filename="fused.mlir")
    ids = iron_pdi_ids(module)
    out = []
    for device in module.devices:
        for seq in device.sequences:
            dispatches = any(isinstance(op, (ir.Configure, ir.Run)) for op in seq.body)
            ops = sequence_ops(module, device, seq, inline=not dispatches and device.symbol in ids)
            arch = target_for_device(device.target).name
            header = txn_codec.header_for(arch, device_columns(device.target))
            code = txn_codec.encode(header, npu.lower_ops(ops, ids, arch))
            out.append((device.symbol or "main", seq.name or "sequence", len(seq.args), code))
    return module, ids, out


class _Writer:
    """Sections in ELFIO's order: null, .shstrtab, then as added."""

    def __init__(self):
        self.sections = [None, [".shstrtab", SHT_STRTAB, 0, b"", 0, 0, 1, 0]]

    def add(self, name, type_, flags, data=b"", link=0, info=0, align=1, entsize=0) -> int:
        self.sections.append([name, type_, flags, bytes(data), link, info, align, entsize])
        return len(self.sections) - 1

    def image(self) -> bytes:
        names = b"\0"
        offs = {}
        for sec in self.sections[1:]:
            offs[sec[0]] = len(names)
            names += sec[0].encode() + b"\0"
        self.sections[1][3] = names
        body, offsets, base = bytearray(), [0], 52
        for sec in self.sections[1:]:
            body += b"\0" * (-(base + len(body)) % max(sec[6], 4))
            offsets.append(base + len(body))
            body += sec[3]
        body += b"\0" * (-(base + len(body)) % 4)
        shoff = base + len(body)
        headers = struct.pack("<10I", *[0] * 10)
        for i, sec in enumerate(self.sections[1:], 1):
            name, type_, flags, data, link, info, align, entsize = sec
            headers += struct.pack(
                "<10I", offs[name], type_, flags, 0, offsets[i], len(data), link, info, align, entsize
            )
        ident = b"\x7fELF" + bytes([1, 1, 1, OSABI_AIE2P, ABI_GROUP]) + b"\0" * 7
        header = struct.pack(
            "<16sHHIIIIIHHHHHH",
            ident,
            ET_EXEC,
            EM_M32,
            1,
            0,
            0,
            shoff,
            0,
            52,
            0,
            0,
            40,
            len(self.sections),
            1,
        )
        return header + bytes(body) + headers


def _note(type_: int, desc: bytes) -> bytes:
    name = b"XRT\0"
    return struct.pack("<3I", len(name), len(desc), type_) + name + desc + b"\0" * (-len(desc) % 4)


def full_elf(mlir_text: str, pdi_dir: str | os.PathLike | None = None) -> bytes:
    """The group ELF aiebu would write for aiecc's input ``mlir_text``."""
    module, ids, streams = kernel_streams(mlir_text)
    pdi_dir = pdi_dir or os.environ.get(PDI_DIR_ENV)
    w = _Writer()
    strtab = w.add(".strtab", SHT_STRTAB, 0)
    symtab = w.add(".symtab", SHT_SYMTAB, 0, link=strtab, info=1, align=4, entsize=16)
    strings, symbols = bytearray(b"\0"), [struct.pack("<IIIBBH", 0, 0, 0, 0, 0, 0)]

    def symbol(name: str, kind: int, shndx: int) -> int:
        symbols.append(struct.pack("<IIIBBH", len(strings), 0, 0, (STB_WEAK << 4) | kind, 0, shndx))
        strings.extend(name.encode() + b"\0")
        return len(symbols) - 1

    kernels: dict[str, list] = {}
    for kernel, instance, nargs, code in streams:
        kernels.setdefault(kernel, []).append((instance, nargs, code))
    index = 0
    columns = 1
    for kernel, instances in kernels.items():
        ksym = symbol(mangle(kernel, max(n for _i, n, _c in instances)), STT_FUNC, 0)
        for instance, _nargs, code in instances:
            isym = symbol(instance, STT_OBJECT, ksym)
            text = w.add(f".ctrltext.{index}", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, code, align=16)
            data = w.add(f".ctrldata.{index}", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, bytes(16), align=16)
            members = struct.pack("<3I", GRP_COMDAT, text, data)
            w.add(f".group.{index}", SHT_GROUP, 0, members, link=symtab, info=isym, align=16, entsize=4)
            columns = max(columns, struct.unpack_from("<B", code, 4)[0] or 1)
            index += 1
    for sym, pid in ids.items():
        device = module.device(sym)
        payload = _payload(device, pdi_dir) if pdi_dir else b"{}"
        w.add(f".pdi.{pid}", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, payload, align=16)
    w.sections[strtab][3] = bytes(strings)
    w.sections[symtab][3] = b"".join(symbols)
    w.add(".note.xrt.configuration", SHT_NOTE, 0, _note(NT_XRT_PARTITION_SIZE, struct.pack("<I", columns)))
    uid = hashlib.md5(b"".join(c for _k, _i, _n, c in streams)).digest()
    w.add(".note.xrt.UID", SHT_NOTE, 0, _note(NT_XRT_UID, uid))
    return w.image()


def instructions(mlir_text: str, device: str, sequence: str) -> bytes:
    """The instruction binary aiecc writes for ``device``/``sequence`` (xclbin flow)."""
    _module, _ids, streams = kernel_streams(mlir_text)
    for kernel, instance, _n, code in streams:
        if (kernel, instance) == (device, sequence):
            return code
    raise FakeAiebuError(f"fake aiecc: no sequence {device}:{sequence}")


def device_pdi(mlir_text: str, device: str, pdi_dir=None) -> bytes:
    """The fake PDI (sim payload JSON) of ``device`` (xclbin flow)."""
    from iron.mlir.reader import parse

    module = parse(mlir_text, filename="fused.mlir")
    pdi_dir = pdi_dir or os.environ.get(PDI_DIR_ENV)
    return _payload(module.device(device), pdi_dir) if pdi_dir else b"{}"  # no harness: no model


def recording_pdi_sections(original, directory):
    """``iron.builder.sections.pdi_sections`` that also leaves every device's sim payload
    where the fake aiecc (a child process) finds it: the harness's stand-in for the
    device programs a real PDI carries."""

    def pdi_sections(ctx):
        secs, meta = original(ctx)
        payloads = {e["device"]: secs[e["section"]] for e in meta.values()}
        record_payloads(directory, ctx.fm.module, payloads)
        return secs, meta

    pdi_sections.original = original
    return pdi_sections
