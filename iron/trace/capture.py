"""Decoded traces and their outputs; a captured trace buffer with its manifest: save, load.

:class:`DecodedTrace` holds the decoded slices and writes every output (summary,
Perfetto, mlir-aie's JSON, PNG). A :class:`Capture` is a decoded trace that
keeps its raw words: it decodes them on first use and saves them. A saved
capture is an ``.npz`` archive holding the raw words and the manifest JSON, so
it decodes on any machine in a fresh process without MLIR or a build; the core
ELFs embedded in the artifact (sources flag) are copied in too
(``core_elf_names`` and ``core_elf_<i>``), so EVENT_PC program counters still map
to functions there.
"""

from __future__ import annotations

import contextlib

import io
import os
import re
from functools import cached_property

from iron.errors import IronError
from iron.files import atomic_open, atomic_write
from iron.artifact.manifest import Manifest, ManifestError
from iron.trace import export
from iron.trace.decode import DecodedSlice, decode_words
from iron.trace.engine import PLAIN, as_engine
from iron.trace.jit import np
from iron.trace.words import TraceInputError, check_words, detect_format, read_bin, read_text

#: What :meth:`DecodedTrace.write` writes: Perfetto JSON, Perfetto's protobuf trace, mlir-aie's JSON
#: (the export registry, :data:`iron.trace.export.FORMATS`).
OUTPUT_FORMATS = tuple(export.FORMATS)
GZIP_LEVEL = 1  # .gz outputs: the fastest level (traces compress about 10x at any level)

CAPTURE_FORMAT = "iron-trace-capture"
CAPTURE_VERSION = 1


def perfetto_format(path) -> str:
    """The Perfetto output a file name asks for: "pftrace" for ``*.pftrace``, else "perfetto" (JSON)."""
    return "pftrace" if str(path).endswith(".pftrace") else "perfetto"


