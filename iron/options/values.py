"""The validated trace settings of one build (:class:`TraceOptions`); its field defaults
are the trace options' defaults in :data:`iron.options.table.OPTIONS`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from iron.options.defaults import DEFAULT_START, DEFAULT_STOP
from iron.options.table import OPTIONS
from iron.target.trace_modes import EVENT_TIME, mode_number

#: TraceOptions field -> its default, from the one table.
_DEFAULT = {row.field: row.default for row in OPTIONS if row.field is not None}


@dataclass(frozen=True)
class TraceOptions:
    """Validated trace settings for one build.

    ``size`` is per traced call site, so fusing never shrinks an operator's
    trace. ``events`` maps unit kind -> up to 8 event names; kinds other than
    ``core`` are traced only when listed. ``select`` is ``None`` (trace every
    call site) or a tuple of call-site indices (int), operator names (str) and
    ``(index, name)`` pairs (``op1_GEMM``: call site 1, which must run GEMM).
    ``core_mode`` is the trace mode of core units (``event-time`` or ``event-pc``).
    Each field's default is its option's in :data:`iron.options.table.OPTIONS`.
    """

    size: int = _DEFAULT["size"]
    ntiles: int = _DEFAULT["ntiles"]
    events: tuple[tuple[str, tuple[str, ...]], ...] = _DEFAULT["events"]
    select: tuple[int | str | tuple[int, str], ...] | None = _DEFAULT["select"]
    out_dir: Path = field(default=_DEFAULT["out_dir"], compare=False)
    core_mode: str = _DEFAULT["core_mode"]  # one of iron.options.defaults.CORE_TRACE_MODES

    def mode_for(self, kind: str) -> int:
        """Trace_Control0 mode (iron.target.trace_modes number) of units of ``kind``."""
        return mode_number(self.core_mode) if kind == "core" else EVENT_TIME

    #: per call-site sizes ``((index, bytes), ...)``, sorted; 0 leaves that site untraced
    sizes: tuple[tuple[int, int], ...] = _DEFAULT["sizes"]
    #: ``broadcast=N`` | ``event=TRUE`` | ``event=NONE`` | ``event=USER_EVENT_<n>`` (canonical)
    start: str = _DEFAULT["start"]
    stop: str = _DEFAULT["stop"]
    #: explicit units ``((kind, column, row), ...)``; None: the first ``ntiles`` compute tiles
    units: tuple[tuple[str, int, int], ...] | None = _DEFAULT["units"]
    #: explicit port selections ``((kind, slot, bundle, channel, master), ...)``, sorted;
    #: slots not listed watch :data:`iron.target.stream_switch.DEFAULT_PORTS`
    ports: tuple[tuple[str, int, str, int, bool], ...] = _DEFAULT["ports"]

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
