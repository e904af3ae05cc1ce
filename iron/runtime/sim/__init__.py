"""sim: iron's built-in model of the NPU control path and trace hardware.

sim is not cycle-accurate. It executes a kernel's transaction stream as the
firmware would (register writes, BD block writes, DDR patches against the bound
host buffers, task queues and their completion semantics, PDI loads as
reconfiguration), computes outputs with each operator's numpy reference, and
drives the traced tiles from an activity model whose events go through the real
trace path: slot filtering, frame encoding, 8-word packets with real headers,
routing by the design's packet flows, and the drain BD into host memory,
bounded by the BD length. Its timelines are plausible, not measured; its value
is that every wiring mistake the hardware would punish (wrong argument index,
wrong offset, overlapping slices, a stale trace task) shows up in a test.

Modules: :mod:`.device` (control-stream executor and register file),
:mod:`.dma` (shim task queues), :mod:`.trace_unit` (trace units),
:mod:`.activity` (activity model), :mod:`.memory` (host buffers).
"""

from iron.runtime.sim.device import SimDevice
from iron.runtime.sim.errors import SimError
from iron.runtime.sim.memory import HostBuffer, HostMemory

__all__ = ["SimDevice", "SimError", "HostBuffer", "HostMemory"]
