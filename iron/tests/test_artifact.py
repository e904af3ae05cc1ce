"""Artifacts: the ELF container, what iron.build puts in it, inspect, and the aiecc path."""

import io
import json
import os
import re
import shutil
from pathlib import Path
import struct
import sys
import time

import numpy as np
import pytest
from elftools.elf.elffile import ELFFile

from iron.builder import aiecc, sections, toolchain
from iron.artifact import elf, schema
from iron import build
from iron.tests.bugs import build_with_bug
from iron.builder.cli import main as cli_main
from iron.errors import IronError
from iron.fuse.fusion import RESET_DEVICE, Sequence, fuse
from iron.mlir import txn_codec as txn
from iron.operators import GEMM
from iron.operators.binary import ElementwiseAdd
from iron.options import resolve
from iron.target import shim_dma
from iron.tests.fake_toolchain import aiebu
from iron.tests.fake_toolchain.installs import build_install

TRACE_BD_PATCH = shim_dma.bd_address(15) + 4  # iron's trace drain uses shim BD 15 (column 0)
ADD = ElementwiseAdd(1024)


def exec_elf(payload: bytes = b"\x01\x02\x03\x04" * 8) -> bytes:
    """An ET_EXEC ELF32 LE with one PT_LOAD segment holding .text: the shape of an
    aiebu full ELF (header, program header, loaded code, section headers)."""
    eh, ph, sh = 52, 32, 40
    text_off = eh + ph
    shstr = b"\0.text\0.shstrtab\0"
    shstr_off = text_off + len(payload)
    shoff = (shstr_off + len(shstr) + 3) & ~3
    ident = b"\x7fELF" + bytes([1, 1, 1]) + b"\0" * 9
    out = struct.pack("<16sHHIIIIIHHHHHH", ident, 2, 0, 1, 0, eh, shoff, 0, eh, ph, 1, sh, 3, 2)
    out += struct.pack("<8I", 1, text_off, 0, 0, len(payload), len(payload), 5, 4)
    out += payload + shstr
    out += b"\0" * (shoff - len(out))
    out += bytes(sh)
    out += struct.pack("<10I", 1, 1, 6, 0, text_off, len(payload), 0, 0, 4, 0)
    out += struct.pack("<10I", 7, 3, 0, 0, shstr_off, len(shstr), 0, 0, 1, 0)
    return out


#: Functions of the core ELF the fake aiecc links: the sim's EVENT_PC samples fall in
#: 0x100..0x2400 (iron.runtime.sim.activity CODE_BASES + CODE_SPAN), inside kernel_body.
CORE_FUNCS = [("_main_init", 0, 0x100), ("kernel_body", 0x100, 0x2300)]


def core_elf() -> bytes:
    from iron.tests.test_upstream_trace import aie_elf

    return aie_elf(CORE_FUNCS)


def patches(kernel) -> list[tuple[int, int, int]]:
    return [
        (o.addr, o.arg_idx, o.arg_plus) for o in txn.decode(kernel.control)[1] if isinstance(o, txn.DdrPatch)
    ]


# --------------------------------------------------------------------------- ELF container
def test_elf_roundtrip_and_layout(tmp_path):
    sections = {schema.META: b'{"a": 1}', schema.code_section(0): bytes(range(13)), schema.TRACE: b"{}"}
    path = tmp_path / "x.elf"
    path.write_bytes(elf.write_elf(sections))
    back = elf.read_sections(path)
    assert {k: back[k] for k in sections} == sections
    assert back[elf.CHECKSUM].decode() == elf.checksum(sections)
    with path.open("rb") as f:
        e = ELFFile(f)
        assert (e.elfclass, e.little_endian) == (32, True)
        for sec in e.iter_sections():
            if sec.name.startswith(".iron."):
                assert sec["sh_type"] == "SHT_PROGBITS" and sec["sh_flags"] == 0  # non-loaded


@pytest.mark.parametrize(
    "name", [".iron.ctrltext", ".iron.pdi.1", ".iron.pad", ".iron.dump", ".iron.preempt", ".text"]
)
def test_elf_rejects_reserved_section_names(name):
    with pytest.raises(elf.ArtifactError):
        elf.write_elf({name: b""})


def test_elf_detects_damage(tmp_path):
    data = elf.write_elf({schema.META: b'{"a": 1}', schema.code_section(0): bytes(64)})
    path = tmp_path / "x.elf"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(elf.CorruptArtifactError):
        elf.read_sections(path)
    flipped = bytearray(data)
    flipped[data.index(b'{"a": 1}') + 6] ^= 1  # one bit inside .iron.meta
    path.write_bytes(bytes(flipped))
    with pytest.raises(elf.CorruptArtifactError, match="checksum"):
        elf.read_sections(path)
    path.write_bytes(b"not an elf at all")
    with pytest.raises(elf.CorruptArtifactError):
        elf.read_sections(path)


def test_sidecars_of_older_releases_are_read(tmp_path):
    target = tmp_path / "aie.elf"
    target.write_bytes(exec_elf())
    elf.sidecar_path(target, schema.TRACE).write_bytes(b'{"schema": 1}')
    assert elf.read_sections(target, sidecars=[schema.TRACE])[schema.TRACE] == b'{"schema": 1}'
    assert elf.read_sections(target, sidecars=[schema.TRACE])[".text"] == b"\x01\x02\x03\x04" * 8


# --------------------------------------------------------------------------- what build puts inside
def test_traced_single_operator_artifact(tmp_path):
    art = build(ADD, trace=True, trace_size=4096, cache_dir=tmp_path)
    assert art.path.name.startswith("ElementwiseAdd_traced4096_") and art.traced
    assert (art.target, art.dispatch, art.backend) == ("npu2", "fused", "builtin")
    assert list(art.kernels) == [d.kernel for d in art.schedule] == ["main:sequence"]
    k = art.kernels["main:sequence"]
    assert [(a.buffer, a.type.shape, a.type.dtype, a.offset) for a in k.args] == [
        ("a", (1024,), "bf16", 0), ("b", (1024,), "bf16", 0), ("c", (1024,), "bf16", 0), ("trace", (4096,), "i8", 0),
    ]  # fmt: skip
    header, ops = txn.decode(k.control)
    assert (header.dev_gen, header.columns) == (4, 1)  # wrapper as wide as its callee: npu2_1col
    # A runner calls the artifact again on the same context, where op0 (and its never-finished
    # trace task) is still loaded: every dispatch starts with the reset device, then op0.
    assert ops[:2] == [txn.LoadPdi(art.pdi_ids[RESET_DEVICE]), txn.LoadPdi(art.pdi_ids["op0_ElementwiseAdd"])]
    assert (TRACE_BD_PATCH, 3, 0) in patches(k)  # trace arg = wrapper arg 3 (after a, b, c)
    assert art.pdis[art.pdi_ids["op0_ElementwiseAdd"]].operator == "ElementwiseAdd"
    assert art.buffers["trace"].nbytes == 4096 and art.inputs == ["a", "b"] and art.outputs == ["c"]
    fm = fuse(ADD, "npu2", resolve(True, size=4096, env={}))
    assert art.manifest == fm.manifest
    assert art.sources == {} and not any(n.startswith(".iron.src.") for n in elf.read_sections(art.path))


