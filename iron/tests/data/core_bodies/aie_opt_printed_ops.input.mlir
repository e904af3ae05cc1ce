module {
  aie.device(npu2) {
    %t = aie.tile(0, 2)
    %a = aie.buffer(%t) : memref<256xbf16>
    %b = aie.buffer(%t) : memref<256xbf16>
    %m = aie.buffer(%t) : memref<4x8xi32>
    %core = aie.core(%t) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c16 = arith.constant 16 : index
      %cst = arith.constant 0.0 : bf16
      %z = arith.constant 0 : i32
      memref.copy %a, %b : memref<256xbf16> to memref<256xbf16>
      %sv = memref.subview %m[1, 2] [2, 4] [1, 1] : memref<4x8xi32> to memref<2x4xi32, strided<[8, 1], offset: 10>>
      %sv2 = memref.subview %m[%c1, 0] [1, 8] [1, 1] : memref<4x8xi32> to memref<1x8xi32, strided<[8, 1], offset: ?>>
      %r = vector.transfer_read %a[%c0], %cst {in_bounds = [true]} : memref<256xbf16>, vector<16xbf16>
      %r2 = vector.transfer_read %m[%c0, %c1], %z : memref<4x8xi32>, vector<8xi32>
      vector.transfer_write %r, %b[%c16] {in_bounds = [true]} : vector<16xbf16>, memref<256xbf16>
      vector.transfer_write %r2, %m[%c1, %c0] : vector<8xi32>, memref<4x8xi32>
      %bc = vector.broadcast %z : i32 to vector<8xi32>
      %e = vector.extract %r2[3] : i32 from vector<8xi32>
      %e2 = vector.extract %r2[%c1] : i32 from vector<8xi32>
      %ins = vector.insert %e, %r2 [5] : i32 into vector<8xi32>
      %f = arith.extf %r : vector<16xbf16> to vector<16xf32>
      %fma = vector.fma %f, %f, %f : vector<16xf32>
      %red = vector.reduction <add>, %r2 : vector<8xi32> into i32
      %red2 = vector.reduction <maxsi>, %r2, %z : vector<8xi32> into i32
      %redf = vector.reduction <add>, %f fastmath<fast> : vector<16xf32> into f32
      %ex = math.exp %f : vector<16xf32>
      %th = math.tanh %f : vector<16xf32>
      %sq = math.sqrt %f fastmath<fast> : vector<16xf32>
      %rs = math.rsqrt %f : vector<16xf32>
      %ng = arith.negf %f : vector<16xf32>
      %tr = arith.truncf %f : vector<16xf32> to vector<16xbf16>
      %si = arith.sitofp %r2 : vector<8xi32> to vector<8xf32>
      %fi = arith.fptosi %si : vector<8xf32> to vector<8xi32>
      %ad = arith.addi %r2, %fi : vector<8xi32>
      %res = scf.while (%arg1 = %z) : (i32) -> i32 {
        %cond = arith.cmpi slt, %arg1, %e : i32
        scf.condition(%cond) %arg1 : i32
      } do {
      ^bb0(%arg2: i32):
        %n = arith.addi %arg2, %e : i32
        scf.yield %n : i32
      }
      cf.br ^bb1(%z : i32)
    ^bb1(%x: i32):
      %cc = arith.cmpi slt, %x, %e : i32
      cf.cond_br %cc, ^bb2, ^bb3
    ^bb2:
      cf.br ^bb1(%e : i32)
    ^bb3:
      aie.end
    }
  }
}
