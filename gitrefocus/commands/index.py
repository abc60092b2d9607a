"""``git refocus index``: regenerate docs/refocus/INDEX.md."""

from __future__ import annotations

from gitrefocus.ops import index_md
from gitrefocus.ops.reconcile import fresh_catalog
from gitrefocus.store.workspace import Workspace


def index(*, cwd: str = ".") -> dict:
    ws = Workspace.open(cwd)
    cat, notices = fresh_catalog(ws)
    path = index_md.write(cat)
    m = index_md.model(cat)
    return {"path": path, "active": len(m["active"]), "recent": len(m["recent"]),
            "archived": m["archived_count"], "notices": notices}
