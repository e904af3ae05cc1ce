"""Where the hardware goldens live (copied into the repository: see data/*/SOURCES.md)."""

from pathlib import Path

DATA = Path(__file__).parent / "data"
TEST1 = DATA / "mlir-aie-test1"  # npu1 core trace: trace.txt, aie.mlir, expected.json
TEST2 = DATA / "mlir-aie-test2"  # core + memory-module packets interleaved
