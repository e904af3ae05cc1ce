"""numpy models of the kernels designs call, for sim's execution of core programs.

The one lookup sim's core interpreter uses: :func:`model_for` maps a kernel symbol (the
``func.call`` target, an ``extern "C"`` entry of an mlir-aie kernel source) and the
``-D`` values its object was compiled with to a :data:`KernelModel`, or None when
iron has no model for it (the call is then reported "not modelled").

A model is called with the call's operands in order: for a memref operand the numpy
array of the L1 buffer it names (shaped as the memref type; bf16 as uint16 bit
patterns, other types native), for a scalar operand a Python int or float. It
writes its outputs into those arrays in place and returns nothing. It does what the
kernel source does to the buffers it is handed (layout, fixed element counts, tails)
and raises :class:`KernelModelError` where the kernel would touch memory outside a
buffer it was handed.
"""

from __future__ import annotations

from typing import Callable, Mapping

from iron.errors import IronError

#: ``model(*operands) -> None``: see the module docstring.
KernelModel = Callable[..., None]


class KernelModelError(IronError):
    """A kernel call that would misbehave on hardware (e.g. reach outside its buffers)."""


def model_for(symbol: str, defines: Mapping[str, str], arch: str) -> KernelModel | None:
    """The model of kernel entry ``symbol`` compiled with ``defines`` for core ``arch``
    (``aie2`` npu1, ``aie2p`` npu2), or None."""
    return None
