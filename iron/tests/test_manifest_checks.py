"""Trace manifests iron reads (``iron.artifact.manifest``): a good one loads; a bad field,
overlapping slices, unknown or missing fields are one ManifestError naming the field, the
value and what is accepted, also on the command line; the schema names every field.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from iron.artifact.manifest import Manifest, ManifestError, TraceUnit
from iron.errors import IronError
from iron.trace.cli import main as trace_main

CORE = dict(column=0, row=2, kind="core", packet_type=0, packet_id=1, start_event=1, stop_event=0)


def manifest_dict(**top) -> dict:
    """A small hand-written manifest (schema 1 as README and manifest.py document it)."""
    unit = {**CORE, "events": ["INSTR_EVENT_0"] + ["NONE"] * 7, "event_ids": [33] + [0] * 7}
    sl = dict(index=0, operator="Op", call=0, device="op0", sequence="sequence", offset=0, size=4096)
    sl.update(units=[unit], kernel="main:sequence", arg_index=-1)
    m = dict(schema=1, target="npu2", columns=1, column_offset=0, clock_mhz=1000.0, kernel="main:sequence")
    m.update(trace_arg_index=2, total_size=4096, slices=[sl], sources={})
    m.update(top)
    return m


def with_slice(**fields) -> dict:
    m = manifest_dict()
    m["slices"][0].update(fields)
    return m


def with_unit(**fields) -> dict:
    m = manifest_dict()
    m["slices"][0]["units"][0].update(fields)
    return m


def test_good_manifest_loads():
    m = Manifest.from_dict(manifest_dict())
    assert m.slices[0].units[0].events[0] == "INSTR_EVENT_0"


@pytest.mark.parametrize(
    "data, field, value",
    [
        (manifest_dict(clock_mhz=0), "clock_mhz", "0"),
        (manifest_dict(clock_mhz=float("nan")), "clock_mhz", "nan"),
        (with_unit(kind="dsp"), "slices[0].units[0].kind", "'dsp'"),
        (with_unit(column="0"), "slices[0].units[0].column", "'0'"),
        (with_unit(column=1.5), "slices[0].units[0].column", "1.5"),
        (with_unit(events=["INSTR_EVENT_0"]), "slices[0].units[0].events", "['INSTR_EVENT_0']"),
        (with_unit(event_ids=[33, 0]), "slices[0].units[0].event_ids", "[33, 0]"),
        (with_slice(offset=-32), "slices[0].offset", "-32"),
        (with_slice(size=8192), "slices[0].offset + size", "8192"),
        (manifest_dict(columns=True), "columns", "True"),
        (manifest_dict(target="npu9"), "target", "'npu9'"),
    ],
)
def test_bad_manifest_names_field_value_and_what_is_accepted(data, field, value):
    with pytest.raises(ManifestError) as info:
        Manifest.from_dict(data)
    text = str(info.value)
    assert f"{field} = {value}" in text and "accepted:" in text


def test_overlapping_slices_and_unknown_or_missing_fields_are_refused():
    m = manifest_dict(total_size=8192)
    m["slices"].append({**m["slices"][0], "index": 1, "offset": 2048})
    with pytest.raises(ManifestError, match=r"slices\[1\]\.offset = 2048.*overlapping slices\[0\]"):
        Manifest.from_dict(m)
    with pytest.raises(ManifestError, match="unknown field .colour."):
        Manifest.from_dict(manifest_dict(colour="red"))
    m = manifest_dict()
    del m["slices"][0]["units"][0]["row"]
    with pytest.raises(ManifestError, match=r"slices\[0\]\.units\[0\]\.row is missing"):
        Manifest.from_dict(m)
    with pytest.raises(ManifestError, match="newer than this iron"):
        Manifest.from_dict(manifest_dict(schema=99))


@pytest.mark.parametrize("overlap", [4, 28, 32])
def test_slices_overlapping_by_less_than_a_packet_are_refused(overlap):
    """Two slices sharing even one 32-bit word would decode that word twice: an
    overlap of one word (4 bytes), of one word less than a packet (a packet is 8
    words, 32 bytes: mlir-aie's parser reads packets of 8 words) and of one packet
    are all refused, naming the later slice; slices that only touch are accepted."""
    m = manifest_dict(total_size=8192)
    m["slices"].append({**m["slices"][0], "index": 1, "offset": 4096 - overlap, "size": 4096})
    with pytest.raises(
        ManifestError, match=rf"slices\[1\]\.offset = {4096 - overlap}.*slices\[0\] \(which ends at 4096\)"
    ):
        Manifest.from_dict(m)
    m["slices"][1]["offset"] = 4096
    assert [s.offset for s in Manifest.from_dict(m).slices] == [0, 4096]


def test_cli_reports_a_bad_manifest_in_one_line(tmp_path, capsys):
    (tmp_path / "m.json").write_text(json.dumps(manifest_dict(clock_mhz=0)))
    np.zeros(1024, "<u4").tofile(tmp_path / "t.bin")
    for fmt in ("summary", "perfetto", "mlir-aie"):
        argv = ["trace", "decode", str(tmp_path / "t.bin"), "--manifest", str(tmp_path / "m.json")]
        assert trace_main(argv + ["--format", fmt]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "clock_mhz = 0" in err[0] and "m.json" in err[0]


def test_only_iron_errors_for_a_non_manifest_json(tmp_path):
    for text in ("[]", "1", '{"schema": "1"}', "{" * 100000):
        with pytest.raises(IronError):
            Manifest.from_json(text)
    assert TraceUnit  # the dataclasses stay importable from the schema module


def test_manifest_schema_names_every_field_of_the_dataclasses():
    """A field added to the manifest without its check would make every artifact unreadable."""
    from iron.artifact import manifest as M

    for cls, spec in ((M.TraceUnit, M._UNIT), (M.Slice, M._SLICE), (M.Manifest, M._MANIFEST)):
        assert set(cls._fields) == set(spec), cls.__name__
