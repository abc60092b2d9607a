"""``git refocus search TEXT [--cross-project]``: briefs, results and context files.

Searched here: ``docs/refocus/*.md`` (and the archive), split into the brief
and its ``## Result``, and every text file under ``refocus.contextDir``. With
``--cross-project`` also each git work tree directly under a
``refocus.searchPaths`` parent (explicit configuration,
``disabled`` turns it off). Whatever resolves outside its configured parent,
or a file that resolves outside its project, is refused and reported, never
read. ``<private>…</private>`` blocks and files with ``private: true``
frontmatter are never shown.
"""

from __future__ import annotations

import os
import re

from gitrefocus.errors import RefocusError
from gitrefocus.store.workspace import REFOCUS_DIR, Workspace, is_inside

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

MAX_FILE_BYTES = 2 << 20
SNIPPET = 200
_PRIVATE_KEY_RE = re.compile(r"^private:[ \t]*(?:true|yes|on)[ \t]*$", re.I | re.M)


class _Search:
    def __init__(self, text: str, kinds: list[str], limit: int) -> None:
        self.needle = text.casefold()
        self.kinds = set(kinds) or {"brief", "result", "context"}
        self.limit = limit
        self.results: list[dict[str, Any]] = []
        self.refused: list[dict[str, Any]] = []
        self.truncated = False

    @property
    def full(self) -> bool:
        return len(self.results) >= self.limit

    def refuse(self, path: str, reason: str) -> None:
        self.refused.append({"path": path, "reason": reason})

    # -- one project ----------------------------------------------------
    def project(self, root: str, name: str, directory: str) -> None:
        refocus = os.path.join(root, REFOCUS_DIR)
        context = os.path.join(root, directory)
        files = []
        if self._contained(refocus, root):
            for base in [refocus] + sorted(_subdirs(os.path.join(refocus, "archive"))):
                files += [(p, "brief") for p in _md_files(base) if os.path.basename(p) != "INDEX.md"]
        if self._contained(context, root):
            found, linked_dirs = _walk(context)
            files += [(p, "context") for p in found]
            for d in linked_dirs:  # never followed; named when they lead outside
                self._contained(d, root)
        for path, kind in files:
            if self.full:
                self.truncated = True
                return
            self.file(root, name, path, kind)

    def _contained(self, base: str, root: str) -> bool:
        if os.path.lexists(base) and not is_inside(os.path.realpath(base), root):
            self.refuse(base, f"resolves to {os.path.realpath(base)}, outside {root}")
            return False
        return True

    def file(self, root: str, project: str, path: str, kind: str) -> None:
        rel = os.path.relpath(path, root)
        if os.path.islink(path) and not is_inside(os.path.realpath(path), root):
            self.refuse(os.path.join(root, rel), f"resolves to {os.path.realpath(path)}, outside {root}")
            return
        try:
            if os.path.getsize(path) > MAX_FILE_BYTES:
                return
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError:
            return
        if b"\0" in data[:8192]:
            return  # binary
        rid = os.path.basename(path)[:-3] if kind == "brief" else None
        self.text(project, root, rel.replace(os.sep, "/"), data.decode("utf-8", "replace"), kind, rid)

    def text(self, project: str, root: str, shown: str, text: str, kind: str, rid: str | None) -> None:
        """Search ``text`` (a file's, or a brief snapshot's, shown as ``shown``)."""
        if _is_private(text):
            return
        section, private = kind, False
        for number, line in enumerate(text.splitlines(), 1):
            if kind == "brief" and re.match(r"^## Result[ \t]*$", line):
                section = "result"
            if private or "<private>" in line.lower():
                visible, private = _strip_private(line, private)
            else:
                visible = line
            if section not in self.kinds or self.needle not in visible.casefold():
                continue
            if self.full:
                self.truncated = True
                return
            snippet = visible.strip()
            if len(snippet) > SNIPPET:
                snippet = snippet[:SNIPPET - 1] + "…"
            self.results.append({"project": project, "project_dir": root, "path": shown,
                                 "line": number, "kind": section, "id": rid, "text": snippet})

    def logged_briefs(self, ws: Workspace) -> None:
        """The briefs this repository knows only from their event logs: the refocuses it
        spawned elsewhere (their files live in the destination), read from each log's
        last snapshot (``refs/refocus/<id>``)."""
        from gitrefocus.store import catalog, eventlog, refs

        for rid, tip in sorted(refs.tips(ws.git_dir).items()):
            if self.full or catalog.brief_file(ws, rid) is not None:
                continue
            try:
                data = eventlog.snapshot(ws.repo, tip)
            except (RefocusError, ValueError, KeyError):
                continue  # an unreadable log: doctor reports it
            if data:
                self.text(ws.name, ws.workdir, f"{refs.REF_PREFIX}{rid}", data.decode("utf-8", "replace"), "brief", rid)


def _is_private(text: str) -> bool:
    """``private: true`` in the YAML frontmatter (an ADR template's convention)."""
    if not text.startswith("---"):
        return False
    lines = text.splitlines()
    if lines[0].strip() != "---":
        return False
    for i, line in enumerate(lines[1:], 1):
        if line.strip() == "---":
            return bool(_PRIVATE_KEY_RE.search("\n".join(lines[1:i])))
    return False


