"""``git refocus health``: staleness counted from git history, never from mtimes.

For each file under ``refocus.contextDir`` the count is the number of commits
on HEAD since the last commit that changed it (exactly what
``git rev-list --count $(git log -1 --format=%H -- FILE)..HEAD`` says, so it
stays right across rebases: new hashes, same question). Files under
``decisions/`` are records rather than living context and are not scored.

Answers are cached under the git dir keyed by HEAD; when HEAD moved forward
by single-parent commits, only the new commits are walked.
"""

from __future__ import annotations

import json
import os
import posixpath

from gitrefocus.errors import RefocusError
from gitrefocus.health import history
from gitrefocus.model import clock, lifecycle
from gitrefocus.model.place import DEST
from gitrefocus.ops import places
from gitrefocus.store import localstate

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from typing import TypedDict

    from pygit2 import Oid

    from gitrefocus.store.catalog import Catalog
    from gitrefocus.store.workspace import Workspace

    # The health model's shapes (checked only: at run time they are plain dicts, as --json prints them).
    class ContextFile(TypedDict):
        path: str
        committed: bool
        last_commit: str | None
        commits_since: int | None
        at_least: bool  # the count is a lower bound (a bounded walk stopped first)
        stale: bool

    class ContextStaleness(TypedDict):
        context_dir: str
        threshold: int
        enabled: bool
        files: list[ContextFile]
        cache: str | None  # how the counts were found: hit, incremental or walk

    class RefocusWork(TypedDict):
        id: str
        launched_at: str | None
        commits_since_launch: int | None
        with_trailer: int | None
        linked_by_note: int | None
        basis: str | None
        truncated: bool
        flagged: bool

    class Unlaunched(TypedDict):
        id: str
        dest_dir: str | None
        age_hours: float

    class HealthReport(TypedDict):
        repo: str
        head: str | None
        context_dir: str
        threshold: int
        staleness_enabled: bool
        cache: str | None
        context: list[ContextFile]
        stale_context: list[str]
        refocus: list[RefocusWork]
        unlaunched: list[Unlaunched]
        healthy: bool
    from typing import Any

CACHE = ("cache", "health.json")
CACHE_VERSION = 1
TRACKED = ("cache", "context-files.json")  # {"key": [head, directory], "files": [...]}
QUICK_WALK = 1000  # status and hooks: files older than this show as "1000+"
INCREMENTAL_LIMIT = 20_000  # beyond this many new commits, start over
LAUNCH_WALK_LIMIT = 10_000
UNSCORED_DIRS = ("decisions",)


def context_dir(ws: Workspace) -> str:
    """``refocus.contextDir`` as a clean relative path, or a RefocusError."""
    raw = str(ws.setting("contextDir") or "").strip()
    norm = posixpath.normpath(raw.replace("\\", "/")) if raw else ""
    if not norm or norm == "." or norm.startswith(("/", "../")) or norm == ".." or "\n" in norm:
        raise RefocusError(f"refocus.contextDir {raw!r} must be a relative path inside the repository "
                           "(fix it with: git config refocus.contextDir docs/context).")
    return norm


def _scored(rel: str) -> bool:
    first = rel.split("/", 1)[0]
    return not (first in UNSCORED_DIRS and "/" in rel) and not posixpath.basename(rel).startswith(".")


def tracked_files(ws: Workspace, head: str | None, directory: str) -> list[str]:
    """Files (blobs and symlinks) under ``directory`` in ``head``'s tree: one
    ``git ls-tree`` (no libgit2 to load for a status), kept under the git dir
    by head and directory, since a commit's tree never changes. A status or a
    session start with HEAD where it was runs no git for it."""
    from gitrefocus.store import git

    if head is None:
        return []
    key = [str(head), directory]
    try:
        kept = json.loads(localstate.read(ws.git_dir, *TRACKED) or "null")
    except (ValueError, RefocusError):
        kept = None
    if isinstance(kept, dict) and kept.get("key") == key:
        files = kept.get("files")
        if isinstance(files, list) and all(isinstance(p, str) for p in files):
            return files
    code, text = git.read(ws.workdir, "--literal-pathspecs", "ls-tree", "-r", "-z", str(head), "--", directory + "/")
    if code != 0:
        return []
    out = []
    for item in text.split(b"\0"):
        info, tab, path = item.partition(b"\t")
        if tab and info.split(b" ")[1:2] == [b"blob"]:
            out.append(path.decode("utf-8", "surrogateescape"))
    out.sort()
    try:
        localstate.write(ws.git_dir, *TRACKED, text=json.dumps({"key": key, "files": out}))
    except (OSError, RefocusError):
        pass  # not kept: the next status lists them again
    return out


