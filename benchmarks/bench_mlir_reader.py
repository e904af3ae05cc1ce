"""Reader throughput on a 20,000-op runtime sequence.

Run as a script (``python benchmarks/bench_mlir_reader.py``) to print ops/s, or
under pytest-benchmark (``pytest benchmarks/bench_mlir_reader.py``).
"""

from __future__ import annotations

import time

from iron.mlir import ir
from iron.mlir.reader import parse

N_OPS = 20_000


def make_text(n_ops: int = N_OPS) -> str:
    """A device whose sequence mixes attribute-form and SSA-form npu ops."""
    lines = [
        "module {",
        "  aie.device(npu2) @bench {",
        "    %tile_0_0 = aie.tile(0, 0)",
        "    %tile_0_2 = aie.tile(0, 2)",
        "    aie.shim_dma_allocation @in0(MM2S, 0, 0)",
        "    aie.runtime_sequence @sequence(%arg0: memref<4096xi32>, %arg1: memref<8192xi8>) {",
    ]
    bd = ", ".join(f"{k} = {15 if k == 'bd_id' else 0} : i32" for k in ir.WRITEBD_FIELDS)
    for i in range(n_ops):
        k = i % 8
        if k == 0:
            lines.append(f"      %a{i} = arith.constant {213200 + i} : i32")
            lines.append(f"      %v{i} = arith.constant {i} : i32")
            lines.append(
                f"      aiex.npu.write32(%a{i}, %v{i}) {{column = 0 : i32, row = 2 : i32}} : i32, i32"
            )
        elif k == 1:
            lines.append(f"      aiex.npu.writebd {{{bd}}}")
        elif k == 2:
            lines.append(
                "      aiex.npu.address_patch {addr = 119268 : ui32, arg_idx = 1 : i32, arg_plus = 0 : i32}"
            )
        elif k == 3:
            lines.append(
                "      aiex.npu.maskwrite32 {address = 119304 : ui32, column = 0 : i32, mask = 7936 : ui32, "
                "row = 0 : i32, value = 3840 : ui32}"
            )
        elif k == 4:
            lines.append(
                "      aiex.npu.dma_memcpy_nd(%arg0[0, 0, 0, 0][1, 1, 1, 4096][0, 0, 0, 1]) "
                "{id = 0 : i64, issue_token = true, metadata = @in0} : memref<4096xi32>"
            )
        elif k == 5:
            lines.append(
                "      aiex.npu.sync {channel = 0 : i32, column = 0 : i32, column_num = 1 : i32, "
                "direction = 0 : i32, row = 0 : i32, row_num = 1 : i32}"
            )
        else:
            lines.append(
                f"      aiex.npu.write32 {{address = {213000 + i} : ui32, column = 0 : i32, row = 0 : i32, "
                f"value = {i} : ui32}}"
            )
    lines += ["    }", "  }", "}", ""]
    return "\n".join(lines)


def _check(module: ir.Module) -> None:
    body = module.devices[0].sequence().body
    assert len(body) == N_OPS, len(body)


def test_bench_reader_20k_ops(benchmark):
    text = make_text()
    module = benchmark(parse, text)
    _check(module)


def test_reader_20k_ops_under_a_second():
    text = make_text()
    t0 = time.perf_counter()
    _check(parse(text))
    assert time.perf_counter() - t0 < 1.0


def main() -> None:
    text = make_text()
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        module = parse(text)
        best = min(best, time.perf_counter() - t0)
    _check(module)
    print(f"{N_OPS} ops, {len(text) / 1e6:.2f} MB: best {best * 1e3:.1f} ms = {N_OPS / best:,.0f} ops/s")


if __name__ == "__main__":
    main()
