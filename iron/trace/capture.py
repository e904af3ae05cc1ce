"""A captured trace buffer with its manifest: decode, summarize, export, save, load.

A saved capture is an ``.npz`` archive holding the raw words and the manifest
JSON, so it decodes on any machine in a fresh process without MLIR or a build.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from dataclasses import dataclass

import numpy as np

from iron.files import atomic_write
from iron.trace.decode import DecodedSlice, decode_words
from iron.trace.manifest import Manifest, ManifestError
from iron.trace.words import TraceInputError, check_words

CAPTURE_FORMAT = "iron-trace-capture"
CAPTURE_VERSION = 1


def slice_words(manifest: Manifest, words: np.ndarray, sl) -> np.ndarray:
    """The words of slice ``sl`` (cut short if the buffer is shorter)."""
    return words[sl.offset // 4 : (sl.offset + sl.size) // 4]


def decode_manifest(
    manifest: Manifest, words: np.ndarray, *, colshift: int | None = None, analyze=None
) -> "DecodedTrace":
    """Decode every slice of ``words`` (``analyze``: see :func:`decode_words`)."""
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
        )
        if len(w) * 4 < sl.size:
            ds.diagnostics["missing_bytes"] = sl.size - len(w) * 4
        out.append(ds)
    return DecodedTrace(manifest, out)


@dataclass
class DecodedTrace:
    manifest: Manifest
    slices: list[DecodedSlice]

    def summary(self) -> str:
        from iron.trace.summary import summary_text

        return summary_text(self.slices)

    def summary_dict(self) -> dict:
        from iron.trace.summary import summary_dict

        return summary_dict(self.slices)

    def perfetto(self) -> dict:
        from iron.trace.perfetto import perfetto_trace

        m = self.manifest
        return perfetto_trace(self.slices, m.clock_mhz, {"target": m.target, "kernel": m.kernel})

    def to_perfetto(self, path) -> None:
        atomic_write(path, json.dumps(self.perfetto()))

    def mlir_aie_records(self) -> list[dict]:
        from iron.trace.perfetto import mlir_aie_records

        return mlir_aie_records(self.slices)

    def to_mlir_aie_json(self, path) -> None:
        from iron.trace.perfetto import dumps_mlir_aie

        atomic_write(path, dumps_mlir_aie(self.mlir_aie_records()))

    def plot(self, path) -> None:
        from iron.trace.plot import plot_timeline

        plot_timeline(self.slices, path, self.manifest.clock_mhz)


class Capture:
    """Raw trace words of one run plus the manifest that explains them.

    Decodes lazily (once): ``.slices``, ``.summary()``, ``.to_perfetto(path)``,
    ``.plot(path)`` read the decoded trace; ``.save(path)`` writes the raw words
    and the manifest, which :func:`load_capture` reads back anywhere.
    """

    def __init__(self, manifest: Manifest, words: np.ndarray, colshift: int | None = None):
        self.manifest = manifest
        self.words = np.ascontiguousarray(check_words(words))
        self.colshift = colshift
        self._decoded: DecodedTrace | None = None

    def decode(self) -> DecodedTrace:
        if self._decoded is None:
            self._decoded = decode_manifest(self.manifest, self.words, colshift=self.colshift)
        return self._decoded

    @property
    def slices(self) -> list[DecodedSlice]:
        return self.decode().slices

    def summary(self) -> str:
        return self.decode().summary()

    def summary_dict(self) -> dict:
        return self.decode().summary_dict()

    def to_perfetto(self, path) -> None:
        self.decode().to_perfetto(path)

    def to_mlir_aie_json(self, path) -> None:
        self.decode().to_mlir_aie_json(path)

    def plot(self, path) -> None:
        self.decode().plot(path)

    def save(self, path: str | os.PathLike) -> None:
        """Write a self-contained capture file (npz: words + manifest JSON)."""
        buf = io.BytesIO()
        np.savez_compressed(
            buf,
            format=np.array(CAPTURE_FORMAT),
            version=np.array(CAPTURE_VERSION),
            words=self.words.astype("<u4"),
            manifest=np.array(self.manifest.to_json()),
        )
        atomic_write(path, buf.getvalue())


def load_capture(path: str | os.PathLike) -> Capture:
    """Read a file written by :meth:`Capture.save`. A damaged, foreign or oversized
    file raises :class:`TraceInputError` naming it (never a zip/zlib/numpy error)."""
    from iron import limits

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
    return Capture(manifest, words)


def decode_mlir_aie(words, mlir_text: str, colshift: int | None = None) -> list[dict]:
    """Drop-in for mlir-aie's ``parse_trace(trace_buffer, mlir_module_str, colshift)``:
    the same list of Trace Event records."""
    from iron.trace.mlir_config import manifest_from_mlir

    words = check_words(np.ravel(words))  # mlir-aie hands over buffers of any shape
    manifest = manifest_from_mlir(mlir_text, len(words) * 4)
    return decode_manifest(manifest, words, colshift=colshift).mlir_aie_records()
