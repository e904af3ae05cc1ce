"""Plain record classes: what ``@dataclass`` gave iron's small records, without its cost.

Importing ``dataclasses`` loads ``inspect`` (with ``ast``, ``dis``, ``tokenize``) and each
``@dataclass`` compiles its methods from source at class creation: together ~9 ms of the
~50 ms that decoding an 8 KB capture costs a whole process (issue 37), whose path holds the
trace manifest, the target tables and the decoder's records. A :class:`Record` keeps what
they use of a dataclass: the fields are the class's annotated names in order; a field's
default is its class attribute (:class:`Default` makes a new one per record, as a
``default_factory``); keyword and positional construction; ``repr`` and ``==`` over the
fields, equal only to a record of the same class; :meth:`Record.replace`; and, with
``frozen=True`` in the class statement, no assignment and a hash over the fields.
"""

from __future__ import annotations


class Default:
    """A field default made anew for each record (``Default(list)``: a new list), as a
    dataclass's ``field(default_factory=...)``."""

    __slots__ = ("make",)

    def __init__(self, make):
        self.make = make


class FrozenRecordError(AttributeError):
    """An assignment to a field of a frozen record (a dataclass's ``FrozenInstanceError``)."""


class Record:
    """Base of a plain record: the fields are the class's annotated names, in order (``repr``
    and ``==`` use them: ``_fields``), ``_hidden`` those a ``repr`` leaves out; ``_defaults``
    the fields' defaults (their class attributes). A subclass may write its own ``__init__``
    (the decoder's records do, for speed); this one takes the fields by position or keyword."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()
    _hidden: frozenset[str] = frozenset()
    _defaults: dict = {}

    def __init_subclass__(cls, frozen: bool = False, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._fields = tuple(n for n in cls.__dict__.get("__annotations__", {}) if not n.startswith("_"))
        cls._defaults = {n: cls.__dict__[n] for n in cls._fields if n in cls.__dict__}
        if frozen:
            cls.__setattr__ = cls.__delattr__ = _frozen
            cls.__hash__ = _hash

    def __init__(self, *args, **kwargs):
        name, fields = type(self).__name__, self._fields
        if len(args) > len(fields):
            raise TypeError(f"{name}() takes {len(fields)} positional arguments but {len(args)} were given")
        values = dict(zip(fields, args))
        for key, value in kwargs.items():
            if key not in fields:
                raise TypeError(f"{name}() got an unexpected keyword argument {key!r}")
            if key in values:
                raise TypeError(f"{name}() got multiple values for argument {key!r}")
            values[key] = value
        for field in fields:
            if field in values:
                value = values[field]
            elif field in self._defaults:
                value = self._defaults[field]
                value = value.make() if isinstance(value, Default) else value
            else:
                raise TypeError(f"{name}() missing required argument: {field!r}")
            object.__setattr__(self, field, value)  # frozen records too

    def replace(self, **changes):
        """A new record of this class with ``changes`` (``dataclasses.replace``)."""
        return type(self)(**{**{n: getattr(self, n) for n in self._fields}, **changes})

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


def _frozen(self, name, *value):
    raise FrozenRecordError(f"cannot assign to field {name!r} of a frozen {type(self).__name__}")


def _hash(self) -> int:
    return hash(tuple(getattr(self, n) for n in self._fields))
