"""Foreign designs: mlir-aie designs nobody on the project wrote, taken as operators.

The designs are upstream files (iron/tests/data/corpus, upstream, foreign; each
SOURCES.md names repository, path and commit). Expected values come from the files
themselves (their tiles, arguments and object FIFOs, read by eye) or are hand-derived
(MemCopy copies; add_one adds one), never from iron's output.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import iron
from iron.design import NotModelled, NotModelledError
from iron.operators.foreign import ForeignDesignError
from iron.fuse.fusion import fuse
from iron.mlir import ir
from iron.mlir.printer import print_device
from iron.operators import MemCopy
from iron.options import TraceOptions
from iron.target import events
from iron.tests.upstream import canon

DATA = Path(__file__).parent / "data"
# full_elf_event_trace's core uses the old acquire form, translated on reading (test_legacy_syntax)
pytestmark = pytest.mark.filterwarnings("ignore::iron.mlir.legacy.LegacySyntaxWarning")
PEANO = "foreign/mlir-aie__test__npu-xrt__add_one_func_link_with_peano__aie.mlir"


def _text(rel: str, target: str, chunk: int = 0) -> str:
    text = (DATA / rel).read_text(encoding="utf-8").replace("NPUDEVICE", target)
    return [c for c in re.split(r"^// -----\s*$", text, flags=re.M) if "aie.device" in c][chunk]


# (file, target, from_mlir keywords, chunk): the compute tiles each traces, read from the file.
DESIGNS = [
    ("corpus/mlir-aie__test__npu-xrt__add_one_two__aie1.mlir.prj__input_physical.mlir", "npu1", {}, 0),
    ("corpus/mlir-aie__test__npu-xrt__add_one_two_runlist__aie.mlir", "npu2", {"device": "aie_add_1"}, 0),
    ("corpus/mlir-aie__test__npu-xrt__add_one_two_runlist__aie.mlir", "npu2", {"device": "aie_add_2"}, 0),
    ("corpus/xdna-emu__tools__mode2_capture_fixtures__fixed_loop_64__aie.mlir", "npu2", {}, 0),
    ("corpus/xdna-emu__tools__tests__fixtures__sample_multi_device.mlir", "npu1", {"device": "main"}, 0),
    (PEANO, "npu2", {}, 0),
    (PEANO, "npu1", {}, 0),
    ("corpus/mlir-aie__test__npu-xrt__full_elf_event_trace__aie.mlir", "npu2", {"device": "trace_dev", "existing_trace": "replace"}, 0),
    ("upstream/trace_slices_configure_run_aie.mlir", "npu2", {"device": "dev_a", "sequence": "seq_a1", "existing_trace": "replace"}, 0),
    ("upstream/trace_slices_configure_run_aie.mlir", "npu2", {"device": "dev_b", "sequence": "seq_b2", "existing_trace": "replace"}, 0),
    ("corpus/mlir-aie__test__dialect__AIEX__trace__test_trace_configure_run.mlir", "npu1", {"device": "dev_b", "existing_trace": "replace"}, 0),
    ("corpus/mlir-aie__test__dialect__AIEX__trace__test_fuse_trace_buffers.mlir", "npu1", {"device": "dev_a", "existing_trace": "replace"}, 1),
    ("corpus/xdna-emu__tools__tests__fixtures__sample_already_traced.mlir", "npu1", {"existing_trace": "replace"}, 0),
]  # fmt: skip


def _ids():
    return [
        f"{Path(f).name[:40]}-{t}-{kw.get('device', '')}{kw.get('sequence', '')}" for f, t, kw, _c in DESIGNS
    ]


def _with_memcopy(op) -> iron.Sequence:
    """``op`` on buffers f_<arg>, then a MemCopy of x into y."""
    specs = op.arg_spec()
    names = [f"f_{s.name}" for s in specs]
    copy = MemCopy(size=64, dtype="i32", tile_size=32)
    return iron.Sequence(
        "mixed",
        [(op, *names), (copy, "x", "y")],
        [n for n, s in zip(names, specs) if s.reads] + ["x"],
        [n for n, s in zip(names, specs) if s.writes] + ["y"],
    )


@pytest.mark.parametrize("rel,target,kw,chunk", DESIGNS, ids=_ids())
def test_foreign_design_fuses_with_a_builtin_and_traces_on_sim(rel, target, kw, chunk, tmp_path):
    op = iron.from_mlir(_text(rel, target, chunk), name="ext", **kw)
    specs = op.arg_spec()
    seq = _with_memcopy(op)
    art = iron.build(seq, trace=True, trace_size=4096, target=target, cache_dir=tmp_path)
    inputs = [np.zeros(s.shape, s.numpy_dtype) for s in specs if s.reads]
    x = np.arange(64, dtype=np.int32)
    with art.load("sim") as run:
        outs = run(*inputs, x)
        outs = outs if isinstance(outs, tuple) else (outs,)
        *foreign_outs, y = outs
        np.testing.assert_array_equal(y, x)  # MemCopy copies
        for value in foreign_outs:  # executed by sim, or not modelled (never made up)
            assert isinstance(value, (NotModelled, np.ndarray))
        slices = run.trace.slices
    assert [s.slice.operator for s in slices] == ["ext", "MemCopy"]
    for ds in slices:
        assert ds.units and sum(u.frames for u in ds.units) > 0, ds.label  # non-empty
        own = {(u.column, u.row, u.kind) for u in ds.slice.units}
        for u in ds.units:  # only its own units
            assert u.unit is not None and (u.unit.column, u.unit.row, u.unit.kind) in own, ds.label


@pytest.mark.parametrize("device, plus", [("aie_add_1", 1), ("aie_add_2", 2)])
def test_upstream_add_one_two_cores_compute_on_sim(device, plus, tmp_path):
    """mlir-aie test/npu-xrt/add_one_two_runlist: shim -> memtile (16xi32) -> core (8xi32) and back,
    a core looping memref.load / arith.addi / memref.store; test.cpp expects in + 1 (aie_add_1)
    and in + 2 (aie_add_2, whose input is the first's output in the runlist)."""
    op = iron.from_mlir(_text(DESIGNS[1][0], "npu2"), device=device)
    art = iron.build(op, cache_dir=tmp_path)
    x = np.arange(64, dtype=np.int32) * 3 - 50
    with art.load("sim") as run:
        np.testing.assert_array_equal(run(x), x + plus)


def test_arguments_and_streams_come_from_the_design():
    # add_one_func_link_with_peano: (%in, %buf, %out); of_in shim -> core, of_out core -> shim.
    op = iron.from_mlir(_text(PEANO, "npu2"))
    assert [(s.name, s.direction, s.shape, s.dtype) for s in op.arg_spec()] == [
        ("in", "in", (64,), "i32"),
        ("buf", "in", (32,), "i32"),  # moved by no transfer
        ("out", "out", (64,), "i32"),
    ]
    design = op.design("npu2")
    assert design.compute_tiles == [(0, 2)]
    assert sorted((s.arg, s.symbol) for s in design.streams) == [
        (0, "of_in_shim_alloc"),
        (2, "of_out_shim_alloc"),
    ]


def test_dma_tasks_are_streams():
    # trace_slices_configure_run: seq_a1 moves %out through a task on @out_a (core -> shim).
    op = iron.from_mlir(
        _text("upstream/trace_slices_configure_run_aie.mlir", "npu2"), device="dev_a", sequence="seq_a1"
    )
    assert [(s.name, s.direction) for s in op.arg_spec()] == [("out", "out")]
    assert [(s.arg, s.symbol) for s in op.design("npu2").streams] == [(0, "out_a_shim_alloc")]


def test_reference_models_outputs_and_feeds_the_next_step(tmp_path):
    add_one = iron.from_mlir(_text(PEANO, "npu2"), name="add_one", reference=lambda a, b: a + 1)
    copy = MemCopy(size=64, dtype="i32", tile_size=32)
    seq = iron.Sequence("chain", [(add_one, "a", "b", "t"), (copy, "t", "c")], ["a", "b"], ["c"])
    art = iron.build(seq, trace=True, trace_size=4096, cache_dir=tmp_path)
    a = np.arange(64, dtype=np.int32)
    with art.load("sim") as run:
        np.testing.assert_array_equal(run(a, np.zeros(32, np.int32)), a + 1)


def test_without_a_kernel_model_downstream_outputs_are_not_modelled(tmp_path, monkeypatch):
    from iron.runtime.sim import kernel_models

    real = kernel_models.model_for
    monkeypatch.setattr(kernel_models, "model_for", lambda s, d, a: None if s == "add_one" else real(s, d, a))
    add_one = iron.from_mlir(_text(PEANO, "npu2"), name="add_one_noref")
    copy = MemCopy(size=64, dtype="i32", tile_size=32)
    seq = iron.Sequence("chain2", [(add_one, "a", "b", "t"), (copy, "t", "c")], ["a", "b"], ["c"])
    art = iron.build(seq, cache_dir=tmp_path)
    with art.load("sim") as run:
        c = run(np.arange(64, dtype=np.int32), np.zeros(32, np.int32))
    assert isinstance(c, NotModelled)
    with pytest.raises(
        NotModelledError, match="'c' is not modelled.*input bytes of @op1_MemCopy.*kernel 'add_one'.*no model"
    ):
        np.asarray(c)


# Files whose print is upstream's text up to SSA names (iron/tests/test_mlir_corpus.py TODAYS_SYNTAX).
UNTOUCHED = [
    "corpus/mlir-aie__test__dialect__AIEX__trace__test_inline_trace_config.mlir",
    "corpus/mlir-aie__test__dialect__AIEX__trace__test_trace_end_to_end.mlir",
    "corpus/mlir-aie__test__dialect__AIEX__trace__test_trace_port_end_to_end.mlir",
    "corpus/xdna-emu__tools__tests__fixtures__sample_already_traced.mlir",
]


@pytest.mark.parametrize("rel", UNTOUCHED, ids=[Path(r).name[:50] for r in UNTOUCHED])
def test_untraced_build_is_the_input_design(rel):
    """Normalisation named in docs/guide.md: the device symbol (op<i>_<name>), SSA names, comments."""
    text = _text(rel, "npu1")
    op = iron.from_mlir(text, name="ext")
    fm = fuse(op, "npu1", TraceOptions(), "separate")
    printed = print_device(fm.module.device("op0_ext"))
    code = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("//")]
    start = next(i for i, ln in enumerate(code) if ln.startswith("aie.device"))
    want = code[start:-1]  # the device, without the module's closing brace
    want[0] = re.sub(r"^(aie\.device\(\w+\))(\s*@\w+)?", r"\1 @op0_ext", want[0])
    assert canon(printed) == canon(want)


