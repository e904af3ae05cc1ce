"""EVENT_PC (trace mode 1) frames: which slots fired at which program counter.

A core unit in mode 1 sends, instead of Single/Multiple frames with cycle
counts, 4-byte EventPC frames (DESIGN.md 9.2; bit layout confirmed on Phoenix
captures by FIM43-Redeye/xdna-emu ``tools/trace_decoder/modes/mode1.py``):

    byte 0 = 110001mm, byte 1 = mmmmmmxx, byte 2 = xxpppppp, byte 3 = pppppppp

(8-bit slot mask, 14-bit PC). Start (0xF1 / 0xF5 re-anchor, 8 bytes),
Repeat0/1, Event_Sync, filler 0xFE and the 4-byte 0xDC-0xDF word are shared
with mode 0 (:mod:`iron.target.frames`). A Repeat replays the previous EventPC
frame. There is no cycle field: events are ordered, not timed.

Vectorized like the mode-0 parser: one byte -> frame length table and pointer
doubling over the stream (:func:`iron.trace.decode._frame_starts_doubling`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

EVENT_PC_MASK, EVENT_PC_VALUE, EVENT_PC_BYTES = 0xFC, 0xC4, 4
PC_BITS = 14

# Frame kinds of a mode-1 stream (numbers local to this module).
K_EVENT, K_REPEAT0, K_REPEAT1, K_START, K_SKIP4, K_FILLER, K_SYNC, K_UNKNOWN = range(8)
_TABLE = (  # (kind, first-byte mask, value, bytes)
    (K_EVENT, EVENT_PC_MASK, EVENT_PC_VALUE, EVENT_PC_BYTES),
    (K_REPEAT0, 0xF0, 0xE0, 1),
    (K_REPEAT1, 0xFC, 0xD8, 2),
    (K_START, 0xF8, 0xF0, 8),  # 0xF0 | mode, +4 re-anchor (any mode: a mismatch is reported elsewhere)
    (K_SKIP4, 0xFC, 0xDC, 4),
    (K_FILLER, 0xFF, 0xFE, 1),
    (K_SYNC, 0xFF, 0xFF, 1),
)


def _tables() -> tuple[np.ndarray, np.ndarray]:
    kind = np.full(256, K_UNKNOWN, np.uint8)
    length = np.ones(256, np.uint8)
    b = np.arange(256)
    for k, mask, value, n in _TABLE:
        hit = ((b & mask) == value) & (kind == K_UNKNOWN)
        kind[hit], length[hit] = k, n
    return kind, length


KIND_OF_BYTE, LENGTH_OF_BYTE = _tables()


@dataclass
class PcEvents:
    """EventPC frames of one unit in capture order; ``reps[i]`` Repeat replays follow frame ``i``."""

    mask: np.ndarray  # uint8 slot mask
    pc: np.ndarray  # uint16 program counter
    reps: np.ndarray  # int64 replays of this frame

    def expand(self) -> tuple[np.ndarray, np.ndarray]:
        """Every occurrence in capture order: ``(masks, pcs)``."""
        n = 1 + self.reps
        return np.repeat(self.mask, n), np.repeat(self.pc, n)

    def __len__(self) -> int:
        return len(self.mask)


def parse_event_pc(data: np.ndarray) -> tuple[PcEvents, list[dict], dict]:
    """A mode-1 byte stream -> (events, commands, diagnostics).

    ``commands`` lists the frames as records (``Start`` with ``timer_value``,
    ``EventPC`` with ``event_bits`` and ``pc``, ``Repeat`` with ``count``,
    ``Sync``), the shape other decoders print for inspection.
    """
    from iron.trace.decode import _frame_starts_doubling

    data = np.ascontiguousarray(data, dtype=np.uint8)
    n = len(data)
    diag = {"frames": 0, "unknown_frames": 0, "truncated_frames": 0, "start_frames": 0, "sync_frames": 0}
    empty = PcEvents(np.zeros(0, np.uint8), np.zeros(0, np.uint16), np.zeros(0, np.int64))
    if n == 0:
        return empty, [], diag
    starts = _frame_starts_doubling(LENGTH_OF_BYTE[data]).astype(np.int64)
    if len(starts) and starts[-1] + int(LENGTH_OF_BYTE[data[starts[-1]]]) > n:
        starts = starts[:-1]
        diag["truncated_frames"] = 1
    pad = np.concatenate([data, np.zeros(8, np.uint8)])
    kind = KIND_OF_BYTE[pad[starts]]
    diag.update(
        frames=len(starts),
        unknown_frames=int((kind == K_UNKNOWN).sum()),
        start_frames=int((kind == K_START).sum()),
        sync_frames=int((kind == K_SYNC).sum()),
    )
    b0, b1, b2, b3 = (pad[starts + j].astype(np.int64) for j in range(4))
    is_ev = kind == K_EVENT
    mask = ((b0 & 3) << 6 | b1 >> 2)[is_ev].astype(np.uint8)
    pc = ((b2 & 0x3F) << 8 | b3)[is_ev].astype(np.uint16)
    count = np.where(kind == K_REPEAT0, b0 & 0xF, (b0 & 3) << 8 | b1)
    is_rep = (kind == K_REPEAT0) | (kind == K_REPEAT1)
    # A Repeat replays the last EventPC before it (one before any event replays nothing).
    owner = np.cumsum(is_ev) - 1
    sel = is_rep & (owner >= 0)
    reps = np.bincount(owner[sel], weights=count[sel], minlength=int(is_ev.sum())).astype(np.int64)
    diag["orphan_repeats"] = int((is_rep & (owner < 0)).sum())
    commands = []
    ev = iter(zip(mask.tolist(), pc.tolist()))  # the same fields as the events: one reading of the bits
    for k, s, c in zip(kind.tolist(), starts.tolist(), count.tolist()):
        if k == K_EVENT:
            m, p = next(ev)
            commands.append({"type": "EventPC", "event_bits": m, "pc": p})
        elif k in (K_REPEAT0, K_REPEAT1):
            commands.append({"type": "Repeat", "count": c})
        elif k == K_START:
            timer = int.from_bytes(data[s + 1 : s + 8].tobytes(), "big")
            commands.append({"type": "Start", "timer_value": timer})
        elif k == K_SYNC:
            commands.append({"type": "Sync"})
    return PcEvents(mask, pc, reps), commands, diag


def start_timer_of(commands: list[dict]) -> int | None:
    for c in commands:
        if c["type"] == "Start":
            return c["timer_value"]
    return None


def slot_occurrences(events: PcEvents) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One row per (occurrence, fired slot), capture order, slots ascending:
    ``(order index, slot, pc)``."""
    masks, pcs = events.expand()
    bits = np.unpackbits(masks[:, None], axis=1, bitorder="little").astype(bool)
    occ, slot = np.nonzero(bits)
    return occ.astype(np.int64), slot.astype(np.uint8), pcs[occ]


