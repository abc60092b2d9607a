"""``git refocus log ID``: the commits that belong to a refocus, oldest first."""

from __future__ import annotations

from typing import Any

from gitrefocus.errors import RefocusError
from gitrefocus.model.ids import RefocusId
from gitrefocus.model.place import DEST
from gitrefocus.model.records import dataclass
from gitrefocus.ops import linkage, places, record
from gitrefocus.store import catalog
from gitrefocus.store.workspace import Workspace


@dataclass(frozen=True)
class LogOutcome:
    id: str
    commits: list[linkage.Commit]  # linked to the refocus, oldest first
    repo: str  # the repository the commits were read from: here, or the destination of an outgoing refocus
    elsewhere: str | None = None  # the destination, when its commits are not on this machine

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "commits": [c.as_dict(self.id) for c in self.commits], "count": len(self.commits),
                "repo": self.repo, "elsewhere": self.elsewhere}


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
    """The commits of ``refocus_id``: here, or, for a refocus this repository spawned
    elsewhere, in its destination when that repository is on this machine."""
    ws = Workspace.open(cwd)
    rid = resolve_any(ws, refocus_id)
    commits = linkage.linked(ws, rid)
    entry = catalog.load(ws, only=rid).entries.get(rid)
    if commits or entry is None or entry.incoming or entry.state is None:
        return LogOutcome(id=rid, commits=commits, repo=ws.workdir)
    dest = record.counterpart(ws, entry.state)  # the work happened there
    if dest is None:
        return LogOutcome(id=rid, commits=[], repo=ws.workdir, elsewhere=places.shown(ws, entry.state, DEST))
    return LogOutcome(id=rid, commits=linkage.linked(dest, rid), repo=dest.workdir)
