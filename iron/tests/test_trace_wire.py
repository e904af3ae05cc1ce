"""``iron trace wire`` on upstream's own fused inputs (iron/tests/data/upstream, SOURCES.md).

Expected layouts are read from the files' CHECK lines (what mlir-aie's
``-aie-fuse-trace-buffers`` records): ``#aie.trace_slice<device, sequence, offset,
size>``, the fused ``memref<Nxi8>`` and the ``arg_idx`` of every trace address patch.
"""

from __future__ import annotations

import json
import re

import pytest

from iron.fuse.fusion import RESET_DEVICE, FusedModule, Kernel
from iron.lower.materialize import kernel_ops
from iron.lower.verify import trace_patches
from iron.mlir import ir
from iron.mlir.printer import print_module
from iron.mlir.reader import parse
from iron.target.geometry import get_target
from iron import cli
from iron.artifact.manifest import Manifest
from iron.fuse.wire import WireError, manifest_path, wire
from iron.tests.upstream import UPSTREAM

_SLICE = re.compile(r'#aie\.trace_slice<device = "(\w+)", sequence = "(\w+)", offset = (\d+), size = (\d+)>')


def _chunks(name: str) -> list[str]:
    text = (UPSTREAM / name).read_text(encoding="utf-8")
    return [c for c in re.split(r"^// -----\s*$", text, flags=re.M) if "aie.device" in c]


def _expected(chunk: str):
    checks = "\n".join(re.findall(r"//\s*CHECK(?:-SAME|-LABEL|-NOT)?:\s?(.*)", chunk))
    slices = [(d, s, int(o), int(z)) for d, s, o, z in _SLICE.findall(checks)]
    total = re.findall(r"memref<(\d+)xi8>", checks)
    arg_idx = {int(i) for i in re.findall(r"arg_idx = (\d+) : i32", checks)}
    if not arg_idx and total:  # no patch CHECK: the fused buffer's position in the signature CHECK
        sig = next(line for line in checks.splitlines() if f"memref<{total[0]}xi8>" in line)
        arg_idx = {sig[: sig.index(f"memref<{total[0]}xi8>")].count("memref<")}
    return slices, (int(total[0]) if total else None), arg_idx


def _patches(wired, target):
    fm = FusedModule("w", get_target(target), "fused", wired.module, [], {}, [], [], [])
    dev, seq = wired.wrapper.split(":")
    ops = kernel_ops(fm, Kernel(wired.wrapper, dev, seq, []))
    return [(p.arg_idx, p.arg_plus) for p in trace_patches(ops)]


CASES = [
    ("test_fuse_trace_buffers.mlir", 0, "npu1"),  # one design called twice
    ("test_fuse_trace_buffers.mlir", 1, "npu1"),  # the caller's own trace first
    ("test_trace_configure_run.mlir", 0, "npu1"),  # two designs, two data arguments
]


@pytest.mark.parametrize("name,chunk,target", CASES, ids=[f"{n}-{c}" for n, c, _t in CASES])
def test_layout_and_argument_index_are_upstreams(name, chunk, target):
    text = _chunks(name)[chunk]
    slices, total, arg_idx = _expected(text)
    wired = wire(text)
    m = wired.manifest
    assert [(s.device, s.sequence, s.offset, s.size) for s in m.slices] == slices
    assert m.total_size == total
    assert {m.trace_arg_index} == arg_idx
    # Every drain BD is patched at the fused buffer + its slice offset (upstream: arith.constant N + arg_idx).
    assert _patches(wired, target) == [(m.trace_arg_index, s.offset) for s in m.slices]
    again = parse(print_module(wired.module), "wired")  # reads back with iron's reader
    wrapper = again.device(wired.wrapper.split(":")[0]).sequence(wired.wrapper.split(":")[1])
    assert wrapper.args[m.trace_arg_index].type == ir.MemRefType((total,), "i8")


def test_untraced_caller_of_untraced_callee_gains_no_trace_argument():
    assert wire(_chunks("test_fuse_trace_buffers.mlir")[2]).manifest is None


def test_iron_resets_between_runs_of_one_traced_device():
    # Upstream keeps both runs in one configure block; iron splits it and reconfigures in
    # between, and before the first (the last run of a dispatch ran the same device).
    wired = wire(_chunks("test_fuse_trace_buffers.mlir")[0])
    dev, seq = wired.wrapper.split(":")
    body = wired.module.device(dev).sequence(seq).body
    assert [op.device for op in body if isinstance(op, ir.Configure)] == [
        RESET_DEVICE,
        "dev_a",
        RESET_DEVICE,
        "dev_a",
    ]


def test_six_runs_of_trace_slices_configure_run():
    # test/npu-xrt/trace_slices_configure_run: six runs, one 8192-byte slice each (host_config),
    # in run order, after the one data argument %out.
    wired = wire(_chunks("trace_slices_configure_run_aie.mlir")[0])
    m = wired.manifest
    assert [(s.sequence, s.offset) for s in m.slices] == [
        ("seq_a1", 0), ("seq_b1", 8192), ("seq_a2", 16384), ("seq_a2", 24576), ("seq_b2", 32768), ("seq_b2", 40960),
    ]  # fmt: skip
    assert m.trace_arg_index == 1 and m.total_size == 6 * 8192
    assert _patches(wired, "npu2") == [(1, s.offset) for s in m.slices]


def test_cli_writes_mlir_and_manifest_beside(tmp_path):
    src = UPSTREAM / "test_trace_configure_run.mlir"
    out = tmp_path / "traced.mlir"
    assert cli.main(["trace", "wire", str(src), "-o", str(out)]) == 0
    manifest = Manifest.from_json(manifest_path(out).read_text())
    assert manifest_path(out).name == "traced.manifest.json"
    assert [s.offset for s in manifest.slices] == [0, 8192]
    assert json.loads(manifest_path(out).read_text())["trace_arg_index"] == 2
    parse(out.read_text(), str(out))


def test_trace_size_traces_callees_without_their_own_config(tmp_path):
    text = _chunks("test_fuse_trace_buffers.mlir")[2]
    with pytest.warns(UserWarning, match="0 compute tile"):  # dev_a there has a shim tile only
        wired = wire(text, trace_size=4096)
    assert [(s.device, s.offset, s.size) for s in wired.manifest.slices] == [("dev_a", 0, 4096)]
    with pytest.raises(WireError, match="one wrapper sequence"):
        wire((UPSTREAM / "aie_test1.mlir").read_text())
    src = tmp_path / "in.mlir"
    src.write_text(text)
    assert cli.main(["trace", "wire", str(src), "-o", str(tmp_path / "o.mlir")]) == 2  # nothing traced
