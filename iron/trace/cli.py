"""``iron trace decode`` and ``iron trace plot``.

INPUT is detected: an iron capture file (.npz), a ``.bin`` of little-endian
32-bit words, or mlir-aie's text format (one hex word per line). Raw words need
a configuration: ``--mlir`` (mlir-aie MLIR with the trace register writes),
``--manifest`` (iron manifest JSON) or ``--artifact`` (an iron artifact).
Errors print one line naming the file and exit with status 2.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import gc
import os
import io
import sys

from iron.errors import IronError
from iron.files import OutputError, atomic_open
from iron.trace import export

FORMATS = ("summary", *export.FORMATS)  # the summary, then the event formats (iron.trace.export)


def _config_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "input", metavar="INPUT", help="trace.txt (hex words), .bin (LE u32) or iron capture (.npz)"
    )
    src = p.add_mutually_exclusive_group()
    src.add_argument(
        "--mlir", metavar="FILE", help="mlir-aie MLIR whose runtime sequence configures the trace"
    )
    src.add_argument("--manifest", metavar="FILE", help="iron trace manifest (JSON)")
    src.add_argument("--artifact", metavar="FILE", help="iron artifact (ELF) with an embedded manifest")
    p.add_argument("--colshift", type=int, default=None, help="column shift added to the configured columns")
    p.add_argument(
        "--core-elf",
        action="append",
        metavar="[COL,ROW=]PATH",
        help="core ELF mapping event-PC (trace mode 1) program counters to functions (repeatable)",
    )


def columns() -> int:
    """``shutil.get_terminal_size().columns`` without importing shutil (with zlib, bz2 and
    lzma: ~2 ms of a small decode, issue 37): ``$COLUMNS``, else stdout's terminal, else 80."""
    try:
        width = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        width = 0
    if width <= 0:
        try:
            width = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            width = 0
    return width or 80


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help layout, sized to the terminal by :func:`columns`: argparse makes one
    per ``add_argument`` (to check the metavar), and its own imports shutil to size it."""

    def __init__(self, prog, indent_increment=2, max_help_position=24, width=None):
        width = columns() - 2 if width is None else width  # argparse's margin
        super().__init__(prog, indent_increment, max_help_position, width)


class Parser(argparse.ArgumentParser):
    """The parser of iron's commands: argparse's, with :class:`HelpFormatter` (its
    subcommands' parsers are of its class, so theirs too)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)


def add_subcommands(subparsers, extra=(), only: str | None = None) -> None:
    """Register ``trace decode`` and ``trace plot`` on an argparse subparsers object.
    ``extra``: functions that register more ``trace`` subcommands on the trace
    subparsers (``iron/cli.py`` adds the build side's ``trace wire`` so). ``only``
    ``"decode"``: that subcommand alone (a command line ``iron trace decode ...`` needs
    no other parser, and each costs a small decode ~1 ms, issue 37)."""
    trace = subparsers.add_parser("trace", help="decode and plot NPU trace captures")
    sub = trace.add_subparsers(dest="trace_command")
    sub.required = True
    dec = sub.add_parser("decode", help="decode a trace capture")
    _config_args(dec)
    dec.add_argument(
        "--format",
        choices=FORMATS,
        default="summary",
        help="summary table, Perfetto JSON, Perfetto's native trace (protobuf) or mlir-aie's JSON",
    )
    dec.add_argument(
        "-o", "--output", metavar="OUT", help="output file (default: stdout); a name ending in .gz is gzipped"
    )
    dec.add_argument(
        "--all-intervals",
        action="store_true",
        help="Perfetto outputs: write every interval (by default at most 8 per payload byte of the "
        "trace, at least 262144; what is dropped past it is counted on stderr and in the output)",
    )
    dec.set_defaults(func=cmd_decode)
    if only == "decode":
        return
    plot = sub.add_parser("plot", help="draw a timeline PNG")
    _config_args(plot)
    plot.add_argument("-o", "--output", metavar="OUT.png", required=True)
    plot.set_defaults(func=cmd_plot)
    for add in extra:
        add(sub)
    sub.metavar = "{" + ",".join(sub.choices) + "}"


def _load(args, plain: bool = False):
    """(words, manifest) from the command line; the core ELFs embedded in a capture
    file or in ``--artifact`` go to ``args.core_images`` (see :func:`_attach`).
    ``plain``: a text or ``.bin`` INPUT's words as a list (INPUT under :data:`iron.trace.engine.PLAIN_BYTES`: see :func:`_decode`).
    """
    from iron import limits
    from iron.trace.capture import load_capture, read_words
    from iron.trace.words import TraceInputError, detect_format

    args.core_images = {}
    if detect_format(args.input) == "capture":
        cap = load_capture(args.input)
        words, manifest, args.core_images = cap.words, cap.manifest, cap.core_images
    else:
        words, manifest = read_words(args.input, plain)
    if args.mlir:
        from iron.trace.mlir_manifest import manifest_from_mlir

        text = _read_text(args.mlir, limits.MAX_MLIR_BYTES, "MLIR file")
        manifest = manifest_from_mlir(text, len(words) * 4, args.mlir)
    elif args.manifest:
        from iron.artifact.manifest import Manifest, ManifestError

        try:
            manifest = Manifest.from_json(_read_text(args.manifest, limits.MAX_MANIFEST_BYTES, "manifest"))
        except ManifestError as exc:
            raise TraceInputError(f"{args.manifest}: {exc}") from None
    elif args.artifact:
        from iron.artifact.schema import ArtifactError, read_core_elfs, read_manifest  # import lazily

        try:
            manifest = read_manifest(args.artifact)
        except ArtifactError as exc:  # the configuration is at fault, not INPUT
            raise TraceInputError(f"--artifact: {exc}") from None
        if manifest is None:
            raise TraceInputError(
                f"--artifact {args.artifact}: an untraced artifact (no .iron.trace manifest): it cannot "
                "explain trace words; give the traced artifact the capture came from"
            )
        args.core_images = read_core_elfs(args.artifact)
    if manifest is None:
        raise TraceInputError(
            f"{args.input}: raw trace words carry no configuration; give --mlir, --manifest or --artifact"
        )
    return words, manifest


def _read_text(path: str, limit: int, what: str) -> str:
    from iron import limits
    from iron.trace.words import TraceInputError

    return limits.read_text(path, limit, what, TraceInputError)  # size, file type, UTF-8 (byte offset)


def _write(out: str | None, text: str) -> None:
    """The summary to ``out`` (None: stdout), as the event outputs are written: whole
    or not at all, not forced to disk (it is made again from its input any time; an
    fsync of the file and its folder took 4-16 ms, median 10, of an 8 KB decode's ~60
    on the 2-core test machine, issue 37)."""
    if out is None:
        sys.stdout.write(text)
        return
    gzip_level = None
    if out.endswith(".gz"):  # as every output: a name ending in .gz is gzipped
        from iron.trace.capture import GZIP_LEVEL as gzip_level
    with atomic_open(out, gzip_level=gzip_level, durable=False) as f:  # OutputError names `out`
        f.write(text.encode())


def _prepare(nbytes: int | None, *warmers, kernels=None) -> None:
    """Skip the interpreter's final garbage collection passes over the objects of
    numpy (~0.02 s) and numba (about 0.2 s); for a big INPUT (``nbytes``: its
    :func:`_input_bytes`), load the compiled decoder kernels on a thread while the input
    and its configuration are read (``warmers``: see :func:`iron.trace.jit.load_kernels_async`)."""
    from iron.trace.decode import PARALLEL_BYTES

    if not _FREEZE_AT_EXIT:
        # Frozen objects are only left uncollected at exit; every file of ours is closed by then.
        atexit.register(gc.freeze)
        _FREEZE_AT_EXIT.append(True)
    if nbytes is not None and nbytes >= PARALLEL_BYTES:
        from iron.trace import jit
        from iron.trace.engine import wants_compiled

        jit.load_kernels_async(*warmers, wanted=wants_compiled(nbytes, kernels))


_FREEZE_AT_EXIT: list[bool] = []


def cmd_decode(args) -> int:
    from iron.trace.jit import numba_without_extras

    with numba_without_extras(), _no_gc(), one_blas_thread():  # numba loads 0.3-0.45 s faster
        return _decode(args)


#: What :func:`one_blas_thread` sets while numpy is not loaded yet.
BLAS_THREADS = {"OPENBLAS_NUM_THREADS": "1"}


@contextlib.contextmanager
def one_blas_thread():
    """Within the block, a numpy imported for the first time starts one BLAS thread,
    not one per core: OpenBLAS starts its threads when numpy is imported, which costs
    a whole process about 0.05 s wall and 0.07 s CPU on 2 cores (Dec 2026, issue 37),
    and a decode's one matrix product (the summary's 256 x 8) needs none. Names the
    user set are kept, and the variables are removed again after the block, so a
    numpy imported later (or a child process) sees the user's environment."""
    added = [k for k in BLAS_THREADS if k not in os.environ] if "numpy" not in sys.modules else []
    for k in added:
        os.environ[k] = BLAS_THREADS[k]
    try:
        yield
    finally:
        for k in added:
            if os.environ.get(k) == BLAS_THREADS[k]:
                del os.environ[k]


@contextlib.contextmanager
def _no_gc():
    """The cyclic garbage collector off within the block: numba's import and first
    load make about a million objects, which the collector would walk again and
    again (~70 ms of 0.7 s); a decode itself makes few cycles (arrays, not objects)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _input_bytes(path: str) -> int | None:
    """The raw trace bytes of INPUT, as the engine bounds count them: a text capture's
    4 per 9 characters (a word is 8 hex digits and a newline), else its size; None when
    it cannot be read (:func:`_load` reports why). (A text file's own size would take a
    2 MiB capture, 4.5 MB of text, for one that loads numba: ~0.4 s and 100 MiB spent for
    a decode that then runs on numpy.)"""
    from iron.trace.words import TraceInputError, detect_format

    try:
        size = os.path.getsize(path)
        return size * 4 // 9 if detect_format(path) == "text" else size
    except (OSError, TraceInputError):
        return None


def _engine(words):
    """The engine for ``words`` as :func:`_load` read them: plain for a list, else by size (None)."""
    from iron.trace.engine import PLAIN

    return PLAIN if isinstance(words, list) else None


def _decode(args) -> int:
    from iron.trace.capture import decode_manifest

    from iron.trace.engine import plain_input

    nbytes = _input_bytes(args.input)
    # small enough to decode as plain Python, without numpy (a capture file needs numpy to be read)
    plain = nbytes is not None and plain_input(nbytes)
    if args.format == "summary":
        from iron.trace.export.summary import summarize_unit, summary_text

        _prepare(nbytes, summarize_unit.warm, kernels=summarize_unit.kernels)
        words, manifest = _load(args, plain)
        # Summaries straight from each unit's bytes: no per-frame arrays (bounded memory).
        decoded = decode_manifest(
            manifest, words, colshift=args.colshift, analyze=summarize_unit, engine=_engine(words)
        )
        _attach(decoded, args)
        _write(args.output, summary_text(decoded.slices))
        return 0
    from iron.trace.decode.scan import ops_kernels
    from iron.trace.export.summary import summarize_counting

    # the payload gather, frame scan and summary fold
    _prepare(nbytes, summarize_counting.warm, kernels=ops_kernels)
    words, manifest = _load(args, plain)
    # Units keep no ops: the writers parse one unit at a time again (memory: one unit's
    # arrays); the first scan also counts each slot's intervals for them.
    decoded = _decode_events(manifest, words, args.colshift, summarize_counting)
    _attach(decoded, args)
    every = getattr(args, "all_intervals", False)
    dropped = 0
    if args.output is None:
        out = getattr(sys.stdout, "buffer", None)
        if out is None:  # a text stream (redirected in a test or an embedding program)
            buf = io.BytesIO()
            dropped = decoded.write(buf, args.format, all_intervals=every)
            sys.stdout.write(buf.getvalue().decode("utf-8", "replace"))
        else:
            dropped = decoded.write(out, args.format, all_intervals=every)
            out.flush()
        _note_bound(decoded, dropped)
        return 0
    try:
        if args.format == "mlir-aie":  # upstream fused traces: one file per populated slice
            decoded.to_mlir_aie_json(args.output, all_intervals=every)
        else:
            dropped = decoded.write(args.output, args.format, all_intervals=every)
    except OutputError:
        raise  # names the path already
    except OSError as exc:
        raise IronError(f"{args.output}: cannot write: {exc.strerror or exc}") from None
    _note_bound(decoded, dropped)
    return 0


def _decode_events(manifest, words, colshift, analyze):
    """``words`` decoded for the event outputs: plainly when they are a list (a small
    INPUT) and their units hold few enough intervals (:func:`_plain_events`), else with numpy."""
    from iron.trace.capture import decode_manifest
    from iron.trace.engine import PLAIN, PlainOverflow
    from iron.trace.jit import np

    if _engine(words) == PLAIN:
        try:
            decoded = decode_manifest(manifest, words, colshift=colshift, analyze=analyze, engine=PLAIN)
            if _plain_events(decoded):
                return decoded
        except PlainOverflow:
            pass
        words = np.array(words, np.uint32)
    return decode_manifest(manifest, words, colshift=colshift, analyze=analyze)


def _plain_events(decoded) -> bool:
    """Whether a plain decode's events are few enough to write plainly too
    (:func:`iron.trace.engine.plain_output` of its units' intervals, counted by its scan)."""
    from iron.trace.engine import plain_output

    counts = [
        du.interval_counts for ds in decoded.slices for du in ds.units if du.interval_counts is not None
    ]
    return plain_output(sum(sum(c) for c in counts))


def _note_bound(decoded, dropped: int) -> None:
    """Say on stderr what the output bound dropped (the output records it too)."""
    if dropped:
        from iron.trace.export.bound import IntervalBudget

        budget = IntervalBudget.for_slices(decoded.slices)
        budget.dropped = dropped
        print(f"iron trace decode: note: {budget.note()}", file=sys.stderr)


def _attach(decoded, args) -> None:
    """PC maps for event-PC core units: embedded core ELFs, then ``--core-elf`` (which wins)."""
    if getattr(args, "core_images", None):
        from iron.trace.pcmap import attach_embedded

        attach_embedded(decoded.slices, args.core_images)
    if getattr(args, "core_elf", None):
        from iron.trace.pcmap import attach_core_elfs

        attach_core_elfs(decoded.slices, args.core_elf)


def cmd_plot(args) -> int:
    from iron.trace.capture import decode_manifest

    words, manifest = _load(args)
    decoded = decode_manifest(manifest, words, colshift=args.colshift)
    _attach(decoded, args)
    decoded.plot(args.output)
    return 0


def run(args) -> int:
    """Run a parsed ``trace`` command; user errors -> one line on stderr, status 2."""
    try:
        return args.func(args)
    except IronError as exc:
        print(f"iron trace {args.trace_command}: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        name = getattr(exc, "filename", None) or "output"
        print(f"iron trace {args.trace_command}: error: {name}: {exc.strerror or exc}", file=sys.stderr)
        return 2


def main(argv: list[str] | None = None) -> int:
    """Entry point for tests and ``python -m iron.trace.cli``: argv starts with ``trace``."""
    parser = Parser(prog="iron")
    sub = parser.add_subparsers(dest="command", metavar="{trace}")
    sub.required = True
    add_subcommands(sub)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
