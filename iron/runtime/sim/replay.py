"""Replaying a loaded design's recorded data flow instead of interpreting it again.

A design whose control flow cannot depend on data values does the same data effects
(:mod:`iron.runtime.sim.dataflow`: DMA gathers and scatters, object hand-offs, kernel calls, the
trace words it drains) in the same order for every input of the same shapes. sim records each
interpreted run of a loaded artifact and, once it has shown the run is a fixed point of the device's
control state, runs the recorded ops again on the same buffers instead of the interpreter.

**Replayable** (:func:`reason` says why not, conservatively): every core body is scalar control
(``arith`` / ``scf`` / ``affine`` on indices), object-FIFO acquire/release, ``func.call`` to a
kernel with a built-in model (no user models: they may refuse some data) and ``aie.event``; no
``memref`` / ``vector`` op, no cascade, no static DMA program or ``aie.buffer``, no register-level
tile DMA, nothing not modelled (no taint). Such a core's scalars come from constants, loop indices
and call results (sim binds those to 0), so its branches and trip counts never see data.

**When** (:class:`Replayer`): run ``n`` is interpreted and recorded with the control state it started
from (:func:`control_state`: loaded PDI, registers, DMA queues and tokens, trace timers and units,
every FIFO's slot positions and agent clocks relative to the device clock; a run that ends with a
core still running, a task queued, an object in flight or a unit recording has none). When the state
it ends in equals the one it started from, and its raw trace bytes equal the previous run's, every
later run starts from that same state, so its data effects and trace are run ``n``'s: they are
replayed on the same buffers (the host buffers and the engine's object buffers persist; a
replay zeroes what a reconfiguration would). Any mismatch (another input set, a state change)
interprets and records again. The log holds array views and index arrays, so it stays in memory
with the runner and is never written beside the artifact.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from iron.mlir import body as b
from iron.runtime.sim import dataflow, kernel_models
from iron.runtime.sim.compiled import compile_ops
from iron.runtime.sim.taint import owner

#: The core-body ops that never see data (see the module docstring).
_SCALAR_CONTROL = (
    b.Constant, b.Binary, b.Compare, b.Select, b.Cast, b.For, b.If, b.Yield, b.Acquire,
    b.SubviewAccess, b.Release, b.Call, b.End, b.Event, b.AffineFor, b.AffineYield,
)  # fmt: skip
_REGIONS = ("body", "then", "orelse")


def body_reason(ops: list, tile: str) -> str | None:
    """Why core ``tile``'s body may see data (None: it cannot)."""
    for op in ops:
        if type(op) not in _SCALAR_CONTROL:
            name = getattr(op, "name", None) or type(op).__name__
            return f"core {tile} runs {name}, which may read or write data directly"
        for region in _REGIONS:
            inner = getattr(op, region, None)
            if isinstance(inner, list):
                why = body_reason(inner, tile)
                if why:
                    return why
    return None


def engine_reason(engine, tile_dmas, static) -> str | None:
    """Why a run on ``engine`` (with its device's tile DMAs and static DMA state) is not
    replayable (None: it is)."""
    if engine.tainted or engine.unmodelled_kernels:
        return f"not modelled: {(engine.tainted or engine.unmodelled_kernels)[0]}"
    if engine.models is not None:
        return "the run uses kernel models given at load (they may refuse some data)"
    if engine.prog.cascades or any(
        isinstance(m, kernel_models.CascadeModel) for m, _ in engine._looked_up.values()
    ):
        return "the design uses cascades"
    if static.buffers or static.locks or static.unmodelled:
        return "the design has static DMA programs or aie.buffer / aie.lock ops"
    if tile_dmas.channels or tile_dmas.streams or tile_dmas.memory:
        return "the run programs register-level tile DMAs"
    for core in engine.prog.cores:
        why = body_reason(core.body, core.tile)
        if why:
            return why
    return None


#: A loop whose upper bound is at least this runs "forever" (upstream's 0xFFFFFFFF / INT64_MAX idiom).
FOREVER = 1 << 31


@dataclass
class State:
    """A device's control state (:func:`control_state`): ``key`` decides the next run; ``loops``
    are the unused counters of forever loops left out of it, (core, iv) -> (value, upper, step)."""

    key: tuple
    loops: dict = field(default_factory=dict)

    def __eq__(self, other) -> bool:
        return isinstance(other, State) and self.key == other.key


