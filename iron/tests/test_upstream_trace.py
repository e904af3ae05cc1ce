"""Decoding what today's mlir-aie and hardware produce (issue 11).

External references:
* upstream lit tests (iron/tests/data/upstream, corpus): ``trace_slices`` CHECK lines
  of test_fuse_trace_buffers.mlir / test_trace_configure_run.mlir, and the CHECK lines
  of mlir-aie ``test/python/trace_slices.py`` (values typed in below);
* mlir-aie ``test/parse-trace/test1`` and ``test2`` (trace.txt, aie.mlir and the
  upstream parser's output expected.json) as the two slices of a fused buffer;
* real Phoenix captures from FIM43-Redeye/xdna-emu (data/xdna-emu-modes/SOURCES.md):
  core in EVENT_PC (mode 1) and in mode 2 beside a memtile in mode 0.
"""

from __future__ import annotations

import json
import re
import struct
from pathlib import Path

import numpy as np
import pytest

from iron.target.events import event_name
from iron.trace import decode as D
from iron.trace.capture import capture_from_mlir
from iron.trace.cli import main
from iron.artifact.manifest import Manifest, Slice, TraceUnit
from iron.trace.mlir_manifest import manifest_from_mlir
from iron.trace.upstream_slices import trace_buffer, trace_slices
from iron.trace.words import parse_text

from iron.tests.golden import DATA, TEST1, TEST2

UPSTREAM = DATA / "upstream"
MODES = DATA / "xdna-emu-modes"


# --------------------------------------------------------------------------- metadata
def _check_slices(path: Path, label: str) -> str:
    """The #aie.trace_slice<...> records of the CHECK-SAME lines after ``label``, as one attribute."""
    text = path.read_text()
    block = text[text.index(label) :].split("module {", 1)[0]
    recs = re.findall(r"#aie\.trace_slice<[^>]*>", block)
    return "{trace_slices = [" + ", ".join(recs) + "]}"


def test_trace_slices_attribute_form_from_upstream_checks():
    attrs = _check_slices(UPSTREAM / "test_trace_configure_run.mlir", "CHECK-LABEL")
    got = [(s.device, s.sequence, s.offset, s.size) for s in trace_slices(attrs)]
    assert got == [("dev_a", "seq_a", 0, 8192), ("dev_b", "seq_b", 8192, 8192)]
    text = (UPSTREAM / "test_fuse_trace_buffers.mlir").read_text()
    second = text[text.index("// -----") :]
    recs = re.findall(r"#aie\.trace_slice<[^>]*>", second.split("// -----")[1])
    got = [
        (s.device, s.sequence, s.offset, s.size)
        for s in trace_slices("{trace_slices = [" + ", ".join(recs) + "]}")
    ]
    assert got == [("main", "main_seq", 0, 4096), ("dev_a", "seq_a", 4096, 8192)]


def test_trace_slices_dictionary_form():
    attrs = '{trace_slices = [{device = "dev_a", offset = 0 : i64, sequence = "seq_a", size = 8192 : i64}]}'
    assert [(s.device, s.offset, s.size) for s in trace_slices(attrs)] == [("dev_a", 0, 8192)]


def test_trace_buffer_multiline_header_read_by_reader():
    """mlir-aie test/python/trace_slices.py HAND_WRITTEN: CHECK {'arg_index': 1, 'offset': 16, 'size': 761}."""
    from iron.mlir import reader

    text = """module {
  aie.device(npu1_1col) @main {
    aie.runtime_sequence @sequence(%arg0: memref<64xi32>, %arg1: memref<777xi8>)
        attributes {trace_buffer = #aie.trace_buffer<arg_index = 1, offset = 16,
                                                     size = 761,
                                                     dedicated = true>} {
    }
  }
}
"""
    seq = reader.parse(text).devices[0].sequences[0]
    tb = trace_buffer(seq.attributes)
    assert (tb.arg_index, tb.offset, tb.size, tb.dedicated) == (1, 16, 761, True)


