"""``git refocus start [ID]``: the child session opens its brief."""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from typing import Any

from gitrefocus.errors import GuardRefused, RefocusError
from gitrefocus.model import clock, lifecycle
from gitrefocus.model import events as ev
from gitrefocus.model.agents import session_from_env
from gitrefocus.model.events import Event
from gitrefocus.model.ids import ref_name
from gitrefocus.model.place import DEST
from gitrefocus.model.records import asdict, dataclass
from gitrefocus.ops import guards, index_md, places, record
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
    took_over_from: str | None = None  # --take-over: the session the refocus belonged to

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def pending_for_session(ws: Workspace, session_id: str | None) -> str | None:
    if not session_id:
        return None
    for entry in catalog.select(ws, session_id=session_id).entries.values():
        if entry.state and entry.state.child_session_id == session_id and entry.incoming:
            return entry.id
    return None


def choose(ws: Workspace, refocus_id: str | None, session_id: str | None) -> str:
    """The refocus ``start`` opens: the one named; else this session's own; else, with no
    session id (a person at a terminal), the only brief waiting here."""
    if refocus_id:
        return catalog.resolve_id(ws, refocus_id)
    rid = pending_for_session(ws, session_id) or (localstate.refocus_for_session(ws.git_dir, session_id)
                                                  if session_id else None)
    if rid:
        return rid
    if session_id:
        raise GuardRefused(f"this session ({session_id}) is not the child session of any refocus here; "
                           f"name the one to work on here instead: {guards.TAKE_OVER.format(id='ID')}")
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
    where = places.local_dir(ws, entry.state, DEST) if entry.state else None
    shown = places.shown(ws, entry.state, DEST) if entry.state else None
    raise RefocusError(f"{rid} is worked on in its destination{' ' + shown if shown else ''}, not here; "
                       f"start it there: git refocus -C {shlex.quote(where or 'DEST')} start {rid}.")


def tagging(ws: Workspace) -> bool:
    """Whether commits here get the Refocus-Id trailer (our commit-msg hook is installed)."""
    return ws.tags_commits


def _check(ws: Workspace, rid: str, session_id: str | None, env: Mapping[str, str], take_over: bool) -> str | None:
    """Refuse what make() would refuse, before the markers are set (they would make this
    session one of the refocus's own); the session taken over from, if any."""
    tip = eventlog.require_tip(ws.repo, rid)
    if tip.state.status != lifecycle.IN_PROGRESS:
        lifecycle.require_transition(rid, tip.state.status, lifecycle.IN_PROGRESS,
                                     tip.state.completed_at or tip.state.last_event_at)
    if guards.owned_by(ws, tip.state, session_id, env):
        return None
    if not take_over:
        guards.require_owner(ws, tip.state, session_id, env, "start")
    return guards.owners(ws, tip.state)[-1]


class _Markers:
    """What makes commits carry the refocus's trailer: the session map of a session (the
    session's own refocus), or the worktree's active id for work with no session id. Set
    before the ``started`` event, so a start killed between the two leaves markers naming a
    refocus never started, which doctor clears; a start refused at its event puts back what
    was there."""

    def __init__(self, ws: Workspace, rid: str, session_id: str | None) -> None:
        self.ws, self.rid, self.session_id = ws, rid, session_id
        self.place: tuple[str, ...] = ("sessions", session_id) if session_id else ("active",)
        self.before = localstate.read(ws.git_dir, *self.place)

    def set(self) -> None:
        if self.session_id:
            localstate.map_session(self.ws.git_dir, self.session_id, self.rid)
        else:
            localstate.set_active(self.ws.git_dir, self.rid)

    def undo(self) -> None:
        if self.before is None:
            localstate.remove(self.ws.git_dir, *self.place)
        else:
            localstate.write(self.ws.git_dir, *self.place, text=self.before)


def start(*, refocus_id: str | None = None, session_id: str | None = None, cwd: str = ".",
          env: Mapping[str, str] = os.environ, take_over: bool = False, agent: str = "claude") -> StartOutcome:
    """``take_over``: this session takes the refocus on although it belongs to another
    session (without it, that is refused: a session acts only for its own refocus).
    ``agent``: the client the session runs in, recorded when it is not Claude Code."""
    ws = Workspace.open(cwd)
    session_id = session_id or session_from_env(env)
    rid = choose(ws, refocus_id, session_id)
    require_destination(ws, rid)
    warnings: list[str] = []
    took_over: list[str] = []

    def make(tip: Tip | None) -> Event:
        if tip is None:
            raise RefocusError(f"{rid} has no event log here ({ref_name(rid)}); run `git refocus doctor --repair`.")
        state = tip.state
        extra: dict[str, Any] = {"took_over_from": took_over[0]} if took_over else {}
        if agent != "claude" or "child_agent" in state.extra:  # another agent than Claude Code takes part
            extra["agent"] = agent
        if agent == "gemini":  # its commits carry no trailer: complete links those made after this commit
            head = ws.head_oid()
            extra["head"] = str(head) if head is not None else None
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
        return record.new_event(ws, rid, ev.STARTED, "child", session_id=session_id, meta_changes=changes, **extra)

    previous_owner = _check(ws, rid, session_id, env, take_over)
    took_over[:] = [previous_owner] if previous_owner else []
    record.preflight(ws)
    markers = _Markers(ws, rid, session_id)
    markers.set()  # first: a start killed after its event leaves nothing doctor cannot see
    before = refs.resolve(ws.repo, ref_name(rid))
    try:
        # write_file: a clone of the destination that never held the brief (a teammate's, on
        # another machine) gets it from the log's snapshot: the child works from the file
        out = record.write_event(ws, rid, make, write_file=True)
    except BaseException:
        if refs.resolve(ws.repo, ref_name(rid)) == before:
            markers.undo()  # refused before its event; after it, the markers stand
        raise
    state = out.tip.state
    record.note_event(ws, out.tip, DEST)
    other = record.counterpart(ws, state)
    record.propagate(ws, other, rid)
    index_md.refresh(ws, other)
    return StartOutcome(id=rid, status=state.status, launched_at=state.launched_at, session_id=session_id,
                        brief_path=catalog.brief_file(ws, rid), files_written=out.written,
                        warnings=warnings + out.warnings, tagging=tagging(ws),
                        took_over_from=took_over[0] if took_over else None)
