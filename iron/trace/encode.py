"""Trace encoder: the exact inverse of :mod:`iron.trace.decode` (events -> frames
-> packets). Used by property tests and by the device model to emit packets.
Frame layouts (kinds, first bytes, field positions): :mod:`iron.target.frames`.

Records follow the decoder's timing model: cycles since the trace start
(>= 1), strictly increasing; ``(time, mask)`` or a run
``(time, mask, count[, step])`` meaning ``mask`` asserted at
``time + i*step`` for ``i < count`` (step defaults to 1: an event held for
``count`` cycles). ``decode(encode(x))`` gives the same occurrences back.

:func:`encode_event_pc_unit` writes a core unit's EVENT_PC (trace mode 1)
stream instead: ``(mask, pc[, count])`` samples in capture order, the frame
layout of ``frames.EVENT_PC_FIELDS``.
"""

from __future__ import annotations

import numpy as np

from iron.errors import IronError
from iron.target import frames as F
from iron.trace.decode import Runs


class EncodeError(IronError):
    """Records that the trace format (or its timing model) cannot express."""


def as_runs(records) -> Runs:
    """Normalize records (tuples, an (n, 2..4) array or :class:`Runs`) to runs."""
    if isinstance(records, Runs):
        return records
    if not isinstance(records, np.ndarray):
        records = [tuple(r) + (1,) * (4 - len(r)) if 2 <= len(r) < 4 else r for r in records]
    arr = np.asarray(records, dtype=np.int64)
    if arr.size == 0:
        z = np.zeros(0, np.int64)
        return Runs(z, np.zeros(0, np.uint8), z, z)
    if arr.ndim != 2 or not 2 <= arr.shape[1] <= 4:
        raise EncodeError("records must be (time, mask[, count[, step]]) tuples")
    n = len(arr)
    count = arr[:, 2] if arr.shape[1] > 2 else np.ones(n, np.int64)
    step = arr[:, 3] if arr.shape[1] > 3 else np.ones(n, np.int64)
    if ((arr[:, 1] < 1) | (arr[:, 1] > 255)).any():
        raise EncodeError("slot masks must be in 1..255")
    return Runs(arr[:, 0].copy(), arr[:, 1].astype(np.uint8), count.copy(), step.copy())


def _merge_held(r: Runs) -> Runs:
    """Join single occurrences of one mask on consecutive cycles into runs of step 1."""
    single = r.count == 1
    if len(r) < 2 or not single.any():
        return r
    cont = np.zeros(len(r), dtype=bool)
    cont[1:] = single[1:] & single[:-1] & (r.mask[1:] == r.mask[:-1]) & (r.time[1:] == r.time[:-1] + 1)
    heads = np.flatnonzero(~cont)
    counts = np.diff(np.append(heads, len(r)))
    count = np.where(counts > 1, counts, r.count[heads])
    step = np.where(counts > 1, 1, r.step[heads])
    return Runs(r.time[heads], r.mask[heads], count, step)


def _check(r: Runs, t0: int) -> None:
    if (r.count < 1).any() or (r.step < 1).any():
        raise EncodeError("run counts and steps must be >= 1")
    if not len(r):
        return
    last = r.time + (r.count - 1) * r.step
    prev = np.concatenate([[t0], last[:-1]])
    bad = np.flatnonzero(r.time <= prev)
    if len(bad):
        i = int(bad[0])
        raise EncodeError(
            f"record {i}: time {int(r.time[i])} is not after the previous event at {int(prev[i])} "
            "(times are cycles since trace start, >= 1, strictly increasing)"
        )


def _frame_bytes(mask: np.ndarray, cycles: np.ndarray):
    """Shortest Single/Multiple frame per (mask, cycles): (b0..b3, length), the
    fields placed where ``frames.FRAME_FIELDS`` says."""
    m = mask.astype(np.uint32)
    c = cycles.astype(np.uint32)
    single = np.bitwise_count(mask) == 1
    slot = np.log2(np.maximum(m, 1)).astype(np.uint32)
    size = np.where(c < 1 << F.CYCLE_BITS[0], 0, np.where(c < 1 << F.CYCLE_BITS[1], 1, 2))
    kind = np.where(single, F.SINGLE0, F.MULTIPLE0) + size
    w = F.frame_word(kind, c, np.where(single, slot, m))
    length = F.LENGTH_OF_BYTE[w >> 24].astype(np.int64)
    return _word_bytes(w, length)


def _word_bytes(w: np.ndarray, length: np.ndarray):
    """The first 4 bytes of frame words (bytes past a frame's ``length`` as 0) and the length."""
    b = [(w >> np.uint32(24 - 8 * j)) & np.uint32(0xFF) for j in range(4)]
    return (*(np.where(length > j, bj, 0) for j, bj in enumerate(b)), length)


