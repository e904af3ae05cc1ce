"""Stand-in for the parts of mlir-aie's compiled Python bindings that its trace parser
imports (benchmarks/peer.py): not mlir-aie code, nothing of it decodes."""
