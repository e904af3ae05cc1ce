"""Step 3 of :mod:`iron.trace.decode`: the one frame scanner, a unit's bytes -> folded ops.

A unit's bytes (MSB first) are split into frames without a Python loop per
byte: each byte's frame length comes from a 256-entry table and the chain of
frame starts is followed block by block in lock step (numpy) or one compiled scan
(numba, when available: much faster on big buffers). A frame cut by the end of
the stream is dropped (counted). Field positions: ``frames.FRAME_FIELDS``.

Both paths give the same :class:`~iron.trace.decode.timing.Ops` (Repeat frames
folded into the op they replay). The compiled scan hands them to an accumulator
a chunk at a time (:func:`compiled_scan`): the decoder keeps them all, the
summary (:func:`iron.trace.export.summary.summarize_unit`) folds each chunk into
its figures and keeps none. The plain engine (:data:`iron.trace.engine.PLAIN`) runs the
same scan (:func:`scan_ops`) as plain Python over bytes and lists (:mod:`iron.trace.jit`).
"""

from __future__ import annotations

import functools

from iron.target import frames as F
from iron.trace.decode.diagnostics import no_frames
from iron.trace.decode.timing import (
    OP_EVENT,
    OP_REPEAT,
    OP_SYNC,
    OPS_DTYPES,
    OPS_FIELDS,
    Ops,
    join_ops,
    empty_ops,
)
from iron.trace.decode.packets import gather_payload
from iron.trace.engine import NUMBA, as_engine, for_stream
from iron.trace.jit import jit, kernel, np


def frame_starts(lengths: np.ndarray, engine=None) -> np.ndarray:
    """Offsets of the frames of a byte stream, given each byte's frame length
    (as if a frame started there). The last start may run past the end.
    ``engine``: :data:`~iron.trace.engine.NUMBA` or :data:`~iron.trace.engine.NUMPY`
    (None: by size, :func:`iron.trace.engine.for_stream`)."""
    n = len(lengths)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    engine = as_engine(engine) or for_stream(n, _scan_starts)
    if engine.compiled:
        scan = jit(_scan_starts)
        if scan is None:
            raise RuntimeError("numba is not available")
        out = np.empty(n, dtype=np.int32 if n < 2**31 - 8 else np.int64)
        k = scan(lengths, out)
        return out[:k].copy()
    starts = frame_start_mask(lengths)
    return frame_starts_blocks(lengths) if starts is None else np.flatnonzero(starts)


#: Frames that :func:`frame_start_mask` follows in lock step from the sync points before it
#: gives up (None: the caller takes :func:`frame_starts_blocks`). Real streams need a few
#: (Dec 2026: at most 3 in the tiled hardware capture, 16 in bench_decode's synthetic
#: units, 38 in random bytes); only streams made to defeat it (e.g. one byte, then only
#: 2-byte frames whose second byte reads as another 2-byte frame) need more.
SYNC_WALK_STEPS = 64
#: Bytes of the longest frame (by its first byte).
_LONGEST_FRAME = max(F.LENGTH_BYTES)
#: :func:`frame_start_mask` finds the bytes that a frame from up to this many bytes back
#: runs past by whole-array comparisons; longer frames (rare: Start) one by one.
_DENSE_REACH = 4


