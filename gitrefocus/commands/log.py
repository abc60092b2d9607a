"""``git refocus log ID``: the commits that belong to a refocus, oldest first."""

from __future__ import annotations

from typing import Any

from gitrefocus.errors import RefocusError
from gitrefocus.model.ids import RefocusId
from gitrefocus.model.records import dataclass
from gitrefocus.ops import linkage
from gitrefocus.store import catalog
from gitrefocus.store.workspace import Workspace


@dataclass(frozen=True)
class LogOutcome:
    id: str
    commits: list[linkage.Commit]  # linked to the refocus, oldest first

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "commits": [c.as_dict(self.id) for c in self.commits], "count": len(self.commits)}


def resolve_any(ws: Workspace, text: str) -> str:
    """A known id (prefix, suffix, slug), or any well-formed id: a clone may hold
    commits carrying a trailer without the refocus itself."""
    try:
        return catalog.resolve_id(ws, text)
    except RefocusError:
        if RefocusId.is_valid((text or "").strip()):
            return text.strip()
        raise


def log(*, refocus_id: str, cwd: str = ".") -> LogOutcome:
    ws = Workspace.open(cwd)
    rid = resolve_any(ws, refocus_id)
    return LogOutcome(id=rid, commits=linkage.linked(ws, rid))
