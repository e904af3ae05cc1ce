"""Summary of decoded traces: per unit kernel invocations, stalls, extent; per slice status.

Kernel invocations pair INSTR_EVENT_0 with the next INSTR_EVENT_1 the way
mlir-aie's ``get_cycles_summary`` does: the first event0 after an invocation
ends starts the next one, the first event1 after it ends it, extra ones are
ignored. All times are cycles since the slice's trace start.
"""

from __future__ import annotations

import numpy as np

from iron.trace.decode import OP_EVENT, OP_REPEAT, DecodedSlice, DecodedUnit, Ops, ops_to_runs
from iron.trace.frames import SYNC_CYCLES

KERNEL_START, KERNEL_END = "INSTR_EVENT_0", "INSTR_EVENT_1"


def invocation_cycles(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Durations of start -> end pairs (see module docstring)."""
    t = np.concatenate([starts, ends]).astype(np.int64)
    typ = np.concatenate([np.zeros(len(starts), np.int8), np.ones(len(ends), np.int8)])
    order = np.lexsort((typ, t))
    t, typ = t[order], typ[order]
    if not len(t):
        return t
    first = np.ones(len(t), dtype=bool)
    first[1:] = typ[1:] != typ[:-1]
    rt, rtyp = t[first], typ[first]
    i = np.flatnonzero(rtyp == 0)
    i = i[i + 1 < len(rt)]
    return rt[i + 1] - rt[i]


_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little").astype(np.float64)


CHUNK_OPS = 1 << 18  # ops per step of :func:`unit_figures` (bounds its memory)


def unit_figures(ops: Ops, slots: tuple[int, ...] = ()) -> dict:
    """First/last event time, asserted cycles per slot and, for ``slots``, the
    start times of their intervals, straight from the folded frames in chunks
    (no per-occurrence arrays; memory bounded by :data:`CHUNK_OPS`). Same timing
    model as :func:`iron.trace.decode.ops_to_runs`."""
    out = {"first": None, "last": None, "cycles": np.zeros(8, np.int64), "starts": {s: [] for s in slots}}
    if (ops.kind == OP_REPEAT).any():  # replays after an Event_Sync: rare, take the exact general path
        r = ops_to_runs(ops)
        if len(r):
            out.update(first=int(r.time[0]), last=r.last_time(), cycles=_cycles(r.mask, r.count))
        out["starts"] = {s: r.intervals(s)[0] for s in slots}
        return out
    offset = 0
    hist = np.zeros(256, np.float64)
    prev = None  # (mask, last occurrence) of the previous event
    for a in range(0, len(ops), CHUNK_OPS):
        kind = ops.kind[a : a + CHUNK_OPS]
        value = ops.value[a : a + CHUNK_OPS].astype(np.int64)
        value += 1  # step between replays
        reps = ops.reps[a : a + CHUNK_OPS].astype(np.int64)
        tail = reps * value
        mask = ops.mask[a : a + CHUNK_OPS]
        if (kind == OP_EVENT).all():
            cum = value + tail
            np.cumsum(cum, out=cum)
            cum += offset
            offset = int(cum[-1])
            cum -= tail  # an event occurs 1 + c cycles after the previous op's end
            t, step = cum, value
        else:
            ev = np.flatnonzero(kind == OP_EVENT)
            cum = np.cumsum(np.where(kind == OP_EVENT, value + tail, SYNC_CYCLES))
            cum += offset
            offset = int(cum[-1])
            if not len(ev):
                continue
            t = (cum - tail)[ev]
            reps, step, mask = reps[ev], value[ev], mask[ev]
        hist += np.bincount(mask, minlength=256)
        more = np.flatnonzero(reps)
        if len(more):
            hist += np.bincount(mask[more], weights=reps[more].astype(np.float64), minlength=256)
        last = t + reps * step
        if out["first"] is None:
            out["first"] = int(t[0])
        out["last"] = int(last[-1])
        for slot in slots:
            out["starts"][slot].append(_slot_starts(t, reps, step, mask, last, slot, prev))
        prev = (int(mask[-1]), int(last[-1]))
    out["cycles"] = (hist @ _BITS).round().astype(np.int64)
    out["starts"] = (
        {s: np.concatenate(v) if len(v) else np.zeros(0, np.int64) for s, v in out["starts"].items()}
        if slots
        else {}
    )
    return out


def _slot_starts(t, reps, step, mask, last, slot, prev) -> np.ndarray:
    """Interval start times of ``slot`` among these events (``prev``: the event before)."""
    bit = ((mask >> np.uint8(slot)) & 1).astype(bool)
    pbit = np.empty(len(t), dtype=bool)
    plast = np.empty(len(t), dtype=np.int64)
    pbit[1:], plast[1:] = bit[:-1], last[:-1]
    if prev is None:
        pbit[0], plast[0] = False, -2
    else:
        pbit[0], plast[0] = (prev[0] >> slot) & 1, prev[1]
    # contiguous with the previous event's last replay, which also asserts the slot
    starts = t[bit & ~(pbit & (plast == t - 1))]
    gaps = bit & (reps > 0) & (step > 1)  # replays of a frame with cycles are separate pulses
    if gaps.any():
        n = reps[gaps]
        i = np.arange(int(n.sum()), dtype=np.int64) - np.repeat(np.cumsum(n) - n, n) + 1
        starts = np.concatenate([starts, np.repeat(t[gaps], n) + i * np.repeat(step[gaps], n)])
    return starts


def _cycles(mask: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Asserted cycles per slot: each occurrence asserts its slots for one cycle."""
    hist = np.bincount(mask, weights=np.asarray(count, dtype=np.float64), minlength=256)
    return (hist @ _BITS).round().astype(np.int64)


def unit_summary(du: DecodedUnit) -> dict:
    """Per-unit figures (a plain dict, JSON-ready)."""
    if du.summary is not None:
        return du.summary
    names = du.events
    kslots = tuple(names.index(n) for n in (KERNEL_START, KERNEL_END) if n in names)
    fig = unit_figures(du.ops, kslots if len(kslots) == 2 else ())
    cycles = fig["cycles"]
    events = {
        f"{slot}:{name}": int(cycles[slot])
        for slot, name in enumerate(names)
        if name != "NONE" or cycles[slot]
    }
    kernel = None
    if len(kslots) == 2:
        d = invocation_cycles(fig["starts"][kslots[0]], fig["starts"][kslots[1]])
        kernel = {"count": int(len(d))}
        if len(d):
            kernel.update(min=int(d.min()), median=float(np.median(d)), max=int(d.max()))
    return {
        "unit": du.label,
        "kind": du.kind,
        "column": du.column,
        "row": du.row,
        "configured": du.unit is not None,
        "packets": du.packets,
        "frames": du.frames,
        "first": fig["first"],
        "last": fig["last"],
        "start_timer": du.start_timer,
        "kernel": kernel,
        "stalls": {k.split(":", 1)[1]: v for k, v in events.items() if "STALL" in k},
        "cycles": events,
    }


def slice_summary(ds: DecodedSlice) -> dict:
    d = ds.diagnostics
    return {
        "slice": ds.label,
        "status": ds.status,
        "used_bytes": d.get("used_bytes", 0),
        "size_bytes": d.get("size_bytes", 0),
        "column_shift": ds.column_shift,
        "diagnostics": dict(d),
        "units": [unit_summary(u) for u in ds.units],
    }


def summary_dict(slices: list[DecodedSlice]) -> dict:
    return {"slices": [slice_summary(s) for s in slices]}


def _fmt(v) -> str:
    return "-" if v is None else (f"{v:.1f}" if isinstance(v, float) else str(v))


def summary_text(slices: list[DecodedSlice]) -> str:
    """A plain-text table per slice."""
    lines = []
    for s in summary_dict(slices)["slices"]:
        used, size = s["used_bytes"], s["size_bytes"]
        pct = f" ({100 * used / size:.0f}%)" if size else ""
        lines.append(f"slice {s['slice']}: status {s['status']}, {used} of {size} bytes used{pct}")
        d = s["diagnostics"]
        problems = [
            f"{k}={d[k]}"
            for k in (
                "bad_headers",
                "orphan_packets",
                "truncated_packets",
                "skipped_segments",
                "unknown_frames",
                "truncated_frames",
                "unconfigured_units",
            )
            if d.get(k)
        ]
        if problems:
            lines.append("  diagnostics: " + ", ".join(problems))
        if not s["units"]:
            lines.append("  (no trace packets)")
            continue
        head = f"  {'unit':<18}{'packets':>8}{'frames':>9}{'first':>10}{'last':>12}  kernel n/min/median/max"
        lines.append(head)
        for u in s["units"]:
            k = u["kernel"]
            kern = "-" if not k else "/".join(_fmt(k.get(x)) for x in ("count", "min", "median", "max"))
            label = u["unit"] + ("" if u["configured"] else " (unconfigured)")
            lines.append(
                f"  {label:<18}{u['packets']:>8}{u['frames']:>9}{_fmt(u['first']):>10}{_fmt(u['last']):>12}  {kern}"
            )
            if u["stalls"]:
                lines.append("    stall cycles: " + ", ".join(f"{n} {c}" for n, c in u["stalls"].items()))
    return "\n".join(lines) + "\n"
