"""iron's GEMM against upstream's generated matmul designs, for the same shapes.

Expected values are read from upstream text with regular expressions (never with iron's
reader or printer) and compared with the design iron builds, as IR objects:

* ``data/designs/...single_core__build__aie_256x256x256_32x32x32.mlir``: the single-core
  example (i8 -> i32, m = k = n = 32, npu1); iron builds the i16 GEMM of that shape, so
  everything but the element types and the micro-tile blocking must be equal (the
  blocking formula is checked against its i8 FIFOs below);
* ``data/designs/...whole_array__build__aie_640x896x768_16x32x48_2c.mlir``: the whole-array
  example on 2 columns x 4 cores (i16 -> i32, npu1, mmul 4x4x4, iron's micro-tile too):
  FIFOs with their dimensions, links, all eight cores, every transfer and wait.

Sources: data/designs/SOURCES.md.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from iron.mlir import ir
from iron.mlir.printer import print_ops
from iron.operators import GEMM
from iron.target import kernels as kt

DATA = Path(__file__).parent / "data"
SINGLE = (
    DATA
    / "designs"
    / (
        "mlir-aie__programming_examples__basic__matrix_multiplication__single_core__build__aie_256x256x256_32x32x32.mlir"
    )
)
WHOLE = (
    DATA
    / "designs"
    / "mlir-aie__programming_examples__basic__matrix_multiplication__whole_array__build__aie_640x896x768_16x32x48_2c.mlir"
)

#: upstream's single-core FIFO names -> iron's (upstream's whole-array names)
SINGLE_NAMES = {"inA": "A_L3L2_0", "memA": "A_L2L1_0", "inB": "B_L3L2_0", "memB": "B_L2L1_0",
                "memC": "C_L1L2_0_0", "outC": "C_L2L3_0"}  # fmt: skip

_FIFO = re.compile(
    r"aie\.objectfifo @(\w+)\(%(\w+)(?: (?:dimensionsToStream|toStream) \[([^\]]*)\])?, \{([^}]*)\}, (\d+) : i32\)"
    r" : !aie\.objectfifo<memref<([0-9x]+)x\w+>>"
)
_LINK = re.compile(r"aie\.objectfifo\.link \[([^\]]*)\] -> \[([^\]]*)\]\(\[([^\]]*)\] \[([^\]]*)\]\)")
_MEMCPY = re.compile(
    r"aiex\.npu\.dma_memcpy_nd\((?:0, 0, )?%arg(\d)\[([^\]]*)\]\[([^\]]*)\]\[([^\]]*)\]\)"
    r" \{id = (\d+) : i64, metadata = @(\w+)\}"
)
_WAIT = re.compile(
    r"aiex\.npu\.dma_wait \{symbol = @(\w+)\}|aiex\.npu\.sync \{channel = 0 : i32, column = (\d+) :"
)


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(v) for v in re.findall(r"-?\d+", text))


def _dims(text: str) -> tuple[tuple[int, int], ...]:
    return tuple((int(a), int(b)) for a, b in re.findall(r"<size = (\d+), stride = (\d+)>", text))


# --------------------------------------------------------------------------- upstream text
def upstream(text: str, names: dict | None = None) -> dict:
    """FIFOs, links, cores and runtime sequence of an upstream design, by regex."""
    name = (names or {}).get
    tiles = {t: (int(c), int(r)) for t, c, r in re.findall(r"%(\w+) = aie\.tile\((\d+), (\d+)\)", text)}
    fifos = {}
    for f, prod, dims, cons, depth, shape in _FIFO.findall(text):
        consumers = tuple(tiles[c.strip().lstrip("%")] for c in cons.split(","))
        numel = math.prod(int(v) for v in shape.split("x"))
        fifos[name(f, f)] = (tiles[prod], consumers, int(depth), numel, _dims(dims))
    links = [
        (tuple(name(n, n) for n in re.findall(r"@(\w+)", s)), tuple(name(n, n) for n in re.findall(r"@(\w+)", d)),
         _ints(so), _ints(do))
        for s, d, so, do in _LINK.findall(text)
    ]  # fmt: skip
    cores = {}
    for block in re.findall(r"= aie\.core\(%(\w+)\) \{(.*?)\n    \}", text, re.S):
        cores[tiles[block[0]]] = _core_steps(block[1], name)
    seq = []
    for line in text[text.index("runtime_sequence") :].splitlines():
        if m := _MEMCPY.search(line):
            arg, off, sizes, strides, bd, fifo = m.groups()
            offsets = _ints(off)
            assert offsets[:3] == (0, 0, 0)
            seq.append(
                ("dma", int(arg), offsets[3], _ints(sizes), _ints(strides)[:3], int(bd), name(fifo, fifo))
            )
        elif m := _WAIT.search(line):
            col = fifos[name(m[1], m[1])][1][0][0] if m[1] else int(m[2])
            seq.append(("wait", col))
    return {"fifos": fifos, "links": links, "cores": cores, "sequence": seq}


def _core_steps(body: str, name=lambda n, d: n) -> tuple:
    """(inner loop bounds, acquires / calls / releases in order) of a core body."""
    consts = {c: int(v) for c, v in re.findall(r"%(\w+) = arith\.constant (\d+) : index", body)}
    bounds = [consts[b] for b in re.findall(r"scf\.for %\w+ = %\w+ to %(\w+)", body)]
    assert bounds[0] >= 2**32 - 1  # the outer loop runs "forever" (4294967295 or sys.maxsize)
    steps = []
    for m in re.finditer(r"objectfifo\.(acquire|release) @(\w+)\((\w+), 1\)|func\.call @(\w+)\(", body):
        steps.append(("call", m[4]) if m[4] else (m[1], name(m[2], m[2]), m[3]))
    return tuple(bounds[1:]), tuple(steps)


# --------------------------------------------------------------------------- iron's design
def mine(op: GEMM, target: str) -> dict:
    dev = op.design(target).device
    tiles = {t.name: (t.col, t.row) for t in dev.tiles}
    fifos = {
        f.name: (tiles[f.producer], tuple(tiles[c] for c in f.consumers), f.depth,
                 math.prod(int(v) for v in re.findall(r"(\d+)x", f.type)), tuple(f.dims_to_stream))
        for f in dev.body if isinstance(f, ir.ObjectFifo)
    }  # fmt: skip
    links = [
        (tuple(lk.sources), tuple(lk.dests), tuple(lk.source_offsets), tuple(lk.dest_offsets))
        for lk in dev.body
        if isinstance(lk, ir.ObjectFifoLink)
    ]
    cores = {
        tiles[c.tile]: _core_steps("\n".join(print_ops(c.body))) for c in dev.body if isinstance(c, ir.Core)
    }
    seq = []
    for o in dev.sequence(ir.DEFAULT_SEQUENCE).body:
        if isinstance(o, ir.DmaMemcpyNd):
            assert o.offsets[:3] == (0, 0, 0)
            seq.append(("dma", int(o.arg[3:]), o.offsets[3], o.sizes, o.strides, o.id, o.metadata))
        else:
            seq.append(("wait", fifos[o.symbol][1][0][0]))
    return {"fifos": fifos, "links": links, "cores": cores, "sequence": seq}


def _without_dims(fifos: dict) -> dict:
    return {n: f[:4] for n, f in fifos.items()}


# --------------------------------------------------------------------------- tests
def test_single_core_design_equals_upstreams_generated_one():
    up = upstream(SINGLE.read_text(), SINGLE_NAMES)
    got = mine(GEMM(256, 256, 256, "i16", m=32, k=32, n=32), "npu1")
    assert _without_dims(got["fifos"]) == _without_dims(up["fifos"])
    assert got["links"] == up["links"]
    (bounds, steps), = up["cores"].values()  # fmt: skip
    assert bounds == (64, 8)  # 8 x 8 C tiles, 8 K steps of 32
    i16_steps = tuple(("call", "matmul_i16_i32") if s == ("call", "matmul_i8_i32") else s for s in steps)
    assert got["cores"] == {(0, 2): (bounds, i16_steps)}
    assert got["sequence"] == up["sequence"]
    assert len(up["sequence"]) == 24  # 4 blocks of (C, A, B, A, B), one wait each, one more at the end


def test_mm_stream_dims_are_upstreams_blocking():
    """The single-core design's memtile dims (i8, mmul 4x8x8) from upstream's formula."""
    up = upstream(SINGLE.read_text(), SINGLE_NAMES)["fifos"]
    dims = kt.mm_stream_dims(32, 32, 32, kt.MICRO_TILES[("aie2", "i8")])
    assert (up["A_L2L1_0"][4], up["B_L2L1_0"][4], up["C_L2L3_0"][4]) == (dims["A"], dims["B"], dims["C"])


def test_whole_array_design_equals_upstreams_generated_one():
    up = upstream(WHOLE.read_text())
    got = mine(GEMM(640, 896, 768, "i16", columns=2, cores_per_column=4, m=16, k=32, n=48), "npu1")
    assert got["fifos"] == up["fifos"]  # with the micro-tile blocking (mmul 4x4x4 on both sides)
    assert sorted(got["links"]) == sorted(up["links"])
    assert len(up["cores"]) == 8  # 2 columns x 4 cores
    for tile, core in up["cores"].items():
        assert core[0] == (80, 28)  # 40 x 16 C tiles over 8 cores, 896 / 32 K steps
        assert got["cores"][tile] == core
    assert len(got["cores"]) == 8
    assert got["sequence"] == up["sequence"]


@pytest.mark.parametrize("target", ["npu1", "npu2"])
def test_every_core_names_its_row_of_a_and_column_of_b(target):
    """whole_array_iron.py: core (c, r) takes A_L2L1_r, B_L2L1_c and produces C_L1L2_c_r."""
    got = mine(GEMM(512, 128, 512, columns=4, cores_per_column=4), target)
    for (c, row), (_bounds, steps) in got["cores"].items():
        r = row - 2
        fifos = {s[1] for s in steps if s[0] == "acquire"}
        assert fifos == {f"A_L2L1_{r}", f"B_L2L1_{c}", f"C_L1L2_{c}_{r}"}
