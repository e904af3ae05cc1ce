"""One bound on the output of decoding (intervals written), the same for the API and the CLI,
lifted by ``--all-intervals``, held across units for mlir-aie records.
"""

from __future__ import annotations

import json

import pytest

from iron.artifact.manifest import Manifest
from iron.artifact.manifest import Slice, TraceUnit
from iron.trace.capture import decode_manifest
from iron.trace.encode import encode_unit, interleave, packetize

CORE_EVENTS = ["INSTR_EVENT_0", "INSTR_EVENT_1", "INSTR_VECTOR", "MEMORY_STALL",
               "STREAM_STALL", "LOCK_STALL", "PORT_RUNNING_0", "PORT_RUNNING_1"]  # fmt: skip


PULSES = 400_000  # per unit: INSTR_VECTOR every other cycle, in 785 bytes of Repeat frames


def _amplifier(tmp_path, units: int):
    """A 4 KB trace of ``units`` core units, each ``PULSES`` one-cycle intervals of slot 2."""
    from iron.target.events import event_id

    ids = [event_id("core", n, "aie2") for n in CORE_EVENTS]
    tus = [TraceUnit(0, 2 + r, "core", 0, r + 1, CORE_EVENTS, ids, 0, 0) for r in range(units)]
    m = Manifest("npu1", 1, 0, 1000.0, "k", 2, 4096, [Slice(0, "Op", 0, "d", "s", 0, 4096, tus)])
    payload = encode_unit([(5, 0x04, PULSES, 2)])
    words = interleave([packetize(0, u.row, 0, u.packet_id, payload) for u in tus], pad_to=1024)
    (tmp_path / "m.json").write_text(m.to_json())
    words.astype("<u4").tofile(tmp_path / "w.bin")
    return Manifest.from_json(m.to_json()), words


def _x_events(doc) -> int:
    return sum(1 for e in doc["traceEvents"] if e["ph"] == "X")


def test_perfetto_output_has_one_bound_for_the_api_and_the_cli(tmp_path, capsys):
    from iron.trace.cli import main

    units = 4  # the API bounded each unit alone (4x), the CLI nothing
    manifest, words = _amplifier(tmp_path, units)
    bound, total = 1 << 18, units * PULSES  # 8 per payload byte is less than 2**18 here
    api = decode_manifest(manifest, words)
    doc = api.perfetto()
    assert _x_events(doc) == bound
    assert doc["metadata"]["output_bound"]["dropped_intervals"] == total - bound
    assert api.write(tmp_path / "api.json", "perfetto") == total - bound
    out = tmp_path / "cli.json"
    assert main(["trace", "decode", str(tmp_path / "w.bin"), "--manifest", str(tmp_path / "m.json"),
                 "--format", "perfetto", "-o", str(out)]) == 0  # fmt: skip
    err = capsys.readouterr().err
    assert f"{total - bound} later intervals were dropped" in err and "--all-intervals" in err
    cli = json.loads(out.read_text())
    assert _x_events(cli) == bound and cli["metadata"]["output_bound"]["dropped_intervals"] == total - bound
    begins = sorted(round(e["ts"] * 1000) for e in cli["traceEvents"] if e["ph"] == "X")
    assert begins[:3] == [5, 7, 9]  # the earliest intervals are the ones kept


def test_all_intervals_lifts_the_bound(tmp_path, capsys):
    from iron.trace.cli import main

    _amplifier(tmp_path, 1)
    out = tmp_path / "all.json"
    assert main(["trace", "decode", str(tmp_path / "w.bin"), "--manifest", str(tmp_path / "m.json"),
                 "--format", "perfetto", "--all-intervals", "-o", str(out)]) == 0  # fmt: skip
    doc = json.loads(out.read_text())
    assert _x_events(doc) == PULSES and "output_bound" not in doc["metadata"]
    assert capsys.readouterr().err == ""


def test_mlir_aie_record_bound_holds_across_units(tmp_path, monkeypatch):
    from iron.trace.export import bound
    from iron.trace.words import TraceInputError

    (tmp_path / "1").mkdir()
    one, one_words = _amplifier(tmp_path / "1", 1)
    manifest, words = _amplifier(tmp_path, 4)
    per_unit = 2 * PULSES  # a B and an E record per pulse (mlir-aie's parse.py)
    monkeypatch.setattr(bound, "MAX_MLIR_AIE_RECORDS", per_unit + 10)
    decode_manifest(one, one_words).write(tmp_path / "one.json", "mlir-aie", all_intervals=True)  # fits
    with pytest.raises(TraceInputError, match="across all units"):
        decode_manifest(manifest, words).write(tmp_path / "four.json", "mlir-aie", all_intervals=True)
    assert not (tmp_path / "four.json").exists()
