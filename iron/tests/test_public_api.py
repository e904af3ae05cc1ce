"""The public surface: ``iron.build``'s keywords as docs/guide.md states them, resolved in one
place (``iron.options.from_build_kwargs``); no test-only switch among them; ``iron.bf16``."""

from __future__ import annotations

import inspect
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

import iron
from iron.builder import build as build_mod
from iron.fuse.fusion import fuse
from iron.operators import ElementwiseAdd
from iron.options import TraceOptions, from_build_kwargs

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide.md"
ADD = ElementwiseAdd(1024, "i32", columns=1, cores_per_column=1, tile_size=512)


def _readme_signature() -> list[tuple[str, str]]:
    text = GUIDE.read_text(encoding="utf-8")
    sig = re.search(r"`iron\.build\(op_or_sequence, \*,(.*?)\)` returns", text, re.S).group(1)
    return [tuple(p.strip().split("=")) for p in " ".join(sig.split()).split(",")]


def test_iron_build_keywords_are_the_readmes():
    params = inspect.signature(iron.build).parameters
    got = [(n, repr(p.default).replace("'", '"')) for n, p in params.items() if n != "op_or_sequence"]
    assert got == _readme_signature()
    assert all(p.kind is p.KEYWORD_ONLY for n, p in params.items() if n != "op_or_sequence")


def test_no_test_only_switch_in_the_public_api():
    assert "emulate_bug" not in inspect.signature(iron.build).parameters
    assert "emulate_bug" not in inspect.signature(build_mod.build).parameters
    assert "reset_between_same_device" not in inspect.signature(fuse).parameters


def test_keywords_resolve_to_the_options_build_takes(tmp_path):
    options = from_build_kwargs(True, trace_size=4096, ntiles=1, trace_sizes="0:8192", env={})
    assert (options.size, options.ntiles, options.sizes) == (4096, 1, ((0, 8192),))
    assert from_build_kwargs(False, trace_size=4096, env={}) == TraceOptions()
    direct = build_mod.build(ADD, options=options, cache_dir=tmp_path)
    assert build_mod.build(ADD, cache_dir=tmp_path).traced is False  # options=None: untraced
    assert direct.manifest.slices[0].size == 8192


def test_keywords_and_options_give_one_artifact(tmp_path, monkeypatch):
    for var in [v for v in __import__("os").environ if v.startswith("IRON_")]:
        monkeypatch.delenv(var)
    via_keywords = iron.build(
        ADD, trace=True, trace_size=4096, ntiles=1, cache_dir=tmp_path, backend="builtin"
    )
    via_options = build_mod.build(ADD, options=TraceOptions(size=4096, ntiles=1), cache_dir=tmp_path)
    assert via_keywords.path == via_options.path


def test_bf16_is_public_and_loads_lazily():
    code = "import sys, iron; assert 'iron.bf16' not in sys.modules; print(iron.bf16.__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["iron.bf16"]
    # bfloat16 bit patterns from its definition (sign, 8 exponent bits, 7 fraction bits):
    # 1.0 = 0x3F80, -2.0 = 0xC000, 3.140625 = 0x4049 (pi rounded to bf16)
    assert iron.bf16.to_bf16(np.float32([1.0, -2.0, np.pi])).tolist() == [0x3F80, 0xC000, 0x4049]
    assert iron.bf16.from_bf16(np.uint16([0x3F80, 0xC000, 0x4049])).tolist() == [1.0, -2.0, 3.140625]
    assert "bf16" in dir(iron) and "bf16" in iron.__all__
