"""Steps 1 and 2 of :mod:`iron.trace.decode`: segments, packets and each unit's payload bytes.

1. segments: split at runs of >= 8 zero words; trailing zeros dropped, a
   shorter leading zero run stays (and, as in mlir-aie, such a segment is
   skipped because its first word is zero); segments of < 2 words are skipped;
   a segment is cut after the first ``0xFEFEFEFE`` followed by two zero words.
2. packets: every 8th word of a segment is a header; an invalid header keeps
   the previous packet's unit (words before the first valid header are
   dropped); ``0xA5A5A5A5`` payload words are dropped; a unit is
   (packet type, column, row); its payload words are concatenated in order.

Formats (header fields, marker words): :mod:`iron.target.frames`.

Both steps are vectorized over the slice (numpy); small inputs (the plain
engine, :mod:`iron.trace.engine`) take the same rules in one pass over the words
(:func:`_segments_plain`, :func:`_packets_plain`), the gather as plain Python.
"""

from __future__ import annotations

from iron.target import frames as F
from iron.trace.engine import NUMBA, NUMPY, for_stream
from iron.trace.decode.record import Record
from iron.trace.jit import jit, kernel, np

SCAN_BLOCK = 1 << 20  # words per block of the buffer-wide scans (bounds their temporaries)


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


class Packets(Record):
    """The packets of a slice (step 2): one entry per packet, in buffer order."""

    start: np.ndarray  # word offset of the header (int32; int64 past 2**31 words)
    words: np.ndarray  # uint8 payload words (7; fewer for a segment's cut last packet)
    key: np.ndarray  # int32 unit key (see :func:`unit_key`), -1: no valid header yet in its segment
    diagnostics: dict

    def __init__(self, start, words, key, diagnostics):
        self.start, self.words, self.key, self.diagnostics = start, words, key, diagnostics

    def units(self) -> dict[tuple[int, int, int], np.ndarray]:
        """Packet indices per unit ``(packet_type, column, row)``, units in
        order of first appearance."""
        key = self.key
        present = np.flatnonzero(np.bincount(key + 1)[1:]) if len(key) else []
        if len(present) <= 64:  # usual case: one pass per unit beats a sort
            groups = [np.flatnonzero(key == k).astype(self.start.dtype) for k in present]
        else:  # odd data: many units
            order = np.argsort(key, kind="stable")
            bounds = np.searchsorted(key[order], present)
            groups = np.split(order, bounds[1:])
        groups.sort(key=lambda g: g[0])
        return {_key_tuple(int(key[g[0]])): g for g in groups}

    def unit_packets(self, rows) -> tuple:
        """``(start, words)`` of the packets ``rows`` (one unit's, from :meth:`units`)."""
        return self.start[rows], self.words[rows]


class PlainPackets(Packets):
    """:class:`Packets` as lists (the plain engine, :data:`iron.trace.engine.PLAIN`: no numpy)."""

    def units(self) -> dict[tuple[int, int, int], list[int]]:
        groups: dict[int, list[int]] = {}
        for i, k in enumerate(self.key):
            if k >= 0:
                groups.setdefault(k, []).append(i)
        return {_key_tuple(k): rows for k, rows in groups.items()}  # first appearance order

    def unit_packets(self, rows) -> tuple:
        return [self.start[i] for i in rows], [self.words[i] for i in rows]


#: The header fields a unit key packs, most significant first, and their widths.
_KEY_FIELDS = ("packet_type", "column", "row")
_KEY_WIDTHS = [F.HEADER_FIELDS[name][1] for name in _KEY_FIELDS]


def unit_key(headers: np.ndarray) -> np.ndarray:
    """One int32 per header: packet type, column and row packed."""
    key = np.zeros(len(headers), np.int32)
    for name, width in zip(_KEY_FIELDS, _KEY_WIDTHS):
        key = key << width | F.header_field(headers, name).astype(np.int32)
    return key


def _key_tuple(k: int) -> tuple[int, int, int]:
    out = []
    for width in reversed(_KEY_WIDTHS):
        out.append(k & ((1 << width) - 1))
        k >>= width
    return tuple(reversed(out))


def packet_table(words, engine=NUMPY) -> Packets:
    """Segments, packet headers and the unit of every packet (step 2), vectorized
    over the whole slice: no copy of the payload is made here. ``engine``
    :data:`~iron.trace.engine.PLAIN`: ``words`` a list, the table :class:`PlainPackets`
    made in one Python pass."""
    if engine.plain:
        return _packets_plain(words)
    words = np.ascontiguousarray(words, dtype=np.uint32)
    segs, diag = segments(words)
    diag.update(
        packets=0, bad_headers=0, end_marker_headers=0, orphan_packets=0, truncated_packets=0, idle_words=0
    )
    if not segs:
        z = np.zeros(0, _offset_dtype(len(words)))
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
    last_valid = np.where(valid, np.arange(total, dtype=_offset_dtype(total)), -1)
    np.maximum.accumulate(last_valid, out=last_valid)
    key = np.where(last_valid >= first, key[np.maximum(last_valid, 0)], np.int32(-1))
    diag.update(
        packets=total,
        bad_headers=total - nvalid - markers,
        end_marker_headers=markers,
        orphan_packets=int((key < 0).sum()),
        truncated_packets=int((nw < F.PAYLOAD_WORDS).sum()),
    )
    return Packets(start.astype(_offset_dtype(len(words))), nw, key, diag)


