//===- aie.mlir ------------------------------------------------*- MLIR -*-===//
//
// Copyright (C) 2024 Advanced Micro Devices, Inc.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

module {
  aie.device(NPUDEVICE) {
    %tile_0_0 = aie.tile(0, 0)
    %tile_0_2 = aie.tile(0, 2)

    %input_lock0 = aie.lock(%tile_0_2, 0) {init = 0 : i32, sym_name = "input_lock0"}
    %input_lock1 = aie.lock(%tile_0_2, 1) {init = 0 : i32, sym_name = "input_lock1"}

    %output_lock0 = aie.lock(%tile_0_2, 2) {init = 0 : i32, sym_name = "output_lock0"}
    %output_lock1 = aie.lock(%tile_0_2, 3) {init = 1 : i32, sym_name = "output_lock1"}

    %input_buffer = aie.buffer(%tile_0_2) {sym_name = "input_buffer"} : memref<8xi32>
    %output_buffer = aie.buffer(%tile_0_2) {sym_name = "output_buffer"} : memref<8xi32>

    aie.flow(%tile_0_2, DMA : 0, %tile_0_0, DMA : 0)

    %core_0_2 = aie.core(%tile_0_2) {
      %c0 = arith.constant 0 : index
      %c1_i32 = arith.constant 1 : i32
      %c3_i32 = arith.constant 926365495 : i32
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c4294967295 = arith.constant 4294967295 : index
      scf.for %arg0 = %c0 to %c4294967295 step %c1 {
        scf.for %arg1 = %c0 to %c8 step %c1 {
            memref.store %c3_i32, %input_buffer[%arg1] : memref<8xi32>
        }
        %c1_ul0 = arith.constant 1 : i32
        aie.use_lock(%input_lock0, AcquireGreaterEqual, %c1_ul0)
        %c1_ul1 = arith.constant 1 : i32
        aie.use_lock(%output_lock1, AcquireGreaterEqual, %c1_ul1)
        scf.for %arg1 = %c0 to %c8 step %c1 {
            %1 = memref.load %input_buffer[%arg1] : memref<8xi32>
            %2 = arith.addi %1, %c1_i32 : i32
            memref.store %2, %output_buffer[%arg1] : memref<8xi32>
        }
        %c1_ul2 = arith.constant 1 : i32
        aie.use_lock(%output_lock0, Release, %c1_ul2)
        %c1_ul3 = arith.constant 1 : i32
        aie.use_lock(%input_lock1, Release, %c1_ul3)
      }
      aie.end
    }

    %mem_0_2 = aie.mem(%tile_0_2) {
      %0 = aie.dma_start(MM2S, 0, ^bb1, ^bb2)
    ^bb1:
      %c1_ul4 = arith.constant 1 : i32
      aie.use_lock(%output_lock0, AcquireGreaterEqual, %c1_ul4)
      aie.dma_bd(%output_buffer : memref<8xi32>) { len = 8 : i32 }
      %c1_ul5 = arith.constant 1 : i32
      aie.use_lock(%output_lock1, Release, %c1_ul5)
      aie.next_bd ^bb1
    ^bb2:
      aie.end
    }

    aie.shim_dma_allocation @out0 (%tile_0_0, S2MM, 0)

    aie.runtime_sequence @seq(%arg0: memref<8xi32>) {
      %c0_i64 = arith.constant 0 : i64
      %c1_i64 = arith.constant 1 : i64
      %c8_i64 = arith.constant 8 : i64

      %cst_npu_0 = arith.constant 1024 : i32
      %cst_npu_1 = arith.constant 0x12345678 : i32
      %cst_npu_2 = arith.constant 0xF0F0F0F0 : i32
      aiex.npu.maskwrite32(%cst_npu_0, %cst_npu_1, %cst_npu_2) {column = 0 : i32, row = 2 : i32} : i32, i32, i32
      %cst_npu_3 = arith.constant 1 : i32
      %cst_npu_4 = arith.constant 0x9ABCDEF0 : i32
      %cst_npu_5 = arith.constant 0x0F0F0F0F : i32
      aiex.npu.maskwrite32(%cst_npu_3, %cst_npu_4, %cst_npu_5) {buffer = @input_buffer} : i32, i32, i32

      aiex.npu.dma_memcpy_nd(%arg0[%c0_i64, %c0_i64, %c0_i64, %c0_i64] [%c1_i64, %c1_i64, %c1_i64, %c8_i64] [%c0_i64, %c0_i64, %c0_i64, %c1_i64]) {id = 0 : i64, issue_token = true, metadata = @out0} : memref<8xi32>
      %cst_npu_6 = arith.constant 0x0001F000 : i32
      %cst_npu_7 = arith.constant 1 : i32
      aiex.npu.write32(%cst_npu_6, %cst_npu_7) {column = 0 : i32, row = 2 : i32} : i32, i32
      aiex.npu.dma_wait {symbol = @out0}
    }
  }
}