def test_several_devices_is_one_error_naming_each_position():
    text = _text("corpus/mlir-aie__test__npu-xrt__add_one_two_runlist__aie.mlir", "npu2")
    with pytest.raises(ForeignDesignError) as err:
        iron.from_mlir(text)
    msg = str(err.value)
    lines = text.splitlines()
    for sym in ("aie_add_1", "aie_add_2"):  # where each `aie.device(...) @sym` starts
        n = next(i for i, l in enumerate(lines, 1) if f"@{sym}" in l and "aie.device" in l)
        col = lines[n - 1].index("aie.device") + 1
        assert f"@{sym} at <mlir>:{n}:{col}" in msg
    assert "device=" in msg


def test_no_runtime_sequence_several_sequences_and_fused_modules_are_clear_errors(tmp_path):
    no_seq = "module {\n  aie.device(npu2) @d {\n    %t = aie.tile(0, 2)\n  }\n}\n"
    with pytest.raises(ForeignDesignError, match=r"<mlir>:2:3: device @d has no runtime sequence"):
        iron.from_mlir(no_seq)
    two = _text("upstream/trace_slices_configure_run_aie.mlir", "npu2")
    with pytest.raises(
        ForeignDesignError, match=r"has 2 runtime sequences \(@seq_a1 at <mlir>:\d+:\d+; @seq_a2"
    ):
        iron.from_mlir(two, device="dev_a")
    with pytest.raises(ForeignDesignError, match=r"configures other devices.*iron trace wire"):
        iron.from_mlir(two, device="main")
    path = tmp_path / "bad.mlir"
    path.write_text("module {\n  aie.device(npu2) {\n")
    with pytest.raises(iron.IronError, match=re.escape(str(path)) + r":\d+:\d+: unbalanced braces"):
        iron.from_mlir(path)
    with pytest.raises(ForeignDesignError, match="build it with target='npu1'"):
        iron.build(iron.from_mlir(_text(PEANO, "npu1")), target="npu2", cache_dir=tmp_path)


