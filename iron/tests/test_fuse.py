"""Trace codegen, fusion and wiring (issue: every operator call gets its own slice).

Generated MLIR is printed and read back with iron's reader, so these tests check
what aiecc (or anyone) would see, not iron's in-memory objects.
"""

from pathlib import Path

import pytest

from iron.design import Design
from iron.fuse.fusion import RESET_DEVICE, FuseError, Sequence, fuse
from iron.lower.materialize import kernel_ops, materialize
from iron.lower.verify import WiringError, check_wiring, trace_patches, wiring_problems
from iron.mlir import ir
from iron.mlir.printer import print_module
from iron.mlir.reader import parse, parse_file
from iron.operators import GEMM, ElementwiseAdd, ElementwiseMul, MemCopy, ReLU
from iron.options import resolve
from iron.target.geometry import get_target
from iron.instrument.codegen import instrument
from iron.tests.bugs import emulated_bug
from iron.tests.golden import TEST1, TEST1_EVENTS

GOLDEN = TEST1 / "aie.mlir"
N = 4096


VECSCALAR = Path(__file__).parent / "data" / "xdna-emu-vecscalar" / "input_with_addresses.mlir"


def traced(size=8192, **kw):
    return resolve(size=size, env={}, **kw)


def mixed_sequence():
    """Add and Mul share an argument count; Add runs twice; ReLU runs twice in a row."""
    add, mul, relu = ElementwiseAdd(size=N), ElementwiseMul(size=N), ReLU(size=N)
    return Sequence(
        "mixed",
        [
            (add, "a", "b", "t0"),
            (mul, "t0", "b", "t1"),
            (relu, "t1", "t2"),
            (relu, "t2", "t3"),
            (add, "t3", "a", "out"),
        ],
        inputs=["a", "b"],
        outputs=["out"],
    )


def reread(module: ir.Module) -> ir.Module:
    return parse(print_module(module))


# --------------------------------------------------------------------------- codegen


def _golden_without_trace():
    golden = parse(GOLDEN.read_text(), str(GOLDEN))
    device = golden.devices[0]
    trace_ops = (ir.Write32, ir.WriteBd, ir.AddressPatch, ir.MaskWrite32)
    expected = [op for op in device.sequence().body if isinstance(op, trace_ops)]
    bare = ir.Device(device.target, None, [op for op in device.body if not isinstance(op, ir.PacketFlow)])
    bare.sequence().body = [op for op in bare.sequence().body if not isinstance(op, trace_ops)]
    return golden, bare, expected


def test_register_program_matches_mlir_aie_golden():
    """Unit registers against mlir-aie's test1 (8 events, port selection); the drain itself
    against today's aiecc in the next test (test1's older flow pushed without a token)."""
    golden, bare, expected = _golden_without_trace()
    td = instrument(Design(bare, []), traced(8192, events=TEST1_EVENTS), get_target("npu1"))
    seq = reread(ir.Module([td.design.device])).devices[0].sequence()
    ours = [op for op in seq.body if isinstance(op, ir.Write32)]
    theirs = [op for op in expected if isinstance(op, ir.Write32)]
    key = lambda w: (w.address, w.column, w.row, w.value)  # noqa: E731
    assert [key(w) for w in ours if w.row == 2] == [key(w) for w in theirs if w.row == 2]
    # The trace argument is appended (mlir-aie's legacy flow patched ddr_id 4 instead).
    patch = next(op for op in seq.body if isinstance(op, ir.AddressPatch))
    assert (patch.addr, patch.arg_idx, patch.arg_plus) == (119268, 3, 0)
    assert str(seq.args[3].type) == "memref<8192xi8>"
    # BD: the golden's older flow wrote buffer_length in bytes; iron counts words
    ours_bd = next(op for op in seq.body if isinstance(op, ir.WriteBd)).fields
    theirs_bd = next(op for op in expected if isinstance(op, ir.WriteBd)).fields
    assert ours_bd["buffer_length"] == 8192 // 4 and theirs_bd["buffer_length"] == 8192
    flows = [
        (f.id, f.source.bundle, f.source.channel, f.dest.bundle, f.dest.channel)
        for f in td.design.device.packet_flows
    ]
    assert (
        flows
        == [(1, "Trace", 0, "DMA", 1)]
        == [
            (f.id, f.source.bundle, f.source.channel, f.dest.bundle, f.dest.channel)
            for f in golden.devices[0].packet_flows
        ]
    )


