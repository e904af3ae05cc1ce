"""Runs an artifact's kernels on :class:`iron.runtime.sim.SimDevice`.

One backend is one loaded artifact, i.e. one hardware context: its device is
created at load and keeps its state from one run to the next (loaded PDI,
registers, DMA channels with their queued and active tasks), exactly where a
stale task left by run ``n`` meets run ``n + 1``. A new ``load()`` is a new
context and starts clean.

Host buffers mirror the XRT runner (:mod:`iron.runtime.xrt`): allocated at the
first run and kept for the runner's life, inputs written and outputs and the
trace buffer zeroed before every run, released by :meth:`SimBackend.close`.
A device write into a released buffer is a :class:`~iron.runtime.sim.SimError`.
"""

from __future__ import annotations

import numpy as np

from iron.errors import IronError
from iron.artifact.schema import TRACE_BUFFER
from iron.runtime.sim import HostMemory, SimDevice
from iron.runtime.sim.kernel_models import with_user_models
from iron.runtime.sim.replay import Replayer


class SimBackend:
    """``operators``: ``(payload name, params) -> operator`` (optional, see :class:`SimDevice`);
    ``kernel_models``: ``(symbol, defines, arch) -> model | None`` replacing
    :func:`iron.runtime.sim.kernel_models.model_for` for this backend's device;
    ``kernels``: the user's models, kernel symbol -> numpy function, used before it
    (:func:`iron.runtime.sim.kernel_models.with_user_models`)."""

    def __init__(self, artifact, operators=None, kernel_models=None, kernels=None):
        self.artifact = artifact
        models = with_user_models(kernels, kernel_models)
        self.device = SimDevice(artifact.target, operators, models)
        for name in {d.kernel for d in artifact.schedule}:
            k = artifact.kernels[name]
            if not k.control:
                raise IronError(
                    f"kernel {name!r} of {artifact.name} has no TXN control code in the artifact "
                    f"(backend {artifact.backend}); sim runs built-in artifacts and aiecc xclbin builds"
                )
        self.memory: HostMemory | None = None
        self.runs = 0
        #: Per stop event of the last run: the units it flushed (see SimDevice.flushed).
        self.last_flushed: list = []
        #: Records interpreted runs; a later run replays the one that repeats (replay.enabled).
        self.replay = Replayer()

    def _buffers(self) -> HostMemory:
        if self.memory is None:
            self.memory = HostMemory()
            for name, t in self.artifact.buffers.items():
                self.memory.allocate(name, t.nbytes)
        return self.memory

    def run(self, inputs: dict[str, np.ndarray]):
        art = self.artifact
        dev = self.device
        mem = self._buffers()
        for name in art.buffers:
            buf = mem[name].data
            if name in inputs:
                buf[:] = np.frombuffer(inputs[name].tobytes(), dtype=np.uint8)
            else:
                buf[:] = 0  # outputs, intermediates, trace: "empty" must mean empty
        first = len(dev.flushed)
        dev.not_modelled = []
        key = tuple(sorted((n, int(np.asarray(a).nbytes)) for n, a in inputs.items()))
        traced = TRACE_BUFFER in mem.buffers
        trace_of = (lambda: mem[TRACE_BUFFER].data.tobytes()) if traced else (lambda: None)
        host = [b.data for b in mem.buffers.values()]
        self.replay.run(dev, key, lambda: self._dispatch(mem), trace_of, host)
        self.runs += 1
        self.last_flushed = dev.flushed[first:]
        outputs = {n: mem[n].data.copy() for n in art.outputs}
        trace = mem[TRACE_BUFFER].data.copy() if TRACE_BUFFER in mem.buffers else None
        return outputs, trace

    def _dispatch(self, mem: HostMemory) -> None:
        """Run the artifact's schedule on the device (the interpreter)."""
        art, dev = self.artifact, self.device
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

    @property
    def replay_reason(self) -> str | None:
        """Why this runner's runs are interpreted (None: they replay a recorded run,
        :mod:`iron.runtime.sim.replay`)."""
        return self.replay.reason

    @property
    def not_modelled(self) -> dict[str, str]:
        """Output buffers of the last run sim wrote no values into: name -> why."""
        out = {}
        for name in self.artifact.outputs:
            buf = self.memory[name] if self.memory is not None else None
            for addr, n, why in self.device.not_modelled if buf is not None else ():
                if addr < buf.address + buf.size and buf.address < addr + n:
                    out[name] = why
                    break
        return out

    def close(self) -> None:
        """Release the host buffers (the device keeps whatever tasks it holds)."""
        if self.memory is not None:
            self.memory.release()
