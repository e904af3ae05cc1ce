"""iron configures EVENT_PC (trace mode 1) for core units: option, register, sim frames.

External anchors (no expectation here comes from iron's own encoder or decoder):

* Trace_Control0: mlir-aie ``test/parse-trace/test1/aie.mlir`` gives the core's value
  for start BROADCAST_15 / stop BROADCAST_14 in event-time (0x797A0000, docs/design.md 4);
  mlir-aie ``test/python/test_trace_mode1_decode.py`` (commit feb92118) configures a core
  in mode 1 by writing Trace_Control0 (address 213200 = 0x340D0) with bits [1:0] = 1
  (its ``MODE1_CONFIG_MLIR``, value 5, read back as mode 1), and
  ``lib/Dialect/AIE/Transforms/AIETraceToConfig.cpp`` (commit 08a366ab) emits the Mode
  field for core traces only.
* EventPC frame bytes: the same upstream test's field vectors and its capture-derived
  stream (``test_distilled_hardware_capture``), and one frame derived by hand below.
* The real Phoenix mode-1 capture (FIM43-Redeye/xdna-emu, iron/tests/data/xdna-emu-modes,
  SOURCES.md) parsed by the same decoder as sim's stream.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from iron import build
from iron.errors import IronError, OptionError
from iron.mlir import txn_codec as txn
from iron.operators import ElementwiseAdd
from iron.options import resolve
from iron.runtime.sim import activity
from iron.target import registers
from iron.trace import decode as D
from iron.trace import encode
from iron.trace.export import mlir_aie
from iron.trace.decode import parse_event_pc

MODES = Path(__file__).parent / "data" / "xdna-emu-modes"

N = 1024
EVENTS = {
    "core": ["INSTR_EVENT_0", "INSTR_EVENT_1", "INSTR_VECTOR", "LOCK_STALL", "MEMORY_STALL"],
    "mem": ["DMA_S2MM_0_FINISHED_BD", "DMA_MM2S_0_FINISHED_BD"],
}


# --------------------------------------------------------------------------- option
def test_trace_mode_from_argument_and_environment():
    assert resolve(True, env={}).core_mode == "event-time"
    assert resolve(True, env={"IRON_TRACE_MODE": "event-pc"}).core_mode == "event-pc"
    assert resolve(True, env={"IRON_TRACE_MODE": "EVENT_PC"}).core_mode == "event-pc"
    # the explicit argument wins over the environment
    assert (
        resolve(True, trace_mode="event-time", env={"IRON_TRACE_MODE": "event-pc"}).core_mode == "event-time"
    )
    pc = resolve(True, trace_mode="event-pc", env={})
    assert (pc.mode_for("core"), pc.mode_for("mem"), pc.mode_for("memtile"), pc.mode_for("shim")) == (
        1,
        0,
        0,
        0,
    )
    assert pc.key() != resolve(True, env={}).key()  # the cache key tells the builds apart


@pytest.mark.parametrize(
    "kwargs, env, name",
    [
        ({}, {"IRON_TRACE_MODE": "pc"}, "IRON_TRACE_MODE"),
        ({}, {"IRON_TRACE_MODE": "execution"}, "IRON_TRACE_MODE"),  # no public format: not configured
        ({"trace_mode": 1}, {}, "trace_mode"),
        ({"trace_mode": "event-cycle"}, {}, "trace_mode"),
    ],
)
def test_bad_trace_mode_names_the_variable_and_accepted_values(kwargs, env, name):
    with pytest.raises(OptionError) as err:
        resolve(True, env=env, **kwargs)
    text = str(err.value)
    assert text.startswith(f"{name}=") and "event-time" in text and "event-pc" in text


# --------------------------------------------------------------------------- codegen
@pytest.fixture(scope="module")
def pc_art(tmp_path_factory):
    cache = tmp_path_factory.mktemp("cache")
    kw = dict(trace=True, trace_size=8192, events=EVENTS, target="npu2", cache_dir=cache)
    return build(ElementwiseAdd(N, "i32"), trace_mode="event-pc", **kw), build(ElementwiseAdd(N, "i32"), **kw)


def _writes(art) -> dict[int, int]:
    """Register writes of the traced kernel: absolute address -> value."""
    _header, ops = txn.decode(art.kernels[art.schedule[0].kernel].control)
    return {op.address: op.value for op in ops if isinstance(op, txn.Write)}


def test_codegen_writes_event_pc_into_core_trace_control0_only(pc_art):
    pc, et = pc_art
    units = {u.kind: u for s in pc.manifest.slices for u in s.units}
    assert (units["core"].mode, units["mem"].mode) == (1, 0)  # recorded per unit in the manifest
    col, row = units["core"].column, units["core"].row
    base = col << 25 | row << 20
    # test1's 0x797A0000 (start/stop broadcast events) with the mode field [1:0] = 1 as
    # upstream's mode-1 configuration writes it.
    assert _writes(pc)[base | 0x340D0] == 0x797A0001
    assert _writes(et)[base | 0x340D0] == 0x797A0000
    # The memory module has no Mode field: its Trace_Control0 is the same in both builds.
    assert _writes(pc)[base | 0x140D0] == _writes(et)[base | 0x140D0]
    assert _writes(pc)[base | 0x140D0] & 3 == 0
    assert pc.path != et.path  # a different cache entry


def test_only_core_trace_control0_takes_a_mode():
    assert registers.trace_control0(122, 121, mode=1, kind="core") == 0x797A0001
    with pytest.raises(IronError, match="only core modules"):
        registers.trace_control0(122, 121, mode=1, kind="mem")


# --------------------------------------------------------------------------- frame bytes
def test_event_pc_frame_bytes_derived_by_hand():
    # mask 0b1000_0101 (slots 0, 2, 7), pc 0x2ABC, laid out as 110001mm mmmmmm00 00pppppp pppppppp:
    # b0 = 0xC4 | 0b10; b1 = 0b000101 << 2; b2 = 0x2ABC >> 8; b3 = 0x2ABC & 0xFF.
    assert encode.event_pc_frame(0b1000_0101, 0x2ABC) == bytes([0xC6, 0x14, 0x2A, 0xBC])
    # upstream field vectors (test_event_pc_fields): slot 3 at pc 336; slots 0, 3, 7 at pc 336
    assert encode.event_pc_frame(1 << 3, 336) == bytes([0xC4, 0x20, 0x01, 0x50])
    assert encode.event_pc_frame(1 | 1 << 3 | 1 << 7, 336) == bytes([0xC6, 0x24, 0x01, 0x50])
    # Repeats (frames.py layouts, from mlir-aie): Repeat0 1110rrrr up to 15, then Repeat1
    # 110110rr rrrrrrrr: 15 replays -> 0xEF, 16 -> 0xD8 0x10.
    frame = [0xC4, 0x20, 0x01, 0x50]
    assert encode.encode_event_pc_unit([(8, 336, 16)], stop=False) == bytes(frame + [0xEF])
    assert encode.encode_event_pc_unit([(8, 336, 17)], stop=False) == bytes(frame + [0xD8, 0x10])
    with pytest.raises(encode.EncodeError, match="14-bit"):
        encode.event_pc_frame(1, 1 << 14)


def test_event_pc_stream_equals_upstream_distilled_capture():
    # upstream test_distilled_hardware_capture: Start (timer 321015), slot 7 at pc 816 then
    # 1023 + 720 repeats, slots 3 and 7 at pc 816 then 7 repeats, slot 3 at pc 336.
    upstream = (
        [0xF1, 0, 0, 0, 0, 0x04, 0xE5, 0xF7]
        + [0xC6, 0x00, 0x03, 0x30, 0xDB, 0xFF, 0xDA, 0xD0]
        + [0xC6, 0x20, 0x03, 0x30, 0xE7]
        + [0xC4, 0x20, 0x01, 0x50]
    )
    samples = [(1 << 7, 816, 1 + 1023 + 720), (1 << 3 | 1 << 7, 816, 8), (1 << 3, 336)]
    assert encode.encode_event_pc_unit(samples, start_timer=321015, stop=False) == bytes(upstream)
    # Equal consecutive samples are one frame plus repeats, as the hardware sends them.
    split = [(1 << 7, 816, 1000), (1 << 7, 816, 744)] + samples[1:]
    assert encode.encode_event_pc_unit(split, start_timer=321015, stop=False) == bytes(upstream)


# --------------------------------------------------------------------------- sim round trip
@pytest.fixture(scope="module")
def pc_run(pc_art):
    art = pc_art[0]
    runner = art.load("sim")
    runner(*ElementwiseAdd(N, "i32").example_inputs(0))
    return art, runner


def _core_stream(words: np.ndarray) -> np.ndarray:
    pk = D.packet_table(words)
    rows = [r for key, r in pk.units().items() if key[0] == 0][0]  # packet type 0: the core
    data, _ = D.unit_payload(words, pk.start[rows], pk.words[rows])
    return data


def test_sim_event_pc_build_runs_and_decodes_in_both_modes(pc_run):
    art, runner = pc_run
    (ds,) = runner.trace.slices
    assert "mode_mismatch" not in ds.diagnostics  # the Start frame agrees with the manifest
    core = next(u for u in ds.units if u.kind == "core")
    mem = next(u for u in ds.units if u.kind == "mem")
    assert core.mode == 1 and mem.mode == 0
    assert core.diagnostics["unknown_frames"] == 0 and mem.diagnostics["unknown_frames"] == 0
    assert len(core.ops) == 0 and len(mem.ops) > 0  # event-time intervals for the memory module
    masks, pcs = core.pc_events.expand()
    lo, hi = activity.code_range(ElementwiseAdd(N, "i32").kernel_name())  # the executed kernel's range
    assert len(pcs) and ((pcs >= lo) & (pcs < hi)).all()
    assert (core.pc_events.reps > 0).any()  # held events came as Repeat frames
    # The kernel entry (INSTR_EVENT_0, slot 0) and exit (INSTR_EVENT_1, slot 1) fire at
    # the ends of the code range, once per invocation.
    assert set(pcs[masks & 1 == 1].tolist()) == {lo} and set(pcs[masks & 2 == 2].tolist()) == {hi - 4}
    # mlir-aie format: instants with args.pc for the core (as upstream's parser writes them)
    recs = mlir_aie.mlir_aie_records([ds])
    instants = [r for r in recs if r.get("ph") == "i"]
    assert len(instants) == int((masks[:, None] >> np.arange(8) & 1).sum())
    assert all(set(r["args"]) == {"pc"} for r in instants)


def test_sim_stream_parses_like_the_phoenix_capture(pc_run):
    _art, runner = pc_run
    sim = _core_stream(runner.capture.words)
    real_words = np.fromfile(MODES / "mode1_mixed_r0.bin", "<u4")
    real = _core_stream(real_words)
    for data in (sim, real):
        _ev, commands, diag = parse_event_pc(data)
        assert diag["unknown_frames"] == 0 and diag["truncated_frames"] == 0
        assert commands[0]["type"] == "Start" and data[0] == 0xF1
        kinds = {c["type"] for c in commands}
        assert {"Start", "EventPC", "Repeat"} <= kinds
        # Each unit's stream ends with one 0xDC word, then filler.
        body = data[: len(data) - int(np.argmax(data[::-1] != 0xFE))]
        assert body[-4] == 0xDC
        # The bits the EventPC layout leaves free are 0 in the hardware's frames and in sim's.
        ev = [s for s in _event_pc_offsets(data)]
        assert ev and all(data[s + 1] & 0x03 == 0 and data[s + 2] & 0xC0 == 0 for s in ev)


def _event_pc_offsets(data: np.ndarray) -> list[int]:
    """Offsets of EventPC frames, walking the shared frame lengths (Start 8, Skip4 4, Repeat1 2)."""
    out, i, n = [], 0, len(data)
    while i < n:
        b = int(data[i])
        if b & 0xFC == 0xC4:
            out.append(i)
            i += 4
        elif b & 0xF8 == 0xF0:
            i += 8
        elif b & 0xFC == 0xDC:
            i += 4
        elif b & 0xFC == 0xD8:
            i += 2
        else:
            i += 1
    return out
