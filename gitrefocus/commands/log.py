"""``git refocus log ID``: the commits that belong to a refocus, oldest first."""

from __future__ import annotations

from gitrefocus.errors import RefocusError
from gitrefocus.model.ids import RefocusId
from gitrefocus.ops import linkage
from gitrefocus.store import catalog
from gitrefocus.store.workspace import Workspace


def resolve_any(ws: Workspace, text: str) -> str:
    """A known id (prefix, suffix, slug), or any well-formed id: a clone may hold
    commits carrying a trailer without the refocus itself."""
    try:
        return catalog.resolve_id(ws, text)
    except RefocusError:
        if RefocusId.is_valid((text or "").strip()):
            return text.strip()
        raise


def log(*, refocus_id: str, cwd: str = ".") -> dict:
    ws = Workspace.open(cwd)
    rid = resolve_any(ws, refocus_id)
    commits = [c.as_dict(rid) for c in linkage.linked(ws, rid)]
    return {"id": rid, "commits": commits, "count": len(commits)}
