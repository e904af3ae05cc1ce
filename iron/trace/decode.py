"""Vectorized trace decoder: raw words + configuration -> per-unit events.

Pipeline per slice (each step reproduces mlir-aie's ``parse.py``/``utils.py``
rules so that :mod:`iron.trace.mlir_aie` output matches it record for record):

1. segments: split at runs of >= 8 zero words; trailing zeros dropped, a
   shorter leading zero run stays (and, as in mlir-aie, such a segment is
   skipped because its first word is zero); segments of < 2 words are skipped;
   a segment is cut after the first ``0xFEFEFEFE`` followed by two zero words.
2. packets: every 8th word of a segment is a header; an invalid header keeps
   the previous packet's unit (words before the first valid header are
   dropped); ``0xA5A5A5A5`` payload words are dropped; a unit is
   (packet type, column, row); its payload words are concatenated in order.
3. frames: a unit's bytes (MSB first) are split into frames without a Python
   loop per byte: each byte's frame length comes from a 256-entry table and
   the chain of frame starts is resolved by pointer doubling (numpy) or one
   compiled scan (numba, when available: much faster on big buffers). A frame
   cut by the end of the stream is dropped (counted).
4. timing (iron's model): a unit's timer starts at 0; a Single/Multiple frame
   with ``c`` cycles advances it by ``1 + c`` and asserts its slots at the new
   time; a Repeat of ``r`` replays the last Single/Multiple frame ``r`` times;
   Event_Sync advances by 0x3FFFF cycles; Start frames carry the absolute
   timer at start (kept as ``start_timer``, not used for alignment). The
   result is a list of runs ``(time, mask, count, step)``: ``mask`` asserted at
   ``time + i * step`` for ``i < count``, each for one cycle.

Bad data never raises: it becomes counted diagnostics on the slice. Output is
bounded: per unit at most :data:`INTERVALS_PER_BYTE` intervals per payload byte (and
at least :data:`MIN_INTERVALS_PER_UNIT`) are kept, the rest is counted as
``dropped_intervals``, and mlir-aie records past
:data:`MAX_MLIR_AIE_RECORDS_PER_UNIT` are refused with an error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from iron.target.events import MODULE_KINDS
from iron.target import frames as F
from iron.trace.jit import COMPILED_BYTES, choose_method
from iron.instrument.manifest import Slice, TraceUnit

# Op kinds kept per unit (the frames that matter for timing).
OP_EVENT, OP_REPEAT, OP_SYNC = 0, 1, 2

STATUSES = ("ok", "empty", "full", "bad_headers")
PARALLEL_BYTES = 4 << 20  # decode units on several threads above this much payload
#: Per unit, the per-slot intervals kept for Perfetto and plots: 8 per payload byte (more
#: than frames without Repeat can carry: a 2-byte Multiple0 sets at most 8 slots) and at
#: least 2**18. Only Repeat frames after frames with cycles go past it (a few KB of them
#: stand for hundreds of millions of pulses); later events are then dropped and counted
#: in the slice's ``dropped_intervals`` diagnostic (see :func:`bound_runs`).
INTERVALS_PER_BYTE = 8
MIN_INTERVALS_PER_UNIT = 1 << 18
#: mlir-aie records one unit may expand to; past it decoding to that format is refused
#: (it must match mlir-aie's parser record for record, so it is never truncated).
MAX_MLIR_AIE_RECORDS_PER_UNIT = 1 << 24
SCAN_BLOCK = 1 << 20  # words per block of the buffer-wide scans (bounds their temporaries)


# --------------------------------------------------------------------------- data
@dataclass
class Ops:
    """The timing-relevant frames of one unit, in stream order.

    Repeat frames are folded into the op they replay: an OP_EVENT's ``reps``
    counts the Repeat frames that follow it (with only fillers or Start frames
    between). A Repeat that follows an Event_Sync (or opens the stream) stays
    an OP_REPEAT of ``reps`` replays of the last event before it.
    """

    kind: np.ndarray  # uint8 OP_EVENT / OP_REPEAT / OP_SYNC
    mask: np.ndarray  # uint8 slot mask (OP_EVENT; 0 otherwise)
    value: np.ndarray  # uint32 cycle field (OP_EVENT; 0 otherwise)
    reps: np.ndarray  # uint32 replays (OP_EVENT: of itself; OP_REPEAT: of the last event)
    single: np.ndarray  # bool: OP_EVENT came from a Single frame

    def __len__(self) -> int:
        return len(self.kind)

    def split(self) -> "Ops":
        """One op per frame again: every OP_EVENT with replays is followed by an
        OP_REPEAT; ``value`` of an OP_REPEAT then holds its count."""
        has = (self.kind == OP_EVENT) & (self.reps > 0)
        cnt = 1 + has.astype(np.int64)
        idx = np.repeat(np.arange(len(self.kind)), cnt)
        second = np.zeros(len(idx), dtype=bool)
        second[(np.cumsum(cnt) - 1)[has]] = True
        k = self.kind[idx]
        value = np.where(second | (k == OP_REPEAT), self.reps[idx], self.value[idx]).astype(np.uint32)
        return Ops(
            np.where(second, OP_REPEAT, k).astype(np.uint8),
            np.where(second, 0, self.mask[idx]).astype(np.uint8),
            value,
            np.zeros(len(idx), np.uint32),
            np.where(second, False, self.single[idx]),
        )


def _join(kind: np.ndarray, mask: np.ndarray, value: np.ndarray, single: np.ndarray) -> Ops:
    """One op per frame (OP_REPEAT value = count) -> folded :class:`Ops`."""
    is_rep = kind == OP_REPEAT
    heads = np.flatnonzero(~is_rep)
    g = np.cumsum(~is_rep) - 1  # group = a non-repeat op and the repeats after it; -1: leading repeats
    sel = is_rep & (g >= 0)
    rsum = np.bincount(g[sel], weights=value[sel], minlength=len(heads)).astype(np.int64)
    rcnt = np.bincount(g[sel], minlength=len(heads))
    hk = kind[heads]
    orphan = (hk == OP_SYNC) & (rcnt > 0)  # repeats after a sync: kept as their own op
    lead = is_rep & (g < 0)
    cnt = 1 + orphan.astype(np.int64)
    idx = np.repeat(np.arange(len(heads)), cnt)
    second = np.zeros(len(idx), dtype=bool)
    second[(np.cumsum(cnt) - 1)[orphan]] = True
    h = heads[idx]
    k = np.where(second, OP_REPEAT, kind[h]).astype(np.uint8)
    ops = Ops(
        k,
        np.where(second, 0, mask[h]).astype(np.uint8),
        np.where(k == OP_EVENT, value[h], 0).astype(np.uint32),
        np.where(second | (k == OP_EVENT), rsum[idx], 0).astype(np.uint32),
        np.where(second, False, single[h]),
    )
    if lead.any():
        first = Ops(
            np.array([OP_REPEAT], np.uint8),
            np.zeros(1, np.uint8),
            np.zeros(1, np.uint32),
            np.array([value[lead].sum()], np.uint32),
            np.zeros(1, bool),
        )
        ops = Ops(*(np.concatenate([getattr(first, f), getattr(ops, f)]) for f in OPS_FIELDS))
    return ops


OPS_FIELDS = ("kind", "mask", "value", "reps", "single")


@dataclass
class Runs:
    """Events of one unit: ``mask`` asserted at ``time + i*step`` for ``i < count``."""

    time: np.ndarray  # int64 cycles since trace start
    mask: np.ndarray  # uint8
    count: np.ndarray  # int64
    step: np.ndarray  # int64

    def __len__(self) -> int:
        return len(self.time)

    def expand(self) -> tuple[np.ndarray, np.ndarray]:
        """Every occurrence: ``(times int64, masks uint8)``, in time order."""
        n = self.count.astype(np.int64)
        idx = np.repeat(np.arange(len(n)), n)
        first = np.cumsum(n) - n
        i = np.arange(int(n.sum()), dtype=np.int64) - np.repeat(first, n)
        return self.time[idx] + i * self.step[idx], self.mask[idx]

    def records(self) -> list[tuple[int, int]]:
        t, m = self.expand()
        return list(zip(t.tolist(), m.tolist()))

    def last_time(self) -> int | None:
        if not len(self.time):
            return None
        return int((self.time + (self.count - 1) * self.step).max())

    def intervals(self, slot: int) -> tuple[np.ndarray, np.ndarray]:
        """Maximal runs of consecutive cycles in which ``slot`` is asserted:
        ``(begin, end)`` arrays, end exclusive."""
        sel = ((self.mask >> np.uint8(slot)) & 1).astype(bool)
        t, n, s = self.time[sel], self.count[sel], self.step[sel]
        dense = s == 1
        # A run of step 1 is one stretch; wider steps are separate 1-cycle pulses.
        if dense.all():
            begin, end = t, t + n
        else:
            nn = np.where(dense, 1, n)
            idx = np.repeat(np.arange(len(t)), nn)
            first = np.cumsum(nn) - nn
            i = np.arange(int(nn.sum()), dtype=np.int64) - np.repeat(first, nn)
            begin = t[idx] + i * s[idx]
            end = np.where(dense[idx], begin + n[idx], begin + 1)
        if not len(begin):
            return begin, end
        new = np.ones(len(begin), dtype=bool)
        new[1:] = begin[1:] != end[:-1]
        starts = np.flatnonzero(new)
        return begin[starts], np.maximum.reduceat(end, starts)


class SlotIntervals:
    """``ops_to_runs(ops).intervals(slot)`` of every slot by compiled passes over
    the folded ops (numba): one pass counts every slot's intervals, then one pass
    per asked slot fills its arrays. No per-run arrays: a unit's streamed output
    holds its ops and a slot's intervals."""

    def __init__(self, ops: Ops):
        self.ops = ops
        self.counts = np.zeros(F.SLOTS, np.int64)
        z = np.zeros(0, np.int64)
        jit(_scan_intervals)(*self._args(-1), self.counts, z, z)

    def _args(self, slot: int):
        o = self.ops
        return (o.kind, o.mask, o.value, o.reps, np.int64(slot), np.int64(F.SYNC_CYCLES))

    def __call__(self, slot: int) -> tuple[np.ndarray, np.ndarray]:
        n = int(self.counts[slot])
        begin, end = np.empty(n, np.int64), np.empty(n, np.int64)
        if n:
            jit(_scan_intervals)(*self._args(slot), self.counts, begin, end)
        return begin, end


