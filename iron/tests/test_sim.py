"""sim device model: register file, DDR patches, task queues, PDI loads, trace units.

Most tests take the real control code iron emits for a small traced operator,
edit a few ops, and check what sim does with it. Trace settings are explicit
arguments, never the environment.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from iron import build
from iron.fuse.fusion import RESET_DEVICE
from iron.mlir import txn_codec as txn
from iron.operators import ElementwiseAdd, from_payload
from iron.runtime.sim import HostMemory, SimDevice, SimError
from iron.runtime.sim import activity
from iron.target import registers, shim_dma
from iron.target import frames
from iron.trace.decode import decode_words

N = 1024
TRACE = 4096


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="module")
def art(cache):
    return build(
        ElementwiseAdd(N, "i32"), trace=True, trace_size=TRACE, ntiles=1, target="npu2", cache_dir=cache
    )


def ops_of(art, *, with_reset=False):
    """The kernel's ops; without the leading reset-device load unless asked for (most tests
    here edit the design's own program and rerun it on one device on purpose)."""
    header, ops = txn.decode(art.kernels[art.schedule[0].kernel].control)
    ops = list(ops)
    if not with_reset and ops and ops[0] == txn.LoadPdi(art.pdi_ids[RESET_DEVICE]):
        ops = ops[1:]
    return header, ops


def run_ops(art, ops, header=None, *, device=None, memory=None, bind=None):
    """Run ``ops`` as the artifact's kernel; returns (device, memory)."""
    header = header or ops_of(art)[0]
    dev = device or SimDevice(art.target, from_payload)
    mem = memory or HostMemory()
    if memory is None:
        for name, t in art.buffers.items():
            mem.allocate(name, t.nbytes)
        a, b = ElementwiseAdd(N, "i32").example_inputs(0)
        mem["a"].data[:] = a.view(np.uint8)
        mem["b"].data[:] = b.view(np.uint8)
    k = art.kernels[art.schedule[0].kernel]
    args = bind if bind is not None else [mem[x.buffer] for x in k.args]
    dev.run(txn.encode(header, ops), args, art.pdis, k.name)
    return dev, mem


def find(ops, kind, pred=lambda op: True):
    return [i for i, op in enumerate(ops) if isinstance(op, kind) and pred(op)]


def trace_patch(ops):
    (i,) = find(ops, txn.DdrPatch, lambda op: op.addr & 0xFFFFF == shim_dma.bd_address(15) + 4)
    return i


def decoded(art, mem):
    sl = art.manifest.slices[0]
    return decode_words(
        mem["trace"].data.view("<u4"), sl.units, column_offset=art.manifest.column_offset, slice=sl
    )


def test_untouched_program_computes_and_traces(art):
    _dev, mem = run_ops(art, ops_of(art)[1])
    a, b = mem["a"].data.view(np.int32), mem["b"].data.view(np.int32)
    assert np.array_equal(mem["c"].data.view(np.int32), a + b)
    ds = decoded(art, mem)
    assert ds.status == "ok" and [u.label for u in ds.units] == ["core(0,2)"]
    # Every kernel invocation is bracketed by INSTR_EVENT_0 (slot 0) and INSTR_EVENT_1 (slot 1).
    times, masks = ds.units[0].runs.expand()
    inv = 1  # by hand: 1024 elements in one 1024-element tile on one core
    assert int(((masks & 1) != 0).sum()) == inv and int(((masks & 2) != 0).sum()) == inv


def test_header_carries_absolute_column_and_trace_control1_ids(art):
    _dev, mem = run_ops(art, ops_of(art)[1])
    unit = art.manifest.slices[0].units[0]
    expect = frames.make_header(
        unit.column + art.manifest.column_offset, unit.row, unit.packet_type, unit.packet_id
    )
    assert int(mem["trace"].data.view("<u4")[0]) == expect


def test_ddr_patch_unbound_argument_names_op_and_argument(art):
    _h, ops = ops_of(art)
    i = trace_patch(ops)
    ops[i] = dataclasses.replace(ops[i], arg_idx=7)
    with pytest.raises(SimError, match=rf"op #{i} DdrPatch.*argument 7, which is not bound"):
        run_ops(art, ops)


def test_bd_reaching_outside_its_buffer_is_an_error(art):
    _h, ops = ops_of(art)
    i = trace_patch(ops)
    ops[i] = dataclasses.replace(ops[i], arg_plus=64)  # 4096-byte BD at byte 64 of a 4096-byte buffer
    with pytest.raises(
        SimError,
        match=r"BD 15 .*argument 3 \('trace', 4096 bytes; address patched by op #\d+ DdrPatch.*reach outside",
    ):
        run_ops(art, ops)


def test_patch_writes_64_bit_address_into_bd_words_1_and_2(art):
    dev, mem = run_ops(art, ops_of(art)[1])
    regs = dev.regs[0, 0]
    base = shim_dma.bd_address(15)
    address = (regs[base + 8] & 0xFFFF) << 32 | regs[base + 4]
    assert address == mem["trace"].address and address >> 32  # fake host addresses sit above 4 GiB


