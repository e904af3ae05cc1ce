"""Print :mod:`iron.mlir.ir` as mlir-aie textual assembly.

Syntax follows what today's ``aie-opt`` prints (mlir-aie ``AIEX.td`` since PR
#3225), checked against the lit tests in ``iron/tests/data/upstream`` (sources in
its SOURCES.md):

* ``write32``, ``maskwrite32`` and ``address_patch`` take SSA operands, each an
  ``arith.constant`` printed just before its use, as aiecc's own output
  (``test/parse-trace/test1/aie_test1.mlir``):
  ``aiex.npu.write32(%a, %v) {column = 0 : i32, row = 2 : i32} : i32, i32``,
  ``aiex.npu.address_patch(%off : i32) {addr = 119268 : ui32, arg_idx = 4 : i32}``;
  i32 constants are signed, as MLIR prints them (``0x80000001`` is
  ``-2147483647 : i32``, ``test/Conversion/DmaToNpu/dma_to_npu_bd_paths.mlir``);
* other npu ops keep their attribute form, attributes alphabetical as MLIR
  prints a dictionary (``aiex.npu.writebd {...}``, ``aiex.npu.load_pdi``);
* ``aie.runtime_sequence @name(...)``, ``aiex.configure @dev {``,
  ``aiex.run @seq(%a) : (memref<..>)``
  (``test/dialect/AIEX/trace/test_trace_configure_run.mlir``);
* a :class:`~iron.mlir.ir.View` as ``memref.subview`` + ``memref.reinterpret_cast``
  (``test/npu-xrt/trace_slices_configure_run/aie.mlir``);
* ``aie.shim_dma_allocation @sym(%tile, MM2S, channel)`` (PR #2727;
  ``test/Conversion/DmaToNpu/dma_operand_widths.mlir``).

Forms whose spelling changed since the oldest mlir-aie iron supports are printed in the
:class:`~iron.target.mlir_eras.Era` handed to :func:`print_module` / :func:`print_device`
(default today's; :mod:`iron.mlir.spelling` rewrites them for an older era).

Output is deterministic: the same IR and era always print the same bytes (they feed the
cache key).
"""

from __future__ import annotations

import re

from iron.errors import IronError
from iron.mlir import ir, structure
from iron.mlir import structural_ops as _structural_ops  # noqa: F401 (declares the structural ops)
from iron.mlir.form import format_op
from iron.mlir.structure import PrintContext, format_structural
from iron.mlir.spelling import respell
from iron.target.mlir_eras import TODAY, Era

INDENT = "  "
_RE_SSA = re.compile(r"%([A-Za-z0-9_$.\-]+)")

#: Prefix of the ``memref.global`` symbols the printer invents for
#: :class:`~iron.mlir.ir.BlockWrite` ops without a symbol. The reader folds
#: globals with this prefix back into ``BlockWrite.symbol = None``.
AUTO_GLOBAL_PREFIX = "blockwrite_data_"

_U32 = (0, 1 << 32)
_I32 = (-(1 << 31), 1 << 31)
_I64 = (-(1 << 63), 1 << 63)


def _check(value, what: str, bounds: tuple[int, int]) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            value = int(value)  # numpy integers
        except (TypeError, ValueError):
            raise IronError(f"{what} must be an integer, got {value!r}") from None
    lo, hi = bounds
    if not lo <= value < hi:
        raise IronError(f"{what} = {value} is out of range [{lo}, {hi - 1}]")
    return value


def _attrs(op: str, items: list[tuple[str, object, str]]) -> str:
    """``{k = v : type, ...}`` sorted by key, as MLIR prints dictionary attributes."""
    parts = []
    for key, value, typ in sorted(items):
        if typ == "sym":
            parts.append(f"{key} = @{value}")
            continue
        bounds = {"ui32": _U32, "i32": _I32, "i64": _I64}[typ]
        parts.append(f"{key} = {_check(value, f'{op}.{key}', bounds)} : {typ}")
    return "{" + ", ".join(parts) + "}"


def _signed32(value, what: str) -> int:
    """A 32-bit word as MLIR prints an ``i32`` dense element (signed)."""
    value = _check(value, what, (-(1 << 31), 1 << 32))
    return value - (1 << 32) if value >= 1 << 31 else value