def worktree_files(ws: Workspace, directory: str) -> list[str]:
    """Files under ``directory`` in the work tree (symlinked directories are not entered)."""
    root = os.path.join(ws.workdir, directory)
    out = []
    for base, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not os.path.islink(os.path.join(base, d)))
        for name in files:
            out.append(os.path.relpath(os.path.join(base, name), ws.workdir).replace(os.sep, "/"))
    return sorted(out)


# -- counting -------------------------------------------------------------
def _load_cache(ws: Workspace) -> dict[str, Any]:
    try:
        data = json.loads(localstate.read(ws.git_dir, *CACHE) or "null")
    except (ValueError, RefocusError):
        return {}
    return data if isinstance(data, dict) and data.get("version") == CACHE_VERSION else {}


def _save_cache(ws: Workspace, head: str, directory: str, counts: dict[str, Any]) -> None:
    doc = {"version": CACHE_VERSION, "head": head, "dir": directory,
           "files": {p: [c, n] for p, (c, n) in counts.items()}}
    try:
        localstate.write(ws.git_dir, *CACHE, text=json.dumps(doc, separators=(",", ":")))
    except (OSError, RefocusError):
        pass  # a cache that cannot be written only makes the next run slower


def last_changes(ws: Workspace, *, head: str, directory: str, paths: list[str],
                 walk_limit: int | None = None) -> tuple[dict[str, Any], str]:
    """{path: (commit, count, exact)} and how it was obtained (hit, incremental, walk).

    ``walk_limit`` makes it quick and bounded (status, hooks): a file not
    seen within that many commits, or before the first merge, gets
    ``(None, n, False)``, "at least n commits", instead of an exact answer
    that could take a full history walk per file.
    """
    cache = _load_cache(ws)
    cached = cache.get("files") if cache.get("dir") == directory else None
    if cached is not None and cache.get("head") == head and all(p in cached for p in paths):
        return {p: (cached[p][0], cached[p][1], True) for p in paths}, "hit"
    out: dict[str, tuple[str | None, int | None, bool]] = {}
    how = "walk"
    if cached is not None and cache.get("head"):
        out = _incremental(ws, head, directory, paths, cache["head"], cached)
        how = "incremental" if out else how
    if not out:
        walk = history.walk_last_changes(ws, head=head, paths=set(paths), directory=directory, limit=walk_limit)
        out = {p: (c, n, True) for p, (c, n) in walk.found.items()}
        if walk_limit is not None and walk.stop == "limit":
            out.update({p: (None, walk.seen, False) for p in paths if p not in out})
        elif walk_limit is not None and walk.stop == "merge":
            out.update(_bounded_past_merges(ws, head, [p for p in paths if p not in out], walk_limit))
    missing = [p for p in paths if p not in out]
    for p, (c, n) in history.exact_last_changes(ws, head=head, paths=missing).items():
        out[p] = (c, n, True)
    if all(exact for _, _, exact in out.values()):
        _save_cache(ws, head, directory, {p: (c, n) for p, (c, n, _) in out.items() if c is not None})
    return out, how


def _bounded_past_merges(ws: Workspace, head: str, paths: list[str], steps: int) -> dict[str, Any]:
    """Per-file answers that never look further back than ``head~steps``."""
    bound, within = history.first_parent_bound(ws, head=head, steps=steps)
    out = {}
    for p, (c, n) in history.exact_last_changes(ws, head=head, paths=paths, bound=bound).items():
        out[p] = (c, n, True) if c is not None else (None, within, False)
    return out


def _incremental(ws: Workspace, head: str, directory: str, paths: list[str], old: str, cached: dict[str, Any]) -> dict[str, Any]:
    """Counts for ``head`` from those for ``old`` when head = old + a chain of new commits."""
    try:
        walk = history.walk_last_changes(ws, head=head, paths=set(paths), directory=directory, exclude=old,
                                         limit=INCREMENTAL_LIMIT, stop_when_found=False)
    except RefocusError:  # e.g. the old head was garbage-collected
        return {}
    if walk.stop == "merge" or walk.seen == 0 or walk.last_parents != old:
        return {}  # rewritten, reset, merged or too far: walk from scratch
    out = {}
    for p in paths:
        if p in walk.found:
            c, n = walk.found[p]
            out[p] = (c, n, True)
        elif p in cached:
            out[p] = (cached[p][0], cached[p][1] + walk.seen, True)
    return out


