"""Foreign designs through the real path (issue 25): DMA tasks read structurally, their
tokens kept, upstream's event_trace example run to completion on sim.

Expected values are upstream's CHECK lines or read by hand from the stored upstream
files (iron/tests/data/designs/SOURCES.md, ../corpus/SOURCES.md), never iron's output.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import iron
from iron.errors import IronError
from iron.fuse.fusion import fuse
from iron.lower import task_text
from iron.lower.materialize import kernel_ops
from iron.mlir import ir
from iron.mlir.reader import parse
from iron.target import events as ev
from iron.options import TraceOptions

DATA = Path(__file__).parent / "data"
# the event_trace cores use the old acquire form, translated on reading (test_legacy_syntax)
pytestmark = pytest.mark.filterwarnings("ignore::iron.mlir.legacy.LegacySyntaxWarning")
EVENT_TRACE = DATA / "designs" / "mlir-aie__programming_examples__basic__event_trace__aie_trace.mlir"
GOOD_1 = DATA / "designs" / "mlir-aie__test__bd-chains-and-dma-tasks__dma-tasks-to-npu__good-1.mlir"
TOKEN = DATA / "corpus" / "mlir-aie__test__npu-xrt__core_dmas__dma_configure_task_token__aie.mlir"
FULL_ELF = DATA / "corpus" / "mlir-aie__test__npu-xrt__full_elf_event_trace__aie.mlir"

#: Push of a shim task queue (aie-rt / AIEDmaToNpu: bit 31 = issue token, [23:16] repeat,
#: [3:0] start BD), checked against test/Conversion/DmaToNpu/push_to_queue.mlir's CHECK
#: lines: S2MM 1 token repeat 0 BD 3 -> 2147483651, MM2S 0 repeat 3 BD 2 -> 196610.
TOKEN_BIT = 1 << 31


def _push(bd: int, repeat: int, token: bool) -> int:
    return (TOKEN_BIT if token else 0) | repeat << 16 | bd


def test_push_word_is_upstreams():
    assert _push(3, 0, True) == 2147483651 and _push(2, 3, False) == 196610


def _tasks(path: Path, target: str = "npu1") -> list[tuple[str, str]]:
    """(first line, whole text) of every DMA-task op of the design's runtime sequence."""
    module = parse(path.read_text().replace("NPUDEVICE", target), str(path))
    out = []
    for dev in module.devices:
        for seq in dev.sequences:
            for op in seq.body:
                if isinstance(op, ir.Opaque) and "dma_configure_task" in op.text.splitlines()[0]:
                    out.append((op.text.splitlines()[0].strip(), op.text))
    return out


# Every form of the attribute dictionary after a task's region in the stored upstream files,
# with (issue_token, repeat_count) read by eye from each file.
TASK_FORMS = [
    (TOKEN, "%t0 = aiex.dma_configure_task(%tile_0_0, MM2S, 0) {", "", (False, 0)),  # none
    (FULL_ELF, "%ti = aiex.dma_configure_task_for @of_in {", "{}", (False, 0)),
    (FULL_ELF, "%to = aiex.dma_configure_task_for @of_out {", "{issue_token = true}", (True, 0)),
    (EVENT_TRACE, "%0 = aiex.dma_configure_task_for @in {", "{issue_token = true}", (True, 0)),
    (GOOD_1, "%t2 = aiex.dma_configure_task(%tile_2_0, S2MM, 1) {",
     "{repeat_count = 2 : i32, issue_token = true}", (True, 2)),
    (DATA / "designs" / "hunhoffe__iron_ext_mlir__MVMul.mlir", "%0 = aiex.dma_configure_task_for @inB {",
     "{repeat_count = 8 : i32}", (False, 8)),
]  # fmt: skip


@pytest.mark.parametrize("path,first,attrs,want", TASK_FORMS, ids=[f[2] or "none" for f in TASK_FORMS])
def test_task_attribute_dictionary_after_the_region(path, first, attrs, want):
    (text,) = [t for f, t in _tasks(path) if f == first]
    parts = task_text.split_task(text)
    assert parts.attrs == attrs
    assert "aie.dma_bd" in parts.region and "aie.end" in parts.region and "issue_token" not in parts.region
    got = task_text.task_attributes(parts.attrs, "t")
    assert (got["issue_token"], got["repeat_count"]) == want


