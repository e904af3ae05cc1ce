"""The module iron hands aiecc, owned once: the aiecc back end writes it
(:mod:`iron.builder.aiecc`) and ``sources=True`` carries it as ``aiecc.mlir``
(:mod:`iron.builder.sections`), so a user can rerun aiecc on exactly that text.

It is the fused module materialized (:func:`iron.lower.materialize.materialize`: every
``aiex.configure`` / ``aiex.run`` inlined, trace patches translated to the dispatched
sequence's arguments); for separate dispatch each kernel's load of its own PDI is left out (the
xclbin firmware loads it). Printed in the mlir-aie era of the build (:mod:`iron.target.mlir_eras`).
"""

from __future__ import annotations

from iron.errors import IronError
from iron.lower.materialize import materialize
from iron.mlir import ir
from iron.mlir.printer import print_module
from iron.target.mlir_eras import TODAY, Era


class AieccInputError(IronError):
    """A fused module aiecc cannot take (the message names the kernel and why)."""


def input_module(fm, translate_patches: bool = True) -> ir.Module:
    """The module aiecc compiles for the fused module ``fm`` (see the module docstring)."""
    module = materialize(fm, translate_patches=translate_patches)
    if fm.dispatch == "separate":
        module = _without_own_pdi_loads(module, fm)
    return module


def input_text(fm, translate_patches: bool = True, era: Era = TODAY) -> str:
    """:func:`input_module` printed in ``era``."""
    return print_module(input_module(fm, translate_patches), era)


def _without_own_pdi_loads(module: ir.Module, fm) -> ir.Module:
    """Separate dispatch: drop each kernel's load of its own PDI (the xclbin firmware loads it)."""
    for k in fm.kernels:
        seq = module.device(k.device).sequence(k.sequence)
        seq.body = [op for op in seq.body if not (isinstance(op, ir.LoadPdi) and op.device_ref == k.device)]
        other = [op.device_ref for op in seq.body if isinstance(op, ir.LoadPdi)]
        if other:
            raise AieccInputError(
                f"kernel {k.name} loads PDI @{other[0]} inside its sequence; an xclbin kernel runs "
                f"on its own PDI only (use fused dispatch for configuration switches)"
            )
    return module