def frame_start_mask(lengths: np.ndarray, max_steps: int = SYNC_WALK_STEPS) -> np.ndarray | None:
    """:func:`frame_starts` as a bool per byte (the last start may run past the end),
    in a few whole-array passes: a *sync point* is a byte that no frame starting before
    it runs past (``lengths[s - d] <= d`` for every ``d``), so every chain of frames
    from before it lands on it: it starts a frame. Between two sync points, the frames
    are walked from the first, all such stretches in lock step; most stretches are one
    frame (nothing to walk). None when a stretch needs more than ``max_steps`` frames."""
    n = len(lengths)
    longest = max(1, int(lengths.max())) if n else 1
    # cut[s]: a frame that starts before s runs past s (s is no sync point); False past the end
    cut = np.zeros(n + longest, bool)
    for d in range(1, min(longest, _DENSE_REACH)):
        cut[d:n] |= lengths[: n - d] > d
    if longest > _DENSE_REACH:
        big = np.flatnonzero(lengths > _DENSE_REACH)
        reach = lengths[big]
        for d in range(_DENSE_REACH, longest):
            at = big[reach > d] + d
            cut[at[at < n]] = True
    start = ~cut[:n]
    # The stretches that hold more than one frame: a sync point's frame ends on a cut byte.
    multi = np.flatnonzero((lengths > 1) & start)
    cur = multi + lengths.take(multi)
    cur = cur[cut.take(cur)]
    for _ in range(max_steps):
        if not len(cur):
            return start
        start[cur] = True
        cur = cur + lengths.take(cur)
        cur = cur[cut.take(cur)]  # on until the next sync point (a frame start already)
    return None if len(cur) else start


#: Bytes per block of :func:`frame_starts_blocks` (measured Dec 2026 at 1 MiB: 256 is about
#: 5x faster than pointer doubling; smaller blocks cost Python iterations, larger ones numpy calls).
FRAME_BLOCK = 256


