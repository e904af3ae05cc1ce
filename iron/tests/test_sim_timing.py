"""sim's kernel durations beside real NPU captures (issue 35, item 5).

The expected values are the hardware's: each capture file (iron/tests/data, sources in each
folder's SOURCES.md) decoded by iron's decoder with its own design's trace configuration.
sim runs the same design with the same configuration (:mod:`iron.sim_timing`).
"""

from __future__ import annotations

import statistics

import pytest

from iron import sim_timing
from iron.runtime.sim import costs
from iron.target import kernel_cycles

#: Done when (issue 35): sim's kernel durations within 25% of the hardware captures.
TOLERANCE = 0.25

IDS = [cd.name for cd in sim_timing.CAPTURED]


def _hw(cd) -> dict:
    unit, *_ = [u for u in sim_timing.decode(sim_timing.hardware_words(cd), cd.design_text())]
    return sim_timing.figures(unit)


def _within(sim: list, hw: list) -> bool:
    want = statistics.median(hw)
    return all(abs(d - want) <= TOLERANCE * want for d in sim)


@pytest.fixture(scope="module")
def compared():
    return {cd.name: sim_timing.compare(cd) for cd in sim_timing.CAPTURED}


@pytest.mark.parametrize("cd", sim_timing.CAPTURED, ids=IDS)
def test_kernel_durations_within_a_quarter_of_the_capture(cd, compared):
    got = compared[cd.name]
    assert got["hw"]["kernel"] == _hw(cd)["kernel"]  # the decode of the file itself
    assert len(got["sim"]["kernel"]) >= 3
    assert _within(got["sim"]["kernel"], got["hw"]["kernel"]), (got["sim"]["kernel"], got["hw"]["kernel"])


def test_captured_durations_are_the_hardware_numbers():
    # mlir-aie test1/test2 and xdna-emu's vector_scalar: every call of the kernel, read off
    # the captures (INSTR_EVENT_0 -> INSTR_EVENT_1) by iron's decoder.
    got = {cd.name: _hw(cd)["kernel"] for cd in sim_timing.CAPTURED}
    assert got == {
        "mlir-aie test1": [72] * 4,
        "mlir-aie test2": [109] * 4,
        "xdna-emu vector_scalar": [10245] * 4,
    }


@pytest.mark.parametrize("entry", kernel_cycles.MEASURED, ids=lambda m: f"{m.symbol}:{m.capture}")
def test_table_holds_what_its_capture_decodes_to(entry):
    (cd,) = [cd for cd in sim_timing.CAPTURED if f" {entry.capture} " in cd.source]
    hw = _hw(cd)
    assert (entry.cycles, entry.calls) == (statistics.median(hw["kernel"]), len(hw["kernel"]))
    assert entry.busy == statistics.median(hw["busy"])
    assert entry.wake == (statistics.median(hw["wake"]) if hw["wake"] else None)
    assert entry.symbol in cd.design_text()


def test_call_overhead_of_the_scalar_loop_within_a_quarter_of_the_capture(compared):
    # xdna-emu's vector_scalar: the kernel outlasts every transfer, so each gap between calls
    # is the core's own code (releases, acquires, loop, call): 67 cycles on the NPU.
    got = compared["xdna-emu vector_scalar"]
    assert got["hw"]["busy"] == got["hw"]["gap"] == [67, 67, 67]
    assert _within(got["sim"]["busy"], got["hw"]["busy"]), got["sim"]["busy"]


def test_without_the_calibration_sim_misses_the_captures(monkeypatch):
    # The cost model broken on purpose: no measured kernel, sim's nominal cost for all.
    monkeypatch.setattr(kernel_cycles, "MEASURED", ())
    for cd in sim_timing.CAPTURED:
        got = sim_timing.compare(cd)
        assert not _within(got["sim"]["kernel"], got["hw"]["kernel"]), cd.name
        if cd.name == "xdna-emu vector_scalar":
            assert not _within(got["sim"]["busy"], got["hw"]["busy"])


def test_call_cost_scales_with_operand_bytes_and_keys_by_arch():
    import numpy as np

    rate = costs.cycles_per_byte("scale_int32", "aie2")
    assert rate == pytest.approx(10245 / 8192)
    half = [np.zeros(512, np.int32), np.zeros(512, np.int32)]
    assert costs.call_cycles("scale_int32", half + [7], "aie2") == round(10245 / 2)
    assert costs.call_cycles("scale_int32", half, "aie2p") is None
    assert costs.call_cycles("no_such_kernel", half, "aie2") is None
    assert costs.overhead("scale_int32", "aie2") == (0, 67)  # no LOCK_STALL traced: all after
    assert costs.overhead("vector_scalar_mul_vector", "aie2") == (10, 36)  # (17.5 + 2) / 2, (48.5 + 23) / 2
    assert costs.call_cost("no_such_kernel", half, "aie2") is None
    both = (72 / 4100 * 109 / 4100) ** 0.5  # geometric mean of test1's and test2's rates
    assert costs.cycles_per_byte("vector_scalar_mul_vector", "aie2") == pytest.approx(both)


def test_a_design_without_a_trace_drain_is_refused():
    text = (sim_timing.DATA / "mlir-aie-test1" / "aie.mlir").read_text()
    no_drain = text.replace("bd_id = 15 : i32", "bd_id = 3 : i32")
    with pytest.raises(sim_timing.CapturedDesignError, match="bd_id = 15"):
        sim_timing.sim_design(no_drain)
    design, nbytes = sim_timing.sim_design(text)
    assert nbytes == 8192 * 4 and "%iron_trace: memref<8192xi32>" in design
    assert "arg_idx = 3 : i32" in design and "arg_idx = 4" not in design