def encode_unit(records, *, start_timer: int | None = None, t0: int = 0, use_repeat: bool = True) -> bytes:
    """Frame bytes of one unit for ``records`` (see module docstring).

    ``t0`` is the time of the event before the first record (to encode a long
    stream in chunks); ``start_timer`` adds a Start frame first. Gaps beyond the
    18-bit cycle field are bridged with Event_Sync frames (0x3FFFF cycles each).
    """
    r = as_runs(records)
    if (r.mask == 0).any():
        raise EncodeError("slot masks must be in 1..255")
    _check(r, t0)
    wide = (r.count > 1) & (r.step > F.MAX_CYCLES + 1)
    if not use_repeat or wide.any():  # a Repeat can only replay a gap of the 18-bit field
        r = Runs(*_expand(r))
    if use_repeat:
        r = _merge_held(r)
    n = len(r)
    prev_last = np.concatenate([[t0], (r.time + (r.count - 1) * r.step)[:-1]]).astype(np.int64)
    gap = r.time - prev_last
    c = gap - 1
    nsync = np.where(c > F.MAX_CYCLES, -(-(c - F.MAX_CYCLES) // F.SYNC_CYCLES), 0)
    c = c - nsync * F.SYNC_CYCLES
    count = r.count.astype(np.int64)
    second = (count > 1) & (r.step != c + 1)  # needs an explicit frame with the run's step
    nrep = count - 1 - second
    nq, rem = nrep // F.MAX_REPEAT, nrep % F.MAX_REPEAT
    ntok = nsync + 1 + second + nq + (rem > 0)
    run = np.repeat(np.arange(n), ntok)
    first = np.cumsum(ntok) - ntok
    j = np.arange(int(ntok.sum()), dtype=np.int64) - np.repeat(first, ntok)
    ns = nsync[run]
    is_sync = j < ns
    is_f1 = j == ns
    is_f2 = second[run] & (j == ns + 1)
    is_rem = (rem[run] > 0) & (j == ntok[run] - 1)
    is_frame = is_f1 | is_f2
    cyc = np.where(is_f1, c[run], r.step[run] - 1)
    fb0, fb1, fb2, fb3, flen = _frame_bytes(r.mask[run], np.where(is_frame, cyc, 0))
    rc = np.where(is_rem, rem[run], F.MAX_REPEAT).astype(np.uint32)
    r0 = rc < 1 << F.REPEAT_BITS[0]
    rw = F.frame_word(np.where(r0, F.REPEAT0, F.REPEAT1), rc, 0)
    rb0, rb1, _, _, _ = _word_bytes(rw, np.where(r0, 1, 2))
    b0 = np.where(is_sync, F.SYNC_BYTE, np.where(is_frame, fb0, rb0))
    b1 = np.where(is_frame, fb1, rb1)
    b2 = np.where(is_frame, fb2, 0)
    b3 = np.where(is_frame, fb3, 0)
    length = np.where(is_sync, 1, np.where(is_frame, flen, np.where(r0, 1, 2))).astype(np.int64)
    off = np.cumsum(length) - length
    out = np.zeros(int(length.sum()), dtype=np.uint8)
    for k, b in enumerate((b0, b1, b2, b3)):
        sel = length > k
        out[off[sel] + k] = b[sel]
    head = b""
    if start_timer is not None:
        if not 0 <= start_timer < 1 << 56:
            raise EncodeError(f"start timer {start_timer} does not fit 56 bits")
        head = bytes([F.START_BYTE]) + int(start_timer).to_bytes(7, "big")
    return head + out.tobytes()


def event_pc_frame(mask: int, pc: int) -> bytes:
    """One EventPC frame: ``110001mm mmmmmm00 00pppppp pppppppp`` (8-bit slot
    mask, 14-bit PC: ``frames.EVENT_PC_FIELDS``; the bits the layout leaves free
    are written 0, as in the Phoenix captures)."""
    if not 1 <= mask <= 255:
        raise EncodeError(f"slot mask {mask} not in 1..255")
    if not 0 <= pc < 1 << F.PC_BITS:
        raise EncodeError(f"pc {pc} does not fit the {F.PC_BITS}-bit PC field")
    (m_shift, _), (pc_shift, _) = F.EVENT_PC_FIELDS["mask"], F.EVENT_PC_FIELDS["pc"]
    return (F.EVENT_PC_BYTE << 24 | mask << m_shift | pc << pc_shift).to_bytes(4, "big")


def _repeat_frames(n: int) -> bytes:
    """``n`` replays of the previous frame as Repeat1 (10-bit count) / Repeat0 (4-bit) frames."""
    out = bytearray()
    while n > 0:
        k = min(n, F.MAX_REPEAT)
        kind = F.REPEAT0 if k < 1 << F.REPEAT_BITS[0] else F.REPEAT1
        out += int(F.frame_word(kind, k, 0)).to_bytes(4, "big")[: F.FRAME_TABLE[kind][4]]
        n -= k
    return bytes(out)


#: Word a unit sends when it stops (first byte 0xDC; the Phoenix captures end each
#: unit's stream with one, e.g. ``dc001c4d``). Decoders skip it; its low 24 bits are
#: not documented, so iron writes them 0.
STOP_WORD = bytes([F.FRAME_TABLE[F.SKIP4][3], 0, 0, 0])


def encode_event_pc_unit(samples, *, start_timer: int | None = None, stop: bool = True) -> bytes:
    """Frame bytes of one EVENT_PC (mode 1) unit.

    ``samples`` are ``(mask, pc)`` or ``(mask, pc, count)`` in capture order:
    ``count`` consecutive cycles in which the slots of ``mask`` fired at ``pc``.
    Equal consecutive samples become one EventPC frame and Repeat frames, as
    the hardware compresses them. ``start_timer`` puts a Start frame
    (``0xF1``) first; ``stop`` ends the stream with :data:`STOP_WORD`.
    """
    from iron.target.trace_modes import EVENT_PC

    merged: list[list[int]] = []
    for s in samples:
        mask, pc, count = (tuple(s) + (1,))[:3]
        if count < 1:
            raise EncodeError(f"sample {tuple(s)}: count must be >= 1")
        if merged and merged[-1][:2] == [mask, pc]:
            merged[-1][2] += count
        else:
            merged.append([mask, pc, count])
    out = bytearray()
    if start_timer is not None:
        if not 0 <= start_timer < 1 << 56:
            raise EncodeError(f"start timer {start_timer} does not fit 56 bits")
        out += bytes([F.START_BYTE | EVENT_PC]) + int(start_timer).to_bytes(7, "big")
    for mask, pc, count in merged:
        out += event_pc_frame(mask, pc) + _repeat_frames(count - 1)
    if stop:
        out += STOP_WORD
    return bytes(out)


def _expand(r: Runs):
    t, m = r.expand()
    one = np.ones(len(t), np.int64)
    return t, m, one, one


def packetize(column: int, row: int, packet_type: int, packet_id: int, payload: bytes) -> np.ndarray:
    """Frame bytes -> packets (uint32 words): a valid header, then 7 payload
    words per packet; the last packet is padded with filler bytes 0xFE."""
    header = F.make_header(column, row, packet_type, packet_id)
    data = np.frombuffer(bytes(payload), dtype=np.uint8)
    npk = -(-len(data) // F.PAYLOAD_BYTES)
    buf = np.full(npk * F.PAYLOAD_BYTES, F.FILLER_BYTE, dtype=np.uint8)
    buf[: len(data)] = data
    words = buf.view(">u4").astype(np.uint32).reshape(npk, F.PAYLOAD_WORDS)
    out = np.empty((npk, F.PACKET_WORDS), dtype=np.uint32)
    out[:, 0] = header
    out[:, 1:] = words
    return out.ravel()


def interleave(
    packet_arrays: list[np.ndarray], *, end_marker: bool = False, pad_to: int | None = None
) -> np.ndarray:
    """Merge several units' packets round-robin (packet i of each unit in list
    order, then packet i+1 ...), as a shared drain channel would. Optionally
    append the end marker and zero-pad to ``pad_to`` words."""
    mats = [np.asarray(a, dtype=np.uint32).reshape(-1, F.PACKET_WORDS) for a in packet_arrays]
    if mats:
        rank = np.concatenate([np.arange(len(m)) for m in mats])
        unit = np.concatenate([np.full(len(m), i) for i, m in enumerate(mats)])
        allp = np.concatenate(mats) if mats else np.zeros((0, F.PACKET_WORDS), np.uint32)
        out = allp[np.lexsort((unit, rank))].ravel()
    else:
        out = np.zeros(0, np.uint32)
    if end_marker:
        out = np.concatenate([out, np.array([F.END_MARKER, 0, 0], dtype=np.uint32)])
    if pad_to is not None:
        if pad_to < len(out):
            raise EncodeError(f"{len(out)} words do not fit in {pad_to}")
        out = np.concatenate([out, np.zeros(pad_to - len(out), np.uint32)])
    return out


def encode_trace(units: list[tuple[int, int, int, int, object]], **kw) -> np.ndarray:
    """Convenience: ``[(column, row, packet_type, packet_id, records)]`` -> interleaved words."""
    pk = [packetize(c, r, t, i, encode_unit(recs)) for c, r, t, i, recs in units]
    return interleave(pk, **kw)
