"""iron's operator library.

Every operator here implements :class:`iron.design.Operator` (the contract is
described there once) as a frozen dataclass, plus ``example_inputs(seed)`` and
``kernel_sources(target)`` (the mlir-aie kernel files it links). :data:`OPERATORS`
maps class names to classes so an operator can be rebuilt from ``(class name,
params)``. Foreign mlir-aie designs become operators through
:func:`iron.operators.foreign.from_mlir`.
"""

from iron.operators.axpy import AXPY
from iron.operators.binary import ElementwiseAdd, ElementwiseMul
from iron.operators.gemm import GEMM
from iron.operators.rms_norm import RMSNorm
from iron.operators.softmax import Softmax
from iron.operators.unary import GELU, MemCopy, ReLU, SiLU

OPERATORS: dict[str, type] = {
    cls.__name__: cls
    for cls in (ElementwiseAdd, ElementwiseMul, ReLU, SiLU, GELU, AXPY, MemCopy, GEMM, Softmax, RMSNorm)
}

__all__ = [*OPERATORS, "OPERATORS"]
