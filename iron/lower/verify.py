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
from iron.trace.codegen import TRACE_BD
from iron.trace.manifest import Manifest

_DRAIN_WORD1 = shim_dma.bd_address(TRACE_BD) + 4


class WiringError(IronError):
    """A trace address patch does not point at its call site's slice."""


def trace_patches(ops: list) -> list[ir.AddressPatch]:
    """The address patches of trace drain BDs (shim BD 15 word 1), in program order."""
    out = []
    for op in ops:
        if isinstance(op, ir.AddressPatch):
            _col, row, offset = registers.split_address(op.addr)
            if row == 0 and offset == _DRAIN_WORD1:
                out.append(op)
    return out


def wiring_problems(ops: list, manifest: Manifest, kernel: str) -> list[str]:
    """Mismatches between the kernel's trace patches and its slices (empty: wired right)."""
    slices = sorted((s for s in manifest.slices if s.kernel == kernel), key=lambda s: s.index)
    patches = trace_patches(ops)
    problems = []
    if len(patches) != len(slices):
        problems.append(f"{kernel}: {len(patches)} trace address patches for {len(slices)} traced call sites")
    for s, p in zip(slices, patches):
        want_plus = s.offset if manifest.trace_arg_index >= 0 else 0
        if p.arg_idx != s.arg_index or p.arg_plus != want_plus:
            problems.append(
                f"{kernel}: call site {s.index} ({s.operator}) patches host buffer {p.arg_idx} + {p.arg_plus} "
                f"but its slice is buffer {s.arg_index} + {want_plus}"
            )
    return problems


def check_wiring(ops: list, manifest: Manifest | None, kernel: str) -> None:
    """Raise :class:`WiringError` listing every mismatch."""
    if manifest is None:
        return
    problems = wiring_problems(ops, manifest, kernel)
    if problems:
        raise WiringError("trace wiring is wrong:\n  " + "\n  ".join(problems))
