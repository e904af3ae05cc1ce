"""Issue 26 (hardening the new surfaces): one test per bug, each failing on the code before its fix.

Expected values are hand-computed (numpy references, byte counts) or upstream's
rules (MLIR's integer literals: ``mlir/lib/AsmParser/Lexer.cpp``), never the code under test.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

from iron import build
from iron.errors import IronError
from iron.operators import ReLU


# --------------------------------------------------------------------------- 2. shared runner
def test_runner_shared_by_two_threads_gives_exact_outputs(tmp_path):
    op = ReLU(4096, "bf16")
    run = build(op, trace=False, cache_dir=tmp_path).load("sim")
    inputs = [op.example_inputs(seed) for seed in range(8)]
    alone = [run(*x) for x in inputs]  # single-threaded reference
    got: dict[tuple[int, int], np.ndarray] = {}
    errors = []
    barrier = threading.Barrier(2)

    def worker(t):
        try:
            barrier.wait()
            for rep in range(5):
                for i, x in enumerate(inputs):
                    got[t, rep * len(inputs) + i] = run(*x)
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    wrong = [k for k, v in got.items() if not np.array_equal(v, alone[k[1] % len(inputs)])]
    assert len(got) == 80 and wrong == []


# --------------------------------------------------------------------------- 6. integers, encodings
from pathlib import Path  # noqa: E402

from iron import limits, options  # noqa: E402
from iron.errors import OptionError  # noqa: E402
from iron.mlir.reader import MlirSyntaxError, parse, parse_file  # noqa: E402

DATA = Path(__file__).parent / "data"
PEANO = DATA / "foreign/mlir-aie__test__npu-xrt__add_one_func_link_with_peano__aie.mlir"


def _design(**edits) -> str:
    text = PEANO.read_text(encoding="utf-8").replace("NPUDEVICE", "npu1_1col")
    for old, new in edits.values():
        assert old in text
        text = text.replace(old, new)
    return text


@pytest.mark.parametrize(
    "text, value",
    [
        ("08192", 8192),  # MLIR's lexer: digits are decimal, leading zeros and all
        ("0x1F", 31),
        ("-0x10", -16),
        ("  42 ", 42),
        ("0" * 40, 0),
    ],
)
def test_parse_int_reads_as_mlir_does(text, value):
    assert limits.parse_int(text) == value


@pytest.mark.parametrize("text", ["0X10", "1_000", "0o7", "\u0661", "", "0x", "1" * 41, "9" * 5000, "1e3"])
def test_parse_int_refuses_what_mlir_does_not_read(text):
    with pytest.raises(limits.IntegerError):
        limits.parse_int(text)


@pytest.mark.parametrize(
    "env",
    [
        {"IRON_TRACE_SIZE": "9" * 5000},
        {"IRON_TRACE_SIZE": "4096", "IRON_TRACE_NTILES": "9" * 5000},
        {"IRON_TRACE_SIZE": "4096", "IRON_TRACE_SIZES": "0:" + "9" * 5000},
        {"IRON_TRACE_SIZE": "4096", "IRON_TRACE_START": "broadcast=" + "9" * 5000},
        {"IRON_TRACE_SIZE": "4096", "IRON_TRACE_OP": "9" * 5000},
        {"IRON_TRACE_SIZE": "4096", "IRON_TRACE_UNITS": "core(0," + "9" * 5000 + ")"},
    ],
)
def test_huge_integers_in_options_are_one_option_error(env):
    with pytest.raises(OptionError, match="not an integer"):
        options.resolve(env=env)


def test_huge_python_int_option_is_an_option_error():
    with pytest.raises(OptionError, match="bits"):
        options.resolve(True, size=10**5000)


def test_leading_zeros_read_as_decimal_everywhere():
    assert options.resolve(env={"IRON_TRACE_SIZE": "04096"}).size == 4096
    assert (
        options.resolve(env={"IRON_TRACE_SIZE": "4096", "IRON_TRACE_START": "broadcast=08"}).start
        == "broadcast=8"
    )
    from iron.instrument.declarative import _boundary_spec

    assert _boundary_spec({"broadcast": "08"}) == "broadcast=8"  # int("08", 0) raised here
    from iron.trace.upstream_slices import _fields

    assert _fields("offset = 08192, size = 0x20", "slice") == {"offset": 8192, "size": 32}


def test_huge_integer_in_mlir_is_a_syntax_error_with_position():
    text = _design(t=("aie.tile(0, 2)", "aie.tile(0, " + "2" * 5000 + ")"))
    with pytest.raises(MlirSyntaxError, match=r"x\.mlir:21:\d+: an integer of 5000 digits"):
        parse(text, "x.mlir")


def test_trace_slice_field_with_huge_integer_is_an_iron_error():
    from iron.trace.upstream_slices import TraceMetaError, _fields

    with pytest.raises(TraceMetaError):
        _fields("offset = " + "1" * 5000, "slice")


def test_non_utf8_mlir_names_the_file_and_byte_offset(tmp_path):
    path = tmp_path / "bad.mlir"
    data = _design().encode()
    at = data.index(b"aie.tile(0, 2)")
    path.write_bytes(data[:at] + b"\xff\xfe" + data[at:])
    with pytest.raises(
        MlirSyntaxError, match=rf"bad\.mlir: the MLIR file is not UTF-8 text: byte {at} \(0xff\)"
    ):
        parse_file(path)


def test_non_utf8_mlir_for_decode_is_one_error_line(tmp_path, capsys):
    from iron.trace.cli import main

    mlir, words = tmp_path / "bad.mlir", tmp_path / "w.bin"
    mlir.write_bytes(b"module {\n\x80}\n")
    words.write_bytes(b"\0" * 64)
    assert main(["trace", "decode", str(words), "--mlir", str(mlir)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "byte 9 (0x80)" in err and "bad.mlir" in err


def test_negative_memref_size_is_named_not_no_runtime_sequence():
    text = _design(a=("%in : memref<64xi32>", "%in : memref<-1xi32>"))
    with pytest.raises(MlirSyntaxError, match=r"'memref<-1xi32>' is not a memref type"):
        parse(text, "x.mlir")


def test_nul_after_module_is_named_at_its_position():
    with pytest.raises(MlirSyntaxError, match=r"x\.mlir:1:9: a NUL character"):
        parse("module {\0\n}\n", "x.mlir")


# --------------------------------------------------------------------------- 7. designs outside the device
import iron  # noqa: E402
from iron.mlir.check import DesignCheckError  # noqa: E402

PACKET_FLOW = "    aie.packet_flow(1) {\n      aie.packet_source<%nope, Trace : 0>\n      aie.packet_dest<%tile_0_0, DMA : 1>\n    }\n"


@pytest.mark.parametrize(
    "edits, message",
    [
        (
            {"a": ("aie.tile(0, 2)", "aie.tile(1, 2)")},
            r"%tile_0_2 = aie.tile\(1, 2\) is outside the device: columns 0 to 0, rows 0 to 5",
        ),
        ({"a": ("aie.tile(0, 2)", "aie.tile(0, 99)")}, r"aie.tile\(0, 99\) is outside the device"),
        (
            {
                "a": (
                    "%tile_0_2 = aie.tile(0, 2)",
                    "%tile_0_2 = aie.tile(0, 2)\n    %tile_0_2 = aie.tile(0, 3)",
                )
            },
            r"%tile_0_2 is defined twice",
        ),
        (
            {"a": ("aie.core(%tile_0_2)", "aie.core(%tile_0_0)")},
            r"aie.core\(%tile_0_0\) on aie.tile\(0, 0\), a shim tile",
        ),
        (
            {"a": ("    aie.runtime_sequence", PACKET_FLOW + "    aie.runtime_sequence")},
            r"aie.packet_flow\(1\) source names %nope, which is not an aie.tile",
        ),
    ],
    ids=["column", "row", "redefined", "core-on-shim", "undefined-tile"],
)
def test_design_outside_its_device_is_refused_before_the_cache(tmp_path, edits, message):
    op = iron.from_mlir(_design(**edits), reference=lambda a, b: (a + 1,))
    cache = tmp_path / "cache"
    with pytest.raises(DesignCheckError, match=message):
        iron.build(op, target="npu1", cache_dir=cache, trace=False)
    assert not cache.exists() or [p.name for p in cache.iterdir() if p.name != ".locks"] == []


def test_trace_unit_kind_must_match_its_tile():
    from iron.instrument.declarative import DeclarativeTraceError, parse_trace
    from iron.mlir import ir

    tiles = {"shim": ir.Tile("shim", 0, 0)}
    text = (
        "aie.trace @t(%shim) {\n  aie.trace.packet id = 1 type = core\n"
        '  aie.trace.event<"INSTR_EVENT_0">\n}'
    )
    with pytest.raises(
        DeclarativeTraceError, match=r"packet type core on %shim = aie.tile\(0, 0\), a shim tile"
    ):
        parse_trace(text, tiles)


# --------------------------------------------------------------------------- core ELFs, inputs
import os  # noqa: E402
import struct  # noqa: E402

from iron.trace.pcmap import CoreElfError, read_core_elf, read_core_elf_data  # noqa: E402


def elf64(symbols) -> bytes:
    """A minimal little-endian ELF64 (ELF spec, gABI): .text, .symtab of STT_FUNC ``symbols``
    ``(name, value, size)``, .strtab, .shstrtab."""
    text = bytes(16)
    strtab, syms, off = b"\0", [bytes(24)], 1
    for name, value, size in symbols:
        strtab += name.encode() + b"\0"
        syms.append(struct.pack("<IBBHQQ", off, 0x12, 0, 1, value, size))  # GLOBAL FUNC, shndx .text
        off += len(name) + 1
    shstr = b"\0.text\0.symtab\0.strtab\0.shstrtab\0"
    body = [text, b"".join(syms), strtab, shstr]
    offs, pos = [], 64
    for b in body:
        offs.append(pos)
        pos += len(b)
    sh = [bytes(64)]
    sh.append(struct.pack("<IIQQQQIIQQ", 1, 1, 6, 0, offs[0], len(text), 0, 0, 4, 0))
    sh.append(struct.pack("<IIQQQQIIQQ", 7, 2, 0, 0, offs[1], len(body[1]), 3, 1, 8, 24))
    sh.append(struct.pack("<IIQQQQIIQQ", 15, 3, 0, 0, offs[2], len(strtab), 0, 0, 1, 0))
    sh.append(struct.pack("<IIQQQQIIQQ", 23, 3, 0, 0, offs[3], len(shstr), 0, 0, 1, 0))
    hdr = (
        b"\x7fELF\x02\x01\x01"
        + bytes(9)
        + struct.pack("<HHIQQQIHHHHHH", 2, 62, 1, 0, 0, pos, 0, 64, 0, 0, 64, 5, 4)
    )
    return hdr + b"".join(body) + b"".join(sh)


def test_elf64_symbol_near_2_64_is_a_core_elf_error():
    assert read_core_elf_data(elf64([("f", 0x100, 0x20)]), "ok.elf").function(0x110) == "f"
    with pytest.raises(CoreElfError, match=r"big\.elf: function 'g' spans 0xfffffffffffffff0"):
        read_core_elf_data(elf64([("g", (1 << 64) - 16, 8)]), "big.elf")


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


@pytest.fixture
def huge(tmp_path):
    path = tmp_path / "huge.bin"
    with open(path, "wb") as f:  # sparse: 1 GiB + 1 byte on no disk
        f.truncate((1 << 30) + 1)
    return path


@pytest.mark.parametrize("which", ["/dev/zero", "fifo", "huge", "dir"])
def test_core_elf_inputs_are_checked_before_reading(which, fifo, huge, tmp_path):
    path = {"/dev/zero": "/dev/zero", "fifo": fifo, "huge": huge, "dir": tmp_path}[which]
    with pytest.raises(CoreElfError, match="not a regular file|more than the largest|is a directory"):
        read_core_elf(path)  # /dev/zero: MemoryError, a FIFO: hangs, before the checks


# --------------------------------------------------------------------------- 4/5. iron trace wire
from iron import cli as iron_cli  # noqa: E402
from iron.fuse.wire import WireError, manifest_path, wire  # noqa: E402
from iron.artifact.manifest import Manifest  # noqa: E402
from iron.tests.upstream import UPSTREAM  # noqa: E402

CONFIGURE_RUN = UPSTREAM / "test_trace_configure_run.mlir"


def _wire_cli(capsys, *argv) -> tuple[int, str]:
    code = iron_cli.main(["trace", "wire", *map(str, argv)])
    err = capsys.readouterr().err
    assert code == 0 or err.count("\n") == 1, err
    return code, err


@pytest.mark.parametrize("which", ["/dev/zero", "fifo", "huge"])
def test_wire_input_goes_through_the_input_checks(which, fifo, huge, tmp_path, capsys):
    path = {"/dev/zero": "/dev/zero", "fifo": fifo, "huge": huge}[which]
    code, err = _wire_cli(capsys, path, "-o", tmp_path / "o.mlir")
    assert code == 2 and ("not a regular file" in err or "more than the largest MLIR file" in err)
    assert not (tmp_path / "o.mlir").exists()


@pytest.mark.parametrize(
    "size, message",
    [
        ("8200", "not a multiple of 32"),
        (str(1 << 66), "exceeds what a shim BD length can address"),
        ("-64", "buffer_size=-64: must be >= 0"),  # read as MLIR reads it (issue 36), then refused
    ],
)
def test_wire_validates_host_config_sizes_as_build_does(size, message, tmp_path, capsys):
    src = tmp_path / "in.mlir"
    src.write_text(CONFIGURE_RUN.read_text().replace("buffer_size = 8192", f"buffer_size = {size}", 1))
    code, err = _wire_cli(capsys, src, "-o", tmp_path / "o.mlir")
    assert code == 2 and message in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.mlir"]


@pytest.mark.parametrize("size, message", [("100", "not a multiple of 32"), ("9" * 5000, "not an integer")])
def test_wire_trace_size_is_validated(size, message, tmp_path, capsys):
    code, err = _wire_cli(capsys, CONFIGURE_RUN, "--trace-size", size, "-o", tmp_path / "o.mlir")
    assert code == 2 and message in err
    with pytest.raises(WireError, match=message):
        wire(CONFIGURE_RUN.read_text(), trace_size=size)


def test_wire_to_a_directory_leaves_nothing_behind(tmp_path, capsys):
    out = tmp_path / "d"
    out.mkdir()
    code, err = _wire_cli(capsys, CONFIGURE_RUN, "-o", out)
    assert code == 2 and "is a directory" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]  # no d.manifest.json
    code, err = _wire_cli(capsys, CONFIGURE_RUN, "-o", f"{tmp_path}/new/")
    assert code == 2 and sorted(p.name for p in tmp_path.iterdir()) == ["d"]


def test_wire_writes_both_or_neither(tmp_path, monkeypatch):
    from iron import files
    from iron.fuse import wire as wire_mod

    out = tmp_path / "traced.mlir"
    real = files.atomic_write

    def failing(path, data):
        if str(path) == str(out):
            raise files.OutputError(path, "No space left on device")
        real(path, data)

    monkeypatch.setattr(files, "atomic_write", failing)
    with pytest.raises(files.OutputError):
        wire_mod.write_wired(CONFIGURE_RUN, out)
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    manifest_path(out).write_text("old")
    with pytest.raises(files.OutputError):
        wire_mod.write_wired(CONFIGURE_RUN, out)
    assert manifest_path(out).read_text() == "old" and not out.exists()
    monkeypatch.setattr(files, "atomic_write", real)
    wire_mod.write_wired(CONFIGURE_RUN, out)
    assert Manifest.from_json(manifest_path(out).read_text()).total_size == 16384


def test_write_errors_name_the_path_once(tmp_path, capsys):
    from iron.trace.cli import main

    words = tmp_path / "w.bin"
    words.write_bytes(bytes(64))
    out = tmp_path / "missing" / "x.json"
    (tmp_path / "missing").write_text("a file where a folder should be")
    code = main(["trace", "decode", str(words), "--mlir", str(DATA / "mlir-aie-test1/aie.mlir"),
                 "--format", "perfetto", "-o", str(out)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and err.count(str(out)) == 1, err


# --------------------------------------------------------------------------- 8. .iron.meta
import copy  # noqa: E402
import json  # noqa: E402

from iron.artifact import elf as elf_mod  # noqa: E402
from iron.artifact import schema  # noqa: E402
from iron.operators import ElementwiseAdd  # noqa: E402


@pytest.fixture(scope="module")
def artifact_sections(tmp_path_factory):
    cache = tmp_path_factory.mktemp("meta-cache")
    art = build(ElementwiseAdd(1024, "i32"), trace=True, trace_size=4096, ntiles=1, select=[0],
                cache_dir=cache, sources=True)  # fmt: skip
    return {k: v for k, v in schema.read_sections(art.path).items() if k.startswith(elf_mod.PREFIX)}


def _resigned(sections, meta, tmp_path) -> Path:
    """An artifact whose .iron.meta is ``meta``, checksum recomputed (a "re-signed" file)."""
    path = tmp_path / "resigned.elf"
    data = meta if isinstance(meta, bytes) else json.dumps(meta).encode()
    path.write_bytes(elf_mod.write_elf({**sections, schema.META: data}))
    return path


def _leaves(node, prefix=()):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _leaves(v, prefix + (k,))
    elif isinstance(node, list) and node:
        for i, v in enumerate(node):
            yield from _leaves(v, prefix + (i,))
    yield prefix


def test_every_meta_field_has_a_check(artifact_sections):
    meta = json.loads(artifact_sections[schema.META])
    assert set(meta) <= set(schema.META_FIELDS)
    assert set(schema.META_FIELDS) - set(meta) <= {"core_elfs"}  # aiecc builds with sources only


def test_a_wrong_value_in_any_meta_field_is_a_meta_error(artifact_sections, tmp_path):
    meta = json.loads(artifact_sections[schema.META])
    paths = [p for p in _leaves(meta) if p and p[0] != "trace_options" or p == ("trace_options",)]
    assert len(paths) > 40
    for path in paths:
        bad = copy.deepcopy(meta)
        node = bad
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = 12.5  # a float: no field of .iron.meta holds one
        with pytest.raises(schema.MetaError, match=re.escape(str(path[-1]))):
            schema.Artifact.open(_resigned(artifact_sections, bad, tmp_path))


import re  # noqa: E402


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda m: m.update(pdis=list(m["pdis"].values())), r"pdis = \[.*accepted: an object of PDI id"),
        (lambda m: m.update(sources=json.loads("[" * 100000 + "]" * 100000)), "nested too deeply"),
        (
            lambda m: m["schedule"][0].update(kernel="nope"),
            r"schedule\[0\].kernel = 'nope': accepted: a name in kernels",
        ),
        (
            lambda m: m["buffers"][0].update(shape=[1 << 40]),
            r"buffers\[0\].shape = \[1099511627776\]: accepted: .* from 0 to 17179869184",
        ),
        (lambda m: m.update(inputs=["nope"]), r"inputs\[0\] = 'nope'"),
        (lambda m: m["kernels"][0]["args"][0].update(buffer="nope"), r"kernels\[0\].args\[0\].buffer"),
        (lambda m: m["buffers"][0].update(dtype="f128"), r"dtype = 'f128'"),
    ],
    ids=["list-for-dict", "deep", "missing-kernel", "huge-buffer", "unknown-input", "unknown-arg", "dtype"],
)
def test_damaged_meta_is_one_meta_error(artifact_sections, tmp_path, edit, message):
    meta = json.loads(artifact_sections[schema.META])
    if "nested" in message:  # json.dumps itself recurses: write the text by hand
        text = artifact_sections[schema.META].decode()
        data = text.replace('"sources": {', '"sources": ' + "[" * 100000 + "]" * 100000 + ', "x": {', 1)
        path = _resigned(artifact_sections, data.encode(), tmp_path)
    else:
        edit(meta)
        path = _resigned(artifact_sections, meta, tmp_path)
    with pytest.raises(schema.MetaError, match=message):
        schema.Artifact.open(path)
    assert iron_cli.main(["inspect", str(path)]) == 2


# --------------------------------------------------------------------------- 9. clock bounds
@pytest.mark.parametrize("clock", [1e-300, 0.5, 1e5, 1e6])
def test_manifest_clock_outside_what_writers_render_is_refused(clock):
    from iron.artifact.manifest import ManifestError

    data = json.loads(Manifest(target="npu1", columns=1, column_offset=1, clock_mhz=1000.0, kernel="k",
                               trace_arg_index=2, total_size=0).to_json())  # fmt: skip
    Manifest.from_dict(data)
    data["clock_mhz"] = clock
    with pytest.raises(ManifestError, match="clock_mhz .*from 1 to 10000"):
        Manifest.from_dict(data)


# --------------------------------------------------------------------------- 3. one output bound
from iron.artifact.manifest import Slice, TraceUnit  # noqa: E402
from iron.trace.capture import decode_manifest  # noqa: E402
from iron.trace.encode import encode_unit, interleave, packetize  # noqa: E402

CORE_EVENTS = ["INSTR_EVENT_0", "INSTR_EVENT_1", "INSTR_VECTOR", "MEMORY_STALL",
               "STREAM_STALL", "LOCK_STALL", "PORT_RUNNING_0", "PORT_RUNNING_1"]  # fmt: skip
PULSES = 400_000  # per unit: INSTR_VECTOR every other cycle, in 785 bytes of Repeat frames


def _amplifier(tmp_path, units: int):
    """A 4 KB trace of ``units`` core units, each ``PULSES`` one-cycle intervals of slot 2."""
    from iron.target.events import event_id

    ids = [event_id("core", n, "aie2") for n in CORE_EVENTS]
    tus = [TraceUnit(0, 2 + r, "core", 0, r + 1, CORE_EVENTS, ids, 0, 0) for r in range(units)]
    m = Manifest("npu1", 1, 0, 1000.0, "k", 2, 4096, [Slice(0, "Op", 0, "d", "s", 0, 4096, tus)])
    payload = encode_unit([(5, 0x04, PULSES, 2)])
    words = interleave([packetize(0, u.row, 0, u.packet_id, payload) for u in tus], pad_to=1024)
    (tmp_path / "m.json").write_text(m.to_json())
    words.astype("<u4").tofile(tmp_path / "w.bin")
    return Manifest.from_json(m.to_json()), words


def _x_events(doc) -> int:
    return sum(1 for e in doc["traceEvents"] if e["ph"] == "X")


def test_perfetto_output_has_one_bound_for_the_api_and_the_cli(tmp_path, capsys):
    from iron.trace.cli import main

    units = 4  # the API bounded each unit alone (4x), the CLI nothing
    manifest, words = _amplifier(tmp_path, units)
    bound, total = 1 << 18, units * PULSES  # 8 per payload byte is less than 2**18 here
    api = decode_manifest(manifest, words)
    doc = api.perfetto()
    assert _x_events(doc) == bound
    assert doc["metadata"]["output_bound"]["dropped_intervals"] == total - bound
    assert api.write(tmp_path / "api.json", "perfetto") == total - bound
    out = tmp_path / "cli.json"
    assert main(["trace", "decode", str(tmp_path / "w.bin"), "--manifest", str(tmp_path / "m.json"),
                 "--format", "perfetto", "-o", str(out)]) == 0  # fmt: skip
    err = capsys.readouterr().err
    assert f"{total - bound} later intervals were dropped" in err and "--all-intervals" in err
    cli = json.loads(out.read_text())
    assert _x_events(cli) == bound and cli["metadata"]["output_bound"]["dropped_intervals"] == total - bound
    begins = sorted(round(e["ts"] * 1000) for e in cli["traceEvents"] if e["ph"] == "X")
    assert begins[:3] == [5, 7, 9]  # the earliest intervals are the ones kept


def test_all_intervals_lifts_the_bound(tmp_path, capsys):
    from iron.trace.cli import main

    _amplifier(tmp_path, 1)
    out = tmp_path / "all.json"
    assert main(["trace", "decode", str(tmp_path / "w.bin"), "--manifest", str(tmp_path / "m.json"),
                 "--format", "perfetto", "--all-intervals", "-o", str(out)]) == 0  # fmt: skip
    doc = json.loads(out.read_text())
    assert _x_events(doc) == PULSES and "output_bound" not in doc["metadata"]
    assert capsys.readouterr().err == ""


def test_mlir_aie_record_bound_holds_across_units(tmp_path, monkeypatch):
    from iron.trace.export import bound
    from iron.trace.words import TraceInputError

    (tmp_path / "1").mkdir()
    one, one_words = _amplifier(tmp_path / "1", 1)
    manifest, words = _amplifier(tmp_path, 4)
    per_unit = 2 * PULSES  # a B and an E record per pulse (mlir-aie's parse.py)
    monkeypatch.setattr(bound, "MAX_MLIR_AIE_RECORDS", per_unit + 10)
    decode_manifest(one, one_words).write(
        tmp_path / "one.json", "mlir-aie", all_intervals=True
    )  # one unit fits
    with pytest.raises(TraceInputError, match="across all units"):
        decode_manifest(manifest, words).write(tmp_path / "four.json", "mlir-aie", all_intervals=True)
    assert not (tmp_path / "four.json").exists()


# --------------------------------------------------------------------------- 10. smaller ones
def test_summary_to_a_gz_name_is_gzipped(tmp_path):
    import gzip

    from iron.trace.cli import main

    out = tmp_path / "s.txt.gz"
    args = [
        "trace",
        "decode",
        str(DATA / "mlir-aie-test1/trace.txt"),
        "--mlir",
        str(DATA / "mlir-aie-test1/aie.mlir"),
    ]
    assert main([*args, "-o", str(out)]) == 0
    assert main([*args, "-o", str(tmp_path / "s.txt")]) == 0
    assert out.read_bytes()[:2] == b"\x1f\x8b"  # gzip's magic (RFC 1952)
    assert gzip.decompress(out.read_bytes()) == (tmp_path / "s.txt").read_bytes()


def test_cache_clear_leaves_user_files_named_like_temp_files(tmp_path):
    from iron.builder import cache

    art = build(ElementwiseAdd(1024, "i32"), trace=False, cache_dir=tmp_path)
    key8 = art.path.name[-12:-4]
    mine = [
        tmp_path / f".{art.path.name}.backup.tmp",  # not iron's 8-hex temp suffix
        tmp_path / ".notes_0123abcd.elf.89abcdef.tmp",  # no build of key 0123abcd ever ran here
    ]
    for p in mine:
        p.write_text("user data")
    stale = tmp_path / f".{art.path.name}.0123abcd.tmp"
    stale.write_bytes(b"half")
    cache.clear(tmp_path)
    assert [p.read_text() for p in mine] == ["user data"] * 2 and not stale.exists() and key8


def test_dangling_symlink_cache_dir_is_an_option_error(tmp_path):
    link = tmp_path / "cache"
    link.symlink_to(tmp_path / "gone")
    with pytest.raises(OptionError, match=r"a symlink to .*gone.*which does not exist"):
        build(ElementwiseAdd(1024, "i32"), trace=False, cache_dir=link)


def test_trace_plot_keeps_matplotlib_files_out_of_home(tmp_path):
    import subprocess
    import sys

    home = tmp_path / "home"
    home.mkdir()
    env = {
        k: v for k, v in os.environ.items() if k not in ("MPLCONFIGDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME")
    }
    env["HOME"] = str(home)
    cmd = [sys.executable, "-m", "iron", "trace", "plot", str(DATA / "mlir-aie-test1/trace.txt"),
           "--mlir", str(DATA / "mlir-aie-test1/aie.mlir"), "-o", str(tmp_path / "p.png")]  # fmt: skip
    subprocess.run(cmd, env=env, check=True, capture_output=True, timeout=120)
    made = sorted(str(p.relative_to(home)) for p in home.rglob("*") if p.is_dir())
    assert (tmp_path / "p.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert all(p == ".cache" or p.startswith(".cache/iron") for p in made), made


def test_output_name_ending_in_a_separator_is_refused(tmp_path):
    from iron.files import OutputError, atomic_write

    with pytest.raises(OutputError, match="ends with a path separator"):
        atomic_write(f"{tmp_path}/newdir/", b"x")
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- 4. reader memory
def test_reader_memory_per_input_byte_is_bounded():
    """A long string literal on one line made the regex engine keep ~150 bytes per byte
    (benchmarks/bench_robustness.py --reader-memory measures the shapes at 40 MB)."""
    import tracemalloc

    head = "module {\n  aie.device(npu1_1col) {\n    %t = aie.tile(0, 2)\n"
    text = head + '    "x.y"() {a = "' + "a" * 1_000_000 + '"} : () -> ()\n  }\n}\n'
    tracemalloc.start()
    try:
        parse(text, "m.mlir")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10 * len(text)


def test_splat_global_cannot_ask_for_gigabytes():
    text = (
        "module {\n  aie.device(npu1_1col) {\n"
        '    memref.global "private" constant @g : memref<4000000000xi32> = dense<0>\n  }\n}\n'
    )
    with pytest.raises(MlirSyntaxError, match=r"memref<4000000000xi32> of one value; at most 131072 words"):
        parse(text, "m.mlir")


# --------------------------------------------------------------------------- fuzzers (small sample)
from hypothesis import HealthCheck, given, settings  # noqa: E402

from iron.tests import fuzz  # noqa: E402

FEW = settings(max_examples=10, deadline=None, database=None, suppress_health_check=list(HealthCheck))


@FEW
@given(fuzz.mutated_mlir(fuzz.FOREIGN))
def test_mutated_foreign_designs(data):
    fuzz.check_from_mlir(data)


@FEW
@given(fuzz.mutated_mlir(fuzz.FUSED))
def test_mutated_fused_modules_through_wire(data):
    fuzz.check_wire(data)


@FEW
@given(fuzz.mutated_meta())
def test_mutated_meta(meta):
    fuzz.check_meta(meta)


@FEW
@given(fuzz.mutated_bytes(fuzz.reference_core_elf()))
def test_mutated_core_elfs(data):
    fuzz.check_core_elf(data)


def test_from_mlir_path_goes_through_the_input_checks(tmp_path):
    """A design file that is not UTF-8 is one ForeignDesignError naming the file and the
    byte offset; a FIFO is refused, not read (issue 26 item 4, the from_mlir path)."""
    import os

    import iron
    from iron.operators.foreign import ForeignDesignError

    bad = tmp_path / "bad.mlir"
    bad.write_bytes(b"module {\n  \xff\xfe\n}\n")
    with pytest.raises(ForeignDesignError, match=r"bad\.mlir.*byte 11"):
        iron.from_mlir(bad)
    fifo = tmp_path / "pipe.mlir"
    os.mkfifo(fifo)
    with pytest.raises(ForeignDesignError):
        iron.from_mlir(fifo)


def test_a_damaged_section_name_stays_on_one_error_line(capsys):
    """A section name read from damaged bytes (data/regressions/SOURCES.md) is shown on one line,
    cut short, as every other CLI error."""
    from iron.cli import main

    bad = Path(__file__).parent / "data" / "regressions" / "section_name_in_meta.elf"
    assert main(["inspect", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "is truncated" in err