def _global_text(symbol: str, values) -> str:
    words = [_signed32(v, f"memref.global @{symbol}[{i}]") for i, v in enumerate(values)]
    if not words:
        raise IronError(f"memref.global @{symbol}: blockwrite data is empty")
    # MLIR prints a dense attribute whose elements are all equal as a splat.
    dense = (
        str(words[0]) if len(words) > 1 and len(set(words)) == 1 else "[" + ", ".join(map(str, words)) + "]"
    )
    return f'memref.global "private" constant @{symbol} : memref<{len(words)}xi32> = dense<{dense}>'


def _col_row(op) -> list[tuple[str, object, str]]:
    out = []
    if op.column is not None:
        out.append(("column", op.column, "i32"))
    if op.row is not None:
        out.append(("row", op.row, "i32"))
    return out


def opaque_lines(text: str) -> list[str]:
    """Lines of an opaque op, dedented relative to its first line."""
    lines = text.split("\n")
    first = lines[0]
    lead = len(first) - len(first.lstrip())
    out = [first.strip()]
    for line in lines[1:]:
        line = line.rstrip()
        strip = min(lead, len(line) - len(line.lstrip()))
        out.append(line[strip:])
    return out


class _Printer:
    def __init__(self):
        self.out: list[str] = []
        self.device_now: ir.Device | None = None
        self.taken: set[str] = set()  # SSA names in use in the current sequence
        self.clashes = 0

    def const(self, depth: int, value: int, what: str, typ: str = "i32") -> str:
        """Print ``%cV_i32 = arith.constant V : i32`` (or i64) and return its SSA name
        (uniqued with ``_0``, ``_1`` ... as MLIR does)."""
        v = _signed32(value, what) if typ == "i32" else _check(value, what, _I64)
        name = self.fresh(f"c{v}_{typ}")
        self.line(depth, f"%{name} = arith.constant {v} : {typ}")
        return name

    def fresh(self, stem: str) -> str:
        """An unused SSA name: ``stem``, else ``stem_<k>`` with one counter for the whole
        scope, as MLIR's name uniquer does."""
        name = stem
        while name in self.taken:
            name = f"{stem}_{self.clashes}"
            self.clashes += 1
        self.taken.add(name)
        return name

    def declared(self, op, depth: int, scope: dict, bw_symbols: dict) -> None:
        """An op with an :class:`~iron.mlir.decl.Syntax`: one ``arith.constant`` per
        operand, then ``name(%a, %b) {attrs} : i32, i32`` (or ``name(%a : i64) {attrs}``)."""
        spec = type(op).MLIR
        names, types = [], []
        for a in spec.operands:
            value = spec.value(op, a.name)
            typ = a.type if a.type != "int" else "i32" if _I32[0] <= value < _I32[1] else "i64"
            names.append(self.const(depth, value, f"{spec.name}.{a.name}", typ))
            types.append(typ)
        attrs = [(a.name, spec.value(op, a.name), a.type) for a in spec.attrs if not a.operand]
        attrs = [item for item in attrs if item[1] is not None]
        text = spec.name
        if spec.typed_operands:
            text += "(" + ", ".join(f"%{n} : {t}" for n, t in zip(names, types)) + ")"
        elif names:
            text += "(" + ", ".join(f"%{n}" for n in names) + ")"
        if attrs:
            text += " " + _attrs(spec.name, attrs)
        if names and not spec.typed_operands:
            text += " : " + ", ".join(types)
        self.line(depth, text)

    def line(self, depth: int, text: str) -> None:
        self.out.append(INDENT * depth + text)

    def structural(self, op, depth: int, ctx: PrintContext) -> None:
        """A declared structural op (:mod:`iron.mlir.structure`), each of its lines at ``depth``;
        one read with text it does not print back (its ``verbatim`` field) as read."""
        verbatim = structure.BY_CLASS[type(op)].verbatim
        if verbatim and getattr(op, verbatim) is not None:
            return self.opaque(depth, ir.Opaque(getattr(op, verbatim)))
        for text in format_structural(op, ctx).split("\n"):
            self.line(depth, text)

    def opaque(self, depth: int, op: ir.Opaque) -> None:
        for line in opaque_lines(op.text):
            self.out.append(INDENT * depth + line if line else "")

    # ------------------------------------------------------------------ device
    def device(self, dev: ir.Device, depth: int) -> None:
        self.device_now = dev
        self.line(depth, format_structural(dev) + " {")
        globals_, bw_symbols = _plan_globals(dev)
        placed = False
        for op in dev.body:
            if isinstance(op, ir.RuntimeSequence) and not placed:
                for sym_, values in globals_:
                    self.line(depth + 1, _global_text(sym_, values))
                placed = True
            self.device_op(op, depth + 1, bw_symbols)
        self.line(depth, "}")

    def device_op(self, op, depth: int, bw_symbols: dict) -> None:
        rule = _DEVICE_OPS.get(type(op))
        decl = structure.BY_CLASS.get(type(op))
        if rule is None and decl is not None and decl.where == "device":
            return self.structural(op, depth, PrintContext(self.device_now))
        if rule is None:
            raise IronError(f"cannot print {type(op).__name__} in an aie.device body")
        rule(self, op, depth, bw_symbols)

    def core(self, op: ir.Core, depth: int, _bw) -> None:
        if op.text is not None:  # a foreign core, printed as read
            self.opaque(depth, ir.Opaque(op.text))
            return
        for line in core_lines(op):
            self.out.append(INDENT * depth + line if line else "")

    # ---------------------------------------------------------------- sequence
    def sequence(self, seq: ir.RuntimeSequence, depth: int, bw_symbols: dict) -> None:
        self.line(depth, format_structural(seq) + " {")
        scope = {a.name: a.type for a in seq.args}
        self.taken = set(scope) | _names_in(seq.body)
        self.clashes = 0
        self.body(seq.body, depth + 1, scope, bw_symbols)
        self.line(depth, "}")

    def body(self, ops: list, depth: int, scope: dict, bw_symbols: dict) -> None:
        for op in ops:
            self.runtime_op(op, depth, scope, bw_symbols)

    def runtime_op(self, op, depth: int, scope: dict, bw_symbols: dict) -> None:
        rule = _RUNTIME_OPS.get(type(op))
        decl = structure.BY_CLASS.get(type(op))
        if rule is None and decl is not None and decl.where == "sequence":
            return self.structural(op, depth, PrintContext(self.device_now, scope))
        if rule is None:
            if getattr(type(op), "MLIR", None) is None:
                raise IronError(f"cannot print {type(op).__name__} in a runtime sequence")
            rule = _Printer.declared
        rule(self, op, depth, scope, bw_symbols)

    def blockwrite(self, op: ir.BlockWrite, depth: int, scope: dict, bw_symbols: dict) -> None:
        sym = bw_symbols[id(op)]
        var = self.fresh("bw")
        typ = f"memref<{len(op.data)}xi32>"
        attrs = _attrs("aiex.npu.blockwrite", [("address", op.address, "ui32")] + _col_row(op))
        self.line(depth, f"%{var} = memref.get_global @{sym} : {typ}")
        self.line(depth, f"aiex.npu.blockwrite(%{var}) {attrs} : {typ}")

    def configure(self, op: ir.Configure, depth: int, scope: dict, bw_symbols: dict) -> None:
        self.line(depth, format_structural(op) + " {")
        self.body(op.body, depth + 1, scope, bw_symbols)
        self.line(depth, "}")

    def view(self, op: ir.View, depth: int, scope: dict, bw_symbols: dict) -> None:
        for line in _view_lines(op, scope):
            self.line(depth, line)
        scope[op.name] = op.type


