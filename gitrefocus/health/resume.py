"""Diff on resume: what changed in this repository since this user's last session start.

The marker lives in the git dir (``refocus/last-session/<user>.json``), one per
user, never synced, never read or written through a symlink. It records the
HEAD and a hash of every context file at the last session start, so the
commits since then come from history (``last..HEAD``) and the changed context
files from content, not from mtimes that backups and syncs disturb.

The SessionStart hook calls :func:`changes_since_last_session` with
``update_marker=True``; ``status`` calls it read-only. The first call with no
marker only writes one: there is nothing to compare with yet.
"""

from __future__ import annotations

import getpass
import hashlib
import json
import os
import re

from gitrefocus.health import history
from gitrefocus.health.staleness import context_dir
from gitrefocus.model import clock
from gitrefocus.store import localstate
from gitrefocus.store.config import BUDGETS

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from typing import Any

    from gitrefocus.health.history import CommitInfo
    from gitrefocus.store.workspace import Workspace

MARKER_DIR = "last-session"
MARKER_VERSION = 1
# commit onelines shown per budget (refocus.budget); economy shows no diff at all
ONELINES = {"economy": 0, "light": 3, "standard": 5, "detailed": 10}
COUNT_LIMIT = 1000
MAX_HASHED_BYTES = 8 << 20


def user_key() -> str:
    try:
        name = getpass.getuser()
    except Exception:  # noqa: BLE001 - no login name in the environment or the password database
        name = ""
    name = re.sub(r"[^A-Za-z0-9._-]", "_", name).strip(".") or f"uid-{os.getuid()}"
    return name[:64]


def _marker_parts() -> tuple[str, str]:
    return MARKER_DIR, user_key() + ".json"


def read_marker(ws: Workspace) -> dict[str, Any] | None:
    """The marker of this user here, None if there is none (RefocusError if it is a symlink)."""
    text = localstate.read(ws.git_dir, *_marker_parts())
    if not text:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) and data.get("version") == MARKER_VERSION else None


def context_hashes(ws: Workspace) -> dict[str, str]:
    """{path: sha1} of the regular files under the context dir in the work tree."""
    directory = context_dir(ws)
    root = os.path.join(ws.workdir, directory)
    out = {}
    for base, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".") and not os.path.islink(os.path.join(base, d))]
        for name in files:
            full = os.path.join(base, name)
            if name.startswith(".") or os.path.islink(full):
                continue
            try:
                with open(full, "rb") as fh:
                    digest = hashlib.sha1(fh.read(MAX_HASHED_BYTES)).hexdigest()
            except OSError:
                continue
            out[os.path.relpath(full, ws.workdir).replace(os.sep, "/")] = digest
    return out


def write_marker(ws: Workspace, *, head: str | None = None, hashes: dict[str, Any] | None = None) -> None:
    head = ws.head_hex() if head is None else head
    doc = {"version": MARKER_VERSION, "at": clock.now_iso(), "head": str(head) if head is not None else None,
           "context": context_hashes(ws) if hashes is None else hashes}
    localstate.write(ws.git_dir, *_marker_parts(), text=json.dumps(doc, indent=1, sort_keys=True) + "\n")


def _commits(ws: Workspace, head: str | None, marker: dict[str, Any]) -> tuple[list[CommitInfo], bool]:
    if head is None:
        return [], False
    old = marker.get("head")
    if old == str(head):  # nothing committed since: no history to read
        return [], False
    if old:
        try:
            known = ws.repo.get(old) is not None
        except ValueError:
            known = False
        if known:
            return history.commits_in_range(ws, head=head, exclude=old, limit=COUNT_LIMIT)
    try:
        at = int(clock.parse(marker.get("at") or "").timestamp())
    except ValueError:
        return [], False
    if old is None:  # the repository had no commits at the last session start
        return history.commits_in_range(ws, head=head, exclude=None, limit=COUNT_LIMIT)
    return history.commits_after(ws, head=head, at_epoch=at, limit=COUNT_LIMIT)