def slot_intervals(ops: Ops, slot: int) -> tuple[np.ndarray, np.ndarray]:
    """``ops_to_runs(ops).intervals(slot)`` by compiled passes (:class:`SlotIntervals`)."""
    return SlotIntervals(ops)(slot)


def _scan_intervals(kind, mask, value, reps, slot, sync_cycles, counts, out_b, out_e):
    """Compiled :class:`SlotIntervals`: iron's timing model (:func:`ops_to_runs`)
    and the merge of touching stretches (:meth:`Runs.intervals`) in one pass.
    ``slot`` < 0: count every slot's intervals into ``counts``; else fill that
    slot's ``out_b``/``out_e``."""
    timer = np.int64(0)
    b_mask = 0  # the last event (an orphan Repeat replays it)
    b_cyc = np.int64(0)
    nslot = counts.shape[0]
    cur_b = np.full(nslot, -1, np.int64)  # per slot the open interval (-1: none)
    cur_e = np.full(nslot, -1, np.int64)
    k = np.zeros(nslot, np.int64)
    lo, hi = (0, nslot) if slot < 0 else (slot, slot + 1)
    for i in range(kind.shape[0]):
        kd = kind[i]
        if kd == OP_SYNC:
            timer += sync_cycles
            continue
        if kd == OP_EVENT:
            v = np.int64(value[i])
            timer += 1 + v
            b_mask = mask[i]
            b_cyc = v
            t0 = timer  # the event itself, then its replays
            r = np.int64(reps[i]) + 1
            timer += (r - 1) * (1 + v)
        else:  # an orphan Repeat of the last event
            v = b_cyc
            t0 = timer + 1 + v
            r = np.int64(reps[i])
            timer += r * (1 + v)
        if b_mask == 0 or r == 0:
            continue
        pieces = 1 if v == 0 else r  # replays on consecutive cycles: one stretch
        for s in range(lo, hi):
            if not (b_mask >> s) & 1:
                continue
            for j in range(pieces):
                b = t0 + j * (1 + v)
                e = b + (r if v == 0 else 1)
                if cur_b[s] >= 0 and b == cur_e[s]:
                    cur_e[s] = e
                    continue
                if cur_b[s] >= 0:
                    if slot >= 0:
                        out_b[k[s]] = cur_b[s]
                        out_e[k[s]] = cur_e[s]
                    k[s] += 1
                cur_b[s] = b
                cur_e[s] = e
    for s in range(lo, hi):
        if cur_b[s] >= 0:
            if slot >= 0:
                out_b[k[s]] = cur_b[s]
                out_e[k[s]] = cur_e[s]
            k[s] += 1
        if slot < 0:
            counts[s] = k[s]
    return 0


EMPTY_OPS = Ops(
    np.zeros(0, np.uint8),
    np.zeros(0, np.uint8),
    np.zeros(0, np.uint32),
    np.zeros(0, np.uint32),
    np.zeros(0, bool),
)