#: Device-body op types printed by hand (the declared structural ops, iron.mlir.structure, by
#: their declaration; ops in a runtime sequence: _RUNTIME_OPS).
_DEVICE_OPS = {
    ir.MemrefGlobal: lambda p, op, depth, _bw: p.line(depth, _global_text(op.symbol, op.values)),
    ir.Core: _Printer.core,
    ir.RuntimeSequence: _Printer.sequence,
    ir.Opaque: lambda p, op, depth, _bw: p.opaque(depth, op),
}
#: Runtime op types printed by hand (declared structural ops by their declaration, the npu
#: ops of iron.mlir.decl by theirs: _Printer.declared).
_RUNTIME_OPS = {
    ir.BlockWrite: _Printer.blockwrite,
    ir.DmaMemcpyNd: lambda p, op, depth, scope, _bw: p.line(depth, _memcpy_text(op, scope)),
    ir.Configure: _Printer.configure,
    ir.View: _Printer.view,
    ir.Opaque: lambda p, op, depth, _scope, _bw: p.opaque(depth, op),
}


def core_lines(core: ir.Core) -> list[str]:
    """A core's lines, generically from the declarations of its ops (:mod:`iron.mlir.form`):
    ``%name = aie.core(%tile) {``, the body one indent deeper, ``}`` and its attributes."""
    name = f"%{core.name} = " if core.name else ""
    close = f"}} {core.attrs}" if core.attrs else "}"
    return [f"{name}aie.core(%{core.tile}) {{", *print_ops(core.body, 1), close]


