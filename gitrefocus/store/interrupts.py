"""Ctrl-C without half-written state (docs/ARCHITECTURE.md, "Writes: order and crash safety").

The CLI turns SIGINT into :class:`~gitrefocus.errors.Interrupted` (one line,
exit 130). A write that touches two repositories runs inside :func:`deferred`:
a SIGINT that arrives meanwhile is held until the block ends, so the
refocus is either not written at all or written in full, and the user is told which.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

from gitrefocus.errors import Interrupted


def raise_interrupted(signum: int = signal.SIGINT, frame: object = None) -> None:
    """The SIGINT handler of the CLI."""
    raise Interrupted("interrupted; nothing further was written (run `git refocus doctor` to check).")


def install() -> None:
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, raise_interrupted)


@contextlib.contextmanager
def deferred(done: str) -> Iterator[None]:
    """Hold SIGINT until the block ends; then raise Interrupted saying ``done``
    (what the block finished) instead of stopping halfway."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught and previous not in (signal.SIG_IGN,):
        raise Interrupted(f"interrupted after {done}; it was finished first, so nothing is half-written.")
