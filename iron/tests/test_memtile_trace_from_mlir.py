"""A memtile trace unit configured from MLIR keeps its event ids above 127 (events_database.json:
memtile BROADCAST_15 = 157, BROADCAST_14 = 156).
"""

from __future__ import annotations

from iron.trace import mlir_manifest as mlir_config

MEMTILE_MLIR = """module {
  aie.device(npu1_1col) {
    %t01 = aie.tile(0, 1)
    aie.runtime_sequence @seq(%a: memref<8xi32>) {
      aiex.npu.write32 {address = 1654992 : ui32, value = 2627534848 : ui32}
      aiex.npu.write32 {address = 1654996 : ui32, value = 12291 : ui32}
      aiex.npu.write32 {address = 1655008 : ui32, value = 428773 : ui32}
      aiex.npu.write32 {address = 1655012 : ui32, value = 0 : ui32}
    }
  }
}"""


def test_memtile_configuration_from_mlir_keeps_event_ids_above_127():
    text = MEMTILE_MLIR.replace(
        "428773", str(157 | 142 << 8 | 25 << 16)
    )  # BROADCAST_15, _0, SEL0_FINISHED_BD
    (unit,) = mlir_config.units_from_mlir(text)
    assert (unit.kind, unit.column, unit.row) == ("memtile", 0, 1)
    assert (unit.start_event, unit.stop_event) == (157, 156)
    assert (unit.packet_type, unit.packet_id) == (3, 3)
    assert unit.event_ids == [157, 142, 25, 0, 0, 0, 0, 0]
    assert unit.events[:3] == ["BROADCAST_15", "BROADCAST_0", "DMA_S2MM_SEL0_FINISHED_BD"]