def frame_starts_blocks(lengths: np.ndarray, block: int = FRAME_BLOCK) -> np.ndarray:
    """:func:`frame_starts` in numpy, block by block: the chain is followed from every
    block's first byte in lock step (one numpy step per frame of a block), then the
    blocks are joined in order. The true chain enters block ``b`` at ``e``, at most
    ``max(lengths) - 1`` bytes in; when the walk from the block's start passed ``e`` it
    is the true chain from there (frames before ``e`` dropped), else the true chain
    is walked from ``e`` until it meets that walk (frame chains meet within a few
    frames: most bytes are 1-byte frames) or leaves the block."""
    n = len(lengths)
    if n == 0:
        return np.zeros(0, np.int64)
    longest = max(1, int(lengths.max()))
    block = max(block, longest)  # a chain enters each block within it
    nb = -(-n // block)
    idx_t = np.int32 if nb * block < 2**31 - 2 * longest else np.int64
    steps = np.ones(nb * block + longest, idx_t)  # past the end: 1-byte frames, dropped below
    steps[:n] = np.maximum(lengths, 1)
    seen, exits = _walk_blocks(steps, nb, block, idx_t)
    entries = _join_blocks(seen, exits, steps, n, block)
    base = np.arange(0, len(entries) * block, block, dtype=idx_t)
    into = np.asarray(entries, idx_t) - base
    for off in range(longest - 1):  # the walk's frames before each block's entry
        seen[base[into > off] + off] = False
    seen[len(entries) * block :] = False
    return np.flatnonzero(seen[:n])


def _walk_blocks(steps, nb: int, block: int, idx_t):
    """The chain from each block's first byte, all blocks in lock step, until it leaves
    the block: (positions it visits, where each block's walk leaves it)."""
    seen = np.zeros(len(steps), bool)
    cur = np.arange(0, nb * block, block, dtype=idx_t)
    end = cur + block
    which = np.arange(nb)
    exits = np.empty(nb, idx_t)
    while len(cur):
        seen[cur] = True
        cur = cur + steps[cur]
        out = cur >= end
        if out.any():
            exits[which[out]] = cur[out]
            keep = ~out
            cur, end, which = cur[keep], end[keep], which[keep]
    return seen, exits


def _join_blocks(seen, exits, steps, n: int, block: int) -> list[int]:
    """Each block's true entry (blocks from the one the chain leaves the data in: none),
    ``seen`` corrected in place where the true chain is not the block's walk."""
    ex = exits.tolist()
    entries = []
    e = 0
    for b in range(len(ex)):
        if e >= n:
            break
        entries.append(e)
        if seen[e]:
            e = ex[b]
            continue
        hi, p, path = (b + 1) * block, e, []
        while p < hi and not seen[p]:  # until it meets the walk, or leaves the block
            path.append(p)
            p += int(steps[p])
        seen[b * block : p] = False
        seen[path] = True
        e = ex[b] if p < hi else p
    return entries


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


def parse_stream(data: np.ndarray, engine=None) -> tuple[Ops, int | None, dict]:
    """Frames of one unit's byte stream -> (ops, first Start timer, diagnostics).

    ``engine`` (:mod:`iron.trace.engine`, or its name): NUMPY (table lookups + a
    block-wise walk, vectorized), NUMBA (the same rules in one compiled scan over
    the bytes, :func:`compiled_scan` keeping every op) or None (numba for big
    streams when installed, :func:`iron.trace.engine.for_stream`). Both give
    identical results.
    """
    engine = as_engine(engine)
    data = np.ascontiguousarray(data, dtype=np.uint8)
    n = len(data)
    engine = engine or for_stream(n, scan_ops)
    if n == 0:
        return empty_ops(), None, no_frames()
    if engine.compiled:
        return parse_compiled(data)
    return _parse_numpy(data)


def start_timer_at(data, pos: int) -> int:
    """The timer value of the Start frame at byte ``pos`` of ``data``."""
    return int.from_bytes(bytes(data[pos + 1 : pos + 1 + F.START_TIMER_BYTES]), "big")


def frame_diagnostics(data, frames, unknown, trunc, nstart, first_start, nsync) -> tuple[dict, int | None]:
    """The counters of a compiled scan -> (diagnostics dict, first Start timer)."""
    diag = {
        "frames": int(frames),
        "unknown_frames": int(unknown),
        "truncated_frames": int(trunc),
        "start_frames": int(nstart),
        "sync_frames": int(nsync),
    }
    return diag, (start_timer_at(data, int(first_start)) if first_start >= 0 else None)


def byte_table(data: np.ndarray, table: bytes) -> np.ndarray:
    """``table[b]`` of every byte ``b`` of ``data`` (a uint8 array), by ``bytes.translate``:
    several times faster than numpy's indexing by a uint8 array (Dec 2026, 1 MiB: 0.8 vs 3.9 ms)."""
    return np.frombuffer(data.tobytes().translate(table), np.uint8)


def _parse_numpy(data: np.ndarray) -> tuple[Ops, int | None, dict]:
    """:func:`parse_stream` in whole-array passes (see :func:`frame_start_mask`): per byte
    its frame kind and length from one table, the frame starts as a mask, the kept
    frames (events, Repeats, Event_Syncs) gathered by index (numpy's ``take``: several
    times faster than indexing by a mask or an index array)."""
    n = len(data)
    diag = no_frames()
    code = byte_table(data, _kind_length_bytes())
    lengths = code >> 4
    start = frame_start_mask(lengths)
    if start is None:  # stretches of frames too long to walk in lock step: block by block
        start = np.zeros(n, bool)
        start[frame_starts_blocks(lengths)] = True
    tail = max(0, n - _LONGEST_FRAME)  # the last frame starts within this of the end
    last = tail + int(np.flatnonzero(start[tail:])[-1])
    if last + int(lengths[last]) > n:
        start[last] = False
        diag["truncated_frames"] = 1
    kind = code & np.uint8(15)
    diag["frames"] = int(np.count_nonzero(start))
    diag["unknown_frames"] = int(np.count_nonzero((kind == F.UNKNOWN) & start))
    first = (kind == F.START) & start
    diag["start_frames"] = int(np.count_nonzero(first))
    start_timer = start_timer_at(data, int(np.argmax(first))) if diag["start_frames"] else None
    keep = (kind <= F.REPEAT1) | (kind == F.SYNC)
    keep &= start
    at = np.flatnonzero(keep)
    k = kind.take(at)
    # The 4 bytes from each frame start as one big-endian word: fields are bit ranges of it
    # (a view of the bytes as big-endian words at every byte offset, gathered at the starts).
    padded = np.concatenate([data, np.zeros(3, dtype=np.uint8)])
    at_every_byte = np.ndarray(buffer=padded, dtype=">u4", shape=(n,), strides=(1,))
    w = at_every_byte.take(at).astype(np.uint32)
    del code, lengths, start, kind, first, keep, at, padded, at_every_byte  # before the fold's own
    diag["sync_frames"] = int(np.count_nonzero(k == F.SYNC))
    ops = _fold_words(k, w, diag["sync_frames"])
    return (ops if ops is not None else _ops_from_words(k, w)), start_timer, diag


@functools.cache
def _kind_length_bytes() -> bytes:
    """First byte -> its frame kind (low 4 bits) and length (high 4 bits), one table."""
    return bytes(k | length << 4 for k, length in zip(F.KIND_BYTES, F.LENGTH_BYTES))


@functools.cache
def _field_shifts() -> tuple[bytes, bytes, bytes, bytes]:
    """:func:`field_table` as 256-byte tables by kind for ``bytes.translate``: a field of
    the word ``w`` is ``(w << left) >> right`` (numpy gives 0 for shifts of 32 or more:
    kinds without fields): left and right shifts of the value, then of the slot field."""
    tables = [bytearray(256) for _ in range(4)]
    for kind in range(16):
        v_shift, v_mask, s_shift, s_mask = field_table(True)[4 * kind : 4 * kind + 4]
        for j, (shift, mask) in enumerate(((v_shift, v_mask), (s_shift, s_mask))):
            width = mask.bit_length()
            tables[2 * j][kind] = 32 - shift - width if width else 0
            tables[2 * j + 1][kind] = 32 - width
    return tuple(bytes(t) for t in tables)


def _fold_words(k: np.ndarray, w: np.ndarray, nsync: int) -> Ops | None:
    """Folded :class:`Ops` of the kept frames (kinds ``k``, words ``w``) when every Repeat
    follows an event frame (the common stream: no Repeat first, none after an Event_Sync;
    else None): the ops are the other frames, each Repeat's count summed into its event's
    ``reps``, the fields computed for the events only."""
    is_rep = (k >> 1) == F.REPEAT0 >> 1  # Repeat0 and Repeat1 (6 and 7)
    if len(k) and is_rep[0]:
        return None
    if nsync and ((k[:-1] == F.SYNC) & is_rep[1:]).any():
        return None
    rep = np.flatnonzero(is_rep)
    if len(rep):
        heads = np.flatnonzero(~is_rep)
        hk, hw = k.take(heads), w.take(heads)
    else:
        hk, hw = k, w
    v_left, v_right, s_left, s_right = _field_shifts()
    value = hw << byte_table(hk, v_left)
    value >>= byte_table(hk, v_right)
    slots = hw << byte_table(hk, s_left)
    slots >>= byte_table(hk, s_right)  # a slot number (Single) or a slot mask (Multiple)
    slots = slots.astype(np.uint8)  # both fit a byte (so does a Single's 1 << slot)
    single = hk <= F.SINGLE2
    mask = np.where(single, np.uint8(1) << slots, slots)
    reps = np.zeros(len(hk), np.uint32)
    if len(rep):
        # A Repeat's event is the head before it: heads before it = its index - Repeats before it.
        group = rep - np.arange(1, len(rep) + 1)
        rk, rw = k.take(rep), w.take(rep)
        counts = (rw << byte_table(rk, v_left)) >> byte_table(rk, v_right)
        total = np.cumsum(counts, dtype=np.uint32)  # mod 2**32, as the uint32 field keeps it
        ends = np.flatnonzero(np.append(group[1:] != group[:-1], True))  # each event's last Repeat
        summed = total.take(ends)
        summed[1:] -= total.take(ends[:-1])
        reps[group.take(ends)] = summed
    kind = (hk == F.SYNC).view(np.uint8) * np.uint8(OP_SYNC)  # else OP_EVENT (0)
    return Ops(kind, mask, value, reps, single)


@functools.cache
def field_table(plain: bool = False):
    """``frames.FRAME_FIELDS`` as one flat table for the scans: per kind (16 rows of
    4) value shift, value mask, slot shift, slot mask; kinds without fields are all
    zero. A tuple (``plain``) or a read-only numpy array."""
    table = [0] * 64
    for kind, (v_shift, v_width, s_shift, s_width) in F.FRAME_FIELDS.items():
        table[4 * kind : 4 * kind + 4] = (v_shift, (1 << v_width) - 1, s_shift, (1 << s_width) - 1)
    if plain:
        return tuple(table)
    out = np.array(table, np.int64)
    out.flags.writeable = False
    return out


@functools.cache
def _op_of_kind():
    """Frame kind -> the op kind it becomes."""
    out = np.full(16, OP_SYNC, np.uint8)
    out[: F.MULTIPLE2 + 1] = OP_EVENT
    out[[F.REPEAT0, F.REPEAT1]] = OP_REPEAT
    return out


@functools.cache
def _field_columns():
    """:func:`field_table` as four uint32 columns (shifts and masks fit: 32-bit arithmetic
    on the words, half the memory of 64-bit)."""
    return tuple(np.ascontiguousarray(c) for c in field_table().astype(np.uint32).reshape(16, 4).T)


def _ops_from_words(k, w) -> Ops:
    v_shift, v_mask, s_shift, s_mask = _field_columns()
    single = k <= F.SINGLE2
    k = k.astype(np.intp)  # numpy indexes by intp several times faster than by uint8
    value = w >> v_shift.take(k)
    value &= v_mask.take(k)
    slots = w >> s_shift.take(k)
    slots &= s_mask.take(k)  # a slot number (Single) or a slot mask (Multiple)
    mask = np.where(single, np.uint32(1) << slots, slots)
    return join_ops(_op_of_kind().take(k), mask.astype(np.uint8), value, single)


#: Folded ops per chunk that :func:`compiled_scan` hands to an accumulator by default.
CHUNK_OPS = 1 << 14


def compiled_scan(
    data, accumulate, chunk_ops: int = CHUNK_OPS, engine=NUMBA, progress=None
) -> tuple[dict, int | None]:
    """The compiled frame scan (:func:`scan_ops`) of one unit's bytes: calls
    ``accumulate(ops)`` with at most ``chunk_ops`` folded ops at a time, in stream
    order (views into buffers that the next chunk overwrites: an accumulator that
    keeps them asks for one chunk, ``chunk_ops >= len(data)``). A chunk never
    splits an op from the Repeat frames folded into it; ``progress(byte)``, when
    given, is told after each chunk where the scan stands. Returns (frame
    diagnostics, first Start timer). ``engine`` PLAIN: the scan as plain Python
    over ``data`` as bytes, each chunk's ops fresh lists."""
    n = len(data)
    cap = max(1, min(chunk_ops, n))  # a stream has at most one op per byte
    ring = [op_buffers(cap, engine)]
    counts = new_counts(engine)
    for ops in scan_from(data, ring, counts, engine=engine):
        accumulate(ops)
        if progress is not None:
            progress(int(counts[_POS]))
    return frame_diagnostics(data, *counts[:6])


def op_buffers(cap: int, engine) -> list:
    """One set of op buffers (one per :class:`Ops` field) of ``cap`` ops: lists for
    the plain engine, else numpy arrays."""
    if engine.plain:
        return [[0] * cap for _ in OPS_FIELDS]
    return [np.empty(cap, dt) for dt in OPS_DTYPES]


# counts of scan_ops: frames, unknown, truncated, Start frames, first Start offset, syncs,
# then what one call hands the next: ops already in the buffers, the op Repeats fold into;
# then (set by scan_from, not the kernel) the byte the last call stopped at
_HELD, _ATTACH, _POS = 6, 7, 8


def new_counts(engine=NUMBA):
    """The counters :func:`scan_ops` carries from one call to the next, as new."""
    counts = engine.zeros(9, "int64")
    counts[4] = counts[_ATTACH] = -1
    return counts


def scan_from(data, ring: list, counts, more: bool = False, engine=NUMBA):
    """Ops chunks of :func:`scan_ops` over ``data``, each into the next buffer set
    of ``ring`` (a list of per-field buffer lists, rotated in place: views that
    the chunk ``len(ring)`` later overwrites). ``more``: bytes of the same stream
    follow, so an op that Repeat frames there could still fold into is held back,
    at the start of the next set, for the next call. Returns, as the generator's
    value, the byte the scan stopped at: ``len(data)``, or the start of a frame cut
    by the end of ``data``. ``engine`` PLAIN: Python over bytes; chunks are copies."""
    scan = kernel(scan_ops, engine)
    plain = engine.plain
    kinds, lengths = (F.KIND_BYTES, F.LENGTH_BYTES) if plain else (F.KIND_OF_BYTE, F.LENGTH_OF_BYTE)
    fields = field_table(plain)
    n, cap, pos = len(data), len(ring[0][0]), 0
    while True:
        out = ring[0]
        k, pos = scan(data, pos, kinds, lengths, fields, *out, counts)
        counts[_POS] = pos
        done = k < cap or pos >= n or counts[2]
        hold = more and done and counts[_ATTACH] == k - 1 and k > 0
        if k - hold:
            yield Ops(*(a[: k - hold] for a in out))
            ring.append(ring.pop(0))  # a set per chunk handed out
        if hold:  # the last op opens the next chunk's buffers
            for a, b in zip(out, ring[0]):
                b[0] = a[k - 1]
        counts[_HELD], counts[_ATTACH] = (1, 0) if hold else (0, -1)
        if done:
            return pos


def scan_pieces(pieces, chunk_ops: int = CHUNK_OPS, report: dict | None = None, buffers: int = 1):
    """The compiled frame scan of one unit's bytes handed over in consecutive
    ``pieces`` (byte arrays, e.g. :class:`iron.trace.decode.packets.PayloadPieces`):
    yields the ops of the whole stream's scan, at most ``chunk_ops`` at a time
    (views into ``buffers`` sets of buffers used in turn: the chunk ``buffers``
    later overwrites them), so a unit's payload and ops never need to be in
    memory whole. A frame cut by a piece's end is carried to the next piece; the
    last op of a piece waits for the Repeat frames that may open the next one. ``report``, when given, receives the frame diagnostics and the first
    Start timer (key ``start_timer``) once the pieces are used up."""
    ring = [[np.empty(max(2, chunk_ops), dt) for dt in OPS_DTYPES] for _ in range(max(1, buffers))]
    counts = new_counts()
    carry, start_timer = np.zeros(0, np.uint8), None
    data = carry
    for piece in pieces:
        data = np.concatenate([carry, piece]) if len(carry) else np.ascontiguousarray(piece, np.uint8)
        pos = yield from scan_from(data, ring, counts, more=True)
        if start_timer is None and counts[4] >= 0:  # read while its piece is at hand
            start_timer = start_timer_at(data, int(counts[4]))
        carry = data[pos:].copy()  # empty, or the start of a frame cut by the piece's end
        counts[2] = 0
    if counts[_HELD]:
        yield Ops(*(a[:1] for a in ring[0]))
    counts[2] = 1 if len(carry) else 0  # cut by the stream's end: dropped, as the whole scan does
    if report is not None:
        report.update(frame_diagnostics(data[:0], *counts[:4], -1, counts[5])[0], start_timer=start_timer)


def parse_compiled(data, compact: bool = True) -> tuple[Ops, int | None, dict]:
    """:func:`parse_stream` by the compiled scan (numba installed), every op kept.
    ``compact``: copy the ops out of the worst-case buffers when most of them are unused."""
    n = len(data)
    kept = [empty_ops()]
    diag, start_timer = compiled_scan(data, kept.append, chunk_ops=n)
    ops = kept[-1]
    # The arrays were sized for the worst case (one op per byte): copied when
    # mostly unused and ``compact`` (ops kept long); views cost only the pages written.
    k = len(ops)
    fields = (ops.kind, ops.mask, ops.value, ops.reps, ops.single)
    return Ops(*(a if k > 0.6 * n or not compact else a.copy() for a in fields)), start_timer, diag


def warm_ops() -> None:
    """Compile (or load) the frame scan on tiny inputs (see :func:`iron.trace.jit.load_kernels`)."""
    if jit(scan_ops) is not None:
        parse_compiled(np.zeros(16, np.uint8))


def ops_kernels() -> list:
    """The compiled kernels :func:`iron.trace.decode.decode_words` calls without ``analyze``."""
    return [jit(gather_payload), jit(scan_ops)]


# Frame kinds as plain globals: numba freezes them into the kernel.
_S2, _M2, _R1 = F.SINGLE2, F.MULTIPLE2, F.REPEAT1
_SYN, _STA, _UNK = F.SYNC, F.START, F.UNKNOWN


def scan_ops(data, pos, kind_of, length_of, fields, o_kind, o_mask, o_value, o_reps, o_single, counts):
    """Compiled frame scan (numba): the same frame rules and fields as the numpy
    path (:func:`_parse_numpy`), in one pass over the bytes from ``pos`` on, until
    the stream ends or the ``o_*`` arrays are full; it then stops before the frame
    that would start one op more, so the Repeat frames of the last op are folded
    in. Adds to ``counts`` (frames, unknown, truncated, Start frames, first Start
    offset, syncs); starts after ``counts[6]`` ops already in the buffers, Repeats
    folding into op ``counts[7]`` (-1: none), and leaves there the op the next
    Repeat would fold into. Returns ``(ops in the buffers, byte to go on from)``."""
    n = len(data)
    cap = len(o_kind)
    i = pos
    k = counts[6]  # ops a previous call left in the buffers (the last may take Repeats)
    frames = 0
    unknown = 0
    trunc = 0
    nstart = 0
    nsync = 0
    first_start = counts[4]
    attach = counts[7]  # op that a following Repeat replays (folded into it); -1: none
    while i < n:
        b0 = data[i]
        ln = length_of[b0]
        if i + ln > n:
            trunc = 1
            break
        kd = kind_of[b0]
        if k == cap and (kd <= _M2 or kd == _SYN or (kd <= _R1 and attach < 0)):
            break  # full: this frame opens the next chunk
        frames += 1
        if kd <= _R1:
            # the frame's first 4 bytes big-endian (bytes past the frame are masked off;
            # past the stream they are 0)
            w = np.int64(b0) << 24
            if i + 4 <= n:
                w |= (np.int64(data[i + 1]) << 16) | (np.int64(data[i + 2]) << 8) | data[i + 3]
            else:
                for j in range(1, n - i):
                    w |= np.int64(data[i + j]) << (24 - 8 * j)
            value = (w >> fields[4 * kd]) & fields[4 * kd + 1]
            if kd <= _M2:
                slots = (w >> fields[4 * kd + 2]) & fields[4 * kd + 3]
                o_kind[k] = OP_EVENT
                o_reps[k] = 0
                o_mask[k] = (1 << slots) if kd <= _S2 else slots
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
    counts[0] += frames
    counts[1] += unknown
    counts[2] += trunc
    counts[3] += nstart
    counts[4] = first_start
    counts[5] += nsync
    counts[7] = attach
    return k, i
