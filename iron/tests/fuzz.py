"""Mutation harness for untrusted inputs (issue 14): hypothesis strategies that damage
real manifests, capture files, text and binary traces and artifacts, and the entry
points they go through. Used by ``test_fuzzed_trace_inputs.py`` (a few hundred examples) and
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
    return _edit(draw, data)


def _edit(draw, data):
    """1-3 random edits of a JSON tree in place (replace, delete or add a value); returns it."""
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
    from iron.artifact.manifest import Manifest

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
    from iron.artifact.manifest import Manifest

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
    from iron.builder.cli import inspect_lines
    from iron.artifact.schema import Artifact, read_manifest

    path = _write("a.elf", data)
    art = expect_iron_errors(Artifact.open, path)
    if art is not None:
        inspect_lines(art)
    expect_iron_errors(read_manifest, path)
    run_cli(["inspect", str(path)])
    wpath = _write("w.bin", reference()["words"].astype("<u4").tobytes())
    run_cli(["trace", "decode", str(wpath), "--artifact", str(path)])


# ------------------------------------------------------------------------- issue 26: new surfaces
DATA = Path(__file__).parent / "data"
#: A foreign design (mlir-aie's own test, iron/tests/data/foreign/SOURCES.md) and a fused
#: module (upstream's -aie-fuse-trace-buffers input, iron/tests/data/upstream/SOURCES.md).
FOREIGN = DATA / "foreign/mlir-aie__test__npu-xrt__add_one_func_link_with_peano__aie.mlir"
FUSED = DATA / "upstream/test_trace_configure_run.mlir"

#: Tokens a mutated MLIR file gets spliced in: numbers of every size and spelling,
#: bad encodings, brackets, names of undefined values, tiles outside every device.
MLIR_TOKENS = st.sampled_from(
    [b"08192", b"0x1F", b"-1", b"9" * 60, b"1" * 5000, b"\xff\xfe", b"\x00", b"\xc3(", b"{", b"}", b"<", b">",
     b"%nope", b"@nope", b"aie.tile(0, 99)", b"aie.tile(9, 2)", b"memref<-1xi32>", b"memref<0xi32>",
     b"buffer_size = 8200", b"buffer_size = -64", b"buffer_size = 73786976294838206464", b'"', b"\\", b"//",
     b"aie.core(%tile_0_0)", b"\n", b",", b"dense<0>", b"memref<4000000000xi32>"]
)  # fmt: skip


@st.composite
def mutated_mlir(draw, path: Path) -> bytes:
    """MLIR file bytes with byte edits (:func:`mutated_bytes`) or tokens spliced in."""
    data = bytearray(path.read_bytes().replace(b"NPUDEVICE", b"npu1_1col"))
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.booleans()):
            data = bytearray(draw(mutated_bytes(bytes(data), max_edits=2)))
        else:
            at = draw(st.integers(0, len(data)))
            cut = draw(st.integers(0, 12))
            data[at : at + cut] = draw(MLIR_TOKENS)
    return bytes(data)


def check_from_mlir(data: bytes) -> None:
    """``iron.from_mlir`` of the text, the reader on the file, the design check."""
    import iron
    from iron.mlir.check import check_module
    from iron.mlir.reader import parse_file

    path = _write("d.mlir", data)
    module = expect_iron_errors(parse_file, path)
    if module is not None:
        expect_iron_errors(check_module, module, str(path))
    text = data.decode("utf-8", "replace")  # from_mlir takes text; the file path is parse_file's
    expect_iron_errors(iron.from_mlir, text, reference=lambda *a: a)


def check_wire(data: bytes) -> None:
    """``iron trace wire`` of the file (CLI: exit 0 or 2, one line) and :func:`iron.fuse.wire.wire`."""
    import warnings

    from iron.fuse.wire import wire

    path = _write("f.mlir", data)
    out = reference()["dir"] / f"{os.getpid()}-wired.mlir"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "0 compute tiles" and the like: fine answers
        run_cli(["trace", "wire", str(path), "--trace-size", "4096", "-o", str(out)])
        expect_iron_errors(wire, data.decode("utf-8", "replace"), trace_size=4096)


@lru_cache(maxsize=1)
def reference_meta() -> dict:
    """The reference artifact's sections and its ``.iron.meta`` object."""
    from iron.artifact import elf, schema

    path = _write("ref.elf", reference()["artifact"])
    sections = {k: v for k, v in schema.read_sections(path).items() if k.startswith(elf.PREFIX)}
    return {"sections": sections, "meta": json.loads(sections[schema.META])}


@st.composite
def mutated_meta(draw) -> dict:
    """The reference ``.iron.meta`` with 1-3 edits (as :func:`mutated_manifest`)."""
    data = copy.deepcopy(reference_meta()["meta"])
    return _edit(draw, data)


def check_meta(meta: dict) -> None:
    """A re-signed artifact (checksum recomputed) with ``meta``: open, inspect, load on sim."""
    from iron.artifact import elf, schema
    from iron.builder.cli import inspect_lines

    sections = reference_meta()["sections"]
    try:
        text = json.dumps(meta).encode()
    except (ValueError, RecursionError):  # NaN is fine for json; nothing else fails to encode
        return
    path = _write("meta.elf", elf.write_elf({**sections, schema.META: text}))
    art = expect_iron_errors(schema.Artifact.open, path)
    if art is not None:
        inspect_lines(art)
    run_cli(["inspect", str(path)])


@lru_cache(maxsize=1)
def reference_core_elf() -> bytes:
    """An AIE core ELF (ELF32, machine 264, three functions) and its DWARF-less layout."""
    from iron.tests.test_upstream_trace import aie_elf

    return aie_elf([("_main_init", 0, 320), ("scale_kernel", 320, 448), ("core_loop", 768, 128)])


def check_core_elf(data: bytes) -> None:
    """A core ELF through :func:`iron.trace.pcmap.read_core_elf` and ``--core-elf``."""
    from iron.trace.pcmap import read_core_elf

    path = _write("core.elf", data)
    pm = expect_iron_errors(read_core_elf, path)
    if pm is not None:
        pm.functions(np.array([0, 336, 800, 1 << 40, -1]))
        pm.line(336)
    wpath = _write("w.bin", reference()["words"].astype("<u4").tobytes())
    mpath = _write("m.json", json.dumps(reference()["manifest"]).encode())
    run_cli(["trace", "decode", str(wpath), "--manifest", str(mpath), "--core-elf", str(path)])
    run_cli(["trace", "decode", str(wpath), "--manifest", str(mpath), "--core-elf", f"0,2={path}"])