def print_ops(ops: list, depth: int = 0) -> list[str]:
    """Lines of core-body ops (:mod:`iron.mlir.body`, :class:`~iron.mlir.ir.Opaque` verbatim):
    each op's line from its form, then its regions, ``{`` ... ``}`` (a later region after
    ``} <join> {``; an empty trailing region is left out)."""
    out: list[str] = []
    pad = INDENT * depth
    for op in ops:
        if isinstance(op, ir.Opaque):
            # a block label (``^bb1:``) stands one indent left of its ops, as MLIR prints it
            lead = pad[len(INDENT) :] if op.text.startswith("^") else pad
            out += [lead + line if line else "" for line in opaque_lines(op.text)]
            continue
        form = getattr(type(op), "FORM", None)
        if form is None:
            raise IronError(f"cannot print {type(op).__name__} in a core body")
        regions = [getattr(op, r) for r in form.regions]
        while len(regions) > 1 and not regions[-1]:
            regions.pop()
        if not regions:
            out.append(pad + format_op(op))
            continue
        out.append(pad + format_op(op) + " {")
        for k, region in enumerate(regions):
            if k:
                out.append(f"{pad}}} {form.joins[k - 1]} {{")
            out += print_ops(region, depth + 1)
        out.append(pad + "}")
    return out


def _names_in(ops: list) -> set[str]:
    """Every SSA name that opaque ops and views of a sequence use or define."""
    names = set()
    for op in ir.walk(ops):
        if isinstance(op, ir.Opaque):
            names.update(_RE_SSA.findall(op.text))
        elif isinstance(op, ir.View):
            names.update((op.name, f"{op.name}_flat", f"{op.name}_subview"))
    return names


def _memcpy_text(op: ir.DmaMemcpyNd, scope: dict) -> str:
    typ = scope.get(op.arg)
    if typ is None:
        raise IronError(f"aiex.npu.dma_memcpy_nd: %{op.arg} is not a sequence argument or view in scope")
    if len(op.offsets) != 4 or len(op.sizes) != 4 or len(op.strides) != 3:
        raise IronError(
            "aiex.npu.dma_memcpy_nd: needs 4 offsets, 4 sizes and 3 outer strides (the innermost is inner_stride)"
        )
    what = "aiex.npu.dma_memcpy_nd"
    offs = ", ".join(str(_check(v, f"{what}.offsets", _I64)) for v in op.offsets)
    sizes = ", ".join(str(_check(v, f"{what}.sizes", _I64)) for v in op.sizes)
    strides = ", ".join(str(_check(v, f"{what}.strides", _I64)) for v in (*op.strides, op.inner_stride))
    attrs = f"id = {_check(op.id, f'{what}.id', _I64)} : i64"
    if op.issue_token:
        attrs += ", issue_token = true"
    attrs += f", metadata = @{op.metadata}"
    packet = ""
    if op.packet is not None:
        kind, pid = (_check(v, f"{what}.packet", _I64) for v in op.packet)
        packet = f", packet = <pkt_type = {kind}, pkt_id = {pid}>"
    return f"{what}(%{op.arg}[{offs}][{sizes}][{strides}]{packet}) {{{attrs}}} : {typ}"