def two_calls() -> Sequence:
    # z = x + y; w = z + y: same device twice in a row, so a reset goes between the traced calls
    return Sequence("chain", [(ADD, "x", "y", "z"), (ADD, "z", "y", "w")], ["x", "y"], ["w"])


def test_trace_patches_are_translated_to_the_caller(tmp_path):
    art = build(two_calls(), trace=True, trace_size=4096, cache_dir=tmp_path)
    k = art.kernels["main:sequence"]
    assert [a.buffer for a in k.args] == [
        "x",
        "y",
        "w",
        "scratch_bf16",
        "trace",
    ]  # z lives in the scratch buffer
    trace = [p for p in patches(k) if p[0] == TRACE_BD_PATCH]
    assert trace == [(TRACE_BD_PATCH, 4, 0), (TRACE_BD_PATCH, 4, 4096)]  # one slice each
    loads = [o.pdi_id for o in txn.decode(k.control)[1] if isinstance(o, txn.LoadPdi)]
    reset, dev = art.pdi_ids[RESET_DEVICE], art.pdi_ids["op0_ElementwiseAdd"]
    assert loads == [reset, dev, reset, dev]  # before each call: the previous one ran op0 too
    assert art.pdis[reset].operator is None
    assert [s.offset for s in art.manifest.slices] == [0, 4096]


def test_emulated_bugs_are_negative_controls(tmp_path):
    own = build_with_bug("own-arg-patch", two_calls(), trace=True, trace_size=4096, cache_dir=tmp_path)
    trace = [p for p in patches(own.kernels["main:sequence"]) if p[0] == TRACE_BD_PATCH]
    assert trace == [(TRACE_BD_PATCH, 3, 0), (TRACE_BD_PATCH, 3, 0)]  # the callee's own index: buffer z
    stale = build_with_bug("stale-trace-task", two_calls(), trace=True, trace_size=4096, cache_dir=tmp_path)
    assert RESET_DEVICE not in stale.pdi_ids
    good = build(two_calls(), trace=True, trace_size=4096, cache_dir=tmp_path)
    assert len({own.path, stale.path, good.path}) == 3  # one cache, three entries
    assert patches(good.kernels["main:sequence"]) != patches(own.kernels["main:sequence"])
    with pytest.raises(TypeError, match="emulate_bug"):  # not a keyword of the public API
        build(ADD, cache_dir=tmp_path, emulate_bug="own-arg-patch")


def test_separate_dispatch_binds_trace_slices(tmp_path):
    art = build(two_calls(), trace=True, trace_size=4096, target="npu1", cache_dir=tmp_path)
    assert art.dispatch == "separate"
    assert [d.kernel for d in art.schedule] == [
        f"{RESET_DEVICE}:sequence",
        "op0_ElementwiseAdd:sequence",
        f"{RESET_DEVICE}:sequence",
        "op0_ElementwiseAdd:sequence",
    ]
    k = art.kernels["op0_ElementwiseAdd:sequence"]
    assert k.args[-1].buffer == "trace" and k.args[-1].type.nbytes == 4096
    header, ops = txn.decode(k.control)
    assert header.dev_gen == 3 and ops[0] == txn.LoadPdi(art.pdi_ids["op0_ElementwiseAdd"])
    assert (TRACE_BD_PATCH, 3, 0) in patches(k)  # the kernel's own trace argument
    assert txn.decode(art.kernels[f"{RESET_DEVICE}:sequence"].control)[1] == [
        txn.LoadPdi(art.pdi_ids[RESET_DEVICE])
    ]


def test_sources_behind_debug_flag(tmp_path, monkeypatch):
    art = build(ADD, trace=True, trace_size=4096, cache_dir=tmp_path, sources=True)
    assert set(art.sources) == {"fused.mlir", "op0_ElementwiseAdd.mlir", "aiecc.mlir"}
    assert "aie.device(npu2_1col) {" in art.sources["fused.mlir"]  # @main: aie-opt's default, elided
    assert art.manifest.sources == art.sources  # captures carry them too
    for text in art.sources.values():
        assert str(tmp_path) not in text and os.getcwd() not in text
    monkeypatch.setenv("IRON_DEBUG_SOURCES", "1")
    env_art = build(ADD, trace=True, trace_size=4096, cache_dir=tmp_path)
    assert env_art.path == art.path and env_art.cached
    monkeypatch.setenv("IRON_DEBUG_SOURCES", "maybe")
    with pytest.raises(IronError, match="IRON_DEBUG_SOURCES"):
        build(ADD, cache_dir=tmp_path)


def test_trace_none_follows_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("IRON_TRACE_SIZE", "8192")
    art = build(ADD, cache_dir=tmp_path)
    assert art.traced and art.path.name.startswith("ElementwiseAdd_traced8192_")
    assert not build(ADD, trace=False, cache_dir=tmp_path).traced