def test_task_split_ignores_brackets_in_strings_and_reads_multi_line_bds():
    # test/bd-chains-and-dma-tasks/dma-tasks-to-npu/good-3.mlir@d2546040 (its task, verbatim):
    # a BD spread over two lines, dimensions, no attribute dictionary after the region.
    text = (
        "%t1 = aiex.dma_configure_task(%tile_0_0, MM2S, 0) {\n"
        "    aie.dma_bd(%arg0 : memref<32xi8>, 4, 16,\n"
        "               [<size=2, stride=4>, <size=2, stride=8>, <size=4, stride=1>]) {bd_id = 0 : i32}\n"
        "    aie.end\n"
        "}"
    )
    parts = task_text.split_task(text)
    assert parts.attrs == ""
    (bd,), others = task_text.region_ops(parts.region)
    assert others == [] and bd.attrs == "{bd_id = 0 : i32}"
    assert " ".join(bd.operands.split()).startswith("%arg0 : memref<32xi8>, 4, 16, [<size=2")
    quoted = text.replace("{bd_id = 0 : i32}", '{bd_id = 0 : i32, note = "} {issue_token = true}"}')
    assert task_text.split_task(quoted).attrs == ""
    with pytest.raises(IronError, match=r"unexpected `bogus` after the task's region"):
        task_text.split_task(text + " bogus")
    with pytest.raises(IronError, match=r"task attribute `interleave = \[@x\]`.*compile with aiecc"):
        task_text.task_attributes("{repeat_count = 7 : i32, interleave = [@x]}", "t")


def _lowered(path: Path, target: str, **kw):
    text = path.read_text().replace("NPUDEVICE", f"{target}_1col" if target == "npu1" else target)
    op = iron.from_mlir(text, name="ext", **kw)
    fm = fuse(op, target, TraceOptions(), "separate")
    return kernel_ops(fm, fm.kernels[0])


def test_dma_tasks_lower_as_upstreams_checks():
    """good-1.mlir's CHECK lines (aie-opt --aie-dma-tasks-to-npu): BD 7 of 8 x i16 = 4 words
    at column 0 patched at 119012 from argument 0, BD 8 of 10 words at column 2 patched at
    67227908 from argument 1, pushes MM2S 0 (BD 7, token, repeat 0) and S2MM 1 (BD 8, token,
    repeat 2), syncs on both. Queue registers: push_to_queue.mlir (S2MM 1 at 119308, MM2S 0 at
    67228180 - (2 << 25) = 119316; iron's write32 names the column apart)."""
    assert [(a.name, a.direction) for a in iron.from_mlir(GOOD_1.read_text()).arg_spec()] == [
        ("arg0", "in"),
        ("arg1", "out"),
    ]  # fmt: skip  (MM2S reads %arg0, S2MM writes %arg1)
    ops = _lowered(GOOD_1, "npu1")
    bds = [(o["bd_id"], o["buffer_length"], o["column"]) for o in ops if isinstance(o, ir.WriteBd)]
    assert bds == [(7, 4, 0), (8, 10, 2)]
    patches = [(o.addr, o.arg_idx, o.arg_plus) for o in ops if isinstance(o, ir.AddressPatch)]
    assert patches == [(119012, 0, 0), (67227908, 1, 0)]
    pushes = [
        (o.column, o.address, o.value)
        for o in ops
        if isinstance(o, ir.Write32) and o.address in (119308, 119316)
    ]
    assert pushes == [(0, 119316, _push(7, 0, True)), (2, 119308, _push(8, 2, True))]
    syncs = [(o.column, o.direction, o.channel) for o in ops if isinstance(o, ir.Sync)]
    assert syncs == [(0, 1, 0), (2, 0, 1)]


def test_a_task_without_token_is_pushed_without_one_and_cannot_be_awaited():
    # full_elf_event_trace: @of_in's task has `{}`, @of_out's `{issue_token = true}`.
    ops = _lowered(FULL_ELF, "npu2", device="trace_dev", existing_trace="replace")
    pushes = [o.value for o in ops if isinstance(o, ir.Write32) and o.address in (119316, 119300)]
    assert [bool(v & TOKEN_BIT) for v in pushes] == [False, True]
    text = FULL_ELF.read_text().replace("aiex.dma_await_task(%to)", "aiex.dma_await_task(%ti)")
    op = iron.from_mlir(text, name="ext", device="trace_dev", existing_trace="replace")
    fm = fuse(op, "npu2", TraceOptions(), "separate")
    with pytest.raises(
        IronError, match=r"awaits a task configured without a token; add \{issue_token = true\}"
    ):
        kernel_ops(fm, fm.kernels[0])