def test_trace_program_matches_todays_aiecc_op_for_op():
    """The whole program, in order, against what a 2026 aiecc wrote for mlir-aie's traced
    vector_scalar_mul (iron/tests/data/xdna-emu-vecscalar): unit registers (no Trace_Event1 or
    port selection for 3 events), drain BD without packet id, Ctrl mask 0x1F00, push with token."""
    theirs_mod = parse_file(VECSCALAR)
    dev = theirs_mod.devices[0]
    trace_ops = (ir.Write32, ir.WriteBd, ir.AddressPatch, ir.MaskWrite32)
    theirs = [op for op in dev.sequence().body if isinstance(op, trace_ops)]
    bare = ir.Device(dev.target, None, [op for op in dev.body if not isinstance(op, ir.PacketFlow)])
    bare.sequence().body = [op for op in bare.sequence().body if not isinstance(op, trace_ops)]
    events = {"core": ["INSTR_VECTOR", "INSTR_EVENT_0", "INSTR_EVENT_1"]}
    td = instrument(Design(bare, []), traced(8192, events=events), get_target("npu1"))
    ours = [
        op
        for op in reread(ir.Module([td.design.device])).devices[0].sequence().body
        if isinstance(op, trace_ops)
    ]
    # aiecc's flow of that time patched the fixed trace slot 4; iron appends the trace argument (3)
    theirs = [
        ir.AddressPatch(op.addr, 3, op.arg_plus) if isinstance(op, ir.AddressPatch) else op for op in theirs
    ]
    assert ours == theirs


def test_units_packet_ids_and_ntiles():
    op = ElementwiseAdd(size=N * 4, columns=2, cores_per_column=2)
    design = op.design("npu2")
    opts = traced(events={"core": ["INSTR_EVENT_0"], "mem": ["DMA_S2MM_0_FINISHED_BD"]}, ntiles=3)
    td = instrument(design, opts, get_target("npu2"))
    kinds = [(u.kind, u.column, u.row) for u in td.units]
    assert kinds == [(k, c, r) for c, r in design.compute_tiles[:3] for k in ("core", "mem")]
    ids = [u.packet_id for u in td.units]
    assert ids == list(range(1, 7))
    flows = td.design.device.packet_flows
    assert [f.id for f in flows] == ids
    assert [f.source.channel for f in flows] == [0, 1] * 3  # Trace : 1 is the memory module
    with pytest.warns(UserWarning, match=r"ntiles=9 but .* has 4 compute tile"):
        instrument(design, traced(ntiles=9), get_target("npu2"))


def test_instrument_leaves_the_original_design_alone():
    design = ReLU(size=N).design("npu2")
    before = print_module(ir.Module([design.device]))
    instrument(design, traced(), get_target("npu2"))
    assert print_module(ir.Module([design.device])) == before


# --------------------------------------------------------------------------- fusion and wiring


def _trace_patch_summary(module: ir.Module):
    seq = module.device("main").sequence()
    return [(p.arg_idx, p.arg_plus) for p in trace_patches(seq.body)]


def test_fused_wiring_every_call_site_gets_its_own_slice():
    fm = fuse(mixed_sequence(), "npu2", traced(8192))
    m = fm.manifest
    # Data buffers keep their indices (inputs, outputs, one scratch buffer holding every
    # intermediate); the trace buffer follows.
    assert list(fm.buffers) == ["a", "b", "out", "scratch_bf16", "trace"]
    assert str(fm.buffers["scratch_bf16"]) == f"memref<{4 * N}xbf16>"
    assert [(w.buffer, w.offset) for w in fm.windows.values()] == [
        ("scratch_bf16", 2 * N * k) for k in range(4)
    ]
    assert m.trace_arg_index == 4
    wrapper = fm.module.device("main").sequence()
    assert [a.name for a in wrapper.args][-1] == f"arg{m.trace_arg_index}"
    assert str(wrapper.args[-1].type) == "memref<40960xi8>"
    # Slices: one per call site, program order, contiguous, covering the buffer.
    assert [(s.index, s.operator, s.call, s.offset, s.size) for s in m.slices] == [
        (0, "ElementwiseAdd", 0, 0, 8192),
        (1, "ElementwiseMul", 0, 8192, 8192),
        (2, "ReLU", 0, 16384, 8192),
        (3, "ReLU", 1, 24576, 8192),
        (4, "ElementwiseAdd", 1, 32768, 8192),
    ]
    assert m.total_size == sum(s.size for s in m.slices)
    # Read the materialized module back: every trace patch names the wrapper's trace argument.
    flat = reread(materialize(fm))
    assert _trace_patch_summary(flat) == [(m.trace_arg_index, s.offset) for s in m.slices]
    assert wiring_problems(flat.device("main").sequence().body, m, "main:sequence") == []


