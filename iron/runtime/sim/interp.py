"""The core interpreter: runs one ``aie.core`` body as a generator the engine schedules.

The body is the reader's op objects (:mod:`iron.mlir.body`); each handler reads its op's
fields. Modelled ops (an :class:`iron.mlir.ir.Opaque` op stops the core with "not
modelled: <op>"; the engine then reports the device's outputs as not modelled, the
trace still runs):

* ``arith``: ``constant`` (integers, floats, booleans, splat ``dense<>`` vectors),
  the integer and float binary ops (``addi`` ... ``shrui``, ``maxsi`` ..., ``addf``
  ...), ``cmpi`` / ``cmpf``, ``select``, the casts (``index_cast``, ``extsi``,
  ``trunci``, ``sitofp`` ...); integers wrap at their width;
* ``scf.for`` (with ``iter_args``), ``scf.if`` / ``else``, ``scf.yield``; ``affine.for`` with
  literal or SSA bounds, ``affine.yield``, ``affine.load`` / ``store`` at affine index
  expressions, ``affine.apply`` of an inline map (:mod:`iron.runtime.sim.affine_ops`);
* ``aie.objectfifo.acquire`` in today's form (the results are the buffers) and the older
  ``!aie.objectfifosubview`` form with ``aie.objectfifo.subview.access``;
  ``aie.objectfifo.release``. An acquire that cannot be granted yields (blocks);
  acquires count cumulatively, as mlir-aie's stateful transform lowers them;
* ``func.call`` to a kernel: its model (:mod:`iron.runtime.sim.kernel_models`) is
  called with numpy views of the buffers (a user's model first: ``load(kernels=)``); a
  kernel without a model does nothing and marks the buffers it was handed: only the
  outputs their values reach are not modelled (:mod:`iron.runtime.sim.taint`);
* ``aie.put_cascade`` / ``aie.get_cascade`` of vectors (:mod:`iron.runtime.sim.cascade`);
  a get waits for its bytes;
* ``memref.load`` / ``memref.store``, ``vector.load`` / ``vector.store`` /
  ``vector.broadcast`` (element loops in Python: fine for small upstream examples);
* ``aie.event`` (INSTR_EVENT_n), ``aie.end``;
* a design's own ``aie.buffer`` values (views of the tile memory its static DMA programs move)
  and ``aie.use_lock`` on its ``aie.lock``s (:mod:`iron.runtime.sim.static_dma`; an acquire that
  cannot be granted yields).

Time: the core's clock advances by the engine's cost model
(:mod:`iron.runtime.sim.engine`), not cycle-accurately.
"""

from __future__ import annotations

import functools
import re

import numpy as np

from iron import bf16
from iron.mlir import body as b
from iron.mlir import ir
from iron.mlir.form import format_op
from iron.runtime.sim import affine_ops, cascade, progress, static_dma, values, vector_ops
from iron.runtime.sim.errors import SimError

_RE_RESULT_GROUP = re.compile(r"^(.*):(\d+)$")
_RE_OP_NAME = re.compile(r"^(?:%[^=]*=\s*)?(\S+?)(?:\(|\s|$)")
_INT_BITS, _NP = values.INT_BITS, values.NP

_BIN = {
    "addi": np.add, "subi": np.subtract, "muli": np.multiply, "andi": np.bitwise_and,
    "ori": np.bitwise_or, "xori": np.bitwise_xor, "maxsi": np.maximum, "minsi": np.minimum,
    "maxui": np.maximum, "minui": np.minimum, "addf": np.add, "subf": np.subtract,
    "mulf": np.multiply, "divf": np.divide, "maximumf": np.maximum, "minimumf": np.minimum,
    "maxnumf": np.fmax, "minnumf": np.fmin, "shli": np.left_shift, "shrsi": np.right_shift,
}  # fmt: skip
_CMP = {
    "eq": np.equal, "ne": np.not_equal, "slt": np.less, "sle": np.less_equal, "sgt": np.greater,
    "sge": np.greater_equal, "ult": np.less, "ule": np.less_equal, "ugt": np.greater, "uge": np.greater_equal,
    "oeq": np.equal, "one": np.not_equal, "olt": np.less, "ole": np.less_equal, "ogt": np.greater,
    "oge": np.greater_equal, "ueq": np.equal, "une": np.not_equal,
}  # fmt: skip


NotModelledOp = values.NotModelledOp


class _Yield(Exception):
    def __init__(self, values):
        self.values = values


_wrap, _shaped, _element = values.wrap, values.shaped, values.element


