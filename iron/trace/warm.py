"""Compile (or load from the cache) the decoder's numba kernels ahead of time.

    python -m iron.trace.warm

A decode never compiles behind the user's back below 16 MiB (see
:mod:`iron.trace.jit`); running this once makes every later big decode use the
compiled paths at once.
"""

from __future__ import annotations

import os

from iron.trace.decode import events, mlir_aie_timing, packets, scan
from iron.trace.export import summary, textout
from iron.trace.jit import load_kernels


def warm_all() -> None:
    """Compile (or load) every decoder and writer kernel on tiny inputs."""
    load_kernels(
        (
            packets.warm_gather,
            scan.warm_ops,
            summary.summarize_unit.warm,
            events.warm_intervals,
            mlir_aie_timing.warm_mlir_aie,
            textout.warm_render,
        )
    )


if __name__ == "__main__":
    if hasattr(os, "nice"):
        os.nice(10)
    warm_all()