def test_fused_module_structure_reads_back():
    fm = fuse(mixed_sequence(), "npu2", traced(4096))
    module = reread(fm.module)
    symbols = [d.symbol for d in module.devices]
    assert symbols == ["op0_ElementwiseAdd", "op1_ElementwiseMul", "op2_ReLU", RESET_DEVICE, "main"]
    for dev in module.devices[:3]:
        flows = dev.packet_flows
        assert len(flows) == 1  # ntiles=1, core events only: one unit per device
        assert len({f.id for f in flows}) == len(flows)
        seq = dev.sequence()
        assert str(seq.args[-1].type) == "memref<4096xi8>"
        patch = trace_patches(seq.body)
        assert [(p.arg_idx, p.arg_plus) for p in patch] == [(len(seq.args) - 1, 0)]
    body = module.device("main").sequence().body
    configured = [op.device for op in body]
    # ReLU twice in a row: a reconfiguration in between so the second call drains into its own slice.
    # Add last and first: the next dispatch on the same context starts where this one ended, with
    # op0 loaded, so the first call gets one too.
    assert configured == [
        RESET_DEVICE,
        "op0_ElementwiseAdd",
        "op1_ElementwiseMul",
        "op2_ReLU",
        RESET_DEVICE,
        "op2_ReLU",
        "op0_ElementwiseAdd",
    ]
    runs = [op.body for op in body if op.device != RESET_DEVICE]
    trace_arg = module.device("main").sequence().args[-1].name
    views = [v for inner in runs for v in inner if isinstance(v, ir.View) and v.source == trace_arg]
    assert [v.offset for v in views] == [0, 4096, 8192, 12288, 16384]
    # The view is forwarded at the position the callee expects: its last argument.
    assert [inner[-1].args[-1] for inner in runs] == [v.name for v in views]


def test_reset_only_between_traced_consecutive_calls_of_one_device():
    untraced = fuse(mixed_sequence(), "npu2", resolve(env={}))
    assert RESET_DEVICE not in [d.symbol for d in untraced.module.devices]
    with emulated_bug("stale-trace-task"):
        no_fix = fuse(mixed_sequence(), "npu2", traced())
    assert RESET_DEVICE not in [op.device for op in no_fix.module.device("main").sequence().body]


def test_selection_traces_only_selected_call_sites():
    fm = fuse(mixed_sequence(), "npu2", traced(2048, select=[1, "relu"]))
    assert [(s.index, s.operator, s.offset) for s in fm.manifest.slices] == [
        (1, "ElementwiseMul", 0),
        (2, "ReLU", 2048),
        (3, "ReLU", 4096),
    ]
    traced_by_site = [site.traced for site in fm.call_sites]
    assert traced_by_site == [False, True, True, True, False]
    # The untraced Add calls run an untraced copy of the design: no flows, no extra argument.
    add = fm.module.device(fm.call_sites[0].device)
    assert add.packet_flows == [] and len(add.sequence().args) == 3
    flat = reread(materialize(fm))
    assert _trace_patch_summary(flat) == [(fm.manifest.trace_arg_index, o) for o in (0, 2048, 4096)]
    from iron.errors import OptionError  # the selection is checked by its owner, iron.options

    with pytest.raises(OptionError, match="select='gemm' selects no call site"):
        fuse(mixed_sequence(), "npu2", traced(select=["gemm"]))


