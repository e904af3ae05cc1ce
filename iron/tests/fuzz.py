"""Mutation harness for untrusted inputs (issue 14): hypothesis strategies that damage
real manifests, capture files, text and binary traces and artifacts, and the entry
points they go through. Used by ``test_properties.py`` (a few hundred examples) and
``benchmarks/bench_robustness.py`` (thousands).

The property: every entry point either succeeds or raises :class:`iron.IronError`
(the CLI: exits 0 or 2 with one line); nothing else escapes.
"""

from __future__ import annotations

import atexit
import contextlib
import copy
import io
import json
import os
import shutil
import tempfile
from functools import lru_cache
from pathlib import Path

import numpy as np
from hypothesis import strategies as st

from iron.errors import IronError

from iron.tests.golden import TEST1

JSON_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(1 << 70), max_value=1 << 70),
    st.sampled_from([0, -1, 1, 7, 8, 31, 32, 127, 128, 255, 256, 4095, 4096, 1 << 31, 1 << 32, 1 << 63]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.lists(st.integers(min_value=-5, max_value=300), max_size=10),
    st.lists(st.text(max_size=4), max_size=10),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=3),
)


@lru_cache(maxsize=1)
def reference() -> dict:
    """A real traced artifact, its manifest, capture and trace words (built once per process)."""
    import iron
    from iron.operators import ElementwiseAdd
    from iron.options import DEFAULT_CORE_EVENTS

    work = Path(tempfile.mkdtemp(prefix="iron-fuzz-"))
    atexit.register(shutil.rmtree, work, ignore_errors=True)
    add = ElementwiseAdd(1024)
    # every option explicit: a traced run of the suite (IRON_TRACE_OP=...) must not change it
    art = iron.build(add, trace=True, trace_size=4096, ntiles=1, select=[0], events=list(DEFAULT_CORE_EVENTS),
                     cache_dir=work / "cache", sources=False)  # fmt: skip
    run = art.load("sim")
    run(*add.example_inputs(0))
    capture = work / "ref.capture.npz"
    run.trace.save(capture)
    return {
        "dir": work,
        "artifact": art.path.read_bytes(),
        "manifest": json.loads(art.manifest.to_json()),
        "capture": capture.read_bytes(),
        "words": np.asarray(run.raw_trace, dtype=np.uint32),
        "text": (TEST1 / "trace.txt").read_bytes(),
        "mlir": TEST1 / "aie.mlir",
    }


# ------------------------------------------------------------------------- mutations
def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, prefix + (i,))


@st.composite
def mutated_manifest(draw) -> dict:
    """The reference manifest with 1-3 edits: a value replaced, a key removed or added."""
    data = copy.deepcopy(reference()["manifest"])
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(data) if p]
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = data
        for key in path[:-1]:
            parent = parent[key]
        action = draw(st.sampled_from(["replace", "replace", "delete", "add"]))
        if action == "replace":
            parent[path[-1]] = draw(JSON_VALUES)
        elif action == "delete":
            del parent[path[-1]]
        elif isinstance(parent, dict):
            parent[draw(st.text(max_size=6))] = draw(JSON_VALUES)
        else:
            parent.append(draw(JSON_VALUES))
    return data


