"""The trace register program iron writes for an ``aie.trace`` configuration equals what the
real mlir-aie a9e39fae passes write for it.

mlir-aie lowers a declarative ``aie.trace`` op with ``-aie-trace-to-config`` (fields from the
register database in the install's ``lib/regdb``), ``-aie-trace-pack-reg-writes`` and
``-aie-inline-trace-config`` (one ``aiex.npu.write32`` per register where the sequence says
``aie.trace.start_config``). iron reads the same ops (:mod:`iron.instrument.declarative`) and
writes the unit's registers itself (:func:`iron.instrument.codegen.unit_writes`). Both get the
same text; the write32 (column, row, address, value) multisets must be equal.

Configurations: the two a9e39fae lit tests that run these passes end to end (a core unit; a
core unit watching a stream-switch port), and the four ``aie.trace`` ops of upstream's
event_trace example (core, mem, memtile and shim units, event and broadcast start/stop forms,
eight port slots), put into a module a9e39fae reads (its tiles, the traces, a sequence starting
each). Timer_Control and the drain are ``-aie-insert-trace-flows``' part, not compared here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from iron.instrument.codegen import unit_writes
from iron.instrument.declarative import declared_units
from iron.mlir import ir
from iron.mlir.reader import parse
from iron.tests import real_mlir_aie
from iron.tests.designs import DESIGNS

DATA = Path(__file__).parent / "data"
PASSES = ("-aie-trace-to-config", "-aie-trace-pack-reg-writes", "-aie-inline-trace-config")
_CONST = re.compile(r"(%[\w.\-]+) = arith\.constant (-?\d+) : i32")
_WRITE = re.compile(
    r"aiex\.npu\.write32\((%[\w.\-]+), (%[\w.\-]+)\) \{column = (\d+) : i32, row = (\d+) : i32\}"
)
_TILE = re.compile(r"^\s*%[\w.]+ = aie\.tile\(\d+, \d+\)$", re.M)
_TRACE = re.compile(r"^\s*aie\.trace @(\w+)\(%[\w.]+\) \{\n.*?^\s*\}$", re.M | re.S)


def _event_trace_module() -> str:
    """The event_trace example's tiles and aie.trace ops (iron/tests/data/designs, SOURCES.md
    there), each started by one runtime sequence: the parts a9e39fae reads of that file."""
    src = (DATA / "designs" / DESIGNS["event_trace"]["file"]).read_text()
    tiles = "\n".join(m.group(0) for m in _TILE.finditer(src))
    traces = list(_TRACE.finditer(src))
    starts = "\n".join(f"      aie.trace.start_config @{m.group(1)}" for m in traces)
    body = "\n".join(m.group(0) for m in traces)
    return (
        "module {\n  aie.device(npu1_1col) {\n"
        f"{tiles}\n{body}\n"
        f"    aie.runtime_sequence @seq(%arg0: memref<32xi32>) {{\n{starts}\n    }}\n  }}\n}}\n"
    )


CONFIGS = {
    "lit-end-to-end": lambda: (DATA / "a9e39fae" / "test_trace_end_to_end.mlir").read_text(),
    "lit-port-end-to-end": lambda: (DATA / "a9e39fae" / "test_trace_port_end_to_end.mlir").read_text(),
    "event_trace-example": _event_trace_module,
}


def real_writes(text: str) -> list[tuple[int, int, int, int]]:
    """(column, row, address, value) of every write32 the real passes write for ``text``."""
    out = real_mlir_aie.aie_opt(text, *PASSES)
    assert out.returncode == 0, out.stderr
    consts = {name: int(v) for name, v in _CONST.findall(out.stdout)}
    return sorted(
        (int(c), int(r), consts[a], consts[v] & 0xFFFFFFFF) for a, v, c, r in _WRITE.findall(out.stdout)
    )


#: Stream_Switch_Event_Port_Selection_1 of a core / memtile / shim trace unit, tile-relative
#: (a9e39fae lib/regdb; the inline pass writes 0x3FF04 (core) where slots 4-7 are used).
SELECTION_1 = {2: 0x3FF04, 1: 0xB0F04, 0: 0x3FF04}


def iron_writes(text: str) -> list[tuple[int, int, int, int]]:
    """(column, row, address, value) of the unit registers iron writes for the same text,
    without the one deliberate difference: iron writes port selection 1 = 0 (its reset value)
    where the passes leave it out, slots 4-7 unused (asserted here, then dropped)."""
    device = parse(text).devices[0]
    ops = [op for u in declared_units(device) for op in unit_writes(u)]
    assert all(isinstance(op, ir.Write32) for op in ops)
    used_4_7 = {(u.column, u.row) for u in declared_units(device) if any(p[0] >= 4 for p in u.ports)}
    out = []
    for op in ops:
        if op.address == SELECTION_1[min(op.row, 2)] and (op.column, op.row) not in used_4_7:
            assert (
                op.value == 0
            ), f"selection 1 of ({op.column}, {op.row}) with slots 4-7 unused: {op.value:#x}"
            continue
        out.append((op.column, op.row, op.address, op.value))
    return sorted(out)


@pytest.mark.parametrize("name", CONFIGS)
def test_trace_unit_registers_equal_the_real_trace_passes(real_mlir_aie, name):
    text = CONFIGS[name]()
    theirs = real_writes(text)
    assert theirs, "the real passes wrote nothing: the comparison would be empty"
    assert iron_writes(text) == theirs
