"""Where each slice sits on a shared time axis (the PNG and the Perfetto JSON agree).

Every slice's timers restart at its own start broadcast, so captures carry no
common clock across slices. Outputs therefore lay slices out one after another
in program order, each from its trace start, separated by a small gap.
"""

from __future__ import annotations

from iron.trace.decode import DecodedSlice

GAP_FRACTION = 0.02  # of the summed slice lengths, between two slices


def slice_spans(slices: list[DecodedSlice]) -> list[tuple[int, int]]:
    """``(offset, length)`` in cycles of each slice on the shared axis."""
    lengths = [max([u.last_time() or 0 for u in ds.units] + [1]) + 1 for ds in slices]
    gap = int(sum(lengths) * GAP_FRACTION)
    spans, offset = [], 0
    for length in lengths:
        spans.append((offset, length))
        offset += length + gap
    return spans