def _with_allocations(extra: str) -> str:
    text = _text(PEANO, "npu2")
    return text.replace("    aie.runtime_sequence(", extra + "\n    aie.runtime_sequence(", 1)


def test_trace_drain_avoids_the_designs_shim_channel():
    # of_out takes S2MM 0 (lowest free); a declared allocation takes S2MM 1 of (0,0):
    # the drain falls back to S2MM 0? No: taken. Column 1's shim is free.
    extra = "    %tile_1_0 = aie.tile(1, 0)\n    aie.shim_dma_allocation @mine(%tile_0_0, S2MM, 1)"
    op = iron.from_mlir(_with_allocations(extra))
    fm = fuse(op, "npu2", TraceOptions(size=4096), "fused")
    flows = [f for f in fm.module.device("op0_main").packet_flows if f.source.bundle == "Trace"]
    assert [(f.dest.tile, f.dest.bundle, f.dest.channel) for f in flows] == [("tile_1_0", "DMA", 1)]


def test_trace_drain_conflict_names_the_resources():
    extra = "    aie.shim_dma_allocation @mine(%tile_0_0, S2MM, 1)"
    op = iron.from_mlir(_with_allocations(extra))
    with pytest.raises(
        iron.IronError,
        match=r"no shim tile has a free S2MM channel.*\(0,0\) S2MM 0 by @of_out_shim_alloc; \(0,0\) S2MM 1 by @mine",
    ):
        fuse(op, "npu2", TraceOptions(size=4096), "fused")