@dataclass
class DecodedUnit:
    """One unit seen in the data (``unit`` is None if the configuration lacks it)."""

    packet_type: int
    column: int  # absolute, from the packet headers
    row: int
    unit: TraceUnit | None
    packets: int = 0
    nbytes: int = 0
    frames: int = 0
    start_timer: int | None = None
    ops: Ops = field(default_factory=lambda: EMPTY_OPS)
    diagnostics: dict = field(default_factory=dict)
    summary: dict | None = None  # filled by iron.trace.export.summary when decoding without keeping ops
    mode: int = 0  # trace mode the unit was decoded in (iron.target.trace_modes); see unit_mode
    pc_events: object = None  # iron.trace.event_pc.PcEvents of a mode-1 unit
    pcmap: object = None  # iron.trace.pcmap.PcMap of the core's ELF, when given (mode-1 core units)
    reload: object = None  # when no ops were kept (``analyze``): a function parsing them again

    @property
    def kind(self) -> str:
        return MODULE_KINDS[self.packet_type]

    @property
    def label(self) -> str:
        return self.unit.label if self.unit else f"{self.kind}(col {self.column},{self.row})"

    @property
    def events(self) -> list[str]:
        if self.unit is not None:
            return list(self.unit.events)
        return [f"slot{i}" for i in range(F.SLOTS)]

    def load_ops(self) -> Ops:
        """The unit's ops: :attr:`ops`, or, for a unit decoded with ``analyze``
        (which keeps none), parsed again from the slice's words (not kept: the
        streamed outputs hold one unit's ops at a time)."""
        return self.reload() if self.reload is not None else self.ops

    @cached_property
    def runs(self) -> Runs:
        return ops_to_runs(self.load_ops())

    def runs_unkept(self) -> Runs:
        """:attr:`runs` without keeping them on the unit when they were not kept
        already (the streamed outputs hold one unit's runs at a time)."""
        return self.__dict__.get("runs") or ops_to_runs(self.load_ops())

    def last_time(self) -> int | None:
        """Time of the unit's last event (None: no events)."""
        if self.summary is not None:
            return self.summary["last"]
        return self.runs_unkept().last_time()


@dataclass
class DecodedSlice:
    """Everything decoded from one slice of the trace buffer."""

    slice: Slice | None
    status: str
    diagnostics: dict
    units: list[DecodedUnit]  # in order of first appearance in the data
    config: list[TraceUnit]  # configured units
    config_columns: list[int]  # their absolute columns after the column shift
    column_shift: int = 0

    @property
    def label(self) -> str:
        return self.slice.label if self.slice else "trace"

    def unit(self, kind: str, column: int, row: int) -> DecodedUnit | None:
        for u in self.units:
            if (u.kind, u.column, u.row) == (kind, column, row):
                return u
        return None


# --------------------------------------------------------------------------- step 1+2
def segments(words: np.ndarray) -> tuple[list[tuple[int, int]], dict]:
    """Segment bounds ``[(start, end)]`` after mlir-aie's split/check/trim rules;
    ``diag["used_words"]`` is one past the last non-zero word."""
    diag = {"segments": 0, "skipped_segments": 0, "used_words": 0}
    n = len(words)
    if not n:
        return [], diag
    # Zero runs [zs, ze) from the transitions of words == 0, a block at a time
    # (blocks overlap by one word): no temporaries the size of the buffer.
    zs_parts, ze_parts, marks = [], [], []
    for a in range(0, n, SCAN_BLOCK):
        lo = max(a - 1, 0)
        blk = words[lo : a + SCAN_BLOCK]
        d = np.diff((blk == 0).view(np.int8))
        zs_parts.append(np.flatnonzero(d == 1) + (lo + 1))
        ze_parts.append(np.flatnonzero(d == -1) + (lo + 1))
        marks.append(np.flatnonzero(words[a : min(a + SCAN_BLOCK, n - 2)] == F.END_MARKER) + a)
        del d, blk
    zs, ze = np.concatenate(zs_parts), np.concatenate(ze_parts)
    if words[0] == 0:
        zs = np.concatenate([[0], zs])
    if words[-1] == 0:
        ze = np.concatenate([ze, [n]])
    if len(zs) == 1 and zs[0] == 0 and ze[0] == n:  # all zeros
        return [], diag
    used = int(zs[-1]) if len(ze) and ze[-1] == n else n  # trailing zeros are dropped
    diag["used_words"] = used
    long = (ze - zs) >= F.SEGMENT_GAP_WORDS  # a short leading run stays in the first segment
    cut_s, cut_e = zs[long], ze[long]
    cut_e = cut_e[cut_s < used]
    cut_s = cut_s[cut_s < used]
    starts = np.concatenate([[0], cut_e])
    ends = np.concatenate([cut_s, [used]])
    keep = ends > starts
    starts, ends = starts[keep], ends[keep]
    # First end marker followed by two zero words inside each segment.
    cand = np.concatenate(marks)
    if len(cand):
        cand = cand[(words[cand + 1] == 0) & (words[cand + 2] == 0)]
        seg = np.searchsorted(starts, cand, side="right") - 1
        ok = (seg >= 0) & (cand + 2 < ends[np.maximum(seg, 0)])
        cand, seg = cand[ok], seg[ok]
        useg, first = np.unique(seg, return_index=True)
        ends[useg] = cand[first] + 1
    out = []
    for s, e in zip(starts.tolist(), ends.tolist()):
        if e - s < 2 or words[s] == 0:
            diag["skipped_segments"] += 1
            continue
        out.append((s, e))
    diag["segments"] = len(out)
    return out, diag


@dataclass
class Packets:
    """The packets of a slice (step 2): one entry per packet, in buffer order."""

    start: np.ndarray  # int64 word offset of the header
    words: np.ndarray  # uint8 payload words (7; fewer for a segment's cut last packet)
    key: np.ndarray  # int32 unit key (see :func:`unit_key`), -1: no valid header yet in its segment
    diagnostics: dict

    def units(self) -> dict[tuple[int, int, int], np.ndarray]:
        """Packet indices per unit ``(packet_type, column, row)``, units in
        order of first appearance."""
        key = self.key
        present = np.flatnonzero(np.bincount(key + 1)[1:]) if len(key) else []
        if len(present) <= 64:  # usual case: one pass per unit beats a sort
            groups = [np.flatnonzero(key == k) for k in present]
        else:  # odd data: many units
            order = np.argsort(key, kind="stable")
            bounds = np.searchsorted(key[order], present)
            groups = np.split(order, bounds[1:])
        groups.sort(key=lambda g: g[0])
        return {_key_tuple(int(key[g[0]])): g for g in groups}


def unit_key(headers: np.ndarray) -> np.ndarray:
    """One int32 per header: packet type, column and row packed."""
    return (
        F.header_field(headers, "packet_type").astype(np.int32) << 12
        | F.header_field(headers, "column").astype(np.int32) << 5
        | F.header_field(headers, "row").astype(np.int32)
    )


def _key_tuple(k: int) -> tuple[int, int, int]:
    return (k >> 12, (k >> 5) & 0x7F, k & 0x1F)