def _event_trace(target="npu1"):
    text = EVENT_TRACE.read_text().replace("NPUDEVICE", "npu1_1col" if target == "npu1" else "npu2")
    return iron.from_mlir(text, name="event_trace")


def test_event_trace_pushes_carry_their_tokens():
    """All three tasks of upstream's event_trace example say `{issue_token = true}` and the
    sequence awaits all three: every push asks for a token (the greedy pattern lost them)."""
    ops = _lowered(EVENT_TRACE, "npu1")
    pushes = [o.value for o in ops if isinstance(o, ir.Write32) and o.address in (119316, 119324, 119300)]
    assert len(pushes) == 3 and all(v & TOKEN_BIT for v in pushes)
    assert sum(isinstance(o, ir.Sync) for o in ops) == 3


@pytest.mark.parametrize("target", ["npu1", "npu2"])
def test_event_trace_example_runs_to_completion_on_sim(target, tmp_path):
    """Traced with its own (kept) configuration: the four units it starts, in start order,
    with its packet ids and mixed start/stop forms (broadcast=15, event=<"BROADCAST_15">,
    TRUE/NONE), its host_config size; every unit decodes."""
    op = _event_trace(target)
    art = iron.build(op, trace=True, target=target, cache_dir=tmp_path)
    (sl,) = art.manifest.slices
    assert sl.size == 8192
    assert [(u.column, u.row, u.kind, u.packet_id) for u in sl.units] == [
        (0, 2, "core", 1), (0, 2, "mem", 3), (0, 1, "memtile", 4), (0, 0, "shim", 2)
    ]  # fmt: skip
    core, mem, memtile, shim = sl.units
    assert (core.start_event, core.stop_event) == (
        ev.broadcast_event("core", 15),
        ev.broadcast_event("core", 14),
    )
    assert (mem.start_event, mem.stop_event) == (ev.broadcast_event("mem", 15), ev.broadcast_event("mem", 14))
    assert (shim.start_event, shim.stop_event) == (ev.event_id("shim", "TRUE"), ev.event_id("shim", "NONE"))
    with art.load("sim") as run:
        run(np.arange(4096, dtype=np.int32), np.array([3], np.int32))
        (ds,) = run.trace.slices
    assert ds.status == "ok"
    assert sorted((u.unit.kind, u.frames > 0) for u in ds.units) == [
        ("core", True), ("mem", True), ("memtile", True), ("shim", True)
    ]  # fmt: skip


# --------------------------------------------------------------------------- kernel objects
from iron.tests.test_artifact import fake_aiecc  # noqa: E402,F401  (the recording fake aiecc)


def _design_dir(tmp_path: Path, with_object: bool) -> Path:
    folder = tmp_path / "user_build"
    folder.mkdir()
    (folder / "aie_trace.mlir").write_text(EVENT_TRACE.read_text().replace("NPUDEVICE", "npu1_1col"))
    if with_object:
        (folder / "scale.o").write_bytes(b"\x7fELF user's scale kernel")
    return folder / "aie_trace.mlir"


def test_object_beside_the_design_is_in_aieccs_folder(tmp_path, fake_aiecc):
    """The event_trace design links "scale.o" relative to where the user built it; the
    recording fake aiecc fails unless every link_with object is in its cwd."""
    runs, inputs = fake_aiecc("legacy")
    path = _design_dir(tmp_path, with_object=True)
    op = iron.from_mlir(path, name="event_trace")
    assert [(o.link_with, o.path) for o in op.kernel_objects] == [("scale.o", str(path.parent / "scale.o"))]
    art = iron.build(op, trace=False, target="npu1", cache_dir=tmp_path / "cache")
    assert art.backend == "aiecc-xclbin" and len(runs()) == 1
    assert 'link_with = "scale.o"' in inputs(0)


def test_objects_argument_from_another_folder(tmp_path, fake_aiecc):
    runs, _ = fake_aiecc("legacy")
    path = _design_dir(tmp_path, with_object=False)
    elsewhere = tmp_path / "objs"
    elsewhere.mkdir()
    (elsewhere / "scale.o").write_bytes(b"obj")
    op = iron.from_mlir(path, name="event_trace", objects=[elsewhere / "scale.o"])
    iron.build(op, trace=False, target="npu1", cache_dir=tmp_path / "cache")
    assert len(runs()) == 1
    with pytest.raises(iron.IronError, match=r"objects= names '.*other\.o', but no link_with of the design names 'other\.o' \(it links: scale\.o\)"):  # fmt: skip
        (elsewhere / "other.o").write_bytes(b"x")
        iron.from_mlir(path, objects=[elsewhere / "other.o"])


