"""The build's trace plan (iron/fuse/plan.py): one entry per traced call site with its slice
and the patch of its drain BD, read by the wrapper, the schedule, the manifest and the key.

Expected values are the wiring convention of docs/design.md 3.2, written out by hand: the
fused wrapper's data arguments keep their indices and the trace buffer follows them, each
call site's drain patches it at its slice's offset; under separate dispatch each kernel's
own trace argument (appended after its arguments) is patched at offset 0.
"""

from __future__ import annotations

from iron.fuse.fusion import fuse
from iron.lower.materialize import kernel_ops
from iron.lower.verify import trace_patches
from iron.options import resolve
from iron.tests.test_fuse import N, mixed_sequence


def test_fused_plan_patches_the_wrapper_trace_argument_at_each_slice():
    fm = fuse(mixed_sequence(), "npu2", resolve(True, size=8192, env={}))
    # a, b, out, scratch_bf16: the trace buffer is argument 4; five sites, 8192 bytes each
    assert [(s.index, s.offset, s.size, s.arg_index, s.arg_plus) for s in fm.plan.sites] == [
        (k, 8192 * k, 8192, 4, 8192 * k) for k in range(5)
    ]
    assert fm.plan.total_size == 5 * 8192 and fm.plan.trace_arg_index == 4
    # what the dispatched control code patches (materialized: the window's offset added)
    ops = kernel_ops(fm, fm.schedule[0])
    assert [(p.arg_idx, p.arg_plus) for p in trace_patches(ops)] == [(4, 8192 * k) for k in range(5)]
    assert [(s.arg_index, s.offset) for s in fm.manifest.slices] == [(4, 8192 * k) for k in range(5)]


def test_separate_plan_patches_each_kernels_own_trace_argument():
    fm = fuse(mixed_sequence(), "npu1", resolve(True, size=8192, env={}))
    # Add/Mul take 3 arguments, ReLU 2: the appended trace argument is 3 or 2, at offset 0
    assert [(s.index, s.arg_index, s.arg_plus) for s in fm.plan.sites] == [
        (0, 3, 0), (1, 3, 0), (2, 2, 0), (3, 2, 0), (4, 3, 0),
    ]  # fmt: skip
    assert fm.plan.trace_arg_index == -1  # no single kernel holds the whole buffer
    bound = [a for k in fm.schedule for a in k.args if a.buffer == "trace"]
    assert [(a.offset, a.type.nbytes) for a in bound] == [(8192 * k, 8192) for k in range(5)]


def test_per_site_sizes_live_in_the_plan_not_in_the_options():
    opts = resolve(True, size=8192, sizes={1: 4096, 3: 0}, env={})
    fm = fuse(mixed_sequence(), "npu2", opts)
    assert [(s.index, s.offset, s.size) for s in fm.plan.sites] == [
        (0, 0, 8192), (1, 8192, 4096), (2, 12288, 8192), (4, 20480, 8192),
    ]  # fmt: skip
    assert fm.options == opts  # what the user asked for, unchanged
    assert fm.trace_key()["sizes"] == [[0, 8192], [1, 4096], [2, 8192], [4, 8192]]


def test_untraced_build_has_an_empty_plan():
    fm = fuse(mixed_sequence(), "npu2", resolve(False, env={}))
    assert fm.plan.sites == () and not fm.plan.traced and fm.manifest is None
    assert fm.trace_key() == {"size": 0}
    assert N > 0
