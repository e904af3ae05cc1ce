"""Timeline picture (PNG) of decoded slices: one row per unit, one colored lane
per event slot; slices side by side, separated and labeled with their operator."""

from __future__ import annotations

import io

import numpy as np

from iron.files import atomic_write

from iron.trace.decode import DecodedSlice
from iron.trace.timeline import slice_spans

SLOTS = 8
MAX_PIXELS = 4000  # intervals closer than one pixel are merged before drawing
MIN_BAR = 1 / 600  # of the time axis, so that one-cycle events stay visible


def _merge_close(begin: np.ndarray, end: np.ndarray, gap: float) -> tuple[np.ndarray, np.ndarray]:
    if len(begin) < 2:
        return begin, end
    new = np.ones(len(begin), dtype=bool)
    new[1:] = begin[1:] - end[:-1] > gap
    i = np.flatnonzero(new)
    return begin[i], np.maximum.reduceat(end, i)


def plot_timeline(
    slices: list[DecodedSlice], path, clock_mhz: float | None = None, title: str | None = None
) -> None:
    """Write a PNG timeline to ``path`` (x axis: cycles, or us with ``clock_mhz``)."""
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
        for u in ds.units:
            y = rows.index(u.label)
            for slot, name in enumerate(u.events):
                begin, end = u.runs.intervals(slot)
                if not len(begin):
                    continue
                begin, end = _merge_close(begin, end, gap_px)
                color = colors.setdefault(name, cmap(len(colors) % 20))
                lane = y + slot / SLOTS
                bars = np.stack(
                    [(x0 + begin) * scale, np.maximum(end - begin, total * MIN_BAR) * scale], axis=1
                )
                ax.broken_barh(bars, (lane, 0.9 / SLOTS), facecolors=color, label=name, linewidth=0)
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
