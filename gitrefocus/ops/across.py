"""Reading every registered repository (``--global``): which ones are usable, and why not.

Each registry entry is checked before anything in it is read: a path that
vanished is reported (and dropped with ``prune``); a symlinked entry, a
symlinked ``.git`` or a ``docs/refocus`` that resolves outside its work tree is
skipped with a warning and never followed; an unreadable one is skipped; one
that opted out (``refocus.global=false``) is left alone. Nothing is written
in the repositories read (no reconciling of hand edits; only the catalog's
own cache, as a local ``list`` would).
"""

from __future__ import annotations

import os
import stat
from typing import Any

from gitrefocus.errors import RefocusError
from gitrefocus.model.records import dataclass, field
from gitrefocus.store import catalog, registry
from gitrefocus.store.catalog import Catalog
from gitrefocus.store.workspace import REFOCUS_DIR, Workspace, is_inside


@dataclass(frozen=True)
class Skipped:
    path: str
    reason: str
    vanished: bool = False  # gone for good: --prune drops it
    warn: bool = True  # opting out is a choice, not a problem

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "reason": self.reason, "vanished": self.vanished}


@dataclass
class Across:
    repos: list[Catalog] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    pruned: list[str] = field(default_factory=list)

    @property
    def warnings(self) -> list[str]:
        out = [f"{s.path}: {s.reason}" + ("" if not s.vanished or self.pruned else " (drop it with --prune)")
               for s in self.skipped if s.warn]
        out += [f"pruned {p} from the registry." for p in self.pruned]
        return out

    def to_json(self) -> dict[str, Any]:
        return {"registry": registry.path(), "repositories": [c.ws.workdir for c in self.repos],
                "skipped": [s.to_json() for s in self.skipped], "pruned": self.pruned}


def check(path: str) -> Skipped | None:
    """Why the registered ``path`` cannot be read safely, or None when it can."""
    if not os.path.isabs(path):
        return Skipped(path, "not an absolute path", vanished=True)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return Skipped(path, "vanished (no such directory)", vanished=True)
    except OSError as exc:
        return Skipped(path, f"unreadable: {exc.strerror}")
    if stat.S_ISLNK(st.st_mode):
        return Skipped(path, "is a symlink; skipped, not followed")
    if not stat.S_ISDIR(st.st_mode):
        return Skipped(path, "vanished (no longer a directory)", vanished=True)
    dotgit = os.path.join(path, ".git")
    try:
        git_st = os.lstat(dotgit)
        os.listdir(path)
    except FileNotFoundError:
        return Skipped(path, "vanished (no longer a git repository)", vanished=True)
    except OSError as exc:
        return Skipped(path, f"unreadable: {exc.strerror}")
    if stat.S_ISLNK(git_st.st_mode):
        return Skipped(path, ".git is a symlink; skipped, not followed")
    briefs = os.path.join(path, REFOCUS_DIR)
    if os.path.lexists(briefs) and not is_inside(os.path.realpath(briefs), os.path.realpath(path)):
        return Skipped(path, f"{REFOCUS_DIR} resolves to {os.path.realpath(briefs)}, outside the repository; skipped")
    return None


def workspaces(*, prune: bool = False) -> tuple[list[Workspace], Across]:
    """Every registered repository that can be read safely (one per repository, not per
    worktree), and an :class:`Across` with what was skipped or pruned (no catalogs yet)."""
    out = Across()
    usable: list[Workspace] = []
    seen: set[str] = set()
    for path in registry.entries():
        problem = check(path)
        ws = None
        if problem is None:
            try:
                ws = Workspace.open(path)
            except RefocusError as exc:
                problem = Skipped(path, f"unreadable: {exc}")
        if ws is not None and ws.workdir != os.path.realpath(path):
            problem = Skipped(path, f"not the top of a work tree (that is {ws.workdir})", vanished=True)
        elif ws is not None and registry.opted_out(ws.repo.config):
            problem = Skipped(path, "opted out (refocus.global=false)", warn=False)
        if problem is not None:
            out.skipped.append(problem)
            continue
        assert ws is not None
        if ws.common_dir not in seen:  # another worktree of a repository already read: same refs
            seen.add(ws.common_dir)
            usable.append(ws)
    if prune:
        out.pruned = registry.remove({s.path for s in out.skipped if s.vanished})
    return usable, out


def open_all(*, prune: bool = False) -> Across:
    """A catalog for every registered repository that can be read."""
    usable, out = workspaces(prune=prune)
    for ws in usable:
        try:
            out.repos.append(catalog.load(ws))
        except (RefocusError, OSError) as exc:
            out.skipped.append(Skipped(ws.workdir, f"unreadable: {exc}"))
    return out
