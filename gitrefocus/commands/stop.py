"""``git refocus stop [ID]``: stop tagging commits with a refocus.

``start`` makes a refocus a session's own (the session map) or, with no session
id, the worktree's *active* one (``.git/refocus/active``), so the commit-msg hook
adds its Refocus-Id. ``stop`` undoes that and records nothing else: the refocus
keeps its status (finish it with ``complete`` or ``abandon``). In a session it
acts only for the session's own refocus (another session's is refused, exit 3)
and leaves the worktree marker, which serves work with no session id, alone.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from gitrefocus.errors import RefocusError
from gitrefocus.model import lifecycle
from gitrefocus.model.agents import session_from_env
from gitrefocus.model.place import DEST
from gitrefocus.model.records import asdict, dataclass
from gitrefocus.ops import guards, places
from gitrefocus.store import catalog, eventlog, localstate
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
        return asdict(self)


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
        where = places.shown(cat.ws, entry.state, DEST) if entry.state else "another repository"
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
    session = session_from_env(env)
    rid = _resolve(ws, refocus_id) if refocus_id else localstate.active_refocus(ws.git_dir, env)
    if not rid:
        return StopOutcome(None, False, 0, False)
    tip = eventlog.read_tip(ws.repo, rid) if session else None
    if tip is not None:
        guards.require_owner(ws, tip.state, session, env, "stop")
    # in a session the worktree marker is left alone: it serves work with no session id
    cleared = not session and localstate.active_id(ws.git_dir) == rid
    before = len(localstate.sessions_of(ws.git_dir, rid))
    if cleared or before:
        try:  # first a note that a stop is under way: one killed part-way is finished by doctor --repair
            localstate.write(ws.git_dir, STOPPING, rid, text=rid + "\n" + (ACTIVE_TOO if cleared else ""))
        except RefocusError:
            pass  # a marker naming no refocus id: nothing doctor could finish by name
        finish_stop(ws, rid)
    return StopOutcome(rid, cleared, before, env.get("SESSION_REFOCUS_ID") == rid)


STOPPING = "stopping"
ACTIVE_TOO = "active\n"  # the stop under way clears the worktree marker as well


def finish_stop(ws: Workspace, rid: str) -> None:
    """Remove the markers a stop of ``rid`` removes (the session map; the worktree marker
    when the stop was made outside a session), then the note that the stop was under way."""
    note = localstate.read(ws.git_dir, STOPPING, rid) or ""
    if note.partition("\n")[2] == ACTIVE_TOO:
        localstate.clear_active(ws.git_dir, rid)
    localstate.unmap_sessions(ws.git_dir, rid)
    localstate.remove(ws.git_dir, STOPPING, rid)
