"""``git refocus stop [ID]``: stop tagging this worktree's commits with a refocus.

``start`` makes a refocus *active* (``.git/refocus/active`` and the session
map) so the commit-msg hook adds its Refocus-Id. ``stop`` clears that marker
and records nothing else: the refocus keeps its status (finish it with
``complete`` or ``abandon``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from gitrefocus.errors import RefocusError
from gitrefocus.model import lifecycle
from gitrefocus.model.records import dataclass
from gitrefocus.store import catalog, localstate
from gitrefocus.store.catalog import Catalog
from gitrefocus.store.workspace import Workspace

TYPE_CHECKING = False  # no `typing` at run time: a listing and the hooks import this module
if TYPE_CHECKING:
    from typing import Any


@dataclass(frozen=True)
class StopOutcome:
    id: str | None  # the refocus no longer active here (None: nothing was active)
    cleared_active: bool  # the worktree marker named it and is gone
    sessions_unmapped: int  # session-map entries that named it
    env_still_set: bool  # $SESSION_REFOCUS_ID names it: only the shell that set it can unset it

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "cleared_active": self.cleared_active,
                "sessions_unmapped": self.sessions_unmapped, "env_still_set": self.env_still_set}


def marker_problem(cat: Catalog, rid: str | None) -> str | None:
    """Why an active marker (or session-map entry) naming ``rid`` should not
    tag commits here, or None when it is right: it must name a refocus this
    repository is the destination of, still in progress."""
    if not rid:
        return "is empty or unreadable"
    entry = cat.entries.get(rid)
    if entry is None:
        return f"names {rid}, which this repository does not know"
    if entry.status in lifecycle.TERMINAL:
        return f"names {rid}, which is already {lifecycle.in_words(entry.status)}"
    if not entry.incoming:
        where = entry.state.dest_dir if entry.state else "another repository"
        return f"names {rid}, which is worked on in {where}, not here"
    if entry.status in lifecycle.PENDING_LAUNCH:  # `start` sets the markers first: it died before its event
        return f"names {rid}, which was never started"
    return None


def _resolve(ws: Workspace, text: str) -> str:
    try:
        return catalog.resolve_id(ws, text)
    except RefocusError:
        if text == localstate.active_id(ws.git_dir):
            return text  # a marker naming a refocus this repository no longer knows
        raise


def stop(*, refocus_id: str | None = None, cwd: str = ".", env: Mapping[str, str] = os.environ) -> StopOutcome:
    ws = Workspace.open(cwd)
    rid = _resolve(ws, refocus_id) if refocus_id else localstate.active_refocus(ws.git_dir, env)
    if not rid:
        return StopOutcome(None, False, 0, False)
    cleared = localstate.active_id(ws.git_dir) == rid
    before = _mapped(ws, rid)
    if cleared or before:
        try:  # first a note that a stop is under way: one killed part-way is finished by doctor --repair
            localstate.write(ws.git_dir, STOPPING, rid, text=rid + "\n")
        except RefocusError:
            pass  # a marker naming no refocus id: nothing doctor could finish by name
        finish_stop(ws, rid)
    return StopOutcome(rid, cleared, before, env.get("SESSION_REFOCUS_ID") == rid)


STOPPING = "stopping"


def finish_stop(ws: Workspace, rid: str) -> None:
    """Remove every marker naming ``rid``, then the note that a stop was under way."""
    localstate.clear_active(ws.git_dir, rid)
    localstate.unmap_sessions(ws.git_dir, rid)
    localstate.remove(ws.git_dir, STOPPING, rid)


def _mapped(ws: Workspace, rid: str) -> int:
    directory = os.path.join(localstate.state_dir(ws.git_dir), "sessions")
    try:
        names = os.listdir(directory)
    except OSError:
        return 0
    return sum(1 for name in names if localstate.refocus_for_session(ws.git_dir, name) == rid)
