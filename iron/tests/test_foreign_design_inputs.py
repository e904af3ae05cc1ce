"""Foreign design files (``iron.from_mlir`` on a path) go through the input checks."""

from __future__ import annotations

import os

import pytest

import iron
from iron.tests.test_core_elf_inputs import fifo  # noqa: F401


def test_from_mlir_path_goes_through_the_input_checks(tmp_path):
    """A design file that is not UTF-8 is one ForeignDesignError naming the file and the
    byte offset; a FIFO is refused, not read (issue 26 item 4, the from_mlir path)."""
    import os

    import iron
    from iron.operators.foreign import ForeignDesignError

    bad = tmp_path / "bad.mlir"
    bad.write_bytes(b"module {\n  \xff\xfe\n}\n")
    with pytest.raises(ForeignDesignError, match=r"bad\.mlir.*byte 11"):
        iron.from_mlir(bad)
    fifo = tmp_path / "pipe.mlir"
    os.mkfifo(fifo)
    with pytest.raises(ForeignDesignError):
        iron.from_mlir(fifo)
