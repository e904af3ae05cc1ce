"""Any mlir-aie design as an iron operator: :func:`from_mlir`.

A kernel developer's design (hand-written MLIR, or what mlir-aie's ``aie.iron``
Python API prints) becomes a :class:`ForeignOperator` that :func:`iron.build` and
:class:`iron.Sequence` accept like the built-in operators:

* its arguments are the runtime sequence's signature; an argument moved by an MM2S
  shim transfer is an input, by an S2MM one an output, by both ``inout`` (a hand-written
  shim BD counts through its ``address_patch`` and the Task_Queue write that pushes it); an
  argument no transfer moves is an input (the caller still binds a buffer to it);
* its data streams are its ``dma_memcpy_nd`` ops and shim DMA tasks
  (``dma_configure_task_for`` ...) with the object FIFO or ``shim_dma_allocation``
  each names;
* its compute tiles are the device's tiles at rows >= 2.

What iron changes when it builds the design untraced: the device symbol (fusion names
every device ``op<i>_<name>``), SSA value names, comments and the spelling the printer
normalises (see docs/guide.md, "Foreign designs"). Everything else is printed as read.

On sim a foreign design runs its control path and its trace (the events of what it
executed). Without ``reference`` (a numpy function ``reference(*inputs) -> outputs``)
sim cannot know what its cores compute:
the outputs it writes, and everything computed from them, come back as
:class:`iron.design.NotModelled` values that raise one clear error when used.
"""

from __future__ import annotations

import hashlib
import os
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from iron.design import ArgSpec, Design, NotModelledError, Stream
from iron import limits
from iron.errors import IronError
from iron.mlir import ir, legacy, objectfifo
from iron.mlir.printer import print_device
from iron.mlir.reader import newlines, parse, read_func_decl
from iron.mlir.trace_ops import is_trace_op, strip_trace_ops
from iron.target import registers, shim_dma
from iron.target.geometry import SHIM_ROW, target_for_device

#: ``existing_trace=`` values: what to do with a trace configuration the design already has.
EXISTING_TRACE = ("keep", "replace")

_SYMBOL = re.compile(r"[^A-Za-z0-9_]")
#: How :func:`_trace_ops` lists a trace packet flow (a trace the design has already lowered).
_LOWERED_TRACE = "aie.packet_flow("
_RE_TASK_FOR = re.compile(r"aiex\.dma_configure_task_for\s+@([A-Za-z0-9_$.\-]+)")
_RE_BD_ARG = re.compile(r"aie\.dma_bd\s*\(\s*%([A-Za-z0-9_$.\-]+)")
_RE_TASK_ON = re.compile(r"aiex\.dma_configure_task\s*\(\s*%([A-Za-z0-9_$.\-]+)\s*,\s*(MM2S|S2MM)\s*,")


class ForeignDesignError(IronError):
    """A design iron cannot take as an operator; the message names what and where."""


