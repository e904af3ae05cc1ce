"""Options: the one place that declares, reads and validates every ``IRON_*`` variable.

:data:`OPTIONS` declares each option once: its name, environment variable,
:func:`iron.build` keyword, command-line flag, parser, default, doc line and where it
applies. :func:`resolve` (trace options -> :class:`TraceOptions`),
:func:`from_build_kwargs`, :func:`cache_dir`, :func:`debug_sources`,
:func:`backend_choice`, :func:`device_choice` and :func:`toolchain_dirs` read it;
docs/reference.md's "Options" table is :func:`markdown_table` (``python docs/options_table.py``
rewrites it; ``iron/tests/test_readme.py`` checks it).

Precedence, for every option: an explicit argument (not None) wins over the
environment, the environment over the default. An empty variable counts as unset,
except for the numbers ``IRON_TRACE_SIZE`` and ``IRON_TRACE_NTILES``, where it is
an error (a stray ``IRON_TRACE_SIZE=`` would otherwise untrace silently). A trace
option is read only when the build is traced (``trace`` and the size say so), so a
bad ``IRON_TRACE_EVENTS`` never breaks an untraced build. The bytes of one call site
come from, first to last: ``trace_sizes`` / ``IRON_TRACE_SIZES``, the step's own
``iron.Step(..., trace_size=N)``, a foreign design's ``aie.trace.host_config``
``buffer_size``, then ``trace_size`` / ``IRON_TRACE_SIZE``
(:func:`iron.fuse.plan.site_size`). A call site is traced when ``select`` /
``IRON_TRACE_OP`` names it (:func:`iron.fuse.plan.selects`) and its size is not 0. These
options hold what the user asked for; the build's trace plan (:mod:`iron.fuse.plan`) holds
what each call site gets.

Every invalid value raises :class:`~iron.errors.OptionError` naming the variable (or
argument), the value and what is accepted.
"""

from __future__ import annotations

import operator
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping

from iron.errors import OptionError
from iron import limits
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
#: Events a memtile unit traces when iron traces the memtiles because no core's trace can
#: leave its column (:mod:`iron.instrument.routes`) and the build lists none: its DMA
#: channels 0..3 running, both directions, as mlir-aie's trace setup defaults a memtile
#: (``python/utils/trace/setup.py`` ``_get_default_events_for_tile``, a9e39fae); the slots
#: watch :data:`iron.target.stream_switch.DEFAULT_PORTS` (the same eight ports).
DEFAULT_MEMTILE_EVENTS = tuple(f"PORT_RUNNING_{n}" for n in range(8))
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
        """What an error about field ``option`` should name: its variable
        (``"IRON_TRACE_SIZE"``) when the value came from the environment, else the
        keyword that sets it (``"trace_size"``)."""
        given = dict(self.origins).get(option)
        return given or next((o.argument for o in OPTIONS if o.field == option), option)

    @property
    def enabled(self) -> bool:
        return self.size > 0

    def events_for(self, kind: str) -> tuple[str, ...]:
        """Event names traced on units of ``kind`` (empty: kind not traced)."""
        return dict(self.events).get(kind, ())

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
        out[site] = site_size(f"{name} (call site {site})", nbytes)
    return tuple(sorted(out.items()))


_BOUNDARY = re.compile(r'^(?:(broadcast)\s*=\s*(\d+)|(?:event\s*=\s*)?<?\s*"?(\w+)"?\s*>?)$')


def _boundary(name: str, value) -> str:
    """Canonical ``broadcast=N`` / ``event=NAME`` of one start or stop setting."""
    accepted = f"broadcast=N (N in 0..{BROADCAST_CHANNELS - 1}), TRUE, NONE or USER_EVENT_<n>"
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


