"""Untrusted inputs (issue 14 items 3, 4, 6): manifests, capture files, words, special
files, text encodings, output bounds. Each case once raised a raw Python exception,
read without bound or decoded garbage with exit status 0."""

from __future__ import annotations

import io
import json
import os
import zipfile

import numpy as np
import pytest

from iron.builder.cli import main as artifact_main
from iron.errors import IronError
from iron.trace import decode as D
from iron.trace.capture import Capture, decode_manifest, load_capture
from iron.trace.cli import main as trace_main
from iron.trace.encode import packetize
from iron.artifact.manifest import Manifest, ManifestError, TraceUnit
from iron.trace.words import TraceInputError, check_words

from iron.tests.golden import TEST1

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


# ------------------------------------------------------------------------- item 3: manifests
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


# ------------------------------------------------------------------------- item 3: capture files
def saved_capture(tmp_path):
    m = Manifest.from_dict(manifest_dict())
    words = np.arange(1024, dtype=np.uint32)
    path = tmp_path / "c.npz"
    Capture(m, words).save(path)
    return path


def test_capture_with_one_flipped_byte_is_reported_as_damaged(tmp_path):
    path = saved_capture(tmp_path)
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as zf:
        info = zf.getinfo("words.npy")
    # flip a byte in the middle of the compressed words (local header: 30 bytes + name + extra)
    name_len, extra_len = int.from_bytes(data[info.header_offset + 26 : info.header_offset + 28], "little"), (
        int.from_bytes(data[info.header_offset + 28 : info.header_offset + 30], "little")
    )
    at = info.header_offset + 30 + name_len + extra_len + info.compress_size // 2
    data[at] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(TraceInputError, match="damaged capture file") as info:
        load_capture(path)
    assert str(path) in str(info.value)
    assert trace_main(["trace", "decode", str(path)]) == 2


def test_truncated_capture_is_reported(tmp_path):
    path = saved_capture(tmp_path)
    path.write_bytes(path.read_bytes()[:-200])
    with pytest.raises(TraceInputError, match=str(path)):
        load_capture(path)


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


# ------------------------------------------------------------------------- item 4: special files
@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
@pytest.mark.parametrize(
    "argv",
    [
        ["trace", "decode", "/dev/zero"],
        ["trace", "decode", "{bin}", "--artifact", "/dev/zero"],
        ["trace", "decode", "{bin}", "--manifest", "/dev/zero"],
        ["trace", "decode", "{bin}", "--mlir", "/dev/zero"],
    ],
)
def test_special_files_are_refused_before_reading(tmp_path, capsys, argv):
    np.zeros(16, "<u4").tofile(tmp_path / "t.bin")
    argv = [a.format(bin=tmp_path / "t.bin") for a in argv]
    assert trace_main(argv) == 2
    assert "/dev/zero: not a regular file" in capsys.readouterr().err


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_inspect_dev_zero_is_refused(capsys):
    assert artifact_main(["inspect", "/dev/zero"]) != 0
    assert "/dev/zero: not a regular file" in capsys.readouterr().err


def test_oversized_inputs_are_refused_by_size_not_by_reading(tmp_path, monkeypatch):
    from iron import limits

    big = tmp_path / "big.bin"
    with open(big, "wb") as f:
        f.truncate(4096)  # sparse: nothing to read
    monkeypatch.setattr(limits, "MAX_TRACE_BYTES", 1024)
    with pytest.raises(TraceInputError, match="more than the largest binary trace"):
        from iron.trace.words import read_bin

        read_bin(big)


def _sparse(path, size: int):
    with open(path, "wb") as f:
        f.truncate(size)  # sparse: no disk used, nothing read
    return path


def test_check_input_accepts_the_limit_and_refuses_one_byte_more(tmp_path):
    from iron import limits

    assert limits.check_input(_sparse(tmp_path / "a", 1000), 1000, "x") == 1000
    with pytest.raises(IronError, match="1001 bytes is more than the largest x iron reads \\(1000 bytes\\)"):
        limits.check_input(_sparse(tmp_path / "b", 1001), 1000, "x")