def _view_lines(view: ir.View, scope: dict) -> list[str]:
    """``memref.subview`` + ``memref.reinterpret_cast`` (as upstream's
    trace_slices_configure_run test); a multi-dimensional source is first
    flattened with ``memref.collapse_shape``."""
    src = scope.get(view.source)
    if src is None:
        raise IronError(
            f"view %{view.name}: source %{view.source} is not a sequence argument or view in scope"
        )
    if src.dtype != view.type.dtype:
        raise IronError(f"view %{view.name}: element type {view.type.dtype} differs from source {src}")
    n = view.type.numel
    off = _check(view.offset, f"view %{view.name}.offset", (0, 1 << 63))
    if off + n > src.numel:
        raise IronError(f"view %{view.name}: elements [{off}, {off + n}) exceed source {src}")
    lines = []
    base, flat = view.source, src
    if len(src.shape) != 1:
        flat = ir.MemRefType((src.numel,), src.dtype)
        base = f"{view.name}_flat"
        dims = ", ".join(str(d) for d in range(len(src.shape)))
        lines.append(f"%{base} = memref.collapse_shape %{view.source} [[{dims}]] : {src} into {flat}")
    window = f"memref<{n}x{src.dtype}, strided<[1], offset: {off}>>"
    strides, acc = [], 1
    for d in reversed(view.type.shape):
        strides.append(acc)
        acc *= d
    sizes = ", ".join(map(str, view.type.shape))
    strides_s = ", ".join(map(str, reversed(strides)))
    sub = f"{view.name}_subview"
    lines.append(f"%{sub} = memref.subview %{base}[{off}] [{n}] [1] : {flat} to {window}")
    lines.append(
        f"%{view.name} = memref.reinterpret_cast %{sub} to offset: [0], sizes: [{sizes}], "
        f"strides: [{strides_s}] : {window} to {view.type}"
    )
    return lines


def _plan_globals(dev: ir.Device) -> tuple[list[tuple[str, tuple]], dict]:
    """memref.global ops to print for the device's blockwrites.

    Returns ([(symbol, values)] in first-use order, {id(BlockWrite): symbol}).
    Blockwrites without a symbol get ``blockwrite_data_<n>`` (identical payloads
    share one global); a named blockwrite reuses a MemrefGlobal of that name in
    the body, or gets one printed.
    """
    existing = {op.symbol: tuple(op.values) for op in dev.body if isinstance(op, ir.MemrefGlobal)}
    blockwrites = [op for seq in dev.sequences for op in ir.walk(seq.body) if isinstance(op, ir.BlockWrite)]
    used = set(existing) | {bw.symbol for bw in blockwrites if bw.symbol}
    planned: dict[str, tuple] = {}
    by_data: dict[tuple, str] = {}
    symbols: dict[int, str] = {}
    n = 0
    for bw in blockwrites:
        data = tuple(int(v) for v in bw.data)
        if bw.symbol:
            sym = bw.symbol
            known = existing.get(sym, planned.get(sym))
            if known is not None and tuple(int(v) for v in known) != data:
                raise IronError(f"aiex.npu.blockwrite: @{sym} is used with two different payloads")
            if sym not in existing:
                planned[sym] = data
        else:
            sym = by_data.get(data)
            if sym is None:
                while f"{AUTO_GLOBAL_PREFIX}{n}" in used:
                    n += 1
                sym = f"{AUTO_GLOBAL_PREFIX}{n}"
                used.add(sym)
                by_data[data] = sym
                planned[sym] = data
        symbols[id(bw)] = sym
    return list(planned.items()), symbols


def print_device(device: ir.Device, depth: int = 0, era: Era = TODAY) -> str:
    """One ``aie.device`` op (no trailing newline), in the forms ``era`` reads
    (:mod:`iron.target.mlir_eras`; default today's upstream)."""
    p = _Printer()
    p.device(device, depth)
    return respell("\n".join(p.out), era)


def print_op(op, depth: int = 0, scope: dict | None = None) -> str:
    """One runtime op (as inside a sequence). ``scope`` maps SSA names to
    :class:`~iron.mlir.ir.MemRefType` for ops that print their memref type;
    a :class:`~iron.mlir.ir.BlockWrite` must carry its ``symbol``."""
    p = _Printer()
    if isinstance(op, ir.BlockWrite) and not op.symbol:
        raise IronError("print_op: a BlockWrite needs a symbol outside print_module")
    bw = {id(op): op.symbol} if isinstance(op, ir.BlockWrite) else {}
    p.runtime_op(op, depth, dict(scope or {}), bw)
    return "\n".join(p.out)


def print_module(module: ir.Module, era: Era = TODAY) -> str:
    """The whole module as mlir-aie assembly, ending in a newline, in the forms ``era`` reads
    (:mod:`iron.target.mlir_eras`; default today's upstream, byte for byte as before eras)."""
    p = _Printer()
    p.line(0, f"{getattr(module, 'header', 'module')} {{")
    for op in getattr(module, "extra", ()):
        p.opaque(1, op)
    for dev in module.devices:
        p.device(dev, 1)
    p.line(0, "}")
    return respell("\n".join(p.out), era) + "\n"