def _operands(ops: list, out: set) -> set:
    """Every name an op of ``ops`` (and its regions) reads."""
    for op in ops:
        for k, v in vars(op).items():
            if k in ("results", "iv") or isinstance(v, list):
                continue
            if isinstance(v, str):
                out.add(v)
            elif isinstance(v, tuple):
                out.update(x for x in v if isinstance(x, str))
                out.update(y for x in v if isinstance(x, tuple) for y in x if isinstance(y, str))
        for region in _REGIONS:
            inner = getattr(op, region, None)
            if isinstance(inner, list):
                _operands(inner, out)
    return out


def _forever_loops(core, env: dict) -> dict:
    """iv -> (upper, step) of the core's loops that run forever and whose counter nothing reads."""
    used, out, todo = _operands(core.body, set()), {}, [core.body]
    while todo:
        for op in todo.pop():
            if isinstance(op, b.For) and op.iv not in used:
                upper, step = env.get(op.upper), env.get(op.step)
                if isinstance(upper, int) and isinstance(step, int) and upper >= FOREVER and step > 0:
                    out[op.iv] = (upper, step)
            todo.extend(getattr(op, r) for r in _REGIONS if isinstance(getattr(op, r, None), list))
    return out


def _value(v, buffers: set):
    """An env value as state: an object buffer (owner id in ``buffers``) by its owner and place
    (its contents are data), any other array (a constant) and a scalar by value."""
    if isinstance(v, np.ndarray):
        root = owner(v)
        if id(root) not in buffers:
            return ("constant", v.shape, v.dtype.str, v.tobytes())
        at = v.__array_interface__["data"][0] - root.__array_interface__["data"][0]
        return ("buffer", id(root), at, v.shape, v.strides, v.dtype.str)
    if isinstance(v, (list, tuple)):
        return tuple(_value(x, buffers) for x in v)
    return v if isinstance(v, (int, float, bool, str, type(None), np.generic)) else ("object", id(v))


def _core_state(p, loops: dict):
    """A running core's place (the op it waits at) and values, forever-loop counters left out."""
    interp = p.interp
    if interp is None or interp.taint is not None:
        return f"core {p.name} has no interpreter state sim can compare"
    forever = _forever_loops(interp.prog, interp.env)
    for iv, (upper, step) in forever.items():
        loops[(p.name, iv)] = (interp.env.get(iv), upper, step)
    buffers = interp.engine.taint._tracked  # the object buffers (iron.runtime.sim.fifo.Fifo.buffers)
    env = tuple(sorted((k, None if k in forever else _value(v, buffers)) for k, v in interp.env.items()))
    return (id(interp.op), env)


def _fifo_state(f, now: int) -> tuple:
    """A FIFO's slots, counts and pending times relative to what it has pushed and to ``now``."""
    base, d = f.pushed, f.depth
    if f.why:
        return ("marked",)
    low = min([r.released for r in f.readers] + [base])
    high = max([s + h for s, h in zip(f.next_slot, f.held)] + [base])
    ready = tuple(None if j not in f.ready else now - f.ready[j] for j in range(low, high))
    first = min(f.next_slot + [f.freed()]) - d
    freed = tuple(None if j not in f.free_at else now - f.free_at[j] for j in range(first, f.freed()))
    parts = tuple((j - base, c) for j, c in sorted(f.parts.items()))
    writers = tuple((s - base, h) for s, h in zip(f.next_slot, f.held))
    readers = tuple((r.released - base, r.held) for r in f.readers)
    return (f.name, d, base % d, parts, writers, readers, ready, freed)


def _engine_state(eng, now: int, loops: dict):
    """The engine's control state relative to the device clock ``now`` (a str: why it has none)."""
    procs = []
    for p in eng.procs:
        core = _core_state(p, loops) if p.tile and not p.done else None
        if isinstance(core, str):
            return core
        procs.append((p.name, p.done, now - p.t, p.wait, p.carry, p.steps, core))
    fifos = tuple(_fifo_state(f, now) for f in eng.fifos.values())
    return (tuple(procs), fifos, eng.first_call, tuple(eng.tainted), tuple(eng.unmodelled_kernels))


def _task(t, now: int) -> tuple:
    return (t.bd_id, t.buffer.address, t.buffer.size, t.offset, t.length, t.repeat, t.issue_token,
            t.packet, t.moved, tuple(t.pattern), now - t.pushed_at, repr(t.segments))  # fmt: skip


