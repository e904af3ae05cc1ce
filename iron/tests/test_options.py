"""Options: the one table, environment parsing, precedence and every bad-input error."""

import dataclasses
import inspect
import re
from pathlib import Path

import pytest

import iron
from iron.errors import OptionError
from iron.options import (
    DEFAULT_CORE_EVENTS,
    DEFAULT_TRACE_SIZE,
    MAX_TRACE_SIZE,
    OPTIONS,
    TRACE_OPTIONS,
    TraceOptions,
    backend_choice,
    cache_dir,
    debug_sources,
    device_choice,
    from_build_kwargs,
    resolve,
    toolchain_dirs,
)


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
    from iron.fuse.plan import selects

    assert selects(opts, 2, "GEMM") and selects(opts, 7, "Softmax") and selects(opts, 3, "X")
    assert not selects(opts, 1, "GEMM") and not selects(opts, 2, "SiLU")


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
        (
            {"IRON_TRACE_SIZE": "64", "IRON_TRACE_EVENTS": "core=INSTR_EVENT_0,"},
            "IRON_TRACE_EVENTS='core=INSTR_EVENT_0,': core event name 2 of 2 is empty; accepted: event names",
        ),
        ({"IRON_TRACE_SIZE": "64", "IRON_TRACE_OP": "1,,2"}, "IRON_TRACE_OP='1,,2': item 2 of 3 is empty"),
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


# Every list option splits with one helper (iron.options.items.split_items): an empty item is
# refused, naming the variable, the whole value, which item and what is accepted (written by hand).
_SIZES_FORMS = "call-site index:bytes pairs, e.g. 0:4096,2:8192 (or a dict {0: 4096})"
_EVENT_FORMS = (
    "event names, A,B (core) or kind=A,B;kind=C (kinds: core, mem, shim, memtile; at most 8 each; "
    "`iron events KIND` lists the names)"
)
_SELECT_FORMS = "call-site indices (0, 2), op<N> or op<N>_<Name>, or operator names (gemm)"
_UNIT_FORMS = "kind(column,row) items, e.g. core(0,2),mem(0,2),memtile(0,1),shim(0,0)"
_PORT_FORMS = (
    "[kind=]slot:bundle:channel:direction items, e.g. core=0:North:1:S2MM,1:DMA:0:MM2S;memtile=0:DMA:2:S2MM "
    "(kinds: core, memtile, shim; slots 0..7; direction S2MM/master or MM2S/slave)"
)


@pytest.mark.parametrize(
    "variable, text, message",
    [
        ("IRON_TRACE_SIZES", "0:64,,1:64", f"IRON_TRACE_SIZES='0:64,,1:64': item 2 of 3 is empty; accepted: {_SIZES_FORMS}"),
        ("IRON_TRACE_SIZES", "0:64,", f"IRON_TRACE_SIZES='0:64,': item 2 of 2 is empty; accepted: {_SIZES_FORMS}"),
        ("IRON_TRACE_EVENTS", "INSTR_EVENT_0;;mem=LOCK_STALL",
         f"IRON_TRACE_EVENTS='INSTR_EVENT_0;;mem=LOCK_STALL': group 2 of 3 is empty; accepted: {_EVENT_FORMS}"),
        ("IRON_TRACE_EVENTS", ",INSTR_EVENT_0",
         f"IRON_TRACE_EVENTS=',INSTR_EVENT_0': core event name 1 of 2 is empty; accepted: {_EVENT_FORMS}"),
        ("IRON_TRACE_OP", "0,", f"IRON_TRACE_OP='0,': item 2 of 2 is empty; accepted: {_SELECT_FORMS}"),
        ("IRON_TRACE_UNITS", "core(0,2),,mem(0,2)",
         f"IRON_TRACE_UNITS='core(0,2),,mem(0,2)': item 2 of 3 is empty; accepted: {_UNIT_FORMS}"),
        ("IRON_TRACE_PORTS", "0:DMA:0:S2MM,",
         f"IRON_TRACE_PORTS='0:DMA:0:S2MM,': core port 2 of 2 is empty; accepted: {_PORT_FORMS}"),
        ("IRON_TRACE_PORTS", "0:DMA:0:S2MM;;shim=0:South:3:MM2S",
         f"IRON_TRACE_PORTS='0:DMA:0:S2MM;;shim=0:South:3:MM2S': group 2 of 3 is empty; accepted: {_PORT_FORMS}"),
        # the bad item itself, not the rest of the text: one unit per comma-separated item
        ("IRON_TRACE_UNITS", "core(0,2) mem(0,2)",
         f"IRON_TRACE_UNITS='core(0,2) mem(0,2)': cannot read 'core(0,2) mem(0,2)'; accepted: {_UNIT_FORMS}"),
        ("IRON_TRACE_UNITS", "core(0,2),mem(0,x)",
         f"IRON_TRACE_UNITS='core(0,2),mem(0,x)': cannot read 'mem(0,x)'; accepted: {_UNIT_FORMS}"),
    ],
)  # fmt: skip
def test_every_list_option_refuses_an_empty_item_alike(variable, text, message):
    with pytest.raises(OptionError) as err:
        resolve(env={"IRON_TRACE_SIZE": "64", variable: text})
    assert str(err.value) == message


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


