"""Stream-switch port events with their port selection (issue 12 item 5): ``trace_ports`` /
``IRON_TRACE_PORTS``, as mlir-aie's ``aie.trace.port<n> port = B channel = c direction = D``.

Expected register values are derived by hand from the port numbering in mlir-aie
``lib/Dialect/AIE/IR/AIETargetModel.cpp`` (``aie2_port_id``: core master North from
13, core slave DMA from 1, shim slave South from 2, memtile DMA from 0) and the field
layout of Stream_Switch_Event_Port_Selection_0 (slot n in byte n: id [4:0], master [5];
core/shim 0x3FF00, memtile 0xB0F00). The table itself is pinned against two printed
vectors: mlir-aie test1's 0x121 (core DMA 0 S2MM, DMA 0 MM2S) and the memtile selection
aiecc wrote into xdna-emu's traced add_one (iron/tests/data/corpus/SOURCES.md).
"""

from __future__ import annotations

import re

import pytest

from iron.errors import OptionError
from iron.fuse.fusion import fuse
from iron.options import resolve
from iron.target import stream_switch
from iron.tests.test_trace_configs import PLAIN, instr_event_0, traced_run, writes
from iron.tests.golden import DATA

SELECT0 = 0x3FF00  # core and shim
MEMTILE_SELECT0 = 0xB0F00
PORTS = "core=0:North:1:S2MM,1:DMA:0:MM2S;shim=0:South:3:MM2S"
EVENTS = "core=INSTR_EVENT_0,PORT_RUNNING_0,PORT_RUNNING_1;shim=PORT_RUNNING_0"
CORPUS = DATA / "corpus"


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("cache")


# --------------------------------------------------------------------------- table vs upstream vectors
def test_table_gives_mlir_aie_test1_selection():
    """test1 (aie.mlir, 0x3FF00 = 289): slot 0 DMA 0 master id 1, slot 1 DMA 0 slave id 1."""
    text = (DATA / "mlir-aie-test1" / "aie.mlir").read_text()
    value = int(
        re.search(r"address = 261888 : ui32, column = 0 : i32, row = 2 : i32, value = (\d+)", text)[1]
    )
    ours = stream_switch.port_index("core", "DMA", 0, True) | 0x20
    ours |= stream_switch.port_index("core", "DMA", 0, False) << 8
    assert value == 289 == ours


def test_table_reads_aiecc_memtile_selection():
    """aiecc's memtile selection in xdna-emu's traced add_one: slots 2..7 watch slave ports
    0..5, slot 0 master port 0. By the table these are the memtile's six DMA MM2S
    channels and its DMA 0 S2MM, so the memtile DMA bundle starts at 0 on both sides."""
    text = (CORPUS / "xdna-emu__aie_traced.mlir.prj__input_with_addresses.mlir").read_text()
    sel = [
        int(v)
        for v in re.findall(
            r"address = (?:724736|724740) : ui32, column = 0 : i32, row = 1 : i32, value = (\d+)", text
        )
    ]
    fields = [(w >> (8 * i)) & 0x3F for w in sel for i in range(4)]
    assert fields[0] == stream_switch.port_index("memtile", "DMA", 0, True) | 0x20
    assert fields[2:] == [stream_switch.port_index("memtile", "DMA", ch, False) for ch in range(6)]


def test_table_rejects_ports_the_tile_lacks():
    assert stream_switch.port_index("core", "North", 5, True) == 18  # 6 master North ports
    with pytest.raises(Exception, match="a core tile has no slave port North 4"):
        stream_switch.port_index("core", "North", 4, False)  # 4 slave North ports
    with pytest.raises(Exception, match="a memtile tile has no master port East 0"):
        stream_switch.port_index("memtile", "East", 0, True)