def control_state(dev):
    """What decides the next run's data effects and trace, times relative to ``dev.now``
    (a :class:`State`; a str: why the device is not at a point where that is known)."""
    now, loops = dev.now, {}
    chans = tuple(
        (key, ch.tokens, ch.overflow, tuple(_task(t, now) for t in ch.queue))
        for key, ch in sorted(dev.channels.items())
    )
    if any(u.running for u in dev.units.values()):
        return "a trace unit is still recording at the end of the run"
    eng = None if dev.engine is None else _engine_state(dev.engine, now, loops)
    if isinstance(eng, str):
        return eng
    regs = tuple(sorted((k, tuple(sorted(v.items()))) for k, v in dev.regs.items() if v))
    patches = tuple(sorted((a, arg, buf.address, buf.size) for a, (_t, arg, buf) in dev.patches.items()))
    timers = tuple(sorted((k, now - v) for k, v in dev.timer_base.items()))
    recorded = tuple(sorted((k, now - v) for k, v in dev._recorded.items()))
    return State((dev.loaded, chans, regs, patches, timers, recorded, eng), loops)


@dataclass
class Recording:
    """One interpreted run: its ops and what else it left on the device."""

    key: tuple  # the input buffers and their sizes
    start: object  # control_state before the run
    ops: list = field(default_factory=list)
    end: object = None
    trace: bytes | None = None
    flushed: list = field(default_factory=list)
    kernel_calls: list = field(default_factory=list)
    calls: dict = field(default_factory=dict)
    log: list = field(default_factory=list)
    design_why: str | None = None  # why the design's data flow may depend on data (None: it cannot)
    why_not: str | None = None  # why later runs cannot replay this one (None: they can)
    budget: int = 0  # replays left before a forever loop's counter could reach its end
    models: tuple = ()  # the model lookups the run used (_models)
    runs: list | None = None  # the ops' bound run methods, made at the first replay
    #: the ops compiled at the first replay (:mod:`iron.runtime.sim.compiled`); None: not yet tried
    program: object = None
    compile_why: str | None = None  # why the ops are replayed one by one (None: compiled, or not tried)


class Replayer:
    """Records a loaded artifact's interpreted runs and replays the one that is a fixed point
    (see the module docstring). ``enabled = False``: every run is interpreted."""

    def __init__(self):
        self.enabled = True
        self.last: Recording | None = None  # the last interpreted run
        self.ready: Recording | None = None  # the run later runs repeat
        #: why runs are interpreted (None: they replay ``ready``)
        self.reason: str | None = "no run yet: the first runs are interpreted and recorded"
        self.replayed = False  # whether the last run was a replay
        #: replays run the recording compiled (iron.runtime.sim.compiled) where it compiles
        self.compile = True

    def run(self, dev, key: tuple, interpret, trace_of, host: list | None = None) -> None:
        """One run of the loaded artifact on ``dev``: ``interpret()`` runs its dispatches on the
        interpreter; ``trace_of()`` is the trace buffer's bytes after a run (None: untraced);
        ``key`` names the input buffers and sizes; ``host``: the host buffers' arrays (with the
        device's object buffers, what a compiled replay leaves as the op-by-op one does; None:
        every array the run writes)."""
        rec = self.ready if self.enabled else None
        if (
            rec is not None
            and rec.key == key
            and rec.budget > 0
            and _same_models(dev, rec)
            and (control_state(dev) == rec.start)
        ):
            replay(dev, rec, self.compile, host)
            rec.budget -= 1
            self.replayed = True
            return
        self.replayed, self.ready = False, None
        if not self.enabled:  # no recorder: the interpreter alone
            interpret()
            self.reason = "replay is disabled"
            return
        rec = record(dev, key, interpret, trace_of)
        prev, self.last = self.last, rec
        if rec.why_not is None and (prev is None or prev.trace != rec.trace):
            rec.why_not = "its trace differs from the previous run's (or there was none)"
        self.reason = rec.why_not
        if rec.why_not is None:
            rec.budget = _budget(rec.start, rec.end)
            self.ready = rec


