"""The trace wiring: slice layout, the trace argument of each dispatch mode, offset checks.

iron's convention (docs/design.md 3.2): the fused wrapper's data arguments keep their
indices; one ``memref<total x i8>`` trace buffer is appended after them. Every
traced call site gets its own slice, in program order, contiguous,
``trace_size`` bytes each, or each its own size (``iron.Step(..., trace_size=N)``,
``IRON_TRACE_SIZES``).

Where a call site's drain BD patch must point (its "trace argument"):

* a design's own runtime sequence: the trace argument ``instrument`` appends after
  the sequence's arguments (:func:`appended_trace_arg`), patched at offset 0;
* fused dispatch (one wrapper kernel): the wrapper's trace buffer, the argument after
  its data buffers (:func:`wrapper_trace_arg`), patched at the slice's offset; the
  callee's patch reaches it through the window the wrapper binds (:func:`through_window`);
* separate dispatch (one kernel per call site): the callee's own trace argument at
  offset 0; the runtime binds the slice there as a sub-buffer.

The build's trace plan (:mod:`iron.fuse.plan`), ``iron trace wire``, lowering and the
wiring check ask this module (:func:`slice_patch`, :func:`manifest_trace_arg`,
:func:`expected_patches`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from iron.options import sizes as option_sizes
from iron.errors import OptionError
from iron.target.shim_dma import PATCH_OFFSET_MAX

#: Dispatch modes (``iron.build(dispatch=...)`` once "auto" is decided).
FUSED, SEPARATE = "fused", "separate"
#: ``Manifest.trace_arg_index`` under separate dispatch: no single kernel holds the whole
#: trace buffer (each slice names its kernel's argument). The manifest schema's encoding,
#: written and read only here.
_PER_SLICE = -1


@dataclass(frozen=True)
class SliceSpan:
    site: int  # call-site index
    offset: int  # bytes into the trace buffer: the drain patch's ``arg_plus`` under fused dispatch
    size: int  # bytes of this slice (the call site's trace size, iron.fuse.plan.site_size)


def appended_trace_arg(n_args: int) -> int:
    """Index of the trace argument ``instrument`` appends to a runtime sequence of ``n_args``."""
    return n_args


def wrapper_trace_arg(n_data_args: int) -> int:
    """Index of the fused wrapper's trace buffer: after its ``n_data_args`` data buffers."""
    return n_data_args


def through_window(arg_plus: int, host_index: int, window_offset: int) -> tuple[int, int]:
    """(host buffer, byte offset) a callee's patch names once its argument is bound to a
    window at ``window_offset`` of host buffer ``host_index``. For a traced run under fused
    dispatch the window is its slice: wrapper trace argument + slice offset."""
    return host_index, arg_plus + window_offset


def slice_patch(mode: str, span: SliceSpan, n_data_args: int, callee_trace_arg: int) -> tuple[int, int]:
    """(argument index, byte offset) the drain patch of the call site laid out at ``span``
    names in its dispatched kernel, under dispatch ``mode``."""
    if mode == FUSED:
        return wrapper_trace_arg(n_data_args), span.offset
    if mode == SEPARATE:
        return callee_trace_arg, 0
    raise ValueError(f"dispatch mode {mode!r}: expected {FUSED!r} or {SEPARATE!r}")


def manifest_trace_arg(mode: str, n_data_args: int) -> int:
    """``Manifest.trace_arg_index`` of a fused sequence dispatched in ``mode``."""
    return wrapper_trace_arg(n_data_args) if mode == FUSED else _PER_SLICE


def dispatch_mode(manifest) -> str:
    """The dispatch mode a manifest was written for (:func:`manifest_trace_arg`)."""
    return SEPARATE if manifest.trace_arg_index == _PER_SLICE else FUSED


def expected_patches(manifest, slices: list) -> list[tuple[int, int]]:
    """(argument index, byte offset) of each trace patch one kernel's control code must
    hold for its ``slices`` (program order): one per slice under fused dispatch; one at
    offset 0 under separate dispatch (the kernel runs once per slice, its slice bound)."""
    if dispatch_mode(manifest) == FUSED:
        return [(s.arg_index, s.offset) for s in slices]
    return [(slices[0].arg_index, 0)]


def slice_layout(traced_sites: list[int], slice_size: int | Mapping[int, int]) -> list[SliceSpan]:
    """One contiguous slice per traced call site, in program order; ``slice_size`` is
    every slice's bytes or a map call site -> bytes."""
    sites = sorted(traced_sites)
    if len(set(sites)) != len(sites):
        raise ValueError(f"call sites listed twice: {traced_sites}")
    sizes = slice_size if isinstance(slice_size, Mapping) else dict.fromkeys(sites, slice_size)
    spans, offset = [], 0
    for site in sites:
        spans.append(SliceSpan(site, offset, sizes[site]))
        offset += sizes[site]
    return spans


def total_size(spans: list[SliceSpan]) -> int:
    """Bytes of the whole trace buffer (``Manifest.total_size``): every slice, end to end."""
    return max((s.offset + s.size for s in spans), default=0)


def check_layout(options, slice_sizes: list[int]) -> None:
    """Refuse slices (bytes each, in program order) that the wrapper cannot address (each
    slice's offset is an i32 ``arg_plus``, :data:`iron.target.shim_dma.PATCH_OFFSET_MAX`)
    or this host cannot hold (:func:`iron.options.sizes.host_trace_limit`); ``options`` names
    the setting in the message."""
    if not options.enabled or not slice_sizes:
        return
    total = sum(slice_sizes)
    name = options.origin("size")
    last = total - slice_sizes[-1]
    n = len(slice_sizes)
    if last > PATCH_OFFSET_MAX:
        raise OptionError(
            f"{name}={options.size} with {n} traced call sites: the last slice starts at byte "
            f"{last}, beyond what a trace patch can offset ({PATCH_OFFSET_MAX}); lower {name} "
            f"or select fewer call sites (IRON_TRACE_OP)"
        )
    host = option_sizes.host_trace_limit()
    if host is not None and total > host:
        raise OptionError(
            f"{name}={options.size} with {n} traced call sites: {total} bytes of trace; this host "
            f"holds at most {host} (physical memory / {option_sizes.HOST_BYTES_PER_TRACE_BYTE}); lower {name}"
        )