@dataclass(frozen=True)
class ForeignObject:
    """One object file a foreign design links (``link_with = "name"`` on a ``func.func`` or
    ``aie.core``): where iron found it (None: nowhere) and every place it looked, so the
    real toolchain path can copy it next to aiecc's input or say what is missing."""

    link_with: str
    path: str | None
    looked: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class ForeignOperator:
    """An mlir-aie design used as an operator (see :func:`from_mlir`).

    Compared by identity: one object is one design, fused into one device however
    many times a :class:`~iron.Sequence` calls it.
    """

    name: str
    text: str  # the device as iron prints it
    sequence: str
    args: tuple[ArgSpec, ...]
    streams: tuple[Stream, ...]
    origin: str  # file:line:column of its aie.device
    reference_fn: Callable | None = None
    existing_trace: str = "keep"
    trace_config: tuple[str, ...] = ()  # the design's own trace ops, verbatim (first lines)
    kernel_objects: tuple["ForeignObject", ...] = ()  # what its link_with names resolve to
    translations: tuple[str, ...] = ()  # old syntax rewritten before aiecc sees it (iron.mlir.legacy)
    #: (link_with name, ((define, value), ...)) per object ``kernel_defines=`` describes
    kernel_defines: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()

    foreign = True  # iron.fuse.fusion marks its device; iron.lower lowers its DMA tasks

    @property
    def op_name(self) -> str:
        """Name in device symbols, manifests and ``IRON_TRACE_OP`` selections."""
        return self.name

    @property
    def has_reference(self) -> bool:
        return self.reference_fn is not None

    @property
    def traceable(self) -> bool:
        """False when the design keeps a trace it has already lowered (its own register
        writes and drain: iron adds none). A kept ``aie.trace`` configuration is lowered by
        iron into the call site's slice (:mod:`iron.instrument.codegen`)."""
        lowered = any(line.startswith(_LOWERED_TRACE) for line in self.trace_config)
        return not (lowered and self.existing_trace == "keep")

    @property
    def digest(self) -> str:
        key = (self.name, self.text, self.sequence) + ((self.kernel_defines,) if self.kernel_defines else ())
        return hashlib.sha1(repr(key).encode()).hexdigest()[:16]

    def arg_spec(self) -> list[ArgSpec]:
        return list(self.args)

    def design(self, target) -> Design:
        module = parse(self.text, self.origin)
        device = module.devices[0]
        family = target_for_device(device.target).name
        wanted = getattr(target, "name", target)
        if family != wanted:
            raise ForeignDesignError(
                f"{self.origin}: design {self.name!r} is for {device.target} ({family}); "
                f"build it with target={family!r} (asked for {wanted!r})"
            )
        return Design(device, list(self.streams), self.sequence, linked=list(self.kernel_defines))

    def reference(self, *inputs):
        if self.reference_fn is None:
            raise NotModelledError(
                f"foreign operator {self.name!r} has no reference: pass reference= to iron.from_mlir"
            )
        return self.reference_fn(*inputs)

    def payload_params(self) -> dict:
        """What sim's PDI payload carries to rebuild this operator without the Python object."""
        return {
            "name": self.name,
            "digest": self.digest,
            "sequence": self.sequence,
            "args": [[s.name, s.direction, list(s.shape), s.dtype] for s in self.args],
        }


#: Operators made in this process, by digest: sim finds their ``reference`` here.
_LIVE: dict[str, ForeignOperator] = {}


def rebuild(params: dict) -> ForeignOperator:
    """The operator a payload describes: the live one (with its reference) when this
    process made it, else one without a reference (its outputs are not modelled)."""
    live = _LIVE.get(params.get("digest", ""))
    if live is not None:
        return live
    args = tuple(ArgSpec(n, d, tuple(shape), t) for n, d, shape, t in params["args"])
    return ForeignOperator(params["name"], "", params["sequence"], args, (), "<payload>", None)


def from_mlir(
    source,
    *,
    sequence: str | None = None,
    name: str | None = None,
    reference: Callable | None = None,
    device: str | None = None,
    existing_trace: str = "keep",
    objects=None,
    kernel_defines: dict | None = None,
) -> ForeignOperator:
    """An operator from an mlir-aie design.

    ``source``: MLIR text, a path to a ``.mlir`` file, or (with mlir-aie installed) an ``aie.iron`` Program or
    an ``aie.ir`` Module. ``device`` / ``sequence`` pick one ``aie.device`` / runtime sequence when the design
    has several. ``name`` names the operator (default: the device symbol, else the file stem). ``reference``:
    numpy function of the inputs returning the outputs (one per ``out``/``inout`` argument), which checks what
    sim computes.
    ``existing_trace``: a design that already configures trace either keeps it (``"keep"``: a traced build
    lowers its ``aie.trace`` ops into the call site's slice, with its own units and host_config size; an
    already lowered trace stays as it is and iron adds none) or has its ``aie.trace`` configuration removed so
    iron's units take its place (``"replace"``). docs/guide.md "Foreign designs" says what differs from aiecc.
    ``objects``: paths of the kernel object files the design's ``link_with`` names (as upstream's
    ``iron.jit(..., object_files=[...])``), matched by file name; a name not given is looked for beside the
    design file. The real toolchain path copies each into aiecc's working folder; one it cannot find is an
    error there, before aiecc runs (sim needs none). ``kernel_defines``: how the design's own objects were
    compiled, ``{"object.o": {"NAME": "value"}}`` by ``link_with`` name (the ``-D`` values of the example's
    Makefile); sim calls the kernel models with them (an object without them is modelled with the source's
    defaults, or reported not modelled where those do not fit). A name no ``link_with`` of the design gives is
    a :class:`ForeignDesignError`.

    Old syntax with one modern form (the ``!aie.objectfifosubview`` acquire) is translated first
    (:mod:`iron.mlir.legacy`; each rewrite is a :class:`~iron.mlir.legacy.LegacySyntaxWarning` and is listed
    in ``translations``); other old forms raise :class:`~iron.mlir.legacy.LegacySyntaxError` naming the line.

    Raises :class:`ForeignDesignError` naming the file, line and column for a design with several devices or
    sequences and no choice, no runtime sequence, or one iron cannot read.
    """
    text, filename, translated = _translated_source(source)
    if existing_trace not in EXISTING_TRACE:
        raise ForeignDesignError(f"existing_trace={existing_trace!r}; accepted: {', '.join(EXISTING_TRACE)}")
    module = parse(text, filename)
    dev, seq, origin = _pick(module, device, sequence, text, filename)
    _module_declarations(module, dev)
    trace_ops = _own_trace(dev, existing_trace, origin)
    streams, directions = _streams(dev, seq, origin)
    args = _arguments(seq, directions)
    op_name = _SYMBOL.sub("_", name or dev.symbol or Path(filename).stem or "design")
    if reference is not None and not callable(reference):
        raise ForeignDesignError(f"reference={reference!r}: expected a function of the inputs")
    printed = print_device(dev)
    found = _kernel_objects(printed, objects, filename, origin)
    defines = _kernel_defines(kernel_defines, found, origin)
    op = ForeignOperator(
        op_name, printed, seq.name, args, tuple(streams), origin, reference,
        existing_trace, tuple(trace_ops), found,
        tuple(str(n) for n in translated), defines,
    )  # fmt: skip
    _LIVE[op.digest] = op
    return op