def test_untraced_fusion_leaves_designs_byte_identical():
    seq = mixed_sequence()
    fm = fuse(seq, "npu2", resolve(env={}))
    assert fm.manifest is None and "trace" not in fm.buffers
    for dev in fm.module.devices:
        if dev.symbol == "main":
            continue
        op = fm.operators[dev.symbol]
        original = op.design("npu2").device
        original.symbol = dev.symbol
        assert print_module(ir.Module([dev])) == print_module(ir.Module([original]))
    text = print_module(fm.module)
    for marker in ("packet_flow", "aiex.npu.write32", "address_patch", "xi8>", "iron_reset"):
        assert marker not in text
    assert text == print_module(fuse(seq, "npu2").module)  # default options: untraced


def test_original_bug_shape_is_caught():
    """Patch left at the operator's own index: the check names the call site and both indices."""
    fm = fuse(mixed_sequence(), "npu2", traced(8192))
    buggy = kernel_ops(fm, fm.schedule[0], translate_patches=False)
    own = [(p.arg_idx, p.arg_plus) for p in trace_patches(buggy)]
    assert own == [(3, 0), (3, 0), (2, 0), (2, 0), (3, 0)]  # each callee's own trace argument
    problems = wiring_problems(buggy, fm.manifest, "main:sequence")
    assert len(problems) == 5
    assert (
        "call site 0 (ElementwiseAdd) patches host buffer 3 + 0 but its slice is buffer 4 + 0" in problems[0]
    )
    with pytest.raises(WiringError):
        check_wiring(buggy, fm.manifest, "main:sequence")
    check_wiring(kernel_ops(fm, fm.schedule[0]), fm.manifest, "main:sequence")


def test_separate_dispatch_one_kernel_per_call_site():
    fm = fuse(mixed_sequence(), "npu1", traced(4096))
    assert fm.dispatch == "separate"
    names = [k.name for k in fm.schedule]
    assert names == [
        f"{RESET_DEVICE}:sequence",
        "op0_ElementwiseAdd:sequence",
        "op1_ElementwiseMul:sequence",
        "op2_ReLU:sequence",
        f"{RESET_DEVICE}:sequence",
        "op2_ReLU:sequence",
        "op0_ElementwiseAdd:sequence",
    ]
    for s, kernel in zip(fm.manifest.slices, [k for k in fm.schedule if k.device != RESET_DEVICE]):
        assert (s.kernel, kernel.args[-1].buffer, kernel.args[-1].offset) == (kernel.name, "trace", s.offset)
        ops = kernel_ops(fm, kernel)
        assert isinstance(ops[0], ir.LoadPdi) and ops[0].device_ref == kernel.device
        assert [(p.arg_idx, p.arg_plus) for p in trace_patches(ops)] == [(s.arg_index, 0)]
    with pytest.raises(FuseError, match="npu1 does not support"):
        fuse(mixed_sequence(), "npu1", traced(), dispatch="fused")


def test_sequence_validation_errors():
    add = ElementwiseAdd(size=N)
    with pytest.raises(FuseError, match="takes 3 buffers"):
        fuse(Sequence("s", [(add, "a", "b")], ["a", "b"], ["b"]))
    with pytest.raises(FuseError, match="reads 'x' before any step writes it"):
        fuse(Sequence("s", [(add, "a", "x", "c")], ["a"], ["c"]))
    with pytest.raises(FuseError, match="'c' is memref<4096xbf16> in step 0 but memref<2048xbf16>"):
        fuse(Sequence("s", [(add, "a", "b", "c"), (ReLU(size=2048), "c", "d")], ["a", "b"], ["d"]))
    with pytest.raises(FuseError, match="not element type or size"):
        fuse(
            Sequence("s", [(add, "a", "b", "c"), (MemCopy(size=N, dtype="i16"), "c", "d")], ["a", "b"], ["d"])
        )
    with pytest.raises(FuseError, match="output 'a' is never written"):
        fuse(Sequence("s", [(add, "a", "b", "c")], ["a", "b"], ["c", "a"]))
    with pytest.raises(FuseError, match="buffer 'z' is not used by any step"):
        fuse(Sequence("s", [(add, "a", "b", "c")], ["a", "b", "z"], ["c"]))
    with pytest.raises(FuseError, match="buffer name 'trace' is reserved"):
        fuse(Sequence("s", [(add, "a", "b", "trace")], ["a", "b"], ["trace"]))
    with pytest.raises(FuseError, match="buffer name 'scratch_bf16' is reserved"):
        fuse(Sequence("s", [(add, "a", "b", "scratch_bf16")], ["a", "b"], ["scratch_bf16"]))
    with pytest.raises(FuseError, match="dispatch='both'"):
        fuse(add, dispatch="both")


