"""Contract tests of the XRT backend against a recording fake pyxrt (no NPU here).

They check the call sequence and argument indices iron uses with pyxrt, not
that XRT behaves as assumed: the fake (``iron/tests/fake_pyxrt.py``) is injected
through ``sys.modules``. Trace settings are explicit arguments.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from iron import Sequence
from iron.builder import aiecc
from iron.artifact import elf, schema
from iron.artifact.schema import Artifact
from iron.target.xclbin import XCLBIN_ARG_OFFSET
from iron import build
from iron.operators import ElementwiseAdd, ElementwiseMul
from iron.runtime import runner
from iron.runtime import xrt
from iron.runtime.runner import RunError
from iron.runtime.xrt import XrtError
from iron.tests import fake_pyxrt

N = 2048
ADD = ElementwiseAdd(N, "i32")
MUL = ElementwiseMul(N, "i32")
PAIR = Sequence("pair", [(ADD, "x", "y", "s"), (MUL, "s", "y", "w")], ["x", "y"], ["s", "w"])
SIZE = 4096
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("cache")


#: Stands for aiecc's full ELF in artifacts made here: the runner must hand XRT these bytes.
AIECC_ELF = b"\x7fELF aiecc's full ELF"


def as_full_elf(art):
    """The artifact as an aiecc full-ELF build: aiecc's ELF kept in ``.iron.full_elf``."""
    sections = {
        n: d for n, d in elf.read_sections(art.path).items() if n.startswith(".iron.") and n != elf.CHECKSUM
    }
    sections[schema.FULL_ELF] = AIECC_ELF
    path = art.path.with_name(art.path.stem + "_full.elf")
    path.write_bytes(elf.write_elf(sections))
    return dataclasses.replace(Artifact.open(path), backend="aiecc-full-elf")


def as_xclbin(art, tmp_path):
    sections = {
        n: d for n, d in elf.read_sections(art.path).items() if n.startswith(".iron.") and n != elf.CHECKSUM
    }
    sections[schema.XCLBIN] = b"XCLBIN-BYTES"
    path = tmp_path / "xclbin_art.elf"
    path.write_bytes(elf.write_elf(sections))
    return dataclasses.replace(Artifact.open(path), backend="aiecc-xclbin")


@pytest.fixture
def fake(monkeypatch):
    def install(features="2.23", **kw):
        m = fake_pyxrt.make(features, **kw)
        monkeypatch.setitem(sys.modules, "pyxrt", m)
        return m

    return install


def sim_reference(art, x, y):
    run = art.load("sim")
    out = run(x, y)
    return out, run.raw_trace