def _strip_private(line: str, inside: bool) -> tuple[str, bool]:
    """The visible part of a line and whether a <private> block is still open after it."""
    out: list[str] = []
    rest = line
    while rest:
        low = rest.lower()
        if inside:
            end = low.find("</private>")
            if end < 0:
                return "".join(out), True
            rest, inside = rest[end + len("</private>"):], False
        else:
            start = low.find("<private>")
            if start < 0:
                out.append(rest)
                break
            out.append(rest[:start])
            rest, inside = rest[start + len("<private>"):], True
    return "".join(out), inside


def _subdirs(path: str) -> list[str]:
    try:
        return [e.path for e in os.scandir(path) if e.is_dir(follow_symlinks=False)]
    except OSError:
        return []


def _md_files(path: str) -> list[str]:
    try:
        return sorted(e.path for e in os.scandir(path) if e.name.endswith(".md") and not e.is_dir())
    except OSError:
        return []


def _walk(root: str) -> tuple[list[str], list[str]]:
    """(files, symlinked directories) under ``root``; symlinked directories are not entered."""
    out, linked = [], []
    for base, dirs, files in os.walk(root):
        linked += [os.path.join(base, d) for d in dirs if os.path.islink(os.path.join(base, d))]
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not os.path.islink(os.path.join(base, d)))
        out += [os.path.join(base, f) for f in sorted(files) if not f.startswith(".")]
    return out, linked


def _context_dir_of(root: str) -> str:
    from gitrefocus.health.staleness import context_dir

    ws = Workspace.try_open(root)
    try:
        return context_dir(ws) if ws is not None else "docs/context"
    except RefocusError:
        return "docs/context"


def search_parents(ws: Workspace) -> tuple[list[str] | None, str | None]:
    """Configured parents, or (None, why cross-project search is off)."""
    values = []
    for raw in ws.settings("searchPaths"):
        values += [v.strip() for v in raw.split(",") if v.strip()]
    if not values:
        return None, ("cross-project search is not configured; add a parent directory with "
                      "git config --add refocus.searchPaths ~/work")
    if any(v.lower() == "disabled" for v in values):
        return None, "cross-project search is disabled (refocus.searchPaths = disabled)."
    return values, None


def projects_under(parent: str, *, here: str, refuse: Callable[[str, str], None]) -> list[tuple[str, str]]:
    """(real path, name) of the git work trees in ``parent`` (it and its direct children)."""
    real_parent = os.path.realpath(parent)
    if not os.path.isdir(real_parent):
        refuse(parent, "not a directory")
        return []
    out: list[tuple[str, str]] = []
    try:
        names = sorted(n for n in os.listdir(real_parent) if not n.startswith("."))
    except OSError as exc:
        refuse(parent, f"cannot be listed: {exc.strerror}")
        return []
    candidates = [parent] + [os.path.join(parent, n) for n in names]
    for path in candidates:
        real = os.path.realpath(path)
        if not os.path.isdir(real) or not os.path.lexists(os.path.join(real, ".git")):
            continue
        if not is_inside(real, real_parent):
            refuse(path, f"resolves to {real}, outside the configured parent {parent}")
            continue
        if real != here and real not in (p for p, _ in out):
            out.append((real, os.path.basename(real)))
    return out


def search(*, text: str, cross_project: bool = False, kinds: list[str] | None = None, limit: int = 200,
           cwd: str = ".", global_: bool = False, prune: bool = False) -> dict[str, Any]:
    from gitrefocus.health.staleness import context_dir

    if not text.strip():
        raise RefocusError("nothing to search for: give a non-empty TEXT.")
    ws = Workspace.open(cwd)
    s = _Search(text, kinds or [], limit)
    projects = [{"name": ws.name, "dir": ws.workdir}]
    s.project(ws.workdir, ws.name, context_dir(ws))
    s.logged_briefs(ws)
    notices: list[str | None] = []
    if cross_project:
        parents, why = search_parents(ws)
        if parents is None:
            notices.append(why)
        for parent in parents or []:
            expanded = os.path.expanduser(parent)
            if not os.path.isabs(expanded):
                expanded = os.path.join(ws.workdir, expanded)
            for root, name in projects_under(expanded, here=ws.workdir, refuse=s.refuse):
                projects.append({"name": name, "dir": root})
                if not s.full:
                    s.project(root, name, _context_dir_of(root))
                else:
                    s.truncated = True
    if global_:
        _search_registered(s, projects, notices, prune)
    return {"query": text, "cross_project": cross_project, "global": global_, "projects": projects, "results": s.results,
            "truncated": s.truncated, "refused": s.refused, "notices": notices}


def _search_registered(s: _Search, projects: list[dict[str, Any]], notices: list[str | None],
                       prune: bool) -> None:
    """Add every repository of the user-level registry (``--global``) not searched yet."""
    from gitrefocus.ops import across

    usable, found = across.workspaces(prune=prune)
    for skipped in found.skipped:
        if skipped.vanished:
            notices.append(f"{skipped.path}: {skipped.reason}" + ("" if prune else " (drop it with --prune)"))
        elif skipped.warn:
            s.refuse(skipped.path, skipped.reason)
    notices += [f"pruned {p} from the registry." for p in found.pruned]
    for ws in usable:
        if any(p["dir"] == ws.workdir for p in projects):
            continue
        projects.append({"name": ws.name, "dir": ws.workdir})
        if s.full:
            s.truncated = True
            continue
        s.project(ws.workdir, ws.name, _context_dir_of(ws.workdir))
