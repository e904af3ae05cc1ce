"""Designs that reach outside their device (tiles, flows, trace units) are refused before the
cache, naming what is wrong.
"""

from __future__ import annotations

import pytest

import iron
from iron.mlir.check import DesignCheckError
from iron.tests.test_integer_literals_and_encodings import _design  # noqa: F401

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