# --------------------------------------------------------------------------- inspect
def test_inspect_traced_artifact_alone(tmp_path, monkeypatch, capsys):
    art = build(two_calls(), trace=True, trace_size=4096, cache_dir=tmp_path / "cache")
    lonely = tmp_path / "empty"
    lonely.mkdir()
    copy = lonely / "a.elf"
    shutil.copy(art.path, copy)
    shutil.rmtree(tmp_path / "cache")
    monkeypatch.chdir(lonely)
    assert cli_main(["inspect", "a.elf"]) == 0
    out = capsys.readouterr().out
    n_ops = len(txn.decode(art.kernels["main:sequence"].control)[1])
    assert f"ops: {n_ops} (" in out
    assert "DDR_PATCH  0x0001d1e4 <- &arg4 + 0x1000" in out
    assert "slice 0:ElementwiseAdd#0" in out and "slice 1:ElementwiseAdd#1" in out
    assert "offset 4096  size 4096" in out
    unit = art.manifest.slices[1].units[0]
    assert (
        f"column {unit.column} row {unit.row} kind {unit.kind} packet type {unit.packet_type} id {unit.packet_id}"
        in out
    )
    assert "INSTR_EVENT_0" in out
    assert "    3   scratch_bf16 memref<1024xbf16>" in out
    assert sorted(os.listdir(lonely)) == ["a.elf"]  # nothing written next to it


def test_inspect_untraced_and_errors(tmp_path, capsys):
    art = build(ADD, trace=False, cache_dir=tmp_path)
    assert cli_main(["inspect", str(art.path), "--max-ops", "2"]) == 0
    out = capsys.readouterr().out
    assert "trace manifest: none (untraced)" in out and "more" in out
    assert cli_main(["inspect", str(tmp_path / "missing.elf")]) == 1
    assert "cannot read artifact" in capsys.readouterr().err


# --------------------------------------------------------------------------- aiecc path
def test_aiecc_commands():
    """Contract test: the argv iron gives aiecc, in both flag styles (names from mlir-aie's
    cl_arguments.py / aiecc.cpp and CommandLineOptions.h)."""
    assert aiecc.fused_command("fused.mlir", style="legacy", no_materialize=True) == [
        "aiecc", "--tmpdir=prj", "--no-aiesim", "--no-xchesscc", "--no-xbridge", "--no-compile-host",
        "--generate-full-elf", "--full-elf-name=aie.elf", "--no-materialize", "fused.mlir",
    ]  # fmt: skip
    # the declarative driver (CommandLineOptions.h): Peano by default, no --no-* switches
    assert aiecc.fused_command("fused.mlir", style="get", off=[]) == [
        "aiecc", "--tmpdir=prj", "--get-full-elf", "--full-elf-name=aie.elf", "fused.mlir",
    ]  # fmt: skip
    # its first releases still defaulted to Chess: the off-switches go with --get-* outputs
    assert aiecc.fused_command("fused.mlir", style="get", off=["--no-xchesscc", "--no-xbridge"])[2:4] == [
        "--no-xchesscc", "--no-xbridge",
    ]  # fmt: skip
    first = aiecc.device_command("f.mlir", "op0_GEMM", 0, sequence="sequence", style="legacy")
    assert first[6:] == [
        "--device-name=op0_GEMM", "--sequence-name=sequence",
        "--aie-generate-xclbin", "--xclbin-name=dev0/{0}.xclbin", "--xclbin-kernel-name=op0_GEMM",
        "--xclbin-instance-name=op0_GEMM", "--xclbin-kernel-id=0x901",
        "--aie-generate-npu-insts", "--npu-insts-name=dev0/insts_{0}_{1}.bin", "f.mlir",
    ]  # fmt: skip
    second = aiecc.device_command(
        "f.mlir",
        "iron_reset",
        1,
        xclbin_input="dev0/op0_GEMM.xclbin",
        style="get",
        no_materialize=True,
        off=[],
    )
    assert second == [
        "aiecc", "--tmpdir=prj1", "--device-name=iron_reset",
        "--get-xclbin", "--xclbin-name=dev1/{0}.xclbin", "--xclbin-kernel-name=iron_reset",
        "--xclbin-instance-name=iron_reset", "--xclbin-kernel-id=0x902", "--xclbin-input=dev0/op0_GEMM.xclbin",
        "--get-npu-insts", "--npu-insts-name=dev1/insts_{0}.bin", "--no-materialize", "f.mlir",
    ]  # fmt: skip
    with pytest.raises(IronError, match="flag style"):
        aiecc.fused_command("f.mlir", style="new")


def test_xclbin_kernel_names_and_ids():
    """Contract test: the one naming rule shared by aiecc.py and xrt.py, and the kernel ids."""
    name = schema.xclbin_kernel_name
    assert [name("op0_GEMM"), name("iron_reset"), name("x" * 31)] == ["op0_GEMM", "iron_reset", "x" * 31]
    long_a, long_b = name("op12_" + "A" * 40), name("op12_" + "A" * 39 + "B")
    assert long_a != long_b and len(long_a) == len(long_b) == 31 and long_a.startswith("op12_AAAA")
    assert long_a == name("op12_" + "A" * 40)  # stable
    odd = name("op0.GEMM-2")
    assert re.fullmatch(r"op0_GEMM_2_[0-9a-f]{6}", odd) and odd != name("op0_GEMM_2")
    assert re.fullmatch(r"k1dev_[0-9a-f]{6}", name("1dev"))
    assert [aiecc.xclbin_kernel_id(i) for i in (0, 1, 0xFFF - 0x901)] == ["0x901", "0x902", "0xfff"]
    with pytest.raises(IronError, match="kernel ids"):
        aiecc.xclbin_kernel_id(0xFFF - 0x900)


#: Where the fake linker (:func:`iron.tests.fake_toolchain.link.check_links`) lives.
LINK_DIR = Path(__file__).resolve().parent / "fake_toolchain"

