"""Host memory as sim sees it: bound buffers at distinct fake host addresses.

Every host buffer of a run gets its own address range, separated by a gap so a
BD that overruns one buffer never silently lands in its neighbour. Sub-buffers
(separate dispatch binds trace slices that way) share the parent's bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iron.runtime.sim.errors import SimError

#: First fake host address; above 4 GiB so the BD's high address bits matter.
HOST_BASE = 0x1_0000_0000
_ALIGN = 0x10000
_GAP = 0x10000


@dataclass
class HostBuffer:
    """A host buffer (or a window of one) as bound to a kernel argument."""

    name: str
    address: int
    data: np.ndarray  # uint8, writable; a view into the parent for windows
    parent: "HostBuffer | None" = None

    @property
    def released(self) -> bool:
        """The runner gave this buffer (or its parent) back: the device must not write it."""
        return self._released or (self.parent is not None and self.parent.released)

    _released: bool = False

    @property
    def size(self) -> int:
        return int(self.data.size)

    def contains(self, address: int, nbytes: int) -> bool:
        return self.address <= address and address + nbytes <= self.address + self.size

    def window(self, offset: int, size: int, name: str | None = None) -> "HostBuffer":
        """The sub-buffer ``[offset, offset + size)`` (what ``pyxrt.bo(parent, size, offset)`` gives)."""
        if offset < 0 or size < 0 or offset + size > self.size:
            raise SimError(
                f"sub-buffer [{offset}, {offset + size}) of host buffer {self.name!r} "
                f"({self.size} bytes) is out of range"
            )
        return HostBuffer(name or f"{self.name}[{offset}:{offset + size}]", self.address + offset,
                          self.data[offset:offset + size], parent=self)  # fmt: skip


class HostMemory:
    """Allocates host buffers at distinct addresses."""

    def __init__(self):
        self.buffers: dict[str, HostBuffer] = {}
        self._next = HOST_BASE

    def allocate(self, name: str, nbytes: int) -> HostBuffer:
        if name in self.buffers:
            raise SimError(f"host buffer {name!r} allocated twice")
        buf = HostBuffer(name, self._next, np.zeros(int(nbytes), dtype=np.uint8))
        self._next += -(-(int(nbytes) + _GAP) // _ALIGN) * _ALIGN
        self.buffers[name] = buf
        return buf

    def __getitem__(self, name: str) -> HostBuffer:
        return self.buffers[name]

    def release(self) -> None:
        """Give every buffer back (what freeing a runner's BOs does); later device writes are errors."""
        for buf in self.buffers.values():
            buf._released = True
