"""Compile (or load from the cache) the decoder's numba kernels ahead of time.

    python -m iron.trace.warm

A decode never compiles behind the user's back below 48 MiB (see
:mod:`iron.trace.jit`); running this once makes every later big decode use the
compiled paths at once.
"""

from __future__ import annotations

import os

from iron.trace.decode import packets, scan
from iron.trace.export import summary
from iron.trace.jit import load_kernels


def warm_all() -> None:
    """Compile (or load) every decoder kernel on tiny inputs."""
    load_kernels((packets.warm_gather, scan.warm_ops, summary.summarize_unit.warm))


if __name__ == "__main__":
    if hasattr(os, "nice"):
        os.nice(10)
    warm_all()
