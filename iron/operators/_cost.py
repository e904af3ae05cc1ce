"""Nominal compute rates for sim's activity model (not cycle-accurate).

Peak vector widths of the AIE-ML (npu1) and AIE2P (npu2) cores as stated in
AMD's architecture manuals (AM020 for AIE-ML): bf16 elementwise lanes per
cycle and matrix-multiply MACs per cycle. They only set the scale of
timelines; sim is not a performance model.
"""

from __future__ import annotations

import math

from iron.design import Activity

#: elementwise bf16/int lanes per cycle
VECTOR_LANES = {"npu1": 16, "npu2": 32}
#: matmul MACs per cycle by input dtype
MATMUL_MACS = {"npu1": {"bf16": 128, "i16": 64}, "npu2": {"bf16": 256, "i16": 128}}
#: cycles of call, loop setup and lock handshakes around every kernel invocation
CALL_OVERHEAD = 120


def elementwise_activity(target, invocations: int, elements: int, ops_per_element: int) -> Activity:
    """Activity of a kernel doing ``ops_per_element`` vector ops on ``elements`` per call."""
    compute = math.ceil(elements * ops_per_element / VECTOR_LANES[target.name])
    cycles = compute + CALL_OVERHEAD
    return Activity(invocations=invocations, cycles=cycles, vector_fraction=round(compute / cycles, 4))


def matmul_activity(target, invocations: int, macs: int, dtype: str) -> Activity:
    """Activity of a matmul kernel doing ``macs`` multiply-accumulates per call."""
    compute = math.ceil(macs / MATMUL_MACS[target.name][dtype])
    cycles = compute + CALL_OVERHEAD
    return Activity(invocations=invocations, cycles=cycles, vector_fraction=round(compute / cycles, 4))
