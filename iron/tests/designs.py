"""Index of the upstream design corpus in iron/tests/data/designs (sources: SOURCES.md there).

One entry per design file: its device, the targets it is tested on, the kernel objects
its cores link, its runtime-sequence arguments (name, direction, shape, dtype: read by eye
from the file; direction = what its shim transfers do with it), what its upstream test
computes (``computation``, and ``reference``: a numpy function of the inputs returning the
outputs, where the computation is known from the example's own test), and ``xfail``: what
iron's built-in lowering cannot do yet for it (None: it builds and runs on sim);
``kernel_defines``: the ``-D`` values the example's Makefile compiles its objects with
(passed to ``iron.from_mlir(kernel_defines=)``); ``aiecc_input_xfail`` is False where only the lowering to npu ops fails, so the module
iron hands aiecc is still written.

Shared with the sim work (executed outputs): keep it a plain dict of plain values.
"""

from __future__ import annotations

import numpy as np

#: Trace events for the designs without a compute tile (iron traces compute tiles by default):
#: the drain shim's DMA task events, which their shim channels raise.
_SHIM_TASK_EVENTS = {
    "shim": [
        "DMA_S2MM_0_START_TASK",
        "DMA_S2MM_0_FINISHED_TASK",
        "DMA_MM2S_0_START_TASK",
        "DMA_MM2S_0_FINISHED_TASK",
    ]
}

#: matrix_vector/Makefile@061bc4a0: build/mv_${m}x${k}.o with -DBIT_WIDTH=8 -DDIM_M=${m}
#: -DDIM_K=${k}, m = k = 32.
_MV_DEFINES = {"BIT_WIDTH": "8", "DIM_M": "32", "DIM_K": "32"}


def _scale(a, factor):
    return (a * factor[0]).astype(a.dtype)


