"""``--commit``: a scoped commit of only the files a command wrote (seed 003)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from gitrefocus.model.ids import INDEX_FILE
from gitrefocus.store import git

if TYPE_CHECKING:
    from gitrefocus.store.workspace import Workspace


def scoped_commit(ws: Workspace, paths: list[str], message: str, *, refocus_id: str | None = None) -> str | None:
    """Commit exactly ``paths`` (nothing else staged is included); return the oid.

    A bookkeeping commit carries the Refocus-Id of the refocus it records
    (``refocus_id``) or none, never whatever refocus is active in the worktree:
    the commit-msg hook reads $SESSION_REFOCUS_ID before the worktree's marker."""
    rel = sorted({os.path.relpath(p, ws.workdir) for p in paths if p})
    rel = [p for p in rel if not p.startswith("..") and p != INDEX_FILE]
    if not rel:
        return None
    ws.git("add", "--", *rel)
    status = ws.git("diff", "--cached", "--name-only", "--", *rel).stdout.split()
    if not status:
        return None
    env = {**os.environ, "SESSION_REFOCUS_ID": refocus_id} if refocus_id else None
    git.run(ws.workdir, "commit", "--quiet", "-m", message, "--only", "--", *rel, env=env,
            what=f"the refocus was recorded but `git commit` in {ws.workdir}")
    return ws.git("rev-parse", "HEAD").stdout.strip()