FAKE_AIECC = """\
#!{python}
import json, os, re, shutil, sys
args = sys.argv[1:]
if "--version" in args or "--aie-version" in args:
    print("fake 1.0"); sys.exit(0)
if "--help" in args:
    print({help!r}); sys.exit(0)
n = sum(1 for _ in open({log!r})) if os.path.exists({log!r}) else 0
with open({log!r}, "a") as f:
    f.write(json.dumps(args) + "\\n")
shutil.copy(args[-1], os.path.join({inputs!r}, f"input{{n}}.mlir"))
sys.path.insert(0, {link_dir!r})  # aiecc's core link: objects in the cwd, symbols and arity
from link import check_links, LinkError
try:
    check_links(open(args[-1]).read(), os.getcwd())
except LinkError as e:
    print(e, file=sys.stderr); sys.exit(1)
opt = dict(a[2:].split("=", 1) for a in args if a.startswith("--") and "=" in a)
# like aiecc, link one ELF per core under its work dir: <tmpdir>/<device>/core_<col>_<row>.elf
for block in open(args[-1]).read().split("aie.device(")[1:]:
    dev = re.match(r"[^)]*\\)\\s*(?:@(\\w+))?", block).group(1) or "main"
    tiles = dict(re.findall(r"(%\\w+) = aie\\.tile\\((\\d+, \\d+)\\)", block))
    for tile in re.findall(r"aie\\.core\\((%\\w+)\\)", block):
        col, row = tiles[tile].split(", ")
        os.makedirs(os.path.join(opt["tmpdir"], dev), exist_ok=True)
        open(os.path.join(opt["tmpdir"], dev, f"core_{{col}}_{{row}}.elf"), "wb").write(bytes.fromhex({core!r}))
from iron.tests.fake_toolchain import aiebu  # the full ELF / instructions: iron's lowering
text = open(args[-1]).read()
if "full-elf-name" in opt:
    data = aiebu.full_elf(text)
    open(opt["full-elf-name"], "wb").write(data)
    open(os.path.join({inputs!r}, f"output{{n}}.elf"), "wb").write(data)  # what aiecc wrote
    sys.exit(0)
dev, seq = opt["device-name"], opt["sequence-name"]
prev = json.load(open(opt["xclbin-input"])) if "xclbin-input" in opt else {{"kernels": []}}
kernel = {{"name": opt["xclbin-kernel-name"], "instance": opt["xclbin-instance-name"],
          "id": opt["xclbin-kernel-id"], "pdi": aiebu.device_pdi(text, dev).decode()}}
prev["kernels"].append(kernel)
open(opt["xclbin-name"].format(dev), "w").write(json.dumps(prev))
get = "--get-npu-insts" in args  # the declarative driver expands {{0}} to <device>_<sequence>
insts = opt["npu-insts-name"].format(dev + "_" + seq) if get else opt["npu-insts-name"].format(dev, seq)
open(insts, "wb").write(aiebu.instructions(text, dev, seq))
"""
HELP = {
    "legacy": "--generate-full-elf --aie-generate-xclbin --aie-generate-npu-insts --no-materialize "
    "--no-aiesim --no-xchesscc --no-xbridge --no-compile-host --peano",
    "get": "--get-<name> --device-name --xclbin-input --no-materialize-runtime",  # no --no-materialize
}
#: mlir-aie's parser: reads the module with iron's reader (today's syntax) and, when the
#: file OLD_GRAMMAR sits beside it, fails on SSA npu ops as an aie-opt before PR #3225 would.
FAKE_AIE_OPT = """\
#!{python}
import os, re, sys
text = open(sys.argv[-1]).read()
if os.path.exists(os.path.join(os.path.dirname(os.path.abspath(__file__)), "OLD_GRAMMAR")):
    for n, line in enumerate(text.splitlines(), 1):
        if re.search(r"aiex\\.npu\\.write32\\(%", line):
            print(f"{{sys.argv[-1]}}:{{n}}:{{line.index('(') + 1}}: error: expected attribute", file=sys.stderr)
            sys.exit(1)
from iron.mlir.reader import parse
parse(text)
"""


def aiecc_prerequisites(bindir, py) -> None:
    """What iron checks before an aiecc build, beside a fake aiecc in ``bindir``: mlir-aie's
    parser (:data:`FAKE_AIE_OPT`), the programs aiecc runs (present, never called) and the
    ``aie`` package under ``py`` (put ``py`` on ``sys.path``)."""
    from pathlib import Path

    bindir, py = Path(bindir), Path(py)
    (bindir / "aie-opt").write_text(FAKE_AIE_OPT.format(python=sys.executable))
    (bindir / "aie-opt").chmod(0o755)
    for tool in ("aiebu-asm", "bootgen", "xclbinutil"):
        (bindir / tool).write_text("#!/bin/sh\nexit 0\n")
        (bindir / tool).chmod(0o755)
    (py / "aie").mkdir(parents=True, exist_ok=True)
    (py / "aie" / "__init__.py").write_text("")


