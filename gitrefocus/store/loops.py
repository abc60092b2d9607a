"""Loop state, one file per Claude Code session: ``$GIT_DIR/refocus/loops/<session-id>.json``.

Keyed by session id, so a loop started by one session is never driven by the
Stop hook of another session in the same repository. Written atomically
(temporary file + rename) through :mod:`localstate`, which refuses symlinks,
and only by compare-and-swap (:func:`write`, :func:`update`), so concurrent
``loop start`` commands in one session never lose each other's loops.
The Stop hook reads this module on every stop: it imports nothing heavy.
"""

from __future__ import annotations

import json
import os

from gitrefocus.errors import ConflictError, RefocusError
from gitrefocus.store import localstate

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from gitrefocus.model.loop import SessionLoops

DIR = "loops"
MAX_BYTES = 4 << 20


def read(git_dir: str, session_id: str) -> SessionLoops | None:
    """This session's loops; None when it has none. A damaged file is an error."""
    text = localstate.read(git_dir, DIR, f"{session_id}.json")
    if text is None:
        return None
    # here: a session without loops loads no model
    from gitrefocus.model.loop import SessionLoops

    if len(text) > MAX_BYTES:
        raise RefocusError(f"the loop state of session {session_id} is larger than {MAX_BYTES} bytes.")
    try:
        return SessionLoops.from_json(json.loads(text), session_id)
    except ValueError as exc:
        raise RefocusError(f"the loop state of session {session_id} is unreadable: {exc}.") from None


class Moved(ConflictError):
    """The loop file changed since it was read: read it again and redo the change."""


def _as_json(state: SessionLoops | None) -> object:
    return state.to_json() if state is not None else None


def write(git_dir: str, state: SessionLoops, *, expected: SessionLoops | None) -> None:
    """Replace the session's loop file with ``state`` if it still holds ``expected``
    (None: no file), else :class:`Moved`: a compare-and-swap, the compare and
    the rename under a lock the kernel drops if the writer dies."""
    from gitrefocus.store import locks

    lock = localstate._checked(git_dir, DIR, f".{state.session_id}.lock")
    with locks.exclusive(lock):
        if _as_json(read(git_dir, state.session_id)) != _as_json(expected):
            raise Moved(f"the loops of session {state.session_id} changed meanwhile.")
        localstate.write(git_dir, DIR, f"{state.session_id}.json",
                         text=json.dumps(state.to_json(), ensure_ascii=False, indent=1) + "\n")


UPDATE_ATTEMPTS = 100


def update(git_dir: str, session_id: str, change: Callable[[SessionLoops | None], SessionLoops | None]) -> SessionLoops | None:
    """Apply ``change`` to the session's loops (None: leave the file as it is)
    until no other writer came in between; the state written."""
    import random
    import time

    for _ in range(UPDATE_ATTEMPTS):
        current = read(git_dir, session_id)
        new = change(current)
        if new is None:
            return current
        try:
            write(git_dir, new, expected=current)
            return new
        except Moved:
            time.sleep(0.002 + random.random() * 0.01)
    raise ConflictError(f"the loops of session {session_id} kept changing under {UPDATE_ATTEMPTS} writers; "
                        f"nothing was changed, run the command again.")


def sessions(git_dir: str) -> list[str]:
    """The session ids that have loop state here."""
    directory = localstate._checked(git_dir, DIR)  # refuses a symlinked loops/ directory
    try:
        names = os.listdir(directory)
    except (FileNotFoundError, NotADirectoryError):
        return []
    return sorted(n[:-5] for n in names if n.endswith(".json") and not n.startswith("."))


def all_sessions(git_dir: str) -> tuple[list[SessionLoops], list[str]]:
    """Every session's loops, and a problem line for each file that could not be read."""
    out, problems = [], []
    for sid in sessions(git_dir):
        try:
            state = read(git_dir, sid)
        except RefocusError as exc:
            problems.append(str(exc))
            continue
        if state is not None:
            out.append(state)
    return out, problems
