"""Core-body ops beyond scalars and object FIFOs, as MLIR documents them: memref views and
copies, the ``vector`` ops a core uses before aievec lowering, ``math``, ``scf.while`` and
``cf`` branches. :mod:`iron.runtime.sim.interp` registers each function here as the
handler of its op (``handler(core, op)``); values are held as :mod:`.values` says.

Semantics (MLIR's op documentation, llvm-project ``mlir/include/mlir/Dialect/*/IR/*Ops.td``):

* ``memref.copy``: every element of the source into the target (same shape);
  ``memref.subview``: a view at ``offsets`` with ``sizes`` and ``strides`` (rank-reducing
  subviews drop unit dimensions), writes through it reach the buffer;
* ``vector.transfer_read`` / ``transfer_write`` with the minor identity permutation map:
  the vector covers the memref's innermost dimensions from the indices; an element
  outside the memref reads the padding value and is not written (``in_bounds`` only
  promises there is none), a masked-off element likewise; any other permutation map is
  not modelled;
* ``vector.extract`` / ``insert`` at static or dynamic positions, ``broadcast`` /
  ``splat``; ``vector.fma``: ``a * b + c`` rounded once to the result type (computed in
  float64); ``vector.reduction <kind>`` over all elements (then with ``acc``), integers
  wrapped, floats summed in float64 and rounded once;
* ``math`` ops (``exp``, ``tanh``, ``sqrt``, ``rsqrt`` ...) and ``arith.negf`` per
  element, in float64, rounded once to the result type;
* ``scf.while``: the ``before`` region runs, ``scf.condition`` decides, the ``after``
  region (its block arguments the condition's values) yields the next arguments;
* a region with block labels (``^bb1(%x: i32):``) runs as a control-flow graph:
  ``cf.br`` / ``cf.cond_br`` jump to a block, binding its arguments.
"""

from __future__ import annotations

import re

import numpy as np

from iron import bf16
from iron.mlir import body as b
from iron.mlir import ir
from iron.mlir.form import format_op
from iron.runtime.sim import progress
from iron.runtime.sim import values as v

NotModelled = v.NotModelledOp

_RE_LABEL = re.compile(r"^\^(\w+)(?:\(([^)]*)\))?\s*:")
_RE_SUCCESSOR = re.compile(r"^\^(\w+)(?:\((.*)\))?$", re.S)
_RE_VALUE = re.compile(r"%([\w$.#-]+)")


def _ints(core, text: str) -> list[int]:
    """``1, %i, 4`` -> integers (SSA values looked up)."""
    out = []
    for part in (p.strip() for p in text.split(",")):
        out.append(int(core.val(part[1:])) if part.startswith("%") else int(part))
    return out


def _not_modelled(op, why: str):
    return NotModelled(f"not modelled: {op.name} ({why}): {format_op(op)}")


# --------------------------------------------------------------------------- memref
def copy(core, op: b.Copy):
    src, dst = core.val(op.source), core.val(op.target)
    if src.shape != dst.shape:
        raise _not_modelled(op, f"shapes {src.shape} and {dst.shape} differ")
    core.read(src)
    dst[...] = src
    core.wrote(dst)
    core.proc.t += 1


def subview(core, op: b.Subview):
    buf = core.val(op.source)
    offsets, sizes, strides = (_ints(core, t) for t in (op.offsets, op.sizes, op.strides))
    if not len(offsets) == len(sizes) == len(strides) == buf.ndim:
        raise _not_modelled(op, f"a {buf.ndim}-d memref")
    view = buf[tuple(slice(o, o + s * st, st) for o, s, st in zip(offsets, sizes, strides))]
    if view.shape != tuple(sizes):
        raise _not_modelled(op, "the view reaches outside the memref")
    shape = v.shaped(op.type)
    if shape is not None and shape[0] != view.shape:
        if int(np.prod(shape[0])) != view.size:
            raise _not_modelled(op, f"result shape {shape[0]} of a {view.shape} view")
        view = view.reshape(shape[0])  # drops unit dimensions: still a view
    core.set(op, view)


# --------------------------------------------------------------------------- transfers
def _minor_identity(op) -> None:
    attrs = op.attrs or ""
    if "permutation_map" in attrs and not re.search(
        r"permutation_map\s*=\s*affine_map<\(([^)]*)\)\s*->\s*\(\1\)>", attrs
    ):
        raise _not_modelled(op, "a permutation map other than the identity")