def install_fake_mlir_aie(root, style: str = "legacy") -> dict:
    """Write a fake mlir-aie install under ``root``: a recording aiecc (its full ELF and
    instruction streams come from the fake aiebu, iron/tests/fake_toolchain/aiebu.py), the
    programs aiecc runs, kernel sources, a Peano whose clang++ records its argv, the ``aie``
    package and an ``mlir_aie`` distribution (release 1.4.2). Returns what to put in effect:
    ``{"path": bin dir, "sys_path": dir, "pdis": payload dir, "log": ..., "inputs": ...}``."""
    from pathlib import Path

    root = Path(root)
    bindir, inputs, pdis = root / "bin", root / "inputs", root / "pdis"
    for d in (bindir, inputs, pdis):
        d.mkdir(parents=True, exist_ok=True)
    log = root / "aiecc.log"
    script = bindir / "aiecc"
    text = FAKE_AIECC.format(
        python=sys.executable,
        help=HELP[style],
        log=str(log),
        inputs=str(inputs),
        core=core_elf().hex(),
        link_dir=str(LINK_DIR),
    )
    script.write_text(text)
    script.chmod(0o755)
    py = root / "py"
    aiecc_prerequisites(bindir, py)
    # kernel sources with upstream's signatures (older aie2/aie2p/generic layout) and a fake
    # Peano whose clang++ records its argv (iron/tests/fake_toolchain/installs.py)
    build_install(root, "arch", clang_log=root / "clang.log")
    dist = py / "mlir_aie-1.4.2.dist-info"
    dist.mkdir(exist_ok=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: mlir_aie\nVersion: 1.4.2\n")
    return {"path": str(bindir), "sys_path": str(py), "pdis": str(pdis), "log": log, "inputs": inputs}


@pytest.fixture
def fake_aiecc(tmp_path, monkeypatch):
    """Put a recording fake aiecc on PATH and ask for it (``IRON_BACKEND=aiecc``); returns
    (argv of each run, path of run i's input)."""

    def install(style: str = "legacy"):
        staged = install_fake_mlir_aie(tmp_path, style)
        log, inputs = staged["log"], staged["inputs"]
        monkeypatch.setenv("PATH", f"{staged['path']}{os.pathsep}{os.environ['PATH']}")
        monkeypatch.syspath_prepend(staged["sys_path"])
        monkeypatch.delenv("PEANO_INSTALL_DIR", raising=False)
        monkeypatch.delenv("MLIR_AIE_INSTALL_DIR", raising=False)
        monkeypatch.setenv(aiebu.PDI_DIR_ENV, staged["pdis"])
        monkeypatch.setattr(
            sections, "pdi_sections", aiebu.recording_pdi_sections(sections.pdi_sections, staged["pdis"])
        )
        monkeypatch.setattr(toolchain, "installed_version", lambda: "1.4.2")
        # a test that installs the fake asks for aiecc (without an NPU, auto means builtin)
        monkeypatch.setenv("IRON_BACKEND", "aiecc")
        for cached in (aiecc.toolchain_identity, aiecc.help_text):
            cached.cache_clear()
        runs = lambda: [json.loads(line) for line in log.read_text().splitlines()]  # noqa: E731
        return runs, lambda i: (inputs / f"input{i}.mlir").read_text()

    yield install
    for cached in (aiecc.toolchain_identity, aiecc.help_text):
        cached.cache_clear()


def test_sources_carry_the_exact_module_handed_to_aiecc(tmp_path, fake_aiecc):
    """Issue 33 item 4: ``sources`` holds ``aiecc.mlir``, byte for byte the file aiecc was
    given (fused and separate dispatch), so a user can rerun aiecc on it; a built-in build
    carries the same text."""
    for dispatch, target in (("fused", "npu2"), ("separate", "npu1")):
        builtin = build(
            ADD, trace=True, trace_size=4096, target=target, cache_dir=tmp_path / "b", sources=True
        )
        _, inputs = fake_aiecc("legacy")
        before = len(list((tmp_path / "inputs").glob("input*.mlir")))
        art = build(
            ADD, trace=True, trace_size=4096, target=target, cache_dir=tmp_path / dispatch, sources=True,
            backend="aiecc", dispatch=dispatch,
        )  # fmt: skip
        assert art.sources["aiecc.mlir"] == inputs(before)
        assert builtin.sources["aiecc.mlir"] == art.sources["aiecc.mlir"]
        assert "aiex.run" not in art.sources["aiecc.mlir"]  # materialized
        assert ("aiex.run" in art.sources["fused.mlir"]) == (dispatch == "fused")


def test_build_through_fake_aiecc(tmp_path, fake_aiecc):
    """Contract test: fused dispatch is one aiecc run asking for a full ELF; the artifact holds
    aiecc's ELF byte for byte beside iron's sections."""
    builtin = build(ADD, trace=True, trace_size=4096, cache_dir=tmp_path / "cache2")
    runs, _ = fake_aiecc("legacy")
    art = build(ADD, trace=True, trace_size=4096, cache_dir=tmp_path / "cache", backend="aiecc")
    assert art.toolchain == "mlir_aie-1.4.2 aiecc-fake 1.0" and art.backend == "aiecc-full-elf"
    assert art.kernels["main:sequence"].control == b""  # control code is in aiebu's sections
    sections_ = elf.read_sections(art.path)
    assert sections_[schema.FULL_ELF] == (tmp_path / "inputs" / "output0.elf").read_bytes()
    assert schema.read_manifest(art.path) == art.manifest and art.traced
    [cmd] = runs()
    assert "--generate-full-elf" in cmd and "--full-elf-name=aie.elf" in cmd and "--no-materialize" in cmd
    assert f"--peano={tmp_path / 'peano'}" in cmd  # the compiler of the kernels links the cores
    assert "--expand-load-pdis" not in cmd and cmd[-1] == "fused.mlir"
    assert art.key != builtin.key  # toolchain identity is part of the key


def _groups(data: bytes) -> dict[str, list[str]]:
    """Group name -> names of its member sections, read from the raw member indices."""
    from iron.tests.fake_pyxrt import SHT_GROUP, elf_sections

    secs = elf_sections(data)
    return {
        name: [secs[i][0] for i in struct.unpack(f"<{len(body) // 4}I", body)[1:]]
        for name, type_, _l, _i, body in secs
        if type_ == SHT_GROUP
    }


def test_group_elf_keeps_its_section_numbers_in_the_artifact(tmp_path, fake_aiecc):
    """Issue 24 Build 5: aiebu's layout (.shstrtab at index 1, a .group per kernel instance
    naming its .ctrltext/.ctrldata by index) survives iron storing the artifact; XRT's lookup
    of main:sequence through the groups gives the control code iron's lowering makes."""
    from iron.tests.fake_pyxrt import elf_sections, group_ctrlcode

    builtin = build(two_calls(), trace=True, trace_size=4096, cache_dir=tmp_path / "b")
    fake_aiecc("legacy")
    art = build(two_calls(), trace=True, trace_size=4096, cache_dir=tmp_path / "c", backend="aiecc")
    data = elf.read_sections(art.path)[schema.FULL_ELF]
    assert data == (tmp_path / "inputs" / "output0.elf").read_bytes()
    names = [s[0] for s in elf_sections(data)]
    assert names[:4] == ["", ".shstrtab", ".strtab", ".symtab"]
    groups = _groups(data)
    assert groups and all(
        members == [f".ctrltext.{g[7:]}", f".ctrldata.{g[7:]}"] for g, members in groups.items()
    )
    assert group_ctrlcode(data, "main:sequence") == builtin.kernels["main:sequence"].control
    # what a rewrite that adds sections does (lief put them at index 1..): the raw lists go stale
    shifted = [names[0], ".iron.meta", *names[1:]]
    stale = {g: [shifted[names.index(m)] for m in ms] for g, ms in groups.items()}
    assert all(ms[0] != f".ctrltext.{g[7:]}" for g, ms in stale.items())


def test_xrt_path_runs_on_the_fake_npu(tmp_path, fake_aiecc, monkeypatch):
    """Issue 24 Build 3: the full ELF XRT is handed is aiecc's, byte for byte; the fake NPU
    (sim behind pyxrt) runs the control code it finds through the groups, with BOs bound by
    argument index; outputs equal the numpy reference and the trace equals sim's run of the
    built-in artifact of the same design, word for word."""
    from iron import testing
    from iron.tests import fake_pyxrt

    seq = two_calls()
    inputs = testing.example_inputs(seq)
    builtin = build(seq, trace=True, trace_size=4096, cache_dir=tmp_path / "b")
    on_sim = builtin.load("sim")
    want = on_sim(**inputs)
    fake_aiecc("legacy")
    art = build(seq, trace=True, trace_size=4096, cache_dir=tmp_path / "c", backend="aiecc")
    px = fake_pyxrt.make(npu=True, device_name="NPU Strix")
    monkeypatch.setitem(sys.modules, "pyxrt", px)
    runner = art.load("xrt")
    got = runner(**inputs)
    assert runner.device == "xrt"
    [expected] = testing.reference(seq, inputs)
    assert testing.same_bits(got, expected.astype(got.dtype).reshape(got.shape))
    assert testing.same_bits(got, want)
    assert px.loaded == [elf.read_sections(art.path)[schema.FULL_ELF]]
    assert np.array_equal(runner.raw_trace, on_sim.raw_trace) and runner.raw_trace.any()
    assert [s.status for s in runner.trace.slices] == ["ok", "ok"]
    sets = [c for c in px.calls if c[0] == "set_arg"]
    assert [c[1] for c in sets] == list(range(len(art.kernels["main:sequence"].args)))


@pytest.mark.parametrize("style", ["legacy", "get"])
def test_separate_dispatch_through_fake_aiecc(tmp_path, fake_aiecc, monkeypatch, style):
    """Contract test: separate dispatch runs aiecc once per device in first-use order (the
    iron_reset device included), selecting it with --device-name, linking each xclbin onto the
    previous one (--xclbin-input) under kernel name = xclbin_kernel_name(device) and id
    0x901 + i; the artifact holds one instruction binary per kernel and the last xclbin."""
    from iron import progress

    steps = []
    monkeypatch.setattr(progress.Status, "step", lambda self, detail: steps.append(detail))
    runs, inputs = fake_aiecc(style)
    art = build(
        two_calls(), trace=True, trace_size=4096, target="npu1", cache_dir=tmp_path / "cache", backend="aiecc"
    )
    assert (art.dispatch, art.backend) == ("separate", "aiecc-xclbin")
    devices = [RESET_DEVICE, "op0_ElementwiseAdd"]  # first use: the reset opens every run
    assert [d.kernel for d in art.schedule] == [f"{d}:sequence" for d in devices] * 2
    cmds = runs()
    assert len(cmds) == 2 and [s for s in steps if s.startswith("aiecc")] == [f"aiecc {d}" for d in devices]
    xclbin_flag = "--aie-generate-xclbin" if style == "legacy" else "--get-xclbin"
    for i, (cmd, dev) in enumerate(zip(cmds, devices)):
        opts = dict(a[2:].split("=", 1) for a in cmd if "=" in a)
        assert (opts["device-name"], opts["sequence-name"]) == (dev, "sequence")
        assert (
            opts["xclbin-kernel-name"]
            == opts["xclbin-instance-name"]
            == schema.xclbin_kernel_name(dev)
            == dev
        )
        assert opts["xclbin-kernel-id"] == hex(0x901 + i) and xclbin_flag in cmd
        assert opts.get("xclbin-input") == (None if i == 0 else f"dev0/{devices[0]}.xclbin")
        assert ("--no-materialize" in cmd) == (style == "legacy")  # only when --help lists it
        assert "--expand-load-pdis" not in cmd and cmd[-1] == "fused.mlir"
    text = inputs(1)
    assert "aiex.npu.load_pdi" not in text  # the xclbin firmware loads each kernel's PDI
    assert "{addr = 119268 : ui32, arg_idx = 3 : i32}" in text  # BD 15 word 1 <- the kernel's own trace arg
    assert "aie.runtime_sequence() {\n    }" in text  # the reset kernel's stream is empty
    builtin = build(
        two_calls(), trace=True, trace_size=4096, target="npu1", cache_dir=tmp_path / "b", backend="builtin"
    )
    for d in devices:  # aiecc's stream = iron's without the kernel's own PDI load (the firmware's)
        name = f"{d}:sequence"
        header, ops = txn.decode(builtin.kernels[name].control)
        assert art.kernels[name].control == txn.encode(header, ops[1:])
    sections = elf.read_sections(art.path)
    xclbin = json.loads(sections[schema.XCLBIN])
    assert [(k["name"], k["instance"], k["id"]) for k in xclbin["kernels"]] == [
        ("iron_reset", "iron_reset", "0x901"), ("op0_ElementwiseAdd", "op0_ElementwiseAdd", "0x902"),
    ]  # fmt: skip
    meta = json.loads(sections[schema.META])
    assert [(k["name"], k["xclbin_kernel"]) for k in meta["kernels"]] == [
        (f"{d}:sequence", d) for d in devices
    ]
    assert art.manifest == fuse(two_calls(), "npu1", resolve(True, size=4096, env={})).manifest


# --------------------------------------------------------------------------- progress
def test_progress_only_for_slow_work():
    from iron.progress import status

    quiet = io.StringIO()
    with status("fast", stream=quiet, delay=5):
        pass
    assert quiet.getvalue() == ""
    slow = io.StringIO()
    with status("building x.elf", stream=slow, delay=0) as st:
        st.step("lowering")
        time.sleep(0.05)
    assert slow.getvalue().startswith("iron: building x.elf ...") and "done in" in slow.getvalue()
    failed = io.StringIO()
    with pytest.raises(ValueError), status("y", stream=failed, delay=0):
        time.sleep(0.05)
        raise ValueError
    assert failed.getvalue().endswith(" failed\n")


def test_kernels_compiled_with_peano_and_placed_where_aiecc_links(tmp_path, fake_aiecc):
    """Recording fakes: one clang++ run per distinct object (mlir-aie's compile_cxx_core_function
    flags, the GEMM's tile defines), every link_with object in aiecc's cwd (the fake fails
    otherwise), and a second build takes the objects from the cache."""
    runs, inputs = fake_aiecc("legacy")
    small, big = GEMM(M=32, K=32, N=32, m=16, k=32, n=32), GEMM(M=64, K=64, N=64, m=32, k=32, n=64)
    seq = Sequence(
        "two_gemms", [(small, "a", "b", "c"), (big, "x", "y", "z")], ["a", "b", "x", "y"], ["c", "z"]
    )
    build(seq, trace=False, cache_dir=tmp_path / "cache")
    logged = [json.loads(line) for line in (tmp_path / "clang.log").read_text().splitlines()]
    compiles = [a for a in logged if "-c" in a]  # the others: --version, -E (symbol check)
    assert len(compiles) == 2  # one object per distinct (kernel, arch, defines)
    for argv, (m, k, n) in zip(compiles, ((16, 32, 32), (32, 32, 64))):
        assert argv[0].endswith("aie_kernels/aie2p/mm.cc") and argv[1:3] == ["-c", "-o"]
        # issue 22: upstream's cxx_core_compile_command (older layout: no -Werror=undef pair)
        assert argv[5:12] == [
            "-std=c++20", "-Wno-parentheses", "-Wno-attributes", "-Wno-macro-redefined", "-Wno-empty-body",
            "-O2", "-DNDEBUG",
        ]  # fmt: skip
        assert "-D__AIE_API_AIE_ADF_HPP__" in argv and "--target=aie2p-none-unknown-elf" in argv
        assert argv[-4:] == [
            f"-DDIM_K={k}",
            f"-DDIM_M={m}",
            f"-DDIM_N={n}",
            "-Dbf16_bf16_ONLY=1",
        ]  # the L1 tile
        assert any(a.endswith("aie_runtime_lib/AIE2P") for a in argv)
    linked = re.findall(r'link_with = "([^"]+)"', inputs(0))
    assert len(set(linked)) == 2 and all(n.startswith("mm_") for n in linked)
    build(seq, trace=True, trace_size=4096, cache_dir=tmp_path / "cache")  # another key, same objects
    again = [a for a in map(json.loads, (tmp_path / "clang.log").read_text().splitlines()) if "-c" in a]
    assert len(again) == 2 and len(runs()) == 2


def test_kernel_source_missing_is_one_clear_error(tmp_path, fake_aiecc):
    fake_aiecc("legacy")
    (tmp_path / "aie_kernels" / "aie2p" / "add.cc").unlink()
    with pytest.raises(toolchain.ToolchainError, match=r"kernel source aie2p/add.cc not found .*looked at"):
        build(ADD, trace=False, cache_dir=tmp_path / "cache", backend="aiecc")


def test_mlir_aie_that_cannot_read_iron_syntax_is_refused(tmp_path, fake_aiecc):
    """Issue 24 Build 6: the gate is what mlir-aie's parser reads, not a release number:
    aie-opt must accept the SSA npu ops iron prints; one that rejects them is refused with its
    own message, before any compile."""
    fake_aiecc("legacy")
    toolchain._grammar.cache_clear()
    (tmp_path / "bin" / "OLD_GRAMMAR").write_text("")
    with pytest.raises(
        toolchain.ToolchainError, match=r"does not read the syntax iron prints .*:6:\d+: error"
    ):
        build(ADD, trace=False, cache_dir=tmp_path / "cache", backend="aiecc")
    assert not (tmp_path / "clang.log").exists()
    (tmp_path / "bin" / "OLD_GRAMMAR").unlink()
    toolchain._grammar.cache_clear()
    assert build(ADD, trace=False, cache_dir=tmp_path / "cache", backend="aiecc").backend == "aiecc-full-elf"


@pytest.mark.parametrize("version", ["1.4.2", "1.4.1", "0.0.1.2026033104+e4f35d6", "1.4.3.dev4+gabc"])
def test_release_numbers_gate_nothing(tmp_path, fake_aiecc, monkeypatch, version):
    # version strings as mlir-aie's wheels spell them (utils/mlir_aie_wheels/_version_helper.py);
    # a date-stamped wheel of March 2026 is as new as the parser it ships
    fake_aiecc("legacy")
    monkeypatch.setattr(toolchain, "installed_version", lambda: version)
    assert build(ADD, trace=False, cache_dir=tmp_path / "c", backend="aiecc").toolchain.startswith(
        f"mlir_aie-{version}"
    )
    with pytest.raises(toolchain.ToolchainError, match="cannot read mlir-aie version"):
        toolchain.check_version("one.two")


def test_core_elfs_embedded_under_sources_flag_and_carried_by_captures(tmp_path, fake_aiecc):
    """Issue 11 Build 4: with sources on, the core ELFs aiecc linked (the fake writes
    <tmpdir>/<device>/core_<col>_<row>.elf, an AIE ELF with CORE_FUNCS) are artifact sections
    under synthetic names; a sim run's EVENT_PC capture maps PCs to those functions, after
    save/load and from the CLI, without --core-elf."""
    from iron.trace.capture import load_capture
    from iron.trace.cli import main

    from iron.trace.capture import Capture

    kw = dict(trace=True, trace_size=4096, trace_mode="event-pc")
    # sim runs built-in artifacts only: the words come from the built-in build of the same design
    builtin = build(ADD, sources=True, cache_dir=tmp_path / "builtin", **kw)
    assert builtin.core_elfs == {}  # iron's own lowering links no core
    run = builtin.load("sim")
    run(*(np.zeros(1024, np.uint16) for _ in range(2)))
    words = run.capture.words
    fake_aiecc("legacy")
    kw["cache_dir"] = tmp_path / "cache"
    plain = build(ADD, sources=False, backend="aiecc", **kw)
    assert plain.core_elfs == {} and not any(".iron.core." in n for n in elf.read_sections(plain.path))
    art = build(ADD, sources=True, backend="aiecc", **kw)
    assert art.core_elfs == {"op0_ElementwiseAdd/core_0_2.elf": core_elf()}
    sections = elf.read_sections(art.path)
    assert sections[schema.core_section(0)] == core_elf()
    assert not any(f in n for n in sections for f in elf.FORBIDDEN)
    assert json.loads(sections[schema.META])["core_elfs"] == {
        ".iron.core.0": "op0_ElementwiseAdd/core_0_2.elf"
    }
    assert art.manifest == builtin.manifest
    cap = Capture(art.manifest, words, core_images=art.core_elfs)  # what the runner makes of a run
    core = next(u for ds in cap.slices for u in ds.units if u.kind == "core")
    assert core.pc_events is not None and core.pcmap is not None
    summary = cap.summary_dict()["slices"][0]
    funcs = next(u for u in summary["units"] if u["kind"] == "core")["functions"]
    assert set(funcs) <= {"_main_init", "kernel_body"} and funcs.get("kernel_body", 0) > 0
    cap_path = tmp_path / "run.npz"
    cap.save(cap_path)
    again = load_capture(cap_path)
    assert again.core_images == art.core_elfs and again.summary_dict()["slices"][0] == summary
    out = tmp_path / "s.txt"
    assert main(["trace", "decode", str(cap_path), "-o", str(out)]) == 0
    assert "samples per function: kernel_body" in out.read_text()
    raw = tmp_path / "t.bin"
    words.astype("<u4").tofile(raw)
    assert main(["trace", "decode", str(raw), "--artifact", str(art.path), "-o", str(out)]) == 0
    assert "samples per function: kernel_body" in out.read_text()


def test_xclbin_path_runs_on_the_fake_npu(tmp_path, fake_aiecc, monkeypatch):
    """Issue 24 Build 3, xclbin flow (npu1 separate dispatch): the fake NPU runs the
    instruction BO each kernel is called with, on the PDI the xclbin carries for it; outputs
    equal numpy and the trace equals sim's run of the built-in artifact."""
    from iron import testing
    from iron.tests import fake_pyxrt

    seq = two_calls()
    inputs = testing.example_inputs(seq)
    on_sim = build(seq, trace=True, trace_size=4096, target="npu1", cache_dir=tmp_path / "b").load("sim")
    want = on_sim(**inputs)
    fake_aiecc("legacy")
    art = build(seq, trace=True, trace_size=4096, target="npu1", cache_dir=tmp_path / "c", backend="aiecc")
    px = fake_pyxrt.make(
        npu=True, device_name="NPU Phoenix", xclbin_kernels=("iron_reset", "op0_ElementwiseAdd")
    )
    monkeypatch.setitem(sys.modules, "pyxrt", px)
    runner = art.load("xrt")
    got = runner(**inputs)
    [expected] = testing.reference(seq, inputs)
    assert testing.same_bits(got, expected.astype(got.dtype).reshape(got.shape)) and testing.same_bits(
        got, want
    )
    assert px.loaded == [elf.read_sections(art.path)[schema.XCLBIN]]
    assert np.array_equal(runner.raw_trace, on_sim.raw_trace) and runner.raw_trace.any()
    assert [s.status for s in runner.trace.slices] == ["ok", "ok"]


@pytest.mark.parametrize("tool", ["aiebu-asm", "bootgen"])
def test_missing_aiecc_tool_is_one_clear_error_before_any_work(tmp_path, fake_aiecc, monkeypatch, tool):
    runs, _ = fake_aiecc("legacy")
    (tmp_path / "bin" / tool).unlink()
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.defpath}")  # no other install's tools
    with pytest.raises(
        toolchain.ToolchainError, match=rf"aiecc runs {tool} for a fused build and it is not on PATH"
    ):
        build(ADD, trace=False, cache_dir=tmp_path / "cache", backend="aiecc")
    assert not (tmp_path / "aiecc.log").exists() and not (tmp_path / "clang.log").exists()  # nothing ran


