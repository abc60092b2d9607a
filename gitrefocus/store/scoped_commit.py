"""``--commit``: a scoped commit of only the files a command wrote (seed 003)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from gitrefocus.model.ids import INDEX_FILE

if TYPE_CHECKING:
    from gitrefocus.store.workspace import Workspace


def scoped_commit(ws: Workspace, paths: list[str], message: str) -> str | None:
    """Commit exactly ``paths`` (nothing else staged is included); return the oid."""
    rel = sorted({os.path.relpath(p, ws.workdir) for p in paths if p})
    rel = [p for p in rel if not p.startswith("..") and p != INDEX_FILE]
    if not rel:
        return None
    ws.git("add", "--", *rel)
    status = ws.git("diff", "--cached", "--name-only", "--", *rel).stdout.split()
    if not status:
        return None
    ws.git("commit", "--quiet", "-m", message, "--only", "--", *rel,
           what=f"the refocus was recorded but `git commit` in {ws.workdir}")
    return ws.git("rev-parse", "HEAD").stdout.strip()
