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
