"""Program counters of EVENT_PC traces -> functions (and lines) of the core's ELF.

The core ELF (Peano/Chess output, one per core) is read with pyelftools: its
function symbols (``STT_FUNC`` with a size; symbols without a size end at the
next symbol) and, when present, the DWARF line table. A PC outside every
function maps to None.
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass

import numpy as np

from iron.artifact.schema import EMBEDDED
from iron.errors import IronError

#: Largest function end address kept (the table is int64; core program memory is far below).
_MAX_ADDRESS = (1 << 63) - 1


class CoreElfError(IronError):
    """A core ELF cannot be read."""


@dataclass
class PcMap:
    """Sorted function ranges of one core ELF."""

    path: str
    starts: np.ndarray  # int64, ascending
    ends: np.ndarray  # int64, exclusive
    names: list[str]
    lines: dict[int, tuple[str, int]]  # address -> (file, line), from DWARF

    def function(self, pc: int) -> str | None:
        i = int(np.searchsorted(self.starts, pc, side="right")) - 1
        if i >= 0 and pc < self.ends[i]:
            return self.names[i]
        return None

    def functions(self, pcs: np.ndarray) -> list[str | None]:
        """Vectorized :meth:`function`."""
        pcs = np.asarray(pcs, dtype=np.int64)
        i = np.searchsorted(self.starts, pcs, side="right") - 1
        ok = (i >= 0) & (pcs < self.ends[np.maximum(i, 0)])
        return [self.names[j] if k else None for j, k in zip(i.tolist(), ok.tolist())]

    def line(self, pc: int) -> tuple[str, int] | None:
        """(file, line) of the last line-table row at or before ``pc``, if any."""
        if not self.lines:
            return None
        addrs = sorted(self.lines)
        i = int(np.searchsorted(addrs, pc, side="right")) - 1
        return self.lines[addrs[i]] if i >= 0 else None


def read_core_elf(path: str | os.PathLike) -> PcMap:
    """Function ranges (and DWARF lines) of the core ELF at ``path``."""
    from iron import limits

    try:
        p = os.fspath(path)
    except TypeError:
        raise CoreElfError(f"{path!r}: not a path to a core ELF") from None
    # a regular file within the artifact limit: /dev/zero, a FIFO or a 2 GiB file are refused unread
    return read_core_elf_data(limits.read_bytes(p, limits.MAX_ARTIFACT_BYTES, "core ELF", CoreElfError), p)


def read_core_elf_data(data: bytes, origin: str) -> PcMap:
    """:func:`read_core_elf` of ELF bytes (an embedded copy); ``origin`` names it in errors."""
    import struct

    from elftools.common.exceptions import DWARFError, ELFError
    from elftools.construct.core import ConstructError
    from elftools.elf.elffile import ELFFile
    from elftools.elf.sections import SymbolTableSection

    # What pyelftools raises on damaged input (its own error, or the parsing library's
    # when a table points past the data); an honest core ELF raises none of them.
    _DAMAGED = (ELFError, DWARFError, ConstructError, ValueError, IndexError, KeyError, TypeError, AttributeError, AssertionError,
                struct.error, OverflowError, RecursionError)  # fmt: skip

    p = origin
    try:
        elf = ELFFile(io.BytesIO(data))
        syms = []
        for sec in elf.iter_sections():
            if isinstance(sec, SymbolTableSection):
                for s in sec.iter_symbols():
                    if s["st_info"]["type"] == "STT_FUNC" and s.name and s["st_shndx"] != "SHN_UNDEF":
                        syms.append((int(s["st_value"]), int(s["st_size"]), s.name))
        lines = _dwarf_lines(elf) if elf.has_dwarf_info() else {}
    except _DAMAGED as exc:
        raise CoreElfError(f"{p}: not an ELF file (or a damaged one): {type(exc).__name__}: {exc}") from None
    if not syms:
        raise CoreElfError(f"{p}: no function symbols (STT_FUNC) in the ELF: cannot map PCs")
    for value, size, name in syms:
        if value + size > _MAX_ADDRESS:  # an ELF64 symbol near 2**64 overflowed the int64 table
            raise CoreElfError(
                f"{p}: function {name!r} spans 0x{value:x}..0x{value + size:x}, beyond any core "
                f"program counter (at most 0x{_MAX_ADDRESS:x}); not a core ELF"
            )
    syms.sort()
    starts = np.array([s for s, _, _ in syms], np.int64)
    nxt = np.append(starts[1:], np.iinfo(np.int64).max)
    ends = np.array([s + n if n else e for (s, n, _), e in zip(syms, nxt.tolist())], np.int64)
    return PcMap(p, starts, ends, [n for _, _, n in syms], lines)


def _dwarf_lines(elf) -> dict[int, tuple[str, int]]:
    out = {}
    for cu in elf.get_dwarf_info().iter_CUs():
        lp = elf.get_dwarf_info().line_program_for_CU(cu)
        if lp is None:
            continue
        files = lp["file_entry"]
        for entry in lp.get_entries():
            st = entry.state
            if st is None or st.end_sequence:
                continue
            idx = st.file - 1 if lp.header["version"] < 5 else st.file
            name = files[idx].name.decode() if 0 <= idx < len(files) else "?"
            if 0 <= int(st.address) <= _MAX_ADDRESS:
                out[int(st.address)] = (name, int(st.line))
    return out


def function_counts(pcmap: PcMap, pcs: np.ndarray) -> dict[str, int]:
    """Event samples per function (PCs outside every function under "?"),
    most frequent first."""
    names = pcmap.functions(pcs)
    counts: dict[str, int] = {}
    for n in names:
        counts[n or "?"] = counts.get(n or "?", 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def function_runs(pcmap: PcMap, pcs: np.ndarray) -> list[tuple[str, int, int]]:
    """Consecutive samples in one function: ``(name, first index, end index)``,
    the slices a Perfetto track draws (positions are capture order)."""
    names = pcmap.functions(pcs)
    runs = []
    for i, n in enumerate(names):
        n = n or "?"
        if runs and runs[-1][0] == n:
            runs[-1] = (n, runs[-1][1], i + 1)
        else:
            runs.append((n, i, i + 1))
    return runs


def attach_core_elfs(slices, specs) -> None:
    """Give every decoded event-PC core unit of ``slices`` the PC map of its
    core ELF. ``specs``: paths (one ELF for every core) or ``"COL,ROW=PATH"``
    (column as in the packet headers) for one core."""
    default, per_tile = None, {}
    for spec in specs or ():
        spec = os.fspath(spec)
        tile, eq, path = spec.partition("=")
        if eq and "," in tile:
            try:
                col, row = (int(x) for x in tile.split(","))
            except ValueError:
                raise CoreElfError(f"--core-elf {spec!r}: expected PATH or COL,ROW=PATH") from None
            per_tile[col, row] = read_core_elf(path)
        else:
            default = read_core_elf(spec)
    for ds in slices:
        for du in ds.units:
            if du.pc_events is not None and du.kind == "core":
                du.pcmap = per_tile.get((du.column, du.row), default) or du.pcmap


def attach_embedded(slices, images: dict[str, bytes]) -> None:
    """Give every decoded event-PC core unit the PC map of the core ELF embedded
    for its tile (``images``: :func:`iron.artifact.schema.embedded_name` -> ELF bytes, from an artifact
    built with sources on or a capture saved from one). A unit matches by its
    slice's device and its configured (design-relative) column and row; a name
    without a device matches that tile in every slice."""
    maps: dict[tuple[str, int, int], PcMap] = {}
    for name, data in (images or {}).items():
        m = EMBEDDED.match(name)
        if m is None:
            raise CoreElfError(f"embedded core ELF {name!r}: expected [<device>/]core_<col>_<row>.elf")
        maps[m["device"] or "", int(m["col"]), int(m["row"])] = read_core_elf_data(data, name)
    if not maps:
        return
    for ds in slices:
        device = ds.slice.device if ds.slice is not None else ""
        for du in ds.units:
            if du.pc_events is None or du.kind != "core" or du.unit is None:
                continue
            key = (du.unit.column, du.unit.row)
            du.pcmap = maps.get((device, *key)) or maps.get(("", *key)) or du.pcmap
