"""Export: decoded traces to Perfetto (JSON, native), mlir-aie's JSON, a summary and a picture.

:data:`FORMATS` is the one list of event output formats (``DecodedTrace.write``,
``iron trace decode --format``): a name and the module here whose ``write(slices, clock_mhz,
f, meta, all_intervals) -> intervals dropped`` renders it. A new format is one module with
that function and one row here (docs/development.md, "Adding an export format").
"""

from __future__ import annotations

import importlib

#: Event output format -> its module under iron/trace/export.
FORMATS = {"perfetto": "perfetto", "pftrace": "pftrace", "mlir-aie": "mlir_aie"}


def writer(fmt: str):
    """The ``write`` function of output format ``fmt`` (one of :data:`FORMATS`)."""
    return importlib.import_module(f"iron.trace.export.{FORMATS[fmt]}").write
