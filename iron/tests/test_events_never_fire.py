"""Events the hardware never produces in the trace window, and selections that mislead.

Expected behaviour comes from hardware findings (docs/design.md 9.3, FIM43-Redeye/xdna-emu runs on
Phoenix): on object-FIFO designs the compute tile's memory-module DMA START_TASK/FINISHED_TASK
do not fire inside the trace window (the BD ring is queued at load); LOCK_n_REL events come
from lock-selection blocks, all watching lock 0 after reset; MM2S-direction level events in
shim slots are reported to wedge Phoenix's firmware. Counts are hand-derived:
ElementwiseAdd(4096, tile_size=512) on one core moves 4096 / 512 = 8 input buffers per call.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from iron import build
from iron.cli import main
from iron.operators import ElementwiseAdd
from iron.options import DEFAULT_CORE_EVENTS
from iron.target import events

N, TILE = 4096, 512
BUFFERS = N // TILE
ADD = ElementwiseAdd(N, "i32", columns=1, cores_per_column=1, tile_size=TILE)


def traced_mem(cache, names):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        art = build(ADD, trace=True, trace_size=8192, ntiles=1, events={"core": ["INSTR_EVENT_0"], "mem": names},
                    cache_dir=cache)  # fmt: skip
    run = art.load("sim")
    run(*ADD.example_inputs(0))
    (s,) = run.trace.slices
    assert s.status == "ok"
    return s.unit("mem", 0, 2)


def slot_count(unit, name) -> int:
    _t, masks = unit.runs.expand()
    return int(((masks >> unit.events.index(name)) & 1).sum())


def test_memory_module_task_events_never_fire_but_bd_events_do(tmp_path):
    names = ["DMA_S2MM_0_START_TASK", "DMA_S2MM_0_FINISHED_TASK", "DMA_MM2S_0_START_TASK",
             "DMA_MM2S_0_FINISHED_TASK", "DMA_S2MM_0_FINISHED_BD"]  # fmt: skip
    unit = traced_mem(tmp_path, names)
    assert [slot_count(unit, n) for n in names] == [0, 0, 0, 0, BUFFERS]


def test_lock_release_events_of_every_selection_block_show_lock_0(tmp_path):
    names = ["LOCK_0_REL", "LOCK_1_REL", "LOCK_5_REL", "LOCK_SEL0_ACQ_GE", "LOCK_SEL3_ACQ_GE"]
    unit = traced_mem(tmp_path, names)
    t, masks = unit.runs.expand()
    slot = {n: unit.events.index(n) for n in names}
    fired = {n: t[(masks >> slot[n]) & 1 == 1].tolist() for n in names}
    assert len(fired["LOCK_0_REL"]) == BUFFERS
    assert fired["LOCK_1_REL"] == fired["LOCK_5_REL"] == fired["LOCK_0_REL"]  # the same lock
    assert (
        fired["LOCK_SEL3_ACQ_GE"] == fired["LOCK_SEL0_ACQ_GE"] and len(fired["LOCK_SEL0_ACQ_GE"]) == BUFFERS
    )


@pytest.mark.parametrize(
    "kind, name, says",
    [
        ("mem", "DMA_S2MM_0_START_TASK", r"never finishes; DMA_S2MM_0_FINISHED_BD fires once per buffer"),
        ("mem", "DMA_MM2S_1_FINISHED_TASK", r"DMA_MM2S_1_FINISHED_BD"),
        ("memtile", "DMA_S2MM_SEL1_START_TASK", r"DMA_S2MM_SEL1_FINISHED_BD"),
        ("mem", "LOCK_1_REL", r"lock-selection block 1 \(Locks_Event_Selection_1\), not by lock 1"),
        ("mem", "LOCK_SEL2_ACQ_GE", r"block 2 .*watches lock 0 after reset"),
        ("memtile", "LOCK_SEL7_REL", r"block 7"),
        ("shim", "DMA_MM2S_0_STREAM_BACKPRESSURE", r"MM2S-direction level event in a shim slot.*wedge"),
        ("shim", "DMA_MM2S_1_STALLED_LOCK", r"wedge Phoenix"),
        ("shim", "DMA_MM2S_0_MEMORY_STARVATION", r"wedge Phoenix"),
    ],
)
def test_misleading_selection_warns_naming_the_event(tmp_path, kind, name, says):
    with pytest.warns(UserWarning, match=rf"trace event {name} on {kind} units .*{says}"):
        build(ADD, trace=True, trace_size=4096, ntiles=1, events={"core": ["INSTR_EVENT_0"], kind: [name]},
              cache_dir=tmp_path)  # fmt: skip


@pytest.mark.parametrize(
    "kind, name",
    [("mem", "DMA_S2MM_0_FINISHED_BD"), ("shim", "DMA_MM2S_0_START_TASK"), ("shim", "DMA_S2MM_0_STALLED_LOCK"),
     ("shim", "LOCK_1_REL"), ("core", "LOCK_STALL"), ("memtile", "PORT_RUNNING_0")],
)  # fmt: skip
def test_sound_selections_have_no_caveat(kind, name):
    assert events.caveat(kind, name) is None


def test_defaults_and_docs_suggest_no_misleading_event(capsys):
    assert [n for n in DEFAULT_CORE_EVENTS if events.caveat("core", n)] == []
    root = Path(__file__).resolve().parents[2]
    for path in (
        root / "README.md",
        *sorted((root / "iron" / "options").glob("*.py")),
        *sorted((root / "docs").glob("*.md")),
    ):
        text = path.read_text()
        for kind in events.MODULE_KINDS:
            bad = [n for n in events.event_table(kind) if events.caveat(kind, n) and f"{kind}={n}" in text]
            assert bad == [], f"{path.name} suggests {kind}={bad}"
    assert main(["events", "mem"]) == 0
    listing = capsys.readouterr().out.splitlines()
    row = {x.split()[1]: x for x in listing if not x.startswith("#")}
    assert "# does not fire inside the trace window" in row["DMA_S2MM_0_START_TASK"]
    assert "# is raised by lock-selection block 1" in row["LOCK_1_REL"]
    assert "#" not in row["DMA_S2MM_0_FINISHED_BD"]


def test_default_build_warns_about_nothing(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        art = build(ADD, trace=True, trace_size=4096, ntiles=1, cache_dir=tmp_path)
    assert np.array_equal(art.load("sim")(*ADD.example_inputs(0)), np.sum(ADD.example_inputs(0), axis=0))
