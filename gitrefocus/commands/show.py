"""``git refocus show ID``: one refocus, its brief and its event log."""

from __future__ import annotations

from gitrefocus.errors import RefocusError
from gitrefocus.ops import record
from gitrefocus.store import catalog, eventlog, refs
from gitrefocus.store.workspace import Workspace


def show(*, refocus_id: str, cwd: str = ".") -> dict:
    ws = Workspace.open(cwd)
    rid = catalog.resolve_id(ws, refocus_id)
    cat = catalog.load(ws, only=rid)
    entry = cat.entries.get(rid)
    if entry is None:
        raise RefocusError(f"unknown refocus id {refocus_id!r}.")
    path = record.brief_file(ws, rid)
    text = None
    if path:
        with open(path, "rb") as fh:
            text = fh.read().decode("utf-8", errors="replace")
    elif entry.tip:
        snap = eventlog.snapshot(ws.repo, entry.tip)
        text = snap.decode("utf-8", errors="replace") if snap else None
    events = []
    if entry.tip:
        for oid, event in eventlog.chain(ws.repo, refs.resolve(ws.repo, refs.ref_name(rid))):
            events.append({"commit": str(oid), "kind": event.kind, "at": event.at, "event_id": event.event_id,
                           "actor": {k: event.actor.get(k) for k in ("name", "role", "session_id")},
                           "data": {k: v for k, v in event.data.items() if k not in ("meta", "result_markdown", "result")}})
    state = {k: v for k, v in (entry.state or {}).items() if not k.startswith("_")}
    return {"id": rid, "status": entry.status, "direction": entry.direction,
            "path": ws.rel(path) if path else None, "state": state, "brief": text, "events": events,
            "problems": entry.problems + ([entry.file_error] if entry.file_error else [])}
