"""What the decoder reads and writes for hostile text and manifests (issue 36): a text trace
with a character that is not ASCII is refused naming it (before: read as binary words, exit 0),
a crafted Repeat trace cannot expand into hundreds of MB of mlir-aie JSON (before: 8 KB gave
618 MB), a manifest string no UTF-8 writer can encode is refused naming its field (before: a raw
UnicodeEncodeError from the pftrace writer), and ``iron demo`` with every call site untraced is one
error (before: AttributeError)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iron.tests.golden import TEST1
from iron.tests.test_trace_output_bound import _amplifier
from iron.trace.cli import main


def _decode(capsys, *argv) -> tuple[int, str]:
    code = main(["trace", "decode", *map(str, argv)])
    return code, capsys.readouterr().err


def test_a_fullwidth_digit_in_a_text_trace_is_refused_naming_it(tmp_path, capsys):
    lines = (TEST1 / "trace.txt").read_text().splitlines()
    lines[3] = lines[3][:7] + "\uff11"  # FULLWIDTH DIGIT ONE in place of the last digit
    trace = tmp_path / "trace.txt"
    trace.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, err = _decode(capsys, trace, "--mlir", TEST1 / "aie.mlir")
    assert code == 2 and err.count("\n") == 1
    assert "line 4 holds '１' (U+FF11), which is not a hex digit" in err


def test_a_repeat_amplified_trace_is_refused_as_mlir_aie_json(tmp_path, capsys):
    """4 units of 400,000 pulses from 4 KB of words: 3.2 million records. The bound is two per
    interval the Perfetto bound allows (8 per payload byte, at least 2**18): 2**19 here."""
    _amplifier(tmp_path, 4)
    out = tmp_path / "out.json"
    code, err = _decode(
        capsys, tmp_path / "w.bin", "--manifest", tmp_path / "m.json", "--format", "mlir-aie", "-o", out
    )
    assert code == 2 and err.count("\n") == 1
    assert f"more than {2 << 18} records" in err and "--all-intervals lifts it" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.json", "w.bin"]  # nothing half-written


def test_an_honest_trace_still_gives_mlir_aie_json(tmp_path, capsys):
    out = tmp_path / "t.json"
    code, _err = _decode(
        capsys, TEST1 / "trace.txt", "--mlir", TEST1 / "aie.mlir", "--format", "mlir-aie", "-o", out
    )
    assert code == 0 and json.loads(out.read_text()) == json.loads((TEST1 / "expected.json").read_text())


def test_a_lone_surrogate_in_an_operator_name_is_a_manifest_error(tmp_path, capsys):
    _amplifier(tmp_path, 1)
    m = json.loads((tmp_path / "m.json").read_text())
    m["slices"][0]["operator"] = "op\ud800"
    (tmp_path / "m.json").write_text(json.dumps(m))  # JSON's escape: "op\ud800"
    out = tmp_path / "o.pftrace"
    code, err = _decode(
        capsys, tmp_path / "w.bin", "--manifest", tmp_path / "m.json", "--format", "pftrace", "-o", out
    )
    assert code == 2 and err.count("\n") == 1
    assert (
        "slices[0].operator = 'op\\ud800': accepted: Unicode text (it holds the lone surrogate U+D800)" in err
    )
    assert not out.exists()


def test_demo_with_every_call_site_untraced_is_one_error(tmp_path):
    env = {**os.environ, "IRON_TRACE_SIZES": "0:0,1:0,2:0,3:0", "IRON_CACHE_DIR": str(tmp_path / "c")}
    run = subprocess.run(
        [sys.executable, "-m", "iron", "demo", "--out", str(tmp_path / "out")],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600,
    )  # fmt: skip
    assert run.returncode == 2, run.stderr
    assert "Traceback" not in run.stderr
    assert "the run recorded no trace: every call site's trace size is 0 (IRON_TRACE_SIZES" in run.stderr


# --------------------------------------------------------------------------- property
WORD = st.integers(0, 0xFFFFFFFF).map(lambda w: f"{w:08x}")
NOISE = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=3)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    words=st.lists(st.one_of(WORD, WORD, WORD, NOISE), min_size=1, max_size=20),
    newline=st.sampled_from(["\n", "\r\n", "\r", " "]),
    encoding=st.sampled_from(["utf-8", "utf-8-sig", "utf-16"]),
)
def test_any_text_trace_decodes_or_is_one_error_line(tmp_path_factory, capsys, words, newline, encoding):
    """Hex words mixed with any Unicode text, any line ending and encoding: exit 0, or exit 2
    with one line; a character outside ASCII is never read as binary words (exit 0)."""
    folder = tmp_path_factory.mktemp("t")
    text = newline.join(words) + "\n"
    trace = folder / "trace.txt"
    trace.write_bytes(text.encode(encoding))
    code, err = _decode(
        capsys, trace, "--mlir", TEST1 / "aie.mlir", "--format", "summary", "-o", folder / "s.txt"
    )
    assert code in (0, 2) and (code == 0 or err.count("\n") == 1)
    if not text.strip().isascii():
        assert code == 2
