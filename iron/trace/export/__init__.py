"""Export: decoded traces to Perfetto (JSON, native), mlir-aie's JSON, a summary and a picture."""