def test_trace_avoids_the_designs_packet_ids():
    # dma_configure_task_token routes packet id 0x1 (aie.packet_flow(0x1)).
    text = _text("corpus/mlir-aie__test__npu-xrt__core_dmas__dma_configure_task_token__aie.mlir", "npu2")
    fm = fuse(iron.from_mlir(text, name="tok"), "npu2", TraceOptions(size=4096), "fused")
    ids = [u.packet_id for s in fm.manifest.slices for u in s.units]
    assert ids and 1 not in ids


def test_existing_trace_is_kept_unless_replaced():
    text = _text("corpus/mlir-aie__test__dialect__AIEX__trace__test_trace_configure_run.mlir", "npu1")
    kept = iron.from_mlir(text, name="k", device="dev_a")
    assert kept.trace_config[0].startswith("aie.trace @")
    fm = fuse(kept, "npu1", TraceOptions(), "separate")  # untraced: printed as the design has it
    assert "aie.trace @" in print_device(fm.module.device("op0_k")) and fm.manifest is None
    fm = fuse(kept, "npu1", TraceOptions(size=4096), "separate")  # traced: iron lowers it (below)
    assert "aie.trace" not in print_device(fm.module.device("op0_k"))
    assert [(u.column, u.row, u.packet_id) for u in fm.manifest.slices[0].units] == [(0, 2, 1)]
    replaced = iron.from_mlir(text, name="r", device="dev_a", existing_trace="replace")
    fm = fuse(replaced, "npu1", TraceOptions(size=4096), "separate")
    printed = print_device(fm.module.device("op0_r"))
    assert "aie.trace" not in printed and fm.manifest.slices[0].units
    with pytest.raises(ForeignDesignError, match="existing_trace='bogus'; accepted: keep, replace"):
        iron.from_mlir(text, existing_trace="bogus")