def packet_table(words: np.ndarray) -> Packets:
    """Segments, packet headers and the unit of every packet (step 2), vectorized
    over the whole slice: no copy of the payload is made here."""
    words = np.ascontiguousarray(words, dtype=np.uint32)
    segs, diag = segments(words)
    diag.update(
        packets=0, bad_headers=0, end_marker_headers=0, orphan_packets=0, truncated_packets=0, idle_words=0
    )
    if not segs:
        z = np.zeros(0, np.int64)
        return Packets(z, z.astype(np.uint8), z.astype(np.int32), diag)
    seg_s = np.array([s for s, _ in segs], np.int64)
    seg_e = np.array([e for _, e in segs], np.int64)
    npk = -((seg_s - seg_e) // F.PACKET_WORDS)  # ceil: a cut last packet counts
    total = int(npk.sum())
    if len(segs) == 1:  # the usual case: no per-packet segment arrays
        start = np.arange(seg_s[0], seg_e[0], F.PACKET_WORDS, dtype=np.int64)
        first, end = 0, seg_e[0]
    else:
        seg = np.repeat(np.arange(len(segs)), npk)
        first = (np.cumsum(npk) - npk)[seg]  # index of the segment's first packet
        start = seg_s[seg] + F.PACKET_WORDS * (np.arange(total) - first)
        end = seg_e[seg]
        del seg
    nw = (np.minimum(end - start, F.PACKET_WORDS) - 1).astype(np.uint8)
    hdr = words[start]
    valid = F.header_valid(hdr)
    nvalid = int(valid.sum())
    markers = int((hdr[~valid] == F.END_MARKER).sum()) if nvalid < total else 0
    key = unit_key(hdr)
    del hdr
    # An invalid header keeps the previous packet's unit (within its segment).
    last_valid = np.where(valid, np.arange(total), -1)
    np.maximum.accumulate(last_valid, out=last_valid)
    key = np.where(last_valid >= first, key[np.maximum(last_valid, 0)], np.int32(-1))
    diag.update(
        packets=total,
        bad_headers=total - nvalid - markers,
        end_marker_headers=markers,
        orphan_packets=int((key < 0).sum()),
        truncated_packets=int((nw < F.PAYLOAD_WORDS).sum()),
    )
    return Packets(start, nw, key, diag)


def unit_payload(words: np.ndarray, start: np.ndarray, nwords: np.ndarray, method: str = "auto"):
    """One unit's payload as bytes in stream order (each word most significant
    byte first) with the idle words dropped: ``(uint8 array, idle words)``.
    ``start``/``nwords``: the unit's packets (see :class:`Packets`)."""
    nbytes = 4 * int(nwords.sum(dtype=np.int64))
    gather = jit(_gather) if method == "numba" or (method == "auto" and nbytes >= 1 << 16) else None
    if gather is None:
        return _payload_numpy(words, start, nwords)
    out = np.empty(nbytes, np.uint8)
    k = gather(_readonly(words), start, nwords, out, np.uint32(F.IDLE_WORD))
    return out[:k], (nbytes - k) // 4


def _readonly(a: np.ndarray) -> np.ndarray:
    """A read-only view: numba compiles (and caches) one variant per writability,
    and memory-mapped inputs are read-only, so the kernels always get read-only words."""
    if a.flags.writeable:
        a = a.view()
        a.flags.writeable = False
    return a


def _payload_numpy(words: np.ndarray, start: np.ndarray, nwords: np.ndarray):
    cols = np.arange(1, F.PACKET_WORDS)
    at = start[:, None] + cols
    pay = words[np.minimum(at, len(words) - 1)][cols <= nwords[:, None]]  # cut packets: real words only
    busy = pay != F.IDLE_WORD
    idle = len(pay) - int(busy.sum())
    if idle:
        pay = pay[busy]
    return pay.astype(">u4").view(np.uint8), idle


def _gather(words, start, nwords, out, idle):
    """Compiled :func:`unit_payload` (numba; no temporaries)."""
    k = 0
    for p in range(start.shape[0]):
        s = start[p]
        for j in range(1, nwords[p] + 1):
            w = words[s + j]
            if w == idle:
                continue
            out[k] = w >> 24
            out[k + 1] = (w >> 16) & 0xFF
            out[k + 2] = (w >> 8) & 0xFF
            out[k + 3] = w & 0xFF
            k += 4
    return k


# --------------------------------------------------------------------------- step 3
def frame_starts(lengths: np.ndarray, method: str = "auto") -> np.ndarray:
    """Offsets of the frames of a byte stream, given each byte's frame length
    (as if a frame started there). The last start may run past the end."""
    n = len(lengths)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    if method == "auto":
        method = "numba" if n >= 1 << 16 and jit(_scan_starts) is not None else "numpy"
    if method == "numba":
        scan = jit(_scan_starts)
        if scan is None:
            raise RuntimeError("numba is not available")
        out = np.empty(n, dtype=np.int32 if n < 2**31 - 8 else np.int64)
        k = scan(lengths, out)
        return out[:k].copy()
    return _frame_starts_doubling(lengths)


def _frame_starts_doubling(lengths: np.ndarray) -> np.ndarray:
    """Pointer doubling: mark = {f^m(0): m < 2^k}, jump = f^(2^k)."""
    n = len(lengths)
    idx_t = np.int32 if n < 2**31 - 16 else np.int64
    jump = np.minimum(np.arange(n, dtype=idx_t) + lengths, n).astype(idx_t)
    jump = np.append(jump, idx_t(n))  # sentinel n maps to itself
    mark = np.zeros(n + 1, dtype=bool)
    mark[0] = True
    while True:
        members = np.flatnonzero(mark)
        mark[jump[members]] = True
        if jump[0] >= n:
            break
        jump = jump[jump]
    mark[n] = False
    return np.flatnonzero(mark)


def _scan_starts(lengths, out):
    """Compiled :func:`frame_starts` (numba): follow the chain of frame lengths."""
    n = lengths.shape[0]
    i = 0
    k = 0
    while i < n:
        out[k] = i
        k += 1
        i += lengths[i]
    return k


def parse_stream(data: np.ndarray, method: str = "auto") -> tuple[Ops, int | None, dict]:
    """Frames of one unit's byte stream -> (ops, first Start timer, diagnostics).

    ``method``: "numpy" (table lookups + pointer doubling, vectorized), "numba"
    (the same rules in one compiled scan over the bytes) or "auto" (numba for
    big streams when installed). Both give identical results.
    """
    _check_method(method)
    data = np.ascontiguousarray(data, dtype=np.uint8)
    n = len(data)
    if method == "auto":
        method = "numba" if n >= 1 << 16 and jit(_scan_ops) is not None else "numpy"
    if n == 0:
        return (
            EMPTY_OPS,
            None,
            {"frames": 0, "unknown_frames": 0, "truncated_frames": 0, "start_frames": 0, "sync_frames": 0},
        )
    if method == "numba":
        return _parse_numba(data)
    return _parse_numpy(data)


METHODS = ("auto", "numpy", "numba")


def _check_method(method) -> None:
    if method not in METHODS:
        from iron.errors import OptionError

        raise OptionError(f"method={method!r}: accepted: {', '.join(METHODS)}")


def _start_timer(data: np.ndarray, pos: int) -> int:
    return int.from_bytes(data[pos + 1 : pos + 8].tobytes(), "big")


def _parse_numpy(data: np.ndarray) -> tuple[Ops, int | None, dict]:
    n = len(data)
    diag = {"frames": 0, "unknown_frames": 0, "truncated_frames": 0, "start_frames": 0, "sync_frames": 0}
    starts = _frame_starts_doubling(F.LENGTH_OF_BYTE[data])
    if len(starts) and starts[-1] + int(F.LENGTH_OF_BYTE[data[starts[-1]]]) > n:
        starts = starts[:-1]
        diag["truncated_frames"] = 1
    diag["frames"] = len(starts)
    padded = np.concatenate([data, np.zeros(8, dtype=np.uint8)])
    kind = F.KIND_OF_BYTE[padded[starts]]
    diag["unknown_frames"] = int((kind == F.UNKNOWN).sum())
    diag["sync_frames"] = int((kind == F.SYNC).sum())
    start_pos = starts[kind == F.START]
    diag["start_frames"] = len(start_pos)
    start_timer = _start_timer(data, int(start_pos[0])) if len(start_pos) else None
    sel = (kind <= F.REPEAT1) | (kind == F.SYNC)
    s = starts[sel].astype(np.int64)
    k = kind[sel]
    # The 4 bytes from each frame start as one big-endian word: fields are bit ranges of it.
    w = (
        padded[s].astype(np.uint32) << 24
        | padded[s + 1].astype(np.uint32) << 16
        | padded[s + 2].astype(np.uint32) << 8
        | padded[s + 3].astype(np.uint32)
    )
    return _ops_from_words(k, w), start_timer, diag


# Per frame kind: value field (shift, mask) and slot field shift (Single: 3-bit
# slot number; Multiple: 8-bit slot mask) in the big-endian word of the frame's
# first 4 bytes (layouts: frames.FRAME_TABLE). Shared by the numpy and numba paths.
FIELDS = np.zeros((16, 3), np.int64)
for _k, _sh, _m, _slot in (
    (F.SINGLE0, 24, 0xF, 28),
    (F.SINGLE1, 16, 0x3FF, 26),
    (F.SINGLE2, 8, 0x3FFFF, 26),
    (F.MULTIPLE0, 16, 0xF, 20),
    (F.MULTIPLE1, 8, 0x3FF, 18),
    (F.MULTIPLE2, 0, 0x3FFFF, 18),
    (F.REPEAT0, 24, 0xF, 0),
    (F.REPEAT1, 16, 0x3FF, 0),
):
    FIELDS[_k] = (_sh, _m, _slot)
FIELDS.flags.writeable = False
_OP_OF_KIND = np.full(16, OP_SYNC, np.uint8)
_OP_OF_KIND[: F.MULTIPLE2 + 1] = OP_EVENT
_OP_OF_KIND[[F.REPEAT0, F.REPEAT1]] = OP_REPEAT


def _ops_from_words(k: np.ndarray, w: np.ndarray) -> Ops:
    value = (w >> FIELDS[k, 0]) & FIELDS[k, 1]
    single = k <= F.SINGLE2
    slots = w >> FIELDS[k, 2]
    mask = np.where(single, np.uint32(1) << (slots & 7), np.where(k <= F.MULTIPLE2, slots & 0xFF, 0))
    return _join(_OP_OF_KIND[k], mask.astype(np.uint8), value.astype(np.uint32), single)


def _parse_numba(data: np.ndarray, compact: bool = True) -> tuple[Ops, int | None, dict]:
    scan = jit(_scan_ops)
    n = len(data)
    out = [
        np.empty(n, np.uint8),
        np.empty(n, np.uint8),
        np.empty(n, np.uint32),
        np.empty(n, np.uint32),
        np.empty(n, bool),
    ]
    k, *counts = scan(data, F.KIND_OF_BYTE, F.LENGTH_OF_BYTE, FIELDS, *out)
    diag, start_timer = frame_diagnostics(data, *counts)
    # The arrays were sized for the worst case (one op per byte): copied when
    # mostly unused and ``compact`` (ops kept long); views cost only the pages written.
    return Ops(*(a[:k] if k > 0.6 * n or not compact else a[:k].copy() for a in out)), start_timer, diag


def frame_diagnostics(data, frames, unknown, trunc, nstart, first_start, nsync) -> tuple[dict, int | None]:
    """The counters of a compiled scan -> (diagnostics dict, first Start timer)."""
    diag = {
        "frames": int(frames),
        "unknown_frames": int(unknown),
        "truncated_frames": int(trunc),
        "start_frames": int(nstart),
        "sync_frames": int(nsync),
    }
    return diag, (_start_timer(data, int(first_start)) if first_start >= 0 else None)


def _warm_ops() -> None:
    _parse_numba(np.zeros(16, np.uint8))


# Frame kinds as plain globals: numba freezes them into the kernels.
_S2, _M2, _R1 = F.SINGLE2, F.MULTIPLE2, F.REPEAT1
_SYN, _STA, _UNK = F.SYNC, F.START, F.UNKNOWN


def _scan_ops(data, kind_of, length_of, fields, o_kind, o_mask, o_value, o_reps, o_single):
    """Compiled frame scan (numba): the same frame rules and fields as the numpy
    path (:func:`_parse_numpy`), in one pass over the bytes. Returns ``(ops,
    frames, unknown, truncated, start frames, first Start offset, syncs)``."""
    n = data.shape[0]
    i = 0
    k = 0
    frames = 0
    unknown = 0
    trunc = 0
    nstart = 0
    nsync = 0
    first_start = -1
    attach = -1  # op that a following Repeat replays (folded into it)
    while i < n:
        b0 = data[i]
        ln = length_of[b0]
        if i + ln > n:
            trunc = 1
            break
        kd = kind_of[b0]
        frames += 1
        if kd <= _R1:
            # the frame's first 4 bytes big-endian (bytes past the frame are masked off)
            w = np.int64(b0) << 24
            for j in range(1, min(4, n - i)):
                w |= np.int64(data[i + j]) << (24 - 8 * j)
            value = (w >> fields[kd, 0]) & fields[kd, 1]
            if kd <= _M2:
                slots = w >> fields[kd, 2]
                o_kind[k] = OP_EVENT
                o_reps[k] = 0
                o_mask[k] = (1 << (slots & 7)) if kd <= _S2 else (slots & 0xFF)
                o_value[k] = value
                o_single[k] = kd <= _S2
                attach = k
                k += 1
            else:  # Repeat
                if attach < 0:
                    o_kind[k] = OP_REPEAT
                    o_mask[k] = 0
                    o_value[k] = 0
                    o_reps[k] = 0
                    o_single[k] = False
                    attach = k
                    k += 1
                o_reps[attach] += value
        elif kd == _SYN:
            o_kind[k] = OP_SYNC
            o_mask[k] = 0
            o_value[k] = 0
            o_reps[k] = 0
            o_single[k] = False
            k += 1
            attach = -1
            nsync += 1
        elif kd == _STA:
            if first_start < 0:
                first_start = i
            nstart += 1
        elif kd == _UNK:
            unknown += 1
        i += ln
    return k, frames, unknown, trunc, nstart, first_start, nsync


# --------------------------------------------------------------------------- compiled kernels
# numba compiles the sequential scans (frame chains cannot be vectorized well);
# each kernel is a plain Python function here, compiled on first use with the
# on-disk cache, so a fresh process only loads it. Frame kind numbers are
# compile-time constants: the cache is keyed on this file, so a change of
# frames.FRAME_TABLE's numbering needs a touch of this file (the byte tables are
# arguments and always current).
_JIT: dict = {}
_JIT_LOCK = threading.Lock()


def jit(pyfunc):
    """``pyfunc`` compiled with numba (nogil, cached on disk), or None without numba."""
    with _JIT_LOCK:
        if pyfunc not in _JIT:
            try:
                import numba
            except ImportError:
                _JIT[pyfunc] = None
            else:
                from iron.trace.jit import install_locator

                install_locator(numba)  # a cache that survives reinstalls
                _JIT[pyfunc] = numba.njit(cache=True, nogil=True)(pyfunc)
        return _JIT[pyfunc]


def _ops_kernels() -> list:
    """The compiled kernels :func:`decode_words` calls without ``analyze``."""
    return [jit(_gather), jit(_scan_ops)]


def _load_kernels(warmers, kernels=None, nbytes: int = 0) -> None:
    if kernels is not None and choose_method(nbytes, kernels) == "numpy":
        return  # not worth importing numba or compiling for this input (see iron.trace.jit)
    gather = jit(_gather)
    if gather is None:
        return
    words, z = _readonly(np.zeros(8, np.uint32)), np.zeros(1, np.int64)
    gather(words, z, np.zeros(1, np.uint8), np.zeros(0, np.uint8), np.uint32(F.IDLE_WORD))
    for warm in warmers:
        warm()


_LOADER: list[threading.Thread] = []
_LOADER_LOCK = threading.Lock()


def load_kernels_async(*warmers, kernels=None, nbytes: int = 0) -> None:
    """Start importing numba and loading the compiled kernels from the on-disk
    cache on a thread (once per process): in a fresh process this takes longer
    than finding the packets, which it overlaps. ``warmers``: functions that
    call a kernel on tiny inputs (the payload gather is always loaded; no
    warmers: the frame scan of :func:`parse_stream`). With ``kernels`` (a
    function returning the dispatchers) nothing is loaded when
    :func:`iron.trace.jit.choose_method` picks numpy for ``nbytes``."""
    with _LOADER_LOCK:
        if not _LOADER:
            args = (warmers or (_warm_ops,), kernels, nbytes)
            loader = threading.Thread(target=_load_kernels, args=args, daemon=True)
            _LOADER.append(loader)
            _LOADER[0].start()


def _kernels_loaded() -> None:
    with _LOADER_LOCK:
        loader = _LOADER[0] if _LOADER else None
    if loader is not None:
        loader.join()


# --------------------------------------------------------------------------- step 4
def _base_event(ops: Ops) -> np.ndarray:
    """Index of the last OP_EVENT at or before each op (-1: none)."""
    n = len(ops)
    return (
        np.maximum.accumulate(np.where(ops.kind == OP_EVENT, np.arange(n), -1))
        if n
        else np.zeros(0, np.int64)
    )


def _timer(ops: Ops, sync_cycles: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(timer before, timer after, base event index, base cycles) per op of
    :meth:`Ops.split` form."""
    base = _base_event(ops)
    has = base >= 0
    cb = np.where(has, ops.value[np.maximum(base, 0)], 0).astype(np.int64)
    is_ev = ops.kind == OP_EVENT
    v = ops.value.astype(np.int64)
    delta = np.where(is_ev, 1 + v, np.where(ops.kind == OP_REPEAT, v * (1 + cb), sync_cycles))
    after = np.cumsum(delta)
    return after - delta, after, base, cb


def ops_to_runs(ops: Ops) -> Runs:
    """iron's timing model (module docstring, step 4)."""
    if not len(ops):
        z = np.zeros(0, np.int64)
        return Runs(z, np.zeros(0, np.uint8), z, z)
    ops = ops.split()
    before, after, base, cb = _timer(ops, F.SYNC_CYCLES)
    is_ev = ops.kind == OP_EVENT
    mb = np.where(base >= 0, ops.mask[np.maximum(base, 0)], 0).astype(np.uint8)
    rep = (ops.kind == OP_REPEAT) & (ops.value > 0) & (mb != 0)
    keep = is_ev | rep
    v = ops.value.astype(np.int64)
    time = np.where(is_ev, after, before + 1 + cb)[keep]
    mask = np.where(is_ev, ops.mask, mb)[keep]
    count = np.where(is_ev, 1, v)[keep]
    step = np.where(is_ev, 1 + v, 1 + cb)[keep]
    return Runs(time.astype(np.int64), mask.astype(np.uint8), count.astype(np.int64), step.astype(np.int64))


def bound_runs(runs: Runs, limit: int) -> tuple[Runs, int]:
    """The earliest runs whose per-slot intervals fit ``limit`` (a dense run of step 1
    is one interval per slot, a run of wider steps ``count`` of them), and how many
    intervals were dropped. Bounds what Perfetto output and plots expand to: a few KB
    of Repeat frames can stand for hundreds of millions of pulses."""
    pulses = np.bitwise_count(runs.mask).astype(np.int64)
    cost = pulses * np.where(runs.step == 1, 1, runs.count)
    total = int(cost.sum())
    if total <= limit:
        return runs, 0
    fits = np.cumsum(cost) <= limit
    k = int(fits.sum())  # runs[:k] fit whole; run k is cut
    used = int(cost[:k].sum())
    keep = [runs.time[:k], runs.mask[:k], runs.count[:k], runs.step[:k]]
    if k < len(runs) and runs.step[k] != 1 and pulses[k]:
        part = (limit - used) // int(pulses[k])
        if part:
            keep = [np.append(a, v) for a, v in zip(keep, (runs.time[k], runs.mask[k], part, runs.step[k]))]
            used += part * int(pulses[k])
    cut = Runs(
        *(np.asarray(a, dtype=d.dtype) for a, d in zip(keep, (runs.time, runs.mask, runs.count, runs.step)))
    )
    return cut, total - used


def _bits(mask: np.ndarray) -> np.ndarray:
    """uint8 masks -> (n, 8) bool, slot 0 first."""
    return np.unpackbits(np.asarray(mask, dtype=np.uint8)[:, None], axis=1, bitorder="little").astype(bool)


CHUNK_OPS = 1 << 16  # folded ops per step of the streamed outputs (bounds their memory)


def mlir_aie_events(ops: Ops) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """B/E events exactly as mlir-aie's ``convert_commands_to_json`` emits them
    for one unit: arrays ``(ts, phase, slot)`` in output order, phase 0 = "E",
    1 = "B". Its quirks are kept: Event_Sync and Start frames do not move the
    timer; a Repeat after a zero-cycle frame only advances the timer; a Repeat
    after a frame with cycles re-begins only the last *Single* frame's slot,
    and nothing when the last frame was a Multiple of several slots.
    All at once; :func:`mlir_aie_event_chunks` gives the same in pieces."""
    parts = list(mlir_aie_event_chunks(ops))
    if not parts:
        z = np.zeros(0, np.int64)
        return z, z.astype(np.uint8), z.astype(np.uint8)
    return tuple(np.concatenate(c) for c in zip(*parts))


@dataclass
class _MlirAieState:
    """What mlir-aie's timing carries from one chunk of ops to the next."""

    timer: int = 0
    base: tuple | None = None  # (mask, cycles, single) of the last event frame
    single_mask: int = 0  # slot mask of the last Single frame
    active: int = 0  # slots the last setter left begun


def mlir_aie_event_chunks(ops: Ops, chunk_ops: int = CHUNK_OPS):
    """:func:`mlir_aie_events` as a sequence of ``(ts, phase, slot)`` chunks,
    ``chunk_ops`` folded ops at a time (memory bounded by a chunk's events)."""
    st = _MlirAieState()
    for a in range(0, len(ops), chunk_ops):
        part = Ops(*(getattr(ops, f)[a : a + chunk_ops] for f in OPS_FIELDS)).split()
        out = _mlir_aie_chunk(part, st)
        if len(out[0]):
            yield out


def _mlir_aie_chunk(ops: Ops, st: _MlirAieState) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One chunk (ops in :meth:`Ops.split` form); updates ``st`` for the next."""
    n = len(ops)
    idx = np.arange(n)
    is_ev = ops.kind == OP_EVENT
    base = np.maximum.accumulate(np.where(is_ev, idx, -1))
    hb, bi = base >= 0, np.maximum(base, 0)
    b_mask, b_cyc, b_single = st.base if st.base is not None else (0, 0, False)
    cb = np.where(hb, ops.value[bi], b_cyc).astype(np.int64)
    bmask = np.where(hb, ops.mask[bi], b_mask).astype(np.uint8)
    bsingle = np.where(hb, ops.single[bi], b_single)
    bhas = hb | (st.base is not None)
    v = ops.value.astype(np.int64)
    delta = np.where(is_ev, 1 + v, np.where(ops.kind == OP_REPEAT, v * (1 + cb), 0))
    after = np.cumsum(delta) + st.timer
    before = after - delta
    # `event`: slot of the last Single frame; `multiple_list`: slots of the last event frame.
    last_single = np.maximum.accumulate(np.where(is_ev & ops.single, idx, -1))
    ev_mask = np.where(last_single >= 0, ops.mask[np.maximum(last_single, 0)], st.single_mask)
    ml_len = np.where(~bhas, 0, np.where(bsingle, 1, np.bitwise_count(bmask)))
    x = np.where(ml_len <= 1, ev_mask, 0).astype(np.uint8)
    r = np.where(ops.kind == OP_REPEAT, ops.value, 0).astype(np.int64)
    rep = (ops.kind == OP_REPEAT) & (cb > 0) & (r >= 1)
    setter = is_ev | rep
    new_a = np.where(is_ev, ops.mask, x).astype(np.uint8)
    ps = np.maximum.accumulate(np.where(setter, idx, -1))
    prev = np.concatenate([[-1], ps[:-1]])
    a = np.where(prev >= 0, new_a[np.maximum(prev, 0)], st.active).astype(np.uint8)
    # carried to the next chunk
    st.timer = int(after[-1])
    if base[-1] >= 0:
        st.base = (int(ops.mask[base[-1]]), int(ops.value[base[-1]]), bool(ops.single[base[-1]]))
    st.single_mask = int(ev_mask[-1])
    if ps[-1] >= 0:
        st.active = int(new_a[ps[-1]])
    m = ops.mask
    c = np.where(is_ev, ops.value, 0)
    # Items: (op, iteration, phase, mask, ts)
    e_mask = np.where(c > 0, a, a & ~m)[is_ev]
    b_mask = np.where(c > 0, m, m & ~a)[is_ev]
    ev_i = idx[is_ev]
    it_op = [ev_i, ev_i]
    it_it = [np.zeros(len(ev_i), np.int64)] * 2
    it_ph = [np.zeros(len(ev_i), np.uint8), np.ones(len(ev_i), np.uint8)]
    it_mask = [e_mask, b_mask]
    it_ts = [before[is_ev] + 1, after[is_ev]]
    rp = idx[rep]
    step = 1 + cb[rep]
    it_op += [rp, rp]
    it_it += [np.zeros(len(rp), np.int64)] * 2
    it_ph += [np.zeros(len(rp), np.uint8), np.ones(len(rp), np.uint8)]
    it_mask += [a[rep], x[rep]]
    it_ts += [before[rep] + 1, before[rep] + step]
    more = rep & (x != 0) & (r > 1)
    if more.any():
        cnt = r[more] - 1
        expanded = 2 * int((cnt * np.bitwise_count(x[more]).astype(np.int64)).sum())
        if expanded > MAX_MLIR_AIE_RECORDS_PER_UNIT:
            from iron.trace.words import TraceInputError

            raise TraceInputError(
                f"one unit's Repeat frames expand to {expanded} mlir-aie records, more than the limit "
                f"({MAX_MLIR_AIE_RECORDS_PER_UNIT}); decode to --format perfetto (truncated with a note) "
                "or summary instead"
            )
        ops_i = np.repeat(idx[more], cnt)
        first = np.cumsum(cnt) - cnt
        iters = np.arange(int(cnt.sum()), dtype=np.int64) - np.repeat(first, cnt) + 1
        st_ = 1 + cb[ops_i]
        t0 = before[ops_i] + iters * st_
        it_op += [ops_i, ops_i]
        it_it += [iters, iters]
        it_ph += [np.zeros(len(ops_i), np.uint8), np.ones(len(ops_i), np.uint8)]
        xm = x[ops_i]
        it_mask += [xm, xm]
        it_ts += [t0 + 1, t0 + st_]
    op_a = np.concatenate(it_op).astype(np.int64)
    it_a = np.concatenate(it_it)
    ph_a = np.concatenate(it_ph)
    mk_a = np.concatenate(it_mask).astype(np.uint8)
    ts_a = np.concatenate(it_ts).astype(np.int64)
    bits = _bits(mk_a)
    item, slot = np.nonzero(bits)
    # order: op, then replay iteration, then E before B, then slot
    iters = int(it_a.max()) + 1 if len(it_a) else 1
    key = ((op_a[item] * iters + it_a[item]) * 2 + ph_a[item]) * F.SLOTS + slot
    order = np.argsort(key, kind="stable")
    item, slot = item[order], slot[order]
    return ts_a[item], ph_a[item], slot.astype(np.uint8)


# --------------------------------------------------------------------------- slices
def column_shift(config_cols: list[tuple[int, int, int]], data_keys: list[tuple[int, int, int]]) -> int:
    """Shift to add to configured columns: 0 when every unit in the data is
    configured, else align the smallest configured column to the smallest
    column in the data (as mlir-aie does)."""
    if not config_cols or not data_keys or set(data_keys) <= set(config_cols):
        return 0
    return min(k[1] for k in data_keys) - min(k[1] for k in config_cols)


def slice_status(words: np.ndarray, diag: dict) -> str:
    if diag.get("used_bytes", 0) == 0:
        return "empty"
    if diag.get("bad_headers", 0):
        return "bad_headers"
    if len(words) and words[-1] != 0:
        return "full"
    return "ok"


def decode_words(
    words: np.ndarray,
    units: list[TraceUnit],
    *,
    column_offset: int = 0,
    colshift: int | None = None,
    slice: Slice | None = None,
    analyze=None,
    method: str = "auto",
) -> DecodedSlice:
    """Decode one slice's words against its configured ``units``.

    ``units`` columns are design-relative; ``column_offset`` makes them absolute.
    ``colshift`` (None: automatic, see :func:`column_shift`) is added on top.
    ``analyze(decoded_unit, data, method)``, when given, replaces the frame parse
    of every unit: it gets the unit's payload bytes (``data``, MSB first) and
    must set the unit's ``diagnostics`` (at least frames, unknown_frames,
    truncated_frames) and ``frames``; no ops are kept (see
    :func:`iron.trace.export.summary.summarize_unit`, which computes summaries this way).
    """
    from iron.trace.words import check_words

    words = check_words(words)
    _check_method(method)
    kernels = getattr(analyze, "kernels", _ops_kernels) if analyze is not None else _ops_kernels
    if len(words) * 4 >= COMPILED_BYTES and method == "auto":
        # Load the compiled kernels while numpy finds the packets (the big
        # numpy passes release the GIL).
        load_kernels_async(getattr(analyze, "warm", _warm_ops), kernels=kernels, nbytes=len(words) * 4)
    pk = packet_table(words)
    groups = pk.units()
    diag = pk.diagnostics
    _kernels_loaded()
    if method == "auto":  # one choice for the whole slice: numba only where it pays off
        method = choose_method(len(words) * 4, kernels)
    diag = {"words": int(len(words)), "used_bytes": diag.pop("used_words") * 4, **diag}
    diag["size_bytes"] = int(len(words)) * 4
    cfg = [(unit_packet_type(u), u.column + column_offset, u.row) for u in units]
    shift = colshift if colshift is not None else column_shift(cfg, list(groups))
    cfg_abs = [(t, c + shift, r) for t, c, r in cfg]
    by_key = {}
    for key, u in zip(cfg_abs, units):
        by_key.setdefault(key, u)

    def one(key: tuple[int, int, int]) -> tuple[DecodedUnit, int]:
        rows = groups[key]
        data, idle = unit_payload(words, pk.start[rows], pk.words[rows], method)
        du = DecodedUnit(*key, by_key.get(key), packets=len(rows), nbytes=len(data))
        du.mode, mode_diag = unit_mode(du.unit, data)
        if du.mode != 0:  # event-PC / execution trace: their own decoders (rare, small streams)
            from iron.trace.modes_decode import decode_other_mode

            decode_other_mode(du, data, mode_diag)
            return du, idle
        if mode_diag:
            du.diagnostics.update(mode_diag)
        if analyze is not None:
            analyze(du, data, method)
            du.reload = _Reparse(words, pk.start[rows], pk.words[rows])
        else:
            du.ops, du.start_timer, du.diagnostics = parse_stream(data, method)
            du.frames = du.diagnostics["frames"]
            budget = max(MIN_INTERVALS_PER_UNIT, INTERVALS_PER_BYTE * len(data))
            runs, dropped = bound_runs(ops_to_runs(du.ops), budget)
            du.__dict__["runs"] = runs  # the cached property, bounded
            if dropped:
                du.diagnostics["dropped_intervals"] = dropped
        return du, idle

    keys = list(groups)
    big = 4 * len(pk.start) * F.PAYLOAD_WORDS >= PARALLEL_BYTES and len(keys) > 1
    if big and (os.cpu_count() or 1) > 1:
        # Units are independent and the compiled kernels release the GIL.
        with ThreadPoolExecutor(min(len(keys), os.cpu_count() or 1)) as pool:
            done = list(pool.map(one, keys))
    else:
        done = [one(k) for k in keys]
    totals = {"frames": 0, "unknown_frames": 0, "truncated_frames": 0, "unconfigured_units": 0}
    for du, idle in done:
        diag["idle_words"] += idle
        totals["unconfigured_units"] += du.unit is None
        if du.diagnostics.get("dropped_intervals"):  # the truncation note (see INTERVALS_PER_BYTE)
            diag["dropped_intervals"] = diag.get("dropped_intervals", 0) + du.diagnostics["dropped_intervals"]
        for k in ("frames", "unknown_frames", "truncated_frames"):
            totals[k] += du.diagnostics[k]
        for k in ("mode_mismatch", "undecoded"):
            if k in du.diagnostics:
                diag.setdefault(k, []).append({"unit": du.label, **du.diagnostics[k]})
    diag.update(totals)
    status = slice_status(words, diag)
    units_out = [du for du, _ in done]
    return DecodedSlice(slice, status, diag, units_out, list(units), [c for _, c, _ in cfg_abs], shift)


class _Reparse:
    """A unit's ops parsed again from its packets in the slice's words (see
    :meth:`DecodedUnit.load_ops`): holds only the packet offsets, not the payload."""

    def __init__(self, words: np.ndarray, start: np.ndarray, nwords: np.ndarray):
        self.words, self.start, self.nwords = words, start, nwords

    def __call__(self) -> Ops:
        method = choose_method(len(self.words) * 4, _ops_kernels)
        data, _idle = unit_payload(self.words, self.start, self.nwords, method)
        if method == "numba" and len(data):  # views, not copies: held briefly, a copy doubles the peak
            return _parse_numba(data, compact=False)[0]
        return parse_stream(data, method)[0]


def unit_mode(unit: TraceUnit | None, data: np.ndarray) -> tuple[int, dict]:
    """(mode to decode in, diagnostics) of one unit's stream.

    The Start frame that opens the stream names the mode the hardware ran in;
    the configuration (``unit.mode``) names the one asked for. When both are
    known and differ, the stream is decoded as its Start frame says and the
    disagreement is reported (``mode_mismatch``), never chosen silently.
    """
    from iron.target.trace_modes import start_frame_mode

    configured = unit.mode if unit is not None else None
    started = start_frame_mode(int(data[0])) if len(data) else None
    if started is None:
        return (configured or 0), {}
    if configured is not None and configured != started:
        return started, {"mode_mismatch": {"configured": configured, "start_frame": started}}
    return started, {}


def unit_packet_type(unit: TraceUnit) -> int:
    """Packet type used to match a unit: the one its kind sends (mlir-aie keys
    units by register kind, not by Trace_Control1)."""
    return MODULE_KINDS.index(unit.kind)
