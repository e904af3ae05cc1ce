"""iron's own kernel sources (package data): kernels mlir-aie does not provide (see iron.target.kernels)."""
