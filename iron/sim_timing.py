"""sim's timing beside real hardware: the designs whose NPU trace captures iron holds.

Each captured design (:data:`CAPTURED`) is the capture's own mlir-aie design, run on sim
through :func:`iron.from_mlir` with its own trace configuration (the register writes,
packet flows and drain BD of its runtime sequence, untouched). Only the drain's host
buffer changes: these designs were written for a host runtime that bound the trace buffer
as an extra kernel argument the sequence does not declare (``address_patch arg_idx = 4``
with three arguments), so :func:`sim_design` declares it as one more argument of the
sequence. sim's trace words and the hardware's are then decoded the same way, with the
manifest the original design gives (:func:`iron.trace.capture.capture_from_mlir`), and
:func:`figures` reads the same figures from both: kernel durations (``INSTR_EVENT_0`` to
the next ``INSTR_EVENT_1``), the gaps between consecutive calls and the part of each gap
the core is not in ``LOCK_STALL`` (busy: releases, acquires, loop and call overhead), the
wake-to-kernel gap (the end of the core's last ``LOCK_STALL`` before a call, i.e. its input's
lock granted by the DMA, to the call) and stall cycles.

Captures not used, and why: xdna-emu's ``mode0_add_one_objfifo_r0.bin`` (its design
MLIR is not published beside it), ``mode1_mixed_r0.bin`` (EVENT_PC mode: no event times;
its design is not published either), ``mode2_mixed_r0.bin`` (execution-trace mode, which
iron does not decode), mlir-air's ``generate_trace_write32.mlir`` (a lit test: no capture).
"""

from __future__ import annotations

import re
import statistics
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from iron.errors import IronError
from iron.target.events import KERNEL_END, KERNEL_START

DATA = Path(__file__).resolve().parent / "tests" / "data"


@dataclass(frozen=True)
class CapturedDesign:
    """A design and the hardware capture of its trace (paths under ``iron/tests/data``)."""

    name: str
    design: str
    capture: str
    source: str  # repository, path and commit of the capture (the folder's SOURCES.md)

    def design_text(self) -> str:
        return (DATA / self.design).read_text()


CAPTURED: tuple[CapturedDesign, ...] = (
    CapturedDesign(
        "mlir-aie test1",
        "mlir-aie-test1/aie.mlir",
        "mlir-aie-test1/trace.txt",
        "Xilinx/mlir-aie test/parse-trace/test1/trace_test1.txt @b2addbff",
    ),
    CapturedDesign(
        "mlir-aie test2",
        "mlir-aie-test2/aie.mlir",
        "mlir-aie-test2/trace.txt",
        "Xilinx/mlir-aie test/parse-trace/test2/trace_test2.txt @0df98817",
    ),
    CapturedDesign(
        "xdna-emu vector_scalar",
        "xdna-emu-vecscalar/input_with_addresses.mlir",
        "xdna-emu-vecscalar/trace_hw.bin",
        "FIM43-Redeye/xdna-emu tools/tests/fixtures/vector_scalar/trace_hw.bin @7380bd56",
    ),
)

_SEQUENCE = re.compile(r"aie\.runtime_sequence\s*(?:@[\w$.-]+\s*)?\(([^)]*)\)")
_TRACE_BD = re.compile(r"aiex\.npu\.writebd\s*\{[^}]*?\bbd_id = 15 : i32[^}]*\}")
_LENGTH = re.compile(r"\bbuffer_length = (\d+) : i32")
_PATCH = re.compile(r"(aiex\.npu\.address_patch\b[^{\n]*\{[^}]*?\barg_idx = )(\d+)( : i32)")


class CapturedDesignError(IronError):
    """A captured design iron cannot give its trace buffer to on sim."""


def sim_design(text: str) -> tuple[str, int]:
    """The design with its trace drain's buffer declared as the sequence's last argument:
    ``(text, trace buffer bytes)``. The drain is shim BD 15 (``aiex.npu.writebd``, its
    ``buffer_length`` in 32-bit words) and the ``address_patch`` whose ``arg_idx`` the
    sequence has no argument for."""
    seq, bd = _SEQUENCE.search(text), _TRACE_BD.search(text)
    length = bd and _LENGTH.search(bd.group(0))
    if seq is None or not length:
        raise CapturedDesignError(
            "captured design: needs an aie.runtime_sequence and its trace drain (aiex.npu.writebd "
            f"with bd_id = 15 and a buffer_length); found sequence={seq is not None}, drain={bool(length)}"
        )
    nargs = seq.group(1).count("%")
    words = int(length.group(1))
    patches = [m for m in _PATCH.finditer(text) if int(m.group(2)) >= nargs]
    if len(patches) != 1:
        raise CapturedDesignError(
            f"captured design: expected one address_patch past the sequence's {nargs} arguments "
            f"(the trace drain's), found {len(patches)}"
        )
    (p,) = patches
    # the patch is in the sequence's body: rewriting it leaves the signature's offsets as they are
    out = text[: p.start(2)] + str(nargs) + text[p.end(2) :]
    cut = seq.end(1)
    sep = ", " if nargs else ""
    out = out[:cut] + f"{sep}%iron_trace: memref<{words}xi32>" + out[cut:]
    return out, 4 * words


