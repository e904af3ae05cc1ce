"""Timeline picture (PNG) of decoded slices: one row per unit, one colored lane
per event slot; slices side by side, separated and labeled with their operator.

Event-time units draw bars (their intervals, in cycles). Event-PC (mode 1) units
draw ticks: one per fired slot of each sample, on the slot's lane. Their frames
carry no cycles, so the samples are spread evenly over the slice's span in
capture order (the order upstream's instants keep); the PC is not drawn.
"""

from __future__ import annotations

import io
import os
import sys

import numpy as np

from dataclasses import dataclass

from iron.files import atomic_write
from iron.target.trace_unit import SLOTS

from iron.trace.decode import DecodedSlice
from iron.trace.export.timeline import slice_spans
from iron.trace.jit import CACHE_DIR

MAX_PIXELS = 4000  # intervals closer than one pixel are merged before drawing
MIN_BAR = 1 / 600  # of the time axis, so that one-cycle events stay visible


def _merge_close(begin: np.ndarray, end: np.ndarray, gap: float) -> tuple[np.ndarray, np.ndarray]:
    if len(begin) < 2:
        return begin, end
    new = np.ones(len(begin), dtype=bool)
    new[1:] = begin[1:] - end[:-1] > gap
    i = np.flatnonzero(new)
    return begin[i], np.maximum.reduceat(end, i)


@dataclass
class Marks:
    """What the timeline draws for one slot of one unit: ``kind`` "bar" (``x``
    begins and ``width`` lengths, cycles on the shared axis) or "tick" (``x``
    only: event-PC samples)."""

    row: str  # unit label
    slot: int
    name: str  # event name of the slot
    kind: str
    x: np.ndarray
    width: np.ndarray | None = None


def unit_marks(ds: DecodedSlice, off: int, length: int, gap: float = 0.0) -> list[Marks]:
    """Marks of every unit of slice ``ds`` placed at ``off`` (span ``length``) on the
    shared axis; bars closer than ``gap`` cycles are merged."""
    out = []
    for u in ds.units:
        if u.pc_events is not None:
            from iron.trace.decode.modes import slot_occurrences

            occ, slot, _pc = slot_occurrences(u.pc_events)
            n = int((1 + u.pc_events.reps).sum())
            x = off + (occ + 0.5) * (length / max(n, 1))
            for s in range(SLOTS):
                if (slot == s).any():
                    out.append(Marks(u.label, s, u.events[s], "tick", x[slot == s]))
            continue
        for s, name in enumerate(u.events):
            begin, end = u.runs.intervals(s)
            if len(begin):
                begin, end = _merge_close(begin, end, gap)
                out.append(Marks(u.label, s, name, "bar", off + begin, end - begin))
    return out


#: Where matplotlib keeps its config and font cache when iron is the first to import it
#: (unless ``MPLCONFIGDIR`` is set): beside the decoder's kernels, in iron's own cache
#: folder, not ``~/.config/matplotlib`` and ``~/.cache/matplotlib`` (docs/guide.md "Files iron writes").
MPL_DIR = CACHE_DIR.parent / "matplotlib"


def _import_matplotlib() -> None:
    """Import matplotlib with :data:`MPL_DIR` as its config/cache folder, then restore the
    environment (matplotlib reads ``MPLCONFIGDIR`` once and keeps it), so the process
    environment and a user's own matplotlib settings are left as they were."""
    if "matplotlib" in sys.modules or os.environ.get("MPLCONFIGDIR"):
        return  # the user's matplotlib, the user's folders
    os.environ["MPLCONFIGDIR"] = str(MPL_DIR)
    try:
        import matplotlib

        matplotlib.get_configdir()
        matplotlib.get_cachedir()
        import matplotlib.font_manager  # noqa: F401  (builds or loads its font cache there)
    finally:
        del os.environ["MPLCONFIGDIR"]


def plot_timeline(
    slices: list[DecodedSlice], path, clock_mhz: float | None = None, title: str | None = None
) -> None:
    """Write a PNG timeline to ``path`` (x axis: cycles, or us with ``clock_mhz``)."""
    _import_matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows: list[str] = list(dict.fromkeys(u.label for ds in slices for u in ds.units))
    spans = slice_spans(slices)
    total = max((off + length for off, length in spans), default=1)
    gap_px = total / MAX_PIXELS
    scale = 1.0 / clock_mhz if clock_mhz else 1.0
    colors: dict[str, tuple] = {}
    import matplotlib

    cmap = matplotlib.colormaps["tab20"]
    fig = Figure(figsize=(14, 1.2 + 0.8 * max(len(rows), 1)), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    for si, (ds, (off, length)) in enumerate(zip(slices, spans)):
        x0 = off
        for m in unit_marks(ds, off, length, gap_px):
            color = colors.setdefault(m.name, cmap(len(colors) % 20))
            lane = rows.index(m.row) + m.slot / SLOTS
            if m.kind == "tick":
                ax.vlines(m.x * scale, lane, lane + 0.9 / SLOTS, colors=[color], label=m.name, linewidth=0.8)
                continue
            bars = np.stack([m.x * scale, np.maximum(m.width, total * MIN_BAR) * scale], axis=1)
            ax.broken_barh(bars, (lane, 0.9 / SLOTS), facecolors=color, label=m.name, linewidth=0)
        if si:  # a line in the gap before every slice but the first
            prev_end = sum(spans[si - 1])
            ax.axvline((prev_end + x0) / 2 * scale, color="0.6", linewidth=0.8)
        label = ds.label + ("" if ds.status == "ok" else f" [{ds.status}]")
        ax.text((x0 + length / 2) * scale, len(rows) + 0.05, label, ha="center", va="bottom", fontsize=9)
    ax.set_yticks([i + 0.5 for i in range(len(rows))], rows)
    ax.set_ylim(0, max(len(rows), 1) + 0.4)
    ax.set_xlim(0, total * scale)
    ax.set_xlabel(
        "time (us, each slice from its trace start)"
        if clock_mhz
        else "cycles (each slice from its trace start)"
    )
    handles, labels = ax.get_legend_handles_labels()
    seen = {}
    for h, l in zip(handles, labels):
        seen.setdefault(l, h)
    if seen:
        ax.legend(seen.values(), seen.keys(), loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    if title:
        ax.set_title(title)
    fig.tight_layout()
    png = io.BytesIO()
    fig.savefig(png, format="png")
    atomic_write(path, png.getvalue())