def test_full_elf_call_sequence_and_trace_index(cache, fake):
    """Contract test: npu2 full ELF: elf -> hw_context(device, elf) -> ext.kernel("main:sequence")
    -> run.set_arg(i, bo) for host buffer i (trace at the manifest's index) -> start/wait -> sync back."""
    art = build(PAIR, trace=True, trace_size=SIZE, ntiles=1, target="npu2", cache_dir=cache)
    x, y = ADD.example_inputs(0)
    (s_ref, w_ref), words = sim_reference(art, x, y)
    m = fake("2.23")
    kernel = art.kernels["main:sequence"]
    names = [a.buffer for a in kernel.args]
    seen = {}

    def device(kname, args):  # play the NPU: outputs and the trace buffer
        seen.update(args)
        args[names.index("s")].mem[:] = s_ref.view(np.uint8)
        args[names.index("w")].mem[:] = w_ref.view(np.uint8)
        args[art.manifest.trace_arg_index].mem[:] = words.view(np.uint8)

    m.on_start = device
    run = runner.load(as_full_elf(art), "xrt")
    assert run.device == "xrt"
    s, w = run(x, y)
    assert np.array_equal(s, s_ref) and np.array_equal(w, w_ref)
    assert [sl.status for sl in run.trace.slices] == ["ok", "ok"]

    calls = m.calls
    [elf_path] = [c[1] for c in calls if c[0] == "elf"]  # a temporary file holding aiecc's bytes
    assert calls[:4] == [("device", 0), ("elf", elf_path), ("hw_context", "elf", elf_path),
                         ("ext.kernel", "main:sequence")]  # fmt: skip
    assert m.loaded == [AIECC_ELF] and not os.path.exists(elf_path)
    bo_of = {}
    for c in calls:
        if c[0] == "ext.bo":
            bo_of.setdefault(len(bo_of), c)
    sizes = {c[1]: c[2] for c in calls if c[0] == "ext.bo"}
    set_args = [c for c in calls if c[0] == "set_arg"]
    assert [i for _, i, _ in set_args] == list(range(len(names)))
    trace_idx = art.manifest.trace_arg_index
    assert names[trace_idx] == "trace" and sizes[set_args[trace_idx][2]] == art.manifest.total_size
    for _, i, bo_id in set_args:
        assert sizes[bo_id] == kernel.args[i].type.nbytes
    order = [c[0] for c in calls]
    assert order.index("run") > max(
        i for i, c in enumerate(calls) if c[0] == "sync" and c[2].endswith("TO_DEVICE")
    )
    start, wait = order.index("start"), order.index("wait")
    assert (
        order.index("run") < min(i for i, o in enumerate(order) if o == "set_arg")
        and max(i for i, o in enumerate(order) if o == "set_arg") < start < wait
    )
    back = {c[1] for c in calls[wait:] if c[0] == "sync" and c[2].endswith("FROM_DEVICE")}
    assert back == {set_args[names.index(n)][2] for n in ("s", "w", "trace")}
    assert seen[trace_idx].id == set_args[trace_idx][2]


def xclbin_names(art):
    """The xclbin kernel names the artifact's devices get (aiecc's naming rule), in first-use order."""
    devices = dict.fromkeys(art.kernels[d.kernel].device for d in art.schedule)
    return [schema.xclbin_kernel_name(dev) for dev in devices]


def instruction_bos(calls):
    """Instruction BOs (cacheable, group_id(1)) by id, with whether each was written and synced."""
    bos = {c[1]: c for c in calls if c[0] == "bo" and c[3] == "cacheable"}
    first_call = next(i for i, c in enumerate(calls) if c[0] == "call")
    written = {c[1] for c in calls[:first_call] if c[0] == "write" and c[1] in bos}
    synced = {
        c[1] for c in calls[:first_call] if c[0] == "sync" and c[1] in bos and c[2].endswith("TO_DEVICE")
    }
    return bos, written, synced