def context_staleness(*, ws: Workspace, walk_limit: int | None = None) -> ContextStaleness:
    """Every context file with its commit count and whether it is stale."""
    threshold: int = ws.setting("stalenessCommits")
    directory = context_dir(ws)
    model: ContextStaleness = {"context_dir": directory, "threshold": threshold, "enabled": threshold > 0,
                               "files": [], "cache": None}
    if threshold <= 0:
        return model
    if walk_limit is not None:
        walk_limit = max(walk_limit, threshold + 1)
    head = ws.head_hex()
    tracked = [p for p in tracked_files(ws, head, directory) if _scored(p[len(directory) + 1:])]
    counts, model["cache"] = last_changes(ws, head=str(head), directory=directory, paths=tracked,
                                          walk_limit=walk_limit) if tracked else ({}, None)
    on_disk = [p for p in worktree_files(ws, directory) if _scored(p[len(directory) + 1:])]
    for path in sorted(set(tracked) | set(on_disk)):
        commit, count, exact = counts.get(path, (None, None, True))
        committed = path in counts
        model["files"].append({
            "path": path, "committed": committed, "last_commit": commit, "commits_since": count,
            "at_least": not exact, "stale": committed and count is not None and count > threshold,
        })
    return model


def describe(f: ContextFile) -> str:
    if not f["committed"]:
        return f"{f['path']} (not committed yet)"
    n = f["commits_since"]
    return f"{f['path']} ({n}{'+' if f['at_least'] else ''} commit{'s' if n != 1 else ''} behind)"


# -- refocus work ---------------------------------------------------------
def refocus_work(*, ws: Workspace, cat: Catalog, head: Oid | None) -> list[RefocusWork]:
    """For each in-progress refocus worked on here: commits since launch, and how many are linked."""
    out: list[RefocusWork] = []
    noted = history.has_notes(ws)
    others: list[str] | None = None
    for entry in sorted(cat.entries.values(), key=lambda e: e.id):
        if entry.status != lifecycle.IN_PROGRESS or not entry.incoming:
            continue
        if others is None:
            others = history.worktree_heads(ws)
        launched = entry.state.launched_at if entry.state else None
        row: RefocusWork = {"id": entry.id, "launched_at": launched, "commits_since_launch": None, "with_trailer": None,
               "linked_by_note": None, "basis": None, "truncated": False, "flagged": False}
        if launched and head is not None:
            since = history.commits_since_event(ws, head=head, refocus_id=entry.id, event="started",
                                                at_epoch=int(clock.parse(launched).timestamp()),
                                                limit=LAUNCH_WALK_LIMIT, also=others or ())
            links = [history.linked_to(ws, c, entry.id, noted) for c in since.commits]
            with_trailer = sum(1 for link in links if link["trailer"])
            linked_by_note = sum(1 for link in links if link["note"] and not link["trailer"])
            row.update({"commits_since_launch": len(since.commits), "basis": since.basis, "truncated": since.truncated,
                        "with_trailer": with_trailer, "linked_by_note": linked_by_note})
            row["flagged"] = len(since.commits) > 0 and with_trailer + linked_by_note == 0
        out.append(row)
    return out


def unlaunched(*, ws: Workspace, cat: Catalog) -> list[Unlaunched]:
    """Outgoing briefs still reserved past ``refocus.staleReservedHours``."""
    hours = ws.setting("staleReservedHours")
    out: list[Unlaunched] = []
    for entry in sorted(cat.entries.values(), key=lambda e: e.id):
        age = entry.unlaunched_hours(hours)
        if age is not None:
            out.append({"id": entry.id, "dest_dir": places.shown(ws, entry.state, DEST) if entry.state else None,
                        "age_hours": round(age, 1)})
    return out


def health(*, cwd: str = ".") -> HealthReport:
    """The ``git refocus health`` model."""
    from gitrefocus.store import catalog
    from gitrefocus.store.workspace import Workspace

    ws = Workspace.open(cwd)
    head = ws.head_oid()
    context = context_staleness(ws=ws)
    cat = catalog.load(ws)
    work = refocus_work(ws=ws, cat=cat, head=head)
    waiting = unlaunched(ws=ws, cat=cat)
    stale = [f for f in context["files"] if f["stale"]]
    return {
        "repo": ws.workdir,
        "head": str(head) if head is not None else None,
        "context_dir": context["context_dir"],
        "threshold": context["threshold"],
        "staleness_enabled": context["enabled"],
        "cache": context["cache"],
        "context": context["files"],
        "stale_context": [f["path"] for f in stale],
        "refocus": work,
        "unlaunched": waiting,
        "healthy": not stale and not any(w["flagged"] for w in work) and not waiting,
    }
