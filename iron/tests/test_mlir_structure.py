"""Structural ops declared once (iron/mlir/structure.py, the table in iron/mlir/structural_ops.py).

Expected text comes from outside iron: the upstream mlir-aie lit tests in
``iron/tests/data/upstream`` (SOURCES.md there names each file's commit) and the corpus file
``mlir-aie__test__npu-xrt__add_21_i8_using_dma_op_with_padding__aie.mlir`` (andrej/mlir-aie
a9e39fae, ``test/npu-xrt/add_21_i8_using_dma_op_with_padding/aie.mlir``; corpus SOURCES.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from iron.mlir import ir, structural_ops, structure
from iron.mlir.form import Form
from iron.mlir.printer import print_module
from iron.mlir.reader import parse

DATA = Path(__file__).parent / "data"
UPSTREAM = sorted((DATA / "upstream").glob("*.mlir"))
LOCKS = DATA / "corpus" / "mlir-aie__test__npu-xrt__add_21_i8_using_dma_op_with_padding__aie.mlir"


def _op_name(line: str) -> str | None:
    m = re.match(r"^\s*(?:%[\w.$-]+\s*=\s*)?([a-z_]+(?:\.[a-z_0-9]+)+)", line)
    return m.group(1) if m else None


def _bare(line: str) -> str:
    return "".join(line.split())


def _declared_lines() -> dict[str, list[tuple[Path, str]]]:
    """Lines of the upstream tests (outside CHECK comments) that a declared op spells."""
    names = {op.name for op in structural_ops.OPS}
    found: dict[str, list] = {}
    for path in UPSTREAM:
        for line in path.read_text().splitlines():
            name = _op_name(line)
            whole = all(line.count(a) == line.count(b) for a, b in ("()", "[]", "{}", "<>"))
            older = re.search(r"@[\w.$-]+\s*\(\s*(MM2S|S2MM)", line)  # pre-#2727 shim allocation
            if name in names and whole and "//" not in line and not older:
                found.setdefault(name, []).append((path, line.strip()))
    return found


def test_upstream_lines_of_each_declared_op_print_back_as_written():
    """Every one-line op the table declares, as upstream's lit tests write it, prints back as
    written, spacing aside (``aie.tile(0,2)`` prints as aie-opt does, ``aie.tile(0, 2)``), and
    each of the one-line ops is among them."""
    found = _declared_lines()
    for name, lines in found.items():
        for path, line in lines:
            out = print_module(parse(path.read_text(), str(path))).splitlines()
            assert _bare(line) in {_bare(ln) for ln in out}, f"{path.name}: {line!r} not printed back"
    one_line = {"aie.tile", "aie.shim_dma_allocation", "aie.objectfifo", "aiex.run", "func.func"}
    assert one_line <= set(found), sorted(one_line - set(found))


def test_upstream_ops_read_into_their_classes():
    """``test_trace_configure_run.mlir`` (configure, run) and ``dma_operand_widths.mlir`` (tiles,
    shim allocation naming its tile): structured, not opaque."""
    module = parse((DATA / "upstream" / "test_trace_configure_run.mlir").read_text())
    ops = [op for dev in module.devices for seq in dev.sequences for op in ir.walk(seq.body)]
    assert [op.device for op in ops if isinstance(op, ir.Configure)] == ["dev_a", "dev_b"]
    assert [(op.sequence, op.args) for op in ops if isinstance(op, ir.Run)] == [
        ("seq_a", ["arg0"]),
        ("seq_b", ["arg1"]),
    ]
    dev = parse((DATA / "upstream" / "dma_operand_widths.mlir").read_text()).devices[0]
    kinds = {type(op) for op in dev.body}
    assert {ir.Tile, ir.ShimDmaAllocation} <= kinds, kinds


def test_the_older_shim_allocation_reads_as_todays():
    """``@sym(MM2S, 0, 0)`` (before PR #2727; the add_one_two corpus file spells it so) reads
    once its shim tile is declared and prints in today's form, naming the tile."""
    text = "module {\n  aie.device(npu1_1col) {\n    %t = aie.tile(0, 0)\n    aie.shim_dma_allocation @in0(MM2S, 1, 0)\n  }\n}\n"
    alloc = parse(text).devices[0].body[1]
    assert alloc == ir.ShimDmaAllocation("in0", "MM2S", 1, 0)
    assert "aie.shim_dma_allocation @in0(%t, MM2S, 1)" in print_module(parse(text))
    no_tile = text.replace("    %t = aie.tile(0, 0)\n", "")
    assert isinstance(parse(no_tile).devices[0].body[0], ir.Opaque)


@dataclass
class _Lock:
    name: str
    tile: str
    id: int
    attrs: str | None = None


_LOCK = structure.Op(_Lock, Form("aie.lock", "(%{tile}, {id:uint})[? {attrs:dict}?]"), result="name")


@pytest.fixture
def lock_declared():
    structure.declare(_LOCK)
    try:
        yield
    finally:
        structure.undeclare(_LOCK)


def test_one_declaration_adds_an_op(lock_declared):
    """Declaring ``aie.lock`` (one row, nothing else) makes the reader read upstream's locks into
    the class and the printer print them back as upstream wrote them."""
    text = LOCKS.read_text().replace("NPUDEVICE", "npu1_1col")  # the test's lit substitution
    lines = [
        ln.strip() for ln in text.splitlines() if "= aie.lock(" in ln and not ln.lstrip().startswith("//")
    ]
    assert len(lines) >= 3
    module = parse(text, str(LOCKS))
    locks = [op for dev in module.devices for op in dev.body if isinstance(op, _Lock)]
    assert [(lk.name, lk.tile, lk.id) for lk in locks[:2]] == [
        ("objFifo_in1_cons_prod_lock", "tile_0_2", 0),
        ("objFifo_in1_cons_cons_lock", "tile_0_2", 1),
    ]
    assert locks[0].attrs == '{init = 2 : i32, sym_name = "objFifo_in1_cons_prod_lock"}'
    printed = {ln.strip() for ln in print_module(module).splitlines()}
    assert set(lines) <= printed


def test_an_undeclared_op_stays_opaque():
    """Without the row (the fixture restores the table), the same lock is kept as text."""
    dev = parse(LOCKS.read_text().replace("NPUDEVICE", "npu1_1col")).devices[0]
    assert not any(isinstance(op, _Lock) for op in dev.body)
    assert any(isinstance(op, ir.Opaque) and "aie.lock(" in op.text for op in dev.body)


def test_printing_a_declared_op_names_the_op_and_field():
    """A field its kind cannot hold is refused naming the op and the field (not printed wrong)."""
    dev = ir.Device("npu1_1col", body=[ir.Tile("t", -1, 2)])
    with pytest.raises(Exception, match=r"aie\.tile: field 'col' \(uint\) cannot be -1"):
        print_module(ir.Module([dev]))


def test_upstream_memcpy_reads_its_fields():
    """(Read by hand, not yet declared.) ``dma_to_npu.mlir``: ``aiex.npu.dma_memcpy_nd (%arg0[0, 0, 0, 0][1, 1, 16, 16][0, 0, 64, 1])
    { metadata = @toMem, id = 1 : i64 }`` (attributes in any order) and the SSA-constant form."""
    module = parse((DATA / "upstream" / "dma_to_npu.mlir").read_text())
    ops = [op for dev in module.devices for seq in dev.sequences for op in ir.walk(seq.body)]
    memcpys = [op for op in ops if isinstance(op, ir.DmaMemcpyNd)]
    assert ir.DmaMemcpyNd("arg0", (0, 0, 0, 0), (1, 1, 16, 16), (0, 0, 64), "toMem", 1, False, 1) in memcpys
