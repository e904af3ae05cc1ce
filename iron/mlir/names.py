"""Symbols mlir-aie gives a device and a runtime sequence declared without one; aie-opt
prints neither (AIEDialect.cpp ``getDefaultDeviceName``, ``RuntimeSequenceOp::print``).

Their own module so that readers of a module's trace configuration
(:mod:`iron.mlir.trace_config`) have them without the IR (:mod:`iron.mlir.ir` re-exports them).
"""

DEFAULT_DEVICE = "main"
DEFAULT_SEQUENCE = "sequence"
