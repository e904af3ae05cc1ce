"""iron's operator library.

Every operator here implements :class:`iron.design.Operator` (the contract is
described there once) as a frozen dataclass, plus ``example_inputs(seed)`` and
``kernel_sources(target)`` (the mlir-aie kernel files it links). :data:`OPERATORS`
maps class names to classes so an operator can be rebuilt from ``(class name,
params)``: sim's PDI payload names its operator with :func:`payload_identity`, and
:func:`from_payload` is the resolver the loader hands sim (:func:`iron.load`).
Foreign mlir-aie designs become operators through :func:`iron.operators.foreign.from_mlir`.
"""

from iron.design import operator_params
from iron.errors import IronError

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

#: Payload name of a foreign design (iron.operators.foreign): it describes itself, since
#: its reference is a Python function and not data.
FOREIGN = "<foreign>"


def payload_identity(op) -> tuple[str, dict]:
    """``(name, params)`` under which sim's PDI payload (iron.artifact.pdi) names ``op``."""
    if hasattr(op, "payload_params"):
        return FOREIGN, op.payload_params()
    return type(op).__name__, operator_params(op)


def from_payload(name: str, params: dict):
    """The operator a payload names (the inverse of :func:`payload_identity`)."""
    if name == FOREIGN:
        from iron.operators.foreign import rebuild

        return rebuild(params)
    if name not in OPERATORS:
        raise IronError(
            f"the artifact names operator {name!r}; this iron has: {', '.join(sorted(OPERATORS))}"
        )
    return OPERATORS[name](**{k: tuple(v) if isinstance(v, list) else v for k, v in params.items()})


__all__ = [*OPERATORS, "OPERATORS", "FOREIGN", "from_payload", "payload_identity"]