def sim_words(text: str, seed: int = 0) -> np.ndarray:
    """Run the captured design ``text`` on sim (npu1, iron's built-in lowering) and return
    the trace words its own drain wrote. Inputs: seeded small integers (timing does not
    depend on them)."""
    import iron

    design, _ = sim_design(text)
    with warnings.catch_warnings():
        # old syntax translated (LegacySyntaxWarning) and kernels without a numpy model: expected here
        warnings.simplefilter("ignore")
        op = iron.from_mlir(design, name="captured")
        art = iron.build(op, trace=False, target="npu1")
    rng = np.random.default_rng(seed)
    inputs = [
        rng.integers(0, 8, size=a.shape).astype(a.numpy_dtype) for a in op.arg_spec() if a.direction != "out"
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outputs = art.load("sim")(*inputs)
    return np.asarray(outputs[-1]).view(np.uint32).ravel().copy()


def decode(words: np.ndarray, text: str):
    """The core units of ``words`` decoded with the manifest of the original design ``text``."""
    from iron.trace.capture import capture_from_mlir

    cap = capture_from_mlir(words, text)
    return [u for s in cap.slices for u in s.units if u.kind == "core"]


def hardware_words(cd: CapturedDesign) -> np.ndarray:
    """The capture's words, as iron's decoder reads the file."""
    from iron.trace.capture import read_words

    words, _ = read_words(DATA / cd.capture)
    return np.asarray(words, dtype=np.uint32)


def figures(unit) -> dict:
    """Timing figures of one decoded core unit that traces the kernel events: ``kernel``,
    ``gap`` (end of a call to the start of the next), ``busy`` (the cycles of each gap not in
    LOCK_STALL; the gap itself unless LOCK_STALL is traced), ``wake`` (end of the last
    LOCK_STALL before a call to the call; empty unless LOCK_STALL is traced): lists of cycles;
    ``stall``: LOCK_STALL cycles in all (None unless traced)."""
    from iron.trace.export.summary import invocations

    names, runs = unit.events, unit.runs
    if KERNEL_START not in names or KERNEL_END not in names:
        raise CapturedDesignError(f"{unit.label}: traces no {KERNEL_START}/{KERNEL_END}")
    begin, end = invocations(
        runs.intervals(names.index(KERNEL_START))[0], runs.intervals(names.index(KERNEL_END))[0]
    )
    gap = (begin[1:] - end[:-1]).tolist()
    out = {"kernel": (end - begin).tolist(), "gap": gap, "busy": gap, "wake": [], "stall": None}
    if "LOCK_STALL" in names:
        sb, se = runs.intervals(names.index("LOCK_STALL"))
        out["stall"] = int((se - sb).sum())
        idx = np.searchsorted(se, begin, side="right") - 1  # last stall ended at or before each call
        out["wake"] = [int(b - se[i]) for b, i in zip(begin.tolist(), idx.tolist()) if i >= 0]
        out["busy"] = [g - _overlap(sb, se, lo, hi) for g, lo, hi in zip(gap, end[:-1], begin[1:])]
    return out


def _overlap(begin: np.ndarray, end: np.ndarray, lo: int, hi: int) -> int:
    """Cycles of the intervals ``[begin, end)`` inside ``[lo, hi)``."""
    return int((np.clip(end, lo, hi) - np.clip(begin, lo, hi)).sum())


def stats(values: list) -> dict | None:
    """median/min/max of ``values`` (None: none)."""
    if not values:
        return None
    return {"n": len(values), "median": statistics.median(values), "min": min(values), "max": max(values)}


def compare(cd: CapturedDesign) -> dict:
    """``{"sim": figures, "hw": figures}`` of the first core unit with kernel events."""
    text = cd.design_text()
    hw = decode(hardware_words(cd), text)
    sim = decode(sim_words(text), text)
    pick = lambda units: next(figures(u) for u in units if KERNEL_START in u.events)  # noqa: E731
    return {"sim": pick(sim), "hw": pick(hw)}
