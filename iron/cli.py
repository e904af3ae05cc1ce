"""The ``iron`` command.

Subcommands::

    iron demo                      build, run and trace a fused block; write Perfetto JSON, summary, PNG
    iron trace decode|plot ...     decode captures (iron/trace/cli.py)
    iron trace wire ...            wire the trace into a fused module (iron/fuse/cli.py)
    iron inspect ARTIFACT          show an artifact's kernels, control code and trace manifest
    iron cache list|clear          the build cache (iron/builder/cli.py)
    iron events [KIND]             trace event names and ids (core, mem, shim, memtile)

Every subcommand registers itself with ``add_subcommands(subparsers)`` and sets
``func(args) -> int``. User errors print one line on stderr and exit with 2.
"""

from __future__ import annotations

import argparse
import functools
import sys

from iron.errors import IronError


def _events(args) -> int:
    from iron.target import events

    kinds = [args.kind] if args.kind else list(events.MODULE_KINDS)
    for kind in kinds:
        table = events.event_table(kind)
        print(f"# {kind} (packet type {events.PACKET_TYPE[kind]}): {len(table)} events")
        for name, eid in sorted(table.items(), key=lambda kv: kv[1]):
            note = events.caveat(kind, name)
            print(f"{eid:4d}  {name}" + (f"  # {note}" if note else ""))
    return 0


def _demo(args) -> int:
    from iron.demo import run_demo

    return run_demo(out_dir=args.out, target=args.target, device=args.device, trace_size=args.trace_size)


def _installed_era():
    """The mlir-aie era the installed ``aie-opt`` reads (:func:`iron.builder.toolchain.era`):
    ``iron trace wire`` prints in it, since its output goes to that install's aiecc."""
    from iron.builder import toolchain

    return toolchain.era()


def parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``iron`` command's parser. ``command`` "trace": only the ``trace`` subcommands,
    "trace decode": only that one (what ``main`` builds for ``iron trace ...``, ``iron trace
    decode ...``: each subcommand's parser costs a decode of a small capture about 1 ms,
    argparse's message lookups included; issue 37)."""
    from iron import __version__
    from iron.trace import cli as trace_cli

    p = trace_cli.Parser(prog="iron", description="Fused NPU designs with per-operator hardware traces.")
    p.add_argument("--version", action="version", version=f"iron {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    if command is None:
        _add_others(sub)
    if command == "trace decode":
        trace_cli.add_subcommands(sub, only="decode")
    else:
        from iron.fuse import cli as fuse_cli

        trace_cli.add_subcommands(
            sub, extra=[functools.partial(fuse_cli.add_subcommands, era=_installed_era)]
        )
    if command is None:
        from iron.builder import cli as artifact_cli

        artifact_cli.add_subcommands(sub)
    return p


def _add_others(sub) -> None:
    """``iron demo`` and ``iron events``."""
    demo = sub.add_parser("demo", help="build, run and trace a fused gemm/silu/mul/gemm block")
    demo.add_argument(
        "--out", default=None, help="output directory (default: $IRON_TRACE_DIR or ./iron-traces)"
    )
    demo.add_argument("--target", default="npu2", choices=["npu1", "npu2"])
    demo.add_argument("--device", default="auto", choices=["auto", "sim", "xrt"])
    demo.add_argument("--trace-size", type=int, default=None, help="bytes of trace per call (default 65536)")
    demo.set_defaults(func=_demo)

    ev = sub.add_parser("events", help="list trace event names and ids")
    ev.add_argument("kind", nargs="?", choices=["core", "mem", "shim", "memtile"])
    ev.set_defaults(func=_events)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    command = (
        "trace decode" if argv[:2] == ["trace", "decode"] else "trace" if argv[:1] == ["trace"] else None
    )
    args = parser(command).parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except IronError as exc:
        print(f"iron: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `iron inspect x | head`
        return 0
    except OSError as exc:  # e.g. an output file that cannot be written
        print(f"iron: error: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
