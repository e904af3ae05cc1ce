// Reduced copy of Xilinx/mlir-aie test/parse-trace/test2/aie_test2.mlir (see SOURCES.md):
// objectfifos, the core body and the data-movement tasks are left out; the trace
// register writes are verbatim.
module {
  aie.device(npu1_1col) {
    %shim_noc_tile_0_0 = aie.tile(0, 0)
    %tile_0_2 = aie.tile(0, 2)
    aie.packet_flow(1) {
      aie.packet_source<%tile_0_2, Trace : 0>
      aie.packet_dest<%shim_noc_tile_0_0, DMA : 1>
    } {keep_pkt_header = true}
    aie.packet_flow(2) {
      aie.packet_source<%tile_0_2, Trace : 1>
      aie.packet_dest<%shim_noc_tile_0_0, DMA : 1>
    } {keep_pkt_header = true}
    aie.runtime_sequence @sequence(%arg0: memref<4096xi16>, %arg1: memref<1xi32>, %arg2: memref<4096xi16>) {
      %cst_npu_0 = arith.constant 213200 : i32
      %cst_npu_1 = arith.constant 2038038528 : i32
      aiex.npu.write32(%cst_npu_0, %cst_npu_1) {column = 0 : i32, row = 2 : i32} : i32, i32
      %cst_npu_2 = arith.constant 213204 : i32
      %cst_npu_3 = arith.constant 1 : i32
      aiex.npu.write32(%cst_npu_2, %cst_npu_3) {column = 0 : i32, row = 2 : i32} : i32, i32
      %cst_npu_4 = arith.constant 213216 : i32
      %cst_npu_5 = arith.constant 1260724762 : i32
      aiex.npu.write32(%cst_npu_4, %cst_npu_5) {column = 0 : i32, row = 2 : i32} : i32, i32
      %cst_npu_6 = arith.constant 213220 : i32
      %cst_npu_7 = arith.constant 556608591 : i32
      aiex.npu.write32(%cst_npu_6, %cst_npu_7) {column = 0 : i32, row = 2 : i32} : i32, i32
      %cst_npu_8 = arith.constant 261888 : i32
      %cst_npu_9 = arith.constant 289 : i32
      aiex.npu.write32(%cst_npu_8, %cst_npu_9) {column = 0 : i32, row = 2 : i32} : i32, i32
      %cst_npu_10 = arith.constant 261892 : i32
      %cst_npu_11 = arith.constant 0 : i32
      aiex.npu.write32(%cst_npu_10, %cst_npu_11) {column = 0 : i32, row = 2 : i32} : i32, i32
      %cst_npu_12 = arith.constant 212992 : i32
      %cst_npu_13 = arith.constant 31232 : i32
      aiex.npu.write32(%cst_npu_12, %cst_npu_13) {column = 0 : i32, row = 2 : i32} : i32, i32
      %cst_npu_14 = arith.constant 82128 : i32
      %cst_npu_15 = arith.constant 2038038528 : i32
      aiex.npu.write32(%cst_npu_14, %cst_npu_15) {column = 0 : i32, row = 2 : i32} : i32, i32
      %cst_npu_16 = arith.constant 82132 : i32
      %cst_npu_17 = arith.constant 4098 : i32
      aiex.npu.write32(%cst_npu_16, %cst_npu_17) {column = 0 : i32, row = 2 : i32} : i32, i32
      %cst_npu_18 = arith.constant 82144 : i32
      %cst_npu_19 = arith.constant 370414941 : i32
      aiex.npu.write32(%cst_npu_18, %cst_npu_19) {column = 0 : i32, row = 2 : i32} : i32, i32
      %cst_npu_20 = arith.constant 82148 : i32
      %cst_npu_21 = arith.constant 808266042 : i32
      aiex.npu.write32(%cst_npu_20, %cst_npu_21) {column = 0 : i32, row = 2 : i32} : i32, i32
      %cst_npu_22 = arith.constant 81920 : i32
      %cst_npu_23 = arith.constant 31232 : i32
      aiex.npu.write32(%cst_npu_22, %cst_npu_23) {column = 0 : i32, row = 2 : i32} : i32, i32
      %cst_npu_25 = arith.constant 119308 : i32
      %cst_npu_26 = arith.constant 15 : i32
      aiex.npu.write32(%cst_npu_25, %cst_npu_26) {column = 0 : i32, row = 0 : i32} : i32, i32
      %cst_npu_27 = arith.constant 212992 : i32
      %cst_npu_28 = arith.constant 32512 : i32
      aiex.npu.write32(%cst_npu_27, %cst_npu_28) {column = 0 : i32, row = 0 : i32} : i32, i32
      %cst_npu_29 = arith.constant 213068 : i32
      %cst_npu_30 = arith.constant 127 : i32
      aiex.npu.write32(%cst_npu_29, %cst_npu_30) {column = 0 : i32, row = 0 : i32} : i32, i32
      %cst_npu_31 = arith.constant 213000 : i32
      %cst_npu_32 = arith.constant 127 : i32
      aiex.npu.write32(%cst_npu_31, %cst_npu_32) {column = 0 : i32, row = 0 : i32} : i32, i32
      %cst_npu_33 = arith.constant 213064 : i32
      %cst_npu_34 = arith.constant 126 : i32
      aiex.npu.write32(%cst_npu_33, %cst_npu_34) {column = 0 : i32, row = 0 : i32} : i32, i32
      %cst_npu_35 = arith.constant 213000 : i32
      %cst_npu_36 = arith.constant 126 : i32
      aiex.npu.write32(%cst_npu_35, %cst_npu_36) {column = 0 : i32, row = 0 : i32} : i32, i32
    }
  }
}
