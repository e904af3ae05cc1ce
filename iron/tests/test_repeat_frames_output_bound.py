"""Repeat frames (a few bytes standing for many intervals) cannot blow up the Perfetto output."""

from __future__ import annotations

import numpy as np

from iron.artifact.manifest import Manifest
from iron.trace import decode as D
from iron.trace.capture import decode_manifest
from iron.trace.encode import packetize
from iron.tests.test_manifest_checks import manifest_dict  # noqa: F401


def repeat_bomb() -> tuple[Manifest, np.ndarray]:
    """8 KB: one frame asserting all 8 slots with 1 cycle, then Repeat1 frames of 1023
    replays each (frame layouts: iron/target/frames.py FRAME_TABLE, from mlir-aie's parser)."""
    payload = bytes([0xCF, 0xF1]) + bytes([0xDB, 0xFF]) * 3580
    words = np.concatenate([packetize(0, 2, 0, 1, payload), np.zeros(8, np.uint32)])
    m = manifest_dict(total_size=len(words) * 4)
    m["slices"][0]["size"] = len(words) * 4
    return Manifest.from_dict(m), words


def test_repeat_frames_cannot_blow_up_perfetto_output():
    m, words = repeat_bomb()
    ds = decode_manifest(m, words).slices[0]
    (unit,) = ds.units
    kept = sum(len(unit.runs.intervals(s)[0]) for s in range(8))
    # 8 slots x (1 + 3580 x 1023) pulses 2 cycles apart stand in these 8 KB
    assert kept + ds.diagnostics["dropped_intervals"] == 8 * (1 + 3580 * 1023)
    assert kept <= max(D.MIN_INTERVALS_PER_UNIT, D.INTERVALS_PER_BYTE * unit.nbytes)
