"""CLI pieces: ``iron inspect ARTIFACT`` and ``iron cache list|clear``.

:func:`add_subcommands` registers them on an ``argparse`` subparsers object
(``iron/cli.py`` wires it); :func:`main` runs them alone (tests).
"""

from __future__ import annotations

import argparse
import sys

from iron.errors import IronError


def add_subcommands(subparsers) -> None:
    p = subparsers.add_parser("inspect", help="show an artifact's kernels, ops, PDIs and trace manifest")
    p.add_argument("artifact", metavar="ARTIFACT", help="an .elf built by iron.build")
    p.add_argument(
        "--max-ops", type=_count, default=None, metavar="N", help="print at most N ops per kernel (N >= 0)"
    )
    p.set_defaults(func=cmd_inspect)

    c = subparsers.add_parser("cache", help="list or clear the build cache")
    c_sub = c.add_subparsers(dest="cache_cmd", required=True)
    for name, func, text in (
        ("list", cmd_cache_list, "list cached artifacts"),
        ("clear", cmd_cache_clear, "remove them"),
    ):
        s = c_sub.add_parser(name, help=text)
        s.add_argument(
            "--cache-dir",
            default=None,
            help="cache directory (default: IRON_CACHE_DIR or ./build/iron-cache)",
        )
        s.set_defaults(func=func)


def _count(text: str) -> int:
    """argparse type: an integer >= 0 (``--max-ops -1`` would silently hide the last op)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative; accepted: 0 or more")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="iron")
    add_subcommands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    try:
        return args.func(args) or 0
    except IronError as exc:
        print(f"iron: error: {exc}", file=sys.stderr)
        return 1


# --------------------------------------------------------------------------- inspect
def cmd_inspect(args, out=None) -> int:
    from iron.artifact.schema import Artifact

    out = out or sys.stdout
    for line in inspect_lines(Artifact.open(args.artifact), max_ops=args.max_ops):
        print(line, file=out)
    return 0


def inspect_lines(art, max_ops: int | None = None) -> list[str]:
    """The text ``iron inspect`` prints, as lines."""
    from iron.artifact.schema import TRACE_BUFFER
    from iron.mlir import txn_codec

    if max_ops is not None and (isinstance(max_ops, bool) or not isinstance(max_ops, int) or max_ops < 0):
        raise IronError(f"max_ops={max_ops!r}: accepted: None or an integer >= 0")
    role = {n: "in" for n in art.inputs} | {n: "out" for n in art.outputs}
    lines = [
        f"artifact   {art.path}",
        f"name       {art.name}",
        f"target     {art.target}   dispatch {art.dispatch}   backend {art.backend}",
        f"key        {art.key}",
        f"toolchain  {art.toolchain}   iron {art.iron_version}",
        f"traced     {'yes, ' + str(art.trace_total_size) + ' bytes' if art.traced else 'no'}",
        "buffers:",
    ]
    for n, t in art.buffers.items():
        lines.append(
            f"  {n:<12} {str(t):<28} {role.get(n, 'trace' if n == TRACE_BUFFER else 'intermediates')}"
        )
    lines.append(f"schedule:  {' -> '.join(d.kernel for d in art.schedule)}")
    for k in art.kernels.values():
        lines.append(f"kernel {k.name} (device {k.device}, sequence {k.sequence})")
        lines.append("  args:")
        for i, a in enumerate(k.args):
            lines.append(f"    {i:<3} {a.buffer:<12} {str(a.type):<28} offset {a.offset}")
        if not k.control:
            lines.append("  ops: in aiecc's sections (.ctrltext), not decoded here")
            continue
        header, ops = txn_codec.decode(k.control)
        lines.append(
            f"  ops: {len(ops)} ({len(k.control)} bytes; TXN v{header.major}.{header.minor}, "
            f"dev_gen {header.dev_gen}, {header.columns} columns)"
        )
        shown = ops if max_ops is None else ops[:max_ops]
        for i, op in enumerate(shown):
            lines.append(f"    {i:>4}  {txn_codec.format_op(op)}")
        if len(shown) < len(ops):
            lines.append(f"    ... {len(ops) - len(shown)} more")
    lines.append("PDIs:")
    for pid, p in sorted(art.pdis.items()):
        what = p.operator or "(reset: empty configuration)"
        params = ", ".join(f"{k}={v}" for k, v in sorted(p.params.items()))
        lines.append(
            f"  {pid:<3} {p.symbol:<24} {p.device or '-':<10} {what}({params})"
            if p.operator
            else f"  {pid:<3} {p.symbol:<24} {what}"
        )
        if p.operator:
            lines.append(
                f"      tiles {len(p.tiles)}, packet flows {len(p.packet_flows)}, allocations {len(p.allocations)}"
            )
    lines += manifest_lines(art.manifest)
    if art.sources:
        lines.append(
            "sources: " + ", ".join(f"{n} ({len(t.splitlines())} lines)" for n, t in art.sources.items())
        )
    return lines


def manifest_lines(m) -> list[str]:
    if m is None:
        return ["trace manifest: none (untraced)"]
    lines = [
        f"trace manifest (schema {m.schema}): target {m.target}, {m.columns} columns, column offset "
        f"{m.column_offset}, clock {m.clock_mhz:g} MHz",
        f"  kernel {m.kernel or '(per slice)'}, trace arg {m.trace_arg_index}, total {m.total_size} bytes, "
        f"{len(m.slices)} slices",
    ]
    for s in m.slices:
        lines.append(
            f"  slice {s.label:<24} device {s.device}  offset {s.offset}  size {s.size}  "
            f"kernel {s.kernel} arg {s.arg_index}"
        )
        for u in s.units:
            events = ",".join(e for e in u.events if e != "NONE")
            lines.append(
                f"    unit {u.label:<14} column {u.column} row {u.row} kind {u.kind} "
                f"packet type {u.packet_type} id {u.packet_id}  start {u.start_event} stop {u.stop_event}  "
                f"events {events}"
            )
    return lines


# --------------------------------------------------------------------------- cache
def cmd_cache_list(args, out=None) -> int:
    from iron.builder import cache

    out = out or sys.stdout
    listing = cache.scan(args.cache_dir)
    root = cache.options.cache_dir(args.cache_dir)
    entries = listing.entries
    if not entries:
        print(f"{root}: empty", file=out)
    else:
        print(f"{root}: {len(entries)} artifacts, {sum(e.size for e in entries)} bytes", file=out)
    for e in entries:
        traced = f"traced {e.trace_size}" if e.traced else "untraced"
        print(f"  {e.path.name:<56} {traced:<16} {e.size:>9} bytes  {cache.age(e.mtime):>4} ago", file=out)
    _report_others(listing.foreign, listing.problems, out)
    return 0


def cmd_cache_clear(args, out=None) -> int:
    from iron.builder import cache

    out = out or sys.stdout
    report = cache.clear(args.cache_dir)
    print(f"removed {len(report.removed)} artifacts from {cache.options.cache_dir(args.cache_dir)}", file=out)
    if report.busy:
        print(
            f"kept {len(report.busy)} in use by a build (lock held): "
            + ", ".join(e.path.name for e in report.busy),
            file=out,
        )
    _report_others(report.foreign, report.problems, out)
    return 0


def _report_others(foreign, problems, out) -> None:
    if foreign:
        names = ", ".join(p.name for p in foreign[:10]) + (", ..." if len(foreign) > 10 else "")
        print(f"left alone {len(foreign)} item(s) that are not iron's: {names}", file=out)
    for problem in problems:
        print(f"warning: {problem}", file=out)


if __name__ == "__main__":
    raise SystemExit(main())
