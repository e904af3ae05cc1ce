"""The core interpreter: runs one ``aie.core`` body as a generator the engine schedules.

Modelled ops (anything else stops the core with "not modelled: <op>"; the engine
then reports the device's outputs as not modelled, the trace still runs):

* ``arith``: ``constant`` (integers, floats, booleans, splat ``dense<>`` vectors),
  the integer and float binary ops (``addi`` ... ``shrui``, ``maxsi`` ..., ``addf``
  ...), ``cmpi`` / ``cmpf``, ``select``, the casts (``index_cast``, ``extsi``,
  ``trunci``, ``sitofp`` ...); integers wrap at their width;
* ``scf.for`` (with ``iter_args``), ``scf.if`` / ``else``, ``scf.yield``;
* ``aie.objectfifo.acquire`` in today's form (the result is the buffer, or a
  subview when more than one is acquired) and the older
  ``!aie.objectfifosubview`` form with ``aie.objectfifo.subview.access``;
  ``aie.objectfifo.release``. An acquire that cannot be granted yields (blocks);
  acquires count cumulatively, as mlir-aie's stateful transform lowers them;
* ``func.call`` to a kernel: its model (:mod:`iron.runtime.sim.kernel_models`) is
  called with numpy views of the buffers; a kernel without a model does nothing and
  taints the device's outputs (not modelled);
* ``aie.put_cascade`` / ``aie.get_cascade`` of vectors (:mod:`iron.runtime.sim.cascade`);
  a get waits for its bytes;
* ``memref.load`` / ``memref.store``, ``vector.load`` / ``vector.store`` /
  ``vector.broadcast`` (element loops in Python: fine for small upstream examples);
* ``aie.end``.

Time: the core's clock advances by the engine's cost model
(:mod:`iron.runtime.sim.engine`), not cycle-accurately.
"""

from __future__ import annotations

import re

import numpy as np

from iron import bf16
from iron.runtime.sim import cascade
from iron.runtime.sim.program import Op

_NAME = r"[A-Za-z0-9_$.\-#]+"
_RE_SSA = re.compile(rf"%({_NAME})")
_RE_TYPE_MEMREF = re.compile(r"memref<((?:\d+x)*)(\w+)(?:,[^>]*)?>")
_RE_VECTOR = re.compile(r"vector<((?:\d+x)*)(\w+)>")
_RE_FOR = re.compile(
    rf"^%({_NAME})\s*=\s*(\S+)\s+to\s+(\S+)\s+step\s+(\S+)(?:\s+iter_args\((.*?)\))?(?:\s*->\s*\(?[^)]*\)?)?(?:\s*:\s*\w+)?\s*$"
)
_RE_ACQUIRE = re.compile(rf"^@({_NAME})\s*\(\s*(Produce|Consume)\s*,\s*(\d+)\s*\)\s*:\s*(.*)$")
_RE_RELEASE = re.compile(rf"^@({_NAME})\s*\(\s*(Produce|Consume)\s*,\s*(\d+)\s*\)")
_RE_CALL = re.compile(rf"^@({_NAME})\s*\((.*?)\)\s*:\s*\((.*?)\)\s*->")
_RE_INDEXED = re.compile(rf"^(?:(%{_NAME})\s*,\s*)?%({_NAME})\s*\[([^\]]*)\]\s*:\s*(.*)$")

_INT_BITS = {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64, "index": 64}
_NP = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "f32": np.float32,
       "ui8": np.uint8, "ui16": np.uint16, "ui32": np.uint32, "bf16": np.uint16, "i1": np.bool_}  # fmt: skip

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
_CASTS = {"index_cast", "index_castui", "extsi", "extui", "trunci", "sitofp", "uitofp", "fptosi", "fptoui",
          "extf", "truncf", "bitcast"}  # fmt: skip


class NotModelledOp(Exception):
    """The core reached an op sim does not interpret."""


class _Yield(Exception):
    def __init__(self, values):
        self.values = values


def _wrap(value, typ: str):
    """An integer result wrapped to its type's width (two's complement)."""
    bits = _INT_BITS.get(typ)
    if bits is None or bits >= 64 or isinstance(value, np.ndarray):
        return value
    if bits == 1:
        return int(value) & 1
    m = 1 << bits
    v = int(value) % m
    return v - m if v >= m >> 1 else v