# --------------------------------------------------------------------------- options
def test_ports_option_forms_and_key():
    want = (("core", 0, "North", 1, True), ("core", 1, "DMA", 0, False), ("shim", 0, "South", 3, False))
    assert resolve(True, ports=PORTS, events=EVENTS, env={}).ports == want
    env = {"IRON_TRACE_PORTS": PORTS, "IRON_TRACE_EVENTS": EVENTS}
    assert resolve(True, env=env).ports == want
    mapping = {"core": {1: ("dma", 0, "slave"), 0: ("NORTH", 1, "master")}, "shim": {0: ("South", 3, "MM2S")}}
    opts = resolve(True, ports=mapping, events=EVENTS, env={})
    assert opts.ports == want
    assert opts.key()["ports"] == [
        ["core", 0, "North", 1, "S2MM"],
        ["core", 1, "DMA", 0, "MM2S"],
        ["shim", 0, "South", 3, "MM2S"],
    ]
    assert "ports" not in resolve(True, env={}).key()  # keys of builds without it stay as they were


@pytest.mark.parametrize(
    "value, needle",
    [
        ("0:North:4:MM2S", "trace_ports='0:North:4:MM2S': a core tile has no slave port North 4"),
        ("8:DMA:0:S2MM", "slot 8 out of range"),
        ("0:Up:0:S2MM", "cannot read Up:0:S2MM"),
        ("0:DMA:0:sideways", "cannot read DMA:0:sideways"),
        ("mem=0:DMA:0:S2MM", "unit kind 'mem' has no port selection"),
        ("memtile=0:DMA:0:S2MM", "selects ports for memtile unit(s) but no events for that kind"),
        ("0:DMA:0:S2MM,0:DMA:1:S2MM", "core slot 0 given twice"),
        ("0-DMA", "cannot read '0-DMA'"),
    ],
)
def test_bad_ports_name_the_option(value, needle):
    with pytest.raises(OptionError) as err:
        resolve(True, ports=value, env={})
    assert needle in str(err.value)
    with pytest.raises(OptionError, match="IRON_TRACE_PORTS"):
        resolve(True, env={"IRON_TRACE_PORTS": value})


# --------------------------------------------------------------------------- end to end on sim
def test_port_selection_registers_manifest_and_decode(cache):
    opts = resolve(True, size=8192, ports=PORTS, events=EVENTS, env={})
    fm = fuse(PLAIN, "npu2", opts)
    w = {(c, r, off): v for c, r, off, v in writes(fm, fm.call_sites[0].device)}
    # By hand: North 1 master = 13 + 1 = 14 | 0x20; DMA 0 slave = 1 in byte 1.
    assert w[0, 2, SELECT0] == 0x012E and w[0, 2, SELECT0 + 4] == 0
    # Drain shim: slot 0 South 3 slave = 2 + 3 = 5.
    assert w[0, 0, SELECT0] == 0x05
    units = {u.kind: u for u in fm.manifest.slices[0].units}
    assert units["core"].ports == [[0, "North", 1, "S2MM"], [1, "DMA", 0, "MM2S"]]
    assert units["shim"].ports == [[0, "South", 3, "MM2S"]]

    art, trace = traced_run(cache, trace_ports=PORTS, events=EVENTS)
    assert art.manifest.slices[0].units[0].ports == units["core"].ports
    for s in trace.slices:
        assert s.status == "ok"
        core = next(u for u in s.units if u.kind == "core")
        assert instr_event_0(core) == 2
        _t, masks = core.runs.expand()
        assert ((masks >> core.events.index("PORT_RUNNING_0")) & 1).any()


def test_default_ports_unchanged(cache):
    """Without trace_ports, a core's PORT_RUNNING_0/1 keep test1's 0x121, a memtile's
    PORT_RUNNING_0 its DMA 0 master (0x20), and a shim writes no selection."""
    events = "core=PORT_RUNNING_0,PORT_RUNNING_1;memtile=PORT_RUNNING_0;shim=PORT_RUNNING_0"
    units = "core(0,2),memtile(0,1),shim(0,0)"
    fm = fuse(PLAIN, "npu2", resolve(True, size=8192, events=events, units=units, env={}))
    w = {(c, r, off): v for c, r, off, v in writes(fm, fm.call_sites[0].device)}
    assert w[0, 2, SELECT0] == 0x121 and w[0, 1, MEMTILE_SELECT0] == 0x20
    assert (0, 0, SELECT0) not in w
    assert {u.kind: u.ports for u in fm.manifest.slices[0].units}["shim"] == []


