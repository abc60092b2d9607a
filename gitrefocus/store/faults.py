"""Crash and fault points for tests: a test chooses exactly where a writer dies
or fails instead of sleeping and hoping.

Every durable step a command takes (a file renamed into place, a ref moved, a
file removed, a git process started) calls :func:`point` just before it, and
:func:`wrote` just after it when it made something durable.

``GIT_REFOCUS_KILL_AFTER_WRITES=N`` SIGKILLs the process right after its Nth
durable write; ``GIT_REFOCUS_KILL_AT=N`` at its Nth point, before or after a
step; ``GIT_REFOCUS_FAIL_AT=N:ERRNO`` makes the step at the Nth point fail with
that errno (``ENOSPC``, ``EROFS``, ...) as a full or read-only disk would;
``GIT_REFOCUS_FAULT_LOG=PATH`` appends each point to PATH as it is reached.
Unset, a point costs one environment lookup.

:func:`writes` says how many durable writes this process made, so an error can
say whether anything was changed before it.
"""

from __future__ import annotations

import os
import signal

ENV = "GIT_REFOCUS_KILL_AFTER_WRITES"
KILL_AT = "GIT_REFOCUS_KILL_AT"
FAIL_AT = "GIT_REFOCUS_FAIL_AT"
LOG = "GIT_REFOCUS_FAULT_LOG"
_writes = 0
_points = 0
_armed: bool | None = None  # any of the variables set (looked up once)


def _on() -> bool:
    global _armed
    if _armed is None:
        _armed = any(os.environ.get(name) for name in (ENV, KILL_AT, FAIL_AT, LOG))
    return _armed


def writes() -> int:
    """The durable writes this process made so far."""
    return _writes


def point(what: str) -> None:
    """A step is about to happen (``what``: "write PATH", "ref NAME", "git ARGS", ...)."""
    if _on():
        _reached(f"before {what}")


def ran(what: str) -> None:
    """A step that may have written (a git process) has finished."""
    if _on():
        _reached(f"after {what}")


def wrote(what: str) -> None:
    """Count one durable write; die here if the test asked for it."""
    global _writes
    _writes += 1
    if not _on():
        return
    _reached(f"after {what}")
    limit = os.environ.get(ENV)
    if limit and _writes == int(limit):
        os.kill(os.getpid(), signal.SIGKILL)


def _reached(where: str) -> None:
    global _points
    _points += 1
    log = os.environ.get(LOG)
    if log:
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            os.write(fd, f"{_points}\t{where}\n".encode("utf-8", "replace"))  # unbuffered: survives the kill
        finally:
            os.close(fd)
    kill = os.environ.get(KILL_AT)
    if kill and _points == int(kill):
        os.kill(os.getpid(), signal.SIGKILL)
    fail = os.environ.get(FAIL_AT)
    if fail and where.startswith("before "):
        n, _, name = fail.partition(":")
        if _points == int(n):
            import errno

            code = getattr(errno, name or "ENOSPC", errno.ENOSPC)
            raise OSError(code, os.strerror(code), where[len("before "):].split(" ", 1)[-1])