def test_xclbin_call_sequence_and_sub_buffers(cache, fake, tmp_path):
    """Contract test: xclbin flow (npu1, separate dispatch): one register_xclbin, one
    hw_context(device, uuid), one kernel(ctx, name) per distinct device named by aiecc's rule,
    an instruction BO per kernel in group_id(1) written and synced before the first call, data
    BOs host_only in group_id(i + 3), and per dispatch kernel(3, instr_bo_of_that_kernel,
    n_words, *bos) with the trace argument a sub-buffer at the call's slice offset."""
    art = as_xclbin(build(PAIR, trace=True, trace_size=SIZE, ntiles=1, target="npu1", dispatch="separate",
                          cache_dir=cache), tmp_path)  # fmt: skip
    x, y = ADD.example_inputs(0)
    (s_ref, w_ref), words = sim_reference(art, x, y)
    names = xclbin_names(art)
    assert names == ["op0_ElementwiseAdd", "op1_ElementwiseMul"]
    m = fake("2.16", xclbin_kernels=names)
    calls_seen = []

    def device(kname, args):  # play the NPU: each call writes its outputs and its own trace slice
        d = art.schedule[len(calls_seen)]
        calls_seen.append(kname)
        for i, a in enumerate(d.args):
            bo = args[XCLBIN_ARG_OFFSET + i]
            if a.buffer == "trace":
                bo.mem[:] = words.view(np.uint8)[a.offset : a.offset + a.type.nbytes]
            elif a.buffer in ("s", "w"):
                bo.mem[:] = (s_ref if a.buffer == "s" else w_ref).view(np.uint8)

    m.on_start = device
    backend = xrt.XrtBackend(art)
    run = runner.Runner(art, backend, "xrt")
    s, w = run(x, y)
    assert np.array_equal(s, s_ref) and np.array_equal(w, w_ref)
    assert [sl.status for sl in run.trace.slices] == ["ok", "ok"]  # each slice landed at its offset

    calls = m.calls
    assert calls[0] == ("device", 0) and calls[1] == ("xclbin", b"XCLBIN-BYTES")
    assert [c[0] for c in calls].count("register_xclbin") == 1 and calls[2][0] == "register_xclbin"
    assert [c for c in calls if c[0] == "hw_context"] == [("hw_context", "uuid", "uuid-1")]
    assert [c for c in calls if c[0] == "kernel"] == [("kernel", n) for n in names]
    assert {id(k.ctx) for k in backend.kernels.values()} == {id(backend.context)}
    instr, written, synced = instruction_bos(calls)
    assert [(c[2], c[4]) for c in instr.values()] == [(len(art.kernels[k].control), 101) for k in art.kernels]
    assert written == synced == set(instr)
    bos = {c[1]: c for c in calls if c[0] == "bo"}
    subs = {c[1]: c for c in calls if c[0] == "sub_bo"}
    invocations = [c for c in calls if c[0] == "call"]
    assert len(invocations) == len(art.schedule) == 2 and calls_seen == names
    instr_of = {}
    for (_, kname, args), d, slice_ in zip(invocations, art.schedule, art.manifest.slices):
        k = art.kernels[d.kernel]
        assert kname == schema.xclbin_kernel_name(k.device)
        assert args[0] == xrt.TXN_OPCODE and args[2] == len(k.control) // 4
        assert bos[args[1]][2:4] == (len(k.control), "cacheable")
        instr_of.setdefault(d.kernel, args[1])
        data = args[3:]
        assert len(data) == len(d.args)
        for i, (bo_id, a) in enumerate(zip(data, d.args)):
            if a.buffer == "trace":
                _, _, parent, size, offset = subs[bo_id]
                assert (size, offset) == (slice_.size, slice_.offset)
                assert bos[parent][2] == art.manifest.total_size and i == slice_.arg_index
            else:
                assert bos[bo_id][2:] == (a.type.nbytes, "host_only", bos[bo_id][4]) and bos[bo_id][4] >= 103
    assert len(set(instr_of.values())) == 2  # each kernel runs its own instruction stream


def test_xclbin_reset_kernel_between_calls_of_one_design(cache, fake, tmp_path):
    """Contract test: separate dispatch of one design called twice in a row (traced): the
    xclbin's iron_reset kernel runs before each call (the one before the first because the
    previous run ended on the same design) with no data arguments, the design's kernel is
    looked up once and both its calls use its one instruction BO, with trace sub-buffers at
    slice offsets 0 and SIZE."""
    seq = Sequence("chain", [(ADD, "x", "y", "z"), (ADD, "z", "y", "w")], ["x", "y"], ["w"])
    art = as_xclbin(
        build(seq, trace=True, trace_size=SIZE, ntiles=1, target="npu1", cache_dir=cache), tmp_path
    )
    names = xclbin_names(art)
    assert names == ["iron_reset", "op0_ElementwiseAdd"]
    m = fake("2.16", xclbin_kernels=names)
    runner.Runner(art, xrt.XrtBackend(art), "xrt")(*ADD.example_inputs(0))
    calls = m.calls
    assert [c for c in calls if c[0] == "kernel"] == [("kernel", n) for n in names]
    instr, written, synced = instruction_bos(calls)
    assert len(instr) == 2 and written == synced == set(instr)
    invocations = [c for c in calls if c[0] == "call"]
    assert [c[1] for c in invocations] == ["iron_reset", "op0_ElementwiseAdd"] * 2
    reset0, first, reset, second = (c[2] for c in invocations)
    assert reset0 == reset
    reset_k = art.kernels[art.schedule[0].kernel]
    assert reset[0] == xrt.TXN_OPCODE and reset[2] == len(reset_k.control) // 4 and len(reset) == 3
    assert first[1] == second[1] != reset[1] and {first[1], reset[1]} == set(instr)
    subs = {c[1]: c for c in calls if c[0] == "sub_bo"}
    assert [subs[first[-1]][3:], subs[second[-1]][3:]] == [(SIZE, 0), (SIZE, SIZE)]
    assert subs[first[-1]][2] == subs[second[-1]][2]  # one host trace buffer


