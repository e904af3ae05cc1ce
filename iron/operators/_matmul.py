"""GEMM's device: the topology of upstream's matmul designs (Xilinx/mlir-aie
``programming_examples/basic/matrix_multiplication/``: ``single_core/single_core_iron.py``
and ``whole_array/whole_array_iron.py``; the generated single-core design is
``iron/tests/data/designs/...single_core__build__aie_256x256x256_32x32x32.mlir``).

The other operators stream 1-D tiles through one template (:mod:`._dataflow`); a GEMM
tiles two dimensions and shares operands between cores, which that template does not
express, so this module builds it the way upstream's designs do. ``rows`` cores per
column (upstream's ``n_aie_rows``), ``columns`` columns; core ``(c, r)`` computes the
``m x n`` tiles of C in row tiles ``g * rows + r`` and column tiles ``q * columns + c``:

* every core: acquire a C tile, ``zero_<out>`` it, then ``K / k`` times acquire an A tile
  (``m x k``) and a B tile (``k x n``), ``matmul_<in>_<out>`` (it accumulates), release
  both; release C. The kernel is compiled for the L1 tile (``DIM_M/K/N = m/k/n``);
* A enters through ``min(columns, rows)`` shims (``A_L3L2_i``, ``t = rows / that`` row
  tiles per object), is split on the memtile into one FIFO per core row (``A_L2L1_r``)
  and each of those is broadcast to the cores of that row in every column;
* B enters every column (``B_L3L2_c``) and is broadcast to the column's cores
  (``B_L2L1_c``); each core's C tiles are joined on the column's memtile
  (``C_L1L2_c_r`` -> ``C_L2L3_c``) and written to the host;
* the memtile -> core FIFOs of A and B block their tiles into mm.cc's micro-tiles and
  the memtile -> shim FIFO of C unblocks them (upstream's ``mm_stream_dims``,
  :func:`iron.target.kernels.mm_stream_dims`); the C pattern is one core's tile, repeated
  down the joined object (its outermost size is not in a memtile BD);
* the runtime sequence walks row-major host A, B, C with upstream's 4-D patterns, two row
  groups (``rows`` row tiles each) per block of transfers, BD ids 0-4 and 8-12 in turn,
  and waits for a block's C before reusing its BDs (so no shim task queue holds more than
  4 tasks).
"""

from __future__ import annotations

from dataclasses import dataclass

from iron.design import ArgSpec, Design, KernelObject, Stream
from iron.errors import IronError
from iron.mlir import body, ir
from iron.operators._dataflow import DATA_BD_IDS, RUN_FOREVER, SPLIT_DEPTH, memref
from iron.target import kernels as kt
from iron.target import shim_dma
from iron.target.geometry import (
    CORE_DATA_MEMORY,
    CORE_STACK,
    FIRST_COMPUTE_ROW,
    MEMTILE_MEMORY,
    MEMTILE_ROW,
    SHIM_ROW,
    get_target,
)

#: FIFO depth of every GEMM FIFO (upstream's ``fifo_depth = 2``).
DEPTH = SPLIT_DEPTH
#: Row groups whose transfers are issued together before the previous group is awaited
#: (upstream: ``tb_max_n_rows // 2`` = 2), and the first BD id of each alternating group.
GROUP_ROWS = 2
GROUP_BD_BASES = (0, 8)


