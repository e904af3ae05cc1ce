"""Trace event tables (iron.target.events) against mlir-aie's numbers and names."""

import json

import pytest

from iron.errors import IronError
from iron.target import events as ev
from iron.tests.golden import TEST1

GOLDEN = TEST1 / "expected.json"


@pytest.mark.parametrize(
    "kind,name,eid",
    [
        ("core", "MEMORY_STALL", 23),
        ("core", "STREAM_STALL", 24),
        ("core", "LOCK_STALL", 26),
        ("core", "INSTR_EVENT_0", 33),
        ("core", "INSTR_EVENT_1", 34),
        ("core", "INSTR_VECTOR", 37),
        ("core", "INSTR_LOCK_ACQUIRE_REQ", 44),
        ("core", "PORT_RUNNING_0", 75),
        ("core", "PORT_RUNNING_1", 79),
        ("core", "PORT_TLAST_7", 105),
        ("core", "BROADCAST_14", 121),
        ("core", "BROADCAST_15", 122),
        ("core", "USER_EVENT_0", 124),
        ("core", "DECOMPRESSION_UNDERFLOW", 70),
        # mem names as in mlir-aie test/parse-trace/test2/golden_json.txt
        ("mem", "DM_PARITY_ERROR_BANK_4", 93),
        ("mem", "DMA_MM2S_0_START_TASK", 21),
        ("mem", "DMA_S2MM_1_START_TASK", 20),
        ("mem", "DMA_MM2S_1_START_TASK", 22),
        ("mem", "LOCK_3_REL", 58),
        ("mem", "DMA_MM2S_0_MEMORY_STARVATION", 41),
        ("mem", "LOCK_SEL0_ACQ_GE", 45),
        ("mem", "LOCK_SEL1_ACQ_EQ", 48),
        ("mem", "DMA_TASK_TOKEN_STALL", 102),
        ("shim", "USER_EVENT_0", 126),
        ("shim", "USER_EVENT_1", 127),
        ("shim", "BROADCAST_A_15", 125),
        ("shim", "DMA_S2MM_1_START_TASK", 15),
        ("shim", "PORT_IDLE_0", 77),
        ("shim", "LOCK_5_EQUAL_TO_VALUE", 62),
        ("memtile", "PORT_IDLE_0", 79),
        ("memtile", "CONFLICT_DM_BANK_15", 127),
        ("memtile", "BROADCAST_0", 142),
        ("memtile", "BROADCAST_15", 157),
        ("memtile", "USER_EVENT_1", 160),
    ],
)
def test_known_ids(kind, name, eid):
    assert ev.event_id(kind, name) == eid
    assert ev.event_name(kind, eid) == name


def test_table_sizes_match_database():
    # entry counts of the "aie2" sections of events_database.json
    sizes = {k: len(ev.event_table(k)) for k in ev.MODULE_KINDS}
    assert sizes == {"core": 127, "mem": 122, "shim": 128, "memtile": 161}
    assert "54" not in ev.event_table("core") and ev.event_name("core", 54) == "Unknown"


def test_packet_types():
    assert ev.MODULE_KINDS == ("core", "mem", "shim", "memtile")
    assert ev.PACKET_TYPE == {"core": 0, "mem": 1, "shim": 2, "memtile": 3}


def test_golden_thread_names():
    # test1 Trace_Event0/1 = 0x4B252221 / 0x1A2D2C4F, slot 0 in the low byte
    slots = [(0x4B252221 >> 8 * i) & 0xFF for i in range(4)]
    slots += [(0x1A2D2C4F >> 8 * i) & 0xFF for i in range(4)]
    golden = json.loads(GOLDEN.read_text())
    threads = {e["tid"]: e["args"]["name"] for e in golden if e["name"] == "thread_name"}
    assert [ev.event_name("core", s) for s in slots] == [threads[t] for t in range(8)]


def test_unknown_id_is_named_like_mlir_aie():
    assert ev.event_name("mem", 85) == "Unknown"
    assert ev.event_name("memtile", 200) == "Unknown"


def test_aie2p_differs_only_at_core_70():
    for kind in ev.MODULE_KINDS:
        a, b = ev.event_table(kind), ev.event_table(kind, arch="aie2p")
        diff = set(a.items()) ^ set(b.items())
        expected = {("DECOMPRESSION_UNDERFLOW", 70), ("SPARSITY_OVERFLOW", 70)}
        assert diff == (expected if kind == "core" else set())
    assert ev.event_name("core", 70, arch="aie2p") == "SPARSITY_OVERFLOW"


def test_broadcast_and_user_events():
    assert [ev.broadcast_event(k, 15) for k in ev.MODULE_KINDS] == [122, 122, 125, 157]
    assert [ev.broadcast_event(k, 14) for k in ev.MODULE_KINDS] == [121, 121, 124, 156]
    assert [ev.user_event(k, 0) for k in ev.MODULE_KINDS] == [124, 124, 126, 159]
    assert ev.user_event("core", 3) == 127
    with pytest.raises(IronError, match="USER_EVENT_0..1"):
        ev.user_event("shim", 2)
    with pytest.raises(IronError, match="0..15"):
        ev.broadcast_event("core", 16)


def test_errors():
    with pytest.raises(IronError) as info:
        ev.event_id("core", "INSTR_EVENT0")
    msg = str(info.value)
    assert "'core'" in msg and "INSTR_EVENT0" in msg and "event_table('core')" in msg
    assert "INSTR_EVENT_0" in msg  # close match suggested
    assert len(msg) < 300
    with pytest.raises(IronError, match="module kind"):
        ev.event_id("pl", "TRUE")
    with pytest.raises(IronError, match="architecture"):
        ev.event_table("core", arch="aie1")


def test_table_is_read_only():
    with pytest.raises(TypeError):
        ev.event_table("core")["NEW"] = 1


def test_stall_events_are_stall_states_not_port_or_dma_lock_events():
    """The summary's stall cycles: the modules' ``*_STALL`` states. A port's backpressure
    (``PORT_STALLED_<n>``) and a DMA channel waiting on a lock (``*_STALLED_LOCK``) are other
    categories (names from mlir-aie's event enums, iron/target/events.py)."""
    from iron.target.events import event_table, is_stall

    core = {n for n in event_table("core") if is_stall(n)}
    assert {"MEMORY_STALL", "STREAM_STALL", "LOCK_STALL", "CASCADE_STALL"} <= core
    assert not any(is_stall(n) for n in ("PORT_STALLED_0", "PORT_STALLED_7", "DMA_S2MM_0_STALLED_LOCK"))
    assert not any(is_stall(n) for n in event_table("memtile") if "STALLED" in n)
