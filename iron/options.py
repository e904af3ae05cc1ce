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
sizes               IRON_TRACE_SIZES     per call-site bytes, ``0:4096,2:8192`` (override
                                         ``iron.Step(..., trace_size=N)`` and ``size``)
start / stop        IRON_TRACE_START     when units start / stop, as ``aie.trace.start/stop``:
                    IRON_TRACE_STOP      ``broadcast=N``, ``TRUE``, ``NONE``, ``USER_EVENT_<n>``
units               IRON_TRACE_UNITS     units at chosen tiles, ``core(0,2),mem(0,2),memtile(0,1),
                                         shim(0,0)`` (design-relative columns; replaces ntiles)
ports               IRON_TRACE_PORTS     stream-switch port each PORT_*_<n> slot watches, as
                                         ``aie.trace.port<n>``: ``core=0:North:1:S2MM,1:DMA:0:MM2S;
                                         memtile=0:DMA:2:S2MM`` (S2MM = master, MM2S = slave)
cache_dir           IRON_CACHE_DIR       build cache location (see iron.artifact.cache)
sources             IRON_DEBUG_SOURCES   1: embed design sources in artifacts (debug_sources)
backend             IRON_BACKEND         build with ``auto`` | ``builtin`` | ``aiecc`` (backend_choice)
device              IRON_DEVICE          run on ``auto`` | ``sim`` | ``xrt`` (device_choice)
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
from iron.limits import IntegerError, parse_int
from iron.target.registers import BROADCAST_CHANNELS
from iron.target.shim_dma import BD_LENGTH_MAX_WORDS
from iron.target.trace_unit import SLOTS, START_BROADCAST, STOP_BROADCAST

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
#: Modes a build may ask of core units (names from iron.target.trace_modes). Only the core
#: module's Trace_Control0 has a Mode field (mlir-aie AIETraceToConfig.cpp), so the
#: memory module, memtile and shim units are always event-time. Execution trace (2)
#: has no public format to decode, so iron does not configure it.
CORE_TRACE_MODES = ("event-time", "event-pc")
DEFAULT_OUT_DIR = "iron-traces"
#: When trace units start and stop unless IRON_TRACE_START/STOP say otherwise: the shim
#: raises broadcast 15 at the start of each traced call and 14 at its end.
DEFAULT_START = f"broadcast={START_BROADCAST}"
DEFAULT_STOP = f"broadcast={STOP_BROADCAST}"