@st.composite
def mutated_bytes(draw, data: bytes, max_edits: int = 4) -> bytes:
    """``data`` with flipped bytes, a cut, an insertion or a duplicated run."""
    out = bytearray(data)
    for _ in range(draw(st.integers(1, max_edits))):
        if not out:
            out += draw(st.binary(min_size=1, max_size=16))
            continue
        action = draw(st.sampled_from(["flip", "flip", "set", "cut", "insert", "repeat"]))
        at = draw(st.integers(0, len(out) - 1))
        if action == "flip":
            out[at] ^= 1 << draw(st.integers(0, 7))
        elif action == "set":
            out[at] = draw(st.integers(0, 255))
        elif action == "cut":
            del out[at : at + draw(st.integers(1, max(1, len(out) // 4)))]
        elif action == "insert":
            out[at:at] = draw(st.binary(min_size=1, max_size=64))
        else:
            n = draw(st.integers(1, 64))
            out[at:at] = out[at : at + n] * draw(st.integers(1, 8))
    return bytes(out)


@st.composite
def mutated_words(draw) -> np.ndarray:
    """Trace words: the reference capture's, edited word-wise (headers, payload, zeros, repeats)."""
    words = reference()["words"].copy()
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(words) - 1))
        action = draw(st.sampled_from(["word", "bits", "zeros", "repeat_frames", "truncate"]))
        if action == "word":
            words[at] = draw(st.integers(0, 0xFFFFFFFF))
        elif action == "bits":
            words[at] ^= np.uint32(1 << draw(st.integers(0, 31)))
        elif action == "zeros":
            words[at : at + draw(st.integers(1, 64))] = 0
        elif action == "repeat_frames":  # Repeat1 frames of 1023 replays (the output amplifier)
            words[at : at + draw(st.integers(1, 32))] = 0xDBFFDBFF
        else:
            words = words[: max(1, at)]
    return words


# ------------------------------------------------------------------------- entry points
def expect_iron_errors(call, *args, **kwargs):
    """Run ``call``; an IronError is a fine answer, any other exception is the bug."""
    try:
        return call(*args, **kwargs)
    except IronError:
        return None


def run_cli(argv: list[str]) -> int:
    """``iron ARGV`` in-process; exit status 0 or 2 (anything else raises)."""
    from iron.cli import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        code = main(argv)
    if code not in (0, 2):
        raise AssertionError(f"iron {' '.join(argv)}: exit status {code}: {err.getvalue()}")
    if code == 2 and len(err.getvalue().strip().splitlines()) != 1:
        raise AssertionError(f"iron {' '.join(argv)}: not one error line: {err.getvalue()!r}")
    return code


def _write(name: str, data: bytes) -> Path:
    path = reference()["dir"] / f"{os.getpid()}-{name}"
    path.write_bytes(data)
    return path


def check_manifest(data: dict) -> None:
    from iron.trace.capture import decode_manifest
    from iron.instrument.manifest import Manifest

    m = expect_iron_errors(Manifest.from_dict, data)
    if m is not None:  # a manifest that validates must decode, export and summarize
        decoded = decode_manifest(m, reference()["words"])
        decoded.perfetto()
        decoded.summary()
        decoded.mlir_aie_records()
    mpath = _write("m.json", json.dumps(data).encode())
    wpath = _write("w.bin", reference()["words"].astype("<u4").tobytes())
    for fmt in ("summary", "perfetto", "mlir-aie"):
        run_cli(["trace", "decode", str(wpath), "--manifest", str(mpath), "--format", fmt])


def check_capture(data: bytes) -> None:
    from iron.trace.capture import load_capture

    path = _write("c.npz", data)
    cap = expect_iron_errors(load_capture, path)
    if cap is not None:
        cap.perfetto()
    run_cli(["trace", "decode", str(path), "--format", "perfetto"])


def check_text(data: bytes) -> None:
    from iron.trace.words import parse_text

    expect_iron_errors(parse_text, data)
    path = _write("t.txt", data)
    run_cli(["trace", "decode", str(path), "--mlir", str(reference()["mlir"]), "--format", "mlir-aie"])


def check_words(words: np.ndarray) -> None:
    """Bad words never raise (module docstring of iron.trace.decode): no IronError either."""
    from iron.trace.capture import decode_manifest
    from iron.instrument.manifest import Manifest

    m = Manifest.from_dict(reference()["manifest"])
    decoded = decode_manifest(m, words)
    decoded.perfetto()
    decoded.summary()
    expect_iron_errors(decoded.mlir_aie_records)  # may refuse an expansion past its limit
    path = _write("w.bin", words.astype("<u4").tobytes())
    mpath = _write("m.json", json.dumps(reference()["manifest"]).encode())
    for fmt in ("summary", "perfetto"):
        assert run_cli(["trace", "decode", str(path), "--manifest", str(mpath), "--format", fmt]) == 0


def check_artifact(data: bytes) -> None:
    from iron.artifact.cli import inspect_lines
    from iron.artifact.schema import Artifact, read_manifest

    path = _write("a.elf", data)
    art = expect_iron_errors(Artifact.open, path)
    if art is not None:
        inspect_lines(art)
    expect_iron_errors(read_manifest, path)
    run_cli(["inspect", str(path)])
    wpath = _write("w.bin", reference()["words"].astype("<u4").tobytes())
    run_cli(["trace", "decode", str(wpath), "--artifact", str(path)])