def test_reshaped_buffer_is_passed_as_a_window():
    gemm, silu = GEMM(M=64, K=64, N=64), ReLU(size=64 * 64)
    fm = fuse(Sequence("s", [(gemm, "x", "w", "h"), (silu, "h", "y")], ["x", "w"], ["y"]), "npu2")
    assert list(fm.buffers) == ["x", "w", "y", "scratch_bf16"]
    assert (fm.windows["h"].offset, str(fm.windows["h"].type)) == (0, "memref<64x64xbf16>")
    body = reread(fm.module).device("main").sequence().body
    gemm_view = body[0].body[0]  # GEMM writes h as a 64x64 window of the scratch buffer
    assert (gemm_view.source, gemm_view.offset, str(gemm_view.type)) == ("arg3", 0, "memref<64x64xbf16>")
    (run,) = body[1].body  # ReLU reads the scratch buffer as it is: no window needed
    assert run.args == ["arg3", "arg2"]
    ops = kernel_ops(fm, fm.schedule[0])
    relu_ops = ops[ops.index(ir.LoadPdi(fm.call_sites[1].device)) :]
    # The window binds to host buffer 3 (h) at offset 0; y is host buffer 2.
    assert sorted((p.arg_idx, p.arg_plus) for p in relu_ops if isinstance(p, ir.AddressPatch)) == [
        (2, 0),
        (3, 0),
    ]


def test_single_operator_is_a_one_step_sequence():
    fm = fuse(GEMM(M=64, K=64, N=64), "npu2", traced(4096))
    assert fm.inputs == ["A", "B"] or len(fm.inputs) == 2
    assert [s.operator for s in fm.manifest.slices] == ["GEMM"]
    assert fm.manifest.trace_arg_index == 3


@pytest.mark.parametrize("stage", ["fused", "materialized"])
def test_aie_package_parses_traced_module(stage):
    """When mlir-aie's Python package is installed, it must accept what iron prints."""
    aie_ir = pytest.importorskip("aie.ir")
    from aie.dialects import aie as _aie  # noqa: F401  (registers the dialects)

    fm = fuse(mixed_sequence(), "npu2", traced(4096))
    module = fm.module if stage == "fused" else materialize(fm)
    with aie_ir.Context(), aie_ir.Location.unknown():
        aie_ir.Module.parse(print_module(module))


def test_memtile_and_shim_units():
    """Memtile event ids are 8 bits (BROADCAST_15 = 157); the shim starts on its own user event."""
    opts = traced(events={"core": ["INSTR_EVENT_0"], "memtile": ["PORT_RUNNING_0"], "shim": ["TRUE"]})
    td = instrument(ElementwiseAdd(size=N).design("npu2"), opts, get_target("npu2"))
    assert [(u.kind, u.column, u.row, u.packet_type) for u in td.units] == [
        ("core", 0, 2, 0),
        ("memtile", 0, 1, 3),
        ("shim", 0, 0, 2),
    ]
    writes = {
        (w.column, w.row, w.address): w.value
        for w in td.design.runtime_sequence.body
        if isinstance(w, ir.Write32)
    }
    assert writes[0, 1, 0x940D0] == (156 << 24) | (157 << 16)
    assert writes[0, 1, 0x94000] == 157 << 8
    assert writes[0, 1, 0xB0F00] == 0x20  # memtile port 0: DMA 0 master
    assert writes[0, 0, 0x340D0] == (126 << 24) | (127 << 16)
    assert writes[0, 0, 0x340D4] == (2 << 12) | 3


# --------------------------------------------------------------------------- host-buffer budget


