"""Every refocus a repository knows about: refs, brief files, and how they agree.

Listing must stay fast at 10,000 entries, so the folded state of each event
commit is cached by commit id, and a brief file is only re-read when its size
or mtime changed since it was last found equal to its ref's snapshot.
"""

from __future__ import annotations

import functools
import json
import os
import stat
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gitrefocus.errors import RefocusError
from gitrefocus.model import clock, lifecycle
from gitrefocus.model.events import ROW_FIELDS, RefocusState
from gitrefocus.model.ids import RefocusId, ref_name
from gitrefocus.store import eventlog, git, localstate, refs
from gitrefocus.store.workspace import Workspace, is_inside, relative_inside

if TYPE_CHECKING:
    from pygit2 import Oid

INCOMING, OUTGOING, LOCAL = "incoming", "outgoing", "local"
CACHE = ("cache", "catalog.json")
# {"version", "fields": ROW_FIELDS, "states": {commit: [brief blob id, *state row]},
#  "files": {path: [mtime_ns, size, snapshot, status, error, equal]}}
CACHE_VERSION = 3


@dataclass
class Entry:
    id: str
    state: RefocusState | None = None  # folded state from the ref (machine truth)
    tip: str | None = None  # ref target, hex
    snapshot: str | None = None  # blob id of the brief in the ref's tip, hex
    path: str | None = None  # brief file, if this repo has one
    archived: bool = False
    file_status: str | None = None  # status in the file's frontmatter
    file_error: str | None = None  # why the file could not be read
    file_matches_ref: bool = True
    direction: str = INCOMING
    problems: list[str] = field(default_factory=list)
    corrupt: bool = False  # the ref names no readable event log (eventlog.CorruptLog)

    @property
    def status(self) -> str:
        if self.state:
            return self.state.status
        return self.file_status or "unknown"

    @property
    def incoming(self) -> bool:
        """This repository is the destination (a refocus into itself is both)."""
        return self.direction in (INCOMING, LOCAL)

    @property
    def outgoing(self) -> bool:
        """This repository is the source (a refocus into itself is both)."""
        return self.direction in (OUTGOING, LOCAL)

    def unlaunched_hours(self, stale_after: float) -> float | None:
        """Hours since spawn when this is an outgoing brief still reserved after
        ``stale_after`` hours (0: never stale); None otherwise. The one rule for
        "spawned, but nobody launched the child" that spawn, status, health and
        the SessionStart hook all report."""
        if not (self.outgoing and self.status == lifecycle.RESERVED and stale_after):
            return None
        age = clock.age_hours(self.state.spawned_at if self.state else None)
        return age if age > stale_after else None


def _brief_files(ws: Workspace) -> dict[str, tuple[str, bool]]:
    """{id: (path, archived)} for docs/refocus/*.md and docs/refocus/archive/*/*.md."""
    out: dict[str, tuple[str, bool]] = {}
    root = ws.refocus_dir
    try:
        with os.scandir(root) as it:
            names = [(e.name, e.path) for e in it if e.name.endswith(".md")]
    except FileNotFoundError:
        return out
    for name, path in names:
        rid = name[:-3]
        if RefocusId.is_valid(rid):
            out[rid] = (path, False)
    archive = ws.archive_dir
    try:
        quarters = [e.path for e in os.scandir(archive) if e.is_dir()]
    except FileNotFoundError:
        quarters = []
    for quarter in quarters:
        for e in os.scandir(quarter):
            rid = e.name[:-3]
            if e.name.endswith(".md") and RefocusId.is_valid(rid) and rid not in out:
                out[rid] = (e.path, True)
    return out


@functools.lru_cache(maxsize=4096)
def _realpath(path: str) -> str:
    return os.path.realpath(path)  # entries share a handful of source/dest dirs


def _direction(ws: Workspace, state: RefocusState | None, has_file: bool) -> str:
    """Which side of the refocus this repository is. By identity first: a clone
    holds the commit its original stood on at spawn (recorded in the spawned
    event), wherever it lives on disk; then, for older refocuses, by path."""
    repos = state.extra.get("repos") if state else None
    if isinstance(repos, dict):
        def holds(oid: object) -> bool:
            try:
                return isinstance(oid, str) and len(oid) == 40 and oid in ws.repo
            except (ValueError, KeyError):
                return False

        source, dest = repos.get("source"), repos.get("dest")
        is_dest, is_source = holds(dest), holds(source)
        if is_dest and is_source and source == dest:
            return LOCAL
        if is_dest != is_source:
            return INCOMING if is_dest else OUTGOING

    def inside(path: str | None) -> bool:
        if not path:
            return False
        real = _realpath(path)
        return is_inside(real, ws.workdir)

    if state:
        is_dest, is_source = inside(state.dest_dir), inside(state.source_dir)
        if is_dest and is_source:
            return LOCAL
        if is_dest:
            return INCOMING
        if is_source:
            return OUTGOING
    return INCOMING if has_file else OUTGOING


