"""Where the hardware goldens live (copied into the repository: see data/*/SOURCES.md)."""

from pathlib import Path

DATA = Path(__file__).parent / "data"
TEST1 = DATA / "mlir-aie-test1"  # npu1 core trace: trace.txt, aie.mlir, expected.json
TEST2 = DATA / "mlir-aie-test2"  # core + memory-module packets interleaved


def decode_argv(capture: Path, fmt: str) -> list[str]:
    """``iron trace decode`` of a golden capture folder's trace.txt, configured by its
    aie.mlir, in format ``fmt`` (the command line after ``iron``)."""
    return [
        "trace",
        "decode",
        str(capture / "trace.txt"),
        "--mlir",
        str(capture / "aie.mlir"),
        "--format",
        fmt,
    ]


#: The 8 core events that test1's aie.mlir traces, in slot order.
TEST1_EVENTS = [
    "INSTR_EVENT_0",
    "INSTR_EVENT_1",
    "INSTR_VECTOR",
    "PORT_RUNNING_0",
    "PORT_RUNNING_1",
    "INSTR_LOCK_ACQUIRE_REQ",
    "INSTR_LOCK_RELEASE_REQ",
    "LOCK_STALL",
]
