"""``--commit``: a scoped commit of only the files a command wrote (seed 003)."""

from __future__ import annotations

import os

from gitrefocus.errors import RefocusError


def scoped_commit(ws, paths: list[str], message: str) -> str | None:
    """Commit exactly ``paths`` (nothing else staged is included); return the oid."""
    rel = sorted({os.path.relpath(p, ws.workdir) for p in paths if p})
    rel = [p for p in rel if not p.startswith("..") and p != "docs/refocus/INDEX.md"]
    if not rel:
        return None
    ws.git("add", "--", *rel)
    status = ws.git("diff", "--cached", "--name-only", "--", *rel).stdout.split()
    if not status:
        return None
    proc = ws.git("commit", "--quiet", "-m", message, "--only", "--", *rel, check=False)
    if proc.returncode != 0:
        msg = (proc.stderr or proc.stdout).strip().splitlines()
        raise RefocusError(
            f"the refocus was recorded but `git commit` failed in {ws.workdir}: "
            f"{msg[-1] if msg else 'exit ' + str(proc.returncode)}."
        )
    return ws.git("rev-parse", "HEAD").stdout.strip()
