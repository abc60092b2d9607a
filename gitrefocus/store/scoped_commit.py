"""``--commit``: a scoped commit of only the files a command wrote, message
``refocus(<id>): <event>``.

A command asked to commit promises it before its first durable write
(:func:`promise`): the message and the files it will write go to local state
(``$GIT_DIR/refocus/commits/<id>.json``). The promise is dropped once the
commit is made (:func:`kept`), or when the command is refused before writing.
A command killed in between leaves the promise, and ``doctor --repair`` keeps
it (:func:`keep`): it commits whichever of those files changed, or, when none
did (the command died before writing them), just drops it.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from gitrefocus.model.ids import INDEX_FILE
from gitrefocus.store import git, localstate

if TYPE_CHECKING:
    from gitrefocus.store.workspace import Workspace

PROMISES = "commits"


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


def promise(ws: Workspace, refocus_id: str, paths: list[str], message: str) -> None:
    """Record, before the first write, that a commit of ``paths`` will follow, and
    where the refocus's ref stands (its event not yet written)."""
    from gitrefocus.store import refs

    before = ws.ref_target(refs.ref_name(refocus_id))
    record = {"refocus_id": refocus_id, "message": message, "paths": sorted(set(paths)), "pid": os.getpid(),
              "before": before}
    localstate.write(ws.git_dir, PROMISES, f"{refocus_id}.json", text=json.dumps(record, indent=1) + "\n")


def kept(ws: Workspace, refocus_id: str) -> None:
    """The promised commit was made, or nothing was written: drop the promise."""
    localstate.remove(ws.git_dir, PROMISES, f"{refocus_id}.json")


def promises(ws: Workspace) -> list[dict[str, Any]]:
    """Every promise left here, each with its ``refocus_id``, ``message``, ``paths`` and ``pid``."""
    directory = localstate._checked(ws.git_dir, PROMISES)
    try:
        names = sorted(os.listdir(directory))
    except (FileNotFoundError, NotADirectoryError):
        return []
    out = []
    for name in names:
        if not name.endswith(".json") or name.startswith("."):
            continue
        try:
            record = json.loads(localstate.read(ws.git_dir, PROMISES, name) or "")
        except ValueError:
            record = None
        if not isinstance(record, dict) or not isinstance(record.get("paths"), list):
            record = {"refocus_id": name[:-5], "message": None, "paths": [], "pid": None}
        out.append(record)
    return out


def keep(ws: Workspace, record: dict[str, Any]) -> str | None:
    """Make the commit a killed command promised, of those of its files that
    changed, once its event was recorded (the refocus's ref moved since the
    promise); drop the promise. The commit, or None when there was nothing to commit."""
    from gitrefocus.store import refs

    rid = str(record.get("refocus_id"))
    paths = [p for p in record.get("paths") or [] if isinstance(p, str) and os.path.lexists(p)]
    message = record.get("message")
    recorded = ws.ref_target(refs.ref_name(rid)) != record.get("before")
    oid = None
    if recorded and isinstance(message, str) and message:
        oid = scoped_commit(ws, paths, message, refocus_id=rid)
    kept(ws, rid)
    return oid
