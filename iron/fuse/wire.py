"""``iron trace wire``: iron's trace wiring applied to an existing fused module.

Input: a module whose wrapper device's runtime sequence runs other devices with
``aiex.configure @dev { aiex.run @seq(...) }`` (mlir-aie's ``Program.compose``,
amd/IRON's fused operators, upstream's ``test/dialect/AIEX/trace`` inputs).

Per call site (every ``aiex.run``, in program order) the trace size is the callee
sequence's own ``aie.trace.host_config {buffer_size = N}`` when it has one, else
``trace_size`` (untraced when neither). A callee's ``aie.trace`` configuration is
replaced by iron's (units from ``options``: the first ``ntiles`` compute tiles and
its events), so the output holds iron's explicit wiring, which aiecc compiles as is:
one ``memref<total x i8>`` trace argument appended after the wrapper's data
arguments (:mod:`iron.instrument.layout`), each traced run given the window of its slice,
the callee sequence its own trace argument and drain program. The wrapper's own
traced units (its ``aie.trace`` + ``host_config``) take the front of the buffer, as
upstream's ``-aie-fuse-trace-buffers`` places them.

Where iron differs from upstream on purpose: consecutive runs of one traced device
get a reconfiguration in between (``aiex.configure @iron_reset {}``; a run block
holding two runs is split), for the reason given in :mod:`iron.fuse.fusion`. Offsets,
sizes and the trace argument index are upstream's.
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass
from pathlib import Path

from iron.design import Design
from iron.errors import IronError
from iron.artifact.schema import kernel_name
from iron.fuse.fusion import (
    RESET_DEVICE,
    CallSite,
    needs_reset,
    previous_dispatch_site,
    match_widths,
    runs_reset,
)
from iron.mlir import ir
from iron.mlir.check import check_module
from iron.mlir.reader import parse
from iron.options import TraceOptions, site_size
from iron.target.geometry import device_columns, target_for_device
from iron.instrument import codegen, layout
from iron.instrument.declarative import host_buffer_size, is_trace_op, strip_trace_ops
from iron.artifact.manifest import Manifest, Slice


class WireError(IronError):
    """A module ``iron trace wire`` cannot wire; the message names what and where."""


@dataclass
class Wired:
    module: ir.Module
    manifest: Manifest | None
    wrapper: str  # "<device>:<sequence>" of the dispatched wrapper


def _wrapper(module: ir.Module, filename: str) -> tuple[ir.Device, ir.RuntimeSequence]:
    found = [
        (d, s)
        for d in module.devices
        for s in d.sequences
        if any(isinstance(op, ir.Configure) for op in s.body)
    ]
    if len(found) != 1:
        what = ", ".join(f"@{d.symbol}::@{s.name}" for d, s in found) or "none"
        raise WireError(
            f"{filename}: expected one wrapper sequence running other devices with aiex.configure; found {what}"
        )
    return found[0]


def _host_size(seq: ir.RuntimeSequence, where: str) -> int | None:
    """The validated ``aie.trace.host_config`` buffer size of ``seq`` (None: it has none),
    checked as :func:`iron.build` checks a design's own (:func:`iron.options.site_size`):
    a size that is negative, not a multiple of 32 or beyond a BD is refused, never dropped."""
    from iron.errors import OptionError

    size = host_buffer_size(seq)
    if size is None:
        configs = [
            op for op in seq.body if is_trace_op(op) and op.text.lstrip().startswith("aie.trace.host_config")
        ]
        if configs:
            raise WireError(f"{where}: cannot read the buffer size of {configs[0].text.strip()!r}")
        return None
    try:
        return site_size(f"{where}: aie.trace.host_config buffer_size", size)
    except OptionError as exc:
        raise WireError(str(exc)) from None


def wire(
    text: str, *, trace_size: int = 0, options: TraceOptions | None = None, filename: str = "<mlir>"
) -> Wired:
    """Apply iron's wiring to fused module ``text`` (see the module docstring).

    ``trace_size`` traces runs whose callee has no ``host_config`` of its own;
    ``options`` (a :class:`TraceOptions`) chooses units and events (its ``size`` is
    ignored). Sizes are validated as :func:`iron.build` validates them
    (:func:`iron.options.site_size`); the wired module is checked against its
    target before anything is returned (:func:`iron.mlir.check.check_module`).
    """
    from iron.errors import OptionError

    try:
        trace_size = site_size("trace_size", trace_size)
    except OptionError as exc:
        raise WireError(str(exc)) from None
    module = parse(text, filename, legacy=True)  # old core syntax would reach aiecc verbatim
    check_module(module, filename)
    options = options or TraceOptions(size=max(trace_size, layout_quantum()))
    wdev, wseq = _wrapper(module, filename)
    match_widths(module, wdev)  # aiex.configure's verifier: one device type (issue 25)
    target = target_for_device(wdev.target)
    sites, body = _split_runs(module, wseq, trace_size, filename)
    own = _host_size(wseq, f"{filename}: @{wdev.symbol}::@{wseq.name}")
    spans = _spans(own, sites)
    if not spans:
        return Wired(module, None, kernel_name(wdev.symbol, wseq.name))
    traced = _instrument_callees(module, sites, options, target)
    trace_arg = layout.wrapper_trace_arg(len(wseq.args))
    trace_name = codegen.fresh_arg_name(wseq)  # the name instrument() gives it, too
    wseq.body = _windowed(body, sites, spans, trace_name)
    total = layout.total_size(list(spans.values()))
    wrapper_units = _trace_wrapper(module, wdev, wseq, own, trace_name, total, options, target)
    if runs_reset(wseq.body):
        module.devices.insert(module.devices.index(wdev), ir.Device(wdev.target, RESET_DEVICE))
    module.foreign = {d.symbol for d in module.devices if d is not wdev}
    kernel = kernel_name(wdev.symbol, wseq.name)
    slices = _slices(wdev, wseq, sites, spans, traced, wrapper_units, kernel, trace_arg)
    manifest = Manifest(
        target=target.name,
        columns=max(device_columns(d.target) for d in module.devices),
        column_offset=target.column_offset,
        clock_mhz=target.clock_mhz,
        kernel=kernel,
        trace_arg_index=trace_arg,
        total_size=total,
        slices=slices,
    )
    return Wired(module, manifest, kernel)


#: A call site of the wrapper: its record, its ``aiex.run`` and its trace size (0: untraced).
Site = tuple[CallSite, ir.Run, int]
#: The span key of the wrapper's own units (call sites are keyed by their index).
WRAPPER = "wrapper"


def _split_runs(module: ir.Module, wseq: ir.RuntimeSequence, trace_size: int, filename: str):
    """Call sites in program order and the wrapper body with one ``aiex.configure`` per run
    (iron's rule needs a reconfiguration between two runs of one configure block)."""
    sites: list[Site] = []
    body: list = []
    for op in wseq.body:
        if not isinstance(op, ir.Configure):
            body.append(op)
            continue
        pending: list = []
        for inner in op.body:
            pending.append(inner)
            if isinstance(inner, ir.Run):
                callee = module.device(op.device).sequence(inner.sequence)
                size = _host_size(callee, f"{filename}: @{op.device}::@{inner.sequence}") or trace_size
                site = CallSite(len(sites), None, f"{op.device}::{inner.sequence}", size > 0, 0)
                sites.append((site, inner, size))
                body.append(ir.Configure(op.device, pending))
                pending = []
        if pending:
            raise WireError(f"{filename}: aiex.configure @{op.device} ends with ops after its last aiex.run")
    return sites, body


def _spans(own: int | None, sites: list[Site]) -> dict:
    """Each traced run's slice (and the wrapper's own, first), laid out by
    :func:`iron.instrument.layout.slice_layout` in manifest order: the wrapper's units take
    slice 0 when it has them, as upstream's ``-aie-fuse-trace-buffers`` places them."""
    keys = ([WRAPPER] if own else []) + [site.index for site, _run, _size in sites if site.traced]
    sizes = {k: (own if k == WRAPPER else sites[k][2]) for k in keys}
    order = dict(enumerate(keys))
    laid = layout.slice_layout(list(order), {i: sizes[k] for i, k in order.items()})
    return {order[span.site]: span for span in laid}


def _instrument_callees(module: ir.Module, sites: list[Site], options, target) -> dict:
    """Instrument each traced callee sequence once (its size is its host_config's or
    ``trace_size``); another sequence of an instrumented device shares its units and flows."""
    traced: dict[str, codegen.TracedDesign] = {}
    routed: dict[str, codegen.TracedDesign] = {}  # device symbol -> its first instrumentation
    for site, run, size in sites:
        if not site.traced or site.device in traced:
            continue
        dev_sym = site.device.split("::")[0]
        dev = module.device(dev_sym)
        if dev_sym in routed:
            first = routed[dev_sym]
            flow = next(f for f in dev.packet_flows if f.id == first.units[0].packet_id)
            codegen.program_sequence(
                dev.sequence(run.sequence), first.units, first.shim_column, flow.dest.channel, size,
                options.start, options.stop,
            )  # fmt: skip
            traced[site.device] = first
            continue
        strip_trace_ops(dev)
        td = codegen.instrument(Design(dev, [], run.sequence), options, target, size)
        _adopt(module, dev, td, run.sequence)
        traced[site.device] = routed[dev_sym] = td
    return traced


def _windowed(body: list, sites: list[Site], spans: dict, trace_name: str) -> list:
    """The wrapper body with each traced run handed the window of its slice, and a
    reconfiguration between consecutive runs of one traced device (:mod:`iron.fuse.fusion`)."""
    out: list = []
    prev = previous_dispatch_site([s for s, _r, _z in sites])
    for op in body:
        if not isinstance(op, ir.Configure):
            out.append(op)
            continue
        site, run, _size = next(x for x in sites if x[1] is op.body[-1])
        if needs_reset(prev, site, True):
            out.append(ir.Configure(RESET_DEVICE, []))
        if site.traced:
            span = spans[site.index]
            view = ir.View(f"trace{site.index}", trace_name, span.offset, ir.MemRefType((span.size,), "i8"))
            op.body.insert(len(op.body) - 1, view)
            run.args.append(view.name)
            run.types.append(view.type)
        out.append(op)
        prev = site
    return out


def _trace_wrapper(module, wdev, wseq, own, trace_name, total, options, target) -> list:
    """Append the trace argument of ``total`` bytes to the wrapper; when the wrapper has
    units of its own, instrument it so they drain into the front of the buffer."""
    typ = ir.MemRefType((total,), "i8")
    if not own:
        wseq.args.append(ir.Argument(trace_name, typ))
        return []
    strip_trace_ops(wdev)
    td = codegen.instrument(Design(wdev, [], wseq.name), options, target, own)
    _adopt(module, wdev, td, wseq.name)
    wdev.sequence(wseq.name).args[-1] = ir.Argument(trace_name, typ)
    return td.units


def _slices(wdev, wseq, sites: list[Site], spans: dict, traced: dict, wrapper_units, kernel, trace_arg):
    """The manifest's slices: the wrapper's own first, then each traced run in program order."""
    out = []
    shift = 1 if WRAPPER in spans else 0  # call-site slices follow the wrapper's own
    if WRAPPER in spans:
        span = spans[WRAPPER]
        out.append(
            Slice(0, wdev.symbol, 0, wdev.symbol, wseq.name, 0, span.size, wrapper_units, kernel, trace_arg)
        )
    calls: dict[str, int] = {}
    for site, run, _size in sites:
        if not site.traced:
            continue
        dev_sym = site.device.split("::")[0]
        span = spans[site.index]
        units = [copy.deepcopy(u) for u in traced[site.device].units]
        out.append(
            Slice(site.index + shift, dev_sym, calls.get(dev_sym, 0), dev_sym, run.sequence, span.offset, span.size,
                  units, kernel, trace_arg)
        )  # fmt: skip
        calls[dev_sym] = calls.get(dev_sym, 0) + 1
    return out


def layout_quantum() -> int:
    from iron.options import TRACE_SIZE_QUANTUM

    return TRACE_SIZE_QUANTUM


def _adopt(module: ir.Module, dev: ir.Device, td: codegen.TracedDesign, sequence: str) -> None:
    """Put the instrumented copy of ``dev`` in its place in ``module``."""
    new = td.design.device
    dev.body = new.body


def manifest_path(output) -> Path:
    """Where :func:`write_wired` puts the manifest: ``traced.mlir`` -> ``traced.manifest.json``."""
    out = Path(output)
    return out.with_name(out.stem + ".manifest.json")


def write_wired(input_path, output_path, *, trace_size: int = 0, era=None) -> Wired:
    """``iron trace wire``: read ``input_path``, write the wired MLIR and its manifest. The MLIR
    is printed in ``era`` (:mod:`iron.target.mlir_eras`; None: today's forms), the installed
    mlir-aie's when the CLI calls it, since the user hands it to that install's aiecc.

    The input goes through the checks of every input (:func:`iron.limits.read_text`: a
    regular file within :data:`iron.limits.MAX_MLIR_BYTES`, UTF-8); both outputs are
    checked before either is written, and written as a pair: when the second cannot be
    written the first is put back as it was (both or neither)."""
    from iron import limits
    from iron.files import OutputError, atomic_write

    text = limits.read_text(input_path, limits.MAX_MLIR_BYTES, "MLIR file", WireError)
    wired = wire(text, trace_size=trace_size, filename=str(input_path))
    if wired.manifest is None:
        raise WireError(
            f"{input_path}: no run is traced (no aie.trace.host_config and no --trace-size); nothing to wire"
        )
    from iron.artifact.manifest import Manifest
    from iron.mlir.printer import print_module

    from iron.target.mlir_eras import TODAY

    mlir = print_module(wired.module, era or TODAY)
    manifest = wired.manifest.to_json(indent=1)
    Manifest.from_json(manifest)  # what we write loads (the schema is the reader's)
    mpath = manifest_path(output_path)
    for path in (output_path, mpath):
        p = Path(path)
        if p.is_dir() or os.fspath(path).endswith(("/", os.sep)):
            raise OutputError(path, "is a directory; give the wired MLIR's file name (-o TRACED.mlir)")
    old = mpath.read_bytes() if mpath.is_file() else None
    atomic_write(mpath, manifest)
    try:
        atomic_write(output_path, mlir)
    except BaseException:
        if old is None:
            mpath.unlink(missing_ok=True)
        else:
            atomic_write(mpath, old)
        raise
    return wired
