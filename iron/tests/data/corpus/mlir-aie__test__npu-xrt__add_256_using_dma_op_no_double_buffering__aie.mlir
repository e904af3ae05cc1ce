//===- aie.mlir ------------------------------------------------*- MLIR -*-===//
//
// Copyright (C) 2022-2024 Advanced Micro Devices, Inc.
// Copyright (C) 2020-2022 Xilinx, Inc.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

module {
  aie.device(NPUDEVICE) {
    %tile_0_0 = aie.tile(0, 0)
    %tile_0_1 = aie.tile(0, 1)
    %tile_0_2 = aie.tile(0, 2)

    %buffer_0_2 = aie.buffer(%tile_0_2) : memref<16xi32>
    %buffer_0_2_1 = aie.buffer(%tile_0_2) : memref<16xi32>

    %lock_0_2_0 = aie.lock(%tile_0_2, 0) {init = 1 : i32}
    %lock_0_2_1 = aie.lock(%tile_0_2, 1) {init = 0 : i32}
    %lock_0_2_2 = aie.lock(%tile_0_2, 2) {init = 1 : i32}
    %lock_0_2_3 = aie.lock(%tile_0_2, 3) {init = 0 : i32}

    // forward
    aie.flow(%tile_0_0, DMA : 0, %tile_0_1, DMA : 0)
    aie.flow(%tile_0_1, DMA : 0, %tile_0_2, DMA : 0)
    // backward
    aie.flow(%tile_0_2, DMA : 0, %tile_0_1, DMA : 1)
    aie.flow(%tile_0_1, DMA : 1, %tile_0_0, DMA : 0)

    %core_0_2 = aie.core(%tile_0_2) {
      // aie-core-to-standard somehow erases this if it's outside
      // the core op
      %c256_i32 = arith.constant 256 : i32
      affine.for %arg0 = 0 to 4 step 1 {
        %c1_ul0 = arith.constant 1 : i32
        aie.use_lock(%lock_0_2_1, AcquireGreaterEqual, %c1_ul0)
        %c1_ul1 = arith.constant 1 : i32
        aie.use_lock(%lock_0_2_2, AcquireGreaterEqual, %c1_ul1)
        affine.for %arg1 = 0 to 16 step 1 {
          %0 = memref.load %buffer_0_2[%arg1] : memref<16xi32>
          %1 = arith.addi %0, %c256_i32: i32
          memref.store %1, %buffer_0_2_1[%arg1] : memref<16xi32>
        }
        %c1_ul2 = arith.constant 1 : i32
        aie.use_lock(%lock_0_2_0, Release, %c1_ul2)
        %c1_ul3 = arith.constant 1 : i32
        aie.use_lock(%lock_0_2_3, Release, %c1_ul3)
      }
      aie.end
    }

    %memtile_dma_0_1 = aie.memtile_dma(%tile_0_1) {
      %buffer_0_1 = aie.buffer(%tile_0_1) : memref<16xi32>
      %buffer_0_1_0 = aie.buffer(%tile_0_1) : memref<16xi32>
      %lock_0_1_0 = aie.lock(%tile_0_1, 0) {init = 1 : i32}
      %lock_0_1_1 = aie.lock(%tile_0_1, 1) {init = 0 : i32}
      %lock_0_1_2 = aie.lock(%tile_0_1, 2) {init = 1 : i32}
      %lock_0_1_3 = aie.lock(%tile_0_1, 3) {init = 0 : i32}

      // forward
      %0 = aie.dma(S2MM, 0) [{
        %c1_ul4 = arith.constant 1 : i32
        aie.use_lock(%lock_0_1_0, AcquireGreaterEqual, %c1_ul4)
        aie.dma_bd(%buffer_0_1 : memref<16xi32>)
        %c1_ul5 = arith.constant 1 : i32
        aie.use_lock(%lock_0_1_1, Release, %c1_ul5)
      }]
      %1 = aie.dma(MM2S, 0) [{
        %c1_ul6 = arith.constant 1 : i32
        aie.use_lock(%lock_0_1_1, AcquireGreaterEqual, %c1_ul6)
        aie.dma_bd(%buffer_0_1 : memref<16xi32>)
        %c1_ul7 = arith.constant 1 : i32
        aie.use_lock(%lock_0_1_0, Release, %c1_ul7)
      }]
      // backward
      %2 = aie.dma(S2MM, 1) [{
        %c1_ul8 = arith.constant 1 : i32
        aie.use_lock(%lock_0_1_2, AcquireGreaterEqual, %c1_ul8)
        aie.dma_bd(%buffer_0_1_0 : memref<16xi32>)
        %c1_ul9 = arith.constant 1 : i32
        aie.use_lock(%lock_0_1_3, Release, %c1_ul9)
      }]
      %3 = aie.dma(MM2S, 1) [{
        %c1_ul10 = arith.constant 1 : i32
        aie.use_lock(%lock_0_1_3, AcquireGreaterEqual, %c1_ul10)
        aie.dma_bd(%buffer_0_1_0 : memref<16xi32>)
        %c1_ul11 = arith.constant 1 : i32
        aie.use_lock(%lock_0_1_2, Release, %c1_ul11)
      }]
      aie.end
    }
    // streaming interface synchronizes these two tiles
    %mem_0_2 = aie.mem(%tile_0_2) {
     // in
      %0 = aie.dma(S2MM, 0) [{
        %c1_ul12 = arith.constant 1 : i32
        aie.use_lock(%lock_0_2_0, AcquireGreaterEqual, %c1_ul12)
        aie.dma_bd(%buffer_0_2 : memref<16xi32>)
        %c1_ul13 = arith.constant 1 : i32
        aie.use_lock(%lock_0_2_1, Release, %c1_ul13)
      }]
      // out
      %1 = aie.dma(MM2S, 0) [{
        %c1_ul14 = arith.constant 1 : i32
        aie.use_lock(%lock_0_2_3, AcquireGreaterEqual, %c1_ul14)
        aie.dma_bd(%buffer_0_2_1 : memref<16xi32>)
        %c1_ul15 = arith.constant 1 : i32
        aie.use_lock(%lock_0_2_2, Release, %c1_ul15)
      }]
      aie.end
    }

    aie.shim_dma_allocation @data_in (%tile_0_0, MM2S, 0)
    aie.shim_dma_allocation @data_out (%tile_0_0, S2MM, 0)
    aie.runtime_sequence(%arg0: memref<64xi32>, %arg1: memref<32xi32>, %arg2: memref<64xi32>) {
      aiex.npu.dma_memcpy_nd (%arg0[0, 0, 0, 0][1, 1, 1, 64][0, 0, 0, 1]) {id = 0 : i64, metadata = @data_in} : memref<64xi32>
      aiex.npu.dma_memcpy_nd (%arg2[0, 0, 0, 0][1, 1, 1, 64][0, 0, 0, 1]) {id = 1 : i64, metadata = @data_out, issue_token = true} : memref<64xi32>
      aiex.npu.dma_wait {symbol = @data_out}
    }
  }
}
