"""Trace words handed to the decoder: values a cast would change are refused, integer words of
any width that fit are accepted.
"""

from __future__ import annotations

import numpy as np
import pytest

from iron.artifact.manifest import Manifest
from iron.trace import decode as D
from iron.trace.capture import Capture, decode_manifest
from iron.trace.words import TraceInputError, check_words
from iron.tests.test_manifest_checks import manifest_dict  # noqa: F401


@pytest.mark.parametrize(
    "words, message",
    [
        (np.array([1.5, 2.0]), "dtype float64"),
        (np.array([1 << 32], dtype=np.int64), "does not fit 32 bits"),
        (np.array([-1], dtype=np.int64), "does not fit 32 bits"),
        (np.array([True, False]), "dtype bool"),
        (np.zeros((2, 4), dtype=np.uint32), "1-D"),
    ],
)
def test_words_that_a_cast_would_change_are_refused(words, message):
    m = Manifest.from_dict(manifest_dict())
    for call in (lambda: Capture(m, words), lambda: decode_manifest(m, words), lambda: check_words(words)):
        with pytest.raises(TraceInputError, match=message):
            call()
    with pytest.raises(TraceInputError, match=message):
        D.decode_words(words, m.slices[0].units)


def test_integer_words_of_any_width_that_fit_are_accepted():
    assert check_words(np.array([0, 0xFFFFFFFF], dtype=np.int64)).dtype == np.uint32
    assert check_words([1, 2, 3]).tolist() == [1, 2, 3]


@pytest.mark.parametrize(
    "text, words",
    [  # mlir-aie's text format (one hex word a line, as its parse.py reads it with int(x, 16))
        (b"0000000a\nFFFFFFFF\n8c23e7a0", [0xA, 0xFFFFFFFF, 0x8C23E7A0]),
        (b"0a 0b 0c\n", [0xA, 0xB, 0xC]),  # 8 characters and a newline, but three words
        (b"0x0 0x0 \n00000001\n", [0, 0, 1]),
        (b"12345678\n9abcdef\n", [0x12345678, 0x9ABCDEF]),
    ],
)
def test_text_words_are_read_alike_plainly_and_by_numpy(text, words):
    """Lines of exactly 8 hex digits go through C's hex parser, anything else through
    tokens: the plain reader (a list, small inputs) and numpy's give the same words."""
    from iron.trace.words import parse_text

    assert parse_text(text, plain=True) == words
    assert parse_text(text).tolist() == words