# --------------------------------------------------------------------------- declarative aie.trace.port
def _check_dag_ports(text: str) -> list[list]:
    """``[slot, bundle, channel, direction]`` from -aie-trace-to-config's CHECK-DAG fields
    (``Port_<n>_ID = "Bundle:channel"``, ``Port_<n>_Master_Slave = 1`` for a master/S2MM)."""
    ids = dict(re.findall(r'field = "Port_(\d)_ID" value = "(\w+:\d+)"', text))
    masters = dict(re.findall(r'field = "Port_(\d)_Master_Slave" value = (\d)', text))
    out = []
    for slot in sorted(ids):
        bundle, channel = ids[slot].split(":")
        out.append([int(slot), bundle, int(channel), "S2MM" if masters[slot] == "1" else "MM2S"])
    return out


def test_declarative_port_ops_are_read_into_units():
    """test_trace_port_to_config.mlir: the ports its CHECK-DAG lines give, and its start/stop
    events; test_trace_port_parse.mlir: three slots, S2MM and MM2S, no packet op."""
    from iron.instrument.declarative import declared_units
    from iron.mlir.reader import parse

    text = (CORPUS / "mlir-aie__test__dialect__AIE__trace__test_trace_port_to_config.mlir").read_text()
    (unit,) = declared_units(parse(text).devices[0])
    want = _check_dag_ports(text)
    assert want == [[0, "North", 1, "S2MM"], [1, "DMA", 0, "MM2S"]]  # what the regex read, by eye
    assert unit.ports == want
    start = int(re.search(r'"Trace_Start_Event" value = (\d+)', text)[1])
    stop = int(re.search(r'"Trace_Stop_Event" value = (\d+)', text)[1])
    assert (unit.start_event, unit.stop_event) == (start, stop) == (122, 121)

    text = (CORPUS / "mlir-aie__test__dialect__AIE__trace__test_trace_port_parse.mlir").read_text()
    (unit,) = declared_units(parse(text).devices[0])
    printed = re.findall(
        r"CHECK: aie\.trace\.port<(\d)> port = (\w+) channel = (\d+) direction = (\w+)", text
    )
    assert unit.ports == [[int(s), b, int(c), d] for s, b, c, d in printed]
    assert len(unit.ports) == 3 and unit.kind == "core"


@pytest.mark.parametrize(
    "op, needle",
    [
        ("aie.trace.port<0> port=North channel=4 direction=MM2S", "a core tile has no slave port North 4"),
        ("aie.trace.port<8> port=DMA channel=0 direction=S2MM", "slot 8; accepted: 0 to 7"),
        ("aie.trace.port<0> port=Up channel=0 direction=S2MM", "expected port = BUNDLE channel = N"),
        ("aie.trace.port<0> port=DMA channel=0 master=true\n      aie.trace.port<0> port=DMA channel=1 "
         "direction=S2MM", "port slot 0 is selected twice"),
    ],
)  # fmt: skip
def test_declarative_port_errors_name_the_op(op, needle):
    from iron.instrument.declarative import DeclarativeTraceError, declared_units
    from iron.mlir.reader import parse

    text = (
        "module {\n  aie.device(npu1_1col) {\n    %t = aie.tile(0, 2)\n    aie.trace @p(%t) {\n"
        f"      {op}\n    }}\n    aie.runtime_sequence @s() {{\n    }}\n  }}\n}}\n"
    )
    with pytest.raises(DeclarativeTraceError, match="aie.trace @p: .*" + re.escape(needle)):
        declared_units(parse(text).devices[0])


def test_declarative_master_spelling():
    """Older lit tests (test_trace_port_verify.mlir's first version) write ``master = true|false``."""
    from iron.instrument.declarative import parse_trace_op
    from iron.mlir import ir

    text = "aie.trace @p(%t) {\n  aie.trace.port<1> port=DMA channel=0 master=false\n}"
    unit = parse_trace_op(text, {"t": ir.Tile("t", 0, 2)})
    assert unit.ports == [[1, "DMA", 0, "MM2S"]]
