"""Check a kernel's flat control code against the trace manifest before packaging.

Every traced call site must patch its drain BD with the dispatched kernel's
trace argument and its own slice offset. This is the check that catches the
original bug (a patch left at the operator's own argument index, which after
fusion names some other buffer, or none, so the trace comes back empty).
"""

from __future__ import annotations

from iron.errors import IronError
from iron.mlir import ir
from iron.target import registers, shim_dma
from iron.target.geometry import SHIM_ROW
from iron.target.trace_unit import TRACE_BD
from iron.instrument import layout
from iron.artifact.manifest import Manifest

_DRAIN_WORD1 = shim_dma.bd_address_low(TRACE_BD)


class WiringError(IronError):
    """A trace address patch does not point at its call site's slice."""


def trace_patches(ops: list) -> list[ir.AddressPatch]:
    """The address patches of trace drain BDs (shim BD 15 word 1), in program order."""
    out = []
    for op in ops:
        if isinstance(op, ir.AddressPatch):
            _col, row, offset = registers.split_address(op.addr)
            if row == SHIM_ROW and offset == _DRAIN_WORD1:
                out.append(op)
    return out


def wiring_problems(ops: list, manifest: Manifest, kernel: str) -> list[str]:
    """Mismatches between the kernel's trace patches and its slices (empty: wired right).

    Fused dispatch: one patch per traced call site, in program order, at the
    trace argument + the slice offset. Separate dispatch: the kernel runs once per
    call site with its slice bound as a sub-buffer, so its one patch must name its
    own trace argument at offset 0.
    """
    slices = sorted((s for s in manifest.slices if s.kernel == kernel), key=lambda s: s.index)
    if not slices:
        return []
    patches = trace_patches(ops)
    want = layout.expected_patches(manifest, slices)
    problems = []
    if len(patches) != len(want):
        problems.append(f"{kernel}: {len(patches)} trace address patches, expected {len(want)}")
    for s, (arg, plus), p in zip(slices, want, patches):
        if (p.arg_idx, p.arg_plus) != (arg, plus):
            problems.append(
                f"{kernel}: call site {s.index} ({s.operator}) patches host buffer {p.arg_idx} + {p.arg_plus} "
                f"but its slice is buffer {arg} + {plus}"
            )
    return problems


def check_wiring(ops: list, manifest: Manifest | None, kernel: str) -> None:
    """Raise :class:`WiringError` listing every mismatch."""
    if manifest is None:
        return
    problems = wiring_problems(ops, manifest, kernel)
    if problems:
        raise WiringError("trace wiring is wrong:\n  " + "\n  ".join(problems))
