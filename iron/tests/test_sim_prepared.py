"""sim prepares each device once per loaded artifact and records trace events only where a unit runs.

Speed itself is measured in ``benchmarks/bench_sim.py`` (no timed asserts here); these tests pin the
behaviour the speed relies on. Expected counts come from the sequences written below (how many
distinct operators, how many steps) and from the build's trace plan (which modules it traces).
"""

from __future__ import annotations

import numpy as np

import iron
from iron import testing
from iron.fuse.fusion import Sequence
from iron.mlir import ir
from iron.operators import ElementwiseAdd, ElementwiseMul
from iron.runtime.sim import device as sim_device
from iron.runtime.sim import engine as sim_engine
from iron.runtime.sim import fifo as sim_fifo

STEPS = 6


def _sequence() -> Sequence:
    """Two distinct designs, alternating: ``STEPS`` device configurations in one dispatch."""
    add, mul = ElementwiseAdd(256, tile_size=64), ElementwiseMul(256, tile_size=64)
    chain = [(add, "x", "y", "h"), (mul, "h", "y", "z")] * (STEPS // 2)
    return Sequence("alternating", chain, inputs=["x", "y"], outputs=["z"])


def _run(seq, tmp_path, runs: int = 2, **build):
    runner = iron.build(seq, target="npu2", cache_dir=tmp_path, **build).load("sim")
    inputs = testing.example_inputs(seq)
    outs = [runner(**inputs) for _ in range(runs)]
    return runner, inputs, outs


def test_a_sequence_reads_each_device_once_however_often_it_is_configured(monkeypatch, tmp_path):
    read = []
    real = sim_device.program
    monkeypatch.setattr(sim_device, "program", lambda mlir, where: read.append(where) or real(mlir, where))
    seq = _sequence()
    runner, inputs, outs = _run(seq, tmp_path)
    dev = runner.backend.device
    reconfigured = [line for line in dev.log if line.endswith(": reconfigure")]
    assert len(reconfigured) == 2 * STEPS  # every step loads the other device, in both runs
    assert len(read) == 2 == len(set(read))  # ... yet each of the two is read once
    (want,) = testing.reference(seq, inputs)
    for out in outs:
        assert testing.matches_reference(out, want, testing.reference_ulps(seq))


def _drained(monkeypatch) -> list[dict]:
    """Every batch of events the engines hand to the trace units."""
    batches = []
    real = sim_engine.Engine.drain_events

    def spy(self):
        ev = real(self)
        batches.append(ev)
        return ev

    monkeypatch.setattr(sim_engine.Engine, "drain_events", spy)
    return batches


def test_an_untraced_run_records_no_trace_events(monkeypatch, tmp_path):
    batches = _drained(monkeypatch)
    seq = _sequence()
    _runner, inputs, outs = _run(seq, tmp_path, runs=1, trace=False)
    assert batches and not any(batches)  # the engines ran, and recorded nothing
    (want,) = testing.reference(seq, inputs)
    assert testing.matches_reference(outs[0], want, testing.reference_ulps(seq))


def test_a_traced_run_records_events_of_the_traced_modules_only(monkeypatch, tmp_path):
    batches = _drained(monkeypatch)
    seq = _sequence()
    runner, _inputs, _outs = _run(seq, tmp_path, runs=1, trace=True, trace_size=16384, ntiles=1)
    traced = {(u.column, u.row, u.kind) for stop in runner.backend.last_flushed for u in stop}
    recorded = {key for ev in batches for key in ev}
    assert recorded and recorded <= traced
    # the plan traces one core tile per call site (ntiles=1): its core and memory modules
    assert {kind for _c, _r, kind in recorded} <= {"core", "mem"}
    assert len({(c, r) for c, r, _k in recorded}) == 1


def test_a_device_configured_again_starts_from_zeroed_object_buffers():
    """An engine built again for the same device reuses the buffers of the one it replaces
    (``Engine(pool=)``): what the first configuration left in them must not leak into the next,
    as it could not with new buffers (np.zeros)."""
    op = ir.ObjectFifo("of", "tile_0_2", ("tile_0_1",), depth=2, type="memref<4x8xbf16>")
    pool: dict = {}
    first = sim_fifo.Fifo(op, ir.MemRefType((4, 8), "bf16"), pool=pool)
    reader = sim_fifo.Reader("r")
    reader.bufs, reader.ebufs, reader.kbufs = first.buffers(("of", "reader", 0))
    for views in (first.kbufs, reader.kbufs):
        for v in views:
            v[...] = 0x3F80  # 1.0 in bf16
    again = sim_fifo.Fifo(op, ir.MemRefType((4, 8), "bf16"), pool=pool)
    bufs, _ebufs, kbufs = again.buffers(("of", "reader", 0))
    assert [b.shape for b in kbufs] == [(4, 8)] * 2 and kbufs[0].dtype == np.uint16
    for b in [*again.bufs, *bufs]:
        assert b.shape == (64,) and not b.any()
