"""``list``, ``show`` and ``index``: read commands over the catalog."""

from __future__ import annotations

from gitrefocus import catalog, index as _index, record, store
from gitrefocus.errors import RefocusError
from gitrefocus.reconcile import reconcile_all
from gitrefocus.workspace import Workspace


def _fresh_catalog(ws: Workspace) -> tuple[catalog.Catalog, list[str]]:
    cat = catalog.load(ws)
    notices = reconcile_all(ws, cat)
    if notices:
        cat = catalog.load(ws)
    return cat, notices


def list_(*, all: bool = False, cwd: str = ".") -> dict:
    ws = Workspace.open(cwd)
    cat, notices = _fresh_catalog(ws)
    if all:
        rows = [_index.row(e, ws.workdir) for e in sorted(cat.entries.values(), key=lambda e: e.id, reverse=True)]
    else:
        m = _index.model(cat)
        rows = m["active"] + m["recent"]
    return {"repo": ws.workdir, "entries": rows, "notices": notices}


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
        snap = store.snapshot(ws.repo, entry.tip)
        text = snap.decode("utf-8", errors="replace") if snap else None
    events = []
    if entry.tip:
        for oid, event in store.chain(ws.repo, store.resolve(ws.repo, store.ref_name(rid))):
            events.append({"commit": str(oid), "kind": event.kind, "at": event.at, "event_id": event.event_id,
                           "actor": {k: event.actor.get(k) for k in ("name", "role", "session_id")},
                           "data": {k: v for k, v in event.data.items() if k not in ("meta", "result_markdown", "result")}})
    state = {k: v for k, v in (entry.state or {}).items() if not k.startswith("_")}
    return {"id": rid, "status": entry.status, "direction": entry.direction,
            "path": ws.rel(path) if path else None, "state": state, "brief": text, "events": events,
            "problems": entry.problems + ([entry.file_error] if entry.file_error else [])}


def index(*, cwd: str = ".") -> dict:
    ws = Workspace.open(cwd)
    cat, notices = _fresh_catalog(ws)
    path = _index.write(cat)
    m = _index.model(cat)
    return {"path": path, "active": len(m["active"]), "recent": len(m["recent"]),
            "archived": m["archived_count"], "notices": notices}
