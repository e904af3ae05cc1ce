"""Kernel calls on sim: a core's ``func.call`` runs the kernel's model on the buffers it hands over.

Models come from :func:`iron.runtime.sim.kernel_models.model_for` (or the engine's ``models``
lookup: a user's models first), looked up once per kernel in each dispatch. A kernel without a
model, or fed buffers sim did not compute, marks every buffer it was handed
(:mod:`iron.runtime.sim.taint`); a value no mark can follow voids the device's outputs. The
call's cost and trace events are the engine's (:meth:`iron.runtime.sim.engine.Engine.call_events`).
The engine exposes :func:`call` and :func:`forget_models` as its methods.
"""

from __future__ import annotations

from iron.runtime.sim import cascade, costs, dataflow, kernel_models, progress


def call(eng, proc, symbol: str, args: list, core_link: str | None):
    """Run kernel ``symbol``'s model on ``args``; a generator when the kernel reads its
    cascade (:mod:`iron.runtime.sim.cascade`: the core waits for the data), else None."""
    progress.interacted(proc)
    obj = eng.prog.funcs.get(symbol) or core_link
    defines, arch = eng.kernels.get(obj, ({}, eng.arch)) if obj else ({}, eng.arch)
    known = obj in eng.kernels  # iron compiled it: its defines are known
    model, unknown = _model(eng, symbol, obj, defines, arch, known)
    why = None if unknown is None else _unknown_defines(symbol, obj, unknown)
    eng.call_events(proc, args, costs.call_cost(symbol, args, arch))
    eng.calls.append(symbol)
    if model is None:
        # the table's reason; a lookup sim was handed (kernel_models=) may refuse more
        refused = kernel_models.refusal(symbol) or "the kernel-model lookup sim was given has none"
        why = why or (
            f"kernel {symbol!r} ({obj or 'no object'}, defines {dict(defines)}) has no model: {refused}; "
            f"give sim one: load(..., kernels={{{symbol!r}: fn}})"
        )
    elif isinstance(model, kernel_models.CascadeModel):
        if eng.taint.of(*args):
            eng.void(eng.taint.of(*args))  # a cascade carries no mark
        return cascade.run_kernel(eng, proc, model, args)
    else:
        try:
            dataflow.call(model, args)
        except kernel_models.KernelModelError as exc:
            if known:
                raise
            why = _unknown_defines(symbol, obj, exc)
    if why is not None and why not in eng.unmodelled_kernels:
        eng.unmodelled_kernels.append(why)
    why = why or eng.taint.of(*args)
    if why is not None and not eng.taint.mark(args, why):
        eng.void(why)
    return None


def _unknown_defines(symbol: str, obj, exc) -> str:
    return f"kernel {symbol!r}: the defines {obj} was compiled with are unknown to iron ({exc})"


def _model(eng, symbol: str, obj, defines, arch: str, known: bool):
    """(model or None, why a foreign object's defines are unknown or None), looked up once
    per kernel and lookup function in each dispatch (:func:`forget_models`; looked up at
    call time: tests may replace :func:`iron.runtime.sim.kernel_models.model_for`)."""
    lookup = eng.models or kernel_models.model_for
    key = (lookup, symbol, obj)
    hit = eng._looked_up.get(key)
    if hit is not None:
        return hit
    try:
        hit = lookup(symbol, defines, arch), None
    except kernel_models.KernelModelError as exc:
        if known:
            raise
        hit = None, exc  # a foreign object: how it was compiled is not known
    eng._looked_up[key] = hit
    return hit


def forget_models(eng) -> None:
    """A new dispatch looks its kernels' models up again (one registered since is used)."""
    eng._looked_up.clear()