@dataclass(frozen=True)
class TraceOptions:
    """Validated trace settings for one build.

    ``size`` is per traced call site, so fusing never shrinks an operator's
    trace. ``events`` maps unit kind -> up to 8 event names; kinds other than
    ``core`` are traced only when listed. ``select`` is ``None`` (trace every
    call site) or a tuple of call-site indices (int), operator names (str) and
    ``(index, name)`` pairs (``op1_GEMM``: call site 1, which must run GEMM).
    ``core_mode`` is the trace mode of core units (``event-time`` or ``event-pc``).
    """

    size: int = 0
    ntiles: int = 1
    events: tuple[tuple[str, tuple[str, ...]], ...] = (("core", DEFAULT_CORE_EVENTS),)
    select: tuple[int | str | tuple[int, str], ...] | None = None
    out_dir: Path = field(default=Path(DEFAULT_OUT_DIR), compare=False)
    core_mode: str = "event-time"  # one of CORE_TRACE_MODES

    def mode_for(self, kind: str) -> int:
        """Trace_Control0 mode (iron.target.trace_modes number) of units of ``kind``."""
        from iron.target.trace_modes import EVENT_TIME, mode_number

        return mode_number(self.core_mode) if kind == "core" else EVENT_TIME

    #: per call-site sizes ``((index, bytes), ...)``, sorted; 0 leaves that site untraced
    sizes: tuple[tuple[int, int], ...] = ()
    #: ``broadcast=N`` | ``event=TRUE`` | ``event=NONE`` | ``event=USER_EVENT_<n>`` (canonical)
    start: str = DEFAULT_START
    stop: str = DEFAULT_STOP
    #: explicit units ``((kind, column, row), ...)``; None: the first ``ntiles`` compute tiles
    units: tuple[tuple[str, int, int], ...] | None = None
    #: explicit port selections ``((kind, slot, bundle, channel, master), ...)``, sorted;
    #: slots not listed watch :data:`iron.target.stream_switch.DEFAULT_PORTS`
    ports: tuple[tuple[str, int, str, int, bool], ...] = ()

    def ports_for(self, kind: str) -> dict[int, tuple[str, int, bool]]:
        """Explicit ``slot -> (bundle, channel, master)`` of units of ``kind``."""
        return {slot: (b, ch, m) for k, slot, b, ch, m in self.ports if k == kind}

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

    def size_at(self, index: int, step_size: int | None = None) -> int:
        """Trace bytes of call site ``index`` (0: untraced there): ``sizes``, else the
        step's own ``trace_size`` (:class:`iron.fuse.fusion.Step`), else ``size``."""
        if not self.enabled:
            return 0
        per_site = dict(self.sizes)
        if index in per_site:
            return per_site[index]
        return self.size if step_size is None else step_size

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

    def key(self) -> dict:
        """Canonical, JSON-ready form (part of the cache key and the manifest)."""
        if not self.enabled:
            return {"size": 0}
        out = {
            "size": self.size,
            "ntiles": self.ntiles,
            "events": {k: list(v) for k, v in self.events},
            "select": (
                None if self.select is None else [list(i) if isinstance(i, tuple) else i for i in self.select]
            ),
            "core_mode": self.core_mode,
        }
        # Only when set, so keys of builds that do not use them stay what they were.
        if self.sizes:
            out["sizes"] = [list(p) for p in self.sizes]
        if (self.start, self.stop) != (DEFAULT_START, DEFAULT_STOP):
            out["start"], out["stop"] = self.start, self.stop
        if self.units is not None:
            out["units"] = [list(u) for u in self.units]
        if self.ports:
            out["ports"] = [[k, slot, b, ch, "S2MM" if m else "MM2S"] for k, slot, b, ch, m in self.ports]
        return out


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
    sizes: Mapping[int, int] | str | None = None,
    start: str | None = None,
    stop: str | None = None,
    units: list | str | None = None,
    ports: Mapping | list | str | None = None,
) -> TraceOptions:
    """Build :class:`TraceOptions` from explicit arguments and the environment.

    ``trace=None`` follows ``IRON_TRACE_SIZE`` (unset or 0: untraced);
    ``trace=False`` is untraced whatever the environment says; ``trace=True``
    traces with ``size``, else ``IRON_TRACE_SIZE``, else
    :data:`DEFAULT_TRACE_SIZE`. Explicit arguments always win. ``default_ntiles``
    applies when neither ``ntiles`` nor ``IRON_TRACE_NTILES`` is given.
    ``trace_mode`` (else ``IRON_TRACE_MODE``) is the mode of core units:
    ``event-time`` (default) or ``event-pc``.

    ``sizes`` (``IRON_TRACE_SIZES``): per call-site bytes, ``{0: 4096}`` or ``"0:4096,2:8192"``.
    ``start`` / ``stop`` (``IRON_TRACE_START`` / ``IRON_TRACE_STOP``): ``"broadcast=N"``
    (N in 0..15), ``"TRUE"`` (start at once), ``"NONE"`` (never), ``"USER_EVENT_<n>"``
    (iron raises it on every traced module); ``event=<"NAME">`` is read too.
    ``units`` (``IRON_TRACE_UNITS``): ``"core(0,2),shim(0,0)"`` or ``[("core", 0, 2)]``.
    ``ports`` (``IRON_TRACE_PORTS``): the stream-switch port slot n of a kind's units
    watches, ``"core=0:North:1:S2MM,1:DMA:0:MM2S;memtile=0:DMA:2:S2MM"`` (no ``kind=``:
    core) or ``{"core": {0: ("North", 1, "S2MM")}}``; the direction is upstream's
    (S2MM = the master port, MM2S = the slave) or ``master`` / ``slave``.
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
    per_site = _from(sizes, env, "IRON_TRACE_SIZES", "trace_sizes", _sizes, ())
    first = _from(start, env, "IRON_TRACE_START", "trace_start", _boundary, DEFAULT_START)
    last = _from(stop, env, "IRON_TRACE_STOP", "trace_stop", _boundary, DEFAULT_STOP)
    _check_boundaries(first, last, start, stop, ev)
    chosen = _from(units, env, "IRON_TRACE_UNITS", "trace_units", _units, None)
    if chosen is not None:
        listed = dict(ev)
        missing = sorted({k for k, _c, _r in chosen if k not in listed})
        if missing:
            who = "trace_units" if units is not None else "IRON_TRACE_UNITS"
            raise OptionError(
                f"{who}: lists {', '.join(missing)} unit(s) but no events for that kind; "
                f"name them in IRON_TRACE_EVENTS / events (e.g. {missing[0]}=...)"
            )
    selected = _from(ports, env, "IRON_TRACE_PORTS", "trace_ports", _ports, ())
    unlisted = sorted({k for k, *_ in selected if k not in dict(ev)})
    if unlisted:
        who = "trace_ports" if ports is not None else "IRON_TRACE_PORTS"
        raise OptionError(
            f"{who}: selects ports for {', '.join(unlisted)} unit(s) but no events for that kind; "
            f"name its PORT_* events in IRON_TRACE_EVENTS / events (e.g. {unlisted[0]}=PORT_RUNNING_0)"
        )
    if trace_mode is not None:
        mode = _trace_mode("trace_mode", trace_mode)
    elif env.get("IRON_TRACE_MODE"):
        mode = _trace_mode("IRON_TRACE_MODE", env["IRON_TRACE_MODE"])
    else:
        mode = CORE_TRACE_MODES[0]
    return TraceOptions(
        size=nbytes, ntiles=n, events=ev, select=sel, out_dir=out, core_mode=mode,
        sizes=per_site, start=first, stop=last, units=chosen, ports=selected,
        origins=tuple(sorted(origins.items())),
    )  # fmt: skip


def from_build_kwargs(
    trace: bool | None = None,
    *,
    trace_size=None,
    ntiles=None,
    events=None,
    select=None,
    trace_mode=None,
    trace_sizes=None,
    trace_start=None,
    trace_stop=None,
    trace_units=None,
    trace_ports=None,
    env: Mapping[str, str] | None = None,
) -> TraceOptions:
    """The :class:`TraceOptions` of :func:`iron.build`'s trace keywords and the environment.

    The keywords are :func:`resolve`'s under the names the build API gives them
    (``trace_size`` is ``size``, ``trace_sizes`` is ``sizes``, ``trace_start`` is
    ``start`` ...); :func:`resolve` documents their forms and the environment
    variables each one overrides.
    """
    return resolve(
        trace, size=trace_size, ntiles=ntiles, events=events, select=select, trace_mode=trace_mode,
        sizes=trace_sizes, start=trace_start, stop=trace_stop, units=trace_units, ports=trace_ports,
        env=env,
    )  # fmt: skip


def _from(explicit, env, var, arg, parse, default):
    """``parse(name, value)`` of the explicit argument, else of ``var``, else ``default``."""
    if explicit is not None:
        return parse(arg, explicit)
    if env.get(var):
        return parse(var, env[var])
    return default


def step_size(value) -> int:
    """Validated ``trace_size`` of one :class:`iron.fuse.fusion.Step`."""
    return _size("Step(trace_size=...)", value)


def declared_size(name: str, value) -> int:
    """Validated trace size a design declares itself (``name`` says where, for the error)."""
    return _size(name, value)


def _sizes(name: str, value) -> tuple[tuple[int, int], ...]:
    accepted = "call-site index:bytes pairs, e.g. 0:4096,2:8192 (or a dict {0: 4096})"
    if isinstance(value, str):
        pairs = []
        for part in filter(None, (p.strip() for p in value.split(","))):
            index, sep, nbytes = part.partition(":")
            if not sep:
                raise OptionError(f"{name}={value!r}: cannot read {part!r}; accepted: {accepted}")
            pairs.append((index.strip(), nbytes.strip()))
    elif isinstance(value, Mapping):
        pairs = list(value.items())
    else:
        raise OptionError(f"{name}={value!r}: accepted: {accepted}")
    out: dict[int, int] = {}
    for index, nbytes in pairs:
        site = _int(f"{name} call site", index, minimum=0)
        if site in out:
            raise OptionError(f"{name}={value!r}: call site {site} given twice")
        out[site] = _size(f"{name} (call site {site})", nbytes)
    return tuple(sorted(out.items()))


_BOUNDARY = re.compile(r'^(?:(broadcast)\s*=\s*(\d+)|(?:event\s*=\s*)?<?\s*"?(\w+)"?\s*>?)$')


def _boundary(name: str, value) -> str:
    """Canonical ``broadcast=N`` / ``event=NAME`` of one start or stop setting."""
    accepted = "broadcast=N (N in 0..15), TRUE, NONE or USER_EVENT_<n>"
    m = _BOUNDARY.match(str(value).strip()) if isinstance(value, str) else None
    if m is None:
        raise OptionError(f"{name}={value!r}: cannot read it; accepted: {accepted}")
    if m.group(1):
        n = _int(name, m.group(2), minimum=0)
        if n >= BROADCAST_CHANNELS:
            raise OptionError(f"{name}={value!r}: broadcast {n} out of range; accepted: {accepted}")
        return f"broadcast={n}"
    event = m.group(3).upper()
    if event not in ("TRUE", "NONE") and not re.fullmatch(r"USER_EVENT_\d+", event):
        raise OptionError(f"{name}={value!r}: event {event} is not one iron can raise; accepted: {accepted}")
    return f"event={event}"


def _check_boundaries(first: str, last: str, start, stop, events) -> None:
    from iron.target import events as event_tables

    start_name = "trace_start" if start is not None else "IRON_TRACE_START"
    stop_name = "trace_stop" if stop is not None else "IRON_TRACE_STOP"
    if last == "event=TRUE":
        raise OptionError(f"{stop_name}=TRUE would stop every unit the cycle it starts; accepted: "
                          "broadcast=N, NONE or USER_EVENT_<n>")  # fmt: skip
    if first == last and first != "event=NONE":
        raise OptionError(f"{start_name} and {stop_name} are both {first}: a unit would stop as it starts")
    for name, spec in ((start_name, first), (stop_name, last)):
        event = spec.partition("=")[2]
        if not event.startswith("USER_EVENT_"):
            continue
        for kind, _names in events:
            if event not in event_tables.event_table(kind):
                raise OptionError(
                    f"{name}={event}: {kind} modules have no {event} "
                    f"(`iron events {kind}` lists theirs); pick a user event every traced kind has"
                )


_UNIT = re.compile(r"\s*(\w+)\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)\s*")


def _units(name: str, value) -> tuple[tuple[str, int, int], ...]:
    from iron.target.geometry import MEMTILE_ROW, SHIM_ROW

    accepted = "kind(column,row) items, e.g. core(0,2),mem(0,2),memtile(0,1),shim(0,0)"
    if isinstance(value, str):
        items = []
        text = value.strip()
        while text:
            m = _UNIT.match(text)
            if m is None:
                raise OptionError(f"{name}={value!r}: cannot read {text!r}; accepted: {accepted}")
            items.append((m.group(1), _int(name, m.group(2), 0), _int(name, m.group(3), 0)))
            text = text[m.end() :].lstrip(",")
    else:
        try:
            items = [(str(k), _int(name, c, -(1 << 31)), _int(name, r, -(1 << 31))) for k, c, r in value]
        except (TypeError, ValueError):
            raise OptionError(f"{name}={value!r}: accepted: {accepted}") from None
    rows = {
        "core": "rows >= 2",
        "mem": "rows >= 2",
        "memtile": f"row {MEMTILE_ROW}",
        "shim": f"row {SHIM_ROW}",
    }
    out = []
    for kind, col, row in items:
        if kind not in UNIT_KINDS:
            raise OptionError(f"{name}={value!r}: unit kind {kind!r}; accepted: {', '.join(UNIT_KINDS)}")
        ok = (
            row == SHIM_ROW
            if kind == "shim"
            else row == MEMTILE_ROW if kind == "memtile" else row > MEMTILE_ROW
        )
        if not ok or col < 0:
            raise OptionError(f"{name}={value!r}: {kind}({col},{row}): {kind} units sit at {rows[kind]}")
        if (kind, col, row) in out:
            raise OptionError(f"{name}={value!r}: {kind}({col},{row}) listed twice")
        out.append((kind, col, row))
    if not out:
        raise OptionError(f"{name}={value!r}: no units given; accepted: {accepted}")
    return tuple(out)


_PORT_ITEM = re.compile(r"\s*(\d+)\s*:\s*(\w+)\s*:\s*(\d+)\s*:\s*(\w+)\s*$")
_DIRECTIONS = {"s2mm": True, "master": True, "mm2s": False, "slave": False}


def _ports(name: str, value) -> tuple[tuple[str, int, str, int, bool], ...]:
    """Canonical port selections; each port is checked against
    :mod:`iron.target.stream_switch` for its tile kind."""
    from iron.errors import IronError
    from iron.target import stream_switch

    accepted = (
        "[kind=]slot:bundle:channel:direction items, e.g. core=0:North:1:S2MM,1:DMA:0:MM2S;"
        "memtile=0:DMA:2:S2MM (kinds: " + ", ".join(stream_switch.PORTS) + "; slots 0..7; "
        "direction S2MM/master or MM2S/slave)"
    )
    items: list[tuple[str, object, object, object, object]] = []
    if isinstance(value, str):
        for group in filter(None, (g.strip() for g in value.split(";"))):
            kind, sep, rest = group.partition("=")
            kind, rest = (kind.strip(), rest) if sep else ("core", group)
            for part in filter(None, (p.strip() for p in rest.split(","))):
                m = _PORT_ITEM.match(part)
                if m is None:
                    raise OptionError(f"{name}={value!r}: cannot read {part!r}; accepted: {accepted}")
                items.append((kind, *m.groups()))
    elif isinstance(value, Mapping):
        try:
            items = [(k, slot, *port) for k, slots in value.items() for slot, port in slots.items()]
        except (AttributeError, TypeError):
            raise OptionError(f"{name}={value!r}: accepted: {accepted}") from None
    else:
        try:
            items = [tuple(item) for item in value]
        except TypeError:
            raise OptionError(f"{name}={value!r}: accepted: {accepted}") from None
    out: dict[tuple[str, int], tuple[str, int, bool]] = {}
    for item in items:
        if len(item) != 5:
            raise OptionError(f"{name}={value!r}: cannot read {item!r}; accepted: {accepted}")
        kind, slot, bundle, channel, direction = item
        if kind not in stream_switch.PORTS:
            raise OptionError(
                f"{name}={value!r}: unit kind {kind!r} has no port selection; accepted: {accepted}"
            )
        n = _int(f"{name} slot", slot, minimum=0)
        if n >= stream_switch.EVENT_PORTS:
            raise OptionError(f"{name}={value!r}: slot {n} out of range; accepted: {accepted}")
        canon = stream_switch.bundle_name(str(bundle))
        master = _DIRECTIONS.get(str(direction).strip().lower())
        if canon is None or master is None:
            raise OptionError(
                f"{name}={value!r}: cannot read {bundle}:{channel}:{direction}; accepted: {accepted}"
            )
        ch = _int(f"{name} channel", channel, minimum=0)
        try:
            stream_switch.port_index(kind, canon, ch, master)
        except IronError as exc:
            raise OptionError(f"{name}={value!r}: {exc}") from None
        if (kind, n) in out:
            raise OptionError(f"{name}={value!r}: {kind} slot {n} given twice")
        out[kind, n] = (canon, ch, master)
    if not out:
        raise OptionError(f"{name}={value!r}: no ports given; accepted: {accepted}")
    return tuple((k, n, *port) for (k, n), port in sorted(out.items()))


def cache_dir(explicit: str | os.PathLike | None = None, env=None) -> Path:
    """Build cache directory: explicit, else ``IRON_CACHE_DIR``, else ``./build/iron-cache``."""
    env = os.environ if env is None else env
    value = _pick(explicit, env, "IRON_CACHE_DIR", "cache_dir")
    path = Path(value) if value else Path("build") / "iron-cache"
    if path.is_symlink() and not path.exists():  # mkdir would raise a bare FileExistsError
        raise OptionError(
            f"IRON_CACHE_DIR={str(path)!r}: a symlink to {os.readlink(path)!r}, which does not exist; "
            "create that directory or point IRON_CACHE_DIR elsewhere"
        )
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
        if number.bit_length() > 128:  # repr() of a huge int is itself refused past 4300 digits
            raise OptionError(
                f"{name}: an integer of {number.bit_length()} bits; expected an integer >= {minimum}"
            )
    elif not isinstance(value, str):
        raise OptionError(f"{name}={value!r}: expected an integer >= {minimum}")
    else:
        try:  # the one integer parser (iron.limits.parse_int): digit limit, 08 is 8, 0x hex
            number = parse_int(value)
        except IntegerError as exc:
            shown = repr(value) if len(value) <= 40 else repr(value[:37] + "...")
            raise OptionError(
                f"{name}={shown}: not an integer ({exc.reason}); expected an integer >= {minimum}"
            ) from None
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
        if len(names) > SLOTS:
            raise OptionError(
                f"{name}={value!r}: {len(names)} events for {kind}; a trace unit has {SLOTS} slots"
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
            out.append((_int(name, match["index"], 0), match["op"]))  # op1_GEMM: checked against site 1
        else:
            out.append(_int(name, match["index"], 0))
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


# --------------------------------------------------------------------------- where to build and run
#: Build back ends: iron's own lowering, mlir-aie's aiecc, or the machine's choice.
BACKENDS = ("auto", "builtin", "aiecc")
#: Devices: iron's simulator, an NPU through XRT, or the machine's choice.
DEVICES = ("auto", "sim", "xrt")


def _choice(explicit, env, var: str, argument: str, accepted: tuple[str, ...]) -> str:
    if explicit is not None:
        if explicit not in accepted:
            raise OptionError(f"{argument}={explicit!r}; accepted: {', '.join(accepted)}")
        return explicit
    env = os.environ if env is None else env
    value = (env.get(var) or "auto").strip().lower()
    if value not in accepted:
        raise OptionError(f"{var}={value!r}; accepted: {', '.join(accepted)}")
    return value


def backend_choice(explicit: str | None = None, env=None) -> str:
    """Build back end asked for: explicit ``backend=``, else ``IRON_BACKEND``, else ``auto``
    (which one ``auto`` means: :func:`iron.machine`)."""
    return _choice(explicit, env, "IRON_BACKEND", "backend", BACKENDS)


def device_choice(explicit: str | None = None, env=None) -> str:
    """Device asked for: explicit ``device=``, else ``IRON_DEVICE``, else ``auto``."""
    return _choice(explicit, env, "IRON_DEVICE", "device", DEVICES)