def test_xclbinutil_is_needed_for_separate_dispatch_only(tmp_path, fake_aiecc, monkeypatch):
    fake_aiecc("legacy")
    (tmp_path / "bin" / "xclbinutil").unlink()
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.defpath}")
    assert build(ADD, trace=False, cache_dir=tmp_path / "c", backend="aiecc").backend == "aiecc-full-elf"
    with pytest.raises(toolchain.ToolchainError, match=r"xclbinutil .* ships with XRT"):
        build(ADD, trace=False, target="npu1", cache_dir=tmp_path / "c", backend="aiecc")


def test_machine_resolution(tmp_path, fake_aiecc, monkeypatch):
    """Issue 24 Build 1: one resolver. Nothing installed: builtin + sim; toolchain, no NPU:
    builtin + sim unless aiecc is asked for; toolchain + NPU of the target's generation:
    aiecc + xrt; xrt without an NPU and aiecc without the toolchain are one error each."""
    import iron
    from iron.tests import fake_pyxrt

    monkeypatch.setitem(sys.modules, "pyxrt", None)  # no pyxrt
    monkeypatch.setattr(aiecc, "available", lambda: False)
    m = iron.machine(env={})
    assert (m.backend, m.device) == ("builtin", "sim")
    with pytest.raises(iron.MachineError, match=r"device 'xrt' .* asked for, but pyxrt is not installed"):
        iron.machine(device="xrt", env={})
    with pytest.raises(iron.MachineError, match=r"backend 'aiecc' .* aiecc is not on PATH"):
        iron.machine(env={"IRON_BACKEND": "aiecc"})
    monkeypatch.undo()
    fake_aiecc("legacy")
    monkeypatch.setitem(sys.modules, "pyxrt", None)
    assert (iron.machine(env={}).backend, iron.machine(env={}).device) == ("builtin", "sim")
    assert iron.machine("aiecc", env={}).backend == "aiecc"
    monkeypatch.setitem(sys.modules, "pyxrt", fake_pyxrt.make(npu=True, device_name="NPU Strix"))
    m = iron.machine(env={})
    assert (m.backend, m.device) == ("aiecc", "xrt")
    assert (iron.machine(target="npu1", env={}).device, iron.machine(env={"IRON_DEVICE": "sim"}).backend) == (
        "sim", "builtin",
    )  # fmt: skip
    with pytest.raises(iron.MachineError, match="built-in artifacts run on 'sim'"):
        iron.machine("builtin", "xrt", env={})
    with pytest.raises(IronError, match=r"IRON_BACKEND='chess'; accepted: auto, builtin, aiecc"):
        iron.machine(env={"IRON_BACKEND": "chess"})


def test_check_operator_on_the_fake_npu_names_device_and_first_difference(tmp_path, fake_aiecc, monkeypatch):
    """A check says where it ran; a mismatch names the first differing element."""
    from iron import testing
    from iron.tests import fake_pyxrt

    fake_aiecc("legacy")
    monkeypatch.setitem(sys.modules, "pyxrt", fake_pyxrt.make(npu=True, device_name="NPU Strix"))
    result = testing.check_operator(ADD, cache_dir=tmp_path / "c", trace=False)
    assert (result.device, result.backend) == ("xrt", "aiecc")
    a, b = ADD.example_inputs(0)
    expected = testing.reference(testing.as_sequence(ADD), {"a": a, "b": b})[0].copy()
    expected[5] ^= 1  # the reference the device must match, one element off
    monkeypatch.setattr(testing, "reference", lambda seq, named: (expected,))
    with pytest.raises(
        testing.CheckError,
        match=rf"on xrt \(aiecc build\): output 'c' differs .*1 element\(s\) differ; first at index \(5,\): "
        rf"got {expected[5] ^ 1}, expected {expected[5]}",
    ):
        testing.check_operator(ADD, [a, b], cache_dir=tmp_path / "c", trace=False)
