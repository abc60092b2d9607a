"""``git refocus list``: the refocuses of this repository, active and recent."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gitrefocus.ops import index_md
from gitrefocus.ops.index_md import Row
from gitrefocus.ops.reconcile import fresh_catalog
from gitrefocus.store.workspace import Workspace


@dataclass(frozen=True)
class ListOutcome:
    repo: str
    entries: list[Row]  # newest first
    notices: list[str]

    def to_json(self) -> dict[str, Any]:
        return {"repo": self.repo, "entries": [r.to_json() for r in self.entries], "notices": self.notices}


def list_(*, all: bool = False, cwd: str = ".") -> ListOutcome:
    ws = Workspace.open(cwd)
    cat, notices = fresh_catalog(ws)
    if all:
        rows = [index_md.row(e, ws.workdir) for e in sorted(cat.entries.values(), key=lambda e: e.id, reverse=True)]
    else:
        m = index_md.model(cat)
        rows = m.active + m.recent
    return ListOutcome(repo=ws.workdir, entries=rows, notices=notices)