def slice_words(manifest: Manifest, words: np.ndarray, sl) -> np.ndarray:
    """The words of slice ``sl`` (cut short if the buffer is shorter)."""
    return words[sl.offset // 4 : (sl.offset + sl.size) // 4]


def decode_manifest(
    manifest: Manifest, words, *, colshift: int | None = None, analyze=None, engine=None
) -> "DecodedTrace":
    """Decode every slice of ``words`` (``analyze``, ``engine``: see :func:`decode_words`;
    :data:`~iron.trace.engine.PLAIN` takes ``words`` as a list)."""
    engine = as_engine(engine)
    if engine != PLAIN:
        words = check_words(words)
    out = []
    for sl in manifest.slices:
        w = slice_words(manifest, words, sl)
        ds = decode_words(
            w,
            sl.units,
            column_offset=manifest.column_offset,
            colshift=colshift,
            slice=sl,
            analyze=analyze,
            engine=engine,
        )
        if len(w) * 4 < sl.size:
            ds.diagnostics["missing_bytes"] = sl.size - len(w) * 4
        out.append(ds)
    return DecodedTrace(manifest, out)


class DecodedTrace:
    """Decoded slices of one trace buffer with the manifest that explains them:
    ``.slices``, ``.summary()``, ``.to_perfetto(path)``, ``.plot(path)``, ..."""

    def __init__(self, manifest: Manifest, slices: list[DecodedSlice]):
        self.manifest = manifest
        self.slices = slices

    def summary(self) -> str:
        from iron.trace.export.summary import summary_text

        return summary_text(self.slices)

    def summary_dict(self) -> dict:
        from iron.trace.export.summary import summary_dict

        return summary_dict(self.slices)

    def perfetto(self) -> dict:
        """iron's Perfetto JSON as Python objects (small traces; files stream: :meth:`write`)."""
        from iron.trace.export.perfetto import perfetto_trace

        return perfetto_trace(self.slices, self.manifest.clock_mhz, self._meta())

    def _meta(self) -> dict:
        return {"target": self.manifest.target, "kernel": self.manifest.kernel}

    def write(self, out, fmt: str, *, all_intervals: bool = False) -> int:
        """Stream the output ``fmt`` (one of :data:`OUTPUT_FORMATS`) to the path
        ``out`` (atomically; a name ending in ``.gz`` is gzipped) or, when ``out``
        is a binary file object, into it.

        Output is bounded, from the CLI and the API alike (:mod:`iron.trace.export.bound`):
        Perfetto outputs hold at most 8 intervals per payload byte of the whole trace (at
        least 262,144), the earliest first; returns how many were dropped (0: none; also
        recorded in the output). ``all_intervals`` lifts that bound. mlir-aie's JSON is never
        truncated: past two records per interval of that bound (2**24 with ``all_intervals``),
        all units together, it raises a TraceInputError and writes nothing."""
        if fmt not in OUTPUT_FORMATS:
            raise ValueError(f"output format {fmt!r}: expected one of {', '.join(OUTPUT_FORMATS)}")
        if isinstance(out, (str, os.PathLike)):
            gz = str(out).endswith(".gz")
            threaded = _threaded(self.slices)
            with atomic_open(
                out, gzip_level=GZIP_LEVEL if gz else None, threaded=threaded, durable=False
            ) as f:
                return self.write(f, fmt, all_intervals=all_intervals)
        return export.writer(fmt)(self.slices, self.manifest.clock_mhz, out, self._meta(), all_intervals)

    def to_perfetto(self, path, *, all_intervals: bool = False) -> int:
        """Write a trace for ui.perfetto.dev: the native protobuf trace when the
        name ends in ``.pftrace``, else iron's Perfetto JSON (``.json.gz``: gzipped).
        Returns the intervals dropped by the output bound (see :meth:`write`)."""
        return self.write(path, perfetto_format(path), all_intervals=all_intervals)

    def mlir_aie_records(self) -> list[dict]:
        from iron.trace.export.mlir_aie import mlir_aie_records

        return mlir_aie_records(self.slices)

    def to_mlir_aie_json(self, path, *, all_intervals: bool = False) -> list[str]:
        """Write mlir-aie's JSON (streamed); returns the paths written.

        Slices read from upstream's ``trace_slices`` are written as upstream's
        ``TraceConfig.trace_to_json`` does: one file per populated slice, named
        ``<stem>_<index>_<device>_<sequence><suffix>``, each decoded alone
        (pids from 0); otherwise one file with every slice."""
        from iron.trace.export.mlir_aie import write_mlir_aie

        if not any(ds.slice is not None and ds.slice.upstream_index >= 0 for ds in self.slices):
            self.write(path, "mlir-aie", all_intervals=all_intervals)
            return [str(path)]
        from iron.trace.export.bound import RecordBudget

        populated = [ds for ds in self.slices if ds.status != "empty"]
        names = per_slice_paths(path, [ds.slice for ds in populated])  # all checked before any write
        written = []
        budget = RecordBudget.for_slices(self.slices, not all_intervals)  # one bound for the trace
        # Every file stays a temp file until all are written: one that fails leaves none behind.
        with contextlib.ExitStack() as stack:
            for ds, name in zip(populated, names):
                gz = str(name).endswith(".gz")
                f = stack.enter_context(
                    atomic_open(
                        name, gzip_level=GZIP_LEVEL if gz else None, threaded=_threaded([ds]), durable=False
                    )
                )
                write_mlir_aie([ds], f, budget)
                written.append(name)
        return written

    def mlir_aie_slice_records(self) -> list[tuple[DecodedSlice, list[dict]]]:
        """(slice, mlir-aie records of that slice alone) for every populated slice."""
        from iron.trace.export.mlir_aie import mlir_aie_records

        return [(ds, mlir_aie_records([ds])) for ds in self.slices if ds.status != "empty"]

    def plot(self, path) -> None:
        from iron.trace.export.plot import plot_timeline

        plot_timeline(self.slices, path, self.manifest.clock_mhz)


def _threaded(slices) -> bool:
    """Whether the outputs of ``slices`` are written on a thread (:func:`iron.files.atomic_open`):
    unless every slice was decoded plainly (a small capture: a thread would cost more than its
    output's writes)."""
    return not all(ds.engine == PLAIN for ds in slices)


class Capture(DecodedTrace):
    """Raw trace words of one run plus the manifest that explains them: a
    :class:`DecodedTrace` that decodes them on first use of ``.slices`` (once),
    so ``.summary()``, ``.to_perfetto(path)``, ``.plot(path)`` ... work on it
    directly; ``.save(path)`` writes the raw words and the manifest, which
    :func:`load_capture` reads back anywhere.
    """

    def __init__(
        self,
        manifest: Manifest,
        words: np.ndarray,
        colshift: int | None = None,
        core_elfs=(),
        core_images: dict[str, bytes] | None = None,
    ):
        self.manifest = manifest
        self.words = np.ascontiguousarray(check_words(words))
        self.colshift = colshift
        self.core_elfs = list(core_elfs)  # paths / COL,ROW=PATH: see iron.trace.pcmap.attach_core_elfs
        #: embedded core ELFs, synthetic name -> bytes (iron.trace.pcmap.attach_embedded);
        #: ``core_elfs`` given explicitly win over them
        self.core_images = dict(core_images or {})

    @cached_property
    def slices(self) -> list[DecodedSlice]:
        """The decoded slices (decoded on first use)."""
        slices = decode_manifest(self.manifest, self.words, colshift=self.colshift).slices
        if self.core_images:
            from iron.trace.pcmap import attach_embedded

            attach_embedded(slices, self.core_images)
        if self.core_elfs:
            from iron.trace.pcmap import attach_core_elfs

            attach_core_elfs(slices, self.core_elfs)
        return slices

    def save(self, path: str | os.PathLike) -> None:
        """Write a self-contained capture file (npz: words + manifest JSON + embedded core ELFs)."""
        buf = io.BytesIO()
        names = list(self.core_images)
        images = {f"core_elf_{i}": np.frombuffer(self.core_images[n], np.uint8) for i, n in enumerate(names)}
        np.savez_compressed(
            buf,
            format=np.array(CAPTURE_FORMAT),
            version=np.array(CAPTURE_VERSION),
            words=self.words.astype("<u4"),
            manifest=np.array(self.manifest.to_json()),
            **({"core_elf_names": np.array(names)} if names else {}),
            **images,
        )
        atomic_write(path, buf.getvalue())


def load_capture(path: str | os.PathLike) -> Capture:
    """Read a file written by :meth:`Capture.save`. A damaged, foreign or oversized
    file raises :class:`TraceInputError` naming it (never a zip/zlib/numpy error)."""
    from iron import limits

    import zipfile  # here: a text or .bin capture never needs it

    limits.check_input(path, limits.MAX_CAPTURE_BYTES, "capture file", TraceInputError)
    try:
        with zipfile.ZipFile(path) as zf:
            for info in zf.infolist():  # bound what decompression may produce
                if info.file_size > limits.MAX_TRACE_BYTES + limits.MAX_MANIFEST_BYTES:
                    raise TraceInputError(
                        f"{path}: member {info.filename} expands to {info.file_size} bytes, more than "
                        f"the largest trace iron reads ({limits.MAX_TRACE_BYTES} bytes)"
                    )
        with np.load(path, allow_pickle=False) as z:
            if "format" not in z or str(z["format"]) != CAPTURE_FORMAT:
                raise TraceInputError(f"{path}: not an iron trace capture (no '{CAPTURE_FORMAT}' marker)")
            version = int(z["version"])
            if version > CAPTURE_VERSION:
                raise TraceInputError(
                    f"{path}: capture version {version} is newer than this iron ({CAPTURE_VERSION})"
                )
            words = check_words(z["words"], f"{path}: words")
            manifest = Manifest.from_json(str(z["manifest"]))
            names = [str(n) for n in z["core_elf_names"]] if "core_elf_names" in z else []
            images = {n: z[f"core_elf_{i}"].tobytes() for i, n in enumerate(names)}
    except ManifestError as exc:
        raise TraceInputError(f"{path}: {exc}") from None
    except TraceInputError:
        raise
    except MemoryError:
        raise TraceInputError(f"{path}: too large to load in this process's memory") from None
    except Exception as exc:  # noqa: BLE001 - zipfile, zlib, numpy's format reader raise many types
        raise TraceInputError(
            f"{path}: damaged capture file (cannot read it: {type(exc).__name__}: {exc})"
        ) from None
    return Capture(manifest, words, core_images=images)


def read_words(path: str | os.PathLike, plain: bool = False):
    """Read any supported input (:func:`iron.trace.words.detect_format`): ``(words, manifest or None)``.
    ``plain``: the words of a text or ``.bin`` input as a list (no numpy: see
    :data:`iron.trace.engine.PLAIN_BYTES`); a capture file's are always an array."""
    fmt = detect_format(path)
    if fmt == "capture":
        cap = load_capture(path)
        return cap.words, cap.manifest
    if fmt == "bin":
        return read_bin(path, plain), None
    return read_text(path, plain), None


#: What a per-slice file name takes from a slice's device and sequence: one path
#: component of MLIR symbol characters (upstream's names are symbols: ``@add_two``).
_NAME_PART = re.compile(r"[A-Za-z0-9_$.-]{1,128}")


def _name_part(sl, field: str) -> str:
    value = getattr(sl, field)
    if not isinstance(value, str) or not _NAME_PART.fullmatch(value) or value.startswith("."):
        raise IronError(
            f"slice {sl.upstream_index}: {field} {value!r} cannot name an output file: a per-slice "
            "mlir-aie file is named <stem>_<index>_<device>_<sequence>.json, and each part must be "
            "1-128 of A-Z a-z 0-9 _ $ . - (not starting with '.'), as MLIR symbols are"
        )
    return value


def per_slice_path(path, sl) -> str:
    """``out.json`` -> ``out_<index>_<device>_<sequence>.json`` (upstream's per-slice names).

    The device and sequence come from the input (an MLIR file's ``trace_slices``, a
    manifest): each must be one plain name (:data:`_NAME_PART`), so the file stays in
    ``path``'s folder; anything else is an :class:`IronError` naming the slice."""
    p = os.fspath(path)
    stem, ext = os.path.splitext(p)
    index = int(sl.upstream_index)
    return f"{stem}_{index}_{_name_part(sl, 'device')}_{_name_part(sl, 'sequence')}{ext or '.json'}"


def per_slice_paths(path, slices) -> list[str]:
    """:func:`per_slice_path` of every slice, refusing two slices that would share a file."""
    names: dict[str, object] = {}
    for sl in slices:
        name = per_slice_path(path, sl)
        if name in names:
            raise IronError(
                f"slices {names[name].upstream_index} and {sl.upstream_index} would both be written "
                f"to {name}: their index, device and sequence are equal"
            )
        names[name] = sl
    return list(names)


def capture_from_mlir(words, mlir_text: str, filename: str | None = None) -> Capture:
    """A :class:`Capture` of raw ``words`` configured by mlir-aie MLIR (register
    writes, ``aie.trace`` ops, upstream ``trace_slices``: see
    :func:`iron.trace.mlir_manifest.manifest_from_mlir`)."""
    from iron.trace.mlir_manifest import manifest_from_mlir

    words = np.asarray(words, dtype=np.uint32).ravel()
    return Capture(manifest_from_mlir(mlir_text, len(words) * 4, filename), words)


def decode_mlir_aie(words, mlir_text: str, colshift: int | None = None) -> list[dict]:
    """Drop-in for mlir-aie's ``parse_trace(trace_buffer, mlir_module_str, colshift)``:
    the same list of Trace Event records."""
    from iron.trace.mlir_manifest import manifest_from_mlir

    words = check_words(np.ravel(words))  # mlir-aie hands over buffers of any shape
    manifest = manifest_from_mlir(mlir_text, len(words) * 4)
    return decode_manifest(manifest, words, colshift=colshift).mlir_aie_records()
