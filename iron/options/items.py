"""What the option parsers share: integers, list items and one error style.

Every list option (``IRON_TRACE_SIZES``, ``IRON_TRACE_EVENTS``, ``IRON_TRACE_OP``,
``IRON_TRACE_UNITS``, ``IRON_TRACE_PORTS``) splits its text with :func:`split_items`
and refuses a bad item with :func:`refuse`, so every error reads
``NAME=VALUE: what is wrong with which item; accepted: the forms`` and an empty item
(``a,,b``, a trailing ``,``) is refused the same way everywhere.
"""

from __future__ import annotations

import operator
import re

from iron.errors import OptionError
from iron.limits import IntegerError, parse_int


def refuse(name: str, value, problem: str | None, accepted: str | None = None) -> OptionError:
    """The error about ``value`` of option ``name`` (its variable or keyword):
    ``name=value: problem; accepted: ...`` (either part may be left out)."""
    parts = [p for p in (problem, accepted and f"accepted: {accepted}") if p]
    return OptionError(f"{name}={value!r}: {'; '.join(parts)}")


def split_items(
    name: str, value, accepted: str, separator: str = ",", what: str = "item", text: str | None = None
) -> list[str]:
    """The stripped items of ``text`` (default: ``value``) between ``separator`` s; a
    separator inside parentheses separates nothing (``core(0,2)`` is one item). Blank
    text has no items. An empty item is refused, naming ``name``, the whole ``value``,
    which ``what`` is empty and what is ``accepted``."""
    text = value if text is None else text
    if not text.strip():
        return []
    items = [item.strip() for item in re.split(re.escape(separator) + r"(?![^()]*\))", text)]
    for number, item in enumerate(items, 1):
        if not item:
            raise refuse(name, value, f"{what} {number} of {len(items)} is empty", accepted)
    return items


def as_index(value) -> int | None:
    """``value`` as a Python int if it is an integer (int, numpy integer ...), not a bool."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


def integer(name: str, value, minimum: int) -> int:
    """``value`` (an integer, or its text in :func:`iron.limits.parse_int`'s forms) checked
    to be at least ``minimum``; errors name ``name``."""
    number = as_index(value)
    if number is not None:
        if number.bit_length() > 128:  # repr() of a huge int is itself refused past 4300 digits
            raise OptionError(
                f"{name}: an integer of {number.bit_length()} bits; expected an integer >= {minimum}"
            )
    elif not isinstance(value, str):
        raise OptionError(f"{name}={value!r}: expected an integer >= {minimum}")
    else:
        try:  # the one integer parser (iron.limits.parse_int): digit limit, 08 is 8, 0x hex
            number = parse_int(value)
        except IntegerError as exc:
            shown = repr(value) if len(value) <= 40 else repr(value[:37] + "...")
            raise OptionError(
                f"{name}={shown}: not an integer ({exc.reason}); expected an integer >= {minimum}"
            ) from None
    if number < minimum:
        raise OptionError(f"{name}={value!r}: must be >= {minimum}")
    return number
