module {
  aie.device(npu2) {
    %tile_0_2 = aie.tile(0, 2)
    %buffer_0_2 = aie.buffer(%tile_0_2) : memref<256xbf16> 
    %buffer_0_2_0 = aie.buffer(%tile_0_2) : memref<256xbf16> 
    %buffer_0_2_1 = aie.buffer(%tile_0_2) : memref<4x8xi32> 
    %core_0_2 = aie.core(%tile_0_2) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c16 = arith.constant 16 : index
      %cst = arith.constant 0.000000e+00 : bf16
      %c0_i32 = arith.constant 0 : i32
      memref.copy %buffer_0_2, %buffer_0_2_0 : memref<256xbf16> to memref<256xbf16>
      %subview = memref.subview %buffer_0_2_1[1, 2] [2, 4] [1, 1] : memref<4x8xi32> to memref<2x4xi32, strided<[8, 1], offset: 10>>
      %subview_2 = memref.subview %buffer_0_2_1[%c1, 0] [1, 8] [1, 1] : memref<4x8xi32> to memref<1x8xi32, strided<[8, 1], offset: ?>>
      %0 = vector.transfer_read %buffer_0_2[%c0], %cst {in_bounds = [true]} : memref<256xbf16>, vector<16xbf16>
      %1 = vector.transfer_read %buffer_0_2_1[%c0, %c1], %c0_i32 : memref<4x8xi32>, vector<8xi32>
      vector.transfer_write %0, %buffer_0_2_0[%c16] {in_bounds = [true]} : vector<16xbf16>, memref<256xbf16>
      vector.transfer_write %1, %buffer_0_2_1[%c1, %c0] : vector<8xi32>, memref<4x8xi32>
      %2 = vector.broadcast %c0_i32 : i32 to vector<8xi32>
      %3 = vector.extract %1[3] : i32 from vector<8xi32>
      %4 = vector.extract %1[%c1] : i32 from vector<8xi32>
      %5 = vector.insert %3, %1 [5] : i32 into vector<8xi32>
      %6 = arith.extf %0 : vector<16xbf16> to vector<16xf32>
      %7 = vector.fma %6, %6, %6 : vector<16xf32>
      %8 = vector.reduction <add>, %1 : vector<8xi32> into i32
      %9 = vector.reduction <maxsi>, %1, %c0_i32 : vector<8xi32> into i32
      %10 = vector.reduction <add>, %6 fastmath<fast> : vector<16xf32> into f32
      %11 = math.exp %6 : vector<16xf32>
      %12 = math.tanh %6 : vector<16xf32>
      %13 = math.sqrt %6 fastmath<fast> : vector<16xf32>
      %14 = math.rsqrt %6 : vector<16xf32>
      %15 = arith.negf %6 : vector<16xf32>
      %16 = arith.truncf %6 : vector<16xf32> to vector<16xbf16>
      %17 = arith.sitofp %1 : vector<8xi32> to vector<8xf32>
      %18 = arith.fptosi %17 : vector<8xf32> to vector<8xi32>
      %19 = arith.addi %1, %18 : vector<8xi32>
      %20 = scf.while (%arg0 = %c0_i32) : (i32) -> i32 {
        %23 = arith.cmpi slt, %arg0, %3 : i32
        scf.condition(%23) %arg0 : i32
      } do {
      ^bb0(%arg0: i32):
        %23 = arith.addi %arg0, %3 : i32
        scf.yield %23 : i32
      }
      cf.br ^bb1(%c0_i32 : i32)
    ^bb1(%21: i32):  // 2 preds: ^bb0, ^bb2
      %22 = arith.cmpi slt, %21, %3 : i32
      cf.cond_br %22, ^bb2, ^bb3
    ^bb2:  // pred: ^bb1
      cf.br ^bb1(%3 : i32)
    ^bb3:  // pred: ^bb1
      aie.end
    }
  }
}