def _file_changes(before: dict[str, Any], now: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for path in sorted(set(before) | set(now)):
        if path not in before:
            out.append({"path": path, "change": "added"})
        elif path not in now:
            out.append({"path": path, "change": "deleted"})
        elif before[path] != now[path]:
            out.append({"path": path, "change": "modified"})
    return out


def changes_since_last_session(*, ws: Workspace, budget: str | None = None, update_marker: bool = False,
                               max_commits: int | None = None) -> dict[str, Any] | None:
    """Commits and changed context files since this user's last session start here.

    Returns None when there is nothing to say: no marker yet (the first
    session), nothing changed, or the ``economy`` budget. Commit onelines are
    capped by the budget (light 3, standard 5, detailed 10) unless
    ``max_commits`` says otherwise. With ``update_marker`` the marker then
    moves to now (the hook does this; status does not). Raises RefocusError
    if the marker is a symlink.
    """
    budget = budget or ws.setting("budget")
    if budget not in BUDGETS:
        budget = "standard"
    cap = ONELINES[budget] if max_commits is None or budget == "economy" else max(0, max_commits)
    marker = read_marker(ws)
    head = ws.head_hex()
    hashes = context_hashes(ws)
    if update_marker:
        write_marker(ws, head=head, hashes=hashes)
    if marker is None or ONELINES[budget] == 0:
        return None
    commits, truncated = _commits(ws, head, marker)
    files = _file_changes(marker.get("context") or {}, hashes)
    if not commits and not files:
        return None
    shown = commits[:cap]
    return {
        "since": marker.get("at"),
        "last_head": marker.get("head"),
        "head": str(head) if head is not None else None,
        "budget": budget,
        "total_commits": len(commits),
        "truncated": truncated,
        "commits": [{"oid": c.oid, "oneline": c.oneline()} for c in shown],
        "more": len(commits) - len(shown),
        "context_files": files,
    }


def _count(changes: dict[str, Any]) -> str:
    n = changes["total_commits"]
    return f"{n}{'+' if changes['truncated'] else ''} commit{'s' if n != 1 else ''}"


def lines(changes: dict[str, Any]) -> list[str]:
    """Display lines (the status dashboard)."""
    out = [f"{_count(changes)} since {changes['since']}"]
    out += [c["oneline"] for c in changes["commits"]]
    if changes["more"]:
        out.append(f"(+{changes['more']}{'+' if changes['truncated'] else ''} more)")
    out += [f"{f['path']} {f['change']}" for f in changes["context_files"]]
    return out


def session_start_lines(ws: Workspace, *, budget: str | None = None, max_commits: int | None = None) -> list[str]:
    """One-line advisories for the SessionStart hook (this moves the user's marker).

    Stale context (a bounded walk, cached by HEAD), what changed since the
    last session start, and where the decision index is. Plain statements.
    """
    from gitrefocus.health import staleness

    out = []
    stale = staleness.context_staleness(ws=ws, walk_limit=staleness.QUICK_WALK)
    files = [f for f in stale["files"] if f["stale"]]
    if files:
        out.append(f"Context files with more than {stale['threshold']} commits since their last change: "
                   + ", ".join(staleness.describe(f) for f in files) + "; they may not reflect recent work.")
    changes = changes_since_last_session(ws=ws, budget=budget, update_marker=True, max_commits=max_commits)
    if changes:
        out.append(render(changes).replace("\n  ", " ").replace("\n", " "))
    index = f"{context_dir(ws)}/decisions/INDEX.md"
    if os.path.isfile(os.path.join(ws.workdir, index)):
        out.append(f"A decision index is at {index}: a lookup table of the ADRs, so reading every ADR file is unnecessary.")
    return out


def render(changes: dict[str, Any]) -> str:
    """The advisory for a session's context: plain statements, never instructions
    (docs/delivery.md)."""
    out = [f"Since the last session start here ({changes['since']}, {_count(changes)}):"]
    if changes["commits"]:
        onelines = " | ".join(c["oneline"] for c in changes["commits"])
        if changes["more"]:
            onelines += f" | (+{changes['more']}{'+' if changes['truncated'] else ''} more)"
        out.append(f"  repo: {onelines}")
    if changes["context_files"]:
        out.append("  context: " + ", ".join(f"{f['path']} {f['change']}" for f in changes["context_files"]))
        out.append("The context files listed above changed since the last session; their current content "
                   "is newer than anything an earlier session knew.")
    return "\n".join(out)