def _positions(core, op, buf: np.ndarray) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    """Per vector element: its memref indices and whether it lies inside the memref (and
    its mask, if any, is set)."""
    _minor_identity(op)
    vshape = v.shaped(op.type)[0]
    idx = [int(core.val(i)) for i in op.indices]
    if len(idx) != buf.ndim or len(vshape) > buf.ndim:
        raise _not_modelled(op, f"{len(idx)} indices on a {buf.ndim}-d memref")
    lead = buf.ndim - len(vshape)
    grids = np.indices(vshape) if vshape else np.zeros((0,), np.int64)
    pos = [np.full(vshape, i, np.int64) for i in idx[:lead]]
    pos += [grids[d] + idx[lead + d] for d in range(len(vshape))]
    inside = np.ones(vshape, bool)
    for p, n in zip(pos, buf.shape):
        inside &= (p >= 0) & (p < n)
    if op.mask is not None:
        inside &= np.asarray(core.val(op.mask), bool).reshape(vshape)
    clipped = tuple(np.clip(p, 0, max(n - 1, 0)) for p, n in zip(pos, buf.shape))
    return clipped, inside


def window(op, buf: np.ndarray, idx: tuple[int, ...], vshape: tuple[int, ...]) -> tuple:
    """The index of a ``vector.load`` / ``store`` on a strided view: the vector covers the
    view's innermost dimensions from ``idx``; one reaching outside the view is not modelled
    (MLIR leaves it undefined)."""
    lead = len(idx) - len(vshape)
    if lead < 0 or any(i + n > size for i, n, size in zip(idx[lead:], vshape, buf.shape[lead:])):
        raise _not_modelled(op, f"a {vshape} vector at {idx} reaches outside the {buf.shape} view")
    return tuple(idx[:lead]) + tuple(slice(i, i + n) for i, n in zip(idx[lead:], vshape))


def transfer_read(core, op: b.TransferRead):
    buf = core.val(op.base)
    core.read(buf)
    pos, inside = _positions(core, op, buf)
    et = v.element(op.type)
    pad = np.asarray(v.pack(core.val(op.padding), op.type) if v.is_float(et) else core.val(op.padding))
    core.set(op, np.where(inside, buf[pos], pad.astype(buf.dtype)))
    core.proc.t += 1


def transfer_write(core, op: b.TransferWrite):
    buf = core.val(op.base)
    pos, inside = _positions(core, op, buf)
    value = np.asarray(core.val(op.value)).reshape(inside.shape)
    buf[tuple(p[inside] for p in pos)] = value[inside]
    core.wrote(buf)
    core.proc.t += 1


# --------------------------------------------------------------------------- vector values
def splat(core, op: b.Splat):
    core.set(op, v.pack(core.val(op.source), op.type))


def _where(core, op, vec: np.ndarray) -> tuple[int, ...]:
    pos = tuple(_ints(core, op.position)) if op.position.strip() else ()
    if len(pos) > vec.ndim or any(not 0 <= p < n for p, n in zip(pos, vec.shape)):
        raise _not_modelled(op, f"position {pos} outside a {vec.shape} vector")
    return pos


def extract(core, op: b.Extract):
    vec = core.val(op.vector)
    r = vec[_where(core, op, vec)]
    if isinstance(r, np.ndarray) and r.ndim:
        core.set(op, r.copy())
    else:
        core.set(op, v.pack(v.num(np.asarray(r), v.element(op.source_type)), op.type))


def insert(core, op: b.Insert):
    vec = np.array(core.val(op.dest), copy=True)
    src = core.val(op.source)
    if not isinstance(src, np.ndarray):  # a scalar as the vector holds its elements
        src = bf16.to_bf16(np.float32(src)) if v.element(op.type) == "bf16" else src
    vec[_where(core, op, vec)] = src
    core.set(op, vec)


def _f64(core, name: str, et: str):
    return np.asarray(v.num(core.val(name), et), np.float64)


def fma(core, op: b.Fma):
    et = v.element(op.type)
    a, c, acc = (_f64(core, n, et) for n in (op.lhs, op.rhs, op.acc))
    core.set(op, v.pack(a * c + acc, op.type))


_REDUCE = {
    "add": np.sum, "mul": np.prod, "minsi": np.min, "maxsi": np.max, "minimumf": np.min,
    "maximumf": np.max, "minnumf": np.nanmin, "maxnumf": np.nanmax, "and": np.bitwise_and.reduce,
    "or": np.bitwise_or.reduce, "xor": np.bitwise_xor.reduce,
}  # fmt: skip


def reduction(core, op: b.Reduction):
    et = v.element(op.source_type)
    x = np.asarray(v.num(core.val(op.vector), et)).reshape(-1)
    if op.kind in ("minui", "maxui"):
        x = x.astype(np.int64) % (1 << v.INT_BITS[et])
        kind = op.kind.replace("ui", "si")
    else:
        kind = op.kind
    if kind not in _REDUCE:
        raise _not_modelled(op, f"kind <{op.kind}>")
    x = x.astype(np.float64) if v.is_float(et) else x.astype(np.int64)
    if op.acc is not None:
        x = np.append(x, np.asarray(v.num(core.val(op.acc), et), x.dtype))
    core.set(op, v.pack(_REDUCE[kind](x), op.type))


