"""Work ahead on a second core: an iterator's items made on a thread while the caller uses the last ones.

The streamed writers alternate two kinds of compiled work that release the GIL:
making a track's intervals or events (passes over a unit's ops) and rendering
them to bytes (itself two threads for big chunks:
:func:`iron.trace.export.textout.render_parts`). :func:`ahead` runs the first on a
thread, a few items ahead, so the two overlap on a 2-core machine; the output is the
same, item for item.
"""

from __future__ import annotations

import queue
import threading

_DONE = object()


def reuse_after(depth: int) -> int:
    """How many items later :func:`ahead` ``(items, depth)`` lets ``items`` overwrite
    an item's buffers: up to ``depth`` queued, one in the caller's hands, one being made."""
    return depth + 2


def ahead(items, depth: int = 4):
    """Iterate ``items`` on a thread, at most ``depth`` items ahead of the caller,
    and yield them in order. An exception raised while making an item is
    raised here; closing this generator early stops the thread (after the item
    it is making). Each item must not be changed by the thread once yielded:
    fresh arrays, or views into buffers that ``items`` reuses only
    :func:`reuse_after` ``(depth)`` items later."""
    q: queue.Queue = queue.Queue(depth)
    stop = threading.Event()

    def put(entry) -> bool:
        while not stop.is_set():
            try:
                q.put(entry, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def make() -> None:
        try:
            for item in items:
                if not put((None, item)):
                    return
            put((_DONE, None))
        except BaseException as exc:  # raised in the caller's thread
            put((exc, None))

    thread = threading.Thread(target=make, name="iron-ahead", daemon=True)
    thread.start()
    try:
        while True:
            err, item = q.get()
            if err is _DONE:
                return
            if err is not None:
                raise err
            yield item
    finally:
        stop.set()
        thread.join()
