"""`git refocus ARGS` with every durable write logged: ``python traced_refocus.py LOG ARGS...``.

Each write that gitrefocus/store/faults.py counts (a ref compare-and-swap, a file
renamed into place) appends its target to LOG *before* the fault hook may kill the
process, so after a run LOG holds exactly the writes that happened, in order, and
the last line is the write a ``GIT_REFOCUS_KILL_AFTER_WRITES=N`` run died after.
Run with PYTHONPATH on the source tree (tests/runner.py:source_env).
"""

import os
import sys

from gitrefocus.store import faults

_log = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
_count = faults.wrote


def traced(what: str) -> None:
    os.write(_log, (what + "\n").encode())  # unbuffered: it survives the SIGKILL that may follow
    _count(what)


faults.wrote = traced

from gitrefocus.entry import main  # noqa: E402  (after the hook is in place)

sys.argv = ["git-refocus", *sys.argv[2:]]
sys.exit(main())
