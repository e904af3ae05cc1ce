"""Trace packet header and event frame format: the one table of both.

Source: docs/design.md section 5, checked against Xilinx/mlir-aie
``python/utils/trace/utils.py`` @0750994 (``parse_pkt_hdr_in_stream``,
``convert_to_commands``) and AM020 (AIE-ML trace unit). Frame kinds and first
bytes (:data:`FRAME_TABLE`), field positions (:data:`FRAME_FIELDS`) and the
event-PC frames of trace mode 1 (:data:`EVENT_PC_TABLE`) are here; the decoder
(:mod:`iron.trace.decode`) and the encoder (:mod:`iron.trace.encode`) read them.

A packet is 8 little-endian 32-bit words: one header and 7 payload words. A
unit's payload words, read most-significant byte first, are a stream of frames.

The byte tables are ``bytes`` here (what a plain decode reads, without numpy:
:mod:`iron.trace.jit`); their numpy forms (``KIND_OF_BYTE``, ...) are made on first use.
"""

from __future__ import annotations

from iron.target.trace_unit import SLOTS  # noqa: F401  (event masks hold one bit per slot)

# --------------------------------------------------------------------------- packets
PACKET_WORDS = 8
PAYLOAD_WORDS = PACKET_WORDS - 1
PAYLOAD_BYTES = PAYLOAD_WORDS * 4

#: Header fields: name -> (shift, width). Bit 31 makes the parity of the word odd.
HEADER_FIELDS = {"column": (21, 7), "row": (16, 5), "packet_type": (12, 2), "packet_id": (0, 5)}
PARITY_BIT = 31
#: Bits [30:28], [19] and [11:5] must be zero in a valid header.
HEADER_RESERVED = (0x7 << 28) | (1 << 19) | (0x7F << 5)

#: Words the drain inserts that carry no trace data: dropped from payload streams.
IDLE_WORD = 0xA5A5A5A5
#: End-of-trace marker (a word of filler bytes), followed by zero words.
END_MARKER = 0xFEFEFEFE
#: Runs of at least this many zero words separate channel segments.
SEGMENT_GAP_WORDS = 8


def _field(name: str, value: int) -> int:
    shift, width = HEADER_FIELDS[name]
    if not 0 <= value < (1 << width):
        raise ValueError(f"packet header {name} {value} does not fit {width} bits")
    return value << shift


def make_header(column: int, row: int, packet_type: int, packet_id: int) -> int:
    """A valid packet header (odd parity over all 32 bits)."""
    word = (
        _field("column", column)
        | _field("row", row)
        | _field("packet_type", packet_type)
        | _field("packet_id", packet_id)
    )
    if word.bit_count() % 2 == 0:
        word |= 1 << PARITY_BIT
    return word


def header_ok(word: int) -> bool:
    """One header's check: odd parity and reserved bits zero."""
    return word.bit_count() & 1 == 1 and word & HEADER_RESERVED == 0


def header_valid(words):
    """:func:`header_ok` of a numpy array of headers, vectorized."""
    import numpy as np

    words = np.asarray(words, dtype=np.uint32)
    odd = (np.bitwise_count(words) & 1).astype(bool)
    return odd & ((words & np.uint32(HEADER_RESERVED)) == 0)


def header_field(words, name: str):
    """Field ``name`` of a numpy array of headers (an int of an int)."""
    shift, width = HEADER_FIELDS[name]
    if isinstance(words, int):
        return (words >> shift) & ((1 << width) - 1)
    import numpy as np

    return (np.asarray(words, dtype=np.uint32) >> np.uint32(shift)) & np.uint32((1 << width) - 1)


# --------------------------------------------------------------------------- frames
# Frame kinds, numbered so that the event-carrying kinds come first.
SINGLE0, SINGLE1, SINGLE2, MULTIPLE0, MULTIPLE1, MULTIPLE2 = range(6)
REPEAT0, REPEAT1, START, SKIP4, FILLER, SYNC, UNKNOWN = range(6, 13)

