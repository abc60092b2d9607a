"""``git refocus show [ID]``: one refocus, its brief and its event log."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from gitrefocus.errors import RefocusError
from gitrefocus.model.events import Event, RefocusState
from gitrefocus.model.place import DEST, SOURCE
from gitrefocus.model.records import dataclass
from gitrefocus.ops import places
from gitrefocus.store import atomic, catalog, eventlog, localstate, refs
from gitrefocus.store.workspace import Workspace


@dataclass(frozen=True)
class ShownEvent:
    commit: str
    event: Event

    def to_json(self) -> dict[str, Any]:
        event = self.event
        return {"commit": self.commit, "kind": event.kind, "at": event.at, "event_id": event.event_id,
                "actor": {k: event.actor.get(k) for k in ("name", "role", "session_id")},
                "data": {k: v for k, v in event.data.items() if k not in ("meta", "result_markdown", "result")}}


@dataclass(frozen=True)
class ShowOutcome:
    id: str
    status: str
    direction: str
    path: str | None  # the brief file, relative to the work tree
    state: RefocusState | None
    brief: str | None  # the brief document: the file, else the ref's snapshot
    events: list[ShownEvent]
    problems: list[str]
    here: dict[str, str | None]  # the stored places resolved on this machine (ops/places.py)

    def to_json(self) -> dict[str, Any]:
        # the state as state.json holds it (sorted keys)
        state = dict(sorted(self.state.to_json().items())) if self.state else {}
        return {"id": self.id, "status": self.status, "direction": self.direction, "path": self.path,
                "state": {k: v for k, v in state.items() if not k.startswith("_")}, "brief": self.brief,
                "events": [e.to_json() for e in self.events], "problems": self.problems, "here": self.here}


def show(*, refocus_id: str | None = None, cwd: str = ".", env: Mapping[str, str] = os.environ) -> ShowOutcome:
    """Without ``refocus_id``: the refocus this session works on (a child's own; with no
    session id, the worktree's active one)."""
    ws = Workspace.open(cwd)
    if refocus_id is None:
        refocus_id = localstate.active_refocus(ws.git_dir, env)
        if not refocus_id:
            raise RefocusError("this session works on no refocus here; name one: git refocus show ID "
                               "(`git refocus list` lists them).")
    rid = catalog.resolve_id(ws, refocus_id)
    cat = catalog.load(ws, only=rid)
    entry = cat.entries.get(rid)
    if entry is None:
        raise RefocusError(f"unknown refocus id {refocus_id!r}.")
    path = catalog.brief_file(ws, rid)
    if path is None:
        try:  # a symlinked docs/refocus holds no brief for git refocus: say so, show the recorded one
            atomic.refuse_symlinks(ws.brief_path(rid), "read")
        except RefocusError as exc:
            entry.problems.append(str(exc))
    text = None
    if path:
        try:
            text = atomic.read_bytes(path).decode("utf-8", errors="replace")
        except RefocusError as exc:  # a FIFO or directory where the brief should be: shown as a problem
            entry.problems.append(str(exc))
    elif entry.tip:
        snap = eventlog.snapshot(ws.repo, entry.tip)
        text = snap.decode("utf-8", errors="replace") if snap else None
    events = []
    if entry.tip:
        for oid, event in eventlog.chain(ws.repo, refs.resolve(ws.repo, refs.ref_name(rid))):
            events.append(ShownEvent(commit=str(oid), event=event))
    return ShowOutcome(id=rid, status=entry.status, direction=entry.direction, path=ws.rel(path) if path else None,
                       state=entry.state, brief=text, events=events,
                       problems=entry.problems + ([entry.file_error] if entry.file_error else []),
                       here=_here(ws, entry.state) if entry.state else {})


def _here(ws: Workspace, state: RefocusState) -> dict[str, str | None]:
    """Each side's directory on this machine (None: not here), how it is shown, and
    the command that starts or resumes the child here: what the brief stores is
    portable (repository identity and a directory in it), this is this machine's."""
    return {"source_dir": places.local_dir(ws, state, SOURCE), "dest_dir": places.local_dir(ws, state, DEST),
            "source": places.shown(ws, state, SOURCE), "dest": places.shown(ws, state, DEST),
            "relaunch": places.relaunch(ws, state, short=False), "relaunch_shown": places.relaunch(ws, state)}
