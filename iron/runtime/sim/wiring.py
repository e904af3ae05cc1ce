"""An engine's agents, built from the loaded program: FIFOs and their readers, link channels,
shim channels and cores (:func:`build`; each step below).

Which tile reads what: a shim S2MM channel or a core reads a FIFO directly; a link's memtile
reads its sources through the link's channels (one agent per distribute dest or join source,
:mod:`iron.runtime.sim.agents`). A core's memory-module channels and its lock 0 follow its FIFOs
in program order (sim's choice, as mlir-aie allocates them in that order).
"""

from __future__ import annotations

from iron.runtime.sim import agents
from iron.runtime.sim.agents import Proc
from iron.runtime.sim.fifo import Dims, Fifo, Reader, check_cover, fifo_type
from iron.runtime.sim.interp import NotModelledOp
from iron.target.geometry import SHIM_ROW


def build(eng, allocations: dict) -> None:
    """Every agent of ``eng``'s program (FIFOs in ``eng.fifos``, agents in ``eng.procs``);
    ``allocations``: FIFO name -> its shim channel allocation."""
    _fifos(eng)
    link_src = {s: lk for lk in eng.prog.links for s in lk.sources}
    link_dst = {d: lk for lk in eng.prog.links for d in lk.dests}
    _readers(eng, link_src)
    for lk in eng.prog.links:
        if len(lk.sources) == 1:
            _distribute(eng, lk)
        else:
            _join(eng, lk)
    _shim_channels(eng, allocations, link_dst)
    for core in eng.prog.cores:
        _core(eng, core)


def _fifos(eng) -> None:
    """One :class:`Fifo` per object FIFO, its patterns checked; links must name known FIFOs."""
    prog = eng.prog
    checked = prog.covered  # the same program's patterns passed before
    for name, op in prog.fifos.items():
        f = Fifo(op, fifo_type(op), eng.taint, eng.pool)
        if not checked:
            check_cover(op, f.numel, prog.tiles)
        f.to_dims = op.dims_to_stream  # never on a shim producer: iron.mlir.check refuses it
        eng.fifos[name] = f
    prog.covered = True
    for lk in prog.links:
        unknown = [n for n in (*lk.sources, *lk.dests) if n not in eng.fifos]
        if unknown:  # e.g. a FIFO with per-end depths, which iron's reader keeps as text
            raise NotModelledOp(
                f"not modelled: object FIFO @{unknown[0]} of a link (its form is kept as text)"
            )
        if len(lk.sources) == 1:  # distribute: its channels apply each dest's pattern themselves
            for d in lk.dests:
                eng.fifos[d].to_dims = ()


def _readers(eng, link_src: dict) -> None:
    """A reader per consumer: a shim S2MM channel or a core; a link's memtile reads its
    sources through the link's channels (:func:`_distribute`, :func:`_join`)."""
    for name, f in eng.fifos.items():
        op = f.op
        from_dims = op.dims_from_stream or ((),) * len(op.consumers)
        for cons, dims in zip(op.consumers, from_dims):
            if eng.prog.tiles[cons].row == SHIM_ROW:
                _reader(eng, f, f"shim S2MM @{name}", ())
            elif name in link_src and cons == _link_tile(eng, link_src[name]):
                continue
            else:
                _reader(eng, f, f"%{cons}", dims, key=(name, cons))


def _shim_channels(eng, allocations: dict, link_dst: dict) -> None:
    """The shim MM2S / S2MM channel agents of FIFOs with a shim end (their allocation);
    a producer that is no shim, core or link is not modelled."""
    tiles = eng.prog.tiles
    core_tiles = {c.tile for c in eng.prog.cores}
    for name, f in eng.fifos.items():
        op = f.op
        if tiles[op.producer].row == SHIM_ROW:
            alloc = allocations.get(name)
            if alloc is not None:
                _shim(eng, f, alloc, "mm2s", None)
        elif name not in link_dst and op.producer not in core_tiles:
            raise NotModelledOp(f"object FIFO @{name}: producer %{op.producer} runs no core and no link")
    for name, f in eng.fifos.items():
        alloc = allocations.get(name)
        for cons in f.op.consumers:
            if tiles[cons].row == SHIM_ROW and alloc is not None:
                r = next(r for r in f.readers if r.label.startswith("shim S2MM"))
                _shim(eng, f, alloc, "s2mm", r)


