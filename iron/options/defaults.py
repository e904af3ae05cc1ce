"""What a build gets when nothing is said, and the choices of the options that pick one.

Names of hardware things come from their tables under :mod:`iron.target`: unit kinds
from :mod:`iron.target.events`, trace modes from :mod:`iron.target.trace_modes`, the
start and stop broadcasts from :mod:`iron.target.trace_unit`.
"""

from __future__ import annotations

from iron.target.events import MODULE_KINDS
from iron.target.trace_modes import EVENT_PC, EVENT_TIME, MODES
from iron.target.trace_unit import START_BROADCAST, STOP_BROADCAST

#: Kinds of trace unit, in packet-type order (iron.target.events.MODULE_KINDS).
UNIT_KINDS: tuple[str, ...] = MODULE_KINDS
#: Events traced on a core module unless IRON_TRACE_EVENTS says otherwise.
DEFAULT_CORE_EVENTS = (
    "INSTR_EVENT_0",
    "INSTR_EVENT_1",
    "INSTR_VECTOR",
    "MEMORY_STALL",
    "STREAM_STALL",
    "LOCK_STALL",
    "PORT_RUNNING_0",
    "PORT_RUNNING_1",
)
#: Events a memtile unit traces when iron traces the memtiles because no core's trace can
#: leave its column (:mod:`iron.instrument.routes`) and the build lists none: its DMA
#: channels 0..3 running, both directions, as mlir-aie's trace setup defaults a memtile
#: (``python/utils/trace/setup.py`` ``_get_default_events_for_tile``, a9e39fae); the slots
#: watch :data:`iron.target.stream_switch.DEFAULT_PORTS` (the same eight ports).
DEFAULT_MEMTILE_EVENTS = tuple(f"PORT_RUNNING_{n}" for n in range(8))
#: Modes a build may ask of core units (names from iron.target.trace_modes). Only the core
#: module's Trace_Control0 has a Mode field (mlir-aie AIETraceToConfig.cpp), so the
#: memory module, memtile and shim units are always event-time. Execution trace (2)
#: has no public format to decode, so iron does not configure it.
CORE_TRACE_MODES = (MODES[EVENT_TIME], MODES[EVENT_PC])
DEFAULT_OUT_DIR = "iron-traces"
#: When trace units start and stop unless IRON_TRACE_START/STOP say otherwise: the shim
#: raises broadcast 15 at the start of each traced call and 14 at its end.
DEFAULT_START = f"broadcast={START_BROADCAST}"
DEFAULT_STOP = f"broadcast={STOP_BROADCAST}"
#: Build back ends: iron's own lowering, mlir-aie's aiecc, or the machine's choice.
BACKENDS = ("auto", "builtin", "aiecc")
#: Devices: iron's simulator, an NPU through XRT, or the machine's choice.
DEVICES = ("auto", "sim", "xrt")
