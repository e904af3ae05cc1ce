"""Cascade streams between neighbouring cores (``aie.cascade_flow``).

A cascade is a direct core-to-core stream: ``aie.cascade_flow(%src, %dst)`` connects
the source core's cascade output to the destination core's cascade input (mlir-aie
``AIE.td``, CascadeFlowOp). Cores reach it with ``aie.put_cascade`` /
``aie.get_cascade`` in their bodies, or from kernel code (``put_mcd`` / ``get_scd_*``
intrinsics), which sim runs through a kernel model that declares how many bytes it
reads (:class:`iron.runtime.sim.kernel_models.CascadeModel`).

sim models a flow as an ordered byte stream: a put appends the value's bytes (a
``v32int32`` is 128 bytes, two 512-bit hardware beats), a get takes as many bytes as its
type holds, in order. A get waits (the core yields, and shows CASCADE_STALL for the
wait) until a put has delivered enough bytes. Puts never stall here: the hardware
holds only a few beats and stalls the producer until the consumer reads (a design
whose consumer never reads hangs on hardware and finishes here). A put from a core no flow leaves, or a get on a core no
flow enters, is a :class:`~iron.runtime.sim.errors.SimError` (on hardware the data
goes nowhere, or the get waits forever).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from iron.runtime.sim.errors import SimError

Tile = tuple[int, int]  # (column, row)


@dataclass
class Stream:
    """One ``aie.cascade_flow``: bytes put by ``src`` and not yet taken by ``dst``."""

    src: Tile
    dst: Tile
    data: bytearray = field(default_factory=bytearray)
    #: (end offset in ``data`` counted from the stream start, cycle of the put) per put
    puts: list = field(default_factory=list)
    taken: int = 0  # bytes taken since the stream started

    def put(self, value: np.ndarray, t: int) -> None:
        self.data += np.ascontiguousarray(value).view(np.uint8).tobytes()
        self.puts.append((self.taken + len(self.data), t))

    def available(self, nbytes: int) -> bool:
        return len(self.data) >= nbytes

    def take(self, nbytes: int) -> tuple[np.ndarray, int]:
        """The next ``nbytes`` (uint8) and the cycle at which the last of them was put."""
        out = np.frombuffer(bytes(self.data[:nbytes]), dtype=np.uint8).copy()
        del self.data[:nbytes]
        self.taken += nbytes
        ready = next(t for end, t in self.puts if end >= self.taken)
        self.puts = [(end, t) for end, t in self.puts if end > self.taken]
        return out, ready


class Cascades:
    """The cascade flows of one loaded device, by source and by destination core."""

    def __init__(self, flows: list[tuple[Tile, Tile]]):
        self.out_of: dict[Tile, Stream] = {}
        self.into: dict[Tile, Stream] = {}
        for src, dst in flows:
            for tile, table, what in ((src, self.out_of, "leave"), (dst, self.into, "enter")):
                if tile in table:
                    raise SimError(
                        f"two aie.cascade_flow ops {what} core {tile}: a core has one cascade port each way"
                    )
            stream = Stream(src, dst)
            self.out_of[src] = stream
            self.into[dst] = stream

    def output(self, tile: Tile) -> Stream:
        stream = self.out_of.get(tile)
        if stream is None:
            raise SimError(f"core {tile} puts on its cascade, but no aie.cascade_flow leaves it")
        return stream

    def input(self, tile: Tile) -> Stream:
        stream = self.into.get(tile)
        if stream is None:
            raise SimError(f"core {tile} gets from its cascade, but no aie.cascade_flow enters it")
        return stream


def get(engine, proc, nbytes: int):
    """Generator: wait for ``nbytes`` on the core's incoming cascade, then return them (uint8)."""
    stream = engine.cascades.input((proc.col, proc.row))
    t0 = proc.t
    while not stream.available(nbytes):
        proc.wait = f"cascade get of {nbytes} bytes from core {stream.src}"
        yield False
    data, ready = stream.take(nbytes)
    if ready > proc.t:
        engine._ev(proc.col, proc.row, "core", t0, ready - t0, "CASCADE_STALL")
        proc.t = ready
    engine._ev(proc.col, proc.row, "core", proc.t, 1, "INSTR_CASCADE_GET")
    proc.t += 1
    return data


def put(engine, proc, value: np.ndarray) -> None:
    engine.cascades.output((proc.col, proc.row)).put(value, proc.t)
    engine._ev(proc.col, proc.row, "core", proc.t, 1, "INSTR_CASCADE_PUT")
    proc.t += 1


@dataclass
class Port:
    """What a cascade kernel model is handed: the bytes it reads (fetched before the
    call, in order) and a ``put`` for what it writes."""

    received: np.ndarray
    sent: list = field(default_factory=list)

    def get(self, dtype, count: int) -> np.ndarray:
        n = np.dtype(dtype).itemsize * count
        if self.received.size < n:
            raise SimError(f"a cascade kernel model reads {n} bytes but declared {self.received.size}")
        out, self.received = self.received[:n].view(dtype).copy(), self.received[n:]
        return out

    def put(self, value: np.ndarray) -> None:
        self.sent.append(np.asarray(value))


def run_kernel(engine, proc, model, args: list):
    """Generator: a cascade kernel call: its declared reads first (waiting as a get does),
    then the model, then its puts in order."""
    data = (yield from get(engine, proc, model.reads)) if model.reads else np.zeros(0, np.uint8)
    port = Port(data)
    model(*args, cascade=port)
    for value in port.sent:
        put(engine, proc, value)