def mlir_aie_pc_records(du, pid: int, names: list[str]) -> list[dict]:
    """mlir-aie format records of a mode-1 unit: one instant (``"ph": "i"``) per
    fired slot, in capture order (``ts`` = position in the stream, since the
    frames carry no cycles), the PC in ``args.pc``. Empty for a mode-2 unit."""
    if du.pc_events is None:
        return []
    occ, slot, pc = slot_occurrences(du.pc_events)
    return [
        {"name": names[s], "ts": o, "ph": "i", "pid": pid, "tid": s, "args": {"pc": p}}
        for o, s, p in zip(occ.tolist(), slot.tolist(), pc.tolist())
    ]


def perfetto_pc_events(du, pid: int, base_tid: int, offset: int, us: float) -> list[dict]:
    """iron Perfetto events of a mode-1 unit: per slot a track of instants
    (``args.pc``, and ``args.function`` with the core ELF), and with the ELF a
    track of function slices. Positions are capture order (one cycle apart
    from the slice start), as EVENT_PC frames carry no time."""
    if du.pc_events is None:
        return []
    occ, slot, pc = slot_occurrences(du.pc_events)
    fn = du.pcmap.functions(pc) if du.pcmap is not None else None
    out = []
    for s in sorted(set(slot.tolist())):
        tid = base_tid + 1 + s
        out.append(
            {
                "name": "thread_name",
                "ph": "M",
                "pid": pid,
                "tid": tid,
                "args": {"name": f"{du.label} {du.events[s]} (event-PC)"},
            }
        )
    for i, (o, s, p) in enumerate(zip(occ.tolist(), slot.tolist(), pc.tolist())):
        args = {"pc": p, "order": o}
        if fn is not None:
            args["function"] = fn[i]
        out.append(
            {
                "name": du.events[s],
                "cat": du.kind,
                "ph": "i",
                "s": "t",
                "ts": round((offset + o) * us, 6),
                "pid": pid,
                "tid": base_tid + 1 + s,
                "args": args,
            }
        )
    if du.pcmap is not None:
        from iron.trace.pcmap import function_runs

        out.append(
            {
                "name": "thread_name",
                "ph": "M",
                "pid": pid,
                "tid": base_tid,
                "args": {"name": f"{du.label} functions"},
            }
        )
        for name, a, b in function_runs(du.pcmap, du.pc_events.expand()[1]):
            out.append(
                {
                    "name": name,
                    "cat": du.kind,
                    "ph": "X",
                    "ts": round((offset + a) * us, 6),
                    "dur": round((b - a) * us, 6),
                    "pid": pid,
                    "tid": base_tid,
                    "args": {"samples": b - a},
                }
            )
    return out
