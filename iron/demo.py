"""``iron demo``: the whole path on one fused block.

A gated MLP-style block, ``y = ((silu(x @ w1)) * g) @ w2``, as one traced
dispatch: GEMM -> SiLU -> ElementwiseMul -> GEMM, with the same GEMM design
called twice. It builds (cache-aware), runs on the best available device,
checks the outputs against the operators' numpy references, and writes the
Perfetto trace (native and JSON), the summary and the timeline picture.
"""

from __future__ import annotations

import time
from pathlib import Path

from iron import options as iron_options
from iron import testing
from iron.errors import IronError
from iron.files import atomic_write
from iron.trace.decode.diagnostics import FAILED_STATUSES
from iron.fuse.fusion import Sequence
from iron.operators import GEMM, ElementwiseMul, SiLU

DIM = 128
COLUMNS = 2
CORES_PER_COLUMN = 2
NTILES = COLUMNS * CORES_PER_COLUMN  # trace every core unless IRON_TRACE_NTILES says otherwise


def demo_sequence(dim: int = DIM, columns: int = COLUMNS, cores: int = CORES_PER_COLUMN) -> Sequence:
    # k = K: one accumulating call per C tile, so C is rounded to bf16 once. With K split, the
    # partial sums are rounded on the way (GEMM.reference_scale), and the chained check, which
    # counts ulps of each element after SiLU and Mul, would not hold for GEMM's small outputs.
    m, n = min(64, dim // cores), min(32, dim // columns)  # upstream's tile, or what the shape allows
    gemm = GEMM(M=dim, K=dim, N=dim, columns=columns, cores_per_column=cores, m=m, k=dim, n=n)
    silu = SiLU(size=dim * dim, columns=columns, cores_per_column=cores)
    mul = ElementwiseMul(size=dim * dim, columns=columns, cores_per_column=cores)
    return Sequence(
        "gated_mlp",
        [(gemm, "x", "w1", "h"), (silu, "h", "s"), (mul, "s", "g", "p"), (gemm, "p", "w2", "y")],
        inputs=["x", "w1", "g", "w2"],
        outputs=["y"],
    )


def run_demo(
    out_dir: str | None = None, target: str = "npu2", device: str = "auto", trace_size: int | None = None
) -> int:
    """Build, run, check and write the trace outputs. Returns a process exit code."""
    from iron import machine
    from iron.builder.build import build

    opts = iron_options.resolve(True, size=trace_size, default_ntiles=NTILES)
    out = Path(out_dir) if out_dir else opts.out_dir
    seq = demo_sequence()
    where = machine(None, None if device == "auto" else device, target=target)
    print(f"machine {where.backend} build, {where.device} device ({where.why})")
    t0 = time.perf_counter()
    art = build(seq, options=opts, target=target, backend=where.backend)
    print(
        f"built   {art.path}  ({time.perf_counter() - t0:.2f} s, {art.dispatch} dispatch, target {art.target}, "
        f"{art.backend})"
    )
    runner = art.load(device=where.device)
    inputs = testing.example_inputs(seq)
    t0 = time.perf_counter()
    outputs = runner(**inputs)
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    print(f"ran     on {runner.device} ({time.perf_counter() - t0:.2f} s)")
    _check_outputs(seq, inputs, outputs)

    trace = runner.trace
    if trace is None:  # every call site untraced (IRON_TRACE_SIZES gave each size 0)
        raise IronError(
            "demo: the run recorded no trace: every call site's trace size is 0 (IRON_TRACE_SIZES or "
            "--trace-size); accepted: a size above 0 for at least one call site"
        )
    files = _write_trace(trace, out)
    print(f"Open {files['perfetto']} at https://ui.perfetto.dev (Open trace file);")
    print(f"decode the capture anywhere with: iron trace decode {files['capture']} --format summary")
    # What each status means and which fail: iron.trace.decode.diagnostics.STATUSES.
    not_ok = [s for s in trace.slices if s.status != "ok"]
    if not_ok:
        print(
            f"warning: {len(not_ok)} slice(s) not ok: {', '.join(f'{s.slice.label}={s.status}' for s in not_ok)}"
        )
    return 1 if any(s.status in FAILED_STATUSES for s in not_ok) else 0


def _check_outputs(seq: Sequence, inputs: dict, outputs: tuple) -> None:
    """Raise :class:`IronError` at the first output that differs from the operators' numpy
    references; else say how they matched."""
    expected = dict(zip(seq.outputs, testing.reference(seq, inputs)))
    scales = dict(zip(seq.outputs, testing.reference_scales(seq, inputs)))
    for name, got in zip(seq.outputs, outputs):
        if not testing.matches_reference(got, expected[name], testing.reference_ulps(seq), scales[name]):
            raise IronError(
                f"demo: output {name!r} differs from the numpy reference: "
                f"{testing.first_difference(got, expected[name])}"
            )
    ulps = testing.reference_ulps(seq)
    how = f"within {ulps} bf16 ulp(s) (float32 accumulation in the kernels)" if ulps else "equal"
    print(f"checked outputs {', '.join(seq.outputs)} against the numpy references: {how}")


def _write_trace(trace, out: Path) -> dict[str, Path]:
    """Write the trace's outputs under ``out`` and print the summary and where each went;
    returns the files by kind."""
    out.mkdir(parents=True, exist_ok=True)
    files = {
        "perfetto": out / "demo.pftrace",  # Perfetto's native trace: the UI loads it fastest
        "json": out / "demo.perfetto.json",  # the same tracks as JSON, with the slice diagnostics
        "summary": out / "demo.summary.txt",
        "timeline": out / "demo.timeline.png",
        "capture": out / "demo.capture.npz",
    }
    trace.to_perfetto(files["perfetto"])
    trace.to_perfetto(files["json"])
    summary = trace.summary()
    atomic_write(files["summary"], summary + "\n")
    trace.plot(files["timeline"])
    trace.save(files["capture"])
    print()
    print(summary)
    print()
    for what, path in files.items():
        print(f"{what:9s} {path}")
    print()
    return files
