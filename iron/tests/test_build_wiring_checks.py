"""``iron.build`` refuses wiring that would put a trace where it does not belong (a patch, an
offset or an index wrong; a separate kernel patching beyond its slice), checked on the lowered
control code before anything is cached.
"""

from __future__ import annotations

import dataclasses

import pytest

from iron import Sequence
from iron import build
from iron.builder import build as build_mod
from iron.lower.verify import WiringError
from iron.mlir import ir
from iron.operators import ElementwiseAdd

ADD = ElementwiseAdd(4096, "i32", columns=1, cores_per_column=1, tile_size=512)


TWO = Sequence("two", [(ADD, "x", "y", "a"), (ADD, "a", "y", "b")], ["x", "y"], ["b"])


SIZE = 4096


DRAIN_WORD1 = 0x1D000 + 0x20 * 15 + 4  # shim BD 15 word 1 (docs/design.md 4)


def _corrupt(monkeypatch, change):
    """Make the lowering hand ``build`` control code whose trace patches ``change`` edits."""
    real = build_mod.kernel_ops

    def broken(fm, kernel, translate_patches=True):
        ops = real(fm, kernel, translate_patches=translate_patches)
        where = [
            i
            for i, op in enumerate(ops)
            if isinstance(op, ir.AddressPatch) and op.addr & 0xFFFFF == DRAIN_WORD1
        ]
        return change(list(ops), where) if where else ops  # the iron_reset kernel has no patch

    monkeypatch.setattr(build_mod, "kernel_ops", broken)


def _offset(ops, where):
    ops[where[1]] = dataclasses.replace(ops[where[1]], arg_plus=0)  # call 1 drains into slice 0
    return ops


def _missing(ops, where):
    del ops[where[1]]
    return ops


def _index(ops, where):
    ops[where[0]] = dataclasses.replace(ops[where[0]], arg_idx=0)  # into input x
    return ops


@pytest.mark.parametrize(
    "change, says",
    [
        (
            _offset,
            r"call site 1 \(ElementwiseAdd\) patches host buffer 4 \+ 0 but its slice is buffer 4 \+ 4096",
        ),
        (_missing, r"1 trace address patches, expected 2"),
        (_index, r"call site 0 \(ElementwiseAdd\) patches host buffer 0 \+ 0 but its slice is buffer 4 \+ 0"),
    ],
    ids=["wrong-slice-offset", "missing-patch", "wrong-index"],
)
def test_build_refuses_bad_wiring(tmp_path, monkeypatch, change, says):
    _corrupt(monkeypatch, change)
    with pytest.raises(WiringError, match=says):
        build(TWO, trace=True, trace_size=SIZE, ntiles=1, target="npu2", cache_dir=tmp_path)
    assert not list(tmp_path.glob("*.elf"))  # nothing half-written


def test_build_refuses_a_separate_kernel_patching_beyond_its_slice(tmp_path, monkeypatch):
    def shifted(ops, where):
        ops[where[0]] = dataclasses.replace(ops[where[0]], arg_plus=64)
        return ops

    _corrupt(monkeypatch, shifted)
    with pytest.raises(WiringError, match=r"patches host buffer 3 \+ 64 but its slice is buffer 3 \+ 0"):
        build(TWO, trace=True, trace_size=SIZE, ntiles=1, target="npu1", cache_dir=tmp_path)