#: The one table of frame kinds: (kind, name, first-byte mask, first-byte value, bytes).
#: Bit layouts (first byte first): Single0 0eeecccc; Single1 100eeecc +1 B;
#: Single2 101eeecc +2 B; Multiple0 1100mmmm mmmmcccc; Multiple1 110100mm mmmmmmcc +1 B;
#: Multiple2 110101mm mmmmmmcc +2 B; Repeat0 1110rrrr; Repeat1 110110rr +1 B;
#: Start 0xF0/0xF4 + 56-bit big-endian timer; 0xDC-0xDF are skipped as 4 bytes
#: (mlir-aie does so; meaning unknown); Filler 0xFE; Event_Sync 0xFF.
FRAME_TABLE = (
    (SINGLE0, "Single0", 0x80, 0x00, 1),
    (SINGLE1, "Single1", 0xE0, 0x80, 2),
    (SINGLE2, "Single2", 0xE0, 0xA0, 3),
    (MULTIPLE0, "Multiple0", 0xF0, 0xC0, 2),
    (MULTIPLE1, "Multiple1", 0xFC, 0xD0, 3),
    (MULTIPLE2, "Multiple2", 0xFC, 0xD4, 4),
    (REPEAT0, "Repeat0", 0xF0, 0xE0, 1),
    (REPEAT1, "Repeat1", 0xFC, 0xD8, 2),
    (START, "Start", 0xFB, 0xF0, 8),
    (SKIP4, "Skip4", 0xFC, 0xDC, 4),
    (FILLER, "Filler", 0xFF, 0xFE, 1),
    (SYNC, "Event_Sync", 0xFF, 0xFF, 1),
)
FRAME_NAMES = {k: name for k, name, *_ in FRAME_TABLE} | {UNKNOWN: "Unknown"}
#: Bytes of the Start frame's timer (big-endian, after its first byte).
START_TIMER_BYTES = FRAME_TABLE[START][4] - 1

#: Where the fields sit: per kind, ``(value shift, value width, slot shift, slot width)``
#: in the big-endian word of the frame's first 4 bytes (bytes past the frame read as 0).
#: The value is the cycle count of a Single/Multiple frame or the replay count of a
#: Repeat; the slot field is a 3-bit slot number (Single) or an 8-bit slot mask (Multiple).
FRAME_FIELDS = {
    SINGLE0: (24, 4, 28, 3),
    SINGLE1: (16, 10, 26, 3),
    SINGLE2: (8, 18, 26, 3),
    MULTIPLE0: (16, 4, 20, 8),
    MULTIPLE1: (8, 10, 18, 8),
    MULTIPLE2: (0, 18, 18, 8),
    REPEAT0: (24, 4, 0, 0),
    REPEAT1: (16, 10, 0, 0),
}
#: Cycle field widths of Single/Multiple frames 0/1/2, repeat count widths of Repeat0/1.
CYCLE_BITS = tuple(FRAME_FIELDS[k][1] for k in (SINGLE0, SINGLE1, SINGLE2))
REPEAT_BITS = tuple(FRAME_FIELDS[k][1] for k in (REPEAT0, REPEAT1))
MAX_CYCLES = (1 << CYCLE_BITS[-1]) - 1
MAX_REPEAT = (1 << REPEAT_BITS[-1]) - 1
#: Cycles an Event_Sync stands for (mlir-aie ``make_event_lists``: "Typo in spec").
SYNC_CYCLES = 0x3FFFF
FILLER_BYTE = 0xFE
SYNC_BYTE = 0xFF
START_BYTE = 0xF0


def _byte_tables() -> tuple[bytes, bytes]:
    kind = bytearray([UNKNOWN] * 256)
    length = bytearray([1] * 256)  # unknown bytes are skipped one at a time
    for k, _name, mask, value, nbytes in FRAME_TABLE:
        for b in range(256):
            if (b & mask) == value:
                if kind[b] != UNKNOWN:
                    raise AssertionError("overlapping frame patterns")
                kind[b], length[b] = k, nbytes
    return bytes(kind), bytes(length)


#: First byte -> frame kind / frame length in bytes (numpy forms: KIND_OF_BYTE, LENGTH_OF_BYTE).
KIND_BYTES, LENGTH_BYTES = _byte_tables()


