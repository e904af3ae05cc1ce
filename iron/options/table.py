"""The option table: every option declared once in :data:`OPTIONS` (its name, environment
variable, :func:`iron.build` keyword, command-line flag, parser, default, doc line and where
it applies), and docs/reference.md's "Options" table rendered from it (:func:`markdown_table`;
``python docs/options_table.py`` rewrites the page, ``iron/tests/test_readme.py`` checks it).

A trace option's default here is also its :class:`~iron.options.values.TraceOptions`
field's default (that class reads them from this table), so the two cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping

from iron.options.defaults import (
    BACKENDS,
    CORE_TRACE_MODES,
    DEFAULT_CORE_EVENTS,
    DEFAULT_OUT_DIR,
    DEFAULT_START,
    DEFAULT_STOP,
    DEVICES,
)
from iron.options.parsers import (
    one_of,
    parse_boundary,
    parse_events,
    parse_flag,
    parse_install_dir,
    parse_ntiles,
    parse_path,
    parse_ports,
    parse_select,
    parse_trace_mode,
    parse_units,
)
from iron.options.sizes import (
    DEFAULT_TRACE_SIZE,
    HOST_BYTES_PER_TRACE_BYTE,
    MAX_TRACE_SIZE,
    TRACE_SIZE_QUANTUM,
    parse_sizes,
    site_size,
)
from iron.target.trace_unit import SLOTS

#: :meth:`Option.pick` without a default: the row's own applies.
UNSET = object()


@dataclass(frozen=True)
class Option:
    """One option, declared once in :data:`OPTIONS`.

    ``name`` is the keyword of the function that resolves it (:func:`~iron.options.resolve`
    for trace options), ``field`` the :class:`~iron.options.values.TraceOptions` field it
    fills (None: not a trace option), ``keyword`` its :func:`iron.build` keyword (None: not one). ``parse(name,
    value)`` validates an explicit value or the variable's text and returns the
    canonical value (None: use the default), naming ``name`` in its errors.
    """

    name: str
    env: str
    parse: Callable[[str, object], object] | None  # None: read elsewhere (documented here only)
    doc: str  # the options table's "meaning" cell
    applies: str  # which calls, commands and tests follow it
    keyword: str | None = None
    cli: tuple[str, ...] = ()  # command-line flags that set it, "iron demo --trace-size"
    field: str | None = None
    default: object = None  # trace options: also TraceOptions' field default (iron.options.values)
    shown_default: str = ""  # the options table's default cell when the value alone says too little
    blank_is_unset: bool = True  # False: an empty variable is parsed (and refused)

    @property
    def argument(self) -> str:
        """How an error names an explicit value: the build keyword, else ``name``."""
        return self.keyword or self.name

    def pick(self, explicit, env: Mapping[str, str], default=UNSET) -> tuple[object, str]:
        """``(value, origin)``: ``explicit`` parsed, else the variable's text parsed, else the
        default (``default`` when given); ``origin`` is what errors about it name."""
        default = self.default if default is UNSET else default
        if explicit is not None:
            value, origin = self.parse(self.argument, explicit), self.argument
        elif env.get(self.env) or (self.env in env and not self.blank_is_unset):
            value, origin = self.parse(self.env, env[self.env]), self.env
        else:
            return default, self.argument
        return (default if value is None else value), origin


_OPERATOR_CHECKS = "operator checks"
_TRACED = f"`iron.build`, {_OPERATOR_CHECKS}"

#: Every option, in the order docs/reference.md lists them. Trace options are resolved in this order too
#: (``out_dir`` and ``size`` first: they decide whether the rest is read).
OPTIONS: tuple[Option, ...] = (
    Option(
        "size", "IRON_TRACE_SIZE", site_size, field="size", default=0, keyword="trace_size",
        cli=("iron demo --trace-size",), blank_is_unset=False,
        shown_default=f"0: untraced (`trace=True`: {DEFAULT_TRACE_SIZE})",
        applies=f"{_TRACED}, `iron demo`",
        doc=f"bytes of trace buffer **per traced call site**. A multiple of {TRACE_SIZE_QUANTUM} (one "
        f"packet), at most {MAX_TRACE_SIZE} (8 GiB - 32: the drain BD's length in words is an i32 in "
        "mlir-aie's `aiex.npu.writebd`) and at most this host's physical memory / "
        f"{HOST_BYTES_PER_TRACE_BYTE}; all call sites together must fit that host bound too, and every "
        "slice but the last must start below 2 GiB (a trace patch's `arg_plus` is an i32). Checked "
        "before anything is built",
    ),
    Option(
        "ntiles", "IRON_TRACE_NTILES", parse_ntiles, field="ntiles", default=1, keyword="ntiles", blank_is_unset=False,
        applies=f"{_TRACED}, `iron demo` (default 4 there)",
        doc="compute tiles traced per design (more than the design has: all, with a warning). Tiles whose "
        "trace cannot get past the design's circuit streams (every South port below them taken, as in "
        "whole-array GEMMs with 4 cores per column) are skipped with a warning; when no core can, its "
        "memtiles are traced (memtile events default to `PORT_RUNNING_0..7`)",
    ),
    Option(
        "events", "IRON_TRACE_EVENTS", parse_events, field="events",
        default=(("core", DEFAULT_CORE_EVENTS),), keyword="events", applies=_TRACED,
        shown_default="core: " + ", ".join(DEFAULT_CORE_EVENTS),
        doc="events per unit kind: `INSTR_EVENT_0,LOCK_STALL` (core) or "
        f"`core=...;mem=...;memtile=...;shim=...` (at most {SLOTS} each; `iron events KIND` lists the "
        "names)",
    ),
    Option(
        "select", "IRON_TRACE_OP", parse_select, field="select", default=None, keyword="select", applies=_TRACED,
        shown_default="all call sites",
        doc="call sites to trace: indices (`0,2`), `op<N>` / `op<N>_<Name>` (call site N, which must run "
        "`<Name>`), or operator class names (`gemm`). A selection naming no call site is an error for "
        "`iron.build` (`main`, the wrapper's device, has no units: see \"Foreign designs\"). In the "
        "traced test suite it applies to the operator checks that follow the environment: a check whose "
        "call sites it does not name runs untraced with an `UntracedWarning`; tests that build with "
        "explicit options do not inherit it",
    ),
    Option(
        "trace_mode", "IRON_TRACE_MODE", parse_trace_mode, field="core_mode", keyword="trace_mode",
        default=CORE_TRACE_MODES[0],
        applies=_TRACED,
        doc="trace mode of **core** units: `event-time` (events with cycle counts) or `event-pc` "
        "(EVENT_PC, mode 1: which slots fired at which program counter, no cycles). Memory-module, "
        "memtile and shim units stay event-time (only the core has a mode field); recorded per unit in "
        "the manifest, part of the cache key. sim models both: in event-pc mode its cores report PCs in "
        "a synthetic code range per kernel (no ELF), entry at INSTR_EVENT_0 and exit at INSTR_EVENT_1",
    ),
    Option(
        "out_dir", "IRON_TRACE_DIR", parse_path, field="out_dir", default=Path(DEFAULT_OUT_DIR), cli=("iron demo --out",),
        shown_default=f"`./{DEFAULT_OUT_DIR}`", applies=f"{_OPERATOR_CHECKS}, `iron demo`",
        doc="where tests and `iron demo` write decoded traces",
    ),
    Option(
        "sizes", "IRON_TRACE_SIZES", parse_sizes, field="sizes", default=(), keyword="trace_sizes",
        applies=_TRACED,
        shown_default="none",
        doc="per call-site bytes, `0:4096,2:8192` (0: that site untraced; the keyword also takes "
        "`{0: 4096}`). A site's size comes from, first to last: `trace_sizes`/`IRON_TRACE_SIZES`, the "
        "step's own `iron.Step(op, *buffers, trace_size=N)`, a foreign design's "
        "`aie.trace.host_config` `buffer_size`, then `IRON_TRACE_SIZE`. Slices stay contiguous in "
        "program order, each its own size",
    ),
    Option(
        "start", "IRON_TRACE_START", parse_boundary, field="start", default=DEFAULT_START, keyword="trace_start", applies=_TRACED,
        shown_default=f"`{DEFAULT_START}`",
        doc="when units start, in the forms of mlir-aie's `aie.trace.start`: `broadcast=N` (the default "
        "is raised by the drain shim at the start of each traced call), `TRUE` (start at once; iron "
        "writes Trace_Control0 last), `NONE` (never), `USER_EVENT_<n>` (iron raises it with "
        "Event_Generate on every traced module at the start of the call). Other events are refused: "
        "nothing in iron raises them",
    ),
    Option(
        "stop", "IRON_TRACE_STOP", parse_boundary, field="stop", default=DEFAULT_STOP, keyword="trace_stop", applies=_TRACED,
        shown_default=f"`{DEFAULT_STOP}`",
        doc="when units stop, in the forms of `aie.trace.stop`: `broadcast=N` (the default is raised by "
        "the drain shim at the end of each traced call), `NONE` (never; sim hands the unit's packets "
        "over when the device is reconfigured or the kernel ends), `USER_EVENT_<n>` (raised at the end "
        "of the call). Not `TRUE`, nor the start's own setting",
    ),
    Option(
        "units", "IRON_TRACE_UNITS", parse_units, field="units", default=None, keyword="trace_units", applies=_TRACED,
        shown_default="the first `IRON_TRACE_NTILES` compute tiles",
        doc="units at chosen tiles: `core(0,2),mem(0,2),memtile(0,1),shim(0,0)` (design-relative "
        "columns; each kind listed needs events in `IRON_TRACE_EVENTS`; a unit whose trace cannot reach a "
        "shim past the design's circuit streams is refused)",
    ),
    Option(
        "ports", "IRON_TRACE_PORTS", parse_ports, field="ports", default=(), keyword="trace_ports", applies=_TRACED,
        shown_default="core: DMA 0 S2MM, DMA 0 MM2S, DMA 1 S2MM, DMA 1 MM2S, ...; memtile: DMA n//2; "
        "shim: none (`DEFAULT_PORTS`)",
        doc="stream-switch port each `PORT_*_<n>` event slot watches, as mlir-aie's `aie.trace.port<n> "
        "port = North channel = 1 direction = S2MM`: `core=0:North:1:S2MM,1:DMA:0:MM2S;"
        "memtile=0:DMA:2:S2MM;shim=0:South:3:MM2S` (no `kind=`: core; direction `S2MM`/`master` or "
        "`MM2S`/`slave`; bundles DMA, North, South, East, West, Core, Ctrl, FIFO, Trace where the tile "
        "kind has them, checked against the one port table `iron/target/stream_switch.py` from "
        "mlir-aie's `AIETargetModel.cpp`). Slots not named watch the defaults. Each unit's watched ports "
        "are in the manifest (`ports`)",
    ),
    Option(
        "cache_dir", "IRON_CACHE_DIR", parse_path, keyword="cache_dir", default=Path("build") / "iron-cache",
        cli=("iron cache list --cache-dir", "iron cache clear --cache-dir"),
        shown_default="`./build/iron-cache`", applies="`iron.build`, `iron cache`", doc="build cache",
    ),
    Option(
        "sources", "IRON_DEBUG_SOURCES", parse_flag, keyword="sources", default=False, shown_default="0",
        applies="`iron.build`",
        doc="`1`: embed the design sources (and aiecc's core ELFs) in artifacts (and so in captures)",
    ),
    Option(
        "backend", "IRON_BACKEND", one_of(BACKENDS), keyword="backend", default="auto",
        applies=f"`iron.build`, `iron.machine`; in the test suite the {_OPERATOR_CHECKS} only",
        doc="`auto`, `builtin` (iron's lowering; sim runs it) or `aiecc` (mlir-aie's toolchain; an NPU "
        "runs it); part of the cache key",
    ),
    Option(
        "device", "IRON_DEVICE", one_of(DEVICES), default="auto", cli=("iron demo --device",),
        applies=f"`art.load(device)`, `iron.machine`; in the test suite the {_OPERATOR_CHECKS} only",
        doc="`auto`, `sim` or `xrt`; `xrt` without an NPU is one error",
    ),
    Option(
        "test_machine", "IRON_TEST_MACHINE", None, default="none", applies="the test suite; `.ci/run`",
        doc="tests only: `none` (what is installed), `toolchain` (a fake mlir-aie on PATH), `npu` (that "
        "plus a fake NPU behind `pyxrt`, iron's sim executing what XRT is handed); `.ci/run` runs the "
        "suite on each",
    ),
    Option(
        "mlir_aie_dir", "MLIR_AIE_INSTALL_DIR", parse_install_dir, default=None,
        shown_default="the folder above `bin/aiecc`", applies="aiecc builds",
        doc="mlir-aie's install folder (mlir-aie's own variable)",
    ),
    Option(
        "peano_dir", "PEANO_INSTALL_DIR", parse_install_dir, default=None,
        shown_default="where aiecc looks", applies="aiecc builds",
        doc="Peano (llvm-aie)'s install folder (mlir-aie's own variable)",
    ),
)  # fmt: skip


def option(name: str) -> Option:
    """The row of :data:`OPTIONS` named ``name``."""
    return next(o for o in OPTIONS if o.name == name)


#: Options :func:`~iron.options.resolve` reads, by name (the rows that fill a TraceOptions field).
TRACE_OPTIONS = {o.name: o for o in OPTIONS if o.field is not None}


def markdown_table() -> str:
    """docs/reference.md's options table (section "Options"), rendered from :data:`OPTIONS`."""

    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    rows = [
        "| variable | `iron.build` keyword | command line | default | meaning | applies to |",
        "|---|---|---|---|---|---|",
    ]
    for o in OPTIONS:
        keyword = f"`{o.keyword}`" if o.keyword else ""
        default = o.shown_default or f"`{o.default}`"
        flags = ", ".join(f"`{flag}`" for flag in o.cli)
        rows.append(
            f"| `{o.env}` | {keyword} | {cell(flags)} | {cell(default)} | {cell(o.doc)} | {o.applies} |"
        )
    return "\n".join(rows) + "\n"
