"""Instrument: add the trace program to one design (codegen), read the ``aie.trace`` ops a design
declares (declarative), lay out the slices and name the trace argument (layout)."""
