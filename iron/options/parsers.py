"""The parsers of the options' values, one per form; :data:`iron.options.table.OPTIONS`
names which option uses which.

Each is ``parse(name, value) -> canonical value`` (None: use the default) and raises
:class:`~iron.errors.OptionError` naming ``name`` (the variable or keyword), the value
and what is accepted. The list forms split their text with
:func:`iron.options.items.split_items`; sizes are :mod:`iron.options.sizes`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Mapping

from iron import limits
from iron.errors import IronError, OptionError
from iron.options.defaults import CORE_TRACE_MODES, UNIT_KINDS
from iron.options.items import as_index, integer, refuse, split_items
from iron.target import events as event_tables
from iron.target import stream_switch
from iron.target.geometry import MEMTILE_ROW, SHIM_ROW
from iron.target.registers import BROADCAST_CHANNELS
from iron.target.trace_unit import SLOTS

# --------------------------------------------------------------------------- start and stop
_BOUNDARY = re.compile(r'^(?:(broadcast)\s*=\s*(\d+)|(?:event\s*=\s*)?<?\s*"?(\w+)"?\s*>?)$')


def parse_boundary(name: str, value) -> str:
    """Canonical ``broadcast=N`` / ``event=NAME`` of one start or stop setting."""
    accepted = f"broadcast=N (N in 0..{BROADCAST_CHANNELS - 1}), TRUE, NONE or USER_EVENT_<n>"
    m = _BOUNDARY.match(str(value).strip()) if isinstance(value, str) else None
    if m is None:
        raise refuse(name, value, "cannot read it", accepted)
    if m.group(1):
        n = integer(name, m.group(2), minimum=0)
        if n >= BROADCAST_CHANNELS:
            raise refuse(name, value, f"broadcast {n} out of range", accepted)
        return f"broadcast={n}"
    event = m.group(3).upper()
    if event not in ("TRUE", "NONE") and not re.fullmatch(r"USER_EVENT_\d+", event):
        raise refuse(name, value, f"event {event} is not one iron can raise", accepted)
    return f"event={event}"


# --------------------------------------------------------------------------- units
_UNIT = re.compile(r"(\w+)\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)")
#: Where each kind of unit sits (iron.target.geometry), for the error.
_ROWS = {"core": "rows >= 2", "mem": "rows >= 2", "memtile": f"row {MEMTILE_ROW}", "shim": f"row {SHIM_ROW}"}


def _unit_row_ok(kind: str, row: int) -> bool:
    if kind == "shim":
        return row == SHIM_ROW
    return row == MEMTILE_ROW if kind == "memtile" else row > MEMTILE_ROW


def parse_units(name: str, value) -> tuple[tuple[str, int, int], ...]:
    """Explicit trace units ``((kind, column, row), ...)`` from ``"core(0,2),shim(0,0)"``
    or ``[("core", 0, 2)]``, each at a tile of its kind."""
    accepted = "kind(column,row) items, e.g. core(0,2),mem(0,2),memtile(0,1),shim(0,0)"
    if isinstance(value, str):
        items = []
        for item in split_items(name, value, accepted):
            m = _UNIT.fullmatch(item)
            if m is None:
                raise refuse(name, value, f"cannot read {item!r}", accepted)
            items.append((m.group(1), integer(name, m.group(2), 0), integer(name, m.group(3), 0)))
    else:
        try:
            low = -(1 << 31)
            items = [(str(k), integer(name, c, low), integer(name, r, low)) for k, c, r in value]
        except (TypeError, ValueError):
            raise refuse(name, value, None, accepted) from None
    out = []
    for kind, col, row in items:
        if kind not in UNIT_KINDS:
            raise refuse(name, value, f"unit kind {kind!r}", ", ".join(UNIT_KINDS))
        if not _unit_row_ok(kind, row) or col < 0:
            raise refuse(name, value, f"{kind}({col},{row}): {kind} units sit at {_ROWS[kind]}")
        if (kind, col, row) in out:
            raise refuse(name, value, f"{kind}({col},{row}) listed twice")
        out.append((kind, col, row))
    if not out:
        raise refuse(name, value, "no units given", accepted)
    return tuple(out)


# --------------------------------------------------------------------------- ports
_PORT_ITEM = re.compile(r"(\d+)\s*:\s*(\w+)\s*:\s*(\d+)\s*:\s*(\w+)")
_DIRECTIONS = {"s2mm": True, "master": True, "mm2s": False, "slave": False}
PORTS_ACCEPTED = (
    "[kind=]slot:bundle:channel:direction items, e.g. core=0:North:1:S2MM,1:DMA:0:MM2S;"
    "memtile=0:DMA:2:S2MM (kinds: " + ", ".join(stream_switch.PORTS) + "; slots 0..7; "
    "direction S2MM/master or MM2S/slave)"
)


def _port_items(name: str, value) -> list[tuple]:
    """``(kind, slot, bundle, channel, direction)`` items of any accepted form, unchecked."""
    accepted = PORTS_ACCEPTED
    if isinstance(value, str):
        items = []
        for group in split_items(name, value, accepted, ";", "group"):
            kind, sep, rest = group.partition("=")
            kind, rest = (kind.strip(), rest) if sep else ("core", group)
            for part in split_items(name, value, accepted, what=f"{kind} port", text=rest):
                m = _PORT_ITEM.fullmatch(part)
                if m is None:
                    raise refuse(name, value, f"cannot read {part!r}", accepted)
                items.append((kind, *m.groups()))
        return items
    try:
        if isinstance(value, Mapping):
            return [(k, slot, *port) for k, slots in value.items() for slot, port in slots.items()]
        return [tuple(item) for item in value]
    except (AttributeError, TypeError):
        raise refuse(name, value, None, accepted) from None


def _port(name: str, value, item: tuple) -> tuple[str, int, str, int, bool]:
    """One port selection checked against :mod:`iron.target.stream_switch`."""
    accepted = PORTS_ACCEPTED
    if len(item) != 5:
        raise refuse(name, value, f"cannot read {item!r}", accepted)
    kind, slot, bundle, channel, direction = item
    if kind not in stream_switch.PORTS:
        raise refuse(name, value, f"unit kind {kind!r} has no port selection", accepted)
    n = integer(f"{name} slot", slot, minimum=0)
    if n >= stream_switch.EVENT_PORTS:
        raise refuse(name, value, f"slot {n} out of range", accepted)
    canon = stream_switch.bundle_name(str(bundle))
    master = _DIRECTIONS.get(str(direction).strip().lower())
    if canon is None or master is None:
        raise refuse(name, value, f"cannot read {bundle}:{channel}:{direction}", accepted)
    ch = integer(f"{name} channel", channel, minimum=0)
    try:
        stream_switch.port_index(kind, canon, ch, master)
    except IronError as exc:
        raise refuse(name, value, str(exc)) from None
    return kind, n, canon, ch, master


def parse_ports(name: str, value) -> tuple[tuple[str, int, str, int, bool], ...]:
    """Canonical port selections ``((kind, slot, bundle, channel, master), ...)``, sorted;
    each port is checked against :mod:`iron.target.stream_switch` for its tile kind."""
    out: dict[tuple[str, int], tuple[str, int, bool]] = {}
    for item in _port_items(name, value):
        kind, n, *port = _port(name, value, item)
        if (kind, n) in out:
            raise refuse(name, value, f"{kind} slot {n} given twice")
        out[kind, n] = tuple(port)
    if not out:
        raise refuse(name, value, "no ports given", PORTS_ACCEPTED)
    return tuple((k, n, *port) for (k, n), port in sorted(out.items()))


# --------------------------------------------------------------------------- events
EVENTS_ACCEPTED = (
    f"event names, A,B (core) or kind=A,B;kind=C (kinds: {', '.join(UNIT_KINDS)}; at most {SLOTS} "
    "each; `iron events KIND` lists the names)"
)


def _event_groups(name: str, value) -> dict[str, list]:
    """Unit kind -> the event names given for it, unchecked."""
    if isinstance(value, str):
        groups: dict[str, list] = {}
        for group in split_items(name, value, EVENTS_ACCEPTED, ";", "group"):
            kind, sep, names = group.partition("=")
            kind, names = (kind.strip(), names) if sep else ("core", group)
            found = split_items(name, value, EVENTS_ACCEPTED, what=f"{kind} event name", text=names)
            groups.setdefault(kind, []).extend(found)
        return groups
    if isinstance(value, Mapping):
        for k, v in value.items():
            if not isinstance(k, str) or isinstance(v, (str, bytes)) or not isinstance(v, (list, tuple)):
                raise OptionError(f"{name}={value!r}: expected {{kind: [event names]}}; see `iron events`")
        return {k: list(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return {"core": list(value)}
    raise OptionError(
        f"{name}={value!r}: expected event names (a list, or 'A,B' / 'core=A;mem=B'), "
        "or {kind: [names]}; see `iron events`"
    )


def parse_events(name: str, value) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Events per unit kind ``((kind, names), ...)`` in :data:`UNIT_KINDS` order, each name
    in the kind's table (:mod:`iron.target.events`), at most :data:`SLOTS` per kind."""
    groups = _event_groups(name, value)
    for kind, names in groups.items():
        if not all(isinstance(n, str) for n in names):
            raise OptionError(
                f"{name}={value!r}: event names for {kind} must be strings; see `iron events {kind}`"
            )
    unknown_kinds = [kind for kind in groups if kind not in UNIT_KINDS]
    if unknown_kinds:
        raise refuse(name, value, f"unknown unit kind(s) {', '.join(unknown_kinds)}", ", ".join(UNIT_KINDS))
    result = []
    for kind in (k for k in UNIT_KINDS if k in groups):
        names = groups[kind]
        if not names or any(not n for n in names):
            raise refuse(name, value, f"empty event name for {kind}", EVENTS_ACCEPTED)
        if len(names) > SLOTS:
            raise refuse(name, value, f"{len(names)} events for {kind}; a trace unit has {SLOTS} slots")
        table = event_tables.event_table(kind)
        unknown = [n for n in names if n not in table]
        if unknown:
            raise refuse(
                name, value, f"unknown {kind} event(s) {', '.join(unknown)}; "
                f"see `iron events {kind}` for the accepted names",
            )  # fmt: skip
        result.append((kind, tuple(names)))
    if not result:
        raise refuse(name, value, "no events given", EVENTS_ACCEPTED)
    return tuple(result)


