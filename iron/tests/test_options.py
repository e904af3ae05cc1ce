"""TraceOptions: environment parsing, precedence and every bad-input error."""

import pytest

from iron.errors import OptionError
from iron.options import DEFAULT_CORE_EVENTS, DEFAULT_TRACE_SIZE, MAX_TRACE_SIZE, cache_dir, resolve


def test_unset_or_zero_is_untraced():
    assert not resolve(env={}).enabled
    assert not resolve(env={"IRON_TRACE_SIZE": "0"}).enabled
    assert resolve(env={"IRON_TRACE_SIZE": "0"}).key() == {"size": 0}


def test_environment_values():
    opts = resolve(
        env={"IRON_TRACE_SIZE": "65536", "IRON_TRACE_NTILES": "4", "IRON_TRACE_OP": "op2_GEMM,softmax,3"}
    )
    assert (opts.size, opts.ntiles) == (65536, 4)
    assert opts.events == (("core", DEFAULT_CORE_EVENTS),)
    assert opts.select == ((2, "GEMM"), "softmax", 3)
    assert opts.selects(2, "GEMM") and opts.selects(7, "Softmax") and opts.selects(3, "X")
    assert not opts.selects(1, "GEMM") and not opts.selects(2, "SiLU")


def test_explicit_arguments_win_over_environment():
    env = {"IRON_TRACE_SIZE": "65536", "IRON_TRACE_NTILES": "4", "IRON_TRACE_OP": "1"}
    opts = resolve(size=4096, ntiles=2, select=[0], env=env)
    assert (opts.size, opts.ntiles, opts.select) == (4096, 2, (0,))
    assert not resolve(False, env=env).enabled
    assert resolve(True, env={}).size == DEFAULT_TRACE_SIZE
    assert resolve(True, env=env).size == 65536


def test_events_forms():
    opts = resolve(size=64, events="INSTR_EVENT_0,LOCK_STALL", env={})
    assert opts.events == (("core", ("INSTR_EVENT_0", "LOCK_STALL")),)
    opts = resolve(size=64, env={"IRON_TRACE_EVENTS": "core=INSTR_EVENT_0;mem=DMA_S2MM_0_START_TASK"})
    assert opts.events_for("mem") == ("DMA_S2MM_0_START_TASK",)
    assert opts.events_for("memtile") == ()


@pytest.mark.parametrize(
    "env, fragment",
    [
        ({"IRON_TRACE_SIZE": "lots"}, "IRON_TRACE_SIZE='lots': not an integer"),
        ({"IRON_TRACE_SIZE": "-32"}, "IRON_TRACE_SIZE='-32': must be >= 0"),
        ({"IRON_TRACE_SIZE": "100"}, "IRON_TRACE_SIZE='100': not a multiple of 32"),
        ({"IRON_TRACE_SIZE": str(MAX_TRACE_SIZE + 32)}, "exceeds what a shim BD length can address"),
        ({"IRON_TRACE_SIZE": "64", "IRON_TRACE_NTILES": "two"}, "IRON_TRACE_NTILES='two': not an integer"),
        ({"IRON_TRACE_SIZE": "64", "IRON_TRACE_NTILES": "0"}, "IRON_TRACE_NTILES='0': must be >= 1"),
        (
            {"IRON_TRACE_SIZE": "64", "IRON_TRACE_EVENTS": "INSTR_EVENT_9"},
            "unknown core event(s) INSTR_EVENT_9",
        ),
        ({"IRON_TRACE_SIZE": "64", "IRON_TRACE_EVENTS": "gpu=X"}, "unknown unit kind(s) gpu"),
        ({"IRON_TRACE_SIZE": "64", "IRON_TRACE_EVENTS": ",".join(["TRUE"] * 9)}, "9 events for core"),
        ({"IRON_TRACE_SIZE": "64", "IRON_TRACE_EVENTS": "core=INSTR_EVENT_0,"}, "empty event name"),
        ({"IRON_TRACE_SIZE": "64", "IRON_TRACE_OP": "1,,2"}, "IRON_TRACE_OP='1,,2': cannot read ''"),
        ({"IRON_TRACE_SIZE": "64", "IRON_TRACE_OP": "op-1"}, "cannot read 'op-1'"),
    ],
)
def test_bad_environment_values(env, fragment):
    with pytest.raises(OptionError) as err:
        resolve(env=env)
    assert fragment in str(err.value)


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"size": 33}, "trace_size=33: not a multiple of 32"),
        ({"size": True}, "trace_size=True: expected an integer"),
        ({"size": 64, "ntiles": -1}, "ntiles=-1: must be >= 1"),
        ({"size": 64, "select": [-2]}, "negative index -2"),
        ({"trace": "yes"}, "expected True, False or None"),
    ],
)
def test_bad_arguments(kwargs, fragment):
    with pytest.raises(OptionError) as err:
        resolve(env={}, **kwargs)
    assert fragment in str(err.value)


def test_directories_must_not_be_files(tmp_path):
    f = tmp_path / "f"
    f.write_text("x")
    with pytest.raises(OptionError, match="IRON_TRACE_DIR"):
        resolve(env={"IRON_TRACE_DIR": str(f)})
    with pytest.raises(OptionError, match="IRON_CACHE_DIR"):
        cache_dir(env={"IRON_CACHE_DIR": str(f)})
    assert cache_dir(env={"IRON_CACHE_DIR": str(tmp_path)}) == tmp_path


def test_default_ntiles_yields_to_environment_and_argument():
    assert resolve(size=64, default_ntiles=4, env={}).ntiles == 4
    assert resolve(size=64, default_ntiles=4, env={"IRON_TRACE_NTILES": "2"}).ntiles == 2
    assert resolve(size=64, ntiles=3, default_ntiles=4, env={"IRON_TRACE_NTILES": "2"}).ntiles == 3
