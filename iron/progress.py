"""A tiny status line for long work, on stderr.

Quiet work stays quiet: nothing is printed unless the work takes longer than
``delay`` seconds. Then one ``iron: <message> ...`` line appears (updated in
place with each :meth:`Status.step` when stderr is a terminal) and a final
``done in N s`` (or ``failed``) closes it.
"""

from __future__ import annotations

import sys
import threading
import time
from contextlib import contextmanager

DEFAULT_DELAY = 0.5


class Status:
    """Handle yielded by :func:`status`; call :meth:`step` to say what runs now."""

    def __init__(self, message: str, stream, delay: float):
        self.message = message
        self.stream = stream
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self.detail = ""
        self.shown = False
        self._lock = threading.Lock()
        self._timer = threading.Timer(delay, self._show)
        self._timer.daemon = True
        self._start = time.perf_counter()

    def step(self, detail: str) -> None:
        with self._lock:
            self.detail = detail
            if self.shown and self.tty:
                self._write(f"\r\033[Kiron: {self.message}: {detail} ...")

    def _show(self) -> None:
        with self._lock:
            self.shown = True
            detail = f": {self.detail}" if self.detail and self.tty else ""
            self._write(f"iron: {self.message}{detail} ...")

    def _finish(self, ok: bool) -> None:
        self._timer.cancel()
        with self._lock:
            if not self.shown:
                return
            elapsed = time.perf_counter() - self._start
            end = f"done in {elapsed:.1f} s" if ok else "failed"
            prefix = f"\r\033[Kiron: {self.message}: " if self.tty else " "
            self._write(f"{prefix}{end}\n")

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # closed or broken stderr: progress is best effort
            pass


@contextmanager
def status(message: str, *, stream=None, delay: float = DEFAULT_DELAY):
    """Show ``message`` on stderr if the block runs longer than ``delay`` seconds."""
    st = Status(message, stream if stream is not None else sys.stderr, delay)
    st._timer.start()
    ok = False
    try:
        yield st
        ok = True
    finally:
        st._finish(ok)