_RE_MODULE_DECL = re.compile(r"^func\.func\s+private\s+@([\w$.\-]+)\s*\([^{]*$", re.S)


def _module_declarations(module: ir.Module, dev: ir.Device) -> None:
    """Put at the front of ``dev`` each module-level ``func.func private`` declaration (outside
    every ``aie.device``) that ``dev`` refers to and does not declare itself: iron prints the
    device alone, and mlir-aie resolves a core's ``func.call`` in its ``aie.device`` (the
    nearest symbol table), so there it must be for the printed module to verify."""
    decls = [
        op for op in module.extra if isinstance(op, ir.Opaque) and _RE_MODULE_DECL.match(op.text.strip())
    ]
    if not decls:
        return
    printed = print_device(dev)
    own = {op.name for op in dev.body if isinstance(op, ir.FuncDecl)}
    own |= {
        m.group(1)
        for op in dev.body
        if isinstance(op, ir.Opaque)
        if (m := _RE_MODULE_DECL.match(op.text.strip()))
    }
    moved = []
    for op in decls:
        name = _RE_MODULE_DECL.match(op.text.strip()).group(1)
        if name not in own and re.search(rf"@{re.escape(name)}(?![\w$.\-])", printed):
            moved.append(read_func_decl(op.text) or ir.Opaque(op.text.strip()))
            own.add(name)
    dev.body[:0] = moved


def _translated_source(source) -> tuple[str, str, list]:
    """``source``'s text and file name, old syntax translated (:mod:`iron.mlir.legacy`; each
    rewrite a warning at the caller of ``iron.from_mlir``), and the rewrites."""
    text, filename = _source_text(source)
    text = newlines(text)  # CR-only and CRLF designs read as LF ones
    text, translated = legacy.translate(text, filename)
    for note in translated:
        warnings.warn(str(note), legacy.LegacySyntaxWarning, stacklevel=4)  # the caller of iron.from_mlir
    return text, filename, translated


def _pick(module: ir.Module, device: str | None, sequence: str | None, text: str, filename: str):
    """The device and runtime sequence asked for (or the only ones), and where the device
    starts (``file:line:column``)."""
    where = _positions(text, filename)
    dev = _pick_device(module, device, where, filename)
    seq = _pick_sequence(dev, sequence, where, filename)
    return dev, seq, where["device"].get(dev.symbol or "", f"{filename}:1:1")


def _own_trace(dev: ir.Device, existing_trace: str, origin: str) -> list[str]:
    """The design's own trace configuration (:func:`_trace_ops`), removed from ``dev`` when
    ``existing_trace`` is ``"replace"`` (a trace it has already lowered cannot be)."""
    trace_ops = _trace_ops(dev)
    if trace_ops and existing_trace == "replace":
        _strip_trace(dev, origin)
    return trace_ops


