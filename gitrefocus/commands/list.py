"""``git refocus list``: the refocuses of this repository, active and recent."""

from __future__ import annotations

from gitrefocus.ops import index_md
from gitrefocus.ops.reconcile import fresh_catalog
from gitrefocus.store.workspace import Workspace


def list_(*, all: bool = False, cwd: str = ".") -> dict:
    ws = Workspace.open(cwd)
    cat, notices = fresh_catalog(ws)
    if all:
        rows = [index_md.row(e, ws.workdir) for e in sorted(cat.entries.values(), key=lambda e: e.id, reverse=True)]
    else:
        m = index_md.model(cat)
        rows = m["active"] + m["recent"]
    return {"repo": ws.workdir, "entries": rows, "notices": notices}
