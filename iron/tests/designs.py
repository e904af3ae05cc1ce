"""Index of the upstream design corpus in iron/tests/data/designs (sources: SOURCES.md there).

One entry per design file: its device, the targets it is tested on, the kernel objects
its cores link, its runtime-sequence arguments (name, direction, shape, dtype: read by eye
from the file; direction = what its shim transfers do with it), what its upstream test
computes (``computation``, and ``reference``: a numpy function of the inputs returning the
outputs, where the computation is known from the example's own test), and ``xfail``: what
iron's built-in lowering cannot do yet for it (None: it builds and runs on sim);
``kernel_defines``: the ``-D`` values the example's Makefile compiles its objects with
(passed to ``iron.from_mlir(kernel_defines=)``); ``inputs`` (optional): the host data the
example's own test uses, where it is fixed; ``verify_mask`` (optional): the output elements
that test checks; ``aiecc_input_xfail`` is False where only the lowering to npu ops fails, so the module
iron hands aiecc is still written.

Shared with the sim work (executed outputs): keep it a plain dict of plain values.
"""

from __future__ import annotations

import numpy as np

from iron import bf16

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
        # ml/relu/test.cpp@03968235 (the upstream relu example, 65536 bf16): the input is every raw
        # bf16 pattern in ascending order (``raw = (uint16_t)i``); verify() skips NaN inputs and
        # expects ``A[i] > 0 ? A[i] : 0``. bf16 host data is uint16 bit patterns (iron.bf16).
        "inputs": lambda: [np.arange(65536, dtype=np.uint16)],
        "reference": lambda a: (_bf16_relu(a),),
        "verify_mask": lambda a: ~np.isnan(bf16.from_bf16(a)),
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
    "cascade_flows": {
        "file": "mlir-aie__test__npu-xrt__cascade_flows__aie.mlir",
        "device": "npu1_2col", "targets": ["npu1"], "kernels": ["kernel1.o", "kernel2.o", "kernel3.o"],
        "args": [("in", "in", (64,), "i32"), ("buf", "in", (32,), "i32"), ("out", "out", (64,), "i32")],
        "computation": "out[5] = 214, else 0: kernel1 on (0,3) puts lane 0 = 14 on its cascade, kernel2 on "
                       "(1,3) replaces lane 0 by 114 and passes the vector on, kernel3 on (1,2) writes lane 0 + 100 "
                       "at index 5 (test.cpp@10de7f60: ref = 214 at i == 5, else 0)",
        "reference": lambda _a, _b: (np.where(np.arange(64) == 5, 214, 0).astype(np.int32),),
        "xfail": None,
    },
    "whole_array_matmul": {
        "file": "mlir-aie__programming_examples__basic__matrix_multiplication__whole_array__build__aie_640x896x768_16x32x48_2c.mlir",
        "device": "npu1_2col", "targets": ["npu1"], "kernels": ["mm_16x32x48.o"],
        "args": [("arg0", "in", (573440,), "i16"), ("arg1", "in", (688128,), "i16"), ("arg2", "out", (491520,), "i32")],
        "computation": "arg2 = A @ B, 640 x 896 x 768 row-major, i16 -> i32 on 2 columns x 4 cores "
                       "(matrix_multiplication/test.cpp@09874c38: matmul_common::verify of C against A @ B, "
                       "b_col_maj = 0)",
        "reference": lambda a, b: (
            (a.reshape(640, 896).astype(np.int64) @ b.reshape(896, 768).astype(np.int64)).astype(np.int32).reshape(-1),
        ),
        "trace_size": 65536,
        # whole_array/Makefile@00255754: M, K, N = 640, 896, 768, m, k, n = 16, 32, 48 and
        # mm.cc compiled with -DBIT_WIDTH=8 -D${dtype_in}_${dtype_out}_ONLY -DDIM_M=${m} -DDIM_K=${k}
        # -DDIM_N=${n}; dtype_in/out i16/i32 (matrix_multiplication/makefile-common@02979d3d)
        "kernel_defines": {
            "mm_16x32x48.o": {"BIT_WIDTH": "8", "i16_i32_ONLY": "1", "DIM_M": "16", "DIM_K": "32", "DIM_N": "48"}
        },
        "xfail": None,
    },
    "vector_vector_mul": {
        "file": "hunhoffe__iron_ext_mlir__VVOp_Mul.mlir",
        "device": "npu1_1col", "targets": ["npu1"], "kernels": [],
        "args": [("arg0", "in", (256,), "i32"), ("arg1", "in", (256,), "i32"), ("arg2", "out", (256,), "i32")],
        "computation": "arg2 = arg0 * arg1 (arith.muli in the core on i32, wrapping; 16 x 16)",
        "reference": lambda a, b: ((a.astype(np.int64) * b).astype(np.int32),),
        "xfail": None,
    },
    "vector_vector_mod": {
        "file": "hunhoffe__iron_ext_mlir__VVOp_Mod.mlir",
        "device": "npu1_1col", "targets": ["npu1"], "kernels": [],
        "args": [("arg0", "in", (256,), "i32"), ("arg1", "in", (256,), "i32"), ("arg2", "out", (256,), "i32")],
        "computation": "arg2 = arg0 rem arg1 (arith.remsi in the core: truncating, the sign of the dividend)",
        "reference": lambda a, b: (np.fmod(a, b).astype(np.int32),),
        "xfail": None,
    },
    "vector_scalar_add": {
        "file": "hunhoffe__iron_ext_mlir__VSOp_Add.mlir",
        "device": "npu1_1col", "targets": ["npu1"], "kernels": [],
        "args": [("arg0", "in", (1024,), "i32"), ("arg1", "out", (1024,), "i32")],
        "computation": "arg1 = arg0 + 1 (arith.addi of 1 in the core; 64-element objects split 2 x 32 "
                       "through the memtile and joined back)",
        "reference": lambda a: ((a.astype(np.int64) + 1).astype(np.int32),),
        "xfail": None,
    },
    "matrix_transpose_dma": {
        "file": "hunhoffe__iron_ext_mlir__MTranspose.mlir",
        "device": "npu1_1col", "targets": ["npu1"], "kernels": [],
        "args": [("arg0", "in", (64, 32), "i32"), ("arg1", "in", (64, 32), "i32"), ("arg2", "out", (64, 32), "i32")],
        "computation": "arg2 (as 32 x 64 row-major) = arg0.T: the MM2S task reads arg0 column by column "
                       "(innermost <size = 64, stride = 32>), the S2MM task writes in order; no core",
        "reference": lambda a, _b: (np.ascontiguousarray(a.T).reshape(64, 32),),
        "xfail": None,
    },
    "transpose_npu2": {
        "file": "andrej__reconfig__transpose.mlir",
        "device": "npu2_1col", "targets": ["npu2"], "kernels": ["transpose.o"],
        "args": [("arg0", "in", (512, 512), "i32"), ("arg1", "out", (512, 512), "i32")],
        "computation": "transpose_8x8 on 64 x 32 tiles that the memtile rearranges (dimensionsFromStream), "
                       "DMA tasks with iteration dims and repeat_count = 7; its test (reconfig/test.cpp) "
                       "only times the run, and transpose.cc is not in the corpus: no reference",
        "reference": None,
        "xfail": None,
    },
}  # fmt: skip


def _bf16_relu(a: np.ndarray) -> np.ndarray:
    v = bf16.from_bf16(a)
    return np.where(v > 0, a, np.uint16(0)).astype(np.uint16)


def text(entry: dict, target: str) -> str:
    """The design's text for ``target`` (mlir-aie's lit placeholder NPUDEVICE substituted)."""
    from pathlib import Path

    raw = (Path(__file__).parent / "data" / "designs" / entry["file"]).read_text(encoding="utf-8")
    return raw.replace("NPUDEVICE", "npu1_1col" if target == "npu1" else "npu2")
