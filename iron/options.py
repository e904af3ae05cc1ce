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
                                         ``core=INSTR_EVENT_0;mem=DMA_S2MM_0_START_TASK``
select              IRON_TRACE_OP        call sites to trace: comma-separated indices
                                         (``0,2``), ``op<N>`` or operator names
out_dir             IRON_TRACE_DIR       where tests and the CLI write decoded traces
cache_dir           IRON_CACHE_DIR       build cache location (see iron.artifact.cache)
sources             IRON_DEBUG_SOURCES   1: embed design sources in artifacts (debug_sources)
==================  ===================  ==============================================
"""

from __future__ import annotations

import operator
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from iron.errors import OptionError
from iron.target.shim_dma import BD_LENGTH_MAX_WORDS, PATCH_OFFSET_MAX

#: Size used by ``trace=True`` when no size is given anywhere.
DEFAULT_TRACE_SIZE = 65536
#: A trace packet is 8 words; the drain DMA moves whole packets.
TRACE_SIZE_QUANTUM = 32
#: Largest trace slice the drain BD can describe: its length is a count of 32-bit words
#: carried by mlir-aie's ``aiex.npu.writebd`` as an i32 (iron.target.shim_dma), 8 GiB - 32.
MAX_TRACE_SIZE = BD_LENGTH_MAX_WORDS * 4 // TRACE_SIZE_QUANTUM * TRACE_SIZE_QUANTUM
#: Host bytes a traced run and its decode may need per byte of trace buffer: the device
#: buffer, the runner's copy and its words (3x), the decoder (its target in
#: benchmarks/bench_decode.py: peak memory <= 8x the buffer; measured 5.7x).
HOST_BYTES_PER_TRACE_BYTE = 8
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
DEFAULT_OUT_DIR = "iron-traces"


@dataclass(frozen=True)
class TraceOptions:
    """Validated trace settings for one build.

    ``size`` is per traced call site, so fusing never shrinks an operator's
    trace. ``events`` maps unit kind -> up to 8 event names; kinds other than
    ``core`` are traced only when listed. ``select`` is ``None`` (trace every
    call site) or a tuple of call-site indices (int), operator names (str) and
    ``(index, name)`` pairs (``op1_GEMM``: call site 1, which must run GEMM).
    """

    size: int = 0
    ntiles: int = 1
    events: tuple[tuple[str, tuple[str, ...]], ...] = (("core", DEFAULT_CORE_EVENTS),)
    select: tuple[int | str | tuple[int, str], ...] | None = None
    out_dir: Path = field(default=Path(DEFAULT_OUT_DIR), compare=False)
    #: option -> where its value came from (argument name or environment variable), for errors
    origins: tuple[tuple[str, str], ...] = field(default=(), compare=False)

    def origin(self, option: str) -> str:
        """``"IRON_TRACE_NTILES"`` when ``option`` came from the environment, else the
        argument name (``"ntiles"``): what an error about the value should name."""
        return dict(self.origins).get(option, option)

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
            if isinstance(item, tuple):
                if item[0] == index and item[1].lower() == op_name.lower():
                    return True
            elif item == index:
                return True
            elif isinstance(item, str) and item.lower() == op_name.lower():
                return True
        return False

    def check_sites(self, sites: list[tuple[int, str]], where: str = "the sequence") -> None:
        """Refuse a selection that names call sites wrongly: ``op<N>_<Name>`` where call
        site N runs another operator, or a selection that matches no call site.
        ``sites``: ``(index, operator class name)`` of every call site."""
        if not self.enabled or self.select is None:
            return
        ops = dict(sites)
        listing = ", ".join(f"{i}:{n}" for i, n in sites)
        shown = ",".join(f"op{i[0]}_{i[1]}" if isinstance(i, tuple) else str(i) for i in self.select)
        for item in self.select:
            if isinstance(item, tuple) and item[0] in ops and ops[item[0]].lower() != item[1].lower():
                raise OptionError(
                    f"{self.origin('select')}={shown!r}: call site {item[0]} of {where} runs "
                    f"{ops[item[0]]}, not {item[1]}; call sites: {listing}"
                )
        if not any(self.selects(i, n) for i, n in sites):
            raise OptionError(
                f"{self.origin('select')}={shown!r} selects no call site of {where}; call sites: {listing}"
            )

    def check_layout(self, traced_sites: int) -> None:
        """Refuse ``traced_sites`` slices of :attr:`size` bytes that the wrapper cannot
        address (each slice's offset is an i32 ``arg_plus``) or this host cannot hold."""
        if not self.enabled or traced_sites < 1:
            return
        total = self.size * traced_sites
        name = self.origin("size")
        last = self.size * (traced_sites - 1)
        if last > PATCH_OFFSET_MAX:
            raise OptionError(
                f"{name}={self.size} with {traced_sites} traced call sites: the last slice starts at byte "
                f"{last}, beyond what a trace patch can offset ({PATCH_OFFSET_MAX}); lower {name} "
                f"or select fewer call sites (IRON_TRACE_OP)"
            )
        host = host_trace_limit()
        if host is not None and total > host:
            raise OptionError(
                f"{name}={self.size} with {traced_sites} traced call sites: {total} bytes of trace; this host "
                f"holds at most {host} (physical memory / {HOST_BYTES_PER_TRACE_BYTE}); lower {name}"
            )

    def key(self) -> dict:
        """Canonical, JSON-ready form (part of the cache key and the manifest)."""
        if not self.enabled:
            return {"size": 0}
        return {
            "size": self.size,
            "ntiles": self.ntiles,
            "events": {k: list(v) for k, v in self.events},
            "select": (
                None if self.select is None else [list(i) if isinstance(i, tuple) else i for i in self.select]
            ),
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
) -> TraceOptions:
    """Build :class:`TraceOptions` from explicit arguments and the environment.

    ``trace=None`` follows ``IRON_TRACE_SIZE`` (unset or 0: untraced);
    ``trace=False`` is untraced whatever the environment says; ``trace=True``
    traces with ``size``, else ``IRON_TRACE_SIZE``, else
    :data:`DEFAULT_TRACE_SIZE`. Explicit arguments always win. ``default_ntiles``
    applies when neither ``ntiles`` nor ``IRON_TRACE_NTILES`` is given.
    """
    env = os.environ if env is None else env
    if trace is not None and not isinstance(trace, bool):
        raise OptionError(f"trace={trace!r}: expected True, False or None")
    out = Path(_pick(out_dir, env, "IRON_TRACE_DIR", "out_dir") or DEFAULT_OUT_DIR)
    if out.exists() and not out.is_dir():
        raise OptionError(f"IRON_TRACE_DIR={str(out)!r}: exists and is not a directory")
    if trace is False:
        return TraceOptions(out_dir=out)

    origins = {}
    if size is not None:
        nbytes = _size("trace_size", size)
        origins["size"] = "trace_size"
    elif "IRON_TRACE_SIZE" in env:
        nbytes = _size("IRON_TRACE_SIZE", env["IRON_TRACE_SIZE"])
        origins["size"] = "IRON_TRACE_SIZE"
    else:
        nbytes = 0
        origins["size"] = "trace_size"
    if trace is True and nbytes == 0:
        nbytes = DEFAULT_TRACE_SIZE
    if nbytes == 0:
        return TraceOptions(out_dir=out)

    if ntiles is not None:
        n = _int("ntiles", ntiles, minimum=1)
    elif "IRON_TRACE_NTILES" in env:
        n = _int("IRON_TRACE_NTILES", env["IRON_TRACE_NTILES"], minimum=1)
        origins["ntiles"] = "IRON_TRACE_NTILES"
    else:
        n = _int("ntiles", default_ntiles, minimum=1)

    if events is not None:
        ev = _events("events", events)
    elif env.get("IRON_TRACE_EVENTS"):
        ev = _events("IRON_TRACE_EVENTS", env["IRON_TRACE_EVENTS"])
        origins["events"] = "IRON_TRACE_EVENTS"
    else:
        ev = (("core", DEFAULT_CORE_EVENTS),)

    if select is not None:
        sel = _select("select", select)
    elif env.get("IRON_TRACE_OP"):
        sel = _select("IRON_TRACE_OP", env["IRON_TRACE_OP"])
        origins["select"] = "IRON_TRACE_OP"
    else:
        sel = None
    return TraceOptions(
        size=nbytes, ntiles=n, events=ev, select=sel, out_dir=out, origins=tuple(sorted(origins.items()))
    )


def cache_dir(explicit: str | os.PathLike | None = None, env=None) -> Path:
    """Build cache directory: explicit, else ``IRON_CACHE_DIR``, else ``./build/iron-cache``."""
    env = os.environ if env is None else env
    value = _pick(explicit, env, "IRON_CACHE_DIR", "cache_dir")
    path = Path(value) if value else Path("build") / "iron-cache"
    if path.exists() and not path.is_dir():
        raise OptionError(f"IRON_CACHE_DIR={str(path)!r}: exists and is not a directory")
    return path


def _pick(explicit, env, var, argument: str):
    if explicit is not None:
        try:
            return os.fspath(explicit)
        except TypeError:
            raise OptionError(f"{argument}={explicit!r}: expected a path (str or os.PathLike)") from None
    return env.get(var) or None


def _as_index(value) -> int | None:
    """``value`` as a Python int if it is an integer (int, numpy integer ...), not a bool."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


def _int(name: str, value, minimum: int) -> int:
    number = _as_index(value)
    if number is not None:
        value = number
    elif not isinstance(value, str):
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
    host = host_trace_limit()
    if host is not None and nbytes > host:
        raise OptionError(
            f"{name}={value!r}: more trace than this host can hold ({host} bytes = physical memory / "
            f"{HOST_BYTES_PER_TRACE_BYTE}); accepted: {accepted.replace(str(MAX_TRACE_SIZE), str(host // TRACE_SIZE_QUANTUM * TRACE_SIZE_QUANTUM))}"
        )
    return nbytes


def host_trace_limit() -> int | None:
    """Most trace bytes this host can hold for one run (physical memory /
    :data:`HOST_BYTES_PER_TRACE_BYTE`), or None where the memory size is unknown."""
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None
    return memory // HOST_BYTES_PER_TRACE_BYTE if memory > 0 else None


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
        groups = {}
        for k, v in value.items():
            if not isinstance(k, str) or isinstance(v, (str, bytes)) or not isinstance(v, (list, tuple)):
                raise OptionError(f"{name}={value!r}: expected {{kind: [event names]}}; see `iron events`")
            groups[k] = list(v)
    elif isinstance(value, (list, tuple)):
        groups = {"core": list(value)}
    else:
        raise OptionError(
            f"{name}={value!r}: expected event names (a list, or 'A,B' / 'core=A;mem=B'), "
            "or {kind: [names]}; see `iron events`"
        )
    for kind, names in groups.items():
        if not all(isinstance(n, str) for n in names):
            raise OptionError(
                f"{name}={value!r}: event names for {kind} must be strings; see `iron events {kind}`"
            )
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


_SELECT_ITEM = re.compile(r"(?:op)?(?P<index>\d+)(?:_(?P<op>\w*))?$|(?P<name>[A-Za-z_]\w*)$")


def _select(name: str, value) -> tuple[int | str | tuple[int, str], ...]:
    accepted = "call-site indices (0, 2), op<N> or op<N>_<Name>, or operator names (gemm)"
    if isinstance(value, str):
        items = value.split(",")
    elif _as_index(value) is not None:
        items = [value]  # select=0: one call site
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        raise OptionError(
            f"{name}={value!r}: expected a list or a comma-separated string; accepted: {accepted}"
        )
    out: list[int | str | tuple[int, str]] = []
    for item in items:
        index = _as_index(item)
        if index is not None:
            if index < 0:
                raise OptionError(f"{name}={value!r}: negative index {index}; accepted: {accepted}")
            out.append(index)
            continue
        if not isinstance(item, str):
            raise OptionError(f"{name}={value!r}: {item!r} is not a call site; accepted: {accepted}")
        text = item.strip()
        match = _SELECT_ITEM.match(text)
        if not text or not match:
            raise OptionError(f"{name}={value!r}: cannot read {text!r}; accepted: {accepted}")
        if match["index"] is None:
            out.append(match["name"])
        elif match["op"]:
            out.append((int(match["index"]), match["op"]))  # op1_GEMM: checked against site 1
        else:
            out.append(int(match["index"]))
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
