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
from iron.artifact import elf
from iron.artifact.artifact import Artifact
from iron.artifact.build import build
from iron.operators import ElementwiseAdd, ElementwiseMul
from iron.runtime import runner, xrt
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


def as_full_elf(art):
    return dataclasses.replace(art, backend="aiecc-full-elf")


def as_xclbin(art, tmp_path):
    sections = {
        n: d for n, d in elf.read_sections(art.path).items() if n.startswith(".iron.") and n != elf.CHECKSUM
    }
    sections[xrt.XCLBIN_SECTION] = b"XCLBIN-BYTES"
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
    assert calls[:4] == [("device", 0), ("elf", str(art.path)), ("hw_context", "elf", str(art.path)),
                         ("ext.kernel", "main:sequence")]  # fmt: skip
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


def test_xclbin_call_sequence_and_sub_buffers(cache, fake, tmp_path):
    """Contract test: xclbin flow (npu1, separate dispatch): register_xclbin, hw_context(device, uuid),
    kernel(ctx, name), instruction BO in group_id(1), data BOs host_only in group_id(i + 3),
    kernel(3, instr_bo, n_words, *bos); trace arguments are sub-buffers at each slice's offset."""
    art = as_xclbin(build(PAIR, trace=True, trace_size=SIZE, ntiles=1, target="npu1", dispatch="separate",
                          cache_dir=cache), tmp_path)  # fmt: skip
    m = fake("2.16")
    run = runner.Runner(art, xrt.XrtBackend(art), "xrt")
    x, y = ADD.example_inputs(0)
    run(x, y)
    calls = m.calls
    assert calls[0] == ("device", 0) and calls[1] == ("xclbin", b"XCLBIN-BYTES")
    assert calls[2][0] == "register_xclbin" and calls[3] == ("hw_context", "uuid", "uuid-1")
    assert calls[4] == ("kernel", "MLIR_AIE")
    bos = {c[1]: c for c in calls if c[0] == "bo"}
    instr = [c for c in bos.values() if c[3] == "cacheable"]
    assert [(c[2], c[4]) for c in instr] == [
        (len(art.kernels[k].control), 101) for k in (d.kernel for d in art.schedule)
    ]
    subs = {c[1]: c for c in calls if c[0] == "sub_bo"}
    invocations = [c for c in calls if c[0] == "call"]
    assert len(invocations) == len(art.schedule) == 2
    for (_, kname, args), d, slice_ in zip(invocations, art.schedule, art.manifest.slices):
        k = art.kernels[d.kernel]
        assert args[0] == xrt.TXN_OPCODE and args[2] == len(k.control) // 4
        assert bos[args[1]][3] == "cacheable"
        data = args[3:]
        assert len(data) == len(d.args)
        for i, (bo_id, a) in enumerate(zip(data, d.args)):
            if a.buffer == "trace":
                _, _, parent, size, offset = subs[bo_id]
                assert (size, offset) == (slice_.size, slice_.offset)
                assert bos[parent][2] == art.manifest.total_size and i == slice_.arg_index
            else:
                assert bos[bo_id][2:] == (a.type.nbytes, "host_only", bos[bo_id][4]) and bos[bo_id][4] >= 103


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
    name, why = runner.choose_device(art)
    assert name == "sim" and "no NPU device opens" in why
    monkeypatch.setitem(sys.modules, "pyxrt", None)  # import fails
    assert runner.choose_device(art) == ("sim", "pyxrt is not installed")
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
