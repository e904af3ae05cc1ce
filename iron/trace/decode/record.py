"""The decoder's result types are plain records (:class:`iron.record.Record`): each
``@dataclass`` cost every decode's import ~0.5 ms (issue 37), the 8 KB captures most users
decode included. They write their own ``__init__`` (a record per unit, made often)."""

from __future__ import annotations

from iron.record import Record  # noqa: F401
