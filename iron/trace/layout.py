"""Slice layout and the trace argument index: the one owner of both contracts.

iron's convention (DESIGN.md 3.2): the fused wrapper's data arguments keep their
indices; one ``memref<total x i8>`` trace buffer is appended after them. Every
traced call site gets its own slice, in program order, contiguous,
``trace_size`` bytes each.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SliceSpan:
    site: int  # call-site index
    offset: int  # bytes into the trace buffer
    size: int


def trace_arg_index(n_data_args: int) -> int:
    """Index of the trace buffer among the dispatched sequence's host buffers."""
    return n_data_args


def slice_layout(traced_sites: list[int], trace_size: int) -> list[SliceSpan]:
    """One contiguous slice per traced call site, in program order."""
    sites = sorted(traced_sites)
    if len(set(sites)) != len(sites):
        raise ValueError(f"call sites listed twice: {traced_sites}")
    return [SliceSpan(site, i * trace_size, trace_size) for i, site in enumerate(sites)]


def total_size(spans: list[SliceSpan]) -> int:
    return max((s.offset + s.size for s in spans), default=0)
