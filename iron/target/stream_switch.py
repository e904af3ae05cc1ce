"""AIE2 stream-switch port numbers, the one table of them.

A PORT_*_n event watches the stream-switch port that slot n of the tile's
Stream_Switch_Event_Port_Selection_0/1 names: a port index [4:0] and a master bit
[5] (:func:`iron.target.registers.port_selection`). The index of a bundle's channel
counts from the bundle's first port, and masters and slaves are numbered apart.

Source: mlir-aie ``lib/Dialect/AIE/IR/AIETargetModel.cpp`` (commit
3f319b8f184f1eae0543cde58595f3c4416d243a), namespace ``aie2_port_id``
(core / mem / shim offset and size constants) as
``AIE2TargetModel::getStreamSwitchPortIndex`` uses them; that is what
``-aie-trace-reg-pack-writes`` resolves ``aie.trace.port<n> port = B channel = c
direction = D`` to (``resolvePortValue``), with ``direction = S2MM`` the master
port and ``MM2S`` the slave (``AIETraceToConfig.cpp``). The shim rows are the shim
NoC tile's. mlir-aie uses the same model for AIE2P.
"""

from __future__ import annotations

from iron.errors import IronError

#: Ports one tile's event port selection names (slots 0..7 of Stream_Switch_Event_Port_
#: Selection_0/1, watched by its PORT_*_0..7 events).
EVENT_PORTS = 8

#: tile kind -> bundle -> ((master first index, master count), (slave first index, slave count)).
#: A count of 0: the bundle has no port on that side. "mem" units (a core tile's memory
#: module) have no port selection of their own and are not listed.
PORTS: dict[str, dict[str, tuple[tuple[int, int], tuple[int, int]]]] = {
    "core": {
        "Core": ((0, 1), (0, 1)),
        "DMA": ((1, 2), (1, 2)),
        "Ctrl": ((3, 1), (3, 1)),
        "FIFO": ((4, 1), (4, 1)),
        "South": ((5, 4), (5, 6)),
        "West": ((9, 4), (11, 4)),
        "North": ((13, 6), (15, 4)),
        "East": ((19, 4), (19, 4)),
        "Trace": ((0, 0), (23, 2)),
    },
    "memtile": {
        "DMA": ((0, 6), (0, 6)),
        "Ctrl": ((6, 1), (6, 1)),
        "South": ((7, 4), (7, 6)),
        "North": ((11, 6), (13, 4)),
        "Trace": ((0, 0), (17, 1)),
    },
    "shim": {
        "Ctrl": ((0, 1), (0, 1)),
        "FIFO": ((1, 1), (1, 1)),
        "South": ((2, 6), (2, 8)),
        "West": ((8, 4), (10, 4)),
        "North": ((12, 6), (14, 4)),
        "East": ((18, 4), (18, 4)),
        "Trace": ((0, 0), (22, 2)),
    },
}

#: Spellings read for a bundle (upstream's WireBundle names; ``TileControl`` is ``Ctrl``).
BUNDLE_ALIASES = {"tilecontrol": "Ctrl", **{b.lower(): b for kind in PORTS.values() for b in kind}}

#: Ports PORT_*_n events watch when the build names none (slot n -> (bundle, channel, master)):
#: a core watches its DMA 0 S2MM (master) then MM2S (slave), then DMA 1, then the
#: control and FIFO ports, which gives mlir-aie test1's 0x121 for slots 0 and 1; a
#: memtile watches DMA n // 2. A shim has no default: its unit writes no selection.
DEFAULT_PORTS: dict[str, tuple[tuple[str, int, bool], ...]] = {
    "core": (
        ("DMA", 0, True),
        ("DMA", 0, False),
        ("DMA", 1, True),
        ("DMA", 1, False),
        ("Ctrl", 0, True),
        ("Ctrl", 0, False),
        ("FIFO", 0, True),
        ("FIFO", 0, False),
    ),
    "memtile": tuple((("DMA", n // 2, n % 2 == 0)) for n in range(EVENT_PORTS)),
}


def bundle_name(text: str) -> str | None:
    """Canonical bundle name of ``text`` (any case), or None."""
    return BUNDLE_ALIASES.get(text.strip().lower())


def port_index(kind: str, bundle: str, channel: int, master: bool) -> int:
    """Stream-switch port index of ``bundle`` channel ``channel`` on a ``kind`` tile;
    raises :class:`IronError` naming what the tile has when there is no such port."""
    if kind not in PORTS:
        raise IronError(f"{kind} units have no stream-switch port selection; accepted: {', '.join(PORTS)}")
    side = "master" if master else "slave"
    first, count = PORTS[kind].get(bundle, ((0, 0), (0, 0)))[0 if master else 1]
    if not 0 <= channel < count:
        have = ", ".join(
            f"{b} 0..{sides[0 if master else 1][1] - 1}"
            for b, sides in PORTS[kind].items()
            if sides[0 if master else 1][1]
        )
        raise IronError(f"a {kind} tile has no {side} port {bundle} {channel}; its {side} ports: {have}")
    return first + channel