# --------------------------------------------------------------------------- kept aie.trace configurations
# (file, target, from_mlir keywords): designs with their own aie.trace ops, kept.
KEPT = [
    ("corpus/mlir-aie__test__dialect__AIEX__trace__test_trace_configure_run.mlir", "npu1", {"device": "dev_a"}),
    ("corpus/mlir-aie__test__npu-xrt__full_elf_event_trace__aie.mlir", "npu2", {"device": "trace_dev"}),
    ("corpus/mlir-aie__test__dialect__AIEX__trace__test_trace_port_end_to_end.mlir", "npu1", {}),
    ("corpus/mlir-aie__test__dialect__AIEX__trace__test_trace_end_to_end.mlir", "npu1", {}),
]  # fmt: skip
SITE_SIZE = 4096


def _declared(text: str):
    """What the file's one aie.trace op declares, read by eye's rules: the tile it names
    (``%t = aie.tile(c, r)``), its packet id, its events in op order, and the sequence's
    host_config buffer_size."""
    tiles = {m[0]: (int(m[1]), int(m[2])) for m in re.findall(r"%(\w+) = aie\.tile\((\d+), (\d+)\)", text)}
    body = re.search(r"aie\.trace @\w+\(%(\w+)\) \{(.*?)\n\s*\}", text, re.S)
    events = re.findall(r'aie\.trace\.event<"(\w+)">', body[2])
    size = re.search(r"host_config \{buffer_size = (\d+)", text)
    pid = int(re.search(r"aie\.trace\.packet id=(\d+)", body[2])[1])
    return tiles[body[1]], pid, events + ["NONE"] * (8 - len(events)), int(size[1]) if size else SITE_SIZE


@pytest.mark.parametrize("rel,target,kw", KEPT, ids=[Path(r).name[:50] for r, _t, _k in KEPT])
def test_kept_configuration_gets_its_own_slice_and_decodes(rel, target, kw, tmp_path):
    """iron lowers the kept aie.trace ops (as -aie-insert-trace-flows / -aie-trace-to-config
    would) into the call site's slice: the manifest holds the declared unit, the slice is
    the host_config's size, and sim's capture decodes into it."""
    text = _text(rel, target)
    (col, row), pid, events, size = _declared(text)
    op = iron.from_mlir(text, name="ext", **kw)
    specs = op.arg_spec()
    seq = _with_memcopy(op)
    art = iron.build(seq, trace=True, trace_size=SITE_SIZE, target=target, cache_dir=tmp_path)
    first = art.manifest.slices[0]
    assert (first.operator, first.offset, first.size) == ("ext", 0, size)
    assert [(u.column, u.row, u.kind, u.packet_id, u.events) for u in first.units] == [
        (col, row, "core", pid, events)
    ]
    inputs = [np.zeros(s.shape, s.numpy_dtype) for s in specs if s.direction != "out"]
    with art.load("sim") as run:
        run(*inputs, np.arange(64, dtype=np.int32))
        slices = run.trace.slices
    assert [(s.slice.operator, s.status) for s in slices] == [("ext", "ok"), ("MemCopy", "ok")]
    (unit,) = slices[0].units
    assert unit.unit is not None and (unit.unit.column, unit.unit.row) == (col, row) and unit.frames > 0


