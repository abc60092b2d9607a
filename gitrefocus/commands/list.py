"""``git refocus list``: the refocuses of this repository, active and recent."""

from __future__ import annotations

from gitrefocus.model.records import dataclass
from gitrefocus.ops import index_md
from gitrefocus.ops.index_md import Row
from gitrefocus.ops.reconcile import settle
from gitrefocus.store.catalog import Catalog
from gitrefocus.store.workspace import Workspace

TYPE_CHECKING = False  # no `typing` at run time: a listing and the hooks import this module
if TYPE_CHECKING:
    from typing import Any


@dataclass(frozen=True)
class ListOutcome:
    repo: str
    entries: list[Row]  # newest first
    notices: list[str]

    def to_json(self) -> dict[str, Any]:
        return {"repo": self.repo, "entries": [r.to_json() for r in self.entries], "notices": self.notices}


def list_(*, all: bool = False, cwd: str = ".") -> ListOutcome:
    ws = Workspace.open(cwd)
    notices = settle(ws)  # hand edits imported first; then nothing else needs a look
    if all:  # a row at a time, newest first: the entries are not all held at once
        rows = [index_md.row(e, ws) for e in Catalog(ws).stream()]
    else:  # what INDEX.md shows, read through the index: the older entries are not loaded
        m = index_md.overview_model(ws)
        rows = m.active + m.recent
    return ListOutcome(repo=ws.workdir, entries=rows, notices=notices)