def _segments_plain(words: list) -> tuple[list[tuple[int, int]], dict]:
    """:func:`segments` in one pass over a list of words (small inputs)."""
    diag = {"segments": 0, "skipped_segments": 0, "used_words": 0}
    n = len(words)
    runs, i = [], 0  # the runs of zero words [zs, ze)
    while i < n:
        if words[i]:
            i += 1
            continue
        j = i
        while j < n and not words[j]:
            j += 1
        runs.append((i, j))
        i = j
    if runs == [(0, n)]:  # all zeros (or nothing)
        return [], diag
    used = runs[-1][0] if runs and runs[-1][1] == n else n  # trailing zeros are dropped
    diag["used_words"] = used
    cuts = [(zs, ze) for zs, ze in runs if ze - zs >= F.SEGMENT_GAP_WORDS and zs < used]
    bounds = zip([0] + [ze for _, ze in cuts], [zs for zs, _ in cuts] + [used])
    out = []
    for s, e in ((s, e) for s, e in bounds if e > s):
        for c in range(s, e - 2):  # cut after the first end marker followed by two zero words
            if words[c] == F.END_MARKER and not words[c + 1] and not words[c + 2]:
                e = c + 1
                break
        if e - s < 2 or words[s] == 0:
            diag["skipped_segments"] += 1
            continue
        out.append((s, e))
    diag["segments"] = len(out)
    return out, diag


def _packets_plain(words: list) -> PlainPackets:
    """:func:`packet_table` in one pass over a list of words (small inputs)."""
    segs, diag = _segments_plain(words)
    start, nwords, keys = [], [], []
    valid = markers = 0
    for s, e in segs:
        key = -1  # no valid header yet in this segment
        for p in range(s, e, F.PACKET_WORDS):
            hdr = words[p]
            if F.header_ok(hdr):
                valid += 1
                key = 0
                for name, width in zip(_KEY_FIELDS, _KEY_WIDTHS):
                    key = key << width | F.header_field(hdr, name)
            elif hdr == F.END_MARKER:
                markers += 1
            start.append(p)
            nwords.append(min(e - p, F.PACKET_WORDS) - 1)
            keys.append(key)
    diag.update(
        packets=len(start),
        bad_headers=len(start) - valid - markers,
        end_marker_headers=markers,
        orphan_packets=sum(1 for k in keys if k < 0),
        truncated_packets=sum(1 for w in nwords if w < F.PAYLOAD_WORDS),
        idle_words=0,
    )
    return PlainPackets(start, nwords, keys, diag)


def _offset_dtype(nwords: int):
    """Word offsets as int32 below 2**31 words (8 GiB): 4 bytes less per packet
    to hold (and the one type the compiled gather is warmed with)."""
    return np.int32 if nwords < 2**31 else np.int64


def unit_payload(words: np.ndarray, start: np.ndarray, nwords: np.ndarray, engine=None):
    """One unit's payload as bytes in stream order (each word most significant
    byte first) with the idle words dropped: ``(uint8 array, idle words)``.
    ``start``/``nwords``: the unit's packets (see :class:`Packets`). ``engine``
    (:mod:`iron.trace.engine`; None: by size): PLAIN takes lists and gives a bytearray."""
    if engine is not None and engine.plain:  # lists: the gather as plain Python into a bytearray
        out = bytearray(4 * sum(nwords))
        k = kernel(gather_payload, engine)(words, start, nwords, out, F.IDLE_WORD)
        return out[:k], (len(out) - k) // 4
    nbytes = 4 * int(nwords.sum(dtype=np.int64))
    engine = engine or for_stream(nbytes, gather_payload)
    gather = jit(gather_payload) if engine.compiled else None
    if gather is None:
        return _payload_numpy(words, start, nwords)
    out = np.empty(nbytes, np.uint8)
    k = gather(_readonly(words), start, nwords, out, np.uint32(F.IDLE_WORD))
    return out[:k], (nbytes - k) // 4


#: Packets per piece of :class:`PayloadPieces` (about 1.8 MB of payload).
PIECE_PACKETS = 1 << 16


class PayloadPieces:
    """:func:`unit_payload`'s bytes in consecutive pieces of ``piece_packets``
    packets (default :data:`PIECE_PACKETS`; compiled gather), so a unit's payload
    is never in memory whole (see :func:`iron.trace.decode.scan.scan_pieces`).
    Iterating counts ``nbytes`` and ``idle`` words as :func:`unit_payload` would."""

    def __init__(self, words: np.ndarray, start: np.ndarray, nwords: np.ndarray, piece_packets: int = 0):
        self.words, self.start, self.nwords = words, start, nwords
        self.step = max(1, piece_packets or PIECE_PACKETS)
        self.nbytes = self.idle = 0

    def __iter__(self):
        for a in range(0, len(self.start), self.step):
            sl = slice(a, a + self.step)
            data, idle = unit_payload(self.words, self.start[sl], self.nwords[sl], NUMBA)
            self.nbytes += len(data)
            self.idle += idle
            yield data


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


def gather_payload(words, start, nwords, out, idle):
    """Compiled :func:`unit_payload` (numba; no temporaries)."""
    k = 0
    for p in range(len(start)):
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


def warm_gather() -> None:
    """Compile (or load) :func:`gather_payload` on tiny inputs (see :func:`iron.trace.jit.load_kernels`)."""
    gather = jit(gather_payload)
    if gather is not None:
        words, z = _readonly(np.zeros(8, np.uint32)), np.zeros(1, _offset_dtype(8))
        gather(words, z, np.zeros(1, np.uint8), np.zeros(0, np.uint8), np.uint32(F.IDLE_WORD))