def _arguments(seq: ir.RuntimeSequence, directions: dict[int, str]) -> tuple[ArgSpec, ...]:
    """The operator's arguments: the sequence's signature, each with the direction its shim
    transfers give (none: an input)."""
    return tuple(
        ArgSpec(a.name, directions.get(i, "in"), tuple(a.type.shape), a.type.dtype)
        for i, a in enumerate(seq.args)
    )


_RE_LINK_WITH = re.compile(r'\blink_with\s*=\s*"([^"]+)"')


def _kernel_defines(given, found, origin: str) -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
    """``kernel_defines=`` checked against the design's ``link_with`` names, as sorted tuples."""
    if given is None:
        return ()
    if not isinstance(given, dict):
        raise ForeignDesignError(
            f"kernel_defines={given!r}: expected a dict {{object name: {{define: value}}}}"
        )
    names = [o.link_with for o in found]
    out = []
    for obj, defs in given.items():
        if obj not in names:
            raise ForeignDesignError(
                f"{origin}: kernel_defines names {obj!r}, but no link_with of the design names it "
                f"(it links: {', '.join(names) or 'nothing'})"
            )
        if not isinstance(defs, dict) or not all(isinstance(k, str) and k for k in defs):
            raise ForeignDesignError(
                f"kernel_defines[{obj!r}]={defs!r}: expected a dict of define name -> value"
            )
        out.append((obj, tuple(sorted((k, str(v)) for k, v in defs.items()))))
    return tuple(sorted(out))


def _kernel_objects(text: str, objects, filename: str, origin: str) -> tuple[ForeignObject, ...]:
    """Each ``link_with`` of the device resolved: to an ``objects=`` path of that file name,
    else to the file beside the design file; None (with the places looked) when neither."""
    names = list(dict.fromkeys(_RE_LINK_WITH.findall(text)))
    for name in names:  # the kernel refuses longer names (a bare OSError where iron looks for it)
        long = [p for p in Path(name).parts if len(os.fsencode(p)) > limits.NAME_MAX]
        if long or "\0" in name:
            raise ForeignDesignError(
                f"{origin}: link_with = {name[:60]!r}{'...' if len(name) > 60 else ''}: "
                + (f"a file name of {len(os.fsencode(long[0]))} bytes" if long else "a NUL character")
                + f"; accepted: file names of at most {limits.NAME_MAX} bytes (the file system's limit)"
            )
    given: dict[str, Path] = {}
    if objects is not None:
        if isinstance(objects, (str, os.PathLike)):
            objects = [objects]
        for obj in objects:
            path = Path(obj)
            if not path.is_file():
                raise ForeignDesignError(f"from_mlir: objects= names {str(path)!r}, which is not a file")
            if path.name not in {Path(n).name for n in names}:
                raise ForeignDesignError(
                    f"{origin}: objects= names {str(path)!r}, but no link_with of the design names "
                    f"{path.name!r} (it links: {', '.join(names) or 'nothing'})"
                )
            given[path.name] = path.resolve()
    beside = Path(filename).resolve().parent if Path(filename).is_file() else None
    out = []
    for name in names:
        looked = []
        path = given.get(Path(name).name)
        if objects is not None:
            looked.append("objects= (" + ", ".join(sorted(given)) + ")" if given else "objects= (empty)")
        if path is None and beside is not None and not Path(name).is_absolute():
            looked.append(str(beside / name))
            if (beside / name).is_file():
                path = beside / name
        if path is None and Path(name).is_absolute():
            looked.append(name)
            path = Path(name) if Path(name).is_file() else None
        if path is None and objects is None and beside is None:
            looked.append("nowhere: the design is MLIR text (pass objects=[...])")
        out.append(ForeignObject(name, str(path) if path else None, tuple(looked)))
    return tuple(out)


def _source_text(source) -> tuple[str, str]:
    if isinstance(source, os.PathLike) or (
        isinstance(source, str) and "\n" not in source and source.rstrip().endswith(".mlir")
    ):
        path = Path(source)
        if not path.is_file():
            raise ForeignDesignError(f"from_mlir: {str(path)!r} is not a file")
        return limits.read_text(path, limits.MAX_MLIR_BYTES, "MLIR file", ForeignDesignError), str(path)
    if isinstance(source, str):
        return source, "<mlir>"
    if hasattr(source, "resolve_program"):  # an aie.iron Program
        return str(source.resolve_program()), "<aie.iron Program>"
    if hasattr(source, "operation"):  # an aie.ir Module
        return str(source), "<aie.ir Module>"
    raise ForeignDesignError(
        f"from_mlir: cannot read a {type(source).__name__}; accepted: MLIR text, a .mlir path, "
        "an aie.iron Program or an aie.ir Module"
    )