def test_bad_trace_slice_names_the_field():
    with pytest.raises(Exception, match="size"):
        trace_slices('{trace_slices = [#aie.trace_slice<device = "d", sequence = "s", offset = 0>]}')


# --------------------------------------------------------------------------- declarative aie.trace
def test_declarative_units_per_device_from_upstream_trace_slices_py():
    """test/python/trace_slices.py: dev_a traces tile (0,2) with INSTR_EVENT_0 (33),
    dev_b tile (0,4) with INSTR_VECTOR (37); slices dev_a 0/8192, dev_b 8192/4096."""
    text = _fused_declarative()
    m = manifest_from_mlir(text, 12288)
    got = [(s.device, s.sequence, s.offset, s.size) for s in m.slices]
    assert got == [("dev_a", "seq_a", 0, 8192), ("dev_b", "seq_b", 8192, 4096)]
    (ua,), (ub,) = m.slices[0].units, m.slices[1].units
    assert (ua.column, ua.row, ua.event_ids[0], ua.packet_id) == (0, 2, 33, 1)
    assert (ub.column, ub.row, ub.event_ids[0]) == (0, 4, 37)
    assert ua.start_event == 122 and ua.stop_event == 121  # BROADCAST_15 / _14 (docs/design.md 4)


def _fused_declarative() -> str:
    def dev(name, seq, row, event, size):
        return f"""  aie.device(npu1_1col) @{name} {{
    %shim = aie.tile(0, 0)
    %core = aie.tile(0, {row})
    aie.trace @t(%core) {{
      aie.trace.mode "Event-Time"
      aie.trace.packet id=1 type=core
      aie.trace.event<"{event}">
      aie.trace.start broadcast=15
      aie.trace.stop broadcast=14
    }}
    aie.runtime_sequence @{seq}(%arg0: memref<64xi32>) {{
      aie.trace.host_config {{buffer_size = {size} : i32}}
      aie.trace.start_config @t
    }}
  }}
"""

    return (
        "module {\n  aie.device(npu1_1col) @main {\n"
        "    aie.runtime_sequence @sequence(%arg0: memref<64xi32>, %arg1: memref<12288xi8>) attributes "
        '{trace_slices = [#aie.trace_slice<device = "dev_a", sequence = "seq_a", offset = 0, size = 8192>, '
        '#aie.trace_slice<device = "dev_b", sequence = "seq_b", offset = 8192, size = 4096>]} {\n    }\n  }\n'
        + dev("dev_a", "seq_a", 2, "INSTR_EVENT_0", 8192)
        + dev("dev_b", "seq_b", 4, "INSTR_VECTOR", 4096)
        + "}\n"
    )


# --------------------------------------------------------------------------- fused hardware captures
def _device_body(path: Path, symbol: str) -> str:
    text = path.read_text()
    start = text.index("aie.device(npu1_1col) {")
    body = text[start:].replace("aie.device(npu1_1col) {", f"aie.device(npu1_1col) @{symbol} {{", 1)
    return body[: body.rindex("}")]  # drop the module's closing brace


SIZE_A, SIZE_B = 8192, 12288  # slices of different sizes; test2's words padded with zeros


def _fused_module() -> str:
    return (
        "module {\n  aie.device(npu1_1col) @main {\n"
        f"    aie.runtime_sequence @sequence(%arg0: memref<64xi32>, %arg1: memref<{SIZE_A + SIZE_B}xi8>) "
        "attributes {trace_slices = ["
        f'{{device = "dev_a", offset = 0 : i64, sequence = "sequence", size = {SIZE_A} : i64}}, '
        f'#aie.trace_slice<device = "dev_b", sequence = "sequence", offset = {SIZE_A}, size = {SIZE_B}>'
        "]} {\n    }\n  }\n"
        + _device_body(TEST1 / "aie.mlir", "dev_a")
        + "\n"
        + _device_body(TEST2 / "aie.mlir", "dev_b")
        + "\n}\n"
    )