@dataclass(frozen=True)
class Tiling:
    """The shape of one GEMM design (see the module docstring)."""

    M: int
    K: int
    N: int
    m: int
    k: int
    n: int
    columns: int
    rows: int
    dtype: str  # input element type
    out: str  # output element type

    @property
    def a_shims(self) -> int:
        """Shims (and memtiles) A enters through: ``n_shim_mem_A``."""
        return min(self.columns, self.rows)

    @property
    def a_rows(self) -> int:
        """Row tiles of A per ``A_L3L2`` object: ``n_A_tiles_per_shim``."""
        return self.rows // self.a_shims

    def a_column(self, i: int) -> int:
        """Column of A's shim ``i``: spread over the array (upstream: ``2 * i`` on 8 columns)."""
        return i * (self.columns // self.a_shims)

    @property
    def row_groups(self) -> int:
        return self.M // (self.m * self.rows)

    @property
    def col_blocks(self) -> int:
        """C tiles per row of tiles each column computes."""
        return self.N // (self.n * self.columns)

    @property
    def k_steps(self) -> int:
        return self.K // self.k

    @property
    def tiles_per_core(self) -> int:
        return self.row_groups * self.col_blocks


# --------------------------------------------------------------------------- checks
def check(tl: Tiling, op: str) -> None:
    """Refuse what upstream's asserts, the L1 and memtile memories or the shim BDs refuse."""
    for name, dim, tile, how in (
        ("M", tl.M, tl.m * tl.rows, f"m * cores_per_column = {tl.m} * {tl.rows}"),
        ("K", tl.K, tl.k, "k"),
        ("N", tl.N, tl.n * tl.columns, f"n * columns = {tl.n} * {tl.columns}"),
    ):
        if dim % tile:
            raise IronError(f"{op}: {name}={dim} is not divisible by {how} = {tile}")
    if tl.columns < tl.rows and tl.rows % tl.columns:
        raise IronError(
            f"{op}: cores_per_column={tl.rows} is not a multiple of columns={tl.columns}: A's row tiles "
            "enter through min(columns, cores_per_column) shims, each carrying the same number of them"
        )
    # Memtile DMA channels need no check: at most a_rows + 2 (<= 6) MM2S and rows + 2 (<= 6) S2MM.
    ib, ob = ir.ELEMENT_BYTES[tl.dtype], ir.ELEMENT_BYTES[tl.out]
    l1 = DEPTH * ((tl.m * tl.k + tl.k * tl.n) * ib + tl.m * tl.n * ob)
    if l1 > CORE_DATA_MEMORY - CORE_STACK:
        raise IronError(
            f"{op}: the L1 tile m={tl.m}, k={tl.k}, n={tl.n} needs {l1} bytes of core memory (A, B and C, "
            f"{DEPTH} buffers each), more than the {CORE_DATA_MEMORY - CORE_STACK} a compute tile has for data"
        )
    l2 = DEPTH * ((tl.a_rows * tl.m * tl.k + tl.k * tl.n) * ib + tl.rows * tl.m * tl.n * ob)
    if l2 > MEMTILE_MEMORY:
        raise IronError(
            f"{op}: the memtile buffers of one column need {l2} bytes (A, B and the joined C, {DEPTH} each), "
            f"more than the {MEMTILE_MEMORY} bytes of a memtile; use smaller m, k or n"
        )
    for name, (_off, sizes, strides), dtype in (
        ("A", a_transfer(tl, 0, 0), tl.dtype),
        ("B", b_transfer(tl, 0), tl.dtype),
        ("C", c_transfer(tl, 0, 0, min(GROUP_ROWS, tl.row_groups)), tl.out),
    ):
        where = f"{op}: shim transfer of {name} (sizes {list(sizes)}, strides {list(strides)} + [1])"
        shim_dma.transfer_fields(sizes, strides, ir.ELEMENT_BYTES[dtype], where)


# --------------------------------------------------------------------------- shim transfers
def a_transfer(tl: Tiling, group: int, shim: int) -> tuple[int, tuple, tuple]:
    """(element offset, sizes, strides) of the A tiles shim ``shim`` sends for row group
    ``group``: ``a_rows * m`` rows by ``k``, every K step, repeated for each column block
    (upstream: ``group_tiler((M, K), (m * t, k), (1, K // k), pattern_repeat=...)``)."""
    row = (group * tl.rows + shim * tl.a_rows) * tl.m
    sizes = (tl.col_blocks, tl.k_steps, tl.a_rows * tl.m, tl.k)
    return row * tl.K, sizes, (0, tl.k, tl.K)


def b_transfer(tl: Tiling, col: int) -> tuple[int, tuple, tuple]:
    """B for column ``col``: its column blocks (every ``columns``-th n-wide block), each
    walked down K in ``k x n`` tiles (upstream: ``step_tiler``, ``tile_group_col_major``)."""
    sizes = (tl.col_blocks, tl.k_steps, tl.k, tl.n)
    return col * tl.n, sizes, (tl.n * tl.columns, tl.k * tl.N, tl.N)


def c_transfer(tl: Tiling, col: int, group: int, groups: int) -> tuple[int, tuple, tuple]:
    """C of column ``col`` for ``groups`` row groups from ``group``: ``rows * m`` x ``n``
    tiles, every ``columns``-th block of a row of tiles (upstream: ``step_tiler``)."""
    tall = tl.rows * tl.m
    sizes = (groups, tl.col_blocks, tall, tl.n)
    return group * tall * tl.N + col * tl.n, sizes, (tall * tl.N, tl.n * tl.columns, tl.N)


# --------------------------------------------------------------------------- names
def a_shim_fifo(i: int) -> str:
    return f"A_L3L2_{i}"


def a_core_fifo(r: int) -> str:
    return f"A_L2L1_{r}"


def b_shim_fifo(c: int) -> str:
    return f"B_L3L2_{c}"


def b_core_fifo(c: int) -> str:
    return f"B_L2L1_{c}"


def c_core_fifo(c: int, r: int) -> str:
    return f"C_L1L2_{c}_{r}"


def c_shim_fifo(c: int) -> str:
    return f"C_L2L3_{c}"


def _tile(col: int, row: int) -> str:
    return f"tile_{col}_{row}"


# --------------------------------------------------------------------------- device
def build(tl: Tiling, specs: list[ArgSpec], kernel: KernelObject, target) -> Design:
    """The complete ``aie.device`` (symbol None) of ``tl`` on ``target``."""
    target = get_target(target)
    target.check_columns(tl.columns)
    mt = kt.micro_tile(kernel.arch, tl.dtype)
    dims = kt.mm_stream_dims(tl.m, tl.k, tl.n, mt)
    cols = range(tl.columns)
    device_ops: list = _func_decls(tl, kernel)
    device_ops += [ir.Tile(_tile(c, SHIM_ROW), c, SHIM_ROW) for c in cols]
    device_ops += [ir.Tile(_tile(c, MEMTILE_ROW), c, MEMTILE_ROW) for c in cols]
    device_ops += [
        ir.Tile(_tile(c, FIRST_COMPUTE_ROW + r), c, FIRST_COMPUTE_ROW + r)
        for r in range(tl.rows)
        for c in cols
    ]
    device_ops += _a_fifos(tl, dims["A"]) + _b_fifos(tl, dims["B"]) + _c_fifos(tl, dims["C"])
    device_ops += [_core(tl, c, r) for r in range(tl.rows) for c in cols]
    device_ops.append(_sequence(tl, specs))
    streams = [Stream(0, a_shim_fifo(i)) for i in range(tl.a_shims)]
    streams += [Stream(1, b_shim_fifo(c)) for c in cols] + [Stream(2, c_shim_fifo(c)) for c in cols]
    return Design(
        device=ir.Device(target.device_name(tl.columns), None, device_ops), streams=streams, kernels=[kernel]
    )


def _types(tl: Tiling) -> dict[str, str]:
    return {
        "A": memref((tl.m, tl.k), tl.dtype),
        "B": memref((tl.k, tl.n), tl.dtype),
        "C": memref((tl.m, tl.n), tl.out),
    }


def _symbols(tl: Tiling) -> tuple[str, str]:
    """(zero, matmul) entries of mm.cc for the GEMM's types (iron's kernel table)."""
    zero = kt.entry(f"zero_{tl.out}")[1].symbol
    return zero, kt.entry(f"matmul_{tl.dtype}_{tl.out}")[1].symbol


def _func_decls(tl: Tiling, kernel: KernelObject) -> list[ir.FuncDecl]:
    t = _types(tl)
    zero, matmul = _symbols(tl)
    return [
        ir.FuncDecl(zero, (t["C"],), kernel.name),
        ir.FuncDecl(matmul, (t["A"], t["B"], t["C"]), kernel.name),
    ]


def _a_fifos(tl: Tiling, dims) -> list:
    out: list = []
    for i in range(tl.a_shims):
        col = tl.a_column(i)
        shim, mem = _tile(col, SHIM_ROW), _tile(col, MEMTILE_ROW)
        rows = range(i * tl.a_rows, (i + 1) * tl.a_rows)
        out.append(
            ir.ObjectFifo(a_shim_fifo(i), shim, (mem,), DEPTH, memref((tl.a_rows * tl.m * tl.k,), tl.dtype))
        )
        for r in rows:
            cores = tuple(_tile(c, FIRST_COMPUTE_ROW + r) for c in range(tl.columns))
            out.append(ir.ObjectFifo(a_core_fifo(r), mem, cores, DEPTH, _types(tl)["A"], dims_to_stream=dims))
        offsets = tuple(j * tl.m * tl.k for j in range(tl.a_rows)) if tl.a_rows > 1 else ()
        out.append(ir.ObjectFifoLink((a_shim_fifo(i),), tuple(a_core_fifo(r) for r in rows), (), offsets))
    return out


def _b_fifos(tl: Tiling, dims) -> list:
    out: list = []
    for c in range(tl.columns):
        shim, mem = _tile(c, SHIM_ROW), _tile(c, MEMTILE_ROW)
        cores = tuple(_tile(c, FIRST_COMPUTE_ROW + r) for r in range(tl.rows))
        out.append(ir.ObjectFifo(b_shim_fifo(c), shim, (mem,), DEPTH, memref((tl.k * tl.n,), tl.dtype)))
        out.append(ir.ObjectFifo(b_core_fifo(c), mem, cores, DEPTH, _types(tl)["B"], dims_to_stream=dims))
        out.append(ir.ObjectFifoLink((b_shim_fifo(c),), (b_core_fifo(c),)))
    return out


def _c_fifos(tl: Tiling, dims) -> list:
    out: list = []
    for c in range(tl.columns):
        shim, mem = _tile(c, SHIM_ROW), _tile(c, MEMTILE_ROW)
        for r in range(tl.rows):
            core = _tile(c, FIRST_COMPUTE_ROW + r)
            out.append(ir.ObjectFifo(c_core_fifo(c, r), core, (mem,), DEPTH, _types(tl)["C"]))
        joined = memref((tl.rows * tl.m * tl.n,), tl.out)
        out.append(ir.ObjectFifo(c_shim_fifo(c), mem, (shim,), DEPTH, joined, dims_to_stream=dims))
        offsets = tuple(r * tl.m * tl.n for r in range(tl.rows)) if tl.rows > 1 else ()
        out.append(
            ir.ObjectFifoLink(tuple(c_core_fifo(c, r) for r in range(tl.rows)), (c_shim_fifo(c),), offsets)
        )
    return out


def _core(tl: Tiling, c: int, r: int) -> ir.Core:
    """One worker: upstream's ``core_fn`` (zero C, K / k accumulating calls, release C)."""
    t = _types(tl)
    zero, matmul = _symbols(tl)
    a, b, cc = a_core_fifo(r), b_core_fifo(c), c_core_fifo(c, r)
    step = [
        body.acquire("buf_A", a, "Consume", t["A"]),
        body.acquire("buf_B", b, "Consume", t["B"]),
        body.call(matmul, ["buf_A", "buf_B", "buf_C"], [t["A"], t["B"], t["C"]]),
        body.release(a, "Consume"),
        body.release(b, "Consume"),
    ]
    tile = [
        body.acquire("buf_C", cc, "Produce", t["C"]),
        body.call(zero, ["buf_C"], [t["C"]]),
        body.loop("step", "c0", "ksteps", "c1", step),
        body.release(cc, "Produce"),
    ]
    ops = [
        body.constant("c0", 0, "index"),
        body.constant("c1", 1, "index"),
        body.constant("ctiles", tl.tiles_per_core, "index"),
        body.constant("ksteps", tl.k_steps, "index"),
        body.constant("cmax", RUN_FOREVER, "index"),
        body.loop("run", "c0", "cmax", "c1", [body.loop("tile", "c0", "ctiles", "c1", tile)]),
        body.End(),
    ]
    row = FIRST_COMPUTE_ROW + r
    return ir.Core(f"core_{c}_{row}", _tile(c, row), ops)


def _memcpy(arg: str, transfer, fifo: str, bd: int, token: bool = False) -> ir.DmaMemcpyNd:
    offset, sizes, strides = transfer
    return ir.DmaMemcpyNd(arg, (0, 0, 0, offset), sizes, strides, fifo, bd, issue_token=token)


def _sequence(tl: Tiling, specs: list[ArgSpec]) -> ir.RuntimeSequence:
    """Upstream's runtime sequence: per block of row groups and per column, C's transfer
    (it issues the token awaited later), then A (on A's shims) and B per row group; after
    each block but the first, wait for the previous block's C in every column."""
    args = [ir.Argument(f"arg{i}", s.type) for i, s in enumerate(specs)]
    a_shim = {tl.a_column(i): i for i in range(tl.a_shims)}
    seq_ops: list = []
    for block, first in enumerate(range(0, tl.row_groups, GROUP_ROWS)):
        groups = min(GROUP_ROWS, tl.row_groups - first)
        for c in range(tl.columns):
            bd = iter(DATA_BD_IDS[GROUP_BD_BASES[block % 2] :])
            seq_ops.append(_memcpy("arg2", c_transfer(tl, c, first, groups), c_shim_fifo(c), next(bd), True))
            for g in range(first, first + groups):
                if c in a_shim:
                    seq_ops.append(
                        _memcpy("arg0", a_transfer(tl, g, a_shim[c]), a_shim_fifo(a_shim[c]), next(bd))
                    )
                seq_ops.append(_memcpy("arg1", b_transfer(tl, c), b_shim_fifo(c), next(bd)))
        if block:
            seq_ops += [ir.DmaWait(c_shim_fifo(c)) for c in range(tl.columns)]
    seq_ops += [ir.DmaWait(c_shim_fifo(c)) for c in range(tl.columns)]
    return ir.RuntimeSequence(ir.DEFAULT_SEQUENCE, args, seq_ops)
