"""What ``iron trace decode`` does to its own process: one BLAS thread for the numpy it
imports (OpenBLAS reads ``OPENBLAS_NUM_THREADS`` when numpy loads), the user's setting kept,
and the environment as it was after the decode (issue 37)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

CHILD = """
import os, sys
from iron.trace.cli import one_blas_thread
with one_blas_thread():
    inside = os.environ.get("OPENBLAS_NUM_THREADS")
    import numpy
print(inside, os.environ.get("OPENBLAS_NUM_THREADS"), "numpy" in sys.modules)
"""


@pytest.mark.parametrize("user, inside, after", [(None, "1", "None"), ("3", "3", "3")])
def test_a_decode_asks_numpy_for_one_blas_thread_and_leaves_the_environment_as_it_was(user, inside, after):
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if user is not None:
        env["OPENBLAS_NUM_THREADS"] = user
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == [inside, after, "True"]


def test_no_blas_setting_once_numpy_is_loaded():
    """numpy already loaded (a program embedding the command): nothing to set, nothing set."""
    import numpy  # noqa: F401

    from iron.trace.cli import one_blas_thread

    before = os.environ.get("OPENBLAS_NUM_THREADS")
    with one_blas_thread():
        assert os.environ.get("OPENBLAS_NUM_THREADS") == before
