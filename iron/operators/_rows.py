"""Shared shape of the row-wise operators (softmax, RMSNorm): ``rows x cols``,
rows split over ``columns`` x ``cores_per_column`` cores, one row per kernel call."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from iron.operators import _checks
from iron.operators._dataflow import Dataflow, build_design
from iron.operators._elementwise import kernel_object, kernel_source, lane_step
from iron.target import kernels as ktable


@dataclass(frozen=True)
class RowWise:
    """Base of the row-wise operators (subclasses set the ClassVars and the contract methods)."""

    rows: int
    cols: int
    dtype: str = "bf16"
    columns: int = 1
    cores_per_column: int = 1

    KERNEL: ClassVar[str] = ""  # key in iron.target.kernels

    def __post_init__(self):
        op = type(self).__name__
        _checks.positive_int(op, "rows", self.rows)
        _checks.positive_int(op, "cols", self.cols)
        _checks.one_of(op, "dtype", self.dtype, ("bf16",))
        _checks.common(op, self.columns, self.cores_per_column)
        [e] = ktable.kernel(self.KERNEL).entries
        where = f"{e.symbol}'s vector loop steps {lane_step(self.KERNEL, e)} elements with no scalar tail"
        _checks.multiple_of(op, "cols", self.cols, lane_step(self.KERNEL, e), where)
        cores = self.columns * self.cores_per_column
        _checks.multiple_of(op, "rows", self.rows, cores, f"columns * cores_per_column = {cores}")

    def iterations(self) -> int:
        """Rows (kernel invocations) per core."""
        return self.rows // (self.columns * self.cores_per_column)

    def kernel_sources(self, target) -> list[str]:
        return [kernel_source(target, self.KERNEL)]

    def _build(self, target, ports, calls):
        flow = Dataflow(
            type(self).__name__,
            tuple(self.arg_spec()),
            tuple(ports),
            tuple(calls),
            self.iterations(),
            kernel_object(target, self.KERNEL),
            self.columns,
            self.cores_per_column,
        )
        return build_design(flow, target)