def _shim(eng, f: Fifo, alloc, direction: str, r: Reader | None) -> None:
    """The agent of shim channel ``alloc`` moving ``f``'s objects (``r``: its reader, for S2MM)."""
    key = (alloc.column, direction, alloc.channel)
    eng.shim_channels[key] = f.name
    name = f"shim ({alloc.column},0) {direction.upper()} {alloc.channel} @{f.name}"
    proc = Proc(name, alloc.column, SHIM_ROW)
    proc.gen = agents.mm2s(eng, proc, key, f) if r is None else agents.s2mm(eng, proc, key, f, r)
    eng.procs.append(proc)


def _core(eng, core) -> None:
    """A core's agent, its memory-module channels and lock 0: its FIFOs in program order
    (sim's choice, as mlir-aie allocates them in that order); lock 0 is its first input's."""
    ins = [n for n, f in eng.fifos.items() if core.tile in f.op.consumers]
    outs = [n for n, f in eng.fifos.items() if f.op.producer == core.tile]
    for k, n in enumerate(ins):
        eng._channel[n, core.tile] = k % 2
    for k, n in enumerate(outs):
        eng._channel[n, core.tile] = k % 2
    if ins:
        eng._lock0[core.tile] = ins[0]
    proc = Proc(f"core ({core.col},{core.row})", core.col, core.row, tile=core.tile)
    proc.gen = agents.core(eng, core, proc)
    eng._cores[core.tile] = proc
    eng.procs.append(proc)


def _reader(eng, f: Fifo, label: str, dims: Dims, key=None) -> Reader:
    r = Reader(label, tuple(dims))
    r.bufs, r.ebufs, r.kbufs = f.buffers((f.name, "reader", len(f.readers)))
    f.add_reader(r)
    if key is not None:
        eng._reader_of[key] = r
    return r


def _link_tile(eng, lk) -> str:
    """The tile whose DMA runs a link (a memtile, or a compute tile forwarding without a core)."""
    return eng.fifos[lk.dests[0]].op.producer


def _distribute(eng, lk) -> None:
    src = eng.fifos[lk.sources[0]]
    tiles = eng.prog.tiles
    ci = src.op.consumers.index(_link_tile(eng, lk))
    mem = tiles[src.op.consumers[ci]]
    offsets = lk.dest_offsets or (0,) * len(lk.dests)
    from_dims = (src.op.dims_from_stream or ((),) * len(src.op.consumers))[ci]
    for dest, off in zip(lk.dests, offsets):
        d = eng.fifos[dest]
        r = _reader(eng, src, f"memtile ({mem.col},{mem.row}) MM2S @{dest}", from_dims)
        proc = Proc(f"memtile ({mem.col},{mem.row}) MM2S @{dest}", mem.col, mem.row)
        forward = len(lk.dests) == 1 and not d.op.dims_to_stream and d.nbytes != src.nbytes
        proc.gen = agents.distribute(eng, proc, src, r, d, off, forward)
        eng.procs.append(proc)


def _join(eng, lk) -> None:
    dest = eng.fifos[lk.dests[0]]
    dest.writers = len(lk.sources)
    dest.next_slot = [0] * dest.writers
    dest.held = [0] * dest.writers
    mem = eng.prog.tiles[dest.op.producer]
    offsets = lk.source_offsets or (0,) * len(lk.sources)
    for w, (sname, off) in enumerate(zip(lk.sources, offsets)):
        s = eng.fifos[sname]
        ci = s.op.consumers.index(dest.op.producer)
        dims = (s.op.dims_from_stream or ((),) * len(s.op.consumers))[ci]
        r = _reader(eng, s, f"memtile ({mem.col},{mem.row}) S2MM @{sname}", ())
        proc = Proc(f"memtile ({mem.col},{mem.row}) S2MM @{sname}", mem.col, mem.row)
        proc.gen = agents.join(eng, proc, s, r, dest, w, off, tuple(dims))
        eng.procs.append(proc)
