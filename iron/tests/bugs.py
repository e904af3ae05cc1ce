"""Negative controls: reproduce a fixed bug on purpose, to show that a test catches it.

The switches are private hooks of the library, not keywords of its public API:

* ``"own-arg-patch"``: callee trace patches are not translated to the caller's buffers
  (``iron.builder.build._EMULATED_BUG``, read by the lowering step of ``build``, which
  owns the names: ``iron.builder.build.EMULATED_BUGS``);
* ``"stale-trace-task"``: no reconfiguration between consecutive traced calls of one
  device (``iron.fuse.fusion._RESET_BETWEEN_SAME_DEVICE``).

Both set the build hook, which enters the cache key: a bug-reproducing build never
shares a cache entry with a correct one, while correct builds keep their keys.

    with emulated_bug("own-arg-patch"):
        art = iron.build(seq, trace=True, cache_dir=cache)
"""

from __future__ import annotations

import contextlib

from iron.builder import build as build_mod
from iron.fuse import fusion

BUGS = build_mod.EMULATED_BUGS


@contextlib.contextmanager
def emulated_bug(name: str | None):
    """Builds (and fusions) inside the block reproduce bug ``name`` (None: none)."""
    if name is not None and name not in BUGS:
        raise ValueError(f"emulated_bug({name!r}): accepted: {', '.join(BUGS)}")
    saved = build_mod._EMULATED_BUG, fusion._RESET_BETWEEN_SAME_DEVICE
    build_mod._EMULATED_BUG = name
    fusion._RESET_BETWEEN_SAME_DEVICE = name != build_mod.STALE_TRACE_TASK
    try:
        yield
    finally:
        build_mod._EMULATED_BUG, fusion._RESET_BETWEEN_SAME_DEVICE = saved


def build_with_bug(name: str | None, op_or_sequence, **kwargs):
    """``iron.build(op_or_sequence, **kwargs)`` reproducing bug ``name``."""
    import iron

    with emulated_bug(name):
        return iron.build(op_or_sequence, **kwargs)