def _names(results) -> tuple[str, ...]:
    """SSA names an op defines: a group ``%0:2`` is ``%0#0``, ``%0#1``."""
    return _names_of(results) if isinstance(results, tuple) else _split_names(results)


@functools.lru_cache(maxsize=4096)
def _names_of(results: tuple) -> tuple[str, ...]:
    # the same op runs at every loop iteration: its names are split once
    return _split_names(results)


def _split_names(results) -> tuple[str, ...]:
    out: list[str] = []
    for r in results:
        m = _RE_RESULT_GROUP.match(r)
        out += [f"{m.group(1)}#{k}" for k in range(int(m.group(2)))] if m else [r]
    return tuple(out)


@functools.lru_cache(maxsize=4096)
def _scalar(value: str, typ: str):
    """A scalar ``arith.constant``'s value (immutable: read once per spelling, not per iteration)."""
    if value in ("true", "false"):
        return int(value == "true")
    if typ.startswith("f") or typ == "bf16":
        return float(value)
    return _wrap(int(value, 0), typ)


def _dense(value: str, typ: str) -> np.ndarray:
    """A splat ``dense<>`` vector constant (a new array each time: vectors may be written in place)."""
    inner = value[len("dense<") : -1].strip()
    if not typ.startswith("vector<") or inner.startswith("["):
        raise NotModelledOp(f"not modelled: arith.constant {value} : {typ}")
    shape, et = _shaped(typ)
    v = float(inner) if "." in inner or "e" in inner.lower() else int(inner)
    return bf16.to_bf16(np.full(shape, v, np.float32)) if et == "bf16" else np.full(shape, v, _NP[et])


def _handler(op):
    """What runs ``op`` (None: it is not modelled)."""
    h = _HANDLERS.get(type(op))
    if h is None and isinstance(op, ir.Opaque) and op.text.lstrip().startswith("aie.use_lock"):
        h = Core.use_lock
    return h


def _describe(op) -> tuple[str, str]:
    """(op name, the op's line) for messages; an opaque op's name is its text's first op word."""
    if isinstance(op, ir.Opaque):
        line = op.text.split("\n", 1)[0]
        m = _RE_OP_NAME.match(line)
        return (m.group(1) if m else line), line
    return op.name, format_op(op)