def test_kept_registers_are_upstreams():
    """test_trace_port_end_to_end.mlir: the tile registers its CHECK lines name are written
    (Trace_Control0/1, port selection 0, Trace_Event0), with values by hand: start/stop
    BROADCAST_15/14 = 122/121 (aie-rt core events), Control1 = core type 0 << 12 | id 1,
    slot 0 watches North 1 master = 13 + 1 | 0x20 (AIETargetModel aie2_port_id), Event0 slot 0
    PORT_RUNNING_0 = 0x4B (byte 2 of the Trace_Event1 word 0x4F4B1A18 that aiecc writes with
    its own comment "STREAM_STALL + LOCK_STALL + PORT_RUNNING_0 + PORT_RUNNING_1"). The design has no shim tile: (0, 0) is added, as
    test_insert_trace_flows_controller_id.mlir's third case checks."""
    rel = "corpus/mlir-aie__test__dialect__AIEX__trace__test_trace_port_end_to_end.mlir"
    text = _text(rel, "npu1")
    fm = fuse(iron.from_mlir(text, name="p"), "npu1", TraceOptions(size=4096), "separate")
    dev = fm.module.device("op0_p")
    assert dev.tile_at(0, 0) is not None
    writes = {
        op.address: op.value
        for s in dev.sequences
        for op in s.body
        if isinstance(op, ir.Write32) and op.row == 2
    }
    checked = [int(a) for a in re.findall(r"arith\.constant (\d+) : i32", text)]
    assert checked == [213200, 213204, 261888, 213216]
    assert set(checked) <= set(writes)
    assert writes[213200] == (121 << 24) | (122 << 16)
    assert writes[213204] == 1
    assert writes[261888] == 14 | 0x20
    assert writes[213216] & 0xFF == 0x4B
    assert fm.manifest.slices[0].units[0].ports == [[0, "North", 1, "S2MM"]]


def _keep(text_edit):
    text = _text("corpus/mlir-aie__test__dialect__AIEX__trace__test_trace_configure_run.mlir", "npu1")
    return iron.from_mlir(text_edit(text), name="k", device="dev_a")


@pytest.mark.parametrize(
    "edit, needle",
    [
        (lambda t: t.replace("start_config @a_core_trace", "start_config @nope"),
         r"@seq_a: aie.trace.start_config @nope names no aie.trace op of the device \(it has: @a_core_trace\)"),
        (lambda t: t.replace("      aie.trace.start_config @a_core_trace\n", ""),
         r"design op0_k, @seq_a: keeps its trace configuration .* but starts none"),
        (lambda t: t.replace("aie.trace.stop broadcast=14\n    }\n\n    aie.runtime_sequence @seq_a",
                             "}\n\n    aie.runtime_sequence @seq_a", 1),
         r"aie.trace @a_core_trace has no aie.trace.stop"),
        (lambda t: t.replace("%core_a = aie.tile(0, 2)\n", "%core_a = aie.tile(0, 2)\n    aie.packet_flow(1) {\n"
                             "      aie.packet_source<%core_a, DMA : 0>\n      aie.packet_dest<%shim_a, DMA : 0>\n    }\n"),
         r"trace packet id 1 \(aie.trace.packet\) is already used by a packet flow of the design"),
    ],
)  # fmt: skip
def test_kept_configuration_errors(edit, needle):
    with pytest.raises(iron.IronError, match=needle):
        fuse(_keep(edit), "npu1", TraceOptions(size=4096), "separate")


def test_lowered_kept_trace_stays_untraced():
    """A design whose trace is already lowered (aiecc's intermediate: its own register writes
    and drain) is kept as it is: iron adds nothing and records no slice."""
    text = _text("corpus/xdna-emu__aie_traced.mlir.prj__input_with_addresses.mlir", "npu1")
    op = iron.from_mlir(text, name="low")
    assert not op.traceable
    assert fuse(op, "npu1", TraceOptions(size=4096), "separate").manifest is None


def test_replacing_a_lowered_trace_is_refused():
    text = _text("corpus/xdna-emu__aie_traced.mlir.prj__input_with_addresses.mlir", "npu1")
    with pytest.raises(ForeignDesignError, match=r"already lowered \(packet flow \d+ from %\w+ Trace"):
        iron.from_mlir(text, existing_trace="replace")


