"""Fuse: chain operator calls into one wrapper runtime sequence and wire the trace slices into it."""