DESIGNS: dict[str, dict] = {
    "vector_scalar_mul": {
        "file": "mlir-aie__programming_examples__basic__vector_scalar_mul__build__aie.mlir",
        "device": "npu1_1col", "targets": ["npu1"], "kernels": ["scale.o"],
        "args": [("arg0", "in", (12288,), "i32"), ("arg1", "in", (1,), "i32"), ("arg2", "out", (12288,), "i32")],
        "computation": "arg2 = arg0 * arg1[0] (vector_scalar_mul_int32_vector, 4 x 3072 per factor)",
        "reference": lambda a, f: (_scale(a, f),),
        "xfail": None,
    },
    "passthrough_kernel": {
        "file": "mlir-aie__programming_examples__basic__passthrough_kernel__build__aie2_lineBased_8b_4096.mlir",
        "device": "npu1_1col", "targets": ["npu1"], "kernels": ["passThrough.cc.o"],
        "args": [("arg0", "in", (4096,), "ui8"), ("arg1", "out", (4096,), "ui8"), ("arg2", "in", (4096,), "ui8")],
        "computation": "arg1 = arg0 (passThroughLine, 1024 bytes a line)",
        "reference": lambda a, _c: (a.copy(),),
        # passthrough_kernel/Makefile: build/passThrough.cc.o compiled with -DBIT_WIDTH=8
        "kernel_defines": {"passThrough.cc.o": {"BIT_WIDTH": "8"}},
        "xfail": None,
    },
    "event_trace": {
        "file": "mlir-aie__programming_examples__basic__event_trace__aie_trace.mlir",
        "device": "NPUDEVICE", "targets": ["npu1", "npu2"], "kernels": ["scale.o"],
        "args": [("arg0", "in", (4096,), "i32"), ("arg1", "in", (1,), "i32"), ("arg2", "out", (4096,), "i32")],
        "computation": "arg2 = arg0 * arg1[0] (vector_scalar_mul_aie_scalar, 4 x 1024 per factor); its own aie.trace",
        "reference": lambda a, f: (_scale(a, f),),
        "xfail": None,
    },
    "copy_dma": {
        "file": "hunhoffe__iron_ext_mlir__Copy_DMA.mlir",
        "device": "npu1_1col", "targets": ["npu1"], "kernels": [],
        "args": [("arg0", "in", (4096,), "i32"), ("arg1", "in", (4096,), "i32"), ("arg2", "out", (4096,), "i32")],
        "computation": "arg2 = arg0 (object FIFO link through the compute tile's memory, no core)",
        "reference": lambda a, _b: (a.copy(),),
        "xfail": None,
    },
    "vector_vector_add": {
        "file": "hunhoffe__iron_ext_mlir__VVOp_Add.mlir",
        "device": "npu1_1col", "targets": ["npu1"], "kernels": [],
        "args": [("arg0", "in", (256,), "i32"), ("arg1", "in", (256,), "i32"), ("arg2", "out", (256,), "i32")],
        "computation": "arg2 = arg0 + arg1 (arith.addi in the core, 16 x 16)",
        "reference": lambda a, b: (a + b,),
        "xfail": None,
    },
    "vector_scalar_mul_i16": {
        "file": "hunhoffe__iron_ext_mlir__VSOp_Mul.mlir",
        "device": "npu1_1col", "targets": ["npu1"], "kernels": ["scale.o"],
        "args": [("arg0", "in", (4096,), "i16"), ("arg1", "in", (1,), "i32"), ("arg2", "out", (4096,), "i16")],
        "computation": "arg2 = arg0 * arg1[0] (vector_scalar_mul_int16_vector, 4 x 1024 per factor)",
        "reference": lambda a, f: (_scale(a, f),),
        "xfail": None,
    },
    "relu_two_cores": {
        "file": "hunhoffe__iron_ext_mlir__VReLU.mlir",
        "device": "npu1_1col", "targets": ["npu1"], "kernels": ["relu.o"],
        "args": [("arg0", "in", (65536,), "bf16"), ("arg1", "out", (65536,), "bf16")],
        "computation": "arg1 = max(arg0, 0) (bf16_relu on two cores: memtile distribute 2 x 1024, join back)",
        "reference": None,  # bf16 host data: the sim work decides the representation
        "xfail": None,
    },
    "matrix_vector": {
        "file": "mlir-aie__programming_examples__basic__matrix_multiplication__matrix_vector__aie.mlir",
        "device": "npu1_4col", "targets": ["npu1"], "kernels": ["mv_32x32.o"],
        "args": [("arg0", "in", (82944,), "i16"), ("arg1", "in", (288,), "i16"), ("arg2", "out", (288,), "i32")],
        "computation": "arg2 = A @ arg1 with A = arg0 as 288 x 288 row-major (matvec_scalar_i16_i32, 32 x 32 blocks)",
        "reference": lambda a, b: ((a.reshape(288, 288).astype(np.int32) @ b.astype(np.int32)).astype(np.int32),),
        "kernel_defines": {"mv_32x32.o": _MV_DEFINES},
        "xfail": None,  # strided shim BDs: iron/lower/dma.py since the sim issue
    },
    "matrix_vector_tasks": {
        "file": "hunhoffe__iron_ext_mlir__MVMul.mlir",
        "device": "npu1_4col", "targets": ["npu1"], "kernels": ["mv_32x32.o"],
        "args": [("arg0", "in", (288, 288), "i16"), ("arg1", "in", (288,), "i16"), ("arg2", "out", (288,), "i32")],
        "computation": "arg2 = arg0 @ arg1 (DMA tasks with repeat_count = 8, strided task BDs)",
        # matrix_multiplication/matrix_vector/test.cpp@05349c0d lines 15-18: A and B int16,
        # C and the accumulator int32; it includes ../test.cpp, whose reference is C = A @ B
        "reference": lambda a, b: ((a.astype(np.int32) @ b.astype(np.int32)).astype(np.int32),),
        "kernel_defines": {"mv_32x32.o": _MV_DEFINES},
        "xfail": None,
    },
    "matmul_single_core": {
        "file": "mlir-aie__programming_examples__basic__matrix_multiplication__single_core__build__aie_256x256x256_32x32x32.mlir",
        "device": "npu1_1col", "targets": ["npu1"], "kernels": ["mm_32x32x32.o"],
        "args": [("arg0", "in", (65536,), "i8"), ("arg1", "in", (65536,), "i8"), ("arg2", "out", (65536,), "i32")],
        "computation": "arg2 = A @ B, 256 x 256 x 256 row-major (matmul_i8_i32, 32 x 32 x 32 tiles)",
        "reference": lambda a, b: (
            (a.reshape(256, 256).astype(np.int32) @ b.reshape(256, 256).astype(np.int32)).reshape(-1),
        ),
        "trace_size": 65536,  # 512 kernel calls: 4096 bytes fill up
        # single_core/Makefile@74f36eb: -DBIT_WIDTH=8 -D${dtype_in}_${dtype_out}_ONLY -DDIM_M=${m} ...,
        # with m = k = n = 32 and i8 -> i32 as this build's file and kernel names say
        "kernel_defines": {
            "mm_32x32x32.o": {"BIT_WIDTH": "8", "i8_i32_ONLY": "1", "DIM_M": "32", "DIM_K": "32", "DIM_N": "32"}
        },
        "xfail": None,  # strided shim BDs: iron/lower/dma.py since the sim issue
    },
    "passthrough_memtile_bds": {
        "file": "mlir-aie__programming_examples__basic__passthrough_dmas__aie.mlir",
        "device": "npu1_1col", "targets": ["npu1"], "kernels": [],
        "args": [("arg0", "in", (4096,), "i32"), ("arg1", "in", (4096,), "i32"), ("arg2", "out", (4096,), "i32")],
        "computation": "arg2 = arg0 through the memtile (hand-written writebd/write32 on shim and memtile, packet flows)",
        "trace_events": _SHIM_TASK_EVENTS,
        # passthrough_dmas/test.cpp@0429335f lines 130-133 fill bo_inA (arg0) with i + 1,
        # lines 154-159 check bo_out (arg2) against i + 1: output equals input; bo_inB unread
        "reference": lambda a, _b: (a.copy(),),
        "xfail": None,
    },
    "passthrough_memtile_tasks": {
        "file": "mlir-aie__programming_examples__basic__passthrough_dmas__unrolled_repeat_pass.mlir",
        "device": "npu1_1col", "targets": ["npu1"], "kernels": [],
        "args": [("arg0", "in", (4096,), "i32"), ("arg1", "in", (4096,), "i32"), ("arg2", "out", (4096,), "i32")],
        "computation": "arg2 = arg0 through the memtile (runtime DMAs: memtile BD chains written by the sequence)",
        "trace_events": _SHIM_TASK_EVENTS,
        # the same example folder's test.cpp@0429335f (lines 130-133, 154-159): output = input
        "reference": lambda a, _b: (a.copy(),),
        "xfail": None,
    },
}  # fmt: skip


def text(entry: dict, target: str) -> str:
    """The design's text for ``target`` (mlir-aie's lit placeholder NPUDEVICE substituted)."""
    from pathlib import Path

    raw = (Path(__file__).parent / "data" / "designs" / entry["file"]).read_text(encoding="utf-8")
    return raw.replace("NPUDEVICE", "npu1_1col" if target == "npu1" else "npu2")
