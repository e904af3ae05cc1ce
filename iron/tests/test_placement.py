"""iron.mlir.placement against the real compiler: every buffer of the upstream static designs
(iron/tests/static_designs.py, andrej/mlir-aie a9e39fae hardware tests) sits where mlir-aie's
``aie-opt --aie-assign-buffer-addresses`` puts it, on npu1 and npu2."""

from __future__ import annotations

import re
import warnings

import pytest

from iron.mlir import placement
from iron.mlir.reader import parse
from iron.tests.static_designs import STATIC_DESIGNS, text

CASES = [pytest.param(k, t, id=f"{k}-{t}") for k, e in STATIC_DESIGNS.items() for t in e["targets"]]
_RE_PLACED = re.compile(r'aie\.buffer\([^)]*\)\s*\{address = (\d+) : i32[^}]*sym_name = "([^"]+)"')


def _device(src: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return parse(src).devices[0]


@pytest.mark.parametrize("key,target", CASES)
def test_buffers_sit_where_the_real_pass_puts_them(key, target):
    from iron.tests import real_mlir_aie

    real_mlir_aie.require()
    src = text(STATIC_DESIGNS[key], target)
    out = real_mlir_aie.aie_opt(src, "--aie-assign-buffer-addresses")
    assert out.returncode == 0, out.stderr
    real = {sym: int(a) for a, sym in _RE_PLACED.findall(out.stdout)}
    ours = {p.symbol: p.address for p in placement.place(_device(src)).values()}
    assert real and ours == real


def test_largest_first_past_the_stack():
    """The real ``aie-opt --aie-assign-buffer-addresses`` (a9e39fae) on this design puts a at
    49152, b at 16384, c at 32768, d at 2048: largest first, b does not fit bank 0 after the 2 KiB
    stack, each next buffer in the bank after the previous one's."""
    src = """module {
  aie.device(npu1_1col) {
    %t = aie.tile(0, 2)
    %a = aie.buffer(%t) {sym_name = "a"} : memref<16xi32>
    %b = aie.buffer(%t) {sym_name = "b"} : memref<4000xi32>
    %c = aie.buffer(%t) {sym_name = "c"} : memref<4000xi32>
    %d = aie.buffer(%t) {sym_name = "d"} : memref<8xi32>
    %core = aie.core(%t) {
      aie.end
    } {stack_size = 2048 : i32}
  }
}"""
    got = {p.symbol: p.address for p in placement.place(_device(src)).values()}
    assert got == {"a": 0xC000, "b": 0x4000, "c": 0x8000, "d": 2048}


_HAND = {
    # a buffer larger than a bank: bank-aware fails, the pass falls back to one after another
    "sequential": ["%a = aie.buffer(%t) : memref<16xi32>", "%b = aie.buffer(%t) : memref<5000xi32>",
                   "%c = aie.buffer(%t) : memref<8xi32>"],
    # a given address in bank 1 moves that bank's next free address past it
    "given": ["%a = aie.buffer(%t) {address = 16384 : i32} : memref<64xi32>",
              "%b = aie.buffer(%t) : memref<4000xi32>", "%c = aie.buffer(%t) : memref<8xi32>",
              "%d = aie.buffer(%t) : memref<3000xi32>"],
    # a memtile's buffers, one of them declared inside its DMA region
    "memtile": ["%a = aie.buffer(%m) : memref<20000xi32>", "%b = aie.buffer(%m) : memref<8xi32>",
                "%r = aie.memtile_dma(%m) {\n      %c = aie.buffer(%m) : memref<40000xi32>\n      aie.end\n    }"],
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(_HAND))
def test_hand_designs_equal_the_real_pass(case):
    from iron.tests import real_mlir_aie

    real_mlir_aie.require()
    body = "\n    ".join(_HAND[case])
    src = f"""module {{
  aie.device(npu1_1col) {{
    %t = aie.tile(0, 2)
    %m = aie.tile(0, 1)
    {body}
    %core = aie.core(%t) {{
      aie.end
    }}
  }}
}}"""
    out = real_mlir_aie.aie_opt(src, "--aie-assign-buffer-addresses")
    assert out.returncode == 0, out.stderr
    real = {sym: int(a) for a, sym in _RE_PLACED.findall(out.stdout)}
    assert real == {p.symbol: p.address for p in placement.place(_device(src)).values()}


def test_a_write_into_an_unknown_buffer_names_it():
    from iron.errors import IronError
    from iron.lower.buffer_write import BufferWrites
    from iron.mlir import ir

    device = _device(text(STATIC_DESIGNS["add_maskwrite"], "npu1"))
    seq = device.sequences[0]
    writes = BufferWrites(device, seq, "@seq")
    with pytest.raises(IronError, match=r"buffer @nope is not an aie\.buffer.*input_buffer"):
        writes.lower(ir.Opaque("aiex.npu.write32(%cst_npu_3, %cst_npu_4) {buffer = @nope} : i32, i32"))
    # the known one: input_buffer at 1024 (the real pass, test above), word 1 -> byte 1028 of tile (0, 2)
    got = writes.lower(
        ir.Opaque("aiex.npu.write32(%cst_npu_3, %cst_npu_5) {buffer = @input_buffer} : i32, i32")
    )
    assert got == [ir.Write32((2 << 20) | 1028, 0x0F0F0F0F)]
