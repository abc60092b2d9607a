"""``git refocus receive [ID]``: the source acknowledges a returned result."""

from __future__ import annotations

from gitrefocus.errors import RefocusError
from gitrefocus.model import events as ev
from gitrefocus.model import lifecycle
from gitrefocus.ops import index_md, record
from gitrefocus.store import catalog
from gitrefocus.store.workspace import Workspace


def waiting(cat: catalog.Catalog) -> list[catalog.Entry]:
    """Outgoing refocuses whose result came back and was not received yet."""
    return sorted(
        (e for e in cat.entries.values()
         if e.outgoing and e.status in lifecycle.RETURNED and not e.get("received_at")),
        key=lambda e: e.id,
    )


def receive_one(ws: Workspace, rid: str, session_id: str | None = None) -> dict:
    def make(tip):
        if tip is None:
            raise RefocusError(f"unknown refocus id {rid!r}.")
        if tip.state["status"] not in lifecycle.RETURNED:
            raise RefocusError(f"{rid} has no result to receive yet (it is {tip.state['status']}).")
        if tip.state.get("received_at"):
            raise RefocusError(f"{rid} was already received at {tip.state['received_at']}.")
        return record.new_event(ws, rid, ev.RECEIVED, "source", session_id=session_id)

    out = record.write_event(ws, rid, make)
    state = out.tip.state
    record.note(ws, ws.head_oid(), rid, "received", role="source", status=state["status"])
    other = record.counterpart(ws, state)
    record.propagate(ws, other, rid)
    return {"id": rid, "status": state["status"], "received_at": state["received_at"],
            "result": state.get("result"), "dest_dir": state.get("dest_dir")}


def receive(*, refocus_id: str | None = None, cwd: str = ".", session_id: str | None = None) -> dict:
    ws = Workspace.open(cwd)
    if refocus_id:
        ids = [catalog.resolve_id(ws, refocus_id)]
    else:
        ids = [e.id for e in waiting(catalog.load(ws))]
    received = [receive_one(ws, rid, session_id) for rid in ids]
    others = [record.counterpart(ws, r) for r in received] if received else []
    index_md.refresh(ws, *others)
    return {"received": received}
