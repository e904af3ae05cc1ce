"""A plain record class for the decoder's result types.

Each ``@dataclass`` costs every decode's import ~0.5 ms (it compiles its methods from
source at class creation; issue 37), the 8 KB captures most users decode included. The
decoder's records are therefore plain classes with a hand-written ``__init__`` and this
base's ``repr`` and ``==``, which are a dataclass's: over the fields in order, equal only
to an object of the same class.
"""

from __future__ import annotations


class Record:
    """Base of a plain record: the fields are the class's annotated names, in order (``repr``
    and ``==`` use them: ``_fields``), ``_hidden`` those a ``repr`` leaves out."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()
    _hidden: frozenset[str] = frozenset()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._fields = tuple(n for n in cls.__dict__.get("__annotations__", {}) if not n.startswith("_"))

    def __repr__(self) -> str:
        shown = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._fields if n not in self._hidden)
        return f"{type(self).__qualname__}({shown})"

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return tuple(getattr(self, n) for n in self._fields) == tuple(
            getattr(other, n) for n in other._fields
        )

    __hash__ = None  # mutable, as a dataclass with ``eq`` and not ``frozen``