_RE_DEVICE_AT = re.compile(r"aie\.device\s*\(\s*(\w+)\s*\)\s*(?:@([A-Za-z0-9_$.\-]+))?")
_RE_SEQ_AT = re.compile(r"(?:aiex?\.runtime_sequence|func\.func)\s*(?:@([A-Za-z0-9_$.\-]+))?\s*\(")


def _positions(text: str, filename: str) -> dict:
    """``file:line:column`` of every device and runtime sequence, by symbol."""
    out = {"device": {}, "sequence": {}}
    for n, line in enumerate(text.splitlines(), 1):
        code = line.split("//", 1)[0]
        for m in _RE_DEVICE_AT.finditer(code):
            out["device"].setdefault(m.group(2) or ir.DEFAULT_DEVICE, f"{filename}:{n}:{m.start() + 1}")
        for m in _RE_SEQ_AT.finditer(code):
            out["sequence"].setdefault(m.group(1) or ir.DEFAULT_SEQUENCE, f"{filename}:{n}:{m.start() + 1}")
    return out


def _pick_device(module: ir.Module, wanted: str | None, where, filename) -> ir.Device:
    devices = [d for d in module.devices if d.sequences]
    if wanted is not None:
        for d in module.devices:
            if (d.symbol or ir.DEFAULT_DEVICE) == wanted:
                if not d.sequences:
                    raise ForeignDesignError(
                        f"{where['device'].get(wanted, filename)}: device @{wanted} has no runtime sequence"
                    )
                return d
        raise ForeignDesignError(
            f"{filename}: no aie.device @{wanted}; devices: "
            + ", ".join(f"@{d.symbol or ir.DEFAULT_DEVICE}" for d in module.devices)
        )
    if not module.devices:
        raise ForeignDesignError(f"{filename}:1:1: no aie.device in the design")
    if not devices:
        d = module.devices[0]
        raise ForeignDesignError(
            f"{where['device'].get(d.symbol or ir.DEFAULT_DEVICE, filename)}: device @{d.symbol or ir.DEFAULT_DEVICE} "
            "has no runtime sequence (aie.runtime_sequence): nothing for a host to run"
        )
    if len(devices) > 1:
        listed = "; ".join(
            f"@{d.symbol or ir.DEFAULT_DEVICE} at {where['device'].get(d.symbol or ir.DEFAULT_DEVICE, '?')}"
            for d in devices
        )
        first = where["device"].get(devices[0].symbol or ir.DEFAULT_DEVICE, filename)
        raise ForeignDesignError(
            f"{first}: the design has {len(devices)} devices with runtime sequences ({listed}); "
            "pick one with device=, or wire a fused module with `iron trace wire`"
        )
    return devices[0]


def _pick_sequence(dev: ir.Device, wanted: str | None, where, filename) -> ir.RuntimeSequence:
    seqs = dev.sequences
    if wanted is not None:
        for s in seqs:
            if s.name == wanted:
                return s
        raise ForeignDesignError(
            f"{filename}: device @{dev.symbol or ir.DEFAULT_DEVICE} has no runtime sequence @{wanted}; "
            f"sequences: {', '.join('@' + s.name for s in seqs)}"
        )
    if len(seqs) > 1:
        listed = "; ".join(f"@{s.name} at {where['sequence'].get(s.name, '?')}" for s in seqs)
        raise ForeignDesignError(
            f"{where['sequence'].get(seqs[0].name, filename)}: device @{dev.symbol or ir.DEFAULT_DEVICE} has "
            f"{len(seqs)} runtime sequences ({listed}); pick one with sequence="
        )
    if any(isinstance(op, (ir.Configure, ir.Run)) for op in ir.walk(seqs[0].body)):
        raise ForeignDesignError(
            f"{where['sequence'].get(seqs[0].name, filename)}: @{seqs[0].name} configures other devices "
            "(aiex.configure): a fused module, not one design; use `iron trace wire` on it"
        )
    return seqs[0]


