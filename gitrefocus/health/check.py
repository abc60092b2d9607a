"""``git refocus check ID``: what a refocus said it would do, against what git shows.

A lightweight heuristic (a flag, never an audit): each ``done_when``
criterion, each artifact the result lists and each material change is looked
up in the destination repository's history since spawn, and every mismatch
becomes a flag to verify. Nothing here decides that work was or was not done:
work can land under another name, in an unlinked commit, or outside git.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Sequence
from typing import Any

from gitrefocus.errors import RefocusError
from gitrefocus.health import history
from gitrefocus.health.staleness import context_dir
from gitrefocus.model import clock
from gitrefocus.model.events import RefocusState
from gitrefocus.model.ids import ref_name
from gitrefocus.model.place import DEST
from gitrefocus.model.result import Artifact, MaterialChange, Result
from gitrefocus.ops import places, record
from gitrefocus.store import catalog, eventlog, git
from gitrefocus.store.catalog import Entry
from gitrefocus.store.workspace import Workspace, is_inside

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from pygit2 import Oid, Tree

SPAWN_WALK_LIMIT = 20_000
# path-like words in a criterion: a/b, name.ext (not a version number like 1.2)
_PATH_RE = re.compile(r"`([^`\n]+)`|((?:[\w.-]+/)+[\w.-]+|[\w-][\w.-]*\.[A-Za-z][A-Za-z0-9]{0,7})(?![\w/])")


def _item(label: str, **fields: Any) -> dict[str, Any]:
    return {"label": label, "flags": [], "facts": [], **fields}


class _Repo:
    """The destination repository as the checks see it: HEAD, the work tree, linked commits."""

    def __init__(self, ws: Workspace, refocus_id: str, state: RefocusState) -> None:
        self.ws = ws
        self.id = refocus_id
        self.head = ws.head_oid()
        self.head_tree = eventlog.commit_at(ws.repo, self.head).tree if self.head is not None else None
        spawned = state.spawned_at
        self.since = None
        if self.head is not None and spawned:
            self.since = history.commits_since_event(
                ws, head=self.head, refocus_id=refocus_id, event="spawned",
                at_epoch=int(clock.parse(spawned).timestamp()), limit=SPAWN_WALK_LIMIT)
        commits = self.since.commits if self.since else []
        noted = history.has_notes(ws)
        self.linked = []
        for c in commits:
            how = history.linked_to(ws, c, refocus_id, noted)
            if how["trailer"] or how["note"]:
                self.linked.append((c, "trailer" if how["trailer"] else "note"))
        self.touched: dict[str, list[str]] = {}  # path -> linked commit ids that changed it
        for c, _ in self.linked:
            for path in self._changed_paths(c.oid):
                self.touched.setdefault(path, []).append(c.oid)
        self._tracked: list[str] | None = None

    def _changed_paths(self, oid: str) -> set[str]:
        commit = eventlog.commit_at(self.ws.repo, oid)
        if commit.parent_ids:
            diff = self.ws.repo.diff(commit.parents[0].tree, commit.tree)  # type: ignore[call-overload]  # stubs omit (Tree, Tree)
        else:
            diff = commit.tree.diff_to_tree(swap=True)
        return {p for d in diff.deltas for p in (d.old_file.path, d.new_file.path) if p}

    @property
    def anchor_tree(self) -> Tree | None:
        """The tree at spawn (None: history before spawn is unknown, treat as empty)."""
        if self.since and self.since.anchor:
            return eventlog.commit_at(self.ws.repo, self.since.anchor).tree
        return None

    def blob_at(self, tree: Tree | None, path: str) -> Oid | None:
        if tree is None:
            return None
        try:
            entry = tree[path]
        except KeyError:
            return None
        return entry.id

    def at_head(self, path: str) -> bool:
        return self.blob_at(self.head_tree, path) is not None

    def in_worktree(self, path: str) -> bool:
        return os.path.lexists(os.path.join(self.ws.workdir, path))

    def worktree_differs(self, path: str) -> bool:
        full = os.path.join(self.ws.workdir, path)
        head_id = self.blob_at(self.head_tree, path)
        if not os.path.isfile(full) or os.path.islink(full):
            return head_id is not None and not os.path.lexists(full)
        with open(full, "rb") as fh:
            return head_id is None or git.blob_hash(fh.read()) != str(head_id)

    def touched_by_linked(self, path: str) -> list[str]:
        prefix = path.rstrip("/") + "/"
        hits = set(self.touched.get(path, []))
        for p, oids in self.touched.items():
            if p.startswith(prefix):
                hits.update(oids)
        return sorted(hits)

    def find_by_name(self, name: str) -> list[str]:
        """Tracked paths ending in /name (for criteria that name a file without its directory)."""
        if self._tracked is None:
            self._tracked = [e.path for e in self.ws.repo.index]
        return [p for p in self._tracked if p == name or p.endswith("/" + name)][:5]


def _short(oids: list[str]) -> str:
    return ", ".join(o[:7] for o in oids[:5]) + (f" and {len(oids) - 5} more" if len(oids) > 5 else "")


def _repo_path(ws: Workspace, raw: str) -> str | None:
    """An artifact path relative to the repository root, or None if it points outside."""
    path = raw.strip()
    if os.path.isabs(path):
        real = os.path.realpath(path)
        if not is_inside(real, ws.workdir):
            return None
        path = os.path.relpath(real, ws.workdir)
    norm = posixpath.normpath(path.replace(os.sep, "/"))
    if norm == ".." or norm.startswith("../"):
        return None
    return norm


def check_done_when(repo: _Repo, done_when: list[str], result: Result | None) -> list[dict[str, Any]]:
    claims = {d.criterion: d for d in result.dod} if result else {}
    items = []
    for criterion in done_when:
        item = _item(criterion, criterion=criterion, met=None, paths=[])
        claim = claims.get(criterion)
        if result is None:
            item["facts"].append("no result recorded yet.")
        elif claim is None:
            item["flags"].append("the result does not say whether this was met — verify.")
        elif claim.met:
            item["met"] = True
            item["facts"].append("the result marks this met.")
            if not repo.linked:
                item["flags"].append(f"marked met, but no commit since spawn is linked to {repo.id} "
                                     "(no Refocus-Id trailer, no link note) — verify where the work landed.")
        else:
            item["met"] = False
            note = claim.note
            item["flags"].append("the result marks this not met" + (f" ({note})" if note else "") + " — verify.")
        for m in _PATH_RE.finditer(criterion):
            name = (m.group(1) or m.group(2)).strip()
            path = _repo_path(repo.ws, name)
            if path is None or not name:
                continue
            info: dict[str, Any] = {"path": path, "at_head": repo.at_head(path), "touched_by": repo.touched_by_linked(path)}
            if not info["at_head"]:
                elsewhere = repo.find_by_name(posixpath.basename(path)) if "/" not in path else []
                if elsewhere:
                    info["found_as"] = elsewhere
                    item["facts"].append(f"`{path}` is not at the top level, but HEAD has {', '.join(elsewhere)}.")
                elif repo.in_worktree(path):
                    item["flags"].append(f"names `{path}`, which is in the work tree but not committed — verify.")
                else:
                    item["flags"].append(f"names `{path}`, which does not exist at HEAD — verify.")
            elif info["touched_by"]:
                item["facts"].append(f"`{path}` exists at HEAD, changed by linked commit(s) {_short(info['touched_by'])}.")
            else:
                item["flags"].append(f"names `{path}`, which exists at HEAD but no linked commit touched it — verify.")
            item["paths"].append(info)
        items.append(item)
    return items


def check_artifacts(repo: _Repo, artifacts: Sequence[Artifact]) -> list[dict[str, Any]]:
    items = []
    for art in artifacts:
        raw = art.path or ""
        path = _repo_path(repo.ws, raw)
        item = _item(raw, path=path, description=art.description, at_head=False, in_worktree=False,
                     touched_by=[])
        if path is None:
            item["flags"].append("points outside this repository — verify where it lives.")
            items.append(item)
            continue
        item.update(at_head=repo.at_head(path), in_worktree=repo.in_worktree(path),
                    touched_by=repo.touched_by_linked(path))
        if item["at_head"]:
            item["facts"].append("exists at HEAD.")
        elif item["in_worktree"]:
            item["flags"].append("exists in the work tree but not at HEAD — verify it should be committed.")
        else:
            item["flags"].append("does not exist at HEAD or in the work tree — verify it was produced, or where it went.")
        if item["touched_by"]:
            item["facts"].append(f"changed by linked commit(s) {_short(item['touched_by'])}.")
        elif item["at_head"]:
            item["flags"].append(f"no commit linked to {repo.id} touched it — verify it was produced for this refocus "
                                 "(unlinked commits can be linked with git refocus link).")
        items.append(item)
    return items


def check_material_changes(repo: _Repo, changes: Sequence[MaterialChange], directory: str) -> list[dict[str, Any]]:
    items = []
    base = repo.anchor_tree
    for change in changes:
        path = f"{directory}/{change.file}"
        item = _item(f"{change.file} — {change.summary}", path=path, file=change.file,
                     summary=change.summary, changed_since_spawn=False, uncommitted=False)
        before, now = repo.blob_at(base, path), repo.blob_at(repo.head_tree, path)
        item["changed_since_spawn"] = now is not None and now != before
        item["uncommitted"] = repo.worktree_differs(path)
        if item["changed_since_spawn"]:
            touched = repo.touched_by_linked(path)
            item["facts"].append("changed since spawn" + (f", by linked commit(s) {_short(touched)}." if touched else "."))
            if item["uncommitted"]:
                item["facts"].append("has further uncommitted changes in the work tree.")
        elif item["uncommitted"]:
            item["flags"].append(f"{path} changed in the work tree but not in any commit since spawn — verify and commit it.")
        elif now is None:
            item["flags"].append(f"{path} does not exist at HEAD — verify the change was promoted (git refocus complete does).")
        else:
            item["flags"].append(f"{path} has not changed since spawn — verify the change was recorded there.")
        items.append(item)
    return items


def _target(ws: Workspace, entry: Entry, state: RefocusState) -> Workspace:
    """Check against the destination: here, or the dest repo when this is the source."""
    if entry.direction != "outgoing":
        return ws
    dest = Workspace.try_open(places.local_dir(ws, state, DEST))
    if dest is None:
        raise RefocusError(f"{entry.id} was worked on in {places.shown(ws, state, DEST)}, which is not reachable here; "
                           "run git refocus check there.")
    return dest


def check(*, refocus_id: str, cwd: str = ".") -> dict[str, Any]:
    ws = Workspace.open(cwd)
    rid = catalog.resolve_id(ws, refocus_id)
    entry = catalog.load(ws, only=rid).entries.get(rid)
    if entry is None or entry.state is None:
        raise RefocusError(f"{rid} has no event log here ({ref_name(rid)}); run git refocus doctor --repair.")
    dest = _target(ws, entry, entry.state)
    tip = eventlog.read_tip(dest.repo, rid) or eventlog.read_tip(ws.repo, rid)
    state = tip.state if tip else entry.state
    doc = record.current_doc(dest, rid, tip)
    done_when = list(doc.meta.get("done_when") or []) if doc else []
    result = Result.from_dict(state.result) if state.result is not None else None
    repo = _Repo(dest, rid, state)
    directory = context_dir(dest)
    model: dict[str, Any] = {
        "id": rid, "status": state.status, "repo": dest.workdir,
        "spawned_at": state.spawned_at, "head": str(repo.head) if repo.head is not None else None,
        "commits_since_spawn": len(repo.since.commits) if repo.since else 0,
        "since_basis": repo.since.basis if repo.since else None,
        "since_truncated": bool(repo.since and repo.since.truncated),
        "linked_commits": [{"oid": c.oid, "subject": c.subject, "by": how} for c, how in repo.linked],
        "has_result": result is not None,
        "done_when": check_done_when(repo, done_when, result),
        "artifacts": check_artifacts(repo, result.artifacts if result else ()),
        "material_changes": check_material_changes(repo, result.material_changes if result else (), directory),
        "no_material_changes": result.no_material_changes if result else None,
    }
    model["flag_count"] = sum(len(i["flags"]) for k in ("done_when", "artifacts", "material_changes") for i in model[k])
    return model
