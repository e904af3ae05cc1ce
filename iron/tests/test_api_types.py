"""Selections, sizes and Python API argument types (issue 14 items 5 and 7).

Every case here once raised TypeError, accepted a value it could not honour, or named
the wrong source (an environment variable for an argument)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import iron
from iron import options, testing
from iron.builder.cli import inspect_lines
from iron.builder.cli import main as artifact_main
from iron.errors import IronError, OptionError
from iron.instrument import layout
from iron.operators import ElementwiseAdd, ElementwiseMul, SiLU
from iron.trace import decode as D
from iron.trace.cli import main as trace_main

ADD = ElementwiseAdd(1024)  # bf16, like SiLU
PAIR = iron.Sequence("pair", [(ADD, "x", "y", "s"), (SiLU(1024), "s", "w")], ["x", "y"], ["w"])


# ------------------------------------------------------------------------- item 5: selections
def test_op_n_name_is_checked_against_the_call_site(tmp_path):
    with pytest.raises(OptionError) as info:
        iron.build(PAIR, trace_size=4096, select="op1_GEMM", cache_dir=tmp_path)
    text = str(info.value)
    assert "call site 1 of pair runs SiLU, not GEMM" in text and text.startswith("select=")
    art = iron.build(PAIR, trace_size=4096, select="op1_SiLU", cache_dir=tmp_path)
    assert [s.operator for s in art.manifest.slices] == ["SiLU"]


def test_selection_error_names_the_environment_variable_when_it_came_from_there(tmp_path, monkeypatch):
    monkeypatch.setenv("IRON_TRACE_OP", "op1_GEMM")
    with pytest.raises(OptionError, match=r"^IRON_TRACE_OP='op1_GEMM': call site 1"):
        iron.build(PAIR, trace_size=4096, cache_dir=tmp_path)
    monkeypatch.setenv("IRON_TRACE_OP", "gemm")
    with pytest.raises(OptionError, match=r"^IRON_TRACE_OP='gemm' selects no call site of pair"):
        iron.build(PAIR, trace_size=4096, cache_dir=tmp_path)


def test_pytest_flow_leaves_a_test_untraced_when_the_selection_names_none_of_its_sites(tmp_path, monkeypatch):
    monkeypatch.setenv("IRON_TRACE_SIZE", "4096")
    monkeypatch.setenv("IRON_TRACE_OP", "gemm")
    monkeypatch.setenv("IRON_TRACE_DIR", str(tmp_path / "traces"))
    with pytest.warns(testing.UntracedWarning, match="selects no call site.*left untraced") as rec:
        result = testing.check_operator(ADD, cache_dir=tmp_path)
    # the warning points at the test that called check_operator, not inside iron
    assert {w.filename for w in rec if w.category is testing.UntracedWarning} == {__file__}
    assert result.trace is None and result.outputs
    monkeypatch.setenv("IRON_TRACE_OP", "elementwiseadd")
    with warnings.catch_warnings():
        warnings.simplefilter("error", testing.UntracedWarning)
        assert testing.check_operator(ADD, cache_dir=tmp_path).trace is not None


# ------------------------------------------------------------------------- item 5: sizes
def test_trace_size_maximum_is_what_the_writebd_length_holds():
    # aiex.npu.writebd fields are i32 attributes (mlir-aie AIEX.td, printed ": i32"), counting words
    assert options.MAX_TRACE_SIZE == ((1 << 31) - 1) * 4 // 32 * 32 == 8589934560


def test_too_large_trace_size_is_refused_up_front_naming_the_variable(monkeypatch):
    with pytest.raises(OptionError, match=r"^IRON_TRACE_SIZE='17179869152': exceeds"):
        options.resolve(env={"IRON_TRACE_SIZE": "17179869152"})
    monkeypatch.setattr(options.sizes, "host_trace_limit", lambda: 1 << 30)  # a host with 8 GiB
    with pytest.raises(OptionError, match=r"^IRON_TRACE_SIZE='2147483648': more trace than this host"):
        options.resolve(env={"IRON_TRACE_SIZE": str(2 << 30)})
    with pytest.raises(OptionError, match=r"^trace_size=2147483648: more trace than this host"):
        options.resolve(size=2 << 30, env={})


def test_total_trace_of_all_call_sites_is_checked_before_building(tmp_path, monkeypatch):
    monkeypatch.setattr(options.sizes, "host_trace_limit", lambda: 6000)
    with pytest.raises(OptionError, match=r"trace_size=4096 with 2 traced call sites: 8192 bytes"):
        iron.build(PAIR, trace_size=4096, cache_dir=tmp_path)


def test_slice_offsets_beyond_an_i32_patch_are_refused(monkeypatch):
    monkeypatch.setattr(options.sizes, "host_trace_limit", lambda: None)
    opts = options.resolve(size=1 << 30, env={})
    layout.check_layout(opts, [1 << 30] * 2)  # the second slice starts at 1 GiB: fine
    with pytest.raises(OptionError, match="beyond what a trace patch can offset"):
        layout.check_layout(opts, [1 << 30] * 3)


# ------------------------------------------------------------------------- item 7: API types
@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(events=123), r"^events=123: expected event names"),
        (dict(events={"core": "INSTR_EVENT_0"}), r"^events=.*expected \{kind: \[event names\]\}"),
        (dict(events=[1, 2]), r"event names for core must be strings"),
        (dict(cache_dir=123), r"^cache_dir=123: expected a path"),
        (dict(select=1.5), r"^select=1.5: expected a list"),
        (dict(select=[None]), r"None is not a call site"),
        (dict(ntiles="x"), r"^ntiles='x': not an integer"),
        (dict(target=["npu2"]), r"target=\['npu2'\]"),
    ],
)
def test_wrong_argument_types_raise_option_errors_naming_the_argument(tmp_path, kwargs, message):
    kwargs = {"trace_size": 4096, "cache_dir": tmp_path, **kwargs}
    with pytest.raises(IronError, match=message):
        iron.build(ADD, **kwargs)


def test_select_zero_and_numpy_integers_are_accepted(tmp_path):
    art = iron.build(PAIR, trace_size=np.int64(4096), ntiles=np.int32(1), select=0, cache_dir=tmp_path)
    assert [s.index for s in art.manifest.slices] == [0]
    art = iron.build(PAIR, trace_size=4096, select=[np.int64(1)], cache_dir=tmp_path)
    assert [s.index for s in art.manifest.slices] == [1]
    with pytest.raises(OptionError):
        iron.build(PAIR, trace_size=4096, select=[True], cache_dir=tmp_path)


def test_ntiles_from_an_argument_is_not_blamed_on_the_environment(tmp_path):
    with pytest.warns(UserWarning) as record:
        iron.build(ADD, trace_size=4096, ntiles=99, cache_dir=tmp_path)
    texts = [str(w.message) for w in record if "compute tile" in str(w.message)]
    assert texts and all(t.startswith("ntiles=99") and "IRON_TRACE_NTILES" not in t for t in texts)


def test_artifact_that_is_not_irons_or_untraced_is_blamed_not_the_trace(tmp_path, capsys):
    from iron.artifact import elf

    words = tmp_path / "t.bin"
    np.zeros(64, "<u4").tofile(words)
    foreign = tmp_path / "foreign.elf"
    foreign.write_bytes(elf.write_elf({".iron.code.0": b"1234"}))
    untraced = iron.build(ADD, trace=False, cache_dir=tmp_path).path
    garbage = tmp_path / "garbage.elf"
    garbage.write_bytes(b"\x7fELF" + b"\xff" * 60)
    for path, what in ((foreign, "not an iron artifact"), (untraced, "untraced artifact"), (garbage, "ELF")):
        assert trace_main(["trace", "decode", str(words), "--artifact", str(path)]) == 2
        err = capsys.readouterr().err
        assert "--artifact" in err and str(path) in err and what in err and str(words) not in err


def test_max_ops_must_not_be_negative(tmp_path, capsys):
    art = iron.build(ADD, trace=False, cache_dir=tmp_path)
    with pytest.raises(SystemExit):
        artifact_main(["inspect", str(art.path), "--max-ops", "-1"])
    assert "--max-ops: -1 is negative" in capsys.readouterr().err
    with pytest.raises(IronError, match="max_ops=-1"):
        inspect_lines(art, max_ops=-1)
    assert any("more" in line for line in inspect_lines(art, max_ops=0))


def test_decode_words_refuses_2d_arrays_and_unknown_engines():
    unit = iron.artifact.manifest.TraceUnit(0, 2, "core", 0, 1, ["NONE"] * 8, [0] * 8, 1, 0)
    with pytest.raises(IronError, match="1-D"):
        D.decode_words(np.zeros((4, 8), np.uint32), [unit])
    with pytest.raises(OptionError, match="engine='bogus': accepted: auto, plain, numpy, numba"):
        D.decode_words(np.zeros(8, np.uint32), [unit], engine="bogus")
    with pytest.raises(OptionError, match="engine='bogus'"):
        D.parse_stream(np.zeros(4, np.uint8), engine="bogus")
    assert ElementwiseMul  # operators stay importable alongside