# --------------------------------------------------------------------------- upstream's insert-trace-flows tests
FLOWS = "corpus/mlir-aie__test__dialect__AIE__trace__test_insert_trace_flows.mlir"
HELD = "corpus/mlir-aie__test__dialect__AIE__trace__test_insert_trace_flows_held_ids.mlir"
#: Chunks of FLOWS (by CHECK-LABEL), plus HELD. trace_after_last_tensor is left out on purpose:
#: its ``arg_idx = -1`` puts the trace after the last tensor; iron drains into the slice (docs/guide.md).
#: memtile (chunk 6) is left out too: its memtile event DMA_S2MM_0_START_TASK is no memtile
#: event (mlir-aie's MemTileEvent and aie-rt say DMA_S2MM_SEL0_START_TASK; the pass under
#: test never resolves names), so iron refuses it (test below).
FLOW_CASES = [(FLOWS, i) for i in (0, 1, 2, 3, 4, 5, 7, 8, 9)] + [(HELD, 0)]


def _started(chunk: str) -> list[str]:
    return re.findall(r"aie\.trace\.start_config @(\w+)", chunk)


def _expected_ids(chunk: str) -> dict[str, int]:
    """Packet id of every trace op: the ``CHECK: aie.trace.packet id = N`` inside its body
    (what the pass prints), else its own ``id=N``."""
    out = {}
    for name, body in re.findall(r"aie\.trace @(\w+)\(%\w+\) \{(.*?)\n    \}", chunk, re.S):
        m = re.search(r"CHECK: aie\.trace\.packet id = (\d+)", body) or re.search(r"packet id=(\d+)", body)
        out[name] = int(m[1])
    return out


@pytest.mark.parametrize("rel,chunk", FLOW_CASES, ids=[f"{Path(r).stem[-20:]}-{c}" for r, c in FLOW_CASES])
def test_kept_lowering_follows_insert_trace_flows_checks(rel, chunk):
    text = _text(rel, "npu1", chunk)
    fm = fuse(iron.from_mlir(text, name="u"), "npu1", TraceOptions(size=4096), "separate")
    dev = fm.module.device("op0_u")
    units = fm.manifest.slices[0].units
    # the started traces, in start order, with the ids the pass gives them
    ids = _expected_ids(text)
    assert [u.packet_id for u in units] == [ids[n] for n in _started(text)]
    # flows: every CHECKed source port of a started unit, into the shim's DMA : 1
    tiles = {t.name: (t.col, t.row) for t in dev.tiles}
    flows = {
        (tiles[f.source.tile], f.source.channel, f.dest.channel)
        for f in dev.packet_flows
        if f.source.bundle == "Trace"
    }
    assert {((u.column, u.row), 1 if u.kind == "mem" else 0, 1) for u in units} == flows
    checked = set(re.findall(r"packet_source<%\[\[\w+\]\], Trace : (\d)>", text))
    assert {str(ch) for _t, ch, _d in flows} <= checked or not checked
    assert all(d == int(c) for _t, _c, d in flows for c in re.findall(r"DMA : (\d)>", text))
    assert dev.tile_at(0, 0) is not None  # shim_create: the pass adds (0, 0)
    if "USER_EVENT_1" in text:  # shimtile_broadcast: the drain shim listens to its user events
        (u,) = units
        assert (u.start_event, u.stop_event) == (
            events.event_id("shim", "USER_EVENT_1"),
            events.event_id("shim", "USER_EVENT_0"),
        )
    length = re.search(r"buffer_length = (\d+)", text)
    if length:  # buffer_size_config: 8192 bytes -> 2048 words
        bds = [op["buffer_length"] for s in dev.sequences for op in s.body if isinstance(op, ir.WriteBd)]
        assert bds == [int(length[1])]
    held = re.search(r"CHECK: aie\.packet_flow\((\d+)\)", text)
    if rel == HELD:
        assert int(held[1]) in {f.id for f in dev.packet_flows}


