"""Static DMA programs (``aie.mem`` / ``aie.memtile_dma`` / ``aie.shim_dma``) on sim, against upstream.

* Each hardware test of iron/tests/static_designs.py, built with ``iron.from_mlir`` and run on sim,
  writes what its own ``test.cpp`` checks; traced and fused with a built-in operator, it still runs
  and decodes.
* The BD words, lock values and Start_Queue writes sim programs equal the real compiler's
  (``aie-opt --convert-aie-to-transaction``: the configuration aie-rt writes, as the CDO does) for
  the same design with the real compiler's buffer addresses and BD ids.
* Anything sim does not model is one "not modelled: <op> at <file>:<line>" reason.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import iron
from iron.design import NotModelled
from iron.mlir import dma_program
from iron.operators import MemCopy
from iron.tests.static_designs import STATIC_DESIGNS, text

CASES = [pytest.param(k, t, id=f"{k}-{t}") for k, e in STATIC_DESIGNS.items() for t in e["targets"]]


def _run(src: str, target: str, tmp_path, inputs, key: str | None = None):
    """Build (traced when the suite runs with IRON_TRACE_SIZE, unless the design is
    ``untraceable``) and run on sim."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        op = iron.from_mlir(src, name="static")
    untraced = {"trace": False} if key and "untraceable" in STATIC_DESIGNS[key] else {}
    art = iron.build(op, target=target, cache_dir=tmp_path, **untraced)
    with art.load("sim") as run:
        outs = run(*inputs)
    return list(outs) if isinstance(outs, tuple) else [outs]


def _check(key: str, outs: list, expected: list) -> None:
    assert not any(isinstance(o, NotModelled) for o in outs), [
        o.reason for o in outs if isinstance(o, NotModelled)
    ]
    assert len(outs) == len(expected)
    for got, want in zip(outs, expected):
        assert got.dtype == want.dtype and got.shape == want.shape
        if STATIC_DESIGNS[key].get("compare") == "histogram":
            got, want = np.sort(got, axis=None), np.sort(want, axis=None)
        if STATIC_DESIGNS[key].get("compare") == "relative":
            got, want = got - got.flat[0], want - want.flat[0]
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("key,target", CASES)
def test_design_writes_what_its_upstream_test_checks(key, target, tmp_path):
    """Designs with ``pending`` come back not modelled, naming why (simbody's core-body ops, a kernel
    model); when they compute, drop ``pending`` from the index and their check runs here."""
    inputs, expected = STATIC_DESIGNS[key]["data"]()
    outs = _run(text(STATIC_DESIGNS[key], target), target, tmp_path, inputs, key)
    if "pending" in STATIC_DESIGNS[key]:
        assert all(isinstance(o, NotModelled) for o in outs), f"{key} computes now: drop its 'pending'"
        assert all(STATIC_DESIGNS[key]["pending"] in o.reason for o in outs), [o.reason for o in outs]
        return
    _check(key, outs, expected)


@pytest.mark.parametrize(
    "key", ["add_one_using_dma", "add_21_i8_using_dma_op_with_padding", "static_L1_init"]
)
def test_design_runs_traced_beside_a_builtin_operator(key, tmp_path):
    e = STATIC_DESIGNS[key]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        op = iron.from_mlir(text(e, "npu1"), name=key)
    specs = op.arg_spec()
    names = [f"f_{s.name}" for s in specs]
    seq = iron.Sequence(
        "static", [(op, *names), (MemCopy(size=64, dtype="i32", tile_size=32), "x", "y")],
        [n for n, s in zip(names, specs) if s.reads] + ["x"], [n for n, s in zip(names, specs) if s.writes] + ["y"],
    )  # fmt: skip
    art = iron.build(seq, trace=True, trace_size=4096, target="npu1", cache_dir=tmp_path)
    inputs, expected = e["data"]()
    x = np.arange(64, dtype=np.int32)
    with art.load("sim") as run:
        outs = run(*[a for a, s in zip(inputs, [s for s in specs if s.reads])], x)
        slices = run.trace.slices
    _check(key, list(outs[:-1]), expected)
    np.testing.assert_array_equal(outs[-1], x)
    assert [(s.slice.operator, s.status) for s in slices] == [(key, "ok"), ("MemCopy", "ok")]