def test_unconfigured_unit_records_nothing(art):
    _h, ops = ops_of(art)
    tc0 = registers.TRACE_REGISTERS["core"].trace_control0
    (i,) = find(ops, txn.Write, lambda op: op.address == registers.tile_address(0, 2, tc0))
    del ops[i]
    _dev, mem = run_ops(art, ops)
    assert not mem["trace"].data.any()
    assert np.array_equal(
        mem["c"].data.view(np.int32), mem["a"].data.view(np.int32) + mem["b"].data.view(np.int32)
    )


def test_only_configured_slots_are_kept(art):
    _h, ops = ops_of(art)
    ev0 = registers.TRACE_REGISTERS["core"].trace_event0
    addr0 = registers.tile_address(0, 2, ev0)
    (i,) = find(ops, txn.Write, lambda op: op.address == addr0)
    ops[i] = txn.Write(addr0, 33)  # slot 0 = INSTR_EVENT_0 only; slots 1-3 NONE
    (j,) = find(ops, txn.Write, lambda op: op.address == addr0 + 4)
    ops[j] = txn.Write(addr0 + 4, 0)
    _dev, mem = run_ops(art, ops)
    ds = decoded(art, mem)
    _t, masks = ds.units[0].runs.expand()
    assert set(masks.tolist()) == {1}
    assert len(masks) == 1  # one kernel call (1024 elements, one 1024-element tile)


