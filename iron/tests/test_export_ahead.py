"""iron.trace.export.ahead: items made on a thread come out whole and in order;
errors and early stops reach both sides."""

from __future__ import annotations

import threading
import time

import pytest

from iron.trace.export.ahead import ahead


def _threads() -> int:
    return sum(t.name == "iron-ahead" for t in threading.enumerate())


def test_items_in_order_made_on_another_thread():
    makers = []

    def items():
        for i in range(1000):
            makers.append(threading.get_ident())
            yield i

    assert list(ahead(items(), depth=3)) == list(range(1000))
    assert set(makers) and threading.get_ident() not in makers
    assert _threads() == 0


def test_an_error_while_making_reaches_the_caller_after_the_items_before_it():
    def items():
        yield 1
        yield 2
        raise ValueError("bad frame")

    got = []
    with pytest.raises(ValueError, match="bad frame"):
        for x in ahead(items()):
            got.append(x)
    assert got == [1, 2] and _threads() == 0


def test_closing_early_stops_the_thread():
    made = []

    def items():
        for i in range(10**6):
            made.append(i)
            yield i

    gen = ahead(items(), depth=2)
    assert next(gen) == 0
    gen.close()
    n = len(made)
    time.sleep(0.05)
    assert len(made) == n < 10 and _threads() == 0
