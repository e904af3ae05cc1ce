"""Which opaque ops are mlir-aie's declarative trace ops (``aie.trace`` and every ``aie.trace.*``).

The reader keeps these ops as opaque text (``aie.trace @t(%tile) {...}`` in the device
body; ``aie.trace.host_config`` / ``aie.trace.start_config`` in runtime sequences). Telling
them apart is a fact of the syntax, needed both by the operator layer (a foreign design
that has a trace configuration of its own) and by the instrument layer, which reads them
(:mod:`iron.instrument.declarative`).
"""

from __future__ import annotations

import re

from iron.mlir import ir

_RE_TRACE_OP = re.compile(r"aie\.trace(?:\s|\.|$)")


def is_trace_op(op) -> bool:
    """Whether ``op`` is one of mlir-aie's declarative trace ops (``aie.trace`` and every
    ``aie.trace.*`` op: host_config, start_config ...), which iron keeps as opaque text."""
    return isinstance(op, ir.Opaque) and _RE_TRACE_OP.match(op.text.lstrip()) is not None


def strip_trace_ops(dev: ir.Device) -> None:
    """Remove every declarative trace op from ``dev``'s body and runtime sequences."""
    dev.body = [op for op in dev.body if not is_trace_op(op)]
    for seq in dev.sequences:
        seq.body = [op for op in seq.body if not is_trace_op(op)]