# --------------------------------------------------------------------------- call-site selection
_SELECT_ITEM = re.compile(r"(?:op)?(?P<index>\d+)(?:_(?P<op>\w*))?$|(?P<name>[A-Za-z_]\w*)$")
SELECT_ACCEPTED = "call-site indices (0, 2), op<N> or op<N>_<Name>, or operator names (gemm)"


def _select_item(name: str, value, item) -> int | str | tuple[int, str]:
    accepted = SELECT_ACCEPTED
    index = as_index(item)
    if index is not None:
        if index < 0:
            raise refuse(name, value, f"negative index {index}", accepted)
        return index
    if not isinstance(item, str):
        raise refuse(name, value, f"{item!r} is not a call site", accepted)
    text = item.strip()
    match = _SELECT_ITEM.match(text)
    if not text or not match:
        raise refuse(name, value, f"cannot read {text!r}", accepted)
    if match["index"] is None:
        return match["name"]
    if match["op"]:
        return integer(name, match["index"], 0), match["op"]  # op1_GEMM: checked against site 1
    return integer(name, match["index"], 0)


def parse_select(name: str, value) -> tuple[int | str | tuple[int, str], ...]:
    """Call sites to trace: indices (int), operator names (str) and ``(index, name)`` pairs."""
    if isinstance(value, str):
        items = split_items(name, value, SELECT_ACCEPTED)
        if not items:
            raise refuse(name, value, "no call sites given", SELECT_ACCEPTED)
    elif as_index(value) is not None:
        items = [value]  # select=0: one call site
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        raise refuse(name, value, "expected a list or a comma-separated string", SELECT_ACCEPTED)
    return tuple(_select_item(name, value, item) for item in items)