# --------------------------------------------------------------------------- the option table
# Values in the forms README documents, with what each must resolve to (written by hand).
SAMPLES = {
    # name: (variable text, its value, explicit argument, its value)
    "size": ("4096", 4096, 8192, 8192),
    "ntiles": ("2", 2, 3, 3),
    "events": ("LOCK_STALL", (("core", ("LOCK_STALL",)),), ["INSTR_VECTOR"], (("core", ("INSTR_VECTOR",)),)),
    "select": ("1", (1,), [0, "gemm"], (0, "gemm")),
    "trace_mode": ("event_pc", "event-pc", "event-time", "event-time"),
    "out_dir": ("from-env", Path("from-env"), Path("given"), Path("given")),
    "sizes": ("0:64", ((0, 64),), {1: 128}, ((1, 128),)),
    "start": ("broadcast=3", "broadcast=3", "NONE", "event=NONE"),
    "stop": ("USER_EVENT_1", "event=USER_EVENT_1", "none", "event=NONE"),
    "units": ("core(0,2)", (("core", 0, 2),), [("core", 1, 3)], (("core", 1, 3),)),
    "ports": (
        "0:DMA:1:S2MM",
        (("core", 0, "DMA", 1, True),),
        {"core": {1: ("North", 1, "MM2S")}},
        (("core", 1, "North", 1, False),),
    ),
}


