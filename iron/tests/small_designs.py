"""Small designs the hardening tests (issue 36) edit one value at a time: written here in the
syntax both iron and the real mlir-aie a9e39fae read (SSA lock values, ``offset = / len =`` BDs;
the core design uses today's acquire, which a9e39fae does not read, so it is run, not verified)."""

#: Two 1024-word objects pass one memtile buffer under a lock pair (iron/tests/test_tile_tasks.py's
#: THROUGH, in the syntax the real aie-opt a9e39fae reads: SSA lock values, ``offset = / len =``).
MEMTILE_THROUGH = """module {
  aie.device(npu1_1col) {
    %s = aie.tile(0, 0)
    %m = aie.tile(0, 1)
    %buf = aie.buffer(%m) {address = 4096 : i32} : memref<1024xi32>
    %prod = aie.lock(%m, 0) {init = 1 : i32}
    %cons = aie.lock(%m, 1) {init = 0 : i32}
    aie.flow(%s, DMA : 0, %m, DMA : 0)
    aie.flow(%m, DMA : 0, %s, DMA : 0)
    aie.runtime_sequence(%a: memref<2048xi32>, %b: memref<2048xi32>) {
      %in = aiex.dma_configure_task(%s, MM2S, 0) {
        aie.dma_bd(%a : memref<2048xi32> offset = 0 len = 2048) {bd_id = 0 : i32}
        aie.end
      }
      %fill = aiex.dma_configure_task(%m, S2MM, 0) {
        %c1 = arith.constant 1 : i32
        aie.use_lock(%prod, AcquireGreaterEqual, %c1)
        aie.dma_bd(%buf : memref<1024xi32> offset = 0 len = 1024) {bd_id = 0 : i32}
        aie.use_lock(%cons, Release, %c1)
        aie.end
      } {repeat_count = 1 : i32}
      %drain = aiex.dma_configure_task(%m, MM2S, 0) {
        %c1 = arith.constant 1 : i32
        aie.use_lock(%cons, AcquireGreaterEqual, %c1)
        aie.dma_bd(%buf : memref<1024xi32> offset = 0 len = 1024) {bd_id = 1 : i32}
        aie.use_lock(%prod, Release, %c1)
        aie.end
      } {repeat_count = 1 : i32, issue_token = true}
      %out = aiex.dma_configure_task(%s, S2MM, 0) {
        aie.dma_bd(%b : memref<2048xi32> offset = 0 len = 2048) {bd_id = 1 : i32}
        aie.end
      } {issue_token = true}
      aiex.dma_start_task(%fill)
      aiex.dma_start_task(%drain)
      aiex.dma_start_task(%out)
      aiex.dma_start_task(%in)
      aiex.dma_await_task(%drain)
      aiex.dma_await_task(%out)
    }
  }
}"""

#: A memtile forwarding @in to @out, no core: the form a9e39fae reads (no acquires).
FIFOS = """module {
  aie.device(npu1_1col) {
    %s = aie.tile(0, 0)
    %m = aie.tile(0, 1)
    aie.objectfifo @in(%s, {%m}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
    aie.objectfifo @out(%m, {%s}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
    aie.objectfifo.link [@in] -> [@out]([] [])
    aie.runtime_sequence(%a: memref<32xi32>, %b: memref<32xi32>) {
      aiex.npu.dma_memcpy_nd(%b[0, 0, 0, 0][1, 1, 1, 32][0, 0, 0, 1]) {id = 0 : i64, metadata = @out, issue_token = true} : memref<32xi32>
      aiex.npu.dma_memcpy_nd(%a[0, 0, 0, 0][1, 1, 1, 32][0, 0, 0, 1]) {id = 1 : i64, metadata = @in} : memref<32xi32>
      aiex.npu.dma_wait {symbol = @out}
    }
  }
}"""

#: One core: @in objects of 16 x i32 from the shim, @out objects back; BODY runs per object.
CORE = """module {
  aie.device(npu1_1col) {
    %s = aie.tile(0, 0)
    %c = aie.tile(0, 2)
    aie.objectfifo @in(%s, {%c}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
    aie.objectfifo @out(%c, {%s}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
    %core = aie.core(%c) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c16 = arith.constant 16 : index
      %one = arith.constant 1 : i32
      scf.for %it = %c0 to %c2 step %c1 {
        %x = aie.objectfifo.acquire @in(Consume, 1) : memref<16xi32>
        %y = aie.objectfifo.acquire @out(Produce, 1) : memref<16xi32>
BODY
        aie.objectfifo.release @in(Consume, 1)
        aie.objectfifo.release @out(Produce, 1)
      }
      aie.end
    }
    aie.runtime_sequence(%a: memref<32xi32>, %b: memref<32xi32>) {
      aiex.npu.dma_memcpy_nd(%b[0, 0, 0, 0][1, 1, 1, 32][0, 0, 0, 1]) {id = 0 : i64, metadata = @out, issue_token = true} : memref<32xi32>
      aiex.npu.dma_memcpy_nd(%a[0, 0, 0, 0][1, 1, 1, 32][0, 0, 0, 1]) {id = 1 : i64, metadata = @in} : memref<32xi32>
      aiex.npu.dma_wait {symbol = @out}
    }
  }
}"""

ADD_ONE = """        scf.for %k = %c0 to %c16 step %c1 {
          %v = memref.load %x[%k] : memref<16xi32>
          %w = arith.addi %v, %one : i32
          memref.store %w, %y[%k] : memref<16xi32>
        }"""

DMA_LOOP = """module {
  aie.device(npu1_1col) {
    %s = aie.tile(0, 0)
    %m = aie.tile(0, 1)
    %buf = aie.buffer(%m) {address = 4096 : i32} : memref<1024xi32>
    %buf2 = aie.buffer(%m) {address = 16384 : i32} : memref<1024xi32>
    aie.flow(%m, DMA : 0, %m, DMA : 0)
    aie.runtime_sequence(%a: memref<1024xi32>) {
      %send = aiex.dma_configure_task(%m, MM2S, 0) {
        aie.dma_bd(%buf : memref<1024xi32> offset = 0 len = 1024) {bd_id = 0 : i32}
        aie.next_bd ^bb1
      ^bb1:
        aie.dma_bd(%buf : memref<1024xi32> offset = 0 len = 1024) {bd_id = 1 : i32}
        aie.next_bd ^bb1
      } {issue_token = true}
      %take = aiex.dma_configure_task(%m, S2MM, 0) {
        aie.dma_bd(%buf2 : memref<1024xi32> offset = 0 len = 1024) {bd_id = 2 : i32}
        aie.next_bd ^bb1
      ^bb1:
        aie.dma_bd(%buf2 : memref<1024xi32> offset = 0 len = 1024) {bd_id = 3 : i32}
        aie.next_bd ^bb1
      }
      aiex.dma_start_task(%take)
      aiex.dma_start_task(%send)
      aiex.dma_await_task(%send)
    }
  }
}"""
