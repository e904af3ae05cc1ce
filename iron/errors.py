"""Errors iron raises for bad input, bad data and unavailable backends."""


class IronError(Exception):
    """Base class for iron's user-facing errors."""


class OptionError(IronError, ValueError):
    """A trace option or IRON_* environment variable has an invalid value."""
