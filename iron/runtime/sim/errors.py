"""The error sim raises when a control stream would misbehave on hardware."""

from __future__ import annotations

from iron.errors import IronError


class SimError(IronError):
    """The control stream does something the hardware would punish.

    Examples: a DDR patch naming an unbound argument, a BD that reaches outside
    its host buffer, a SYNC that can never complete (the device would hang).
    """