def _trace_ops(dev: ir.Device) -> list[str]:
    """The design's own trace configuration: ``aie.trace`` ops, trace packet flows."""
    found = [op.text.splitlines()[0] for op in dev.body if is_trace_op(op)]
    found += [
        f"{_LOWERED_TRACE}{f.id}) from %{f.source.tile} Trace : {f.source.channel}"
        for f in dev.packet_flows
        if f.source.bundle == "Trace"
    ]
    return found


def _strip_trace(dev: ir.Device, origin: str) -> None:
    lowered = [f for f in dev.packet_flows if f.source.bundle == "Trace"]
    if lowered:
        f = lowered[0]
        raise ForeignDesignError(
            f"{origin}: existing_trace='replace': the design's trace is already lowered (packet flow {f.id} from "
            f"%{f.source.tile} Trace : {f.source.channel} plus its register writes); iron replaces aie.trace "
            "configurations only; use existing_trace='keep'"
        )
    strip_trace_ops(dev)


def _streams(dev: ir.Device, seq: ir.RuntimeSequence, origin: str):
    """(streams, {arg index: direction}) from the sequence's shim transfers."""
    allocs = objectfifo.shim_allocations(dev)
    names = {a.name: i for i, a in enumerate(seq.args)}
    streams: list[Stream] = []
    directions: dict[int, str] = {}

    def add(arg: str, symbol: str, what: str):
        alloc = allocs.get(symbol)
        if alloc is None:
            raise ForeignDesignError(
                f"{origin}: `{what}` names @{symbol}, which is no object FIFO with a shim end and no "
                "aie.shim_dma_allocation of the device"
            )
        index = seq.arg_index(arg)
        stream = Stream(index, alloc.symbol)
        if stream not in streams:
            streams.append(stream)
        d = "in" if alloc.direction == "MM2S" else "out"
        directions[index] = d if directions.get(index, d) == d else "inout"

    for index, d in _patched_directions(seq).items():
        directions[index] = d if directions.get(index, d) == d else "inout"
    for op in seq.body:
        if isinstance(op, ir.DmaMemcpyNd):
            add(op.arg, op.metadata, f"aiex.npu.dma_memcpy_nd(%{op.arg} ...)")
        elif isinstance(op, ir.Opaque) and (m := _RE_TASK_FOR.search(op.text)):
            for arg in _RE_BD_ARG.findall(op.text):
                add(arg, m.group(1), op.text.splitlines()[0].strip())
        elif isinstance(op, ir.Opaque) and (m := _RE_TASK_ON.search(op.text.splitlines()[0])):
            # a task on a tile's own DMA channel: its direction says what it does with the
            # argument (no allocation symbol: sim follows the lowered BD itself)
            tile = next((t for t in dev.tiles if t.name == m.group(1)), None)
            if tile is not None and tile.row == 0:
                d = "in" if m.group(2) == "MM2S" else "out"
                for arg in _RE_BD_ARG.findall(op.text):
                    if arg in names:
                        index = names[arg]
                        directions[index] = d if directions.get(index, d) == d else "inout"
    return streams, directions


def _patched_directions(seq: ir.RuntimeSequence) -> dict[int, str]:
    """{arg index: direction} of hand-written shim BDs: an ``address_patch`` binds an argument
    to a shim BD, the Task_Queue write that pushes that BD says the direction."""
    bd_arg: dict[tuple[int, int], int] = {}
    out: dict[int, str] = {}
    queues = {
        shim_dma.task_queue(d, c): d for d in shim_dma.DIRECTIONS for c in range(shim_dma.SHIM_DMA_CHANNELS)
    }
    for op in seq.body:
        if isinstance(op, ir.AddressPatch):
            col, row, off = registers.split_address(op.addr)
            bd = shim_dma.bd_of_address_low(off) if row == SHIM_ROW else None
            if bd is not None:
                bd_arg[col, bd] = op.arg_idx
        elif isinstance(op, ir.Write32) and (op.row or 0) == SHIM_ROW:
            d = queues.get(op.address & registers.OFFSET_MASK)
            index = bd_arg.get((op.column or 0, shim_dma.unpack_task_queue(op.value)["start_bd"]))
            if d is not None and index is not None:
                word = "in" if d == "mm2s" else "out"
                out[index] = word if out.get(index, word) == word else "inout"
    return out


__all__ = ["ForeignObject", "ForeignOperator", "ForeignDesignError", "from_mlir", "rebuild"]