def test_many_intermediates_bind_within_the_host_buffer_budget(tmp_path):
    """20 chained steps have 19 intermediates; the old one-buffer-each layout needed 21 host
    buffers plus the trace (over XRT's 16). With the scratch buffer: x, y, scratch, trace."""
    import numpy as np

    from iron import build

    relu = ReLU(size=N)
    names = ["x"] + [f"h{i}" for i in range(19)] + ["y"]
    seq = Sequence("chain20", [(relu, a, b) for a, b in zip(names, names[1:])], ["x"], ["y"])
    fm = fuse(seq, "npu2", traced(4096))
    assert list(fm.buffers) == ["x", "y", "scratch_bf16", "trace"]
    assert fm.buffers["scratch_bf16"].nbytes == 19 * 2 * N  # 2 N bytes each, 64-byte aligned already
    assert fm.manifest.trace_arg_index == 3
    art = build(seq, trace=True, trace_size=4096, cache_dir=tmp_path)
    i = np.arange(N, dtype=np.uint16)
    x = (i % 0x3F00) | ((i & 1) << 15)  # finite bf16 patterns, every other one negative
    y = art.load("sim")(x)
    want = np.where(x & 0x8000, 0, x)  # relu, applied 20 times, by hand on the bit patterns
    assert np.array_equal(y, want)


def test_more_host_buffers_than_xrt_accepts_is_one_clear_error():
    add = ElementwiseAdd(size=N)
    steps = [(add, f"a{i}", f"b{i}", f"c{i}") for i in range(6)]  # 12 inputs + 6 outputs = 18
    seq = Sequence("wide", steps, [n for s in steps for n in s[1:3]], [s[3] for s in steps])
    with pytest.raises(FuseError, match=r"kernel main:sequence binds 18 host buffers .*at most 16"):
        fuse(seq, "npu2")


# --------------------------------------------------------------------------- issue 27: claims at their edge
def test_one_operator_at_two_trace_sizes_gets_a_device_per_size():
    """A traced device drains into a BD as long as its trace buffer (its sequence's last
    argument, ``memref<SIZExi8>``: mlir-aie's test_fuse_trace_buffers.mlir), so one
    operator called with ``Step(trace_size=4096)`` and ``Step(trace_size=8192)`` is two
    devices, each sized for its own slice; the same size twice is one device."""
    from iron.fuse.fusion import Step

    relu = ReLU(size=N)
    seq = Sequence(
        "s", [Step(relu, "x", "h", trace_size=4096), Step(relu, "h", "y", trace_size=8192)], ["x"], ["y"]
    )
    fm = fuse(seq, "npu2", traced(2048))
    module = reread(fm.module)
    m = fm.manifest
    assert [(s.device, s.offset, s.size) for s in m.slices] == [
        ("op0_ReLU", 0, 4096),
        ("op1_ReLU", 4096, 8192),
    ]
    for s in m.slices:
        assert str(module.device(s.device).sequence().args[-1].type) == f"memref<{s.size}xi8>"
    same = Sequence(
        "s", [Step(relu, "x", "h", trace_size=4096), Step(relu, "h", "y", trace_size=4096)], ["x"], ["y"]
    )
    assert [s.device for s in fuse(same, "npu2", traced(2048)).manifest.slices] == ["op0_ReLU"] * 2


def test_scratch_windows_start_on_64_byte_boundaries():
    """Intermediates of 96 bytes (24 i32): the second window starts at byte 128, not 96
    (64-byte alignment of every window, iron.fuse.fusion.SCRATCH_ALIGN's contract)."""
    add = ElementwiseAdd(size=24, dtype="i32", tile_size=24)
    names = ["x", "h0", "h1", "h2", "y"]
    seq = Sequence("chain", [(add, a, "g", b) for a, b in zip(names, names[1:])], ["x", "g"], ["y"])
    fm = fuse(seq, "npu2")
    assert [(w.buffer, w.offset) for w in fm.windows.values()] == [
        ("scratch_i32", 0),
        ("scratch_i32", 128),
        ("scratch_i32", 256),
    ]
    assert str(fm.buffers["scratch_i32"]) == "memref<88xi32>"  # 256 + 96 bytes
    body = reread(fm.module).device("main").sequence().body
    views = [op for cfg in body for op in cfg.body if isinstance(op, ir.View)]
    assert sorted({(v.source, v.offset) for v in views}) == [("arg3", 0), ("arg3", 32), ("arg3", 64)]


