"""CLI piece of the build side: ``iron trace wire`` (iron's trace wiring applied to a fused module).

:func:`add_subcommands` registers it on the ``trace`` subparsers (``iron/cli.py``
passes it to :func:`iron.trace.cli.add_subcommands`); the wiring is
:mod:`iron.fuse.wire`, imported only when the command runs.
"""

from __future__ import annotations


def add_subcommands(trace_subparsers, era=None) -> None:
    """Register ``wire`` on the subparsers of the ``trace`` command. ``era``: a function giving
    the :class:`~iron.target.mlir_eras.Era` the installed mlir-aie reads (``iron/cli.py`` passes
    :func:`iron.builder.toolchain.era`); the wired module is printed in it (None: today's forms)."""
    wire = trace_subparsers.add_parser(
        "wire", help="apply iron's trace wiring to a fused module (aiex.configure/run)"
    )
    wire.add_argument("input", metavar="FUSED.mlir")
    wire.add_argument(
        "--trace-size",
        default="0",
        help="bytes per run whose callee has no host_config (a multiple of 32; checked as iron.build checks it)",
    )
    wire.add_argument("-o", "--output", metavar="TRACED.mlir", required=True)
    wire.set_defaults(func=cmd_wire, era=era)


def cmd_wire(args) -> int:
    """Write the wired module and its manifest (``<output stem>.manifest.json``) beside it."""
    from iron.fuse.wire import write_wired

    from iron.target.mlir_eras import TODAY

    era = args.era() if getattr(args, "era", None) else TODAY
    write_wired(args.input, args.output, trace_size=args.trace_size, era=era)
    return 0
