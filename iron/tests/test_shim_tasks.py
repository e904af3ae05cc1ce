"""DMA tasks on shim tiles (``aiex.dma_configure_task_for``, iron/lower/dma_task.py) beside
``aiex.npu.dma_memcpy_nd`` in one runtime sequence."""

from __future__ import annotations

from iron.lower.dma_task import TaskLowering
from iron.mlir import ir
from iron.mlir.reader import parse

#: Two memcpys on shim BDs 0 and 1 (their ``id`` is the BD they program: mlir-aie
#: AIEDmaToNpu.cpp lowers ``dma_memcpy_nd`` to ``writebd`` with ``bd_id = id``), then a task
#: without ``bd_id``.
MIXED = """module {
  aie.device(npu1) {
    %tile_0_0 = aie.tile(0, 0)
    aie.runtime_sequence(%arg0: memref<1024xi32>) {
      aiex.npu.dma_memcpy_nd(%arg0[0, 0, 0, 0][1, 1, 1, 64][0, 0, 0, 1]) {id = 0 : i64, metadata = @in} : memref<1024xi32>
      aiex.npu.dma_memcpy_nd(%arg0[0, 0, 0, 64][1, 1, 1, 64][0, 0, 0, 1]) {id = 1 : i64, metadata = @in} : memref<1024xi32>
      %t1 = aiex.dma_configure_task_for @in {
        aie.dma_bd(%arg0 : memref<1024xi32>, 128, 64)
        aie.end
      }
      aiex.dma_start_task(%t1)
    }
  }
}"""


def test_a_shim_task_without_bd_id_takes_a_bd_no_memcpy_of_the_sequence_uses():
    """Both memcpys and the task may be in flight at once on the same channel: a task on BD 0
    or 1 would overwrite a memcpy's BD before it ran. The task takes the lowest free one, 2,
    and pushes that BD."""
    dev = parse(MIXED).devices[0]
    seq = dev.sequences[0]
    alloc = ir.ShimDmaAllocation("in", "MM2S", 0, 0)
    memref = lambda _arg: (0, 0, ir.MemRefType((1024,), "i32"))  # noqa: E731
    low = TaskLowering(dev, seq, lambda: {"in": alloc}, memref, foreign=True)
    ops = [o for op in seq.body if isinstance(op, ir.Opaque) for o in (low.lower(op) or [])]
    (bd,) = [o for o in ops if isinstance(o, ir.WriteBd)]
    (push,) = [o for o in ops if isinstance(o, ir.Write32)]
    assert bd["bd_id"] == 2 and push.value & 0xF == 2


def test_a_shim_task_bd_address_adds_its_offset():
    """``aie.dma_bd(%arg0 : memref<1024xi32>, 128, 64)`` starts 128 i32 = 512 bytes into the
    argument: the address patch adds 512 (``arg_plus``, bytes: mlir-aie AIEDmaToNpu.cpp's
    ``aiex.npu.address_patch``)."""
    dev = parse(MIXED).devices[0]
    seq = dev.sequences[0]
    alloc = ir.ShimDmaAllocation("in", "MM2S", 0, 0)
    memref = lambda _arg: (0, 0, ir.MemRefType((1024,), "i32"))  # noqa: E731
    low = TaskLowering(dev, seq, lambda: {"in": alloc}, memref, foreign=True)
    ops = [o for op in seq.body if isinstance(op, ir.Opaque) for o in (low.lower(op) or [])]
    assert [(p.arg_idx, p.arg_plus) for p in ops if isinstance(p, ir.AddressPatch)] == [(0, 512)]
