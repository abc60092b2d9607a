"""``git refocus list``: the refocuses of this repository, active and recent."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gitrefocus.ops import index_md
from gitrefocus.ops.index_md import Row
from gitrefocus.ops.reconcile import fresh_catalog, settle
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
    if all:
        cat, notices = fresh_catalog(ws)
        rows = [index_md.row(e, ws.workdir) for e in sorted(cat.entries.values(), key=lambda e: e.id, reverse=True)]
    else:  # what INDEX.md shows, read through the index: the older entries are not loaded
        notices = settle(ws)
        m = index_md.overview_model(ws)
        rows = m.active + m.recent
    return ListOutcome(repo=ws.workdir, entries=rows, notices=notices)