def test_missing_object_fails_before_aiecc_naming_the_link_with_and_where_iron_looked(tmp_path, fake_aiecc):
    runs, _ = fake_aiecc("legacy")
    path = _design_dir(tmp_path, with_object=False)
    op = iron.from_mlir(path, name="event_trace")
    with pytest.raises(iron.IronError) as err:
        iron.build(op, trace=False, target="npu1", cache_dir=tmp_path / "cache")
    msg = str(err.value)
    assert 'link_with = "scale.o" of event_trace' in msg and str(path.parent / "scale.o") in msg
    assert "objects=[...]" in msg
    assert not (tmp_path / "aiecc.log").exists()  # aiecc never ran
    text_op = iron.from_mlir(path.read_text(), name="event_trace")  # text: nothing to look beside
    with pytest.raises(iron.IronError, match=r"looked in: nowhere: the design is MLIR text"):
        iron.build(text_op, trace=False, target="npu1", cache_dir=tmp_path / "cache")


# --------------------------------------------------------------------------- mixed device widths
from iron.fuse.wire import wire  # noqa: E402
from iron.mlir.printer import print_module  # noqa: E402
from iron.operators import MemCopy  # noqa: E402


def _configure_types_mismatch(module: ir.Module) -> list[str]:
    """mlir-aie's ConfigureOp::verify (lib/Dialect/AIEX/IR/AIEXDialect.cpp): an aiex.configure's
    device must have the device type of the device it sits in ("Device types do not match")."""
    bad = []
    for dev in module.devices:
        for seq in dev.sequences:
            for op in ir.walk(seq.body):
                if isinstance(op, ir.Configure) and module.device(op.device).target != dev.target:
                    bad.append(
                        f"@{dev.symbol} ({dev.target}) configures @{op.device} ({module.device(op.device).target})"
                    )
    return bad


def _mixed():
    wide = iron.from_mlir(EVENT_TRACE.read_text().replace("NPUDEVICE", "npu2"), name="wide")
    narrow = MemCopy(size=64, dtype="i32", tile_size=32)  # npu2_1col
    assert narrow.design("npu2").device.target == "npu2_1col"
    return iron.Sequence("mixed", [(wide, "a", "b", "c"), (narrow, "x", "y")], ["a", "b", "x"], ["c", "y"])


def test_fused_module_with_mixed_widths_verifies(tmp_path):
    fm = fuse(_mixed(), "npu2", TraceOptions(size=4096), "fused")
    text = print_module(fm.module)  # what the artifact stores as fused.mlir (and the cache key reads)
    module = parse(text)
    assert [(d.symbol, d.target) for d in module.devices] == [
        ("op0_wide", "npu2"),
        ("op1_MemCopy", "npu2"),
        ("main", "npu2"),
    ]
    assert _configure_types_mismatch(module) == []
    art = iron.build(_mixed(), trace=True, trace_size=4096, target="npu2", cache_dir=tmp_path)
    with art.load("sim") as run:
        *_, y = run(np.zeros(4096, np.int32), np.zeros(1, np.int32), np.arange(64, dtype=np.int32))
        assert [s.status for s in run.trace.slices] == ["ok", "ok"]
    np.testing.assert_array_equal(y, np.arange(64))


def test_wired_module_with_mixed_widths_verifies():
    fm = fuse(_mixed(), "npu2", TraceOptions(), "fused")
    text = print_module(fm.module).replace(
        "aie.device(npu2) @op1_MemCopy", "aie.device(npu2_1col) @op1_MemCopy"
    )
    assert _configure_types_mismatch(parse(text))  # the input as iron wrote it before
    wired = wire(text, trace_size=4096)
    assert _configure_types_mismatch(parse(print_module(wired.module))) == []


def test_two_broadcasts_to_raise_are_one_error():
    text = EVENT_TRACE.read_text().replace("NPUDEVICE", "npu1_1col")
    text = text.replace('aie.trace.start event=<"BROADCAST_15">', 'aie.trace.start event=<"BROADCAST_13">')
    op = iron.from_mlir(text, name="evt")
    with pytest.raises(iron.IronError, match=r"start on different events that must be raised \(@core_trace: broadcast=15; @mem_trace: broadcast=13"):  # fmt: skip
        fuse(op, "npu1", TraceOptions(size=4096), "separate")


