"""``git refocus start [ID]``: the child session opens its brief."""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from typing import Any

from gitrefocus.errors import RefocusError
from gitrefocus.model import clock, lifecycle
from gitrefocus.model import events as ev
from gitrefocus.model.events import Event
from gitrefocus.model.ids import ref_name
from gitrefocus.model.records import dataclass
from gitrefocus.ops import index_md, record, setup
from gitrefocus.store import catalog, eventlog, localstate, refs
from gitrefocus.store.eventlog import Tip
from gitrefocus.store.workspace import Workspace


@dataclass(frozen=True)
class StartOutcome:
    id: str
    status: str
    launched_at: str | None
    session_id: str | None
    brief_path: str | None
    files_written: list[str]
    warnings: list[str]
    tagging: bool = False  # the commit-msg hook is installed: commits here carry Refocus-Id

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "status": self.status, "launched_at": self.launched_at,
                "session_id": self.session_id, "brief_path": self.brief_path,
                "files_written": self.files_written, "warnings": self.warnings, "tagging": self.tagging}


def pending_for_session(ws: Workspace, session_id: str | None) -> str | None:
    if not session_id:
        return None
    for entry in catalog.select(ws, session_id=session_id).entries.values():
        if entry.state and entry.state.child_session_id == session_id and entry.incoming:
            return entry.id
    return None


def choose(ws: Workspace, refocus_id: str | None, session_id: str | None) -> str:
    if refocus_id:
        return catalog.resolve_id(ws, refocus_id)
    rid = pending_for_session(ws, session_id)
    if rid:
        return rid
    pending = sorted(
        e.id for e in catalog.select(ws, statuses=lifecycle.PENDING_LAUNCH).entries.values()
        if e.status in lifecycle.PENDING_LAUNCH and e.incoming
    )
    if len(pending) == 1:
        return pending[0]
    if not pending:
        raise RefocusError("no refocus is waiting to start here; name one: git refocus start ID.")
    raise RefocusError(f"several refocuses wait to start here ({', '.join(pending[:5])}); name one.")


def require_destination(ws: Workspace, rid: str) -> None:
    """Only the destination starts a refocus: started anywhere else, the
    worktree's commits would carry another repository's Refocus-Id."""
    entry = catalog.load(ws, only=rid).entries.get(rid)
    if entry is None or entry.incoming:
        return
    where = entry.state.dest_dir if entry.state else None
    raise RefocusError(f"{rid} is worked on in its destination{' ' + where if where else ''}, not here; "
                       f"start it there: git refocus -C {shlex.quote(where or 'DEST')} start {rid}.")


def tagging(ws: Workspace) -> bool:
    """Whether commits here get the Refocus-Id trailer (our commit-msg hook is installed)."""
    try:
        return not setup.hook_step(ws).needed
    except RefocusError:
        return False


def _check(ws: Workspace, rid: str) -> None:
    tip = eventlog.require_tip(ws.repo, rid)
    if tip.state.status != lifecycle.IN_PROGRESS:
        lifecycle.require_transition(rid, tip.state.status, lifecycle.IN_PROGRESS,
                                     tip.state.completed_at or tip.state.last_event_at)


class _Markers:
    """The active id and the session map that make commits carry the refocus's
    trailer. Set before the ``started`` event, so a start killed between the two
    leaves markers naming a refocus never started, which doctor clears; a start
    refused at its event puts back what was there."""

    def __init__(self, ws: Workspace, rid: str, session_id: str | None):
        self.ws, self.rid, self.session_id = ws, rid, session_id
        self.active = localstate.read(ws.git_dir, "active")
        self.mapped = localstate.read(ws.git_dir, "sessions", session_id) if session_id else None

    def set(self) -> None:
        localstate.set_active(self.ws.git_dir, self.rid)
        if self.session_id:
            localstate.map_session(self.ws.git_dir, self.session_id, self.rid)

    def undo(self) -> None:
        places: list[tuple[tuple[str, ...], str | None]] = [(("active",), self.active)]
        if self.session_id:
            places.append((("sessions", self.session_id), self.mapped))
        for parts, text in places:
            if text is None:
                localstate.remove(self.ws.git_dir, *parts)
            else:
                localstate.write(self.ws.git_dir, *parts, text=text)


def start(*, refocus_id: str | None = None, session_id: str | None = None, cwd: str = ".",
          env: Mapping[str, str] = os.environ) -> StartOutcome:
    ws = Workspace.open(cwd)
    session_id = session_id or env.get("CLAUDE_CODE_SESSION_ID") or None
    rid = choose(ws, refocus_id, session_id)
    require_destination(ws, rid)
    warnings: list[str] = []

    def make(tip: Tip | None) -> Event:
        if tip is None:
            raise RefocusError(f"{rid} has no event log here ({ref_name(rid)}); run `git refocus doctor --repair`.")
        state = tip.state
        changes = {}
        if state.status == lifecycle.IN_PROGRESS:
            others = [s for s in state.sessions if s != session_id]
            if others or not session_id:
                warnings.append(
                    f"{rid} was already opened at {state.launched_at}"
                    + (f" by session {others[-1]}" if others else "") + "; continuing anyway."
                )
        else:
            lifecycle.require_transition(rid, state.status, lifecycle.IN_PROGRESS, state.completed_at or state.last_event_at)
            changes = {"status": lifecycle.IN_PROGRESS, "launched_at": clock.now_iso()}
        return record.new_event(ws, rid, ev.STARTED, "child", session_id=session_id, meta_changes=changes)

    _check(ws, rid)  # refuse before the markers are set, as make() would
    record.preflight(ws)
    markers = _Markers(ws, rid, session_id)
    markers.set()  # first: a start killed after its event leaves nothing doctor cannot see
    before = refs.resolve(ws.repo, ref_name(rid))
    try:
        out = record.write_event(ws, rid, make)
    except BaseException:
        if refs.resolve(ws.repo, ref_name(rid)) == before:
            markers.undo()  # refused before its event; after it, the markers stand
        raise
    state = out.tip.state
    record.note_event(ws, out.tip, record.DEST)
    other = record.counterpart(ws, state)
    record.propagate(ws, other, rid)
    index_md.refresh(ws, other)
    return StartOutcome(id=rid, status=state.status, launched_at=state.launched_at, session_id=session_id,
                        brief_path=record.brief_file(ws, rid), files_written=out.written,
                        warnings=warnings + out.warnings, tagging=tagging(ws))
