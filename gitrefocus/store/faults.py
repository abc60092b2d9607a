"""Crash points for tests: ``GIT_REFOCUS_KILL_AFTER_WRITES=N`` kills the process
with SIGKILL right after its Nth durable write (a ref moved, a file renamed
into place), so a crash test chooses exactly where a writer dies instead of
sleeping and hoping. Unset, this costs one environment lookup per write.
"""

from __future__ import annotations

import os
import signal

ENV = "GIT_REFOCUS_KILL_AFTER_WRITES"
_writes = 0


def wrote(what: str) -> None:
    """Count one durable write; die here if the test asked for it."""
    global _writes
    limit = os.environ.get(ENV)
    if not limit:
        return
    _writes += 1
    if _writes == int(limit):
        os.kill(os.getpid(), signal.SIGKILL)
