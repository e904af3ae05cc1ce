"""sim's timing beside real NPU trace captures, per captured design.

    python benchmarks/bench_sim_timing.py               # a table per design
    python benchmarks/bench_sim_timing.py --markdown    # one row for README's Measured table

Each design whose hardware capture iron holds (:data:`iron.sim_timing.CAPTURED`: mlir-aie's
parse-trace test1 and test2, xdna-emu's vector_scalar) runs on sim with its own trace
configuration; sim's trace and the capture are decoded the same way and compared:

* kernel: cycles from ``INSTR_EVENT_0`` to the next ``INSTR_EVENT_1`` (median/min/max);
* gap: cycles from the end of one call to the start of the next;
* busy: the cycles of each gap the core is not in ``LOCK_STALL`` (its releases, acquires, loop and
  call code; the gap itself where ``LOCK_STALL`` is not traced);
* wake: cycles from the end of the core's last ``LOCK_STALL`` before a call (its input's lock
  granted by the DMA) to the call (only where the capture traces ``LOCK_STALL``);
* stall: ``LOCK_STALL`` cycles in all;
* ratio: sim / capture of the medians (of the totals for stall).

The figures are cycles of the modelled and the real device, not host time: they do not depend
on the machine's load. sim's kernel cost and call overhead (busy, wake) are calibrated from these
captures (:mod:`iron.target.kernel_cycles`); the DMA and the lock stalls are not.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from iron import sim_timing  # noqa: E402

FIGURES = ("kernel", "gap", "busy", "wake")


def _num(x):
    return int(x) if x is not None and float(x).is_integer() else x


def _fmt(s: dict | None) -> str:
    if s is None:
        return "-"
    return f"{_num(s['median'])} ({s['min']}-{s['max']}, n={s['n']})"


def _ratio(sim, hw) -> str:
    if sim is None or hw is None or not hw:
        return "-"
    return f"{sim / hw:.2f}"


def measure() -> list[dict]:
    """Per captured design: its name, source, and sim's and the capture's figures."""
    rows = []
    for cd in sim_timing.CAPTURED:
        got = sim_timing.compare(cd)
        row = {"design": cd.name, "source": cd.source}
        for side in ("sim", "hw"):
            f = got[side]
            row[side] = {k: sim_timing.stats(f[k]) for k in FIGURES} | {"stall": f["stall"]}
        rows.append(row)
    return rows


def _med(row: dict, side: str, fig: str):
    s = row[side][fig]
    return None if s is None else s["median"]


def table(rows: list[dict]) -> str:
    head = f"{'design':<24}{'figure':<8}{'sim':>26}{'capture':>26}{'sim/capture':>13}"
    out = [head, "-" * len(head)]
    for row in rows:
        for fig in FIGURES:
            ratio = _ratio(_med(row, "sim", fig), _med(row, "hw", fig))
            out.append(
                f"{row['design']:<24}{fig:<8}{_fmt(row['sim'][fig]):>26}{_fmt(row['hw'][fig]):>26}{ratio:>13}"
            )
        sim, hw = row["sim"]["stall"], row["hw"]["stall"]
        out.append(
            f"{row['design']:<24}{'stall':<8}{sim if sim is not None else '-':>26}"
            f"{hw if hw is not None else '-':>26}{_ratio(sim, hw):>13}"
        )
    return "\n".join(out)


def markdown(rows: list[dict]) -> str:
    """One row of README's Measured table (| what | result |)."""
    parts = []
    for row in rows:
        k = _ratio(_med(row, "sim", "kernel"), _med(row, "hw", "kernel"))
        g = _ratio(_med(row, "sim", "gap"), _med(row, "hw", "gap"))
        w = _ratio(_med(row, "sim", "wake"), _med(row, "hw", "wake"))
        b = _ratio(_med(row, "sim", "busy"), _med(row, "hw", "busy"))
        s = _ratio(row["sim"]["stall"], row["hw"]["stall"])
        st = "-" if row["hw"]["stall"] is None else f"{row['sim']['stall']} / {row['hw']['stall']} = {s}"
        parts.append(
            f"{row['design']} ({row['source']}): kernel sim {_fmt(row['sim']['kernel'])} / capture "
            f"{_fmt(row['hw']['kernel'])} = **{k}**; gap {_num(_med(row, 'sim', 'gap'))} / "
            f"{_num(_med(row, 'hw', 'gap'))} = {g}; busy {b}; wake {w}; stall {st}"
        )
    what = (
        "sim's timing beside real NPU1 trace captures of the same designs, same trace configuration "
        "(`python benchmarks/bench_sim_timing.py --markdown`; cycles, median (min-max, calls); ratios "
        "sim / capture). Kernel cost and call overhead (busy, wake) calibrated from these captures "
        "(`iron/target/kernel_cycles.py`); DMA and lock stalls are not"
    )
    return f"| {what} | {'; '.join(parts)} |"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description="Compare sim's kernel durations, gaps and stall cycles with real NPU trace captures "
        "of the same designs (iron.sim_timing.CAPTURED).",
        epilog="Figures are device cycles (sim's model and the capture), independent of host load.",
    )
    ap.add_argument("--markdown", action="store_true", help="print one row for README's Measured table")
    args = ap.parse_args(argv)
    rows = measure()
    print(markdown(rows) if args.markdown else table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
