"""Trace options: the one place that reads and validates every ``IRON_*`` variable.

Explicit arguments win over the environment. Every invalid value raises
:class:`~iron.errors.OptionError` naming the variable (or argument), the value
and what is accepted.

==================  ===================  ==============================================
option              environment          meaning
==================  ===================  ==============================================
size                IRON_TRACE_SIZE      bytes of trace buffer per traced call site;
                                         0 or unset = untraced
ntiles              IRON_TRACE_NTILES    compute tiles traced per design (default 1)
events              IRON_TRACE_EVENTS    events per unit kind, e.g.
                                         ``INSTR_EVENT_0,LOCK_STALL`` (core) or
                                         ``core=INSTR_EVENT_0;mem=DMA_S2MM_0_FINISHED_BD``
select              IRON_TRACE_OP        call sites to trace: comma-separated indices
                                         (``0,2``), ``op<N>`` or operator names
trace_mode          IRON_TRACE_MODE      mode of core units: ``event-time`` (default) or
                                         ``event-pc``; other units stay event-time
out_dir             IRON_TRACE_DIR       where tests and the CLI write decoded traces
cache_dir           IRON_CACHE_DIR       build cache location (see iron.artifact.cache)
sources             IRON_DEBUG_SOURCES   1: embed design sources in artifacts (debug_sources)
==================  ===================  ==============================================
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from iron.errors import OptionError

#: Size used by ``trace=True`` when no size is given anywhere.
DEFAULT_TRACE_SIZE = 65536
#: A trace packet is 8 words; the drain DMA moves whole packets.
TRACE_SIZE_QUANTUM = 32
#: Shim BD Buffer_Length is a 32-bit count of 32-bit words (iron.target.shim_dma).
MAX_TRACE_SIZE = ((1 << 32) - 1) * 4 // TRACE_SIZE_QUANTUM * TRACE_SIZE_QUANTUM
#: Kinds of trace unit, in packet-type order (iron.target.events.MODULE_KINDS).
UNIT_KINDS = ("core", "mem", "shim", "memtile")
#: Events traced on a core module unless IRON_TRACE_EVENTS says otherwise.
DEFAULT_CORE_EVENTS = (
    "INSTR_EVENT_0",
    "INSTR_EVENT_1",
    "INSTR_VECTOR",
    "MEMORY_STALL",
    "STREAM_STALL",
    "LOCK_STALL",
    "PORT_RUNNING_0",
    "PORT_RUNNING_1",
)
SLOTS_PER_UNIT = 8
#: Modes a build may ask of core units (names from iron.trace.modes). Only the core
#: module's Trace_Control0 has a Mode field (mlir-aie AIETraceToConfig.cpp), so the
#: memory module, memtile and shim units are always event-time. Execution trace (2)
#: has no public format to decode, so iron does not configure it.
CORE_TRACE_MODES = ("event-time", "event-pc")
DEFAULT_OUT_DIR = "iron-traces"


@dataclass(frozen=True)
class TraceOptions:
    """Validated trace settings for one build.

    ``size`` is per traced call site, so fusing never shrinks an operator's
    trace. ``events`` maps unit kind -> up to 8 event names; kinds other than
    ``core`` are traced only when listed. ``select`` is ``None`` (trace every
    call site) or a tuple of call-site indices (int) and operator names (str).
    ``core_mode`` is the trace mode of core units (``event-time`` or ``event-pc``).
    """

    size: int = 0
    ntiles: int = 1
    events: tuple[tuple[str, tuple[str, ...]], ...] = (("core", DEFAULT_CORE_EVENTS),)
    select: tuple[int | str, ...] | None = None
    out_dir: Path = field(default=Path(DEFAULT_OUT_DIR), compare=False)
    core_mode: str = "event-time"  # one of CORE_TRACE_MODES

    def mode_for(self, kind: str) -> int:
        """Trace_Control0 mode (iron.trace.modes number) of units of ``kind``."""
        from iron.trace.modes import EVENT_TIME, mode_number

        return mode_number(self.core_mode) if kind == "core" else EVENT_TIME

    @property
    def enabled(self) -> bool:
        return self.size > 0

    def events_for(self, kind: str) -> tuple[str, ...]:
        """Event names traced on units of ``kind`` (empty: kind not traced)."""
        return dict(self.events).get(kind, ())

    def selects(self, index: int, op_name: str) -> bool:
        """Whether call site ``index`` running operator ``op_name`` is traced."""
        if not self.enabled:
            return False
        if self.select is None:
            return True
        for item in self.select:
            if item == index:
                return True
            if isinstance(item, str) and item.lower() == op_name.lower():
                return True
        return False

    def key(self) -> dict:
        """Canonical, JSON-ready form (part of the cache key and the manifest)."""
        if not self.enabled:
            return {"size": 0}
        return {
            "size": self.size,
            "ntiles": self.ntiles,
            "events": {k: list(v) for k, v in self.events},
            "select": None if self.select is None else list(self.select),
            "core_mode": self.core_mode,
        }


def resolve(
    trace: bool | None = None,
    *,
    size: int | None = None,
    ntiles: int | None = None,
    events: Mapping[str, list[str]] | list[str] | str | None = None,
    select: list[int | str] | str | None = None,
    out_dir: str | os.PathLike | None = None,
    env: Mapping[str, str] | None = None,
    default_ntiles: int = 1,
    trace_mode: str | None = None,
) -> TraceOptions:
    """Build :class:`TraceOptions` from explicit arguments and the environment.

    ``trace=None`` follows ``IRON_TRACE_SIZE`` (unset or 0: untraced);
    ``trace=False`` is untraced whatever the environment says; ``trace=True``
    traces with ``size``, else ``IRON_TRACE_SIZE``, else
    :data:`DEFAULT_TRACE_SIZE`. Explicit arguments always win. ``default_ntiles``
    applies when neither ``ntiles`` nor ``IRON_TRACE_NTILES`` is given.
    ``trace_mode`` (else ``IRON_TRACE_MODE``) is the mode of core units:
    ``event-time`` (default) or ``event-pc``.
    """
    env = os.environ if env is None else env
    if trace is not None and not isinstance(trace, bool):
        raise OptionError(f"trace={trace!r}: expected True, False or None")
    out = Path(_pick(out_dir, env, "IRON_TRACE_DIR") or DEFAULT_OUT_DIR)
    if out.exists() and not out.is_dir():
        raise OptionError(f"IRON_TRACE_DIR={str(out)!r}: exists and is not a directory")
    if trace is False:
        return TraceOptions(out_dir=out)

    if size is not None:
        nbytes = _size("trace_size", size)
    elif "IRON_TRACE_SIZE" in env:
        nbytes = _size("IRON_TRACE_SIZE", env["IRON_TRACE_SIZE"])
    else:
        nbytes = 0
    if trace is True and nbytes == 0:
        nbytes = DEFAULT_TRACE_SIZE
    if nbytes == 0:
        return TraceOptions(out_dir=out)

    if ntiles is not None:
        n = _int("ntiles", ntiles, minimum=1)
    else:
        n = _int("IRON_TRACE_NTILES", env.get("IRON_TRACE_NTILES", str(default_ntiles)), minimum=1)

    if events is not None:
        ev = _events("events", events)
    elif env.get("IRON_TRACE_EVENTS"):
        ev = _events("IRON_TRACE_EVENTS", env["IRON_TRACE_EVENTS"])
    else:
        ev = (("core", DEFAULT_CORE_EVENTS),)

    if select is not None:
        sel = _select("select", select)
    elif env.get("IRON_TRACE_OP"):
        sel = _select("IRON_TRACE_OP", env["IRON_TRACE_OP"])
    else:
        sel = None

    if trace_mode is not None:
        mode = _trace_mode("trace_mode", trace_mode)
    elif env.get("IRON_TRACE_MODE"):
        mode = _trace_mode("IRON_TRACE_MODE", env["IRON_TRACE_MODE"])
    else:
        mode = CORE_TRACE_MODES[0]
    return TraceOptions(size=nbytes, ntiles=n, events=ev, select=sel, out_dir=out, core_mode=mode)


def cache_dir(explicit: str | os.PathLike | None = None, env=None) -> Path:
    """Build cache directory: explicit, else ``IRON_CACHE_DIR``, else ``./build/iron-cache``."""
    env = os.environ if env is None else env
    value = _pick(explicit, env, "IRON_CACHE_DIR")
    path = Path(value) if value else Path("build") / "iron-cache"
    if path.exists() and not path.is_dir():
        raise OptionError(f"IRON_CACHE_DIR={str(path)!r}: exists and is not a directory")
    return path


def _pick(explicit, env, var):
    if explicit is not None:
        return os.fspath(explicit)
    return env.get(var) or None


def _int(name: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise OptionError(f"{name}={value!r}: expected an integer >= {minimum}")
    text = str(value).strip()
    if not re.fullmatch(r"[+-]?\d+", text):
        raise OptionError(f"{name}={value!r}: not an integer (expected an integer >= {minimum})")
    number = int(text)
    if number < minimum:
        raise OptionError(f"{name}={value!r}: must be >= {minimum}")
    return number


def _size(name: str, value) -> int:
    nbytes = _int(name, value, minimum=0)
    accepted = (
        f"0 (untraced) or a multiple of {TRACE_SIZE_QUANTUM} bytes "
        f"from {TRACE_SIZE_QUANTUM} to {MAX_TRACE_SIZE}"
    )
    if nbytes % TRACE_SIZE_QUANTUM:
        raise OptionError(f"{name}={value!r}: not a multiple of {TRACE_SIZE_QUANTUM}; accepted: {accepted}")
    if nbytes > MAX_TRACE_SIZE:
        raise OptionError(
            f"{name}={value!r}: exceeds what a shim BD length can address; accepted: {accepted}"
        )
    return nbytes


def _events(name: str, value) -> tuple[tuple[str, tuple[str, ...]], ...]:
    from iron.target import events as event_tables

    if isinstance(value, str):
        groups: dict[str, list[str]] = {}
        for part in filter(None, (p.strip() for p in value.split(";"))):
            kind, sep, names = part.partition("=")
            if not sep:
                kind, names = "core", part
            groups.setdefault(kind.strip(), []).extend(n.strip() for n in names.split(","))
    elif isinstance(value, Mapping):
        groups = {k: list(v) for k, v in value.items()}
    else:
        groups = {"core": list(value)}
    result = []
    for kind in UNIT_KINDS:
        if kind not in groups:
            continue
        names = groups.pop(kind)
        if not names or any(not n for n in names):
            raise OptionError(f"{name}={value!r}: empty event name for {kind}")
        if len(names) > SLOTS_PER_UNIT:
            raise OptionError(
                f"{name}={value!r}: {len(names)} events for {kind}; a trace unit has {SLOTS_PER_UNIT} slots"
            )
        table = event_tables.event_table(kind)
        unknown = [n for n in names if n not in table]
        if unknown:
            raise OptionError(
                f"{name}={value!r}: unknown {kind} event(s) {', '.join(unknown)}; "
                f"see `iron events {kind}` for the accepted names"
            )
        result.append((kind, tuple(names)))
    if groups:
        raise OptionError(
            f"{name}={value!r}: unknown unit kind(s) {', '.join(groups)}; accepted: {', '.join(UNIT_KINDS)}"
        )
    if not result:
        raise OptionError(f"{name}={value!r}: no events given")
    return tuple(result)


def _trace_mode(name: str, value) -> str:
    accepted = f"accepted: {' or '.join(CORE_TRACE_MODES)} (the mode of core units)"
    if not isinstance(value, str):
        raise OptionError(f"{name}={value!r}: not a mode name; {accepted}")
    key = value.strip().lower().replace("_", "-")
    if key not in CORE_TRACE_MODES:
        raise OptionError(f"{name}={value!r}: {accepted}")
    return key


_SELECT_ITEM = re.compile(r"(?:op)?(\d+)(?:_\w*)?$|([A-Za-z_]\w*)$")


def _select(name: str, value) -> tuple[int | str, ...]:
    items = value.split(",") if isinstance(value, str) else list(value)
    accepted = "call-site indices (0, 2), op<N> or op<N>_<Name>, or operator names (gemm)"
    out: list[int | str] = []
    for item in items:
        if isinstance(item, bool):
            raise OptionError(f"{name}={value!r}: {item!r} is not a call site; accepted: {accepted}")
        if isinstance(item, int):
            if item < 0:
                raise OptionError(f"{name}={value!r}: negative index {item}; accepted: {accepted}")
            out.append(item)
            continue
        text = str(item).strip()
        match = _SELECT_ITEM.match(text)
        if not text or not match:
            raise OptionError(f"{name}={value!r}: cannot read {text!r}; accepted: {accepted}")
        out.append(int(match.group(1)) if match.group(1) is not None else match.group(2))
    return tuple(out)


# --------------------------------------------------------------------------- debug flags
def debug_sources(explicit: bool | None = None, env=None) -> bool:
    """Embed design sources in artifacts: explicit, else ``IRON_DEBUG_SOURCES`` (0/1)."""
    if explicit is not None:
        if not isinstance(explicit, bool):
            raise OptionError(f"sources={explicit!r}: expected True or False")
        return explicit
    env = os.environ if env is None else env
    value = (env.get("IRON_DEBUG_SOURCES") or "0").strip().lower()
    if value in ("0", "", "false", "no", "off"):
        return False
    if value in ("1", "true", "yes", "on"):
        return True
    raise OptionError(f"IRON_DEBUG_SOURCES={value!r}: accepted: 0 or 1")


# --------------------------------------------------------------------------- toolchain locations
def toolchain_dirs(env=None) -> dict[str, Path | None]:
    """Install folders named by mlir-aie's own variables (``PEANO_INSTALL_DIR`` for the
    llvm-aie compiler, ``MLIR_AIE_INSTALL_DIR`` for mlir-aie); None where unset."""
    env = os.environ if env is None else env
    out = {}
    for var in ("PEANO_INSTALL_DIR", "MLIR_AIE_INSTALL_DIR"):
        value = env.get(var) or None
        if value is not None and not Path(value).is_dir():
            raise OptionError(f"{var}={value!r}: not a directory")
        out[var] = Path(value) if value else None
    return out
