"""Trace configurations beyond iron's default (issue 12 item 5), end to end on sim.

Per call-site sizes (``iron.Step``, ``trace_sizes`` / ``IRON_TRACE_SIZES``), start and
stop events (``trace_start`` / ``trace_stop``: the forms of mlir-aie's
``aie.trace.start/stop``), units at chosen tiles (``trace_units``). Each is checked on
the register program against values derived by hand here from the register layout
(docs/design.md 4: Trace_Control0 = stop << 24 | start << 16; Trace_Control1 = packet type
<< 12 | id) and aie-rt's AIE2 event numbers (core: BROADCAST_0 = 107, USER_EVENT_0 =
124, TRUE = 1, NONE = 0; shim: USER_EVENT_0 = 126; memtile: BROADCAST_0 = 142), on the
manifest, and on what a capture decodes to.
"""

from __future__ import annotations

import pytest

from iron import Sequence, Step, testing
from iron import build
from iron.errors import OptionError
from iron.fuse.fusion import fuse
from iron.mlir import ir
from iron.operators import ElementwiseAdd, ElementwiseMul
from iron.options import resolve

N = 4096
ADD = ElementwiseAdd(N, "i32", columns=2, cores_per_column=2, tile_size=512)
MUL = ElementwiseMul(N, "i32", columns=2, cores_per_column=2, tile_size=512)
#: Kernel calls per core and operator call, by hand: 4096 / (2 columns x 2 cores x 512).
INVOCATIONS = 2
# Register offsets (docs/design.md 4), by hand.
CORE_CONTROL0, CORE_CONTROL1, CORE_EVENT0, CORE_TIMER, CORE_GENERATE = (
    0x340D0,
    0x340D4,
    0x340E0,
    0x34000,
    0x34008,
)
MEM_CONTROL0, MEM_GENERATE = 0x140D0, 0x14008
MEMTILE_CONTROL0, MEMTILE_CONTROL1 = 0x940D0, 0x940D4
SHIM_BROADCAST0 = 0x34010


def _seq(*steps):
    return Sequence("chain", list(steps), ["x", "y"], ["u"])


SIZED = _seq(
    Step(ADD, "x", "y", "s", trace_size=4096),
    (MUL, "s", "y", "t"),
    Step(MUL, "t", "x", "u", trace_size=0),
)
PLAIN = _seq((ADD, "x", "y", "s"), (MUL, "s", "y", "t"), (MUL, "t", "x", "u"))


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("cache")


def writes(fm, symbol: str) -> list[tuple[int, int, int, int]]:
    """(column, row, offset, value) of every write32 of device ``symbol``'s sequence, in order."""
    dev = next(d for d in fm.module.devices if d.symbol == symbol)
    return [
        (op.column, op.row, op.address, op.value)
        for seq in dev.sequences
        for op in ir.walk(seq.body)
        if isinstance(op, ir.Write32)
    ]


def traced_run(cache, seq=PLAIN, **kw):
    kw.setdefault("ntiles", 1)  # the expected units below; IRON_TRACE_NTILES must not change them
    art = build(seq, trace=True, trace_size=8192, cache_dir=cache, **kw)
    run = art.load("sim")
    inputs = testing.example_inputs(seq)
    assert testing.same_bits(run(**inputs), testing.reference(seq, inputs)[0])
    return art, run.trace


def instr_event_0(unit) -> int:
    _t, masks = unit.runs.expand()
    return int(((masks >> unit.events.index("INSTR_EVENT_0")) & 1).sum())


