// Trace configuration of FIM43-Redeye/xdna-emu tools/trace_decoder/fixtures/mode1_mixed_r0.bin
// (written for iron's tests; see SOURCES.md): core (col 1, row 2) in EVENT_PC mode, packet
// id 2; memtile (col 1, row 1) in event-time mode, packet id 1 (the ids in the capture's
// packet headers). write32 form of mlir-aie test/python/test_trace_mode1_decode.py.
module {
  aie.device(npu1) {
    aie.runtime_sequence @sequence() {
      %c_ctl0 = arith.constant 213200 : i32
      %v_ctl0 = arith.constant 2038038529 : i32
      aiex.npu.write32(%c_ctl0, %v_ctl0) {column = 1 : i32, row = 2 : i32} : i32, i32
      %c_ctl1 = arith.constant 213204 : i32
      %v_ctl1 = arith.constant 2 : i32
      aiex.npu.write32(%c_ctl1, %v_ctl1) {column = 1 : i32, row = 2 : i32} : i32, i32
      %c_ev0 = arith.constant 213216 : i32
      %v_ev0 = arith.constant 1260724769 : i32
      aiex.npu.write32(%c_ev0, %v_ev0) {column = 1 : i32, row = 2 : i32} : i32, i32
      %c_ev1 = arith.constant 213220 : i32
      %v_ev1 = arith.constant 439168079 : i32
      aiex.npu.write32(%c_ev1, %v_ev1) {column = 1 : i32, row = 2 : i32} : i32, i32
      %m_ctl0 = arith.constant 606416 : i32
      %w_ctl0 = arith.constant 2627534848 : i32
      aiex.npu.write32(%m_ctl0, %w_ctl0) {column = 1 : i32, row = 1 : i32} : i32, i32
      %m_ctl1 = arith.constant 606420 : i32
      %w_ctl1 = arith.constant 12289 : i32
      aiex.npu.write32(%m_ctl1, %w_ctl1) {column = 1 : i32, row = 1 : i32} : i32, i32
      %m_ev0 = arith.constant 606432 : i32
      %w_ev0 = arith.constant 1549292624 : i32
      aiex.npu.write32(%m_ev0, %w_ev0) {column = 1 : i32, row = 1 : i32} : i32, i32
      %m_ev1 = arith.constant 606436 : i32
      %w_ev1 = arith.constant 808326933 : i32
      aiex.npu.write32(%m_ev1, %w_ev1) {column = 1 : i32, row = 1 : i32} : i32, i32
    }
  }
}
