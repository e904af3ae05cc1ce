"""Target geometry and the trace register table (docs/design.md section 4)."""

import pytest

from iron.errors import IronError
from iron.target import events, registers
from iron.tests.golden import TEST1_EVENTS
from iron.target.geometry import device_columns, get_target, target_for_device


def test_geometry():
    npu1, npu2 = get_target("npu1"), get_target("npu2")
    assert (npu1.max_columns, npu1.rows, npu1.dev_gen, npu1.column_offset) == (4, 6, 3, 1)
    assert (npu2.max_columns, npu2.rows, npu2.dev_gen, npu2.column_offset) == (8, 6, 4, 0)
    assert npu1.device_name(1) == "npu1_1col" and npu1.device_name(4) == "npu1"
    assert npu2.device_name(3) == "npu2_3col"
    assert list(npu2.compute_rows) == [2, 3, 4, 5]
    assert device_columns("npu2_4col") == 4 and device_columns("npu1") == 4
    assert target_for_device("npu1_2col") is npu1
    with pytest.raises(IronError, match="npu1 has 4 columns"):
        npu1.device_name(5)
    with pytest.raises(IronError, match="unknown target 'npu3'"):
        get_target("npu3")


def test_addresses():
    assert registers.tile_address(0, 2, 0x340D0) == (2 << 20) | 213200
    assert registers.tile_address(1, 0, 0x1D1E4) == (1 << 25) | 0x1D1E4
    assert registers.split_address((3 << 25) | (5 << 20) | 0x340E0) == (3, 5, 0x340E0)


def test_golden_core_register_values():
    """mlir-aie test/parse-trace/test1/aie.mlir, core tile (0, 2)."""
    core = registers.TRACE_REGISTERS["core"]
    assert (core.trace_control0, core.trace_control1, core.trace_event0, core.trace_event1) == (
        213200,
        213204,
        213216,
        213220,
    )
    assert (core.port_select0, core.port_select1, core.timer_control) == (261888, 261892, 212992)
    start, stop = events.broadcast_event("core", 15), events.broadcast_event("core", 14)
    assert registers.trace_control0(start, stop) == 0x797A0000 == 2038038528
    assert registers.trace_control1(0, 1) == 1
    names = TEST1_EVENTS
    ids = [events.event_id("core", n) for n in names]
    assert registers.trace_events(ids) == (0x4B252221, 0x1A2D2C4F) == (1260724769, 439168079)
    assert registers.unpack_trace_events(0x4B252221, 0x1A2D2C4F) == ids
    assert registers.port_selection([(1, True), (1, False)]) == (0x121, 0)
    assert registers.timer_control(start) == 0x7A00 == 31232
    shim = registers.TRACE_REGISTERS["shim"]
    assert shim.event_broadcast(15) == 213068 and shim.event_broadcast(14) == 213064
    assert shim.event_generate == 213000
    assert registers.timer_control(events.user_event("shim", 1)) == 32512


def test_field_ranges():
    with pytest.raises(IronError):
        registers.trace_control0(128, 0)
    with pytest.raises(IronError):
        registers.trace_control1(0, 32)
    with pytest.raises(IronError):
        registers.trace_events([1] * 9)
    assert registers.unpack_trace_control0(0x797A0000) == {"mode": 0, "start": 122, "stop": 121}
    assert registers.unpack_trace_control1(0x1002) == {"packet_type": 1, "packet_id": 2}
