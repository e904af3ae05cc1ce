"""The trace plan of one build: which call sites are traced, with how many bytes, where
their slices sit in the trace buffer and which argument and offset each drain patches.

Built once by :func:`iron.fuse.fusion.fuse` from what the user asked for (the
:class:`~iron.options.TraceOptions`, which keep only that) and the sequence; every later
stage reads it: the wrapper and the separate schedule bind each slice, the manifest records
the patches, the cache key the sizes. The layout rules themselves (contiguous slices in
program order, the trace argument of each dispatch mode) are :mod:`iron.instrument.layout`'s.

A call site is traced when the build is (``size > 0``), the selection (``select`` /
``IRON_TRACE_OP``) names it (:func:`selects`), its operator can be traced, and its size
(:func:`site_size`) is not 0.
"""

from __future__ import annotations

from dataclasses import dataclass

from iron.errors import OptionError
from iron.instrument import layout
from iron.options import TraceOptions


def selects(options: TraceOptions, index: int, op_name: str) -> bool:
    """Whether ``options`` trace call site ``index`` running operator ``op_name``."""
    if not options.enabled:
        return False
    if options.select is None:
        return True
    for item in options.select:
        if isinstance(item, tuple):
            if item[0] == index and item[1].lower() == op_name.lower():
                return True
        elif item == index:
            return True
        elif isinstance(item, str) and item.lower() == op_name.lower():
            return True
    return False


def site_size(options: TraceOptions, index: int, own_size: int | None = None) -> int:
    """Trace bytes of call site ``index`` (0: untraced there): ``trace_sizes`` /
    ``IRON_TRACE_SIZES``, else the site's own size (``iron.Step(trace_size=)`` or a design's
    ``host_config``, given as ``own_size``), else the build's ``trace_size``."""
    if not options.enabled:
        return 0
    per_site = dict(options.sizes)
    if index in per_site:
        return per_site[index]
    return options.size if own_size is None else own_size


def check_selection(options: TraceOptions, sites: list[tuple[int, str]], where: str = "the sequence") -> None:
    """Refuse a selection that names call sites wrongly: ``op<N>_<Name>`` where call site N
    runs another operator, or a selection that matches no call site. ``sites``: ``(index,
    operator name)`` of every call site."""
    if not options.enabled or options.select is None:
        return
    ops = dict(sites)
    listing = ", ".join(f"{i}:{n}" for i, n in sites)
    shown = ",".join(f"op{i[0]}_{i[1]}" if isinstance(i, tuple) else str(i) for i in options.select)
    for item in options.select:
        if isinstance(item, tuple) and item[0] in ops and ops[item[0]].lower() != item[1].lower():
            raise OptionError(
                f"{options.origin('select')}={shown!r}: call site {item[0]} of {where} runs "
                f"{ops[item[0]]}, not {item[1]}; call sites: {listing}"
            )
    if not any(selects(options, i, n) for i, n in sites):
        raise OptionError(
            f"{options.origin('select')}={shown!r} selects no call site of {where}; call sites: {listing}"
        )


@dataclass(frozen=True)
class SitePlan:
    """One traced call site's slice and the patch of its drain BD."""

    index: int  # call site, program order
    device: str  # symbol of the device it runs
    offset: int  # bytes into the trace buffer
    size: int  # bytes of its slice
    arg_index: int  # argument of the dispatched kernel its drain patch names
    arg_plus: int  # byte offset of that patch


@dataclass(frozen=True)
class TracePlan:
    """Every traced call site of one build (:class:`SitePlan`, program order)."""

    mode: str  # dispatch mode: layout.FUSED or layout.SEPARATE
    n_data_args: int  # host buffers before the trace buffer
    sites: tuple[SitePlan, ...] = ()

    @property
    def traced(self) -> bool:
        return bool(self.sites)

    @property
    def total_size(self) -> int:
        """Bytes of the whole trace buffer (``Manifest.total_size``)."""
        return max((s.offset + s.size for s in self.sites), default=0)

    @property
    def trace_arg_index(self) -> int:
        """``Manifest.trace_arg_index`` (:func:`iron.instrument.layout.manifest_trace_arg`)."""
        return layout.manifest_trace_arg(self.mode, self.n_data_args)

    def site(self, index: int) -> SitePlan:
        return next(s for s in self.sites if s.index == index)

    def key(self, options: TraceOptions) -> dict:
        """What the cache key (and the artifact's meta) records of the trace: the options the
        user gave, with every traced site's size when they are not all the build's size."""
        out = options.key()
        if any(s.size != options.size for s in self.sites):
            out["sizes"] = [[s.index, s.size] for s in self.sites]
        return out


def lay_out(mode: str, n_data_args: int, traced: list[tuple[int, str, int, int]], options: TraceOptions):
    """The plan of ``traced`` call sites ``(index, device, size, callee trace argument)``,
    checked against what a patch can offset and the host can hold."""
    spans = layout.slice_layout([i for i, *_ in traced], {i: size for i, _d, size, _a in traced})
    layout.check_layout(options, [s.size for s in spans])
    sites = []
    for span, (index, device, _size, callee_arg) in zip(spans, sorted(traced)):
        arg_index, arg_plus = layout.slice_patch(mode, span, n_data_args, callee_arg)
        sites.append(SitePlan(index, device, span.offset, span.size, arg_index, arg_plus))
    return TracePlan(mode, n_data_args, tuple(sites))