@pytest.mark.parametrize(
    "name, documented",
    [  # docs/guide.md "Limits" table
        ("MAX_TRACE_BYTES", 16 << 30),  # .bin trace, words in a capture: 16 GiB
        ("MAX_TEXT_BYTES", 48 << 30),  # text trace: 48 GiB (12 bytes per word)
        ("MAX_MANIFEST_BYTES", 256 << 20),  # manifest JSON: 256 MiB
        ("MAX_ARTIFACT_BYTES", 1 << 30),  # artifact: 1 GiB
        ("MAX_MLIR_BYTES", 1 << 30),  # MLIR: 1 GiB
    ],
)
def test_a_file_of_the_documented_limit_plus_one_byte_is_refused(tmp_path, name, documented):
    """The limits docs/guide.md documents, at their edge: a sparse file of exactly the
    limit passes the size check, one byte more is refused (by size, never read)."""
    from iron import limits

    limit = getattr(limits, name)
    assert limits.check_input(_sparse(tmp_path / "ok", documented), limit, name) == documented
    with pytest.raises(IronError, match=f"{documented + 1} bytes is more than the largest"):
        limits.check_input(_sparse(tmp_path / "big", documented + 1), limit, name)


def test_entry_points_refuse_one_byte_past_their_documented_limit(tmp_path, monkeypatch):
    """read_bin / read_text refuse a file one byte past the limit docs/guide.md documents for them
    (sparse files: refused by size before a byte is read)."""
    from pathlib import Path

    from iron.trace.words import read_bin, read_text

    monkeypatch.setattr(Path, "read_bytes", lambda self: pytest.fail(f"{self} read past its limit"))
    with pytest.raises(TraceInputError, match="more than the largest binary trace"):
        read_bin(_sparse(tmp_path / "t.bin", (16 << 30) + 4))
    with pytest.raises(TraceInputError, match="more than the largest text trace"):
        read_text(_sparse(tmp_path / "t.txt", (48 << 30) + 1))


# ------------------------------------------------------------------------- item 4: output bound
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


# ------------------------------------------------------------------------- item 6: text encodings
def golden_text_variants():
    text = (TEST1 / "trace.txt").read_text()
    # each padded so that the file size is a multiple of 4: the old reader took them for binary words
    return {
        "utf-8-bom": b"\xef\xbb\xbf" + text.encode() + b"\n",
        "utf-16": text.encode("utf-16") + "\n".encode("utf-16-le"),
        "utf-16-be-bom": b"\xfe\xff" + (text + "\n").encode("utf-16-be"),
        "utf-16-le-no-bom": text.encode("utf-16-le"),
        "crlf": text.replace("\n", "\r\n").encode(),
    }


@pytest.mark.parametrize("variant", sorted(golden_text_variants()))
def test_text_traces_with_bom_or_utf16_decode_like_mlir_aie(tmp_path, variant):
    data = golden_text_variants()[variant]
    assert len(data) % 4 == 0
    path = tmp_path / "trace.txt"
    path.write_bytes(data)
    out = tmp_path / "out.json"
    argv = ["trace", "decode", str(path), "--mlir", str(TEST1 / "aie.mlir"), "--format", "mlir-aie"]
    assert trace_main(argv + ["-o", str(out)]) == 0
    assert json.loads(out.read_text()) == json.loads((TEST1 / "expected.json").read_text())  # mlir-aie's


def test_text_that_is_not_hex_is_one_clear_error(tmp_path, capsys):
    path = tmp_path / "trace.txt"
    path.write_bytes("zzzzzzzz\n".encode("utf-16"))
    assert trace_main(["trace", "decode", str(path), "--mlir", str(TEST1 / "aie.mlir")]) == 2
    assert "not hexadecimal" in capsys.readouterr().err


def test_only_iron_errors_for_a_non_manifest_json(tmp_path):
    for text in ("[]", "1", '{"schema": "1"}', "{" * 100000):
        with pytest.raises(IronError):
            Manifest.from_json(text)
    assert TraceUnit  # the dataclasses stay importable from the schema module


def test_manifest_schema_names_every_field_of_the_dataclasses():
    """A field added to the manifest without its check would make every artifact unreadable."""
    from dataclasses import fields

    from iron.artifact import manifest as M

    for cls, spec in ((M.TraceUnit, M._UNIT), (M.Slice, M._SLICE), (M.Manifest, M._MANIFEST)):
        assert {f.name for f in fields(cls)} == set(spec), cls.__name__