def test_trace_beyond_bd_length_is_dropped(art):
    """A 4-word drain BD takes the first 16 bytes; the rest is dropped (no task behind it)."""
    _h, ops = ops_of(art)
    (i,) = find(ops, txn.BlockWrite, lambda op: op.address & 0xFFFFF == shim_dma.bd_address(15))
    ops[i] = dataclasses.replace(ops[i], data=(4, *ops[i].data[1:]))
    dev, mem = run_ops(art, ops)
    _, full = run_ops(art, ops_of(art)[1])
    words, all_words = mem["trace"].data.view("<u4"), full["trace"].data.view("<u4")
    used = int(np.flatnonzero(all_words)[-1]) + 1
    assert used > 4 and np.array_equal(words[:4], all_words[:4]) and not words[4:].any()
    ch = dev.channels[0, "s2mm", 1]
    assert ch.dropped == 4 * (-(-used // 8) * 8 - 4) and ch.active is None  # the task completed


def test_sync_on_trace_channel_never_completes(art):
    _h, ops = ops_of(art)
    ops.insert(len(ops) - 1, txn.Sync(0, 0, 0, 1, 1, 1))  # wait on S2MM 1 before the last op
    with pytest.raises(SimError, match=r"S2MM 1 forever: its active task BD 15 \(\d+/4096 bytes"):
        run_ops(art, ops)


def test_sync_without_input_task_is_an_error(art):
    _h, ops = ops_of(art)
    q = shim_dma.task_queue("mm2s", 1)
    (i,) = find(ops, txn.Write, lambda op: op.address == registers.tile_address(0, 0, q))
    del ops[i]
    with pytest.raises(SimError, match=r"forever.*blocked:.*shim \(0,0\) MM2S 1 @b_c0: no task queued"):
        run_ops(art, ops)


def test_task_snapshot_ignores_later_bd_writes(art):
    """A task is the BD as it was at push time."""
    _h, ops = ops_of(art)
    q = registers.tile_address(0, 0, shim_dma.task_queue("s2mm", 1))
    (i,) = find(ops, txn.Write, lambda op: op.address == q)
    bd15 = registers.tile_address(0, 0, shim_dma.bd_address(15))
    ops.insert(i + 1, txn.Write(bd15, 1))  # shrink the BD after the push
    _dev, mem = run_ops(art, ops)
    assert decoded(art, mem).status == "ok"


def test_pdi_reload_is_skipped_and_other_pdi_resets_channels(art):
    header, ops = ops_of(art)
    dev, mem = run_ops(art, ops)
    active = dev.channels[0, "s2mm", 1].active
    assert active is not None and 0 < active.moved < active.capacity  # trace task stays active
    # Same PDI again: skipped, the channel keeps its in-flight task; a new push waits behind it.
    run_ops(art, ops, header, device=dev, memory=mem)
    assert len(dev.channels[0, "s2mm", 1].queue) == 2
    assert "skipped (already loaded)" in dev.log[-1]
    # Another PDI: reconfigure drops queued and in-flight tasks and wipes registers.
    pid = ops[0].pdi_id
    other = {**art.pdis, pid + 1: dataclasses.replace(art.pdis[pid], symbol="other")}
    dev.run(txn.encode(header, [txn.LoadPdi(pid + 1)]), [], other, "reset")
    assert not dev.channels and not dev.units and not dev.regs


def test_unknown_pdi_is_an_error(art):
    header, _ = ops_of(art)
    with pytest.raises(SimError, match="no PDI with id 99"):
        run_ops(art, [txn.LoadPdi(99)], header)


def test_runs_keep_only_the_slotted_events():
    """A unit records the events in its 8 slots; pulses come out as one-cycle runs."""
    ivs = [
        (5, 1, "INSTR_EVENT_0"),
        (6, 40, "INSTR_VECTOR"),
        (50, 1, "INSTR_EVENT_1"),
        (60, 1, "INSTR_EVENT_0"),
    ]
    recs = activity.runs(ivs, "core", [33, 34, 0, 0, 0, 0, 0, 0], origin=0)
    assert recs == [(5, 1, 1, 1), (50, 2, 1, 1), (60, 1, 1, 1)]


def test_overlapping_levels_become_runs_of_one_mask():
    ivs = [(10, 10, "INSTR_VECTOR"), (15, 10, "MEMORY_STALL"), (30, 1, "INSTR_EVENT_0")]
    slots = [37, 23, 33, 0, 0, 0, 0, 0]
    assert activity.runs(ivs, "core", slots, origin=0) == [
        (10, 1, 5, 1),
        (15, 3, 5, 1),
        (20, 2, 5, 1),
        (30, 4, 1, 1),
    ]
    assert activity.runs(ivs, "core", slots, origin=12) == [
        (1, 1, 2, 1),  # clipped at the decoder's first cycle
        (3, 3, 5, 1),
        (8, 2, 5, 1),
        (18, 4, 1, 1),
    ]


def test_channel_spills_into_the_next_task_then_drops():
    from iron.runtime.sim.dma import Channel, Task

    mem = HostMemory()
    a, b = mem.allocate("a", 16), mem.allocate("b", 16)
    ch = Channel((0, "s2mm", 1))
    ch.push(Task(15, a, 8, 8, 0, True, True, "t1"))
    ch.push(Task(14, b, 0, 8, 0, False, True, "t2"))
    assert ch.write(bytes(range(1, 21))) == 16
    assert a.data.tolist() == [0] * 8 + list(range(1, 9))
    assert b.data.tolist() == list(range(9, 17)) + [0] * 8
    assert ch.dropped == 4 and ch.tokens == 1 and ch.active is None


def test_host_loaded_pdi_for_xclbin_kernels(art):
    """xclbin flow: the control code has no PDI load; the host loads the kernel's PDI first."""
    header, ops = ops_of(art)
    assert isinstance(ops[0], txn.LoadPdi)
    with pytest.raises(SimError, match="forever"):
        run_ops(art, ops[1:], header)  # nothing configured: the output task never completes
    dev = SimDevice(art.target, from_payload)
    mem = HostMemory()
    for name, t in art.buffers.items():
        mem.allocate(name, t.nbytes)
    a, b = ElementwiseAdd(N, "i32").example_inputs(0)
    mem["a"].data[:] = a.view(np.uint8)
    mem["b"].data[:] = b.view(np.uint8)
    args = [mem[x.buffer] for x in art.kernels[art.schedule[0].kernel].args]
    for _ in range(2):
        dev.run(txn.encode(header, ops[1:]), args, art.pdis, "k", pdi=ops[0].pdi_id)
    assert np.array_equal(mem["c"].data.view(np.int32), a + b)
    assert sum("skipped (already loaded)" in line for line in dev.log) == 1


def _chain_input_a(ops, second_offset: int):
    """Input ``a`` (BD 1 on MM2S 0, N int32) moved by a chain instead: BD 1 takes the first half
    and names BD 14 (use_next_bd), BD 14 the second half at ``second_offset`` bytes into ``a``."""
    half = N * 4 // 2
    (w,) = find(ops, txn.BlockWrite, lambda op: op.address & 0xFFFFF == shim_dma.bd_address(1))
    (p,) = find(ops, txn.DdrPatch, lambda op: op.addr & 0xFFFFF == shim_dma.bd_address_low(1))
    col_base = ops[w].address - shim_dma.bd_address(1)
    first = shim_dma.pack_bd(arch="npu2", buffer_length=half // 4, use_next_bd=1, next_bd=14, valid_bd=1)
    second = shim_dma.pack_bd(arch="npu2", buffer_length=half // 4, valid_bd=1)
    ops[w] = dataclasses.replace(ops[w], data=first)
    patch = ops[p]
    extra = [
        txn.BlockWrite(col_base + shim_dma.bd_address(14), second),
        dataclasses.replace(
            patch, addr=col_base + shim_dma.bd_address_low(14), arg_plus=patch.arg_plus + second_offset
        ),
    ]
    return ops[: p + 1] + extra + ops[p + 1 :]


def test_chained_bds_move_one_task_bd_after_bd(art):
    _h, ops = ops_of(art)
    _dev, mem = run_ops(art, _chain_input_a(ops, N * 4 // 2))
    a, b = mem["a"].data.view(np.int32), mem["b"].data.view(np.int32)
    assert np.array_equal(mem["c"].data.view(np.int32), a + b)
    # the second BD pointed at the first half again: the second half of c sees a's first half
    _dev, mem = run_ops(art, _chain_input_a(ops_of(art)[1], 0))
    a, b = mem["a"].data.view(np.int32), mem["b"].data.view(np.int32)
    want = np.concatenate([a[: N // 2], a[: N // 2]]) + b
    assert np.array_equal(mem["c"].data.view(np.int32), want)
