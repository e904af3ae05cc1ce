"""sim: iron's built-in model of the NPU control path and trace hardware.

sim is not cycle-accurate. It executes a kernel's transaction stream as the
firmware would (register writes, BD block writes, DDR patches against the bound
host buffers, task queues and their completion semantics, PDI loads as
reconfiguration) and **runs the design** the PDI payload carries: shim BDs in
their address order, object FIFOs with depth, links and data layouts, cores
interpreted, kernels replaced by numpy models. Outputs come only from that
execution. The executed events (kernel calls, lock stalls, DMA) go through the
real trace path: slot filtering, frame encoding, 8-word packets with real
headers, routing by the design's packet flows, and the drain BD into host
memory, bounded by the BD length. Its timelines follow a simple cost model, not
measured; its value is that every wiring or layout mistake the hardware would
punish (wrong argument index, wrong offset, wrong strides or dimensions, a
row-major stream into a blocked kernel, a stale trace task) shows up in a test.

Modules: :mod:`.device` (control-stream executor and register file),
:mod:`.dma` (shim task queues, BD address order), :mod:`.program` (what sim
executes of a device), :mod:`.engine` (FIFOs, links, DMA agents, scheduler, cost
model), :mod:`.interp` (core interpreter), :mod:`.kernel_models` (kernel
models), :mod:`.trace_unit` (trace units), :mod:`.activity` (events -> trace
records), :mod:`.memory` (host buffers).
"""

from iron.runtime.sim.device import SimDevice
from iron.runtime.sim.errors import SimError
from iron.runtime.sim.memory import HostBuffer, HostMemory

__all__ = ["SimDevice", "SimError", "HostBuffer", "HostMemory"]