def test_wire_translates_old_core_syntax():
    """upstream's full_elf_event_trace (a fused module, old acquire form in @trace_dev's core)
    through iron trace wire: the output holds today's acquire."""
    from iron.mlir.legacy import LegacySyntaxWarning

    with pytest.warns(LegacySyntaxWarning, match=r"full\.mlir:\d+: translated"):
        wired = wire(FULL_ELF.read_text(), trace_size=4096, filename="full.mlir")
    out = print_module(wired.module)
    assert "objectfifosubview" not in out
    assert "%ei = aie.objectfifo.acquire @of_in(Consume, 1) : memref<64xi32>" in out


def test_every_start_stop_and_event_spelling_of_aie_trace():
    """AIETraceOps.td (include/aie/Dialect/AIE/IR): trace.start/stop take `broadcast=N` or
    `event=` a TraceEventAttr, and events are "strings or enum values"
    (`<"INSTR_EVENT_0">`, `<CoreEventAIE2::INSTR_EVENT_0>`). The enum spellings give the
    same units as the string ones."""
    text = EVENT_TRACE.read_text().replace("NPUDEVICE", "npu1_1col")
    enum = (
        text.replace('aie.trace.event<"INSTR_VECTOR">', "aie.trace.event<CoreEventAIE2::INSTR_VECTOR>")
        .replace('aie.trace.stop event=<"BROADCAST_14">', "aie.trace.stop event=<MemEventAIE2::BROADCAST_14>")
        .replace('aie.trace.start event=<"TRUE">', "aie.trace.start event = <ShimTileEventAIE2::TRUE>")
    )
    assert enum.count("AIE2::") == 3
    units = [fuse(iron.from_mlir(t, name="e"), "npu1", TraceOptions(size=4096), "separate").manifest.slices[0].units for t in (text, enum)]  # fmt: skip
    assert units[0] == units[1]
    assert units[0][0].events[2] == "INSTR_VECTOR"


def test_s2mm_task_without_token_pushes_none():
    """-aie-dma-tasks-to-npu takes the task's flag for every direction (only dma_memcpy_nd's
    S2MM pushes always ask for a token): VVOp(Add) with its output task's
    `{issue_token = true}` and await removed pushes three tasks without a token, and no
    channel gets the controller id a token needs."""
    path = DATA / "designs" / "hunhoffe__iron_ext_mlir__VVOp_Add.mlir"
    text = (
        path.read_text()
        .replace("      } {issue_token = true}\n", "      }\n")
        .replace("      aiex.dma_await_task(%2)\n", "")
    )
    op = iron.from_mlir(text, name="ext")
    fm = fuse(op, "npu1", TraceOptions(), "separate")
    ops = kernel_ops(fm, fm.kernels[0])
    # queue registers S2MM 0 / MM2S 0 / MM2S 1: 0x1d204 / 0x1d214 (passthrough_dmas/aie.mlir writes both) / +8
    pushes = [o.value for o in ops if isinstance(o, ir.Write32) and o.address in (119300, 119316, 119324)]
    assert len(pushes) == 3 and not any(v & TOKEN_BIT for v in pushes)
    assert not any(isinstance(o, (ir.MaskWrite32, ir.Sync)) for o in ops)


def test_fused_npu2_build_with_a_builtin_through_aiecc(tmp_path, fake_aiecc):
    """The event_trace design (old syntax, scale.o beside it, its own trace) fused with a
    MemCopy on npu2 (one full ELF): aiecc's input holds today's acquire, one device type
    for every configured device, and the run succeeds only with scale.o in its folder."""
    runs, inputs = fake_aiecc("legacy")
    folder = tmp_path / "user"
    folder.mkdir()
    (folder / "aie_trace.mlir").write_text(EVENT_TRACE.read_text().replace("NPUDEVICE", "npu2"))
    (folder / "scale.o").write_bytes(b"obj")
    op = iron.from_mlir(folder / "aie_trace.mlir", name="evt")
    copy = MemCopy(size=64, dtype="i32", tile_size=32)
    seq = iron.Sequence("mixed", [(op, "a", "b", "c"), (copy, "x", "y")], ["a", "b", "x"], ["c", "y"])
    art = iron.build(seq, trace=True, trace_size=4096, target="npu2", cache_dir=tmp_path / "cache")
    assert art.backend == "aiecc-full-elf" and len(runs()) == 1
    sent = parse(inputs(0))
    assert {d.target for d in sent.devices} == {"npu2"} and "objectfifosubview" not in inputs(0)
