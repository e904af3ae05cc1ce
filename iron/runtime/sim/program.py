"""What sim executes of one ``aie.device``: its object FIFOs, links, kernel declarations and cores.

The PDI payload carries the device's MLIR as iron prints it
(:class:`iron.artifact.pdi.DevicePayload`); :func:`program` re-reads it with
iron's reader (:func:`iron.mlir.reader.parse`) and turns the ops sim runs into
plain data:

* object FIFOs (:class:`iron.mlir.ir.ObjectFifo`: depth, element type,
  ``dimensionsToStream`` / ``dimensionsFromStream``);
* ``aie.objectfifo.link`` (distribute / join with element offsets), read from the
  op text when the reader kept it opaque;
* ``aie.cascade_flow`` (source and destination core tiles, :mod:`iron.runtime.sim.cascade`);
* ``func.func`` declarations and the object each one's ``link_with`` names (or the
  ``link_with`` of the core that calls it, the older spelling);
* each ``aie.core`` body: the reader's op objects (:mod:`iron.mlir.body`, regions
  nested; other ops :class:`iron.mlir.ir.Opaque`), which :mod:`iron.runtime.sim.interp` runs.

* the stream routes (``aie.flow``, ``aie.packet_flow``) and ``aie.lock`` ids with their
  initial values, which the register-level DMAs of memtiles and compute tiles use
  (:mod:`iron.runtime.sim.tile_dma`); ``{runtimeDmas = true}`` object FIFOs and their links
  are kept apart for it (:attr:`Program.runtime_fifos`), the FIFO-level engine never sees them.

The statically written DMA programs (``aie.mem`` / ``aie.memtile_dma`` / ``aie.shim_dma``) are
read from ``Program.device`` by :mod:`iron.runtime.sim.static_dma`. Everything else in the device is
listed in :attr:`Program.unmodelled`: the design still runs its control path and
trace, its outputs are not modelled.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from iron.mlir import dma_program, ir, storage
from iron.mlir.decl import NAME as _NAME
from iron.mlir.reader import parse

_RE_LINK = re.compile(
    rf"^aie\.objectfifo\.link\s*\[([^\]]*)\]\s*->\s*\[([^\]]*)\]\s*\(\s*\[([^\]]*)\]\s*\[([^\]]*)\]\s*\)\s*$"
)
_RE_FUNC = re.compile(rf"^func\.func\s+(?:private\s+)?@({_NAME})\s*\(([^)]*)\)(.*)$", re.S)
_RE_LINK_WITH = re.compile(r'link_with\s*=\s*"([^"]*)"')
_RE_CASCADE = re.compile(rf"^aie\.cascade_flow\s*\(\s*%({_NAME})\s*,\s*%({_NAME})\s*\)\s*$")


@dataclass
class Link:
    sources: tuple[str, ...]
    dests: tuple[str, ...]
    source_offsets: tuple[int, ...]
    dest_offsets: tuple[int, ...]


@dataclass
class CoreProgram:
    tile: str  # tile SSA name
    col: int
    row: int
    body: list  # iron.mlir.body ops and ir.Opaque
    link_with: str | None = None  # core-level link_with (older designs)
    #: id(region ops) -> (the ops, their (op, handler) pairs; None: it has block labels), made
    #: once by the interpreter (:meth:`iron.runtime.sim.interp.Core.block`) for every core that
    #: runs this program (a sequence runs it again at every reconfiguration)
    regions: dict = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class Port:
    """One end of a stream route: ``%tile, DMA : 0``."""

    tile: str
    bundle: str
    channel: int


@dataclass(frozen=True)
class Route:
    """``aie.flow`` (``packet_id`` None) or one ``aie.packet_flow`` source and its dests."""

    source: Port
    dests: tuple[Port, ...]
    packet_id: int | None = None


@dataclass
class Program:
    target: str
    tiles: dict[str, ir.Tile]
    fifos: dict[str, ir.ObjectFifo]
    links: list[Link]
    funcs: dict[str, str | None]  # kernel symbol -> object file it links (None: unnamed)
    cores: list[CoreProgram]
    device: ir.Device | None = None
    cascades: list[tuple[str, str]] = field(default_factory=list)  # aie.cascade_flow (source, dest) tiles
    unmodelled: list[str] = field(default_factory=list)  # ops sim does not execute (first words)
    #: ``{runtimeDmas = true}`` FIFOs (their memtile DMA is the sequence's: iron.runtime.sim.tile_dma)
    runtime_fifos: dict[str, ir.ObjectFifo] = field(default_factory=dict)
    runtime_links: list[Link] = field(default_factory=list)
    routes: list[Route] = field(default_factory=list)  # the design's aie.flow / aie.packet_flow
    locks: dict[tuple[str, int], int] = field(default_factory=dict)  # (tile, lock id) -> init (aie.lock)
    source: str = ""  # the device's MLIR as read (for "at <where>:<line>" in messages)
    where: str = "<pdi>"
    #: elements of its FIFO slots and buffers (:func:`iron.runtime.sim.progress.storage_elements`),
    #: counted once: an engine is built from the program at every reconfiguration
    storage: int | None = field(default=None, repr=False, compare=False)
    #: its FIFO patterns passed :func:`iron.runtime.sim.fifo.check_cover` (checked by the first engine)
    covered: bool = field(default=False, repr=False, compare=False)

    def line_of(self, tile: str, text: str) -> int | None:
        """The line (1-based) of ``source`` where op ``text`` (its first line) stands in the
        core of ``tile``, or None."""
        first = text.split("\n", 1)[0].strip()
        lines = self.source.splitlines()
        start = next((k for k, line in enumerate(lines) if f"aie.core(%{tile})" in line), None)
        if start is None:
            return None
        return next((k + 1 for k in range(start, len(lines)) if lines[k].strip() == first), None)


def program(mlir: str, where: str = "<pdi>") -> Program:
    """The executable parts of the device printed in ``mlir`` (see the module docstring)."""
    module = parse(mlir, where)
    dev = module.devices[0]
    tiles = {t.name: t for t in dev.tiles}
    prog = Program(dev.target, tiles, {}, [], {}, [], dev, source=mlir, where=where)
    for op in dev.body:
        if isinstance(op, ir.ObjectFifo):
            (prog.runtime_fifos if op.runtime_dmas else prog.fifos)[op.name] = op
        elif isinstance(op, ir.ObjectFifoLink):
            prog.links.append(Link(op.sources, op.dests, op.source_offsets, op.dest_offsets))
        elif isinstance(op, ir.PacketFlow):
            src, dst = (Port(e.tile, e.bundle, e.channel) for e in (op.source, op.dest))
            prog.routes.append(Route(src, (dst,), op.id))
        elif isinstance(op, ir.FuncDecl):
            prog.funcs[op.name] = op.link_with
        elif isinstance(op, ir.Core):
            t = tiles[op.tile]
            prog.cores.append(CoreProgram(op.tile, t.col, t.row, op.body, op.link_with))
        elif isinstance(op, ir.Opaque):
            _opaque(prog, op.text)
    runtime = set(prog.runtime_fifos)
    prog.runtime_links = [lk for lk in prog.links if runtime & {*lk.sources, *lk.dests}]
    prog.links = [lk for lk in prog.links if lk not in prog.runtime_links]
    return prog


_PORT = rf"%({_NAME})\s*,\s*\"?(\w+)\"?\s*:\s*(\d+)"
_RE_FLOW = re.compile(rf"^aie\.flow\s*\(\s*{_PORT}\s*,\s*{_PORT}\s*\)$")
_RE_PACKET_FLOW = re.compile(r"^aie\.packet_flow\s*\(\s*(0x[0-9a-fA-F]+|\d+)\s*\)")
_RE_PACKET_END = re.compile(rf"aie\.packet_(source|dest)\s*<\s*{_PORT}\s*>")


def _route_or_lock(prog: Program, first: str) -> bool:
    """Reads an ``aie.flow``, an ``aie.packet_flow`` or an ``aie.lock`` with its id; True if it was one.
    ``aie.buffer`` needs nothing here (DMA BDs carry the addresses)."""
    port = lambda m, i: Port(m.group(i), m.group(i + 1), int(m.group(i + 2)))  # noqa: E731
    if m := _RE_FLOW.match(" ".join(first.split())):
        prog.routes.append(Route(port(m, 1), (port(m, 4),)))
    elif m := _RE_PACKET_FLOW.match(first):
        ends = list(_RE_PACKET_END.finditer(first))
        sources = [port(e, 2) for e in ends if e.group(1) == "source"]
        dests = tuple(port(e, 2) for e in ends if e.group(1) == "dest")
        prog.routes += [Route(src, dests, int(m.group(1), 0)) for src in sources]
    elif lk := storage.read_lock(first):
        prog.locks[lk.tile, lk.id] = lk.init
    else:
        return storage.read_buffer(first) is not None
    return True


def _opaque(prog: Program, text: str) -> None:
    first = text.strip()
    if _route_or_lock(prog, first):
        return
    m = _RE_LINK.match(" ".join(first.split()))
    if m:
        syms = lambda s: tuple(x.strip().lstrip("@") for x in s.split(",") if x.strip())  # noqa: E731
        ints = lambda s: tuple(int(x) for x in s.split(",") if x.strip())  # noqa: E731
        prog.links.append(Link(syms(m.group(1)), syms(m.group(2)), ints(m.group(3)), ints(m.group(4))))
        return
    m = _RE_CASCADE.match(first)
    if m:
        prog.cascades.append((m.group(1), m.group(2)))
        return
    m = _RE_FUNC.match(first)
    if m:
        lw = _RE_LINK_WITH.search(m.group(3))
        prog.funcs[m.group(1)] = lw.group(1) if lw else None
        return
    word = first.split("(")[0].split()[0] if first else ""
    if word.startswith("%") and "=" in first:
        word = first.split("=", 1)[1].split()[0].split("(")[0]
    if word in dma_program.REGION_OPS:  # programmed at load by iron.runtime.sim.static_dma
        return
    if word.startswith(("aie.", "aiex.")) and word not in _IGNORED and not word.startswith("aie.trace"):
        prog.unmodelled.append(word)


#: Device-level ops sim needs no model of (routing is implied by the FIFOs; ``aie.trace*``
#: configures trace, which iron lowers into the control stream sim runs).
_IGNORED = {"aie.end", "aie.flow", "aie.wire", "aie.switchbox", "aie.shim_mux"}