_UNARY = {
    "negf": np.negative, "exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2,
    "tanh": np.tanh, "sqrt": np.sqrt, "rsqrt": lambda x: 1.0 / np.sqrt(x), "absf": np.abs,
    "absi": np.abs, "floor": np.floor, "ceil": np.ceil, "sin": np.sin, "cos": np.cos,
}  # fmt: skip


def unary(core, op: b.Unary):
    et = v.element(op.type)
    x = v.num(core.val(op.operand), et)
    x = np.asarray(x, np.float64 if v.is_float(et) else np.int64)
    with np.errstate(all="ignore"):  # NaN / inf as IEEE gives them
        r = _UNARY[op.name.split(".", 1)[1]](x)
    core.set(op, v.pack(r if r.ndim else r.item(), op.type))


# --------------------------------------------------------------------------- control flow
class _Condition(Exception):
    def __init__(self, cond, vals):
        self.cond, self.vals = cond, vals


class _Jump(Exception):
    def __init__(self, label: str, vals: list):
        self.label, self.vals = label, vals


def condition(core, op: b.Condition):
    raise _Condition(bool(core.val(op.cond)), [core.val(x) for x in op.values])


def _label(op) -> tuple[str, list[str]] | None:
    """(block name, argument names) of a block label line, else None."""
    if not isinstance(op, ir.Opaque):
        return None
    m = _RE_LABEL.match(op.text.strip())
    return None if m is None else (m.group(1), _RE_VALUE.findall(m.group(2) or ""))


def has_blocks(ops: list) -> bool:
    """The region has block labels: it runs as a control-flow graph (:func:`run_blocks`)."""
    return any(_label(op) is not None for op in ops)


def _jump(core, dest: str):
    m = _RE_SUCCESSOR.match(dest.strip())
    if m is None:
        raise NotModelled(f"not modelled: successor {dest!r}")
    operands = (m.group(2) or "").split(":", 1)[0]
    raise _Jump(m.group(1), [core.val(x) for x in _RE_VALUE.findall(operands)])


def branch(core, op: b.Branch):
    _jump(core, op.dest)


def cond_branch(core, op: b.CondBranch):
    _jump(core, op.true_dest if core.val(op.cond) else op.false_dest)


def run_blocks(core, ops: list):
    """Generator: a region of blocks from its entry block, following ``cf`` branches."""
    blocks: dict[str, tuple[list[str], list]] = {}
    entry: list = []
    current = entry
    for op in ops:
        lab = _label(op)
        if lab is not None:
            current = []
            blocks[lab[0]] = (lab[1], current)
        else:
            current.append(op)
    todo = entry
    while todo is not None:
        try:
            yield from core.straight(todo)
            todo = None  # fell off the end (aie.end)
        except _Jump as j:
            if j.label not in blocks:
                raise NotModelled(f"not modelled: a branch to ^{j.label}, which this region lacks")
            names, todo = blocks[j.label]
            progress.core_steps(core.engine, core.proc, len(todo) + 1)  # a branch back may loop
            core.env.update(zip(names, j.vals))
            core.proc.t += 1


def scf_while(core, op: b.While):
    vals = [core.val(init) for _n, init in op.inits]
    names = [n for n, _init in op.inits]
    after = op.after
    args: list[str] = []
    if after and _label(after[0]) is not None:
        args, after = _label(after[0])[1], after[1:]
    while True:
        progress.core_steps(core.engine, core.proc, len(op.before) + len(after) + 1)
        core.env.update(zip(names, vals))
        try:
            yield from core.block(op.before)
            raise NotModelled("not modelled: an scf.while whose before region ends without scf.condition")
        except _Condition as c:
            if not c.cond:
                core.set(op, *c.vals)
                return
            core.env.update(zip(args, c.vals))
        try:
            yield from core.block(after)
        except core.YIELD as y:
            vals = y.values
        core.proc.t += 1  # loop back-edge


#: op class -> handler(core, op), added to the interpreter's table.
HANDLERS = {
    b.Copy: copy,
    b.Subview: subview,
    b.TransferRead: transfer_read,
    b.TransferWrite: transfer_write,
    b.Splat: splat,
    b.Extract: extract,
    b.Insert: insert,
    b.Fma: fma,
    b.Reduction: reduction,
    b.Unary: unary,
    b.While: scf_while,
    b.Condition: condition,
    b.Branch: branch,
    b.CondBranch: cond_branch,
}