def test_xclbin_without_the_device_kernel_says_rebuild(cache, fake, tmp_path):
    """Contract test: an xclbin lacking a device's kernel (e.g. built by the old single-run
    path, which named its one kernel MLIR_AIE) fails with the names it has, before any run."""
    art = as_xclbin(build(PAIR, trace=False, target="npu1", cache_dir=cache), tmp_path)
    fake("2.16")  # xclbin_kernels = ("MLIR_AIE",)
    with pytest.raises(XrtError, match=r"no kernel 'op0_ElementwiseAdd'.*MLIR_AIE.*rebuild"):
        xrt.XrtBackend(art)


@pytest.mark.parametrize(
    "features, needs",
    [("2.20", r"XRT >= 2.23 \(2026.1\)"), ("2.19", r"XRT >= 2.20"), ("2.16", r"XRT >= 2.19")],
)
def test_full_elf_names_the_xrt_version_needed(cache, fake, features, needs):
    """Contract test: a pyxrt without what the full-ELF flow uses fails naming the XRT release."""
    fake(features)
    art = as_full_elf(build(ADD, trace=False, cache_dir=cache))
    with pytest.raises(XrtError, match=needs):
        xrt.XrtBackend(art)


def test_builtin_artifact_cannot_run_on_xrt(cache, fake):
    """Contract test: iron's built-in artifacts are sim-only; asking for xrt says so."""
    fake("2.23")
    with pytest.raises(XrtError, match=r"built by iron's built-in lowering, which only sim can run"):
        build(ADD, trace=False, cache_dir=cache).load("xrt")


def test_incomplete_run_is_an_error(cache, fake):
    """Contract test: run.wait() must return ERT_CMD_STATE_COMPLETED."""
    fake("2.23", final_state="ERT_CMD_STATE_ERROR")
    run = runner.Runner(
        art := as_full_elf(build(ADD, trace=False, cache_dir=cache)), xrt.XrtBackend(art), "xrt"
    )
    with pytest.raises(XrtError, match=r"did not complete: .*ERROR"):
        run(*ADD.example_inputs(0))


def test_auto_device_choice(cache, fake, monkeypatch):
    """Contract test: auto = xrt only with pyxrt, an NPU that opens, and an aiecc artifact."""
    art = as_full_elf(build(ADD, trace=False, cache_dir=cache))
    fake("2.23")
    assert runner.choose_device(art)[0] == "xrt"
    assert runner.choose_device(dataclasses.replace(art, backend="builtin"))[0] == "sim"
    fake("2.23", device_ok=False)
    # sim cannot run aiecc's full ELF: one error naming why and the way out (issue 24)
    with pytest.raises(
        RunError, match=r"only an NPU runs \(pyxrt found but no NPU device opens.*backend='builtin'"
    ):
        runner.choose_device(art)
    xclbin = dataclasses.replace(art, backend="aiecc-xclbin")  # sim runs xclbin builds
    name, why = runner.choose_device(xclbin)
    assert name == "sim" and "no NPU device opens" in why
    monkeypatch.setitem(sys.modules, "pyxrt", None)  # import fails
    assert runner.choose_device(xclbin) == ("sim", "pyxrt is not installed")
    with pytest.raises(XrtError, match="pyxrt is not importable"):
        xrt.XrtBackend(art)


