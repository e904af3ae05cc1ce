"""Units not in event-time mode (trace mode 1 and 2), and the choice of a unit's mode.

* mode 1 (event-PC): EventPC frames say which slots fired at which program
  counter (layout: ``frames.EVENT_PC_TABLE``/``EVENT_PC_FIELDS``); the unit keeps
  ``pc_events`` (:class:`PcEvents`) and no mode-0 ops. There is no cycle field:
  events are ordered, not timed. Vectorized like the mode-0 parser: one byte ->
  frame length table and the block-wise frame walk over the stream.
* mode 2 (execution trace): no public description of its format exists, so the
  unit is reported as not decoded with its byte count (``undecoded``
  diagnostic), never turned into events.
"""

from __future__ import annotations

from iron.artifact.manifest import TraceUnit
from iron.target import frames as F
from iron.target.trace_modes import EVENT_PC, MODES, start_frame_mode
from iron.trace.decode.diagnostics import no_frames
from iron.trace.decode.scan import frame_starts_blocks, start_timer_at
from iron.trace.decode.record import Record
from iron.trace.jit import np


def unit_mode(unit: TraceUnit | None, data: np.ndarray) -> tuple[int, dict]:
    """(mode to decode in, diagnostics) of one unit's stream.

    The Start frame that opens the stream names the mode the hardware ran in;
    the configuration (``unit.mode``) names the one asked for. When both are
    known and differ, the stream is decoded as its Start frame says and the
    disagreement is reported (``mode_mismatch``), never chosen silently.
    """
    configured = unit.mode if unit is not None else None
    started = start_frame_mode(int(data[0])) if len(data) else None
    if started is None:
        return (configured or 0), {}
    if configured is not None and configured != started:
        return started, {"mode_mismatch": {"configured": configured, "start_frame": started}}
    return started, {}


def decode_other_mode(du, data: np.ndarray, mode_diag: dict) -> None:
    """Fill ``du`` (a :class:`~iron.trace.decode.DecodedUnit` with ``du.mode`` set) from ``data``."""
    base = no_frames()
    if du.mode == EVENT_PC:
        du.pc_events, commands, diag = parse_event_pc(data)
        du.start_timer = start_timer_of(commands)
        du.diagnostics = {**base, **diag, **mode_diag}
        du.frames = diag["frames"]
        return
    du.diagnostics = {
        **base,
        **mode_diag,
        "undecoded": {"mode": du.mode, "mode_name": MODES.get(du.mode, "unknown"), "bytes": int(len(data))},
    }


# --------------------------------------------------------------------------- event-PC (mode 1)
class PcEvents(Record):
    """EventPC frames of one unit in capture order; ``reps[i]`` Repeat replays follow frame ``i``."""

    mask: np.ndarray  # uint8 slot mask
    pc: np.ndarray  # uint16 program counter
    reps: np.ndarray  # int64 replays of this frame

    def __init__(self, mask, pc, reps):
        self.mask, self.pc, self.reps = mask, pc, reps

    def expand(self) -> tuple[np.ndarray, np.ndarray]:
        """Every occurrence in capture order: ``(masks, pcs)``."""
        n = 1 + self.reps
        return np.repeat(self.mask, n), np.repeat(self.pc, n)

    def __len__(self) -> int:
        return len(self.mask)


def _field(w: np.ndarray, shift_width: tuple[int, int]) -> np.ndarray:
    shift, width = shift_width
    return (w >> shift) & ((1 << width) - 1)


def parse_event_pc(data: np.ndarray) -> tuple[PcEvents, list[dict], dict]:
    """A mode-1 byte stream -> (events, commands, diagnostics).

    ``commands`` lists the frames as records (``Start`` with ``timer_value``,
    ``EventPC`` with ``event_bits`` and ``pc``, ``Repeat`` with ``count``,
    ``Sync``), the shape other decoders print for inspection.
    """
    data = np.ascontiguousarray(data, dtype=np.uint8)
    n = len(data)
    diag = no_frames()
    empty = PcEvents(np.zeros(0, np.uint8), np.zeros(0, np.uint16), np.zeros(0, np.int64))
    if n == 0:
        return empty, [], diag
    starts = frame_starts_blocks(F.PC_LENGTH_OF_BYTE[data]).astype(np.int64)
    if len(starts) and starts[-1] + int(F.PC_LENGTH_OF_BYTE[data[starts[-1]]]) > n:
        starts = starts[:-1]
        diag["truncated_frames"] = 1
    pad = np.concatenate([data, np.zeros(8, np.uint8)])
    kind = F.PC_KIND_OF_BYTE[pad[starts]]
    diag.update(
        frames=len(starts),
        unknown_frames=int((kind == F.PC_UNKNOWN).sum()),
        start_frames=int((kind == F.PC_START).sum()),
        sync_frames=int((kind == F.PC_SYNC).sum()),
    )
    # The 4 bytes from each frame start as one big-endian word: fields are bit ranges of it.
    w = np.zeros(len(starts), np.int64)
    for j in range(4):
        w = w << 8 | pad[starts + j]
    is_ev = kind == F.PC_EVENT
    mask = _field(w, F.EVENT_PC_FIELDS["mask"])[is_ev].astype(np.uint8)
    pc = _field(w, F.EVENT_PC_FIELDS["pc"])[is_ev].astype(np.uint16)
    repeat0, repeat1 = (F.FRAME_FIELDS[k][:2] for k in (F.REPEAT0, F.REPEAT1))
    count = np.where(kind == F.PC_REPEAT0, _field(w, repeat0), _field(w, repeat1))
    is_rep = (kind == F.PC_REPEAT0) | (kind == F.PC_REPEAT1)
    # A Repeat replays the last EventPC before it (one before any event replays nothing).
    owner = np.cumsum(is_ev) - 1
    sel = is_rep & (owner >= 0)
    reps = np.bincount(owner[sel], weights=count[sel], minlength=int(is_ev.sum())).astype(np.int64)
    diag["orphan_repeats"] = int((is_rep & (owner < 0)).sum())
    commands = []
    ev = iter(zip(mask.tolist(), pc.tolist()))  # the same fields as the events: one reading of the bits
    for k, s, c in zip(kind.tolist(), starts.tolist(), count.tolist()):
        if k == F.PC_EVENT:
            m, p = next(ev)
            commands.append({"type": "EventPC", "event_bits": m, "pc": p})
        elif k in (F.PC_REPEAT0, F.PC_REPEAT1):
            commands.append({"type": "Repeat", "count": c})
        elif k == F.PC_START:
            commands.append({"type": "Start", "timer_value": start_timer_at(data, s)})
        elif k == F.PC_SYNC:
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
