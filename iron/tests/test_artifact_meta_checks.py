"""The ``.iron.meta`` section and the manifest of an artifact: every field has a check, a wrong
or damaged value is one error naming it, clocks outside what the writers render are refused.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from iron import build
from iron import cli as iron_cli
from iron.artifact import elf as elf_mod
from iron.artifact import schema
from iron.artifact.manifest import Manifest
from iron.operators import ElementwiseAdd


@pytest.fixture(scope="module")
def artifact_sections(tmp_path_factory):
    cache = tmp_path_factory.mktemp("meta-cache")
    art = build(ElementwiseAdd(1024, "i32"), trace=True, trace_size=4096, ntiles=1, select=[0],
                cache_dir=cache, sources=True)  # fmt: skip
    return {k: v for k, v in schema.read_sections(art.path).items() if k.startswith(elf_mod.PREFIX)}


def _resigned(sections, meta, tmp_path) -> Path:
    """An artifact whose .iron.meta is ``meta``, checksum recomputed (a "re-signed" file)."""
    path = tmp_path / "resigned.elf"
    data = meta if isinstance(meta, bytes) else json.dumps(meta).encode()
    path.write_bytes(elf_mod.write_elf({**sections, schema.META: data}))
    return path


def _leaves(node, prefix=()):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _leaves(v, prefix + (k,))
    elif isinstance(node, list) and node:
        for i, v in enumerate(node):
            yield from _leaves(v, prefix + (i,))
    yield prefix


def test_every_meta_field_has_a_check(artifact_sections):
    meta = json.loads(artifact_sections[schema.META])
    assert set(meta) <= set(schema.META_FIELDS)
    assert set(schema.META_FIELDS) - set(meta) <= {"core_elfs"}  # aiecc builds with sources only


def test_a_wrong_value_in_any_meta_field_is_a_meta_error(artifact_sections, tmp_path):
    meta = json.loads(artifact_sections[schema.META])
    paths = [p for p in _leaves(meta) if p and p[0] != "trace_options" or p == ("trace_options",)]
    assert len(paths) > 40
    for path in paths:
        bad = copy.deepcopy(meta)
        node = bad
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = 12.5  # a float: no field of .iron.meta holds one
        with pytest.raises(schema.MetaError, match=re.escape(str(path[-1]))):
            schema.Artifact.open(_resigned(artifact_sections, bad, tmp_path))


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda m: m.update(pdis=list(m["pdis"].values())), r"pdis = \[.*accepted: an object of PDI id"),
        (lambda m: m.update(sources=json.loads("[" * 100000 + "]" * 100000)), "nested too deeply"),
        (
            lambda m: m["schedule"][0].update(kernel="nope"),
            r"schedule\[0\].kernel = 'nope': accepted: a name in kernels",
        ),
        (
            lambda m: m["buffers"][0].update(shape=[1 << 40]),
            r"buffers\[0\].shape = \[1099511627776\]: accepted: .* from 0 to 17179869184",
        ),
        (lambda m: m.update(inputs=["nope"]), r"inputs\[0\] = 'nope'"),
        (lambda m: m["kernels"][0]["args"][0].update(buffer="nope"), r"kernels\[0\].args\[0\].buffer"),
        (lambda m: m["buffers"][0].update(dtype="f128"), r"dtype = 'f128'"),
    ],
    ids=["list-for-dict", "deep", "missing-kernel", "huge-buffer", "unknown-input", "unknown-arg", "dtype"],
)
def test_damaged_meta_is_one_meta_error(artifact_sections, tmp_path, edit, message):
    meta = json.loads(artifact_sections[schema.META])
    if "nested" in message:  # json.dumps itself recurses: write the text by hand
        text = artifact_sections[schema.META].decode()
        data = text.replace('"sources": {', '"sources": ' + "[" * 100000 + "]" * 100000 + ', "x": {', 1)
        path = _resigned(artifact_sections, data.encode(), tmp_path)
    else:
        edit(meta)
        path = _resigned(artifact_sections, meta, tmp_path)
    with pytest.raises(schema.MetaError, match=message):
        schema.Artifact.open(path)
    assert iron_cli.main(["inspect", str(path)]) == 2


@pytest.mark.parametrize("clock", [1e-300, 0.5, 1e5, 1e6])
def test_manifest_clock_outside_what_writers_render_is_refused(clock):
    from iron.artifact.manifest import ManifestError

    data = json.loads(Manifest(target="npu1", columns=1, column_offset=1, clock_mhz=1000.0, kernel="k",
                               trace_arg_index=2, total_size=0).to_json())  # fmt: skip
    Manifest.from_dict(data)
    data["clock_mhz"] = clock
    with pytest.raises(ManifestError, match="clock_mhz .*from 1 to 10000"):
        Manifest.from_dict(data)


def test_a_damaged_section_name_stays_on_one_error_line(capsys):
    """A section name read from damaged bytes (data/regressions/SOURCES.md) is shown on one line,
    cut short, as every other CLI error."""
    from iron.cli import main

    bad = Path(__file__).parent / "data" / "regressions" / "section_name_in_meta.elf"
    assert main(["inspect", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "is truncated" in err