def _scalar_type(text: str) -> str:
    """The element type at the end of ``... : T`` (a vector's element type for vectors)."""
    t = text.rsplit(":", 1)[-1].strip()
    m = _RE_VECTOR.search(t)
    return m.group(2) if m else t.split()[0] if t else ""


class Core:
    """One core's interpreter state; :meth:`run` is the generator the engine drives."""

    def __init__(self, prog, engine, proc):
        self.prog = prog  # CoreProgram
        self.engine = engine
        self.proc = proc  # the engine process (clock, tile)
        self.env: dict[str, object] = {}

    # ------------------------------------------------------------------ values
    def val(self, name: str):
        name = name.strip()
        if name.startswith("%"):
            name = name[1:]
        try:
            return self.env[name]
        except KeyError:
            raise NotModelledOp(f"value %{name} is not defined (its op is not modelled)") from None

    def run(self):
        yield from self.block(self.prog.body)

    def block(self, ops: list[Op]):
        for op in ops:
            h = _HANDLERS.get(op.name)
            if h is None:
                raise NotModelledOp(
                    f"not modelled: {op.name} (core ({self.proc.col},{self.proc.row}): {op.line})"
                )
            res = h(self, op)
            if res is not None and hasattr(res, "__next__"):
                yield from res

    # ------------------------------------------------------------------ arith
    def constant(self, op: Op):
        text = op.text
        value, _, typ = text.rpartition(":")
        value, typ = value.strip(), typ.strip()
        vm = _RE_VECTOR.match(typ)
        if value.startswith("dense<"):
            inner = value[len("dense<") : -1].strip()
            if not vm or inner.startswith("["):
                raise NotModelledOp(f"not modelled: arith.constant {text}")
            shape = tuple(int(d) for d in vm.group(1).split("x")[:-1])
            et = vm.group(2)
            v = float(inner) if "." in inner or "e" in inner.lower() else int(inner)
            self.env[op.results[0]] = (
                bf16.to_bf16(np.full(shape, v, np.float32)) if et == "bf16" else np.full(shape, v, _NP[et])
            )
            return
        if value in ("true", "false"):
            self.env[op.results[0]] = int(value == "true")
        elif typ.startswith("f") or typ == "bf16":
            self.env[op.results[0]] = float(value)
        else:
            self.env[op.results[0]] = _wrap(int(value, 0), typ)

    def binary(self, op: Op):
        kind = op.name.split(".", 1)[1]
        text = re.sub(r"overflow<[^>]*>|fastmath<[^>]*>", "", op.text)
        a, b = (self.val(x) for x in text.split(":")[0].split(","))
        typ = _scalar_type(text)
        if kind in ("divsi", "divui", "ceildivsi", "floordivsi"):
            r = np.floor_divide(a, b) if kind == "floordivsi" else (
                -(-a // b) if kind == "ceildivsi" else (np.trunc(np.divide(a, b)).astype(np.int64)
                                                        if isinstance(a, np.ndarray) else int(a / b)))  # fmt: skip
        elif kind in ("remsi", "remui"):
            with np.errstate(divide="ignore", invalid="ignore"):  # by 0: undefined in MLIR, 0 here
                r = np.fmod(a, b) if isinstance(a, np.ndarray) else int(np.fmod(a, b))
        elif kind == "shrui":
            bits = _INT_BITS.get(typ, 64)
            r = (
                (a % (1 << bits)) >> b
                if not isinstance(a, np.ndarray)
                else (a.view(f"u{a.itemsize}") >> b).view(a.dtype)
            )
        elif kind in _BIN:
            r = _BIN[kind](a, b)
            if not isinstance(r, np.ndarray):
                r = float(r) if typ.startswith("f") else int(r)
        else:
            raise NotModelledOp(f"not modelled: {op.name}")
        self.env[op.results[0]] = _wrap(r, typ)

    def compare(self, op: Op):
        pred, a, b = (x.strip() for x in op.text.split(":")[0].split(","))
        r = _CMP[pred](self.val(a), self.val(b))
        self.env[op.results[0]] = r if isinstance(r, np.ndarray) else int(r)

    def select(self, op: Op):
        c, a, b = (self.val(x) for x in op.text.split(":")[0].split(","))
        self.env[op.results[0]] = np.where(c, a, b) if isinstance(c, np.ndarray) else (a if c else b)

    def cast(self, op: Op):
        src, _, to = op.text.partition(":")
        v = self.val(src)
        to_t = to.split(" to ")[-1].strip()
        et = _scalar_type(": " + to_t)
        if isinstance(v, np.ndarray):
            self.env[op.results[0]] = v.astype(_NP.get(et, np.int64)) if et != "bf16" else bf16.to_bf16(v)
        elif et.startswith("f"):
            self.env[op.results[0]] = float(v)
        else:
            self.env[op.results[0]] = _wrap(int(v), et)

    # ------------------------------------------------------------------ scf
    def scf_for(self, op: Op):
        m = _RE_FOR.match(op.text)
        if m is None:
            raise NotModelledOp(f"not modelled: scf.for {op.text}")
        var, lb, ub, step = m.group(1), self.val(m.group(2)), self.val(m.group(3)), self.val(m.group(4))
        carried: list[tuple[str, object]] = []
        if m.group(5):
            for part in m.group(5).split(","):
                name, _, init = part.partition("=")
                carried.append((name.strip().lstrip("%"), self.val(init)))
        values = [v for _n, v in carried]
        for i in range(int(lb), int(ub), int(step)):
            self.env[var] = i
            for (name, _), v in zip(carried, values):
                self.env[name] = v
            try:
                yield from self.block(op.regions[0])
            except _Yield as y:
                values = y.values
            self.proc.t += 1  # loop back-edge
        for r, v in zip(op.results, values):
            self.env[r] = v

    def scf_if(self, op: Op):
        cond = self.val(op.text.split("->")[0].split()[0])
        region = op.regions[0] if cond else (op.regions[1] if len(op.regions) > 1 else [])
        try:
            yield from self.block(region)
        except _Yield as y:
            for r, v in zip(op.results, y.values):
                self.env[r] = v

    def scf_yield(self, op: Op):
        names = op.text.split(":")[0].strip()
        if names:
            raise _Yield([self.val(x) for x in names.split(",")])
        raise _Yield([])

    # ------------------------------------------------------------------ object FIFOs
    def acquire(self, op: Op):
        m = _RE_ACQUIRE.match(op.text)
        if m is None:
            raise NotModelledOp(f"not modelled: {op.line}")
        fifo, mode, n = m.group(1), m.group(2), int(m.group(3))
        bufs = yield from self.engine.acquire(self.proc, fifo, mode, n)
        subview = "objectfifosubview" in m.group(4) or n > 1
        self.env[op.results[0]] = list(bufs) if subview else bufs[0]

    def access(self, op: Op):
        m = re.match(rf"^%({_NAME})\s*\[\s*(\d+)\s*\]", op.text)
        self.env[op.results[0]] = self.val(m.group(1))[int(m.group(2))]

    def release(self, op: Op):
        m = _RE_RELEASE.match(op.text)
        self.engine.release(self.proc, m.group(1), m.group(2), int(m.group(3)))

    # ------------------------------------------------------------------ calls
    def call(self, op: Op):
        m = _RE_CALL.match(op.text)
        if m is None:
            raise NotModelledOp(f"not modelled: {op.line}")
        args = [self.val(a) for a in m.group(2).split(",")] if m.group(2).strip() else []
        waits = self.engine.call(self.proc, m.group(1), args, self.prog.link_with)
        for r in op.results:
            self.env[r] = 0
        return waits  # a generator when the kernel waits on its cascade

    # ------------------------------------------------------------------ cascade
    def put_cascade(self, op: Op):
        """``aie.put_cascade(%v : vector<...>)``: the value's bytes onto the outgoing cascade."""
        m = _RE_SSA.search(op.text)
        if m is None:
            raise NotModelledOp(f"not modelled: {op.line}")
        cascade.put(self.engine, self.proc, np.asarray(self.val(m.group(1))))

    def get_cascade(self, op: Op):
        """``%r = aie.get_cascade() : vector<...>``: waits for that many bytes from the incoming cascade."""
        vm = _RE_VECTOR.search(op.text)
        if vm is None:
            raise NotModelledOp(f"not modelled: {op.line} (a scalar cascade value)")
        shape = tuple(int(d) for d in vm.group(1).split("x")[:-1])
        dtype = np.dtype(_NP[vm.group(2)])
        data = yield from cascade.get(self.engine, self.proc, int(np.prod(shape)) * dtype.itemsize)
        self.env[op.results[0]] = data.view(dtype).reshape(shape)

    # ------------------------------------------------------------------ memory
    def _indexed(self, op: Op):
        m = _RE_INDEXED.match(op.text)
        if m is None:
            raise NotModelledOp(f"not modelled: {op.line}")
        buf = self.val(m.group(2))
        idx = tuple(int(self.val(i)) for i in m.group(3).split(",")) if m.group(3).strip() else ()
        return m, buf, idx

    def load(self, op: Op):
        _m, buf, idx = self._indexed(op)
        v = buf[idx]
        if "bf16" in op.text.split(":")[-1]:
            v = float(bf16.from_bf16(np.asarray(v, np.uint16)))
        self.env[op.results[0]] = v.item() if isinstance(v, np.generic) else v

    def store(self, op: Op):
        m, buf, idx = self._indexed(op)
        v = self.val(m.group(1))
        buf[idx] = bf16.to_bf16(np.float32(v)) if buf.dtype == np.uint16 and isinstance(v, float) else v
        self.proc.t += 1

    def vload(self, op: Op):
        _m, buf, idx = self._indexed(op)
        vm = _RE_VECTOR.search(op.text)
        n = int(np.prod([int(d) for d in vm.group(1).split("x")[:-1]]))
        flat = int(np.ravel_multi_index(idx, buf.shape)) if idx else 0
        self.env[op.results[0]] = buf.reshape(-1)[flat : flat + n].copy()
        self.proc.t += 1

    def vstore(self, op: Op):
        m, buf, idx = self._indexed(op)
        v = np.asarray(self.val(m.group(1)))
        flat = int(np.ravel_multi_index(idx, buf.shape)) if idx else 0
        buf.reshape(-1)[flat : flat + v.size] = v.reshape(-1)
        self.proc.t += 1

    def broadcast(self, op: Op):
        src, _, to = op.text.partition(":")
        vm = _RE_VECTOR.search(to)
        shape = tuple(int(d) for d in vm.group(1).split("x")[:-1])
        et = vm.group(2)
        v = self.val(src)
        self.env[op.results[0]] = (
            bf16.to_bf16(np.full(shape, v, np.float32)) if et == "bf16" else np.full(shape, v, _NP[et])
        )

    def event(self, op: Op):
        """``aie.event(n)``: the core raises INSTR_EVENT_n (what a kernel's event0()/event1() do)."""
        n = int(op.text.strip("() "))
        self.engine._ev(self.proc.col, self.proc.row, "core", self.proc.t, 1, f"INSTR_EVENT_{n}")
        self.proc.t += 1

    def end(self, op: Op):
        return None


_HANDLERS = {
    "arith.constant": Core.constant,
    **{f"arith.{k}": Core.binary for k in list(_BIN) + ["divsi", "divui", "remsi", "remui", "shrui",
                                                         "ceildivsi", "floordivsi"]},  # fmt: skip
    "arith.cmpi": Core.compare,
    "arith.cmpf": Core.compare,
    "arith.select": Core.select,
    **{f"arith.{k}": Core.cast for k in _CASTS},
    "scf.for": Core.scf_for,
    "scf.if": Core.scf_if,
    "scf.yield": Core.scf_yield,
    "aie.objectfifo.acquire": Core.acquire,
    "aie.objectfifo.subview.access": Core.access,
    "aie.objectfifo.release": Core.release,
    "func.call": Core.call,
    "call": Core.call,
    "memref.load": Core.load,
    "memref.store": Core.store,
    "vector.load": Core.vload,
    "vector.store": Core.vstore,
    "vector.broadcast": Core.broadcast,
    "aie.end": Core.end,
    "aie.event": Core.event,
    "aie.put_cascade": Core.put_cascade,
    "aie.get_cascade": Core.get_cascade,
}