def frame_word(kind, value, slot):
    """The big-endian word of the first 4 bytes of frames of ``kind`` (arrays or
    scalars) with the ``value`` and ``slot`` fields set (see :data:`FRAME_FIELDS`;
    the slot field of a Single frame is the slot number, of a Multiple the mask)."""
    import numpy as np

    kind = np.asarray(kind)
    first = np.array([row[3] for row in FRAME_TABLE], np.uint32)[kind]
    table = np.array([FRAME_FIELDS.get(k, (0, 0, 0, 0)) for k in range(len(FRAME_TABLE))], np.uint32)
    f = table[kind]
    return (
        first << np.uint32(24)
        | np.asarray(value, np.uint32) << f[..., 0]
        | np.asarray(slot, np.uint32) << f[..., 2]
    )


# --------------------------------------------------------------------------- event-PC frames
# Trace mode 1 (event-PC, :mod:`iron.target.trace_modes`): instead of Single/Multiple
# frames a core unit sends 4-byte EventPC frames ``110001mm mmmmmmxx xxpppppp pppppppp``
# (8-bit slot mask, 14-bit PC; docs/design.md 9.2, bit layout confirmed on Phoenix captures by
# FIM43-Redeye/xdna-emu ``tools/trace_decoder/modes/mode1.py``). Start (0xF1 / 0xF5
# re-anchor, 8 bytes), Repeat0/1, Event_Sync, filler 0xFE and the 4-byte 0xDC-0xDF word
# are shared with mode 0. A Repeat replays the previous EventPC frame.
PC_EVENT, PC_REPEAT0, PC_REPEAT1, PC_START, PC_SKIP4, PC_FILLER, PC_SYNC, PC_UNKNOWN = range(8)
#: The frame kinds of a mode-1 stream: (kind, first-byte mask, first-byte value, bytes);
#: an earlier row wins where patterns overlap.
EVENT_PC_TABLE = (
    (PC_EVENT, 0xFC, 0xC4, 4),
    (PC_REPEAT0, *FRAME_TABLE[REPEAT0][2:]),
    (PC_REPEAT1, *FRAME_TABLE[REPEAT1][2:]),
    (PC_START, 0xF8, 0xF0, 8),  # 0xF0 | mode, +4 re-anchor (any mode: a mismatch is reported elsewhere)
    (PC_SKIP4, *FRAME_TABLE[SKIP4][2:]),
    (PC_FILLER, *FRAME_TABLE[FILLER][2:]),
    (PC_SYNC, *FRAME_TABLE[SYNC][2:]),
)
EVENT_PC_BYTE = EVENT_PC_TABLE[0][2]
#: EventPC fields in the big-endian word of its 4 bytes: name -> (shift, width).
EVENT_PC_FIELDS = {"mask": (18, 8), "pc": (0, 14)}
PC_BITS = EVENT_PC_FIELDS["pc"][1]


def _event_pc_tables() -> tuple[bytes, bytes]:
    kind = bytearray([PC_UNKNOWN] * 256)
    length = bytearray([1] * 256)
    for k, mask, value, n in EVENT_PC_TABLE:
        for b in range(256):
            if (b & mask) == value and kind[b] == PC_UNKNOWN:
                kind[b], length[b] = k, n
    return bytes(kind), bytes(length)


#: First byte of a mode-1 frame -> its kind / its length in bytes (numpy forms: PC_KIND_OF_BYTE, ...).
PC_KIND_BYTES, PC_LENGTH_BYTES = _event_pc_tables()

#: The byte tables as read-only numpy arrays (uint8), made on first use.
_ARRAYS = {
    "KIND_OF_BYTE": "KIND_BYTES",
    "LENGTH_OF_BYTE": "LENGTH_BYTES",
    "PC_KIND_OF_BYTE": "PC_KIND_BYTES",
    "PC_LENGTH_OF_BYTE": "PC_LENGTH_BYTES",
}


def __getattr__(name: str):
    if name not in _ARRAYS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import numpy as np

    table = np.frombuffer(globals()[_ARRAYS[name]], np.uint8)  # read-only: a view of bytes
    globals()[name] = table
    return table
