"""Instrument: add the trace program to a design (codegen), lay out the slices, describe the result (manifest schema)."""