# --------------------------------------------------------------------------- per call-site sizes
def test_step_sizes_give_each_slice_its_own_size(cache):
    opts = resolve(True, size=8192, env={})
    fm = fuse(SIZED, "npu2", opts)
    # By hand: site 0 4096 bytes at 0, site 1 the global 8192 at 4096, site 2 untraced.
    got = [(s.index, s.offset, s.size) for s in fm.manifest.slices]
    assert got == [(0, 0, 4096), (1, 4096, 8192)]
    assert fm.manifest.total_size == 12288
    assert [c.traced for c in fm.call_sites] == [True, True, False]
    # Each traced device's drain BD counts its own slice in 32-bit words.
    bds = {d.symbol: [op["buffer_length"] for s in d.sequences for op in s.body if isinstance(op, ir.WriteBd)]
           for d in fm.module.devices}  # fmt: skip
    assert bds[fm.call_sites[0].device] == [1024] and bds[fm.call_sites[1].device] == [2048]
    # Same operator at sites 1 and 2, traced and untraced: two devices.
    assert fm.call_sites[1].device != fm.call_sites[2].device
    assert fm.trace_key()["sizes"] == [[0, 4096], [1, 8192]]  # the plan's sizes enter the cache key
    assert fm.options.sizes == ()  # the options keep what the user asked for
    assert [(s.index, s.offset, s.size) for s in fm.plan.sites] == [(0, 0, 4096), (1, 4096, 8192)]

    art, trace = traced_run(cache, SIZED)
    assert [(s.slice.offset, s.slice.size, s.status) for s in trace.slices] == [
        (0, 4096, "ok"),
        (4096, 8192, "ok"),
    ]
    for s in trace.slices:
        assert s.units and all(instr_event_0(u) == INVOCATIONS for u in s.units)


def test_trace_sizes_override_steps_and_enter_the_cache_key(cache):
    env = {"IRON_TRACE_SIZES": "0:2048, 2:1024"}
    opts = resolve(True, size=8192, env=env)
    assert opts.sizes == ((0, 2048), (2, 1024))
    fm = fuse(SIZED, "npu2", opts)
    assert [(s.index, s.offset, s.size) for s in fm.manifest.slices] == [
        (0, 0, 2048),
        (1, 2048, 8192),
        (2, 10240, 1024),
    ]
    # The explicit argument wins over the variable; without either the key is unchanged.
    assert resolve(True, size=8192, sizes={0: 64}, env=env).sizes == ((0, 64),)
    assert "sizes" not in resolve(True, size=8192, env={}).key()
    assert (
        fuse(PLAIN, "npu2", resolve(True, size=8192, env={})).trace_key()
        == resolve(True, size=8192, env={}).key()
    )


@pytest.mark.parametrize(
    "kw, needle",
    [
        (dict(sizes="0=64"), "IRON_TRACE_SIZES='0=64': cannot read '0=64'; accepted: call-site index:bytes"),
        (dict(sizes={0: 33}), "not a multiple of 32"),
        (dict(sizes="1:64,1:128"), "call site 1 given twice"),
    ],
)
def test_bad_sizes_name_the_variable(kw, needle):
    env = {"IRON_TRACE_SIZES": kw["sizes"]} if isinstance(kw["sizes"], str) else {}
    with pytest.raises(OptionError, match=None) as err:
        resolve(True, env=env, **({} if env else kw))
    assert needle in str(err.value)


def test_bad_step_size():
    with pytest.raises(OptionError, match=r"Step\(trace_size=...\)=100: not a multiple of 32"):
        Step(ADD, "x", "y", "s", trace_size=100)
    assert tuple(Step(ADD, "x", "y", "s")) == (ADD, "x", "y", "s")


# --------------------------------------------------------------------------- start and stop
def _core_program(fm, site=0, col=0, row=2):
    return [(off, v) for c, r, off, v in writes(fm, fm.call_sites[site].device) if (c, r) == (col, row)]


def test_true_start_none_stop(cache):
    fm = fuse(PLAIN, "npu2", resolve(True, size=8192, start="TRUE", stop="NONE", env={}))
    prog = _core_program(fm)
    offsets = [off for off, _ in prog]
    # Trace_Control0 = NONE << 24 | TRUE << 16, written after the packet id and slots.
    assert (CORE_CONTROL0, 0x0001_0000) in prog
    assert offsets.index(CORE_CONTROL0) > max(offsets.index(CORE_CONTROL1), offsets.index(CORE_EVENT0))
    assert CORE_TIMER not in offsets  # TRUE is no timer reset event
    shim = [off for c, r, off, _v in writes(fm, fm.call_sites[0].device) if r == 0]
    assert not any(SHIM_BROADCAST0 <= off < SHIM_BROADCAST0 + 64 for off in shim)  # no broadcast raised
    assert {(u.start_event, u.stop_event) for s in fm.manifest.slices for u in s.units} == {(1, 0)}
    assert fm.options.key()["start"] == "event=TRUE" and fm.options.key()["stop"] == "event=NONE"

    _art, trace = traced_run(cache, trace_start="TRUE", trace_stop="NONE")
    assert [s.status for s in trace.slices] == ["ok"] * 3
    for s in trace.slices:
        assert [u.label for u in s.units] == ["core(0,2)"]
        assert instr_event_0(s.units[0]) == INVOCATIONS


