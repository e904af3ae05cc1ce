"""Reading the options: explicit arguments and the environment -> values.

:func:`resolve` and :func:`from_build_kwargs` give a build's
:class:`~iron.options.values.TraceOptions` (and check the rules between its options:
:func:`check_together`); :func:`cache_dir`, :func:`debug_sources`,
:func:`backend_choice`, :func:`device_choice` and :func:`toolchain_dirs` read one
option each. Every row they read is in :data:`iron.options.table.OPTIONS`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping

from iron.errors import OptionError
from iron.options.items import integer
from iron.options.parsers import check_directory
from iron.options.sizes import DEFAULT_TRACE_SIZE
from iron.options.table import TRACE_OPTIONS, UNSET, option
from iron.options.values import TraceOptions
from iron.target import events as event_tables


def check_together(options: TraceOptions) -> None:
    """The rules between options: start and stop can both happen, a user event they name
    exists on every traced kind, and every kind given units or ports has events."""
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
    check_directory(out_origin, out_dir)
    if trace is False:
        return TraceOptions(out_dir=out_dir)
    size, size_origin = TRACE_OPTIONS["size"].pick(given.get("size"), env)
    size = size or (DEFAULT_TRACE_SIZE if trace else 0)
    if size == 0:
        return TraceOptions(out_dir=out_dir)
    picked = {"out_dir": (out_dir, out_origin), "size": (size, size_origin)}
    defaults = {"ntiles": integer("default_ntiles", default_ntiles, minimum=1)}
    for name, row in TRACE_OPTIONS.items():
        if name not in picked:
            picked[name] = row.pick(given.get(name), env, defaults.get(name, UNSET))
    rows = [(TRACE_OPTIONS[name], value, origin) for name, (value, origin) in picked.items()]
    fields = {row.field: value for row, value, _origin in rows}
    # Only what came from the environment: the rest is named by its keyword (TraceOptions.origin).
    origins = tuple(sorted((row.field, origin) for row, _value, origin in rows if origin == row.env))
    options = TraceOptions(**fields, origins=origins)
    check_together(options)
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
    check_directory(origin, path)
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