# ---------------------------------------------------------------- breaking the semantics on purpose
def _mutated(key: str, old: str, new: str, count: int = -1) -> str:
    src = text(STATIC_DESIGNS[key], "npu1")
    assert old in src, old
    return src.replace(old, new, count) if count > 0 else src.replace(old, new)


def _fails(key: str, src: str, tmp_path) -> None:
    inputs, expected = STATIC_DESIGNS[key]["data"]()
    try:
        outs = _run(src, "npu1", tmp_path, inputs)
    except iron.IronError:
        return  # a deadlock the sim reports is a failure too
    with pytest.raises(AssertionError):
        _check(key, outs, expected)


def test_a_dropped_next_bd_or_lock_acquire_or_offset_changes_the_outputs(tmp_path):
    """The semantics the designs rely on are live: without the chain the second buffer is never
    filled, without the acquire the core's lock never waits, a BD offset moves the data."""
    _fails("add_one_using_dma", _mutated("add_one_using_dma", "aie.next_bd ^bb1", "aie.end"), tmp_path / "a")
    acquire = "aie.use_lock(%objFifo_in1_cons_prod_lock, AcquireGreaterEqual, %c1_ul25)"
    _fails("add_one_using_dma", _mutated("add_one_using_dma", acquire, ""), tmp_path / "b")
    bd = "aie.dma_bd(%objFifo_out0_buff_0 : memref<16xi32> offset = 0 len = 16)"
    _fails(
        "add_one_using_dma",
        _mutated("add_one_using_dma", bd, bd.replace("offset = 0 len = 16", "offset = 4 len = 12"), 1),
        tmp_path / "c",
    )


def test_swapped_dimensions_or_padding_change_the_outputs(tmp_path):
    key = "add_12_i8_using_2d_dma_op_with_padding"
    dims = "sizes = [61, 56] strides = [56, 1]"
    _fails(key, _mutated(key, dims, "sizes = [56, 61] strides = [1, 56]"), tmp_path / "a")
    pad = "pad [<const_pad_before = 2, const_pad_after = 1>, <const_pad_before = 4, const_pad_after = 4>]"
    _fails(
        key,
        _mutated(
            key,
            pad,
            "pad [<const_pad_before = 4, const_pad_after = 4>, <const_pad_before = 2, const_pad_after = 1>]",
        ),
        tmp_path / "b",
    )


def test_a_shim_packet_goes_where_its_id_is_routed(tmp_path):
    """packet_flow_fanout: one shim MM2S channel sends rows 0-63 as packet 3 (routed to the core
    that adds 12, whose result comes back into rows 0-63) and rows 64-127 as packet 7 (the core
    that adds 7, rows 64-127); with distinct rows, swapping the two ids swaps the halves."""
    key = "packet_flow_fanout"
    a = (np.arange(128 * 64) % 101).astype(np.int8).reshape(128, 64)
    want = np.concatenate([a[:64] + 12, a[64:] + 7]).astype(np.int8)
    (out,) = _run(text(STATIC_DESIGNS[key], "npu1"), "npu1", tmp_path / "a", [a, np.zeros(32, np.int8)], key)
    np.testing.assert_array_equal(out, want)
    swapped = _mutated(key, "pkt_id = 3,", "pkt_id = 9,").replace("pkt_id = 7,", "pkt_id = 3,")
    swapped = swapped.replace("pkt_id = 9,", "pkt_id = 7,")
    (out,) = _run(swapped, "npu1", tmp_path / "b", [a, np.zeros(32, np.int8)], key)
    np.testing.assert_array_equal(out, np.concatenate([a[64:] + 12, a[:64] + 7]).astype(np.int8))