class Catalog:
    def __init__(self, ws: Workspace):
        self.ws = ws
        self.entries: dict[str, Entry] = {}
        self._states: dict[str, list[Any]] = {}
        self._files: dict[str, list[Any]] = {}
        self._dirty = False

    # -- cache ------------------------------------------------------------
    def _load_cache(self) -> None:
        try:
            text = localstate.read(self.ws.git_dir, *CACHE)
            data = json.loads(text) if text else None
        except (ValueError, RefocusError):
            data = None
        if isinstance(data, dict) and data.get("version") == CACHE_VERSION and data.get("fields") == list(ROW_FIELDS):
            self._states, self._files = data["states"], data["files"]

    def _save_cache(self) -> None:
        if not self._dirty:
            return
        data = {"version": CACHE_VERSION, "fields": ROW_FIELDS, "states": self._states, "files": self._files}
        try:
            localstate.write(self.ws.git_dir, *CACHE, text=json.dumps(data, separators=(",", ":")))
        except (OSError, RefocusError):
            pass  # a cache that cannot be written is only slower

    def _state(self, oid: Oid) -> tuple[RefocusState, str | None]:
        """The state at event commit ``oid`` and the blob id of its brief snapshot."""
        key = str(oid)
        cached = self._states.get(key)
        if cached is not None:
            return RefocusState.from_row(cached[1:]), cached[0]
        tip = eventlog.tip_at(self.ws.repo, oid)
        snap_oid = eventlog.snapshot_oid(self.ws.repo, oid)
        snap = str(snap_oid) if snap_oid else None
        self._states[key] = [snap, *tip.state.to_row()]
        self._dirty = True
        return tip.state, snap

    def _file_info(self, path: str, snapshot: str | None) -> tuple[str | None, str | None, bool]:
        """(file status, error, equal to snapshot) with a stat-keyed cache."""
        from gitrefocus.model.brief import Brief

        try:
            st = os.lstat(path)
        except OSError as exc:
            return None, f"cannot read {path}: {exc.strerror}", False
        if not stat.S_ISREG(st.st_mode):  # a directory or symlink named <id>.md is no brief
            kind = "a symlink" if stat.S_ISLNK(st.st_mode) else "not a regular file"
            return None, f"{relative_inside(path, self.ws.workdir) or path} is {kind}; it is skipped", False
        key = relative_inside(path, self.ws.workdir) or path
        sig = [st.st_mtime_ns, st.st_size, snapshot]
        cached = self._files.get(key)
        if cached and cached[:3] == sig:
            return cached[3], cached[4], cached[5]
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            return None, f"cannot read {path}: {exc.strerror}", False
        equal = snapshot is not None and git.blob_hash(data) == snapshot
        status: str | None = None
        error: str | None = None
        if equal:
            status = None  # same as the ref: no need to parse
        else:
            try:
                status = Brief.parse(data, key).status
            except RefocusError as exc:
                error = str(exc)
        self._files[key] = sig + [status, error, equal]
        self._dirty = True
        return status, error, equal

    # -- loading ------------------------------------------------------------
    def load(self, only: str | None = None) -> "Catalog":
        self._load_cache()
        files = _brief_files(self.ws)
        if only is not None:
            tips: dict[str, Oid] = {}
            oid = refs.resolve(self.ws.repo, refs.ref_name(only))
            if oid is not None:
                tips[only] = oid
            files = {k: v for k, v in files.items() if k == only}
        else:
            tips = dict(refs.iter_refs(self.ws.repo))
        live_states = set()
        for rid in set(tips) | set(files):
            entry = Entry(id=rid)
            if rid in tips:
                try:
                    RefocusId(rid)
                    entry.state, entry.snapshot = self._state(tips[rid])
                    entry.tip = str(tips[rid])
                    live_states.add(entry.tip)
                except (RefocusError, ValueError, KeyError, TypeError) as exc:
                    # one corrupt refocus is reported (doctor) and skipped, never fatal
                    entry.problems.append(f"{ref_name(rid)} is unreadable: {exc}")
                    entry.state = None
                    entry.corrupt = True
            if rid in files:
                entry.path, entry.archived = files[rid]
                status, error, equal = self._file_info(entry.path, entry.snapshot)
                entry.file_error = error
                entry.file_matches_ref = equal
                entry.file_status = status if not equal else entry.status
            entry.direction = _direction(self.ws, entry.state, entry.path is not None)
            self.entries[rid] = entry
        if only is None:
            # drop cached states no ref points at any more
            stale = set(self._states) - live_states
            for key in stale:
                del self._states[key]
            self._dirty = self._dirty or bool(stale)
        self._save_cache()
        return self


def load(ws: Workspace, only: str | None = None) -> Catalog:
    return Catalog(ws).load(only)


def known_ids(ws: Workspace) -> set[str]:
    """Every id with a ref or a brief file here (names only: cheap)."""
    ids = {rid for rid, _ in refs.iter_refs(ws.repo)}
    ids.update(_brief_files(ws))
    return ids


def match_ids(ids: Collection[str], text: str) -> list[str]:
    """Ids ``text`` names, best kind of match first: the id itself; else its
    ``[slug-]6hex`` ending or its whole slug; else a prefix of the id; else a
    prefix of the slug. (``git refocus show mcp`` finds ``…-mcp-standard-a3f91c``.)"""
    text = (text or "").strip()
    if not text:
        return []
    if text in ids:
        return [text]

    def kind(rid: str) -> int:  # 0: not named; lower is better
        slug = rid[11:-7]
        if rid.endswith("-" + text) or slug == text:
            return 1
        return 2 if rid.startswith(text) else 3 if slug.startswith(text) else 0

    named: dict[int, list[str]] = {}
    for rid in ids:
        k = kind(rid)
        if k:
            named.setdefault(k, []).append(rid)
    return sorted(named[min(named)]) if named else []


def resolve_id(ws: Workspace, text: str) -> str:
    """Resolve a full id, a unique prefix of an id or of a slug, a 6-hex suffix or a slug
    (the one function every command that takes an id uses)."""
    matches = match_ids(known_ids(ws), text)
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise RefocusError(f"unknown refocus id {text!r} (see `git refocus list`).")
    raise RefocusError(f"ambiguous refocus id {text!r}: matches {', '.join(matches[:5])}.")
