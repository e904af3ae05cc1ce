"""Output names built from input strings stay in the asked folder (issue 26, item 1).

Per-slice mlir-aie files are named ``<stem>_<index>_<device>_<sequence>.json`` from the
``trace_slices`` of the ``--mlir`` file (upstream's ``TraceConfig.trace_to_json``
naming). A hostile device or sequence string must not reach outside the output's
folder, two slices must not silently share one file, and odd bytes are one clear error.
"""

from __future__ import annotations

import pytest

from iron.cli import main
from iron.errors import IronError
from iron.tests.test_upstream_trace import SIZE_A, _fused_module, _fused_words
from iron.trace.capture import capture_from_mlir


def _module(seq_a: str = "sequence", seq_b: str = "sequence") -> str:
    text = _fused_module()
    text = text.replace('{device = "dev_a", offset = 0 : i64, sequence = "sequence"',
                        f'{{device = "dev_a", offset = 0 : i64, sequence = "{seq_a}"')  # fmt: skip
    return text.replace(f'device = "dev_b", sequence = "sequence", offset = {SIZE_A}',
                        f'device = "dev_b", sequence = "{seq_b}", offset = {SIZE_A}')  # fmt: skip


def _files(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


@pytest.mark.parametrize("seq", ["/../../../escaped", "../escaped", "a/b", ".hidden", "x\\y", "", "a" * 129])
def test_hostile_sequence_names_are_refused_and_nothing_is_written(tmp_path, seq):
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    cap = capture_from_mlir(_fused_words(), _module(seq_a=seq))
    before = _files(tmp_path)
    with pytest.raises(IronError, match="cannot name an output file"):
        cap.to_mlir_aie_json(out_dir / "trace.json")
    assert _files(tmp_path) == before  # not even the good slice's file


def test_cli_refuses_escaping_sequence_with_exit_code(tmp_path, capsys):
    mlir = tmp_path / "fused.mlir"
    mlir.write_text(_module(seq_b="/../../escaped"))
    trace = tmp_path / "trace.txt"
    trace.write_text("\n".join(f"{w:08x}" for w in _fused_words()) + "\n")
    (tmp_path / "out").mkdir()
    code = main(["trace", "decode", str(trace), "--mlir", str(mlir), "--format", "mlir-aie",
                 "-o", str(tmp_path / "out" / "trace.json")])  # fmt: skip
    assert code != 0
    assert "cannot name an output file" in capsys.readouterr().err
    assert not list(tmp_path.rglob("*escaped*")) and not (tmp_path.parent / "escaped.json").exists()


def test_two_slices_that_would_share_a_file_are_refused(tmp_path):
    # upstream indices are slice positions, so only a crafted manifest repeats one
    from iron.trace.capture import per_slice_paths

    class S:
        def __init__(self, i, d, s):
            self.upstream_index, self.device, self.sequence = i, d, s

    with pytest.raises(IronError, match="would both be written"):
        per_slice_paths(tmp_path / "t.json", [S(0, "d", "s"), S(0, "d", "s")])
    assert per_slice_paths(tmp_path / "t.json", [S(0, "d", "s"), S(1, "d", "s")]) == [
        str(tmp_path / "t_0_d_s.json"),
        str(tmp_path / "t_1_d_s.json"),
    ]


def test_plain_symbol_names_still_write_upstream_names(tmp_path):
    cap = capture_from_mlir(_fused_words(), _module(seq_a="seq.a$1", seq_b="seq-b"))
    written = cap.to_mlir_aie_json(tmp_path / "trace.json")
    assert sorted(p.split("/")[-1] for p in written) == [
        "trace_0_dev_a_seq.a$1.json",
        "trace_1_dev_b_seq-b.json",
    ]
