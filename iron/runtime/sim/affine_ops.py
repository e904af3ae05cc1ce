"""``affine`` loops in a core body, as MLIR's ``AffineOps.td`` (llvm-project
``mlir/include/mlir/Dialect/Affine/IR/AffineOps.td``) documents them.
:mod:`iron.runtime.sim.interp` registers each function here as the handler of its op.

* ``affine.for %i = <lower> to <upper> [step <n>]``: ``i`` from the lower bound while below the
  upper bound, by the step (1 when left out; the verifier demands a positive literal); ``iter_args``
  are carried as ``scf.for``'s, by ``affine.yield``. A bound is an integer literal or an SSA symbol;
  a bound written as an affine map (``max #map(%a)[%b]``) is not modelled.
* ``affine.yield``: the values the next iteration (or the loop's results) take.

Upstream's hardware tests use these in hand-written cores (mlir-aie
``test/npu-xrt/add_256_using_dma_op_no_double_buffering/aie.mlir``).
"""

from __future__ import annotations

import re

from iron.mlir import body as b
from iron.mlir.form import format_op
from iron.runtime.sim import values as v

_RE_BOUND = re.compile(r"^(?:(-?\d+)|%([\w$.#-]+))$")


def _bound(core, op, text: str) -> int:
    m = _RE_BOUND.match(text.strip())
    if m is None:
        raise v.NotModelledOp(
            f"not modelled: affine.for bound {text!r} (an affine map; literal and SSA bounds are): {format_op(op)}"
        )
    return int(m.group(1)) if m.group(1) is not None else int(core.val(m.group(2)))


def affine_for(core, op: b.AffineFor):
    """Generator: the loop (:meth:`iron.runtime.sim.interp.Core.count`)."""
    step = 1 if op.step is None else op.step
    if step <= 0:  # the parser rejects it upstream: "expected step to be representable as a positive"
        raise v.NotModelledOp(f"not modelled: affine.for with step {step} (accepted: a positive step)")
    return core.count(op, _bound(core, op, op.lower), _bound(core, op, op.upper), step)


def affine_yield(core, op: b.AffineYield):
    raise core.YIELD([core.val(x) for x in op.values])


HANDLERS = {b.AffineFor: affine_for, b.AffineYield: affine_yield}
