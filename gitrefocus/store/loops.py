"""Loop state, one file per Claude Code session: ``$GIT_DIR/refocus/loops/<session-id>.json``.

Keyed by session id, so a loop started by one session is never driven by the
Stop hook of another session in the same repository. Written atomically
(temporary file + rename) through :mod:`localstate`, which refuses symlinks.
The Stop hook reads this module on every stop: it imports nothing heavy.
"""

from __future__ import annotations

import json
import os

from gitrefocus.errors import RefocusError
from gitrefocus.store import localstate

TYPE_CHECKING = False
if TYPE_CHECKING:
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


def write(git_dir: str, state: SessionLoops) -> None:
    localstate.write(git_dir, DIR, f"{state.session_id}.json",
                     text=json.dumps(state.to_json(), ensure_ascii=False, indent=1) + "\n")


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
