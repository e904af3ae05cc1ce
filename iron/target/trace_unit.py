"""Trace units and the resources iron's trace uses: the one table of both.

Hardware facts of a trace unit (AIE2; mlir-aie uses the same for AIE2P): it has
``SLOTS`` event slots (Trace_Event0/1 hold 4 event ids each: mlir-aie
``lib/Dialect/AIE/Util/aie_registers_aie2.json``, as :mod:`iron.target.registers`),
sends packets with a 5-bit packet id (Trace_Control1 [4:0]) out of its tile's
``Trace`` stream-switch port (:data:`TRACE_PORT`), and starts/stops on events such as
a broadcast.

iron's choices, the ones mlir-aie's trace flow makes (``-aie-insert-trace-flows``,
``lib/Dialect/AIE/Transforms/AIEInsertTraceFlows.cpp``, whose lit tests drain through
BD 15 and start/stop on broadcasts 15/14; docs/design.md section 4): the
packets drain through shim S2MM channel :data:`TRACE_CHANNEL` with shim BD
:data:`TRACE_BD` in 64-byte bursts; units start on broadcast :data:`START_BROADCAST`
and stop on :data:`STOP_BROADCAST`, which the drain shim raises from its user events
:data:`START_USER_EVENT` / :data:`STOP_USER_EVENT`; packet ids 1..31 go to trace units.
Operators keep their data DMAs off those resources.
"""

from __future__ import annotations

#: Event slots of one trace unit.
SLOTS = 8
#: Packet id field of Trace_Control1: 5 bits.
PACKET_ID_BITS = 5
#: Packet ids trace units get, unique per device (docs/design.md section 4: 1..31).
PACKET_IDS = range(1, 1 << PACKET_ID_BITS)

#: Trace port of each unit kind on its tile's stream switch (``Trace : 1`` is the core
#: tile's memory module, mlir-aie ``aie.packet_source<%tile, Trace : 1>``).
TRACE_PORT = {"core": 0, "mem": 1, "memtile": 0, "shim": 0}

#: Shim BD the trace drain uses (BDs 0..14 are left to data DMAs).
TRACE_BD = 15
#: Shim S2MM channel the trace packets drain through.
TRACE_CHANNEL = 1
#: Burst length of the drain BD, in bytes.
TRACE_BURST = 64

#: Broadcast channels that start and stop every traced unit.
START_BROADCAST = 15
STOP_BROADCAST = 14
#: Shim user events (USER_EVENT_<n>) the drain shim generates to raise them.
START_USER_EVENT = 1
STOP_USER_EVENT = 0