def test_user_event_start_stop(cache):
    fm = fuse(
        PLAIN, "npu2", resolve(True, size=8192, start="USER_EVENT_0", stop='event=<"USER_EVENT_1">', env={})
    )
    prog = _core_program(fm)
    assert (CORE_CONTROL0, 125 << 24 | 124 << 16) in prog
    assert (CORE_TIMER, 124 << 8) in prog
    generated = [v for off, v in prog if off == CORE_GENERATE]
    assert generated == [124, 125]  # raised by iron at the start and at the end
    _art, trace = traced_run(cache, trace_start="USER_EVENT_0", trace_stop="USER_EVENT_1")
    assert all(s.status == "ok" and instr_event_0(s.units[0]) == INVOCATIONS for s in trace.slices)


def test_other_broadcast_pair(cache):
    fm = fuse(PLAIN, "npu2", resolve(True, size=8192, start="broadcast=3", stop="broadcast=4", env={}))
    assert (CORE_CONTROL0, (107 + 4) << 24 | (107 + 3) << 16) in _core_program(fm)
    shim = [(off, v) for c, r, off, v in writes(fm, fm.call_sites[0].device) if r == 0]
    # The drain shim maps its user event 1 (127) onto broadcast 3 and user event 0 (126) onto 4.
    assert (SHIM_BROADCAST0 + 4 * 3, 127) in shim and (SHIM_BROADCAST0 + 4 * 4, 126) in shim
    _art, trace = traced_run(cache, trace_start="broadcast=3", trace_stop="broadcast=4")
    assert all(s.status == "ok" and instr_event_0(s.units[0]) == INVOCATIONS for s in trace.slices)


@pytest.mark.parametrize(
    "kw, needle",
    [
        (dict(start="broadcast=16"), "trace_start='broadcast=16': broadcast 16 out of range; accepted: broadcast=N"),
        (dict(start="INSTR_EVENT_0"), "event INSTR_EVENT_0 is not one iron can raise; accepted:"),
        (dict(stop="TRUE"), "trace_stop=TRUE would stop every unit"),
        (dict(start="broadcast=14"), "both broadcast=14"),
        (dict(start="USER_EVENT_3", events="core=INSTR_EVENT_0;shim=DMA_S2MM_0_START_TASK"),
         "shim modules have no USER_EVENT_3"),
    ],
)  # fmt: skip
def test_bad_start_stop(kw, needle):
    with pytest.raises(OptionError) as err:
        resolve(True, env={}, **kw)
    assert needle in str(err.value)


def test_start_from_the_environment():
    opts = resolve(True, env={"IRON_TRACE_START": "true", "IRON_TRACE_STOP": "none"})
    assert (opts.start, opts.stop) == ("event=TRUE", "event=NONE")
    with pytest.raises(OptionError, match="IRON_TRACE_START='bogus'"):
        resolve(True, env={"IRON_TRACE_START": "bogus"})


# --------------------------------------------------------------------------- units at chosen tiles
UNITS = "core(1,3),mem(0,2),memtile(1,1),shim(1,0)"
UNIT_EVENTS = (
    "core=INSTR_EVENT_0;mem=DMA_S2MM_0_FINISHED_BD;memtile=PORT_RUNNING_0;shim=DMA_S2MM_0_START_TASK"
)