class Core:
    """One core's interpreter state; :meth:`run` is the generator the engine drives."""

    YIELD = _Yield  # what scf.yield raises (iron.runtime.sim.vector_ops catches it)

    def __init__(self, prog, engine, proc):
        self.prog = prog  # CoreProgram
        self.engine = engine
        self.proc = proc  # the engine process (clock, tile)
        self.env: dict[str, object] = {}
        self.op = None  # the op running (where a "not modelled" stopped the core)
        #: id(region ops) -> (ops, its (op, handler) pairs; None: it has block labels), kept by the
        #: program (made once for every core running it)
        self._cfg: dict[int, tuple[list, list | None]] = getattr(prog, "regions", {})
        #: Why values this core loaded are not modelled (iron.runtime.sim.taint): what it
        #: stores from then on is marked too.
        self.taint: str | None = None
        static = getattr(getattr(engine, "device", None), "static_dma", None)
        if static is not None:  # the design's aie.buffer values: views of the tile memories
            self.env.update(static.views(engine.device.tile_dmas._memory))

    # ------------------------------------------------------------------ values
    def val(self, name: str):
        try:
            return self.env[name]
        except KeyError:
            raise NotModelledOp(f"value %{name} is not defined (its op is not modelled)") from None

    def set(self, op, *values) -> None:
        """Bind the op's results to ``values`` in order."""
        self.env.update(zip(_names(op.results), values))

    def run(self):
        yield from self.block(self.prog.body)

    def block(self, ops: list):
        """Generator: run a region's ops (a region with block labels follows its branches)."""
        steps = self._steps(ops)
        return vector_ops.run_blocks(self, ops) if steps is None else self._run(steps)

    def _steps(self, ops: list) -> list | None:
        """A region's ``(op, handler)`` pairs (None: it has block labels), made once per region."""
        known = self._cfg.get(id(ops))
        if known is None:  # once per region; the entry keeps the list alive, so its id stays its own
            steps = None if vector_ops.has_blocks(ops) else [(op, _handler(op)) for op in ops]
            known = self._cfg[id(ops)] = (ops, steps)
        return known[1]

    def straight(self, ops: list):
        """Generator: run a block's ops in order."""
        return self._run([(op, _handler(op)) for op in ops])

    def _run(self, steps: list):
        """Generator: run ``(op, handler)`` pairs in order (handlers looked up once per region)."""
        for op, h in steps:
            self.op = op
            if h is None:
                self._not_modelled(op)
            res = h(self, op)
            if res is not None and hasattr(res, "__next__"):
                yield from res

    def _not_modelled(self, op):
        name, line = _describe(op)
        raise NotModelledOp(f"not modelled: {name} (core ({self.proc.col},{self.proc.row}): {line})")

    def at(self) -> str:
        """`` at <where>:<line>`` of the op running in the device's MLIR ("" if not found)."""
        if self.op is None:
            return ""
        line = self.engine.prog.line_of(self.prog.tile, _describe(self.op)[1])
        return "" if line is None else f" at {self.engine.prog.where}:{line}"

    # ------------------------------------------------------------------ arith
    def constant(self, op: b.Constant):
        typ = op.type or "i1"
        self.set(op, _dense(op.value, typ) if op.value.startswith("dense<") else _scalar(op.value, typ))

    def binary(self, op: b.Binary):
        kind = op.name.split(".", 1)[1]
        typ = _element(op.type)
        a, c = values.num(self.val(op.lhs), typ), values.num(self.val(op.rhs), typ)
        if kind in ("divsi", "divui", "ceildivsi", "floordivsi"):
            if np.any(np.asarray(c) == 0):
                raise SimError(
                    f"core ({self.proc.col},{self.proc.row}): `{format_op(op)}` divides by zero (undefined "
                    "behaviour in MLIR's arith dialect); accepted: a non-zero divisor"
                )
            r = np.floor_divide(a, c) if kind == "floordivsi" else (
                -(-a // c) if kind == "ceildivsi" else (np.trunc(np.divide(a, c)).astype(np.int64)
                                                        if isinstance(a, np.ndarray) else int(a / c)))  # fmt: skip
        elif kind in ("remsi", "remui"):
            with np.errstate(divide="ignore", invalid="ignore"):  # by 0: undefined in MLIR, 0 here
                r = np.fmod(a, c) if isinstance(a, np.ndarray) else int(np.fmod(a, c))
        elif kind == "shrui":
            bits = _INT_BITS.get(typ, 64)
            r = (
                (a % (1 << bits)) >> c
                if not isinstance(a, np.ndarray)
                else (a.view(f"u{a.itemsize}") >> c).view(a.dtype)
            )
        elif kind in _BIN:
            r = _BIN[kind](a, c)
            if not isinstance(r, np.ndarray):
                r = float(r) if typ.startswith("f") else int(r)
        else:
            raise NotModelledOp(f"not modelled: {op.name}")
        self.set(op, values.pack(r, op.type) if isinstance(r, np.ndarray) else _wrap(r, typ))

    def compare(self, op: b.Compare):
        if op.predicate not in _CMP:
            raise NotModelledOp(f"not modelled: {op.name} predicate {op.predicate}")
        et = _element(op.type)
        r = _CMP[op.predicate](values.num(self.val(op.lhs), et), values.num(self.val(op.rhs), et))
        self.set(op, r if isinstance(r, np.ndarray) else int(r))

    def select(self, op: b.Select):
        c, x, y = self.val(op.cond), self.val(op.true_value), self.val(op.false_value)
        self.set(op, np.where(c, x, y) if isinstance(c, np.ndarray) else (x if c else y))

    def cast(self, op: b.Cast):
        """``arith`` casts: extensions and truncations wrap or round once (bf16 to nearest-even),
        ``fpto*i`` truncate toward zero, ``ext/uito/index_castui`` read the source as unsigned."""
        kind, v = op.name.split(".", 1)[1], self.val(op.source)
        src, et = _element(op.source_type), _element(op.type)
        if kind == "bitcast":
            if not isinstance(v, np.ndarray):
                raise NotModelledOp(f"not modelled: {format_op(op)} (a scalar bitcast)")
            self.set(op, v.view(_NP[et]).reshape(_shaped(op.type)[0]))
            return
        x = values.num(v, src)
        if kind in ("extui", "uitofp", "index_castui") and not values.is_float(src):
            bits = _INT_BITS.get(src, 64)
            x = x.astype(np.int64) % (1 << bits) if isinstance(x, np.ndarray) else int(x) % (1 << bits)
        if kind in ("fptosi", "fptoui"):
            x = np.trunc(x) if isinstance(x, np.ndarray) else int(x)
        self.set(op, values.pack(x, op.type))

    # ------------------------------------------------------------------ scf
    def scf_for(self, op: b.For):
        lb, ub, step = (int(self.val(x)) for x in (op.lower, op.upper, op.step))
        if step <= 0:  # scf.for's verifier: "constant step operand must be positive"
            raise SimError(
                f"core ({self.proc.col},{self.proc.row}): {format_op(op).splitlines()[0]} has step {step}; "
                "accepted: a positive step (scf.for's verifier: 'constant step operand must be positive')"
            )
        return self.count(op, lb, ub, step)

    def count(self, op, lb: int, ub: int, step: int):
        """Generator: a counted loop's body (``scf.for``, ``affine.for``) for ``iv`` from ``lb``
        below ``ub`` by ``step``, its ``iter_args`` carried by the body's yield; the op's results
        are their last values."""
        names = [name for name, _init in op.iter_args]
        values = [self.val(init) for _name, init in op.iter_args]
        steps, cost, env = self._steps(op.body), len(op.body) + 1, self.env
        for i in range(lb, ub, step):
            progress.core_steps(self.engine, self.proc, cost)
            env[op.iv] = i
            env.update(zip(names, values))
            try:
                if steps is None:
                    yield from vector_ops.run_blocks(self, op.body)
                else:
                    for o, h in steps:  # self._run inlined: one generator less per iteration and wait
                        self.op = o
                        if h is None:
                            self._not_modelled(o)
                        res = h(self, o)
                        if res is not None and hasattr(res, "__next__"):
                            yield from res
            except _Yield as y:
                values = y.values
            self.proc.t += 1  # loop back-edge
        self.set(op, *values)

    def scf_if(self, op: b.If):
        try:
            yield from self.block(op.then if self.val(op.cond) else op.orelse)
        except _Yield as y:
            self.set(op, *y.values)

    def scf_yield(self, op: b.Yield):
        raise _Yield([self.val(v) for v in op.values])

    # ------------------------------------------------------------------ object FIFOs
    def acquire(self, op: b.Acquire):
        """The buffers bound now when the acquire is granted at once, else a generator that
        waits for them (:func:`iron.runtime.sim.ports.acquire`)."""
        got = self.engine.acquire(self.proc, op.fifo, op.port, op.size)
        if isinstance(got, list):
            self._bind(op, got)
            return None
        return self._acquire_later(op, got)

    def _acquire_later(self, op: b.Acquire, waiting):
        self._bind(op, (yield from waiting))

    def _bind(self, op: b.Acquire, bufs: list) -> None:
        names = _names(op.results)
        if op.subview or len(names) != len(bufs):  # the older form: one subview of them all
            self.env[names[0]] = list(bufs)
        else:  # today's form: the buffers themselves
            self.set(op, *bufs)

    def access(self, op: b.SubviewAccess):
        self.set(op, self.val(op.subview)[op.index])

    def release(self, op: b.Release):
        self.engine.release(self.proc, op.fifo, op.port, op.size)

    # ------------------------------------------------------------------ calls
    def call(self, op: b.Call):
        args = [self.val(a) for a in op.args]
        waits = self.engine.call(self.proc, op.callee, args, self.prog.link_with)
        self.env.update((r, 0) for r in _names(op.results))
        if op.results:  # a scalar result of a call on marked buffers is not modelled either
            self.taint = self.taint or self.engine.taint.of(*args)
        return waits  # a generator when the kernel waits on its cascade

    def read(self, buf) -> None:
        """The core reads values from ``buf``: a mark on it taints the core."""
        self.taint = self.taint or self.engine.taint.of(buf)

    def wrote(self, buf) -> None:
        """The core wrote into ``buf``: marked if the core is tainted."""
        if self.taint is not None and not self.engine.taint.mark([buf], self.taint):
            self.engine.void(self.taint)

    # ------------------------------------------------------------------ cascade
    def put_cascade(self, op: b.PutCascade):
        """``aie.put_cascade(%v : vector<...>)``: the value's bytes onto the outgoing cascade."""
        if self.taint is not None:
            self.engine.void(self.taint)  # a cascade carries no mark
        cascade.put(self.engine, self.proc, np.asarray(self.val(op.value)))

    def get_cascade(self, op: b.GetCascade):
        """``%r = aie.get_cascade() : vector<...>``: waits for that many bytes from the incoming cascade."""
        if not op.type.startswith("vector<"):
            raise NotModelledOp(f"not modelled: {format_op(op)} (a scalar cascade value)")
        shape, et = _shaped(op.type)
        dtype = np.dtype(_NP[et])
        data = yield from cascade.get(self.engine, self.proc, int(np.prod(shape)) * dtype.itemsize)
        self.set(op, data.view(dtype).reshape(shape))

    # ------------------------------------------------------------------ memory
    def _indexed(self, memref: str, indices, span: int = 1) -> tuple[np.ndarray, tuple[int, ...]]:
        """The buffer and the indices of an access; one outside the buffer (``span`` elements
        from the indices) is a :class:`SimError`: undefined in MLIR, never numpy's wrap-around."""
        buf, idx = self.val(memref), tuple(int(self.val(i)) for i in indices)
        shape = np.shape(buf)
        inside = len(idx) == len(shape) and all(0 <= i < n for i, n in zip(idx, shape))
        if inside and span > 1 and buf.flags.c_contiguous:  # a strided view: its window checks itself
            inside = (int(np.ravel_multi_index(idx, shape)) if idx else 0) + span <= int(np.prod(shape))
        if not inside:
            raise SimError(
                f"core ({self.proc.col},{self.proc.row}): access %{memref}[{', '.join(map(str, idx))}] "
                f"({span} element(s)) outside its {'x'.join(map(str, shape))} elements; accepted: indices "
                "inside the buffer (an access outside is undefined in MLIR's memref dialect)"
            )
        return buf, idx

    def load(self, op: b.Load):
        buf, idx = self._indexed(op.memref, op.indices)
        self.read(buf)
        v = buf[idx]
        if _element(op.type) == "bf16":
            v = float(bf16.from_bf16(np.asarray(v, np.uint16)))
        self.set(op, v.item() if isinstance(v, np.generic) else v)

    def store(self, op: b.Store):
        buf, idx = self._indexed(op.memref, op.indices)
        v = self.val(op.value)
        buf[idx] = bf16.to_bf16(np.float32(v)) if buf.dtype == np.uint16 and isinstance(v, float) else v
        self.wrote(buf)
        self.proc.t += 1

    def vload(self, op: b.VectorLoad):
        shape = _shaped(op.type)[0]
        buf, idx = self._indexed(op.base, op.indices, int(np.prod(shape)))
        self.read(buf)
        if not buf.flags.c_contiguous:  # a strided view (memref.subview): along its own dimensions
            self.set(op, buf[vector_ops.window(op, buf, idx, shape)].copy())
        else:
            flat = int(np.ravel_multi_index(idx, buf.shape)) if idx else 0
            self.set(op, buf.reshape(-1)[flat : flat + int(np.prod(shape))].reshape(shape).copy())
        self.proc.t += 1

    def vstore(self, op: b.VectorStore):
        v = np.asarray(self.val(op.value))
        buf, idx = self._indexed(op.base, op.indices, v.size)
        if not buf.flags.c_contiguous:
            buf[vector_ops.window(op, buf, idx, v.shape)] = v
        else:
            flat = int(np.ravel_multi_index(idx, buf.shape)) if idx else 0
            buf.reshape(-1)[flat : flat + v.size] = v.reshape(-1)
        self.wrote(buf)
        self.proc.t += 1

    def broadcast(self, op: b.Broadcast):
        shape, et = _shaped(op.type)
        v = self.val(op.source)
        self.set(
            op, bf16.to_bf16(np.full(shape, v, np.float32)) if et == "bf16" else np.full(shape, v, _NP[et])
        )

    def event(self, op: b.Event):
        """``aie.event(n)``: the core raises INSTR_EVENT_n (what a kernel's event0()/event1() do)."""
        self.engine._ev(self.proc.col, self.proc.row, "core", self.proc.t, 1, f"INSTR_EVENT_{op.value}")
        self.proc.t += 1

    def use_lock(self, op: ir.Opaque):
        """``aie.use_lock`` on a design's own locks (:func:`iron.runtime.sim.static_dma.core_use_lock`)."""
        return static_dma.core_use_lock(self, op.text)

    def not_modelled(self, why: str) -> Exception:
        return NotModelledOp(why)

    def end(self, op: b.End):
        return None


#: What runs each declared op (iron.mlir.body); an op not here, or kept opaque, is not modelled.
_HANDLERS = {
    b.Constant: Core.constant,
    b.Binary: Core.binary,
    b.Compare: Core.compare,
    b.Select: Core.select,
    b.Cast: Core.cast,
    b.For: Core.scf_for,
    b.If: Core.scf_if,
    b.Yield: Core.scf_yield,
    b.Acquire: Core.acquire,
    b.SubviewAccess: Core.access,
    b.Release: Core.release,
    b.Call: Core.call,
    b.Load: Core.load,
    b.Store: Core.store,
    b.VectorLoad: Core.vload,
    b.VectorStore: Core.vstore,
    b.Broadcast: Core.broadcast,
    b.End: Core.end,
    b.Event: Core.event,
    b.PutCascade: Core.put_cascade,
    b.GetCascade: Core.get_cascade,
    **vector_ops.HANDLERS,
    **affine_ops.HANDLERS,
}