@pytest.mark.parametrize("key", [k for k, e in STATIC_DESIGNS.items() if "untraceable" in e])
def test_a_design_with_no_free_s2mm_for_the_drain_is_refused_traced_naming_who_holds_them(key, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        op = iron.from_mlir(text(STATIC_DESIGNS[key], "npu1"), name=key)
    with pytest.raises(iron.IronError, match="no shim tile has a free S2MM channel") as err:
        iron.build(op, target="npu1", trace=True, trace_size=4096, cache_dir=tmp_path)
    assert STATIC_DESIGNS[key]["untraceable"] in str(err.value)


@pytest.mark.parametrize(
    "header,error", [("pkt_id = 3, pkt_type = 8", "Packet type field can only hold 3 bits"),
                     ("pkt_id = 32, pkt_type = 0", "Packet ID field can only hold 5 bits")],
)  # fmt: skip
def test_a_packet_header_the_bd_cannot_hold_is_refused_as_mlir_aie_does(header, error, tmp_path):
    """NpuDmaMemcpyNdOp::verify (AIEXDialect.cpp @a9e39fae): its messages, named in iron's error."""
    src = _mutated("packet_flow", "pkt_id = 3, pkt_type = 0", header)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        op = iron.from_mlir(src, name="bad_packet")
    with pytest.raises(iron.IronError, match=error):
        iron.build(op, target="npu1", cache_dir=tmp_path)


def _offsets(sizes, strides) -> np.ndarray:
    """Element offsets an ``aie.dma_bd`` with ``sizes`` / ``strides`` (outermost first, in
    elements; AIE.td's BD dimensions) visits, in order."""
    grid = np.indices(sizes).reshape(len(sizes), -1).T
    return grid @ np.array(strides)


def test_memtile_bds_of_three_and_four_dimensions_move_in_their_order(tmp_path):
    """add_256 with its memtile S2MM 0 BD in 4-D (the input lands permuted: element k at
    offset off4[k]) and S2MM 1 in 3-D (the core's result lands at off3[k]); the host gets, per
    16-element chunk c: out[off3[k]] = c'[k] + 256 with c'[off4[k]] = c[k]."""
    a = np.arange(64, dtype=np.int32) * 3 + 5
    off4, off3 = _offsets([2, 2, 2, 2], [1, 8, 2, 4]), _offsets([2, 4, 2], [1, 2, 8])
    assert sorted(off4) == sorted(off3) == list(range(16))  # permutations
    want = np.zeros(64, np.int32)
    for c in range(4):
        landed = np.zeros(16, np.int32)
        landed[off4] = a[16 * c : 16 * c + 16]
        want[16 * c + off3] = landed + 256
    (out,) = _run(_memtile_dims(), "npu1", tmp_path, [a, np.zeros(32, np.int32)])
    np.testing.assert_array_equal(out, want)


def test_what_is_not_modelled_is_named_with_its_line(tmp_path):
    key = "add_one_using_dma"
    src = _mutated(key, "aie.next_bd ^bb2", "aie.mystery_op\n      aie.next_bd ^bb2", 1)
    inputs, _ = STATIC_DESIGNS[key]["data"]()
    outs = _run(src, "npu1", tmp_path, inputs)
    assert isinstance(outs[0], NotModelled)
    assert re.search(r"not modelled: aie\.mystery_op at <PDI of @\w+>:\d+", outs[0].reason), outs[0].reason


def test_region_reader_reads_chains_locks_dims_packets_and_the_region_form():
    """Field by field, from upstream texts (AIEOps.td's forms; the files of the corpus)."""
    src = text(STATIC_DESIGNS["add_one_using_dma"], "npu1")
    body = src[src.index("%mem_0_2 = aie.mem") :]
    region = dma_program.read_region(body[: body.index("\n    }\n") + 6], "f.mlir", 10)
    assert [(s.direction, s.channel, s.first) for s in region.starts] == [
        ("s2mm", 0, "bb1"),
        ("mm2s", 0, "bb4"),
    ]
    assert [b.label for b in dma_program.chain(region, region.starts[0])] == ["bb1", "bb2"]
    assert region.blocks["bb2"].next == "bb1"
    assert region.blocks["bb1"].locks == [
        dma_program.UseLock("objFifo_in1_cons_prod_lock", "AcquireGreaterEqual", 1),
        dma_program.UseLock("objFifo_in1_cons_cons_lock", "Release", 1),
    ]
    bd = dma_program.read_region(
        "%m = aie.memtile_dma(%t) {\n  %0 = aie.dma(MM2S, 0) {loop = false, repeat_count = 2 : i32} [{\n"
        "    aie.dma_bd(%b : memref<64x64xi8> offset = 8 len = 4096 sizes = [61, 56] strides = [56, 1] pad "
        "[<const_pad_before = 2, const_pad_after = 1>]) {bd_id = 3 : i32, packet = #aie.packet_info<pkt_type = 1, pkt_id = 4>}\n"
        "    aie.end\n  }, {\n    aie.dma_bd(%b : memref<64x64xi8>, 0, 16, [<size = 4, stride = 1>])\n    aie.end\n  }]\n}",
    )
    first, second = (bd.blocks[b.label].bd for b in dma_program.chain(bd, bd.starts[0]))
    assert (bd.starts[0].repeat_count, first.offset, first.length, first.sizes, first.strides) == (
        2,
        8,
        4096,
        (61, 56),
        (56, 1),
    )
    assert (first.pad, first.packet, first.bd_id) == (((2, 1),), (1, 4), 3)
    assert (second.length, second.sizes, second.strides) == (16, (4,), (1,))
    assert bd.blocks["dma0_1"].next is None  # loop = false: the chain ends


# ---------------------------------------------------------------- against the real compiler
_RE_CONST = re.compile(r"(%[\w-]+) = arith\.constant (-?\d+) : i32")  # `%c-2147483648_i32`
_RE_WRITE = re.compile(r"aiex\.npu\.write32\((%[\w-]+), (%[\w-]+)\)")
_RE_GLOBAL = re.compile(
    r"memref\.global \"private\" (?:constant )?@(\w+) : memref<(\d+)xi32> = dense<\[?([^\]>]*)\]?>"
)
_RE_GET = re.compile(r"(%\w+) = memref\.get_global @(\w+)")
_RE_BLOCK = re.compile(r"aiex\.npu\.blockwrite\((%\w+)\) \{address = (\d+) : ui32\}")


def _configuration(txn: str) -> dict[tuple[int, int, int], int]:
    """(col, row, offset) -> last value the real compiler's configuration writes (write32 and
    blockwrite of ``--convert-aie-to-transaction``)."""
    from iron.target import registers

    consts = {m.group(1): int(m.group(2)) for m in _RE_CONST.finditer(txn)}
    data = {}
    for m in _RE_GLOBAL.finditer(txn):  # dense<[a, b, ..]> or a splat dense<v>
        raw = m.group(3).strip()
        if raw.startswith('"0x'):  # MLIR's hex form: the little-endian bytes of every element
            values = [
                int.from_bytes(bytes.fromhex(raw[3:-1])[k : k + 4], "little")
                for k in range(0, len(raw[3:-1]) // 2, 4)
            ]
        else:
            values = [int(x) for x in raw.split(",")]
        data[m.group(1)] = values if len(values) > 1 else values * int(m.group(2))
    gets, regs = {}, {}
    for line in txn.splitlines():  # in order: each sequence's `%0 = memref.get_global` names its own data
        if m := _RE_GET.search(line):
            gets[m.group(1)] = m.group(2)
        elif m := _RE_WRITE.search(line):
            regs[registers.split_address(consts[m.group(1)] & 0xFFFFFFFF)] = consts[m.group(2)] & 0xFFFFFFFF
        elif m := _RE_BLOCK.search(line):
            col, row, off = registers.split_address(int(m.group(2)))
            for k, w in enumerate(data[gets[m.group(1)]]):
                regs[col, row, off + 4 * k] = w & 0xFFFFFFFF
    return regs


def _sim_registers(src: str, target: str) -> dict[tuple[int, int, int], int]:
    """What sim's static lowering writes for ``src`` (BD words and Start_Queue values)."""
    from collections import defaultdict

    from iron.runtime.sim import static_dma
    from iron.runtime.sim.program import program
    from iron.runtime.sim.tile_dma import TileDmas
    from iron.target.geometry import get_target

    class Device:
        def __init__(self):
            self.target, self.regs, self.engine, self.channels = (
                get_target(target),
                defaultdict(dict),
                None,
                {},
            )

    device, prog = Device(), program(src, "real.mlir")
    state = static_dma.install(device, prog, TileDmas(device, prog), src, "real.mlir")
    assert not state.unmodelled, state.unmodelled
    return {(c, r, off): v for (c, r), regs in device.regs.items() for off, v in regs.items()}


_OFFSET = ("add_one_using_dma", "aie.dma_bd(%objFifo_out0_buff_1 : memref<16xi32> offset = 0 len = 16)",
           "aie.dma_bd(%objFifo_out0_buff_1 : memref<16xi32> offset = 4 len = 12 sizes = [3, 4] strides = [1, 3])")  # fmt: skip
_ADD_256 = "add_256_using_dma_op_no_double_buffering"
#: Its memtile S2MM 0 BD in four dimensions, its S2MM 1 BD in three (both permutations of 16).
_FOUR_D = (_ADD_256, "aie.dma_bd(%buffer_0_1 : memref<16xi32>)",
           "aie.dma_bd(%buffer_0_1 : memref<16xi32> offset = 0 len = 16 sizes = [2, 2, 2, 2] strides = [1, 8, 2, 4])", 1)  # fmt: skip
_THREE_D = (_ADD_256, "aie.dma_bd(%buffer_0_1_0 : memref<16xi32>)",
            "aie.dma_bd(%buffer_0_1_0 : memref<16xi32> offset = 0 len = 16 sizes = [2, 4, 2] strides = [1, 2, 8])", 1)  # fmt: skip


def _memtile_dims() -> str:
    return _mutated(*_FOUR_D).replace(_THREE_D[1], _THREE_D[2], 1)


REAL_CASES = CASES + [
    pytest.param("offset", "npu1", id="add_one_using_dma-offset-and-dims"),
    pytest.param("memtile_dims", "npu1", id="add_256-memtile-3d-and-4d"),
    pytest.param("memtile_dims", "npu2", id="add_256-memtile-3d-and-4d-npu2"),
]


@pytest.mark.parametrize("key,target", REAL_CASES)
def test_bd_words_and_queue_writes_equal_the_real_compilers(key, target, real_mlir_aie):
    """With the real compiler's buffer addresses and BD ids (``--aie-assign-buffer-addresses
    --aie-assign-bd-ids``), every BD word and Start_Queue value sim writes equals what the real
    compiler's configuration (``--convert-aie-to-transaction``: aie-rt's writes, the CDO's) holds,
    and sim leaves out no BD register it writes."""
    from iron.tests import real_mlir_aie as real
    from iron.target import tile_dma

    src = {"offset": lambda: _mutated(*_OFFSET), "memtile_dims": _memtile_dims}.get(
        key, lambda: text(STATIC_DESIGNS[key], target)
    )()
    src = src.replace("npu1_1col", "npu2_1col") if target == "npu2" else src
    placed = real.aie_opt(src, "--aie-assign-buffer-addresses", "--aie-assign-bd-ids")
    assert placed.returncode == 0, placed.stderr
    txn = real.aie_opt(placed.stdout, "--convert-aie-to-transaction")
    assert txn.returncode == 0, txn.stderr
    theirs, ours = _configuration(txn.stdout), _sim_registers(placed.stdout, target)
    assert ours and {k: theirs.get(k) for k in ours} == ours
    for (col, row, off), value in theirs.items():
        kind = tile_dma.kind_of_row(row) if row else None
        if kind and kind.bd_base <= off < kind.bd_base + tile_dma.BD_STRIDE * kind.bd_count and value:
            assert ours.get((col, row, off)) == value, (col, row, hex(off))


def test_set_lock_writes_the_lock_register_the_real_compiler_writes(real_mlir_aie):
    """``aiex.set_lock`` on a compute tile and a memtile lock: the register iron's lowering writes
    (``iron.target.tile_dma.lock_register``) is the one ``aie-opt --aie-lower-set-lock`` writes."""
    from iron.target import tile_dma
    from iron.tests import real_mlir_aie as real

    src = (
        "module {\n  aie.device(npu1_1col) {\n    %t = aie.tile(0, 2)\n    %m = aie.tile(0, 1)\n"
        "    %l = aie.lock(%t, 3) {init = 0 : i32}\n    %k = aie.lock(%m, 5) {init = 0 : i32}\n"
        "    aie.runtime_sequence() {\n      aiex.set_lock(%l, 1)\n      aiex.set_lock(%k, 2)\n    }\n  }\n}\n"
    )
    out = real.aie_opt(src, "--aie-lower-set-lock")
    assert out.returncode == 0, out.stderr
    consts = {m.group(1): int(m.group(2)) for m in _RE_CONST.finditer(out.stdout)}
    writes = [(consts[a], consts[v]) for a, v in _RE_WRITE.findall(out.stdout)]
    assert writes == [
        (tile_dma.lock_register(tile_dma.TILE, 3), 1),
        (tile_dma.lock_register(tile_dma.MEMTILE, 5), 2),
    ]


# ---------------------------------------------------------------- aie.shim_dma regions
def _shim_registers(src: str, target: str) -> tuple[dict, list[str]]:
    from collections import defaultdict

    from iron.runtime.sim import static_dma
    from iron.runtime.sim.program import program
    from iron.runtime.sim.tile_dma import TileDmas
    from iron.target.geometry import get_target

    class Device:
        def __init__(self):
            self.target, self.regs, self.engine, self.channels = (
                get_target(target),
                defaultdict(dict),
                None,
                {},
            )

    device, prog = Device(), program(src, "shim.mlir")
    state = static_dma.install(device, prog, TileDmas(device, prog), src, "shim.mlir")
    regs = {(c, r, off): v for (c, r), rr in device.regs.items() for off, v in rr.items()}
    return regs, state.unmodelled


def test_shim_dma_region_writes_the_words_of_upstreams_cdo_check():
    """test/Targets/AIETargetCDODirect/oneshim.mlir (iron/tests/data/upstream, a9e39fae): its
    CHECK lines are the CDO's BD words and Start_Queue value; sim reports the starts not
    modelled (a static host address), naming channel, BD and address."""
    from iron.tests.upstream import source_lines

    src = "\n".join(source_lines("oneshim.mlir"))
    regs, unmodelled = _shim_registers(src, "npu1")
    bd0 = [regs.get((0, 0, 0x1D000 + 4 * w), 0) for w in range(8)]
    assert bd0 == [0x4, 0, 0, 0, 0x80000000, 0, 0, 0x02000000]
    assert regs[0, 0, 0x1D030] == 0x40000000  # BD 1 word 4: burst_length = 128
    assert regs[0, 0, 0x1D204] == 0x80000000  # S2MM 0 Task_Queue: BD 0, token
    assert len(unmodelled) == 2 and "S2MM 0 starts BD 0 at host address 0x0" in unmodelled[0], unmodelled


SHIM_REGION = """module {
  aie.device(NPUDEVICE) {
    %buffer = aie.external_buffer {sym_name = "buf"} : memref<16xf32>
    %t00 = aie.tile(0, 0)
    aie.shim_dma(%t00) {
      aie.dma_start(S2MM, 0, ^bd0, ^bd1)
    ^bd0:
      aie.dma_bd(%buffer : memref<16xf32> offset = 2 len = 4) {bd_id = 0 : i32, packet = #aie.packet_info<pkt_type = 2, pkt_id = 5>}
      aie.next_bd ^end
    ^bd1:
      aie.dma_start(MM2S, 1, ^bd2, ^end, repeat_count = 3)
    ^bd2:
      aie.dma_bd(%buffer : memref<16xf32> offset = 0 len = 12 sizes = [3, 2, 2] strides = [4, 1, 2]) {burst_length = 128 : i32}
      aie.next_bd ^bd3
    ^bd3:
      aie.dma_bd(%buffer : memref<16xf32> offset = 4 len = 8)
      aie.next_bd ^end
    ^end:
      aie.end
    }
  }
}
"""


@pytest.mark.parametrize("target", ["npu1", "npu2"])
def test_shim_dma_region_words_equal_the_real_compilers(target, real_mlir_aie):
    """Dimensions, offset, packet header, burst length, a chain, ids assigned, repeat: every
    register sim writes equals what the real compiler's configuration writes."""
    from iron.tests import real_mlir_aie as real

    src = SHIM_REGION.replace("NPUDEVICE", "npu1_1col" if target == "npu1" else "npu2_1col")
    placed = real.aie_opt(src, "--aie-assign-bd-ids")
    assert placed.returncode == 0, placed.stderr
    txn = real.aie_opt(placed.stdout, "--convert-aie-to-transaction")
    assert txn.returncode == 0, txn.stderr
    theirs = _configuration(txn.stdout)
    ours, _ = _shim_registers(src, target)
    assert len(ours) == 3 * 8 + 2 and {k: theirs.get(k) for k in ours} == ours