def test_pyxrt_is_not_imported_with_iron(tmp_path):
    """Contract test: pyxrt is detected at run time, never imported by importing iron's runtime."""
    (tmp_path / "pyxrt.py").write_text("")  # an importable pyxrt that would show up in sys.modules
    code = (
        "import sys, iron, iron.runtime.runner, iron.runtime.xrt, iron.runtime.sim, iron.testing\n"
        "assert 'pyxrt' not in sys.modules, 'pyxrt imported'\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPO)])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr


RUNS = 5


def by_run(calls, marker):
    """Split the call log at each occurrence of ``marker`` (a predicate): one chunk per run."""
    starts = [i for i, c in enumerate(calls) if marker(c)] + [len(calls)]
    return [calls[a:b] for a, b in zip(starts, starts[1:])]


def play_add(art, names_of):
    """A fake NPU for ElementwiseAdd: c = a + b from the bound BOs, a trace capture from sim."""
    _s, words = sim_reference(art, *ADD.example_inputs(0))

    def device(kname, args):
        bound = names_of(kname, args)
        if "c" in bound:
            a, b = (bound[n].mem.view(np.int32) for n in ("a", "b"))
            bound["c"].mem.view(np.int32)[:] = a + b
            bound["trace"].mem[:] = words.view(np.uint8)

    return device


def test_xclbin_loop_reuses_buffers_and_releases_the_context_first(cache, fake, tmp_path):
    """Contract test: five calls of one runner (xclbin flow, one traced design): every call runs
    iron_reset then the design, binding the same BOs (created once, at the first call), writes
    and syncs TO_DEVICE every input and zeroed output before it and syncs the outputs and the
    trace FROM_DEVICE after it; nothing is released until close(), which releases the hardware
    context before any data BO."""
    art = as_xclbin(
        build(ADD, trace=True, trace_size=SIZE, ntiles=1, target="npu1", cache_dir=cache), tmp_path
    )
    names = xclbin_names(art)
    assert names == ["iron_reset", "op0_ElementwiseAdd"]
    m = fake("2.16", xclbin_kernels=names)
    design = art.schedule[1]

    def names_of(kname, args):
        if kname != "op0_ElementwiseAdd":
            return {}
        return {a.buffer: args[XCLBIN_ARG_OFFSET + i] for i, a in enumerate(design.args)}

    m.on_start = play_add(art, names_of)
    run = runner.Runner(art, xrt.XrtBackend(art), "xrt")
    setup = len(m.calls)
    for i in range(RUNS):
        x, y = ADD.example_inputs(i)
        assert np.array_equal(run(x, y), x + y)
        assert [s.status for s in run.trace.slices] == ["ok"]
    calls = m.calls[setup:]
    data_bos = [c for c in calls if c[0] == "bo"]
    assert [(c[2], c[3]) for c in data_bos] == [(t.nbytes, "host_only") for t in art.buffers.values()]
    ids = {name: c[1] for name, c in zip(art.buffers, data_bos)}
    assert not [c for c in calls if c[0] in ("sub_bo", "release")]  # whole buffers; nothing freed
    runs = by_run(calls, lambda c: c[0] == "write" and c[1] == ids["a"])
    assert len(runs) == RUNS
    for chunk in runs:
        invocations = [c for c in chunk if c[0] == "call"]
        assert [c[1] for c in invocations] == names
        assert invocations[1][2][3:] == tuple(ids[a.buffer] for a in design.args)
        first = chunk.index(invocations[0])
        before, after = chunk[:first], chunk[chunk.index(invocations[-1]) :]
        assert [c[1] for c in before if c[0] == "write"] == list(ids.values())
        assert [c[1] for c in before if c[0] == "sync"] == list(ids.values())
        assert {c[2] for c in before if c[0] == "sync"} == {"XCL_BO_SYNC_BO_TO_DEVICE"}
        assert [(c[1], c[2]) for c in after if c[0] == "sync"] == [
            (ids["c"], "XCL_BO_SYNC_BO_FROM_DEVICE"),
            (ids["trace"], "XCL_BO_SYNC_BO_FROM_DEVICE"),
        ]
    mark = len(m.calls)
    run.close()
    released = [c for c in m.calls[mark:] if c[0] == "release"]
    assert released[0][1] == "hw_context"
    assert {c[2] for c in released if c[1] == "bo"} >= set(ids.values())
    with pytest.raises(runner.RunError, match="closed"):
        run(*ADD.example_inputs(0))


def test_full_elf_loop_binds_the_same_buffers_every_run(cache, fake):
    """Contract test: five calls through the full-ELF flow: ext.bo once per host buffer, every
    run's set_arg(i, bo) names the same BOs, close() releases the context before them."""
    art = as_full_elf(build(ADD, trace=True, trace_size=SIZE, ntiles=1, cache_dir=cache))
    m = fake("2.23")
    kernel = art.kernels["main:sequence"]
    m.on_start = play_add(art, lambda _k, args: {a.buffer: args[i] for i, a in enumerate(kernel.args)})
    run = runner.load(art, "xrt")
    for i in range(RUNS):
        x, y = ADD.example_inputs(i)
        assert np.array_equal(run(x, y), x + y)
        assert [s.status for s in run.trace.slices] == ["ok"]
    created = [c[1] for c in m.calls if c[0] == "ext.bo"]
    assert len(created) == len(art.buffers)
    set_args = [(c[1], c[2]) for c in m.calls if c[0] == "set_arg"]
    assert set_args == list(enumerate(created)) * RUNS
    mark = len(m.calls)
    run.close()
    released = [c for c in m.calls[mark:] if c[0] == "release"]
    assert released[0][1] == "hw_context" and {c[2] for c in released[1:]} >= set(created)


# ---------------------------------------------------------------- issue 14 item 8: device generation
# Device names as XRT reports them (mlir-aie's XRT host runtime matches the same strings).
@pytest.mark.parametrize("name", ["RyzenAI-npu4", "NPU Strix", "RyzenAI-npu6"])
def test_npu1_artifact_is_refused_on_an_npu2_device(cache, fake, tmp_path, name):
    art = as_xclbin(build(PAIR, trace=False, target="npu1", cache_dir=cache), tmp_path)
    m = fake("2.23", device_name=name)
    with pytest.raises(
        XrtError, match=rf"built for npu1, but NPU device 0 is '{name}' \(npu2\).*target='npu2'"
    ):
        xrt.XrtBackend(art, pyxrt=m)
    assert not any(
        c[0] in ("register_xclbin", "hw_context", "bo") for c in m.calls
    )  # refused before any setup


def test_npu2_artifact_is_refused_on_an_npu1_device(cache, fake):
    art = as_full_elf(build(PAIR, trace=False, target="npu2", cache_dir=cache))
    m = fake("2.23", device_name="RyzenAI-npu1")
    with pytest.raises(XrtError, match=r"built for npu2, but NPU device 0 is 'RyzenAI-npu1' \(npu1\)"):
        xrt.XrtBackend(art, pyxrt=m)


def test_matching_or_unknown_device_runs(cache, fake, tmp_path):
    art = as_xclbin(build(PAIR, trace=False, target="npu1", cache_dir=cache), tmp_path)
    names = [schema.xclbin_kernel_name(d) for d in dict.fromkeys(k.device for k in art.kernels.values())]
    xrt.XrtBackend(art, pyxrt=fake("2.23", device_name="NPU Phoenix", xclbin_kernels=names))
    with pytest.warns(UserWarning, match="cannot tell which NPU generation"):
        xrt.XrtBackend(art, pyxrt=fake("2.23", device_name="Some Future NPU", xclbin_kernels=names))
