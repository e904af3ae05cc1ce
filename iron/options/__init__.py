"""Options: the one place that declares, reads and validates every ``IRON_*`` variable.

A package by concern, its public names all importable from ``iron.options``:

* :mod:`~iron.options.defaults`: what a build gets when nothing is said (names from
  :mod:`iron.target`);
* :mod:`~iron.options.sizes`: trace sizes and their parsers;
* :mod:`~iron.options.items`: what the parsers share (integers, list items, one error style);
* :mod:`~iron.options.parsers`: the parser of every other form;
* :mod:`~iron.options.table`: :data:`OPTIONS`, the option table, and docs/reference.md's table;
* :mod:`~iron.options.values`: :class:`TraceOptions`;
* :mod:`~iron.options.resolving`: arguments and environment -> values.

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
argument), the value and what is accepted; in a list (``IRON_TRACE_SIZES``,
``IRON_TRACE_EVENTS``, ``IRON_TRACE_OP``, ``IRON_TRACE_UNITS``, ``IRON_TRACE_PORTS``) an
empty item (``a,,b``, a trailing ``,``) is refused too.
"""

from iron.options.defaults import (
    BACKENDS,
    CORE_TRACE_MODES,
    DEFAULT_CORE_EVENTS,
    DEFAULT_MEMTILE_EVENTS,
    DEFAULT_OUT_DIR,
    DEFAULT_START,
    DEFAULT_STOP,
    DEVICES,
    UNIT_KINDS,
)
from iron.options.resolving import (
    backend_choice,
    cache_dir,
    debug_sources,
    device_choice,
    from_build_kwargs,
    resolve,
    toolchain_dirs,
)
from iron.options.sizes import (
    DEFAULT_TRACE_SIZE,
    HOST_BYTES_PER_TRACE_BYTE,
    MAX_TRACE_SIZE,
    TRACE_SIZE_QUANTUM,
    host_trace_limit,
    site_size,
)
from iron.options.table import OPTIONS, TRACE_OPTIONS, Option, markdown_table, option
from iron.options.values import TraceOptions

__all__ = [
    "BACKENDS",
    "CORE_TRACE_MODES",
    "DEFAULT_CORE_EVENTS",
    "DEFAULT_MEMTILE_EVENTS",
    "DEFAULT_OUT_DIR",
    "DEFAULT_START",
    "DEFAULT_STOP",
    "DEFAULT_TRACE_SIZE",
    "DEVICES",
    "HOST_BYTES_PER_TRACE_BYTE",
    "MAX_TRACE_SIZE",
    "OPTIONS",
    "Option",
    "TRACE_OPTIONS",
    "TRACE_SIZE_QUANTUM",
    "TraceOptions",
    "UNIT_KINDS",
    "backend_choice",
    "cache_dir",
    "debug_sources",
    "device_choice",
    "from_build_kwargs",
    "host_trace_limit",
    "markdown_table",
    "option",
    "resolve",
    "site_size",
    "toolchain_dirs",
]