def test_memtile_event_name_of_the_lit_test_is_refused_with_the_right_name():
    text = _text(FLOWS, "npu1", 6)
    assert "CHECK-LABEL: module @memtile\n" in text
    with pytest.raises(iron.IronError, match="no trace event 'DMA_S2MM_0_START_TASK' in the 'memtile' module; "
                       "did you mean DMA_S2MM_SEL0_START_TASK"):  # fmt: skip
        fuse(iron.from_mlir(text, name="u"), "npu1", TraceOptions(size=4096), "separate")


def test_kept_configurations_lay_out_as_upstreams_fused_buffer(tmp_path):
    """test_trace_configure_run.mlir fuses dev_a then dev_b, each with its own aie.trace and
    host_config; its CHECK lines give the fused buffer's slices. Called from an iron
    Sequence, the kept configurations get the same offsets and sizes, in the same order."""
    rel = "corpus/mlir-aie__test__dialect__AIEX__trace__test_trace_configure_run.mlir"
    text = _text(rel, "npu1")
    want = [
        (d, int(o), int(z))
        for d, o, z in re.findall(
            r'trace_slice<device = "(\w+)", sequence = "\w+", offset = (\d+), size = (\d+)>', text
        )
    ]
    assert want == [("dev_a", 0, 8192), ("dev_b", 8192, 8192)]
    a = iron.from_mlir(text, name="dev_a", device="dev_a")
    b = iron.from_mlir(text, name="dev_b", device="dev_b")
    seq = iron.Sequence("two", [(a, "x"), (b, "y")], ["x", "y"], [])
    art = iron.build(seq, trace=True, trace_size=4096, target="npu1", cache_dir=tmp_path)
    assert [(s.operator, s.offset, s.size) for s in art.manifest.slices] == want
    with art.load("sim") as run:
        run(np.zeros(64, np.int32), np.zeros(64, np.int32))
        assert [(s.slice.operator, s.status, bool(s.units)) for s in run.trace.slices] == [
            ("dev_a", "ok", True),
            ("dev_b", "ok", True),
        ]


def test_a_patch_at_an_offset_keeps_its_offset_when_fused():
    """A foreign sequence's own ``aiex.npu.address_patch`` adds its operand (``arg_plus``)
    to the address of its argument (mlir-aie test/Targets/NPU/npu_address_patch_ddr_offset.mlir:
    the DDR patch's arg_plus is the operand). Fused, the argument is a window of the
    scratch buffer at byte 256 (two MemCopy steps of 64 i32 before it), so the patch
    must point at the scratch buffer with arg_plus 256 + the design's own 16."""
    from iron.lower.materialize import materialize

    patch = (  # 119236 = 0x1D1C4: shim BD 14's address word, which nothing else here patches
        "      %off = arith.constant 16 : i32\n"
        "      aiex.npu.address_patch(%off : i32) {addr = 119236 : ui32, arg_idx = 0 : i32}\n"
    )
    text = _text(PEANO, "npu2").replace(
        "      aiex.npu.dma_wait {symbol = @of_out}\n", patch + "      aiex.npu.dma_wait {symbol = @of_out}\n"
    )
    assert patch in text
    op = iron.from_mlir(text, name="ext")
    copy = MemCopy(size=64, dtype="i32", tile_size=32)
    seq = iron.Sequence(
        "s", [(copy, "x", "h0"), (copy, "h0", "h1"), (op, "h1", "buf", "out")], ["x", "buf"], ["out"]
    )
    fm = fuse(seq, "npu2")
    assert list(fm.buffers) == ["x", "buf", "out", "scratch_i32"]
    assert (fm.windows["h1"].buffer, fm.windows["h1"].offset) == ("scratch_i32", 256)
    ops = materialize(fm).device("main").sequence().body
    mine = [(p.arg_idx, p.arg_plus) for p in ops if isinstance(p, ir.AddressPatch) and p.addr == 119236]
    assert mine == [(3, 256 + 16)]
