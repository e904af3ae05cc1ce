"""Trace sizes: how many bytes a call site may ask for, and the parsers of
``IRON_TRACE_SIZE`` (:func:`site_size`) and ``IRON_TRACE_SIZES`` (:func:`parse_sizes`)."""

from __future__ import annotations

import os
from typing import Mapping

from iron.errors import OptionError
from iron.options.items import integer, refuse, split_items
from iron.target.shim_dma import BD_LENGTH_MAX_WORDS

#: Size used by ``trace=True`` when no size is given anywhere.
DEFAULT_TRACE_SIZE = 65536
#: A trace packet is 8 words; the drain DMA moves whole packets.
TRACE_SIZE_QUANTUM = 32
#: Largest trace slice the drain BD can describe: its length is a count of 32-bit words
#: carried by mlir-aie's ``aiex.npu.writebd`` as an i32 (iron.target.shim_dma), 8 GiB - 32.
MAX_TRACE_SIZE = BD_LENGTH_MAX_WORDS * 4 // TRACE_SIZE_QUANTUM * TRACE_SIZE_QUANTUM
#: Host bytes a traced run and its decode may need per byte of trace buffer: the device
#: buffer, the runner's copy and its words (3x), the decoder (its target in
#: benchmarks/bench_decode.py: peak memory <= 8x the buffer; measured 5.7x).
HOST_BYTES_PER_TRACE_BYTE = 8


def site_size(name: str, value) -> int:
    """Validated trace bytes of one call site (0: untraced there): the parser of
    ``trace_size`` / ``IRON_TRACE_SIZE``, also of a size given elsewhere
    (``iron.Step(trace_size=)``, a design's ``aie.trace.host_config``, ``iron trace
    wire --trace-size``); ``name`` says where, for the error."""
    nbytes = integer(name, value, minimum=0)
    accepted = (
        f"0 (untraced) or a multiple of {TRACE_SIZE_QUANTUM} bytes "
        f"from {TRACE_SIZE_QUANTUM} to {MAX_TRACE_SIZE}"
    )
    if nbytes % TRACE_SIZE_QUANTUM:
        raise OptionError(f"{name}={value!r}: not a multiple of {TRACE_SIZE_QUANTUM}; accepted: {accepted}")
    if nbytes > MAX_TRACE_SIZE:
        raise OptionError(
            f"{name}={value!r}: exceeds what a shim BD length can address; accepted: {accepted}"
        )
    host = host_trace_limit()
    if host is not None and nbytes > host:
        raise OptionError(
            f"{name}={value!r}: more trace than this host can hold ({host} bytes = physical memory / "
            f"{HOST_BYTES_PER_TRACE_BYTE}); accepted: {accepted.replace(str(MAX_TRACE_SIZE), str(host // TRACE_SIZE_QUANTUM * TRACE_SIZE_QUANTUM))}"
        )
    return nbytes


def host_trace_limit() -> int | None:
    """Most trace bytes this host can hold for one run (physical memory /
    :data:`HOST_BYTES_PER_TRACE_BYTE`), or None where the memory size is unknown."""
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None
    return memory // HOST_BYTES_PER_TRACE_BYTE if memory > 0 else None


def parse_sizes(name: str, value) -> tuple[tuple[int, int], ...]:
    """Per call-site sizes ``((index, bytes), ...)``, sorted, from ``"0:4096,2:8192"`` or
    ``{0: 4096}``; each size checked by :func:`site_size`."""
    accepted = "call-site index:bytes pairs, e.g. 0:4096,2:8192 (or a dict {0: 4096})"
    if isinstance(value, str):
        pairs = []
        for part in split_items(name, value, accepted):
            index, sep, nbytes = part.partition(":")
            if not sep:
                raise refuse(name, value, f"cannot read {part!r}", accepted)
            pairs.append((index.strip(), nbytes.strip()))
    elif isinstance(value, Mapping):
        pairs = list(value.items())
    else:
        raise refuse(name, value, None, accepted)
    out: dict[int, int] = {}
    for index, nbytes in pairs:
        site = integer(f"{name} call site", index, minimum=0)
        if site in out:
            raise refuse(name, value, f"call site {site} given twice")
        out[site] = site_size(f"{name} (call site {site})", nbytes)
    return tuple(sorted(out.items()))