def _check_together(options: TraceOptions) -> None:
    """The rules between options: start and stop can both happen, a user event they name
    exists on every traced kind, and every kind given units or ports has events."""
    from iron.target import events as event_tables

    start, stop = options.origin("start"), options.origin("stop")
    if options.stop == "event=TRUE":
        raise OptionError(f"{stop}=TRUE would stop every unit the cycle it starts; accepted: "
                          "broadcast=N, NONE or USER_EVENT_<n>")  # fmt: skip
    if options.start == options.stop and options.start != "event=NONE":
        raise OptionError(f"{start} and {stop} are both {options.start}: a unit would stop as it starts")
    for name, spec in ((start, options.start), (stop, options.stop)):
        event = spec.partition("=")[2]
        for kind, _names in options.events if event.startswith("USER_EVENT_") else ():
            if event not in event_tables.event_table(kind):
                raise OptionError(
                    f"{name}={event}: {kind} modules have no {event} "
                    f"(`iron events {kind}` lists theirs); pick a user event every traced kind has"
                )
    events = f"{option('events').env} / {option('events').argument}"
    listed = dict(options.events)
    missing = sorted({k for k, _c, _r in options.units or () if k not in listed})
    if missing:
        raise OptionError(
            f"{options.origin('units')}: lists {', '.join(missing)} unit(s) but no events for that kind; "
            f"name them in {events} (e.g. {missing[0]}=...)"
        )
    unlisted = sorted({k for k, *_ in options.ports if k not in listed})
    if unlisted:
        raise OptionError(
            f"{options.origin('ports')}: selects ports for {', '.join(unlisted)} unit(s) but no events for "
            f"that kind; name its PORT_* events in {events} (e.g. {unlisted[0]}=PORT_RUNNING_0)"
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


def site_size(name: str, value) -> int:
    """Validated trace bytes of one call site (0: untraced there): the parser of
    ``trace_size`` / ``IRON_TRACE_SIZE``, also of a size given elsewhere
    (``iron.Step(trace_size=)``, a design's ``aie.trace.host_config``, ``iron trace
    wire --trace-size``); ``name`` says where, for the error."""
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


def _ntiles(name: str, value) -> int:
    return _int(name, value, minimum=1)


def _path(name: str, value) -> Path | None:
    """A folder's path; None for an empty one (the default then applies)."""
    text = os.fspath(value) if isinstance(value, (str, os.PathLike)) else None
    if not isinstance(text, str):
        raise OptionError(f"{name}={value!r}: expected a path (str or os.PathLike)")
    return Path(text) if text else None


def _check_directory(name: str, path: Path) -> None:
    """Refuse a folder iron would fail to create: a name longer than the file system takes,
    a file, or a symlink to nothing."""
    for part in path.parts:  # the kernel refuses longer names: a bare OSError, later
        if len(os.fsencode(part)) > limits.NAME_MAX:
            raise OptionError(
                f"{name}={_short(path)}: the folder name {_short(part)} is {len(os.fsencode(part))} bytes; "
                f"accepted: names of at most {limits.NAME_MAX} bytes (the file system's limit)"
            )
    try:
        if path.is_symlink() and not path.exists():  # mkdir would raise a bare FileExistsError
            raise OptionError(
                f"{name}={str(path)!r}: a symlink to {os.readlink(path)!r}, which does not exist; "
                f"create that directory or point {name} elsewhere"
            )
        if path.exists() and not path.is_dir():
            raise OptionError(f"{name}={str(path)!r}: exists and is not a directory")
    except OSError as exc:  # a path the kernel cannot look up (too long, ELOOP, EACCES, ...)
        raise OptionError(f"{name}={_short(path)}: cannot be used: {exc.strerror or exc}") from None


def _short(value) -> str:
    """``value``'s repr, cut in the middle when long (an error line stays one readable line)."""
    text = repr(str(value))
    return text if len(text) <= 80 else f"{text[:38]}...{text[-38:]}"


def _install_dir(name: str, value) -> Path:
    if not Path(value).is_dir():
        raise OptionError(f"{name}={value!r}: not a directory")
    return Path(value)


_FALSE, _TRUE = ("0", "false", "no", "off"), ("1", "true", "yes", "on")


def _flag(name: str, value) -> bool:
    if isinstance(value, bool):
        return value
    text = value.strip().lower() if isinstance(value, str) else None
    if text in _FALSE or text in _TRUE:
        return text in _TRUE
    raise OptionError(f"{name}={value!r}: accepted: 0 or 1 (or True / False)")


def _one_of(accepted: tuple[str, ...]):
    """Parser of a choice among ``accepted`` (case and spaces ignored)."""

    def parse(name: str, value) -> str:
        key = value.strip().lower() if isinstance(value, str) else value
        if key not in accepted:
            raise OptionError(f"{name}={value!r}; accepted: {', '.join(accepted)}")
        return key

    return parse


# --------------------------------------------------------------------------- the option table
#: Build back ends: iron's own lowering, mlir-aie's aiecc, or the machine's choice.
BACKENDS = ("auto", "builtin", "aiecc")
#: Devices: iron's simulator, an NPU through XRT, or the machine's choice.
DEVICES = ("auto", "sim", "xrt")
_FROM_FIELD = object()  # Option.default of a trace option: TraceOptions' own field default
_UNSET = object()  # Option.pick without a default: the row's own applies


@dataclass(frozen=True)
class Option:
    """One option, declared once in :data:`OPTIONS`.

    ``name`` is the keyword of the function that resolves it (:func:`resolve` for trace
    options), ``field`` the :class:`TraceOptions` field it fills (None: not a trace
    option), ``keyword`` its :func:`iron.build` keyword (None: not one). ``parse(name,
    value)`` validates an explicit value or the variable's text and returns the
    canonical value (None: use the default), naming ``name`` in its errors.
    """

    name: str
    env: str
    parse: Callable[[str, object], object] | None  # None: read elsewhere (documented here only)
    doc: str  # the options table's "meaning" cell
    applies: str  # which calls, commands and tests follow it
    keyword: str | None = None
    cli: tuple[str, ...] = ()  # command-line flags that set it, "iron demo --trace-size"
    field: str | None = None
    default: object = _FROM_FIELD
    shown_default: str = ""  # the options table's default cell when the value alone says too little
    blank_is_unset: bool = True  # False: an empty variable is parsed (and refused)

    def __post_init__(self):
        if self.default is _FROM_FIELD:  # TraceOptions() and the table cannot disagree
            object.__setattr__(self, "default", TraceOptions.__dataclass_fields__[self.field].default)

    @property
    def argument(self) -> str:
        """How an error names an explicit value: the build keyword, else ``name``."""
        return self.keyword or self.name

    def pick(self, explicit, env: Mapping[str, str], default=_UNSET) -> tuple[object, str]:
        """``(value, origin)``: ``explicit`` parsed, else the variable's text parsed, else the
        default (``default`` when given); ``origin`` is what errors about it name."""
        default = self.default if default is _UNSET else default
        if explicit is not None:
            value, origin = self.parse(self.argument, explicit), self.argument
        elif env.get(self.env) or (self.env in env and not self.blank_is_unset):
            value, origin = self.parse(self.env, env[self.env]), self.env
        else:
            return default, self.argument
        return (default if value is None else value), origin


_OPERATOR_CHECKS = "operator checks"
_TRACED = f"`iron.build`, {_OPERATOR_CHECKS}"

#: Every option, in the order docs/reference.md lists them. Trace options are resolved in this order too
#: (``out_dir`` and ``size`` first: they decide whether the rest is read).
OPTIONS: tuple[Option, ...] = (
    Option(
        "size", "IRON_TRACE_SIZE", site_size, field="size", keyword="trace_size",
        cli=("iron demo --trace-size",), blank_is_unset=False,
        shown_default=f"0: untraced (`trace=True`: {DEFAULT_TRACE_SIZE})",
        applies=f"{_TRACED}, `iron demo`",
        doc=f"bytes of trace buffer **per traced call site**. A multiple of {TRACE_SIZE_QUANTUM} (one "
        f"packet), at most {MAX_TRACE_SIZE} (8 GiB - 32: the drain BD's length in words is an i32 in "
        "mlir-aie's `aiex.npu.writebd`) and at most this host's physical memory / "
        f"{HOST_BYTES_PER_TRACE_BYTE}; all call sites together must fit that host bound too, and every "
        "slice but the last must start below 2 GiB (a trace patch's `arg_plus` is an i32). Checked "
        "before anything is built",
    ),
    Option(
        "ntiles", "IRON_TRACE_NTILES", _ntiles, field="ntiles", keyword="ntiles", blank_is_unset=False,
        applies=f"{_TRACED}, `iron demo` (default 4 there)",
        doc="compute tiles traced per design (more than the design has: all, with a warning). Tiles whose "
        "trace cannot get past the design's circuit streams (every South port below them taken, as in "
        "whole-array GEMMs with 4 cores per column) are skipped with a warning; when no core can, its "
        "memtiles are traced (memtile events default to `PORT_RUNNING_0..7`)",
    ),
    Option(
        "events", "IRON_TRACE_EVENTS", _events, field="events", keyword="events", applies=_TRACED,
        shown_default="core: " + ", ".join(DEFAULT_CORE_EVENTS),
        doc="events per unit kind: `INSTR_EVENT_0,LOCK_STALL` (core) or "
        f"`core=...;mem=...;memtile=...;shim=...` (at most {SLOTS} each; `iron events KIND` lists the "
        "names)",
    ),
    Option(
        "select", "IRON_TRACE_OP", _select, field="select", keyword="select", applies=_TRACED,
        shown_default="all call sites",
        doc="call sites to trace: indices (`0,2`), `op<N>` / `op<N>_<Name>` (call site N, which must run "
        "`<Name>`), or operator class names (`gemm`). A selection naming no call site is an error for "
        "`iron.build` (`main`, the wrapper's device, has no units: see \"Foreign designs\"). In the "
        "traced test suite it applies to the operator checks that follow the environment: a check whose "
        "call sites it does not name runs untraced with an `UntracedWarning`; tests that build with "
        "explicit options do not inherit it",
    ),
    Option(
        "trace_mode", "IRON_TRACE_MODE", _trace_mode, field="core_mode", keyword="trace_mode",
        applies=_TRACED,
        doc="trace mode of **core** units: `event-time` (events with cycle counts) or `event-pc` "
        "(EVENT_PC, mode 1: which slots fired at which program counter, no cycles). Memory-module, "
        "memtile and shim units stay event-time (only the core has a mode field); recorded per unit in "
        "the manifest, part of the cache key. sim models both: in event-pc mode its cores report PCs in "
        "a synthetic code range per kernel (no ELF), entry at INSTR_EVENT_0 and exit at INSTR_EVENT_1",
    ),
    Option(
        "out_dir", "IRON_TRACE_DIR", _path, field="out_dir", cli=("iron demo --out",),
        shown_default=f"`./{DEFAULT_OUT_DIR}`", applies=f"{_OPERATOR_CHECKS}, `iron demo`",
        doc="where tests and `iron demo` write decoded traces",
    ),
    Option(
        "sizes", "IRON_TRACE_SIZES", _sizes, field="sizes", keyword="trace_sizes", applies=_TRACED,
        shown_default="none",
        doc="per call-site bytes, `0:4096,2:8192` (0: that site untraced; the keyword also takes "
        "`{0: 4096}`). A site's size comes from, first to last: `trace_sizes`/`IRON_TRACE_SIZES`, the "
        "step's own `iron.Step(op, *buffers, trace_size=N)`, a foreign design's "
        "`aie.trace.host_config` `buffer_size`, then `IRON_TRACE_SIZE`. Slices stay contiguous in "
        "program order, each its own size",
    ),
    Option(
        "start", "IRON_TRACE_START", _boundary, field="start", keyword="trace_start", applies=_TRACED,
        shown_default=f"`{DEFAULT_START}`",
        doc="when units start, in the forms of mlir-aie's `aie.trace.start`: `broadcast=N` (the default "
        "is raised by the drain shim at the start of each traced call), `TRUE` (start at once; iron "
        "writes Trace_Control0 last), `NONE` (never), `USER_EVENT_<n>` (iron raises it with "
        "Event_Generate on every traced module at the start of the call). Other events are refused: "
        "nothing in iron raises them",
    ),
    Option(
        "stop", "IRON_TRACE_STOP", _boundary, field="stop", keyword="trace_stop", applies=_TRACED,
        shown_default=f"`{DEFAULT_STOP}`",
        doc="when units stop, in the forms of `aie.trace.stop`: `broadcast=N` (the default is raised by "
        "the drain shim at the end of each traced call), `NONE` (never; sim hands the unit's packets "
        "over when the device is reconfigured or the kernel ends), `USER_EVENT_<n>` (raised at the end "
        "of the call). Not `TRUE`, nor the start's own setting",
    ),
    Option(
        "units", "IRON_TRACE_UNITS", _units, field="units", keyword="trace_units", applies=_TRACED,
        shown_default="the first `IRON_TRACE_NTILES` compute tiles",
        doc="units at chosen tiles: `core(0,2),mem(0,2),memtile(0,1),shim(0,0)` (design-relative "
        "columns; each kind listed needs events in `IRON_TRACE_EVENTS`; a unit whose trace cannot reach a "
        "shim past the design's circuit streams is refused)",
    ),
    Option(
        "ports", "IRON_TRACE_PORTS", _ports, field="ports", keyword="trace_ports", applies=_TRACED,
        shown_default="core: DMA 0 S2MM, DMA 0 MM2S, DMA 1 S2MM, DMA 1 MM2S, ...; memtile: DMA n//2; "
        "shim: none (`DEFAULT_PORTS`)",
        doc="stream-switch port each `PORT_*_<n>` event slot watches, as mlir-aie's `aie.trace.port<n> "
        "port = North channel = 1 direction = S2MM`: `core=0:North:1:S2MM,1:DMA:0:MM2S;"
        "memtile=0:DMA:2:S2MM;shim=0:South:3:MM2S` (no `kind=`: core; direction `S2MM`/`master` or "
        "`MM2S`/`slave`; bundles DMA, North, South, East, West, Core, Ctrl, FIFO, Trace where the tile "
        "kind has them, checked against the one port table `iron/target/stream_switch.py` from "
        "mlir-aie's `AIETargetModel.cpp`). Slots not named watch the defaults. Each unit's watched ports "
        "are in the manifest (`ports`)",
    ),
    Option(
        "cache_dir", "IRON_CACHE_DIR", _path, keyword="cache_dir", default=Path("build") / "iron-cache",
        cli=("iron cache list --cache-dir", "iron cache clear --cache-dir"),
        shown_default="`./build/iron-cache`", applies="`iron.build`, `iron cache`", doc="build cache",
    ),
    Option(
        "sources", "IRON_DEBUG_SOURCES", _flag, keyword="sources", default=False, shown_default="0",
        applies="`iron.build`",
        doc="`1`: embed the design sources (and aiecc's core ELFs) in artifacts (and so in captures)",
    ),
    Option(
        "backend", "IRON_BACKEND", _one_of(BACKENDS), keyword="backend", default="auto",
        applies=f"`iron.build`, `iron.machine`; in the test suite the {_OPERATOR_CHECKS} only",
        doc="`auto`, `builtin` (iron's lowering; sim runs it) or `aiecc` (mlir-aie's toolchain; an NPU "
        "runs it); part of the cache key",
    ),
    Option(
        "device", "IRON_DEVICE", _one_of(DEVICES), default="auto", cli=("iron demo --device",),
        applies=f"`art.load(device)`, `iron.machine`; in the test suite the {_OPERATOR_CHECKS} only",
        doc="`auto`, `sim` or `xrt`; `xrt` without an NPU is one error",
    ),
    Option(
        "test_machine", "IRON_TEST_MACHINE", None, default="none", applies="the test suite; `.ci/run`",
        doc="tests only: `none` (what is installed), `toolchain` (a fake mlir-aie on PATH), `npu` (that "
        "plus a fake NPU behind `pyxrt`, iron's sim executing what XRT is handed); `.ci/run` runs the "
        "suite on each",
    ),
    Option(
        "mlir_aie_dir", "MLIR_AIE_INSTALL_DIR", _install_dir, default=None,
        shown_default="the folder above `bin/aiecc`", applies="aiecc builds",
        doc="mlir-aie's install folder (mlir-aie's own variable)",
    ),
    Option(
        "peano_dir", "PEANO_INSTALL_DIR", _install_dir, default=None,
        shown_default="where aiecc looks", applies="aiecc builds",
        doc="Peano (llvm-aie)'s install folder (mlir-aie's own variable)",
    ),
)  # fmt: skip


def option(name: str) -> Option:
    """The row of :data:`OPTIONS` named ``name``."""
    return next(o for o in OPTIONS if o.name == name)


#: Options :func:`resolve` reads, by name (the rows that fill a TraceOptions field).
TRACE_OPTIONS = {o.name: o for o in OPTIONS if o.field is not None}


# --------------------------------------------------------------------------- resolving
def resolve(
    trace: bool | None = None, *, env: Mapping[str, str] | None = None, default_ntiles: int = 1, **given
) -> TraceOptions:
    """Build :class:`TraceOptions` from explicit arguments and the environment.

    ``given``: values of the trace options by name (``size``, ``ntiles``, ``events``,
    ``select``, ``trace_mode``, ``out_dir``, ``sizes``, ``start``, ``stop``, ``units``,
    ``ports``; :data:`OPTIONS` gives each one's variable and forms). ``trace=None`` follows
    ``IRON_TRACE_SIZE`` (unset or 0: untraced); ``trace=False`` is untraced whatever the
    environment says; ``trace=True`` traces with ``size``, else ``IRON_TRACE_SIZE``, else
    :data:`DEFAULT_TRACE_SIZE`. ``default_ntiles`` applies when neither ``ntiles`` nor
    ``IRON_TRACE_NTILES`` is given. Forms: ``sizes`` ``{0: 4096}`` or ``"0:4096,2:8192"``;
    ``start``/``stop`` ``"broadcast=N"``, ``"TRUE"``, ``"NONE"``, ``"USER_EVENT_<n>"``
    (``event=<"NAME">`` is read too); ``units`` ``"core(0,2),shim(0,0)"`` or ``[("core", 0,
    2)]``; ``ports`` ``"core=0:North:1:S2MM;memtile=0:DMA:2:S2MM"`` or ``{"core": {0:
    ("North", 1, "S2MM")}}`` (S2MM = the master port, MM2S = the slave).
    """
    env = os.environ if env is None else env
    unknown = sorted(set(given) - set(TRACE_OPTIONS))
    if unknown:
        raise TypeError(
            f"resolve() got unknown option(s) {', '.join(unknown)}; options: {', '.join(TRACE_OPTIONS)}"
        )
    if trace is not None and not isinstance(trace, bool):
        raise OptionError(f"trace={trace!r}: expected True, False or None")
    out_dir, out_origin = TRACE_OPTIONS["out_dir"].pick(given.get("out_dir"), env)
    _check_directory(out_origin, out_dir)
    if trace is False:
        return TraceOptions(out_dir=out_dir)
    size, size_origin = TRACE_OPTIONS["size"].pick(given.get("size"), env)
    size = size or (DEFAULT_TRACE_SIZE if trace else 0)
    if size == 0:
        return TraceOptions(out_dir=out_dir)
    picked = {"out_dir": (out_dir, out_origin), "size": (size, size_origin)}
    defaults = {"ntiles": _int("default_ntiles", default_ntiles, minimum=1)}
    for name, row in TRACE_OPTIONS.items():
        if name not in picked:
            picked[name] = row.pick(given.get(name), env, defaults.get(name, _UNSET))
    rows = [(TRACE_OPTIONS[name], value, origin) for name, (value, origin) in picked.items()]
    fields = {row.field: value for row, value, _origin in rows}
    # Only what came from the environment: the rest is named by its keyword (TraceOptions.origin).
    origins = tuple(sorted((row.field, origin) for row, _value, origin in rows if origin == row.env))
    options = TraceOptions(**fields, origins=origins)
    _check_together(options)
    return options


def from_build_kwargs(
    trace: bool | None = None, *, env: Mapping[str, str] | None = None, **keywords
) -> TraceOptions:
    """The :class:`TraceOptions` of :func:`iron.build`'s trace keywords and the environment.

    The keywords are the ``keyword`` of each trace option in :data:`OPTIONS`
    (``trace_size`` is :func:`resolve`'s ``size``, ``trace_sizes`` its ``sizes`` ...);
    :func:`resolve` documents their forms and precedence.
    """
    by_keyword = {row.keyword: name for name, row in TRACE_OPTIONS.items() if row.keyword}
    unknown = sorted(set(keywords) - set(by_keyword))
    if unknown:
        raise TypeError(f"unknown build keyword(s) {', '.join(unknown)}; accepted: {', '.join(by_keyword)}")
    return resolve(trace, env=env, **{by_keyword[k]: v for k, v in keywords.items()})


def cache_dir(explicit: str | os.PathLike | None = None, env=None) -> Path:
    """Build cache directory: explicit, else ``IRON_CACHE_DIR``, else ``./build/iron-cache``."""
    path, origin = option("cache_dir").pick(explicit, os.environ if env is None else env)
    _check_directory(origin, path)
    return path


def debug_sources(explicit: bool | None = None, env=None) -> bool:
    """Embed design sources in artifacts: explicit, else ``IRON_DEBUG_SOURCES`` (0/1)."""
    return option("sources").pick(explicit, os.environ if env is None else env)[0]


def toolchain_dirs(env=None) -> dict[str, Path | None]:
    """Install folders named by mlir-aie's own variables (``PEANO_INSTALL_DIR`` for the
    llvm-aie compiler, ``MLIR_AIE_INSTALL_DIR`` for mlir-aie); None where unset."""
    env = os.environ if env is None else env
    return {row.env: row.pick(None, env)[0] for row in map(option, ("peano_dir", "mlir_aie_dir"))}


def backend_choice(explicit: str | None = None, env=None) -> str:
    """Build back end asked for: explicit ``backend=``, else ``IRON_BACKEND``, else ``auto``
    (which one ``auto`` means: :func:`iron.machine`)."""
    return option("backend").pick(explicit, os.environ if env is None else env)[0]


def device_choice(explicit: str | None = None, env=None) -> str:
    """Device asked for: explicit ``device=``, else ``IRON_DEVICE``, else ``auto``."""
    return option("device").pick(explicit, os.environ if env is None else env)[0]


# --------------------------------------------------------------------------- the options table (docs/reference.md)
def markdown_table() -> str:
    """docs/reference.md's options table (section "Options"), rendered from :data:`OPTIONS`."""

    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    rows = [
        "| variable | `iron.build` keyword | command line | default | meaning | applies to |",
        "|---|---|---|---|---|---|",
    ]
    for o in OPTIONS:
        keyword = f"`{o.keyword}`" if o.keyword else ""
        default = o.shown_default or f"`{o.default}`"
        flags = ", ".join(f"`{flag}`" for flag in o.cli)
        rows.append(
            f"| `{o.env}` | {keyword} | {cell(flags)} | {cell(default)} | {cell(o.doc)} | {o.applies} |"
        )
    return "\n".join(rows) + "\n"