# --------------------------------------------------------------------------- one value
def parse_trace_mode(name: str, value) -> str:
    accepted = f"accepted: {' or '.join(CORE_TRACE_MODES)} (the mode of core units)"
    if not isinstance(value, str):
        raise OptionError(f"{name}={value!r}: not a mode name; {accepted}")
    key = value.strip().lower().replace("_", "-")
    if key not in CORE_TRACE_MODES:
        raise OptionError(f"{name}={value!r}: {accepted}")
    return key


def parse_ntiles(name: str, value) -> int:
    return integer(name, value, minimum=1)


def parse_path(name: str, value) -> Path | None:
    """A folder's path; None for an empty one (the default then applies)."""
    text = os.fspath(value) if isinstance(value, (str, os.PathLike)) else None
    if not isinstance(text, str):
        raise OptionError(f"{name}={value!r}: expected a path (str or os.PathLike)")
    return Path(text) if text else None


def check_directory(name: str, path: Path) -> None:
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


def parse_install_dir(name: str, value) -> Path:
    if not Path(value).is_dir():
        raise OptionError(f"{name}={value!r}: not a directory")
    return Path(value)


_FALSE, _TRUE = ("0", "false", "no", "off"), ("1", "true", "yes", "on")


def parse_flag(name: str, value) -> bool:
    if isinstance(value, bool):
        return value
    text = value.strip().lower() if isinstance(value, str) else None
    if text in _FALSE or text in _TRUE:
        return text in _TRUE
    raise OptionError(f"{name}={value!r}: accepted: 0 or 1 (or True / False)")


def one_of(accepted: tuple[str, ...]):
    """Parser of a choice among ``accepted`` (case and spaces ignored)."""

    def parse(name: str, value) -> str:
        key = value.strip().lower() if isinstance(value, str) else value
        if key not in accepted:
            raise OptionError(f"{name}={value!r}; accepted: {', '.join(accepted)}")
        return key

    return parse
