"""Runs an artifact's kernels on :class:`iron.runtime.sim.SimDevice`.

Every runner call starts from a freshly reset device (nothing loaded); state
then persists across the kernels of that call, which is where stale PDI and
task state matters (separate dispatch runs several kernels per call).
"""

from __future__ import annotations

import numpy as np

from iron.errors import IronError
from iron.fuse import TRACE_BUFFER
from iron.runtime.sim import HostMemory, SimDevice


class SimBackend:
    def __init__(self, artifact, operators=None):
        self.artifact = artifact
        self.device = SimDevice(artifact.target, operators)
        for name in {d.kernel for d in artifact.schedule}:
            k = artifact.kernels[name]
            if not k.control:
                raise IronError(
                    f"kernel {name!r} of {artifact.name} has no TXN control code in the artifact "
                    f"(backend {artifact.backend}); sim runs built-in artifacts and aiecc xclbin builds"
                )
        self.memory: HostMemory | None = None

    def run(self, inputs: dict[str, np.ndarray]):
        art = self.artifact
        dev = self.device
        dev.reset()
        mem = HostMemory()
        for name, t in art.buffers.items():
            buf = mem.allocate(name, t.nbytes)
            if name in inputs:
                buf.data[:] = np.frombuffer(inputs[name].tobytes(), dtype=np.uint8)
        for dispatch in art.schedule:
            name = dispatch.kernel
            k = art.kernels[name]
            args = []
            for a in dispatch.args:
                parent = mem[a.buffer]
                whole = a.offset == 0 and a.type.nbytes == parent.size
                args.append(parent if whole else parent.window(a.offset, a.type.nbytes))
            # aiecc's xclbin instruction streams hold no PDI load: the host loads the kernel's PDI.
            pdi = art.pdi_ids[k.device] if art.backend == "aiecc-xclbin" else None
            dev.run(k.control, args, art.pdis, name, pdi=pdi)
        self.memory = mem
        outputs = {n: mem[n].data.copy() for n in art.outputs}
        trace = mem[TRACE_BUFFER].data.copy() if TRACE_BUFFER in mem.buffers else None
        return outputs, trace