def test_sixteen_data_buffers_and_the_trace_buffer_are_over_xrts_cap():
    """XRT's xclbin flow binds at most 16 host buffers (iron.target.xclbin.MAX_HOST_BUFFERS,
    from XRT): 16 data buffers fit untraced; traced, the trace buffer is the 17th."""
    add = ElementwiseAdd(size=N)
    pairs = [(add, f"a{i}", f"b{i}", f"c{i}") for i in range(5)]  # 10 inputs + 5 outputs
    relu = ReLU(size=N)
    steps = pairs + [(relu, "c4", "d")]  # + 1 output = 16
    seq = Sequence("wide", steps, [n for s in pairs for n in s[1:3]], [s[3] for s in pairs] + ["d"])
    assert len(fuse(seq, "npu2").buffers) == 16
    with pytest.raises(FuseError, match=r"binds 17 host buffers .*at most 16"):
        fuse(seq, "npu2", traced(4096))
    fewer = Sequence("wide", pairs, [n for s in pairs for n in s[1:3]], [s[3] for s in pairs])
    assert list(fuse(fewer, "npu2", traced(4096)).buffers)[-1] == "trace"  # 15 + trace = 16


def test_wrapper_and_reset_device_are_as_wide_as_the_widest_callee():
    """An xclbin's partition is as wide as its first device, so the wrapper (and the
    reset device) cover every callee: a 2-column and a 1-column design give
    ``npu2_2col`` for both (mlir-aie's fused tests: ``aie.device(npu2_1col) @main``
    over 1-column callees). Every device an ``aiex.configure`` runs then takes the
    wrapper's type, which ``ConfigureOp::verify`` requires (mlir-aie
    lib/Dialect/AIEX/IR/AIEXDialect.cpp: "Device types do not match")."""
    add2, relu = ElementwiseAdd(size=N, columns=2), ReLU(size=N)
    seq = Sequence("s", [(add2, "a", "b", "t"), (relu, "t", "u"), (relu, "u", "y")], ["a", "b"], ["y"])
    module = reread(fuse(seq, "npu2", traced(4096)).module)
    targets = {d.symbol: d.target for d in module.devices}
    assert targets == {
        "op0_ElementwiseAdd": "npu2_2col",
        "op1_ReLU": "npu2_2col",
        RESET_DEVICE: "npu2_2col",
        "main": "npu2_2col",
    }


# --------------------------------------------------------------------------- trace argument per dispatch mode


def test_trace_argument_of_each_dispatch_mode():
    """Where each call site's drain patch points (iron/instrument/layout.py). Fused: the wrapper's
    last argument (read back from the printed module) at the slice offset; separate: the callee's
    own trace argument after its data arguments (Add a, b, c -> 3; ReLU a, b -> 2) at offset 0,
    with the manifest's schema value -1 ("per slice")."""
    fm = fuse(mixed_sequence(), "npu2", traced(4096), dispatch="fused")
    args = reread(fm.module).device("main").sequence().args
    assert str(args[-1].type) == "memref<20480xi8>"
    m = fm.manifest
    assert m.trace_arg_index == len(args) - 1
    assert [(s.kernel, s.arg_index, s.offset) for s in m.slices] == [
        ("main:sequence", len(args) - 1, 4096 * i) for i in range(5)
    ]
    sep = fuse(mixed_sequence(), "npu1", traced(4096), dispatch="separate")
    assert sep.manifest.trace_arg_index == -1
    assert [(s.kernel, s.arg_index, s.offset) for s in sep.manifest.slices] == [
        ("op0_ElementwiseAdd:sequence", 3, 0),
        ("op1_ElementwiseMul:sequence", 3, 4096),
        ("op2_ReLU:sequence", 2, 8192),
        ("op2_ReLU:sequence", 2, 12288),
        ("op0_ElementwiseAdd:sequence", 3, 16384),
    ]
    for kernel in {s.kernel for s in sep.manifest.slices}:
        ops = kernel_ops(sep, next(k for k in sep.schedule if k.name == kernel))
        want = {"op2_ReLU:sequence": 2}.get(kernel, 3)
        assert [(p.arg_idx, p.arg_plus) for p in trace_patches(ops)] == [(want, 0)]
        check_wiring(ops, sep.manifest, kernel)
