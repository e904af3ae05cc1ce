"""Slice layout and the trace argument index: the one owner of both contracts.

iron's convention (DESIGN.md 3.2): the fused wrapper's data arguments keep their
indices; one ``memref<total x i8>`` trace buffer is appended after them. Every
traced call site gets its own slice, in program order, contiguous,
``trace_size`` bytes each, or each its own size (``iron.Step(..., trace_size=N)``,
``IRON_TRACE_SIZES``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping


@dataclass(frozen=True)
class SliceSpan:
    site: int  # call-site index
    offset: int  # bytes into the trace buffer
    size: int


def trace_arg_index(n_data_args: int) -> int:
    """Index of the trace buffer among the dispatched sequence's host buffers."""
    return n_data_args


def slice_layout(traced_sites: list[int], trace_size: int | Mapping[int, int]) -> list[SliceSpan]:
    """One contiguous slice per traced call site, in program order; ``trace_size`` is
    every slice's size or a map call site -> size."""
    sites = sorted(traced_sites)
    if len(set(sites)) != len(sites):
        raise ValueError(f"call sites listed twice: {traced_sites}")
    sizes = trace_size if isinstance(trace_size, Mapping) else dict.fromkeys(sites, trace_size)
    spans, offset = [], 0
    for site in sites:
        spans.append(SliceSpan(site, offset, sizes[site]))
        offset += sizes[site]
    return spans


def total_size(spans: list[SliceSpan]) -> int:
    return max((s.offset + s.size for s in spans), default=0)
