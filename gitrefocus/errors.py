"""The one place where failures become exit codes.

| code | meaning |
|------|---------|
| 0    | ok |
| 1    | user error: the user must act (bad id, bad input, illegal transition) |
| 2    | usage error (click: unknown option, missing argument) |
| 3    | refused by a guard (child cannot fork, cycle, ...) |
| 4    | conflict: a compare-and-swap kept losing to other writers |
| 130  | interrupted (SIGINT, Ctrl-C), as shells report it |
| 70   | internal error (a bug; rerun with --debug for the traceback) |
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_USER = 1
EXIT_USAGE = 2
EXIT_REFUSED = 3
EXIT_CONFLICT = 4
EXIT_INTERNAL = 70
EXIT_INTERRUPTED = 130


class RefocusError(Exception):
    """Something the user must act on. The message is one sentence."""

    exit_code = EXIT_USER


class GuardRefused(RefocusError):
    """A lifecycle guard refused the operation (docs/ARCHITECTURE.md, "Lifecycle and guards")."""

    exit_code = EXIT_REFUSED


class ConflictError(RefocusError):
    """A compare-and-swap lost repeatedly; nothing was changed."""

    exit_code = EXIT_CONFLICT


class Interrupted(RefocusError):
    """SIGINT (Ctrl-C): stop with one line; writes in flight finish first (store/interrupts.py)."""

    exit_code = EXIT_INTERRUPTED
