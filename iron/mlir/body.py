"""The ops of an ``aie.core`` region, declared once each (:mod:`iron.mlir.form`).

:class:`iron.mlir.ir.Core` holds its body as a list of these objects (regions nested,
any other op an :class:`iron.mlir.ir.Opaque` line); the printer prints and the reader
reads every one of them from its :class:`~iron.mlir.form.Form`, and sim
(:mod:`iron.runtime.sim.interp`) runs them by their fields. SSA names are kept without
the ``%``; types are kept as MLIR writes them (``memref<16xi32>``, ``vector<16xbf16>``).

Each form is the text upstream's tools print, checked against generated MLIR in
``iron/tests/data/designs`` (aiecc / IRON output: constants, ``scf.for``, both acquire
forms, ``subview.access``, ``func.call``, ``memref.load``/``store``, ``arith.addi`` /
``muli`` / ``remsi``; see its SOURCES.md) and ``iron/tests/data/upstream/aie_test1.mlir``
(aiecc's output with today's acquire, whose results are the buffers), MLIR's own printers
for the rest (``scf.for`` ``iter_args(...) -> (types)``, ``scf.if ... -> (types)`` and
``} else {``, ``arith.cmpi <predicate>, ...``, casts ``%x : T to U``, ``vector.load
%m[%i] : memref<..>, vector<..>``) and mlir-aie's ``AIE.td`` assembly formats for
``aie.put_cascade(%v : vector<..>)``, ``aie.get_cascade() : vector<..>``, ``aie.event(n)``
and ``aie.end`` (``iron/tests/test_sim_cascade.py`` and ``test_mlir_body.py`` name the
files they were checked against).

The builders at the end make the bodies iron's operators need readable
(:func:`loop` around a list of ops, :func:`acquire` returning its op).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from iron.mlir.form import Form, declare

#: ``arith`` ops of two operands and one result (integer and float), as sim interprets them.
BINARY = tuple(
    f"arith.{k}"
    for k in (
        "addi subi muli divsi divui ceildivsi floordivsi remsi remui andi ori xori shli shrsi shrui "
        "maxsi minsi maxui minui addf subf mulf divf maximumf minimumf maxnumf minnumf"
    ).split()
)
#: ``arith`` casts ``%x : T to U``.
CASTS = tuple(
    f"arith.{k}"
    for k in "index_cast index_castui extsi extui trunci sitofp uitofp fptosi fptoui extf truncf bitcast".split()
)


# --------------------------------------------------------------------------- arith
@declare(Form("arith.constant", " {value}[? : {type}?]", results="1"))
@dataclass
class Constant:
    """``%c = arith.constant 4 : index``; ``value`` is the literal as written (``4``,
    ``1.000000e+00``, ``true``, ``dense<0>`` ...); an ``i1`` ``true``/``false`` has no type."""

    results: tuple[str]
    value: str
    type: str | None = None


@declare(Form(BINARY, " %{lhs}, %{rhs}[? {flags:attr}?] : {type}", results="1"))
@dataclass
class Binary:
    """``%r = arith.addi %a, %b : i32`` (``flags``: ``overflow<nsw>``, ``fastmath<fast>``)."""

    name: str
    results: tuple[str]
    lhs: str
    rhs: str
    type: str
    flags: str | None = None


@declare(
    Form(("arith.cmpi", "arith.cmpf"), " {predicate:word}, %{lhs}, %{rhs}[? {flags:attr}?] : {type}", "1")
)
@dataclass
class Compare:
    """``%r = arith.cmpi slt, %a, %b : i32``."""

    name: str
    results: tuple[str]
    predicate: str
    lhs: str
    rhs: str
    type: str
    flags: str | None = None


@declare(Form("arith.select", " %{cond}, %{true_value}, %{false_value} : {type}", results="1"))
@dataclass
class Select:
    results: tuple[str]
    cond: str
    true_value: str
    false_value: str
    type: str


@declare(Form(CASTS, " %{source} : {source_type} to {type}", results="1"))
@dataclass
class Cast:
    """``%r = arith.index_cast %i : index to i32``."""

    name: str
    results: tuple[str]
    source: str
    source_type: str
    type: str


# --------------------------------------------------------------------------- scf
@declare(
    Form(
        "scf.for",
        " %{iv} = %{lower} to %{upper} step %{step}[? iter_args({iter_args:pairs}) -> ({result_types})?][? : {type}?]",
        results="*",
        regions=("body",),
    )
)
@dataclass
class For:
    """``scf.for %i = %lb to %ub step %s {`` (``iter_args(%acc = %init) -> (i32)``: carried
    values, yielded by the body's ``scf.yield``, become the results)."""

    iv: str
    lower: str
    upper: str
    step: str
    body: list = field(default_factory=list)
    results: tuple[str, ...] = ()
    iter_args: tuple[tuple[str, str], ...] = ()
    result_types: str | None = None
    type: str | None = None


@declare(
    Form(
        "scf.if", " %{cond}[? -> ({result_types})?]", results="*", regions=("then", "orelse"), joins=("else",)
    )
)
@dataclass
class If:
    cond: str
    then: list = field(default_factory=list)
    orelse: list = field(default_factory=list)
    results: tuple[str, ...] = ()
    result_types: str | None = None


@declare(Form("scf.yield", "[? {values:%,} : {types}?]"))
@dataclass
class Yield:
    values: tuple[str, ...] = ()
    types: str | None = None


@declare(
    Form(
        "affine.for",
        " %{iv} = {lower} to {upper}[? step {step:int}?][? iter_args({iter_args:pairs}) -> ({result_types})?]",
        results="*",
        regions=("body",),
    )
)
@dataclass
class AffineFor:
    """``affine.for %i = 0 to 16 step 1 {`` (MLIR's ``AffineOps.td``: bounds are integer
    literals, SSA symbols or affine maps as written; the step a positive literal, 1 when left
    out; ``iter_args`` as ``scf.for``'s, yielded by ``affine.yield``)."""

    iv: str
    lower: str
    upper: str
    body: list = field(default_factory=list)
    step: int | None = None
    results: tuple[str, ...] = ()
    iter_args: tuple[tuple[str, str], ...] = ()
    result_types: str | None = None


@declare(Form("affine.yield", "[? {values:%,} : {types}?]"))
@dataclass
class AffineYield:
    values: tuple[str, ...] = ()
    types: str | None = None


@declare(Form("affine.load", " %{memref}[{indices:text*}] : {type}", results="1"))
@dataclass
class AffineLoad:
    """``%v = affine.load %m[%i + %j, 4] : memref<..>`` (``AffineOps.td``: each index an affine
    expression of loop ivs, symbols and integer literals; ``indices`` kept as written)."""

    results: tuple[str]
    memref: str
    indices: str
    type: str


@declare(Form("affine.store", " %{value}, %{memref}[{indices:text*}] : {type}"))
@dataclass
class AffineStore:
    """``affine.store %v, %m[%i * 2 + 1] : memref<..>`` (indices as :class:`AffineLoad`'s)."""

    value: str
    memref: str
    indices: str
    type: str


@declare(Form("affine.apply", " {map}({dims:%,}){symbols:text*}", results="1"))
@dataclass
class AffineApply:
    """``%r = affine.apply affine_map<(d0)[s0] -> (d0 + s0)>(%i)[%n]``, or with an alias
    (``#map(%i)``): the map's one result of the operands; ``symbols`` the ``[%n, ..]`` group
    as written (empty without one)."""

    results: tuple[str]
    map: str
    dims: tuple[str, ...]
    symbols: str = ""


# --------------------------------------------------------------------------- object FIFOs
@declare(Form("aie.objectfifo.acquire", " @{fifo}({port:word}, {size:int}) : {type}", results="*"))
@dataclass
class Acquire:
    """``%b = aie.objectfifo.acquire @of(Consume, 1) : memref<16xi32>``: today's form, whose
    results are the buffers (``type`` lists one memref per result); the older form has one
    result typed ``!aie.objectfifosubview<memref<..>>`` that :class:`SubviewAccess` opens."""

    results: tuple[str, ...]
    fifo: str
    port: str  # "Produce" or "Consume"
    size: int
    type: str

    @property
    def subview(self) -> bool:
        """The older form (one ``!aie.objectfifosubview`` result)."""
        return self.type.startswith("!aie.objectfifosubview")


@declare(Form("aie.objectfifo.release", " @{fifo}({port:word}, {size:int})"))
@dataclass
class Release:
    fifo: str
    port: str
    size: int


@declare(
    Form("aie.objectfifo.subview.access", " %{subview}[{index:int}] : {subview_type} -> {type}", results="1")
)
@dataclass
class SubviewAccess:
    """``%e = aie.objectfifo.subview.access %s[0] : !aie.objectfifosubview<memref<..>> -> memref<..>``
    (the older acquire's element; still read, :mod:`iron.mlir.legacy` translates it for aiecc)."""

    results: tuple[str]
    subview: str
    index: int
    subview_type: str
    type: str


# --------------------------------------------------------------------------- calls, memory
@declare(
    Form(("func.call", "call"), " @{callee}({args:%,}) : ({arg_types:text*}) -> {result_types}", results="*")
)
@dataclass
class Call:
    """``func.call @f(%a, %n) : (memref<16xi32>, i32) -> ()`` (``call``: the pre-func-dialect name)."""

    name: str
    callee: str
    args: tuple[str, ...]
    arg_types: str
    result_types: str = "()"
    results: tuple[str, ...] = ()


@declare(Form("memref.load", " %{memref}[{indices:%,}] : {type}", results="1"))
@dataclass
class Load:
    results: tuple[str]
    memref: str
    indices: tuple[str, ...]
    type: str


@declare(Form("memref.store", " %{value}, %{memref}[{indices:%,}] : {type}"))
@dataclass
class Store:
    value: str
    memref: str
    indices: tuple[str, ...]
    type: str


@declare(Form("vector.load", " %{base}[{indices:%,}] : {memref_type}, {type}", results="1"))
@dataclass
class VectorLoad:
    results: tuple[str]
    base: str
    indices: tuple[str, ...]
    memref_type: str
    type: str


@declare(Form("vector.store", " %{value}, %{base}[{indices:%,}] : {memref_type}, {type}"))
@dataclass
class VectorStore:
    value: str
    base: str
    indices: tuple[str, ...]
    memref_type: str
    type: str


@declare(Form("vector.broadcast", " %{source} : {source_type} to {type}", results="1"))
@dataclass
class Broadcast:
    results: tuple[str]
    source: str
    source_type: str
    type: str


@declare(Form("memref.copy", " %{source}, %{target} : {source_type} to {type}"))
@dataclass
class Copy:
    """``memref.copy %a, %b : memref<4xi32> to memref<4xi32>``: every element of ``a`` into ``b``."""

    source: str
    target: str
    source_type: str
    type: str


@declare(
    Form(
        "memref.subview",
        " %{source}[{offsets}] [{sizes}] [{strides}] : {source_type} to {type}",
        results="1",
    )
)
@dataclass
class Subview:
    """``%s = memref.subview %m[1, %i] [2, 4] [1, 1] : memref<4x8xi32> to memref<2x4xi32, strided<..>>``
    (``offsets`` / ``sizes`` / ``strides`` as written: integers or SSA values)."""

    results: tuple[str]
    source: str
    offsets: str
    sizes: str
    strides: str
    source_type: str
    type: str


# --------------------------------------------------------------------------- vector
@declare(
    Form(
        "vector.transfer_read",
        " %{base}[{indices:%,}], %{padding}[?, %{mask}?][? {attrs:dict}?] : {memref_type}, {type}",
        results="1",
    )
)
@dataclass
class TransferRead:
    """``%v = vector.transfer_read %m[%i], %pad {in_bounds = [true]} : memref<..>, vector<..>``."""

    results: tuple[str]
    base: str
    indices: tuple[str, ...]
    padding: str
    memref_type: str
    type: str
    mask: str | None = None
    attrs: str | None = None


@declare(
    Form(
        "vector.transfer_write",
        " %{value}, %{base}[{indices:%,}][?, %{mask}?][? {attrs:dict}?] : {type}, {memref_type}",
    )
)
@dataclass
class TransferWrite:
    """``vector.transfer_write %v, %m[%i] {in_bounds = [true]} : vector<..>, memref<..>``."""

    value: str
    base: str
    indices: tuple[str, ...]
    type: str
    memref_type: str
    mask: str | None = None
    attrs: str | None = None


@declare(Form("vector.splat", " %{source} : {type}", results="1"))
@dataclass
class Splat:
    """``%v = vector.splat %x : vector<8xi32>`` (older MLIR; today's is ``vector.broadcast``)."""

    results: tuple[str]
    source: str
    type: str


@declare(Form("vector.extract", " %{vector}[{position}] : {type} from {source_type}", results="1"))
@dataclass
class Extract:
    """``%e = vector.extract %v[3] : i32 from vector<8xi32>`` (positions: integers or SSA values)."""

    results: tuple[str]
    vector: str
    position: str
    type: str
    source_type: str


@declare(Form("vector.insert", " %{source}, %{dest} [{position}] : {source_type} into {type}", results="1"))
@dataclass
class Insert:
    """``%r = vector.insert %e, %v [5] : i32 into vector<8xi32>``."""

    results: tuple[str]
    source: str
    dest: str
    position: str
    source_type: str
    type: str


@declare(Form("vector.fma", " %{lhs}, %{rhs}, %{acc} : {type}", results="1"))
@dataclass
class Fma:
    """``%r = vector.fma %a, %b, %c : vector<16xf32>``: ``a * b + c`` per element, rounded once."""

    results: tuple[str]
    lhs: str
    rhs: str
    acc: str
    type: str


@declare(
    Form(
        "vector.reduction",
        " <{kind:word}>, %{vector}[?, %{acc}?][? {flags:attr}?] : {source_type} into {type}",
        results="1",
    )
)
@dataclass
class Reduction:
    """``%r = vector.reduction <add>, %v[, %acc] : vector<8xi32> into i32``."""

    results: tuple[str]
    kind: str
    vector: str
    source_type: str
    type: str
    acc: str | None = None
    flags: str | None = None


#: Ops of one operand ``%r = math.exp %x[ fastmath<..>] : type`` (scalar or vector), as sim runs them.
UNARY = ("arith.negf",) + tuple(
    f"math.{k}" for k in "exp exp2 log log2 tanh sqrt rsqrt absf absi floor ceil sin cos".split()
)


@declare(Form(UNARY, " %{operand}[? {flags:attr}?] : {type}", results="1"))
@dataclass
class Unary:
    name: str
    results: tuple[str]
    operand: str
    type: str
    flags: str | None = None


# --------------------------------------------------------------------------- control flow
@declare(
    Form(
        "scf.while",
        "[? ({inits:pairs})?] : ({arg_types:text*}) -> {result_types}",
        results="*",
        regions=("before", "after"),
        joins=("do",),
    )
)
@dataclass
class While:
    """``%r = scf.while (%a = %init) : (i32) -> i32 { .. scf.condition(%c) %a : i32 } do {
    ^bb0(%b: i32): .. scf.yield %n : i32 }`` (the ``after`` region's first op is its block label)."""

    arg_types: str
    result_types: str
    before: list = field(default_factory=list)
    after: list = field(default_factory=list)
    results: tuple[str, ...] = ()
    inits: tuple[tuple[str, str], ...] = ()


@declare(Form("scf.condition", "(%{cond})[? {values:%,} : {types}?]"))
@dataclass
class Condition:
    cond: str
    values: tuple[str, ...] = ()
    types: str | None = None


@declare(Form("cf.br", " {dest}"))
@dataclass
class Branch:
    """``cf.br ^bb1(%x : i32)``: ``dest`` is the successor as written (block and operands)."""

    dest: str


@declare(Form("cf.cond_br", " %{cond}, {true_dest}, {false_dest}"))
@dataclass
class CondBranch:
    """``cf.cond_br %c, ^bb2, ^bb3(%x : i32)``."""

    cond: str
    true_dest: str
    false_dest: str


# --------------------------------------------------------------------------- aie
@declare(Form("aie.put_cascade", "(%{value} : {type})"))
@dataclass
class PutCascade:
    value: str
    type: str


@declare(Form("aie.get_cascade", "() : {type}", results="1"))
@dataclass
class GetCascade:
    results: tuple[str]
    type: str


@declare(Form("aie.event", "({value:int})"))
@dataclass
class Event:
    """``aie.event(0)``: the core raises INSTR_EVENT_0 (a kernel's ``event0()``)."""

    value: int


@declare(Form("aie.end"))
@dataclass
class End:
    pass


# --------------------------------------------------------------------------- builders
def constant(name: str, value, type: str) -> Constant:
    """``%name = arith.constant value : type`` (``value``: an int, or the literal's text)."""
    return Constant((name,), value if isinstance(value, str) else str(int(value)), type)


def loop(iv: str, lower: str, upper: str, step: str, body: list) -> For:
    """``scf.for %iv = %lower to %upper step %step { body }``."""
    return For(iv, lower, upper, step, list(body))


def acquire(name: str, fifo: str, port: str, type: str) -> Acquire:
    """``%name = aie.objectfifo.acquire @fifo(port, 1) : type`` (the buffer is ``%name``)."""
    return Acquire((name,), fifo, port, 1, type)


def release(fifo: str, port: str) -> Release:
    """``aie.objectfifo.release @fifo(port, 1)``."""
    return Release(fifo, port, 1)


def call(callee: str, args, arg_types) -> Call:
    """``func.call @callee(%args...) : (arg_types...) -> ()``."""
    return Call("func.call", callee, tuple(args), ", ".join(arg_types))