def _budget(start: State, end: State) -> int:
    """How many more runs the forever loops left out of the state can repeat (each run
    advances their counters as the recorded one did; a loop's end would change the run)."""
    budget = 1 << 62
    for name, (value, upper, step) in end.loops.items():
        before = start.loops.get(name, (None,))[0]
        if value is None or before is None:
            return 0 if value != before else budget
        per_run = (value - before) // step
        if per_run > 0:
            budget = min(budget, (upper - value) // step // per_run - 1)
    return max(budget, 0)


def record(dev, key: tuple, interpret, trace_of) -> Recording:
    """Run ``interpret()`` with a recorder on; the :class:`Recording` says whether it may be replayed."""
    rec = Recording(key, control_state(dev))
    used = [(dev.engine, dev.tile_dmas, dev.static_dma)] if dev.engine is not None else []
    marks = len(dev.flushed), len(dev.kernel_calls), len(dev.log), dict(dev.calls)
    log = dataflow.Recorder()
    with dataflow.recording(log):
        interpret()
    rec.ops = log.ops
    rec.flushed = dev.flushed[marks[0] :]
    rec.kernel_calls = dev.kernel_calls[marks[1] :]
    rec.log = dev.log[marks[2] :]
    rec.calls = {k: v - marks[3].get(k, 0) for k, v in dev.calls.items() if v != marks[3].get(k, 0)}
    rec.trace = trace_of()
    rec.end = control_state(dev)
    rec.design_why = _design_why(dev, used + log.engines, rec.ops)
    rec.models = _models(dev)
    rec.why_not = rec.design_why or _state_why(rec)
    return rec


def _design_why(dev, engines: list, ops: list) -> str | None:
    """Why the recorded run's data flow may depend on data (None: it cannot)."""
    for engine, tile_dmas, static in engines:
        why = engine_reason(engine, tile_dmas, static)
        if why:
            return why
    if dev.not_modelled:
        return "some output bytes are not modelled"
    buffers = set().union(*(engine.taint._tracked for engine, _t, _s in engines))
    for op in ops:  # a kernel handed a core's own array (a constant) could change it for good
        if isinstance(op, dataflow.Call) and any(
            isinstance(a, np.ndarray) and id(owner(a)) not in buffers for a in op.args
        ):
            return "a kernel is handed an array that is not an object-FIFO buffer"
    return None


def _models(dev) -> tuple:
    """The kernel-model lookups a run uses (a test may replace the module's between runs)."""
    return (dev.kernel_models, kernel_models.model_for)


def _same_models(dev, rec: Recording) -> bool:
    return all(a is b for a, b in zip(_models(dev), rec.models))


def _state_why(rec: Recording) -> str | None:
    """Why later runs would not repeat the recorded one (None: they would)."""
    for state in (rec.start, rec.end):
        if isinstance(state, str):
            return state
    if rec.end != rec.start:
        return "the device's control state after the run differs from before it"
    return None


def replay(dev, rec: Recording, compiled: bool = True, host: list | None = None) -> None:
    """Run ``rec``'s ops on their buffers and leave on ``dev`` what the run left (flushed trace
    units, kernel calls, log lines); the control state is ``rec.start`` before and after.
    ``compiled``: run the ops compiled (:func:`iron.runtime.sim.compiled.compile_ops`, tried once
    per recording) where they compile, else (and when they do not: ``rec.compile_why``) one by one.
    ``host``: the host buffers' arrays; with the device's object buffers, the arrays whose contents
    a compiled replay must leave as the ops do (the rest are the run's own temporaries, which only
    the recording holds; None: every array)."""
    if compiled and rec.program is None and rec.compile_why is None:
        keep = None
        if host is not None:
            keep = {id(owner(a)) for a in (*host, *dev.object_buffers())}
        program = compile_ops(rec.ops, keep)
        if isinstance(program, str):
            rec.compile_why = program
        else:
            rec.program = program
    if compiled and rec.program is not None:
        rec.program.run()
    else:
        if rec.runs is None:  # bound once per recording: the replay loop is the ops' own code only
            rec.runs = [op.run for op in rec.ops]
        for run in rec.runs:
            run()
    dev.flushed.extend(rec.flushed)
    dev.kernel_calls.extend(rec.kernel_calls)
    dev.log.extend(rec.log)
    for k, v in rec.calls.items():
        dev.calls[k] = dev.calls.get(k, 0) + v


def fresh_roots(dev, memory, inputs: dict, ops: list) -> dict:
    """Replacement owners for a replay of ``ops`` on fresh buffers: the host buffers (``inputs``
    written, the rest zero), every engine object buffer of ``dev`` and every temporary an op
    writes (zero); id(old owner) -> new. Arrays no op writes (trace words) stay."""
    roots = {}
    for name, buf in memory.buffers.items():
        new = np.zeros(buf.size, np.uint8)
        if name in inputs:
            new[:] = np.frombuffer(np.ascontiguousarray(inputs[name]).tobytes(), np.uint8)
        roots[id(buf.data)] = new
    roots.update((id(raw), np.zeros_like(raw)) for raw in dev.object_buffers())
    for op in ops:
        for a in op.arrays()[0]:
            root = owner(a)
            if id(root) not in roots:
                roots[id(root)] = np.zeros_like(root)
    return roots
