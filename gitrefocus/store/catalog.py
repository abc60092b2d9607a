"""Every refocus a repository knows about: refs, brief files, and how they agree.

Listing must stay fast at 10,000 entries, so the folded state of each event
commit is cached by commit id, and a brief file is only re-read when its size
or mtime changed since it was last found equal to its ref's snapshot.
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass, field

from gitrefocus.errors import RefocusError
from gitrefocus.model import clock, lifecycle
from gitrefocus.model.ids import RefocusId, ref_name
from gitrefocus.store import eventlog, git, localstate, refs
from gitrefocus.store.workspace import is_inside, relative_inside

INCOMING, OUTGOING, LOCAL = "incoming", "outgoing", "local"
CACHE = ("cache", "catalog.json")
CACHE_VERSION = 2


@dataclass
class Entry:
    id: str
    state: dict | None = None  # folded state from the ref (machine truth)
    tip: str | None = None  # ref target, hex
    path: str | None = None  # brief file, if this repo has one
    archived: bool = False
    file_status: str | None = None  # status in the file's frontmatter
    file_error: str | None = None  # why the file could not be read
    file_matches_ref: bool = True
    direction: str = "incoming"
    problems: list[str] = field(default_factory=list)

    @property
    def status(self) -> str:
        if self.state:
            return self.state["status"]
        return self.file_status or "unknown"

    def get(self, key: str):
        return (self.state or {}).get(key)

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
        age = clock.age_hours(self.get("spawned_at"))
        return age if age > stale_after else None


def _brief_files(ws) -> dict[str, tuple[str, bool]]:
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


def _direction(ws, state: dict | None, has_file: bool) -> str:
    def inside(path):
        if not path:
            return False
        real = _realpath(path)
        return is_inside(real, ws.workdir)

    if state:
        is_dest, is_source = inside(state.get("dest_dir")), inside(state.get("source_dir"))
        if is_dest and is_source:
            return "local"
        if is_dest:
            return "incoming"
        if is_source:
            return "outgoing"
    return "incoming" if has_file else "outgoing"


class Catalog:
    def __init__(self, ws):
        self.ws = ws
        self.entries: dict[str, Entry] = {}
        self._cache = {"version": CACHE_VERSION, "states": {}, "files": {}}
        self._dirty = False

    # -- cache ------------------------------------------------------------
    def _load_cache(self) -> None:
        try:
            text = localstate.read(self.ws.git_dir, *CACHE)
            data = json.loads(text) if text else None
        except (ValueError, RefocusError):
            data = None
        if isinstance(data, dict) and data.get("version") == CACHE_VERSION:
            self._cache = data

    def _save_cache(self) -> None:
        if not self._dirty:
            return
        try:
            localstate.write(self.ws.git_dir, *CACHE, text=json.dumps(self._cache, separators=(",", ":")))
        except (OSError, RefocusError):
            pass  # a cache that cannot be written is only slower

    def _state(self, oid) -> dict:
        key = str(oid)
        cached = self._cache["states"].get(key)
        if cached is None:
            tip = eventlog.tip_at(self.ws.repo, oid)
            cached = dict(tip.state)
            snap = eventlog.snapshot_oid(self.ws.repo, oid)
            cached["_snapshot"] = str(snap) if snap else None
            self._cache["states"][key] = cached
            self._dirty = True
        return cached

    def _file_info(self, path: str, snapshot: str | None) -> tuple[str | None, str | None, bool]:
        """(file status, error, equal to snapshot) with a stat-keyed cache."""
        from gitrefocus.model.brief import Brief

        try:
            st = os.stat(path)
        except OSError as exc:
            return None, f"cannot read {path}: {exc.strerror}", False
        key = relative_inside(path, self.ws.workdir) or path
        sig = [st.st_mtime_ns, st.st_size, snapshot]
        cached = self._cache["files"].get(key)
        if cached and cached[:3] == sig:
            return cached[3], cached[4], cached[5]
        with open(path, "rb") as fh:
            data = fh.read()
        equal = snapshot is not None and git.blob_hash(data) == snapshot
        status = error = None
        if equal:
            status = None  # same as the ref: no need to parse
        else:
            try:
                status = Brief.parse(data, key).status
            except RefocusError as exc:
                error = str(exc)
        self._cache["files"][key] = sig + [status, error, equal]
        self._dirty = True
        return status, error, equal

    # -- loading ------------------------------------------------------------
    def load(self, only: str | None = None) -> "Catalog":
        self._load_cache()
        files = _brief_files(self.ws)
        if only is not None:
            tips = {}
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
                    entry.state = self._state(tips[rid])
                    entry.tip = str(tips[rid])
                    live_states.add(entry.tip)
                except (RefocusError, ValueError, KeyError) as exc:
                    entry.problems.append(f"{ref_name(rid)} is unreadable: {exc}")
                    entry.state = None
            if rid in files:
                entry.path, entry.archived = files[rid]
                snapshot = entry.state.get("_snapshot") if entry.state else None
                status, error, equal = self._file_info(entry.path, snapshot)
                entry.file_error = error
                entry.file_matches_ref = equal
                entry.file_status = status if not equal else entry.status
            entry.direction = _direction(self.ws, entry.state, entry.path is not None)
            self.entries[rid] = entry
        if only is None:
            # drop cached states no ref points at any more
            stale = set(self._cache["states"]) - live_states
            for key in stale:
                del self._cache["states"][key]
            self._dirty = self._dirty or bool(stale)
        self._save_cache()
        return self


def load(ws, only: str | None = None) -> Catalog:
    return Catalog(ws).load(only)


def known_ids(ws) -> set[str]:
    """Every id with a ref or a brief file here (names only: cheap)."""
    ids = {rid for rid, _ in refs.iter_refs(ws.repo)}
    ids.update(_brief_files(ws))
    return ids


def match_ids(ids, text: str) -> list[str]:
    """Ids ``text`` names: itself, or as a prefix, the 6-hex suffix or the slug."""
    text = (text or "").strip()
    if text in ids:
        return [text]
    return sorted(
        rid for rid in ids
        if rid.startswith(text) or rid.endswith("-" + text) or rid[11:-7] == text
    ) if text else []


def resolve_id(ws, text: str) -> str:
    """Resolve a full id, unique prefix, 6-hex suffix or unique slug."""
    matches = match_ids(known_ids(ws), text)
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise RefocusError(f"unknown refocus id {text!r} (see `git refocus list`).")
    raise RefocusError(f"ambiguous refocus id {text!r}: matches {', '.join(matches[:5])}.")