def test_units_at_chosen_tiles(cache):
    fm = fuse(PLAIN, "npu2", resolve(True, size=8192, units=UNITS, events=UNIT_EVENTS, env={}))
    dev = next(d for d in fm.module.devices if d.symbol == fm.call_sites[0].device)
    tiles = {t.name: (t.col, t.row) for t in dev.tiles}
    sources = {
        (tiles[f.source.tile], f.source.channel) for f in dev.packet_flows if f.source.bundle == "Trace"
    }
    # Trace port 0 of a core, memtile and shim; port 1 is the core tile's memory module.
    assert sources == {((1, 3), 0), ((0, 2), 1), ((1, 1), 0), ((1, 0), 0)}
    w = {(c, r, off): v for c, r, off, v in writes(fm, dev.symbol)}
    ids = {(u.kind, u.column, u.row): u.packet_id for u in fm.manifest.slices[0].units}
    # Packet types: core 0, mem 1, shim 2, memtile 3 (mlir-aie's PacketType).
    assert w[1, 3, CORE_CONTROL1] == ids["core", 1, 3]
    assert w[1, 1, MEMTILE_CONTROL1] == 3 << 12 | ids["memtile", 1, 1]
    assert w[1, 0, CORE_CONTROL1] == 2 << 12 | ids["shim", 1, 0]
    # A memtile unit starts on its broadcast 15 (142 + 15) and stops on 14.
    assert w[1, 1, MEMTILE_CONTROL0] == (142 + 14) << 24 | (142 + 15) << 16
    # A shim unit that does not drain listens to the broadcasts like every other tile: 110 + n.
    assert w[1, 0, 0x340D0] == (110 + 14) << 24 | (110 + 15) << 16
    assert [u.label for u in fm.manifest.slices[0].units] == [
        "core(1,3)",
        "mem(0,2)",
        "memtile(1,1)",
        "shim(1,0)",
    ]
    assert fm.options.key()["units"] == [["core", 1, 3], ["mem", 0, 2], ["memtile", 1, 1], ["shim", 1, 0]]

    _art, trace = traced_run(cache, trace_units=UNITS, events=UNIT_EVENTS)
    for s in trace.slices:
        assert s.status == "ok"
        assert {(u.kind, u.column, u.row) for u in s.units} == {
            ("core", 1, 3),
            ("mem", 0, 2),
            ("memtile", 1, 1),
            ("shim", 1, 0),
        }
        core = next(u for u in s.units if u.kind == "core")
        assert (core.column, core.row) == (1, 3) and instr_event_0(core) == INVOCATIONS


def test_units_errors():
    with pytest.raises(
        OptionError, match=r"trace_units='core\(0,1\)': core\(0,1\): core units sit at rows >= 2"
    ):
        resolve(True, units="core(0,1)", env={})
    with pytest.raises(OptionError, match="IRON_TRACE_UNITS: lists mem unit"):
        resolve(True, env={"IRON_TRACE_UNITS": "mem(0,2)"})
    with pytest.raises(OptionError, match="unit kind 'dma'"):
        resolve(True, units=[("dma", 0, 2)], env={})
    opts = resolve(True, units="core(5,2)", env={})
    with pytest.raises(Exception, match=r"IRON_TRACE_UNITS / trace_units: core\(5,2\): no such tile"):
        fuse(PLAIN, "npu2", opts)


def test_selecting_the_wrapper_is_a_clear_error():
    """iron.build's wrapper (@main) holds only aiex.configure/aiex.run: asking to trace it
    names why it has no units (upstream puts a wrapper's own units first: iron trace wire)."""
    with pytest.raises(
        OptionError, match=r"IRON_TRACE_OP names 'main', the wrapper device .* no trace units"
    ):
        fuse(PLAIN, "npu2", resolve(True, size=8192, env={"IRON_TRACE_OP": "main"}))
    with pytest.raises(OptionError, match=r"select names 'main'"):
        fuse(PLAIN, "npu2", resolve(True, size=8192, select="0,main", env={}))
    fuse(PLAIN, "npu2", resolve(True, size=8192, select="0", env={}))  # call sites: fine


# --------------------------------------------------------------------------- one reader of aie.trace
def test_host_config_both_spellings_read_in_one_place():
    """``aie.trace.host_config`` as upstream's lit inputs write it: the attribute form
    (test_fuse_trace_buffers.mlir: 8192, 4096, 8192 per sequence, in file order) and the
    bare form (test_insert_trace_flows_controller_id.mlir: 65536)."""
    from pathlib import Path

    from iron.mlir.reader import parse
    from iron.instrument.declarative import host_buffer_size, is_trace_op

    data = Path(__file__).parent / "data" / "upstream"

    def sizes(name):
        module = parse((data / name).read_text(), name)
        return [host_buffer_size(s) for d in module.devices for s in d.sequences if host_buffer_size(s)]

    assert sizes("test_fuse_trace_buffers.mlir") == [8192, 4096, 8192]
    assert sizes("test_insert_trace_flows_controller_id.mlir") == [65536] * 4
    assert is_trace_op(ir.Opaque("aie.trace.start_config @t")) and is_trace_op(
        ir.Opaque("aie.trace @t(%x) {}")
    )
    assert not is_trace_op(ir.Opaque("aie.tracer_thing"))
