"""pytest wiring for iron's tests: the ``check_operator`` fixture.

With ``IRON_TRACE_SIZE`` set (e.g. ``IRON_TRACE_SIZE=65536 IRON_TRACE_NTILES=4
pytest iron/tests``) operator checks also run traced and write Perfetto JSON
and a summary per test under ``IRON_TRACE_DIR`` (see :mod:`iron.testing`).
"""

from __future__ import annotations

import functools

import pytest

from iron import testing


@pytest.fixture
def check_operator(request):
    """:func:`iron.testing.check_operator` bound to this test (names its trace directory)."""
    return functools.partial(testing.check_operator, request=request)


@pytest.fixture(autouse=True, scope="session")
def _session_dirs(tmp_path_factory):
    """Builds go to a per-session cache (not ./build) unless IRON_CACHE_DIR is set;
    traces written by tests that force tracing go to a temporary directory unless
    the user asked for traces (IRON_TRACE_SIZE or IRON_TRACE_DIR set); IRON_TRACE_OP
    applies to the operator checks only (see below)."""
    import os

    added = []
    if "IRON_CACHE_DIR" not in os.environ:
        os.environ["IRON_CACHE_DIR"] = str(tmp_path_factory.mktemp("iron-cache"))
        added.append("IRON_CACHE_DIR")
    if "IRON_TRACE_DIR" not in os.environ and "IRON_TRACE_SIZE" not in os.environ:
        os.environ["IRON_TRACE_DIR"] = str(tmp_path_factory.mktemp("iron-traces"))
        added.append("IRON_TRACE_DIR")
    # IRON_TRACE_OP picks the call sites of the traced suite's operator checks
    # (iron.testing.check_operator); tests that build with explicit options must not
    # inherit it, or a selection naming no call site of theirs would fail them.
    selection = os.environ.pop("IRON_TRACE_OP", None)
    if selection is not None:
        testing.SUITE_ENV["IRON_TRACE_OP"] = selection
    yield
    for name in added:
        del os.environ[name]
    if selection is not None:
        os.environ["IRON_TRACE_OP"] = testing.SUITE_ENV.pop("IRON_TRACE_OP")