def test_every_trace_option_has_a_sample_and_a_field():
    assert sorted(SAMPLES) == sorted(TRACE_OPTIONS)
    fields = [f.name for f in dataclasses.fields(TraceOptions) if f.name != "origins"]
    assert sorted(o.field for o in TRACE_OPTIONS.values()) == sorted(fields)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_explicit_beats_environment_beats_default(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    row, (text, from_env, explicit, from_arg) = TRACE_OPTIONS[name], SAMPLES[name]
    field = row.field
    traced = {} if name == "size" else {"size": 64}
    opts = resolve(env={row.env: text}, **traced)
    assert (getattr(opts, field), opts.origin(field)) == (from_env, row.env)
    opts = resolve(env={row.env: text}, **traced, **{name: explicit})
    assert (getattr(opts, field), opts.origin(field)) == (from_arg, row.argument)
    opts = resolve(True, env={})
    assert getattr(opts, field) == (DEFAULT_TRACE_SIZE if name == "size" else getattr(TraceOptions(), field))
    assert opts.origin(field) == row.argument


def test_build_keywords_are_the_resolve_options():
    opts = from_build_kwargs(True, trace_sizes="0:64", trace_start="NONE", trace_ports="0:DMA:1:S2MM", env={})
    assert (opts.sizes, opts.start, opts.ports) == (((0, 64),), "event=NONE", (("core", 0, "DMA", 1, True),))
    with pytest.raises(TypeError, match="trace_sise"):
        from_build_kwargs(True, trace_sise=64, env={})
    with pytest.raises(TypeError, match="sise"):
        resolve(True, sise=64, env={})


def test_empty_variables():
    # Numbers: an empty variable is refused (a stray IRON_TRACE_SIZE= must not untrace silently).
    with pytest.raises(OptionError, match="IRON_TRACE_SIZE='': not an integer"):
        resolve(env={"IRON_TRACE_SIZE": ""})
    with pytest.raises(OptionError, match="IRON_TRACE_NTILES='': not an integer"):
        resolve(env={"IRON_TRACE_SIZE": "64", "IRON_TRACE_NTILES": ""})
    # Everything else: unset.
    env = {v: "" for v in ("IRON_TRACE_EVENTS", "IRON_TRACE_OP", "IRON_TRACE_MODE", "IRON_TRACE_SIZES",
                           "IRON_TRACE_START", "IRON_TRACE_STOP", "IRON_TRACE_UNITS", "IRON_TRACE_PORTS")}  # fmt: skip
    assert resolve(size=64, env=env) == resolve(size=64, env={})
    assert (backend_choice(env={"IRON_BACKEND": ""}), device_choice(env={"IRON_DEVICE": ""})) == (
        "auto",
        "auto",
    )
    assert not debug_sources(env={"IRON_DEBUG_SOURCES": ""})
    assert cache_dir(env={"IRON_CACHE_DIR": ""}) == Path("build") / "iron-cache"


def test_untraced_builds_do_not_read_the_trace_options():
    bad = {"IRON_TRACE_EVENTS": "NO_SUCH_EVENT", "IRON_TRACE_NTILES": "zero", "IRON_TRACE_UNITS": "gpu(0,0)"}
    assert not resolve(env=bad).enabled
    assert not resolve(False, env={**bad, "IRON_TRACE_SIZE": "lots"}).enabled
    with pytest.raises(OptionError, match="IRON_TRACE_NTILES='zero'"):
        resolve(True, env=bad)


@pytest.mark.parametrize(
    "kwargs, env, fragment",
    [
        ({"units": "mem(0,2)"}, {}, "trace_units: lists mem unit(s) but no events for that kind"),
        ({}, {"IRON_TRACE_UNITS": "mem(0,2)"}, "IRON_TRACE_UNITS: lists mem unit(s)"),
        ({"ports": "memtile=0:DMA:2:S2MM"}, {}, "trace_ports: selects ports for memtile unit(s)"),
        ({}, {"IRON_TRACE_PORTS": "memtile=0:DMA:2:S2MM"}, "IRON_TRACE_PORTS: selects ports for memtile"),
        ({"stop": "TRUE"}, {}, "trace_stop=TRUE would stop every unit the cycle it starts"),
        ({}, {"IRON_TRACE_STOP": "TRUE"}, "IRON_TRACE_STOP=TRUE would stop"),
        ({"start": "broadcast=14"}, {}, "trace_start and trace_stop are both broadcast=14"),
        (
            {},
            {"IRON_TRACE_START": "broadcast=7", "IRON_TRACE_STOP": "broadcast=07"},
            "IRON_TRACE_START and IRON_TRACE_STOP are both broadcast=7",
        ),
        ({"start": "NONE"}, {"IRON_TRACE_STOP": "NONE"}, None),
    ],
)
def test_rules_between_options_name_where_each_value_came_from(kwargs, env, fragment):
    if fragment is None:
        assert resolve(size=64, env=env, **kwargs).stop == "event=NONE"
        return
    with pytest.raises(OptionError) as err:
        resolve(size=64, env=env, **kwargs)
    assert fragment in str(err.value)


def test_other_options_follow_the_same_precedence(tmp_path):
    assert backend_choice("aiecc", env={"IRON_BACKEND": "builtin"}) == "aiecc"
    assert backend_choice(env={"IRON_BACKEND": " Builtin "}) == "builtin"
    assert device_choice(env={}) == "auto"
    with pytest.raises(OptionError, match=r"IRON_DEVICE='gpu'; accepted: auto, sim, xrt"):
        device_choice(env={"IRON_DEVICE": "gpu"})
    with pytest.raises(OptionError, match=r"device='gpu'; accepted: auto, sim, xrt"):
        device_choice("gpu", env={"IRON_DEVICE": "sim"})
    assert debug_sources(True, env={"IRON_DEBUG_SOURCES": "0"}) and debug_sources(
        env={"IRON_DEBUG_SOURCES": "1"}
    )
    with pytest.raises(OptionError, match=r"IRON_DEBUG_SOURCES='maybe': accepted: 0 or 1"):
        debug_sources(env={"IRON_DEBUG_SOURCES": "maybe"})
    assert cache_dir(tmp_path / "a", env={"IRON_CACHE_DIR": str(tmp_path / "b")}) == tmp_path / "a"
    with pytest.raises(OptionError, match=r"cache_dir=3: expected a path"):
        cache_dir(3, env={})
    (tmp_path / "f").write_text("x")
    with pytest.raises(OptionError, match="PEANO_INSTALL_DIR=.*: not a directory"):
        toolchain_dirs(env={"PEANO_INSTALL_DIR": str(tmp_path / "f")})
    assert toolchain_dirs(env={"MLIR_AIE_INSTALL_DIR": str(tmp_path)}) == {
        "PEANO_INSTALL_DIR": None,
        "MLIR_AIE_INSTALL_DIR": tmp_path,
    }


def test_each_option_is_declared_once():
    for values in (
        [o.name for o in OPTIONS],
        [o.env for o in OPTIONS],
        [o.keyword for o in OPTIONS if o.keyword],
        [flag for o in OPTIONS for flag in o.cli],
    ):
        assert len(values) == len(set(values)), values


def test_iron_build_keywords_are_the_tables():
    # iron.build's own keywords that no variable sets: the trace switch, target and dispatch.
    params = set(inspect.signature(iron.build).parameters) - {"op_or_sequence", "trace", "target", "dispatch"}
    assert params == {o.keyword for o in OPTIONS if o.keyword}


def test_command_line_flags_exist():
    import argparse

    from iron.cli import parser

    for o in OPTIONS:
        for flag in o.cli:
            first, *commands, option = flag.split()
            assert first == "iron"
            p = parser()
            for command in commands:
                sub = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction))
                p = sub.choices[command]
            assert option in p._option_string_actions, flag


def test_only_iron_options_reads_iron_variables():
    root = Path(iron.__file__).parent
    reads = re.compile(r"""(environ\.get\(|environ\[|getenv\(|env\.get\(|env\[)\s*["']IRON_""")
    found = [
        f"{p.relative_to(root)}:{i}"
        for p in root.rglob("*.py")
        if not {"tests", "options"} & set(p.relative_to(root).parts)
        for i, line in enumerate(p.read_text().splitlines(), 1)
        if reads.search(line)
    ]
    assert found == []


def test_readme_names_no_undeclared_variable():
    # IRON_FAKE_PDI_DIR passes data between two test fakes (iron/tests/fake_toolchain/aiebu.py).
    internal = {"IRON_FAKE_PDI_DIR"}
    root = Path(iron.__file__).parents[1]
    readme = "".join(p.read_text() for p in [root / "README.md", *sorted((root / "docs").glob("*.md"))])
    named = set(re.findall(r"\bIRON_[A-Z][A-Z_]*[A-Z]\b", readme)) - internal
    assert named <= {o.env for o in OPTIONS}
