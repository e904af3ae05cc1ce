"""The decoder's result types are plain records (:class:`iron.record.Record`): each
``@dataclass`` cost every decode's import ~0.5 ms (issue 37), the 8 KB captures most users
decode included. Those made per chunk of a unit (ops, runs, packets) write their own
``__init__``; those made once per unit or slice take the record's, with defaults."""

from __future__ import annotations

from iron.record import Default, Record  # noqa: F401
