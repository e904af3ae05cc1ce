"""Compile (or load from the cache) the decoder's numba kernels ahead of time.

    python -m iron.trace.warm              # into the user cache (~/.cache/iron/numba)
    python -m iron.trace.warm --into DIR   # into DIR (the package build: setup.py)

A decode never compiles behind the user's back below 16 MiB (see
:mod:`iron.trace.jit`); running this once makes every later big decode use the
compiled paths at once. A built package carries the kernels its build compiled
(``--into iron/trace/_kernels``), which a first decode copies into the user cache.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def warm_all() -> None:
    """Compile (or load) every decoder and writer kernel on tiny inputs."""
    from iron.trace.decode import timing, mlir_aie_timing, packets, scan
    from iron.trace.export import summary, textout
    from iron.trace.jit import load_kernels

    load_kernels(
        (
            packets.warm_gather,
            scan.warm_ops,
            summary.summarize_unit.warm,
            timing.warm_intervals,
            mlir_aie_timing.warm_mlir_aie,
            textout.warm_render,
        )
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m iron.trace.warm", description=__doc__.splitlines()[0])
    ap.add_argument("--into", metavar="DIR", help="cache folder to compile into (default: the user cache)")
    args = ap.parse_args(argv)
    if args.into:
        if "numba" in sys.modules:
            ap.error("--into needs a fresh process (numba is loaded already)")
        os.environ.pop("NUMBA_CACHE_DIR", None)  # it would win over --into
        from iron.trace import jit

        jit.CACHE_DIR = Path(args.into).resolve()
    warm_all()
    return 0


if __name__ == "__main__":
    if hasattr(os, "nice"):
        os.nice(10)
    sys.exit(main())
