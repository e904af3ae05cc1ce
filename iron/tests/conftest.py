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