def _fused_words() -> np.ndarray:
    a = parse_text((TEST1 / "trace.txt").read_bytes())
    b = parse_text((TEST2 / "trace.txt").read_bytes())
    assert len(a) * 4 == SIZE_A and len(b) * 4 < SIZE_B
    return np.concatenate([a, b, np.zeros(SIZE_B // 4 - len(b), np.uint32)])


def test_fused_capture_decodes_each_slice_with_its_device_cli(tmp_path):
    """Per-slice files equal upstream's parser output for each slice (test1/test2 expected.json)."""
    mlir = tmp_path / "fused.mlir"
    mlir.write_text(_fused_module())
    trace = tmp_path / "trace.txt"
    trace.write_text("\n".join(f"{w:08x}" for w in _fused_words()) + "\n")
    out = tmp_path / "trace.json"
    assert (
        main(["trace", "decode", str(trace), "--mlir", str(mlir), "--format", "mlir-aie", "-o", str(out)])
        == 0
    )
    names = sorted(p.name for p in tmp_path.glob("trace_*.json"))
    assert names == ["trace_0_dev_a_sequence.json", "trace_1_dev_b_sequence.json"]
    assert json.loads((tmp_path / names[0]).read_text()) == json.loads((TEST1 / "expected.json").read_text())
    assert json.loads((tmp_path / names[1]).read_text()) == json.loads((TEST2 / "expected.json").read_text())
    summary = tmp_path / "s.txt"
    assert main(["trace", "decode", str(trace), "--mlir", str(mlir), "-o", str(summary)]) == 0
    text = summary.read_text()
    assert "slice 0:dev_a:sequence#0" in text and "slice 1:dev_b:sequence#0" in text


def test_fused_capture_api_and_names_differ_per_device():
    cap = capture_from_mlir(_fused_words(), _fused_module())
    recs = dict((ds.slice.device, r) for ds, r in cap.mlir_aie_slice_records())
    assert recs["dev_a"] == json.loads((TEST1 / "expected.json").read_text())
    assert recs["dev_b"] == json.loads((TEST2 / "expected.json").read_text())
    # Both devices trace core (0,2) with different events: merging them (the old
    # behaviour) would name one slice's events wrongly.
    names = {d: [r["args"]["name"] for r in rs if r["name"] == "thread_name"][:8] for d, rs in recs.items()}
    assert names["dev_a"] != names["dev_b"]


# --------------------------------------------------------------------------- trace region offset
# mlir-aie test/python/trace_slices.py HAND_WRITTEN (CHECK: {'arg_index': 1, 'offset': 16, ...}):
# #aie.trace_buffer<arg_index, offset, size, dedicated> puts the trace region ``offset`` bytes into
# the argument (python/utils/trace/__init__.py: reuse_output_buffer writes the trace into the tail
# of the last output buffer). Offset 16 as upstream's test writes it; the size is test1's capture.
REGION_OFFSET = 16


def _offset_module(fused: bool) -> str:
    attr = (
        f"#aie.trace_buffer<arg_index = 2, offset = {REGION_OFFSET},\n"
        f"                                size = {SIZE_A}, dedicated = false>"
    )
    text = (TEST1 / "aie.mlir").read_text()
    header = "aie.runtime_sequence @sequence(%arg0: memref<4096xi16>, %arg1: memref<1xi32>, %arg2: memref<4096xi16>)"
    assert header in text
    if not fused:
        return text.replace(header, f"{header}\n        attributes {{trace_buffer = {attr}}}")
    return (
        "module {\n  aie.device(npu1_1col) @main {\n"
        f"    aie.runtime_sequence @sequence(%arg0: memref<64xi32>, %arg1: memref<{REGION_OFFSET + SIZE_A}xi8>) "
        f'attributes {{trace_buffer = {attr}, trace_slices = [#aie.trace_slice<device = "dev_a", '
        f'sequence = "sequence", offset = 0, size = {SIZE_A}>]}} {{\n    }}\n  }}\n'
        + _device_body(TEST1 / "aie.mlir", "dev_a")
        + "\n}\n"
    )


def _offset_words() -> np.ndarray:
    """The whole argument: 16 bytes of output data (they look like packet headers) before the trace."""
    lead = np.full(REGION_OFFSET // 4, 0x0002_0000 | 0x1F, np.uint32)
    return np.concatenate([lead, parse_text((TEST1 / "trace.txt").read_bytes())])


@pytest.mark.parametrize("fused", [False, True])
def test_trace_region_offset_is_skipped(fused):
    words = _offset_words()
    m = manifest_from_mlir(_offset_module(fused), len(words) * 4)
    assert [(s.offset, s.size) for s in m.slices] == [(REGION_OFFSET, SIZE_A)]
    recs = capture_from_mlir(words, _offset_module(fused)).mlir_aie_records()
    assert recs == json.loads((TEST1 / "expected.json").read_text())


def test_trace_region_offset_cli(tmp_path):
    mlir, trace, out = tmp_path / "aie.mlir", tmp_path / "trace.txt", tmp_path / "trace.json"
    mlir.write_text(_offset_module(False))
    trace.write_text("\n".join(f"{w:08x}" for w in _offset_words()) + "\n")
    assert (
        main(["trace", "decode", str(trace), "--mlir", str(mlir), "--format", "mlir-aie", "-o", str(out)])
        == 0
    )
    assert json.loads(out.read_text()) == json.loads((TEST1 / "expected.json").read_text())


# --------------------------------------------------------------------------- trace modes
MODE1_CORE = TraceUnit(1, 2, "core", 0, 2, ["INSTR_EVENT_0"] + ["NONE"] * 7, [33] + [0] * 7, 122, 121, mode=1)
MEMTILE = TraceUnit(1, 1, "memtile", 3, 1, ["NONE"] * 8, [0] * 8, 157, 156, mode=0)


def _decode(path, units):
    words = np.fromfile(path, "<u4")
    return D.decode_words(words, units)


def test_mode1_core_matches_independent_decoder_and_memtile_stays_mode0():
    from iron.trace.decode import parse_event_pc

    ds = _decode(MODES / "mode1_mixed_r0.bin", [MODE1_CORE, MEMTILE])
    core = ds.unit("core", 1, 2)
    mem = ds.unit("memtile", 1, 1)
    assert core.mode == 1 and mem.mode == 0
    words = np.fromfile(MODES / "mode1_mixed_r0.bin", "<u4")
    pk = D.packet_table(words)
    rows = pk.units()[(0, 1, 2)]
    data, _ = D.unit_payload(words, pk.start[rows], pk.words[rows])
    _ev, commands, _ = parse_event_pc(data)
    assert commands == json.loads((MODES / "mode1_mixed_r0_core_expected.json").read_text())
    assert core.diagnostics["unknown_frames"] == 0 and "mode_mismatch" not in ds.diagnostics
    assert mem.diagnostics["unknown_frames"] == 0 and len(mem.ops) > 0
    # EventPC count from the independent decoder: 162 frames + replays of the 5 Repeats.
    exp = json.loads((MODES / "mode1_mixed_r0_core_expected.json").read_text())
    total = sum(1 for c in exp if c["type"] == "EventPC") + sum(
        c["count"] for c in exp if c["type"] == "Repeat"
    )
    assert int((1 + core.pc_events.reps).sum()) == total


def test_mode1_mlir_aie_records_are_instants_with_pc():
    from iron.trace.export import mlir_aie

    ds = _decode(MODES / "mode1_mixed_r0.bin", [MODE1_CORE, MEMTILE])
    recs = [r for r in mlir_aie.mlir_aie_records([ds]) if r.get("ph") == "i"]
    first = json.loads((MODES / "mode1_mixed_r0_core_expected.json").read_text())[
        1
    ]  # EventPC mask 128 pc 816
    assert recs[0]["tid"] == 7 and recs[0]["args"] == {"pc": first["pc"]} and recs[0]["ts"] == 0
    assert all(r["pid"] == recs[0]["pid"] for r in recs)


def test_mode_mismatch_is_a_diagnostic():
    core0 = TraceUnit(**{**MODE1_CORE.__dict__, "mode": 0})
    ds = _decode(MODES / "mode1_mixed_r0.bin", [core0, MEMTILE])
    assert ds.diagnostics["mode_mismatch"] == [{"unit": "core(1,2)", "configured": 0, "start_frame": 1}]
    assert ds.unit("core", 1, 2).mode == 1  # decoded as the hardware ran, and said so


def test_mode2_unit_reported_not_decoded():
    ds = _decode(MODES / "mode2_mixed_r0.bin", [TraceUnit(**{**MODE1_CORE.__dict__, "mode": 2}), MEMTILE])
    core = ds.unit("core", 1, 2)
    assert core.mode == 2 and len(core.ops) == 0 and core.pc_events is None
    (u,) = ds.diagnostics["undecoded"]
    assert u["mode"] == 2 and u["bytes"] == core.nbytes > 0
    from iron.trace.export.summary import summary_text

    assert "not decoded" in summary_text([ds])


# --------------------------------------------------------------------------- mode 1 in summary and plot
# The core traces LOCK_STALL in slot 7: event-PC frames fire it but carry no cycles.
STALL_CORE = TraceUnit(
    **{**MODE1_CORE.__dict__, "events": ["INSTR_EVENT_0"] + ["NONE"] * 6 + ["LOCK_STALL"]},
)


def _expected_slot_counts() -> list[int]:
    """Occurrences per slot from xdna-emu's independent decoder output (a Repeat replays
    the frame before it ``count`` times)."""
    counts, last = [0] * 8, 0
    for c in json.loads((MODES / "mode1_mixed_r0_core_expected.json").read_text()):
        if c["type"] in ("EventPC", "Repeat"):
            last = c["event_bits"] if c["type"] == "EventPC" else last
            n = 1 if c["type"] == "EventPC" else c["count"]
            for s in range(8):
                counts[s] += n * ((last >> s) & 1)
    return counts


def test_summary_of_event_pc_unit_has_counts_not_zero_stalls():
    from iron.trace.export.summary import summary_dict, summary_text

    ds = _decode(MODES / "mode1_mixed_r0.bin", [STALL_CORE, MEMTILE])
    core = next(u for u in summary_dict([ds])["slices"][0]["units"] if u["unit"] == "core(1,2)")
    assert core["stalls"] == {} and core["cycles"] == {}
    exp = _expected_slot_counts()
    assert core["event_pc"] == {f"{s}:{STALL_CORE.events[s]}": n for s, n in enumerate(exp) if n}
    text = summary_text([ds])
    assert "stall cycles" not in text
    assert f"7:LOCK_STALL {exp[7]}" in text


def test_plot_draws_event_pc_samples_as_ticks(tmp_path):
    from matplotlib import colormaps, image

    from iron.trace.export.plot import unit_marks
    from iron.trace.export.timeline import slice_spans

    ds = _decode(MODES / "mode1_mixed_r0.bin", [STALL_CORE, MEMTILE])
    ((off, length),) = slice_spans([ds])
    marks = [m for m in unit_marks(ds, off, length) if m.row == "core(1,2)"]
    exp = _expected_slot_counts()
    assert {m.slot: len(m.x) for m in marks} == {s: n for s, n in enumerate(exp) if n}
    assert all(m.kind == "tick" and m.width is None for m in marks)
    for m in marks:  # inside the slice's span, in capture order
        assert off <= m.x.min() and m.x.max() <= off + length and (np.diff(m.x) > 0).all()
    stall = next(m for m in marks if m.name == "LOCK_STALL")
    assert stall.slot == 7
    path = tmp_path / "t.png"
    from iron.trace.export.plot import plot_timeline

    plot_timeline([ds], path)
    px = np.rint(image.imread(str(path))[..., :3] * 255).astype(int)
    colors = {tuple(c) for c in px.reshape(-1, 3)}
    # names get tab20 colors in first-use order; the memtile (first row) fires no named slot here
    names = list(dict.fromkeys(m.name for m in unit_marks(ds, off, length)))
    tick = tuple(int(round(255 * c)) for c in colormaps["tab20"](names.index("LOCK_STALL"))[:3])
    assert tick in colors


# --------------------------------------------------------------------------- PCs to functions
EM_AIE = 264  # e_machine of AIE cores in Peano's ELF output (LLVM ELF.h EM_AIE)


def write_aie_elf(path: Path, funcs: list[tuple[str, int, int]]) -> None:
    """Write :func:`aie_elf` to ``path``."""
    path.write_bytes(aie_elf(funcs))


def aie_elf(funcs: list[tuple[str, int, int]]) -> bytes:
    """A minimal ELF32 LE, machine AIE: .text, .symtab (STT_FUNC), .strtab, .shstrtab."""
    strtab = b"\0" + b"".join(n.encode() + b"\0" for n, _, _ in funcs)
    shstr = b"\0.text\0.symtab\0.strtab\0.shstrtab\0"
    text = bytes(max(a + s for _, a, s in funcs))
    syms = [bytes(16)]
    off = 1
    for name, addr, size in funcs:
        syms.append(struct.pack("<IIIBBH", off, addr, size, 0x12, 0, 1))  # GLOBAL FUNC, section 1
        off += len(name) + 1
    symtab = b"".join(syms)
    body = [text, symtab, strtab, shstr]
    offs, pos = [], 52
    for b in body:
        offs.append(pos)
        pos += len(b)
    shoff = pos
    sh = [bytes(40)]
    sh.append(struct.pack("<10I", 1, 1, 6, 0, offs[0], len(text), 0, 0, 4, 0))
    sh.append(struct.pack("<10I", 7, 2, 0, 0, offs[1], len(symtab), 3, 1, 4, 16))
    sh.append(struct.pack("<10I", 15, 3, 0, 0, offs[2], len(strtab), 0, 0, 1, 0))
    sh.append(struct.pack("<10I", 23, 3, 0, 0, offs[3], len(shstr), 0, 0, 1, 0))
    hdr = (
        b"\x7fELF\x01\x01\x01"
        + bytes(9)
        + struct.pack("<HHIIIIIHHHHHH", 2, EM_AIE, 1, 0, 0, shoff, 0, 52, 0, 0, 40, 5, 4)
    )
    return hdr + b"".join(body) + b"".join(sh)


def test_a_pc_at_a_functions_end_is_outside_it(tmp_path):
    """ELF ``st_size`` is the symbol's size (System V gABI, Symbol Table): a
    function covers ``[st_value, st_value + st_size)``, so its end address is
    the first byte after it: in the next function, or in none across a gap."""
    from iron.trace.pcmap import function_counts, read_core_elf

    elf = tmp_path / "core_0_2.elf"
    write_aie_elf(elf, [("a", 0, 64), ("b", 64, 32), ("c", 256, 16)])  # gap 96..256, c ends at 272
    pm = read_core_elf(elf)
    pcs = [0, 63, 64, 95, 96, 255, 256, 271, 272]
    want = ["a", "a", "b", "b", None, None, "c", "c", None]
    assert [pm.function(p) for p in pcs] == want
    assert pm.functions(np.array(pcs)) == want
    assert function_counts(pm, np.array([95, 96, 272, 271])) == {"?": 2, "b": 1, "c": 1}


def test_pcs_map_to_functions_of_an_aie_elf(tmp_path):
    from elftools.elf.elffile import ELFFile

    from iron.trace.pcmap import read_core_elf

    elf = tmp_path / "core_1_2.elf"
    # PCs in the capture: 336..356 and 800..816 (xdna-emu expected list)
    write_aie_elf(elf, [("_main_init", 0, 320), ("scale_kernel", 320, 448), ("core_loop", 768, 128)])
    with open(elf, "rb") as fh:
        assert ELFFile(fh)["e_machine"] == EM_AIE  # pyelftools has no name for it: the raw number
    pm = read_core_elf(elf)
    assert pm.functions(np.array([0, 336, 356, 800, 816, 2000])) == [
        "_main_init",
        "scale_kernel",
        "scale_kernel",
        "core_loop",
        "core_loop",
        None,
    ]
    out = tmp_path / "s.txt"
    man = Manifest(
        "npu1",
        1,
        0,
        1000.0,
        "main:sequence",
        -1,
        896,
        [Slice(0, "op", 0, "main", "sequence", 0, 896, [MODE1_CORE, MEMTILE])],
    )
    mf = tmp_path / "m.json"
    mf.write_text(man.to_json())
    argv = [
        "trace",
        "decode",
        str(MODES / "mode1_mixed_r0.bin"),
        "--manifest",
        str(mf),
        "--core-elf",
        str(elf),
    ]
    assert main(argv + ["-o", str(out)]) == 0
    text = out.read_text()
    assert "samples per function: core_loop" in text and "scale_kernel" in text
    pf = tmp_path / "p.json"
    assert main(argv + ["--format", "perfetto", "-o", str(pf)]) == 0
    ev = json.loads(pf.read_text())["traceEvents"]
    slices = {e["name"] for e in ev if e.get("ph") == "X"}
    assert {"core_loop", "scale_kernel"} <= slices
    assert any(e.get("ph") == "i" and e["args"].get("function") == "core_loop" for e in ev)


# --------------------------------------------------------------------------- architecture names
def test_event_names_follow_the_architecture():
    """events_database.json differs at core id 70 (DESIGN: aie2 DECOMPRESSION_UNDERFLOW, aie2p SPARSITY_OVERFLOW)."""
    assert event_name("core", 70, "aie2") == "DECOMPRESSION_UNDERFLOW"
    assert event_name("core", 70, "aie2p") == "SPARSITY_OVERFLOW"
    mk = lambda target: (
        f"module {{\n  aie.device({target}) {{\n    aie.runtime_sequence(%arg0: memref<4xi32>) {{\n"
        "      aiex.npu.write32 {address = 213216 : ui32, column = 0 : i32, row = 2 : i32, value = 70 : ui32}\n"
        "    }\n  }\n}\n"
    )
    assert manifest_from_mlir(mk("npu1_1col"), 64).slices[0].units[0].events[0] == "DECOMPRESSION_UNDERFLOW"
    assert manifest_from_mlir(mk("npu2"), 64).slices[0].units[0].events[0] == "SPARSITY_OVERFLOW"


def test_mode1_capture_in_mlir_aie_format_is_the_bytes_mlir_aies_parser_writes(tmp_path):
    """The xdna-emu Phoenix capture (core in EVENT_PC mode, memtile event-time) with a
    configuration of its two units: iron's `--format mlir-aie` file is byte for byte what
    mlir-aie's parse.py (93d0a7cc, PR #3504) writes for it (data/xdna-emu-modes/SOURCES.md:
    thread-scoped instants ``"ph": "i", "s": "t"`` in capture order, Repeats replayed,
    then the memtile's B/E records), from the binary and from the text form."""
    mlir = MODES / "mode1_mixed_r0.aie.mlir"
    want = (MODES / "mode1_mixed_r0.mlir_aie.json").read_bytes()
    txt = tmp_path / "trace.txt"
    txt.write_text("".join(f"{int(w):08x}\n" for w in np.fromfile(MODES / "mode1_mixed_r0.bin", "<u4")))
    for src in (MODES / "mode1_mixed_r0.bin", txt):
        out = tmp_path / f"{src.name}.json"
        argv = ["trace", "decode", str(src), "--mlir", str(mlir), "--format", "mlir-aie", "-o", str(out)]
        assert main(argv) == 0
        assert out.read_bytes() == want, src.name
    recs = json.loads(want)
    assert sum(r["ph"] == "i" for r in recs) == 2969
    assert list(recs[18]) == ["name", "ts", "ph", "s", "pid", "tid", "args"]
