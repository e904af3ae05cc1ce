"""``affine`` loops in a core body, as MLIR's ``AffineOps.td`` (llvm-project
``mlir/include/mlir/Dialect/Affine/IR/AffineOps.td``) documents them.
:mod:`iron.runtime.sim.interp` registers each function here as the handler of its op.

* ``affine.for %i = <lower> to <upper> [step <n>]``: ``i`` from the lower bound while below the
  upper bound, by the step (1 when left out; the verifier demands a positive literal); ``iter_args``
  are carried as ``scf.for``'s, by ``affine.yield``. A bound is an integer literal or an SSA symbol;
  a bound written as an affine map (``max #map(%a)[%b]``) is not modelled.
* ``affine.yield``: the values the next iteration (or the loop's results) take.
* ``affine.load`` / ``affine.store``: ``memref.load`` / ``store`` at indices that are affine
  expressions (``+``, ``-``, ``*`` by a constant, ``floordiv``, ``ceildiv``, ``mod``, integer
  literals, SSA values, ``symbol(%s)``); ``floordiv`` rounds down, ``ceildiv`` up, ``mod`` is
  the non-negative remainder (``AffineExpr`` semantics, llvm-project
  ``mlir/include/mlir/IR/AffineExpr.h``).
* ``affine.apply``: the one result of an inline ``affine_map<(d..)[s..] -> (expr)>`` of its
  dimension and symbol operands; a map alias (``#map``) is not modelled (iron's reader does
  not keep the module's ``affine_map`` aliases).

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


# ---------------------------------------------------------------------------- affine expressions
_RE_TOKEN = re.compile(r"\s*(?:(\d+)|%([\w$.#-]+)|([ds]\d+)|(floordiv|ceildiv|mod|symbol)|([-+*(),]))")
_MULTIPLY = {
    "*": lambda a, b: a * b,
    "floordiv": lambda a, b: a // b,
    "ceildiv": lambda a, b: -(-a // b),
    "mod": lambda a, b: a % b,
}


def _tokens(text: str) -> list[str]:
    out, pos, text = [], 0, text.strip()
    while pos < len(text):
        m = _RE_TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise v.NotModelledOp(f"not modelled: affine expression {text!r} (at {text[pos:]!r})")
        out.append(next(g if i != 1 else "%" + g for i, g in enumerate(m.groups()) if g is not None))
        pos = m.end()
    return out


class _Expr:
    """Evaluates affine expressions over ``values`` (``%name`` -> the core's value; ``d0`` /
    ``s0`` -> a map's operands)."""

    def __init__(self, core, names: dict[str, int], text: str):
        self.core, self.names, self.text, self.toks = core, names, text, _tokens(text)

    def take(self, want: str | None = None) -> str:
        if not self.toks or (want is not None and self.toks[0] != want):
            raise v.NotModelledOp(
                f"not modelled: affine expression {self.text!r} (expected {want or 'more'})"
            )
        return self.toks.pop(0)

    def expr(self) -> int:
        total = self.term()
        while self.toks and self.toks[0] in "+-":
            total = total + self.term() if self.take() == "+" else total - self.term()
        return total

    def term(self) -> int:
        value = self.unary()
        while self.toks and self.toks[0] in _MULTIPLY:
            value = _MULTIPLY[self.take()](value, self.unary())
        return value

    def unary(self) -> int:
        tok = self.take()
        if tok == "-":
            return -self.unary()
        if tok == "(":
            value = self.expr()
            self.take(")")
            return value
        if tok == "symbol":
            self.take("(")
            value = self.unary()
            self.take(")")
            return value
        if tok.isdigit():
            return int(tok)
        if tok.startswith("%"):
            return int(self.core.val(tok[1:]))
        if tok in self.names:
            return self.names[tok]
        raise v.NotModelledOp(f"not modelled: affine expression {self.text!r} (unknown {tok!r})")

    def results(self) -> list[int]:
        """The comma-separated expressions, each evaluated."""
        out = [self.expr()] if self.toks else []
        while self.toks:
            self.take(",")
            out.append(self.expr())
        return out


def _index_names(core, op) -> tuple[str, ...]:
    """The affine indices of ``op`` evaluated and bound to names only this op uses."""
    values = _Expr(core, {}, op.indices).results()
    names = tuple(f"affine-index {k}" for k in range(len(values)))
    core.env.update(zip(names, values))
    return names


def affine_load(core, op: b.AffineLoad):
    core.load(b.Load(op.results, op.memref, _index_names(core, op), op.type))


def affine_store(core, op: b.AffineStore):
    core.store(b.Store(op.value, op.memref, _index_names(core, op), op.type))


_RE_MAP = re.compile(r"^affine_map<\(([^)]*)\)(?:\[([^\]]*)\])?\s*->\s*\((.*)\)>$", re.S)


def affine_apply(core, op: b.AffineApply):
    m = _RE_MAP.match(op.map.strip())
    if m is None:
        raise v.NotModelledOp(
            f"not modelled: affine.apply of map {op.map!r} (an inline affine_map<..> is; iron's reader "
            f"does not keep the module's map aliases): {format_op(op)}"
        )
    dims = [d.strip() for d in m.group(1).split(",") if d.strip()]
    syms = [x.strip() for x in (m.group(2) or "").split(",") if x.strip()]
    sym_values = _Expr(core, {}, op.symbols.strip()[1:-1]).results() if op.symbols.strip() else []
    if len(dims) != len(op.dims) or len(syms) != len(sym_values):
        raise v.NotModelledOp(
            f"not modelled: {format_op(op)} (operands do not match the map's dims / symbols)"
        )
    names = dict(zip(dims, (int(core.val(d)) for d in op.dims))) | dict(zip(syms, sym_values))
    results = _Expr(core, names, m.group(3)).results()
    if len(results) != 1:
        raise v.NotModelledOp(f"not modelled: {format_op(op)} (affine.apply's map has one result)")
    core.set(op, results[0])


HANDLERS = {
    b.AffineFor: affine_for,
    b.AffineYield: affine_yield,
    b.AffineLoad: affine_load,
    b.AffineStore: affine_store,
    b.AffineApply: affine_apply,
}
