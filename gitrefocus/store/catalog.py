"""Every refocus a repository knows about: refs, brief files, and how they agree.

A command pays for the entries it touches: the folded state of each ref is
cached by its tip (:mod:`gitrefocus.store.catalog_cache`), a brief file is
only re-read when its size or mtime changed since it was last compared with its
ref's snapshot, and lookups by id, status or child session read only the
entries they find.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import functools
import heapq
import itertools
import os
import stat
import sys
import time
from collections.abc import Callable, Collection, Generator, Iterable, Iterator, Sequence

from gitrefocus.errors import RefocusError
from gitrefocus.model import clock, lifecycle
from gitrefocus.model.events import RefocusState
from gitrefocus.model.ids import RefocusId, ref_name
from gitrefocus.model.place import DEST, SOURCE
from gitrefocus.model.records import dataclass, field
from gitrefocus.store import catalog_cache, git, identity, refs, workspace
from gitrefocus.store.workspace import Workspace, common_dir, discover, is_inside, load_pygit2, relative_inside

TYPE_CHECKING = False  # no `typing` at run time: a listing and the hooks import this module
if TYPE_CHECKING:
    from typing import Any

INCOMING, OUTGOING, LOCAL = "incoming", "outgoing", "local"
BULK = 64  # a build rebuilding more rows than this, or with libgit2 not loaded, reads their tips with one git cat-file
CHUNK = 1000  # cache rows written per transaction by a cold build (and how often a budget is checked)
STREAM_WINDOW = 4096  # entries ``list --all`` makes at a time: the lean rows among them read with one git
PACK_WINDOW = 32 << 20  # bytes of a pack libgit2 maps at once during a large rebuild
PACK_MAPPED = 64 << 20  # and in all: older windows are unmapped past it


@contextlib.contextmanager
def _lean_libgit2(large: bool) -> Iterator[None]:
    """While a large rebuild reads every refocus's state.json: libgit2 by default maps
    each pack whole (1 GiB windows, 8 GiB in all) and caches every commit and tree it
    parses (256 MiB), each read once here; at 100k refocuses a cold ``list`` peaked at
    ~840 MiB RSS for that, ~190 MiB with small windows and no object cache, no slower.
    The settings are process-wide: put back afterwards (caching is on by default).
    Only when libgit2 is loaded already: a cold build reads through git, and
    libgit2 only for the odd tip git's answer does not settle."""
    if not large or "pygit2" not in sys.modules:
        yield
        return
    settings = load_pygit2().settings
    window, mapped = settings.mwindow_size, settings.mwindow_mapped_limit
    settings.mwindow_size, settings.mwindow_mapped_limit = PACK_WINDOW, PACK_MAPPED
    settings.enable_caching(False)
    try:
        yield
    finally:
        settings.enable_caching(True)
        settings.mwindow_size, settings.mwindow_mapped_limit = window, mapped


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

    def watched(self, since: str) -> bool:
        """Whether an edit of this brief can still matter (:meth:`Catalog.unsettled`):
        no event log, open, or finished at or after ``since`` (:func:`watched_since`)."""
        if self.state is None or self.status in lifecycle.ACTIVE:
            return True
        finished = self.state.completed_at or self.state.last_event_at
        return isinstance(finished, str) and finished >= since

    def unlaunched_hours(self, stale_after: float) -> float | None:
        """Hours since spawn when this is an outgoing brief still reserved after
        ``stale_after`` hours (0: never stale); None otherwise. The one rule for
        "spawned, but nobody launched the child" that spawn, status, health and
        the SessionStart hook all report."""
        if not (self.outgoing and self.status == lifecycle.RESERVED and stale_after):
            return None
        age = clock.age_hours(self.state.spawned_at if self.state else None)
        return age if age > stale_after else None


Listing = tuple[list[tuple[str, str]], list[tuple[str, str]]]


def _unlinked(ws: Workspace, directory: str) -> bool:
    """``directory``, in the work tree, is a directory reached from its top
    without a symlink: no brief is listed or read through one, as none is
    written through one (:func:`atomic.refuse_symlinks`; docs/ARCHITECTURE.md,
    "Trust boundaries")."""
    probe = ws.workdir
    for part in os.path.relpath(directory, probe).split(os.sep):
        probe = os.path.join(probe, part)
        try:
            if not stat.S_ISDIR(os.lstat(probe).st_mode):
                return False
        except OSError:
            return False
    return True


def _quarters(ws: Workspace) -> list[os.DirEntry[str]]:
    """The archive's quarters: its directories, a symlink to one not among them."""
    if not _unlinked(ws, ws.archive_dir):
        return []
    try:
        with os.scandir(ws.archive_dir) as it:
            return [e for e in it if e.is_dir(follow_symlinks=False)]
    except OSError:
        return []


def _brief_listing(ws: Workspace) -> Listing:
    """([(name, path)] of docs/refocus/*.md, and of docs/refocus/archive/*/*.md
    quarter by quarter), as listed: names not yet checked (:func:`_brief_files`)."""
    def md(directory: str) -> list[tuple[str, str]] | None:
        try:
            with os.scandir(directory) as it:
                return [(e.name, e.path) for e in it if e.name.endswith(".md")]
        except (FileNotFoundError, NotADirectoryError):
            return None

    live = md(ws.refocus_dir) if _unlinked(ws, ws.refocus_dir) else None
    if live is None:
        return [], []
    return live, [pair for quarter in _quarters(ws) for pair in md(quarter.path) or ()]


def _brief_files(ws: Workspace, known: Collection[str] = (),
                 listing: Listing | None = None) -> dict[str, tuple[str, bool]]:
    """{id: (path, archived)} for docs/refocus/*.md and docs/refocus/archive/*/*.md
    (a name in ``known`` is an id already: not checked again), from ``listing``
    when the directories were already listed."""
    live, archived = listing if listing is not None else _brief_listing(ws)
    out: dict[str, tuple[str, bool]] = {}
    for name, path in live:
        rid = name[:-3]
        if rid in known or RefocusId.is_valid(rid):
            out[rid] = (path, False)
    for name, path in archived:
        rid = name[:-3]
        if rid not in out and (rid in known or RefocusId.is_valid(rid)):
            out[rid] = (path, True)
    return out


def _census_of(files: dict[str, tuple[str, bool]]) -> tuple[set[str], set[str]]:
    """(ids with a live brief, ids with only archived ones) of a :func:`_brief_files` listing."""
    live = {rid for rid, (_, archived) in files.items() if not archived}
    return live, files.keys() - live


def _read_regular(path: str) -> bytes:
    """The bytes of the regular file ``path``: never through a symlink in its
    last component, never blocking on a FIFO put there (OSError for both)."""
    return _read_regular_stat(path)[0]


def _read_regular_stat(path: str) -> tuple[bytes, os.stat_result]:
    """:func:`_read_regular`, and the file's stat as it was opened."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(0, "not a regular file", path)
        data = os.read(fd, st.st_size + 1)  # one read, and the EOF it ends at, for a file that did not grow
        if len(data) <= st.st_size:
            return data, st
        chunks = [data]
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
        return b"".join(chunks), st
    finally:
        os.close(fd)


HashSig = tuple[int, int, str]  # (mtime_ns, size, blob id) of a brief as it was opened


def _hash_brief(path: str) -> HashSig | None:
    """(mtime_ns, size, blob id) of the regular file ``path`` as it was opened
    (no lstat first: the open's own fstat), or None when it is no readable
    regular file (gone, a symlink, a directory, a FIFO...)."""
    try:
        data, st = _read_regular_stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, git.blob_hash(data)


def _brief_names(ws: Workspace) -> tuple[set[str], set[str]]:
    """(file names in docs/refocus/, in the archive's quarters), as listed:
    ``<id>.md`` and anything else, not yet checked (see :func:`_brief_ids`)."""
    def names(directory: str) -> set[str]:
        try:
            return set(os.listdir(directory))
        except (FileNotFoundError, NotADirectoryError):
            return set()

    if not _unlinked(ws, ws.refocus_dir):
        return set(), set()
    live = names(ws.refocus_dir)
    archived: set[str] = set()
    for quarter in _quarters(ws):
        archived |= names(quarter.path)
    return live, archived


def census_stamp(ws: Workspace) -> tuple[str, float]:
    """(stamp, newest mtime in it) of the directories brief files live in:
    docs/refocus/, its archive/ and each quarter there. Any file made,
    renamed or removed in one of them changes it; a file edited in place does not."""
    parts, newest = [], 0.0

    def add(label: str, path: str) -> bool:
        nonlocal newest
        try:
            st = os.stat(path)
        except OSError:
            parts.append(f"{label}:-")
            return False
        label = label if catalog_cache.storable(label) else ascii(label)  # undecodable bytes in a quarter's name
        parts.append(f"{label}:{st.st_ino}:{st.st_mtime_ns}")
        newest = max(newest, st.st_mtime_ns / 1e9)
        return True

    if add("", ws.refocus_dir) and add("archive", ws.archive_dir):
        for name, path in sorted((e.name, e.path) for e in _quarters(ws)):
            add(name, path)
    return " ".join(parts), newest


def _brief_ids(ws: Workspace, known: set[str]) -> tuple[set[str], set[str]]:
    """(ids with a brief in docs/refocus/, ids with only archived briefs), listed;
    the file names are compared with ``known`` ones (``<id>.md``) as sets, in C,
    and only the others are checked in Python."""
    def ids(names: set[str]) -> set[str]:
        hits = names & known
        return {n[:-3] for n in hits} | {n[:-3] for n in names - hits if n.endswith(".md") and RefocusId.is_valid(n[:-3])}

    live, archived = (ids(names) for names in _brief_names(ws))
    return live, archived - live


def ref_moves(ws: Workspace) -> str | None:
    """The cache's count of ref moves (:meth:`catalog_cache.Cache.moves`; None
    without a cache): under :func:`briefs_changing`, as of that write lock."""
    try:
        cache = catalog_cache.open_cache(ws.git_dir, create=False)
        return cache.moves() if cache is not None else None
    except (OSError, catalog_cache.Error):
        return None


@contextlib.contextmanager
def briefs_changing(ws: Workspace, *paths: str) -> Iterator[None]:
    """Around a write of files in docs/refocus/ (a brief, INDEX.md): when the
    census of brief names was current before it, it is kept current after (each
    of ``paths`` looked at again, the directories stamped again), under the
    cache's write lock, so the next INDEX.md does not list the directory. Any
    write made without it only costs the next reader a listing."""
    with catalog_cache.writing(ws.git_dir) as cache:
        current = cache is not None and cache.census_stamp() == census_stamp(ws)[0]
        yield
        if cache is None or not current:
            return
        try:
            for path in paths:
                name = os.path.basename(path)
                rid = name[:-3]
                if name.endswith(".md") and RefocusId.is_valid(rid):
                    live = os.path.lexists(ws.brief_path(rid))
                    cache.set_census(rid, live, live or brief_file(ws, rid) is not None)
            cache.set_census_stamp(census_stamp(ws)[0])  # last: a census kept halfway keeps the old stamp
        except catalog_cache.Error:
            pass  # the directories no longer match the stamp kept: the next reader lists them


def _direction(ws: Workspace, state: RefocusState | None, has_file: bool) -> str:
    """Which side of the refocus this repository is. By identity first
    (:mod:`gitrefocus.store.identity`): each side's repository identity is
    recorded at spawn, and every copy of that repository (a linked worktree, a
    clone that synced) holds it, wherever it lives on disk. Refocuses spawned
    before identities: the commit each side stood on, then the paths."""
    if state is not None:
        source, dest = state.where(SOURCE), state.where(DEST)
        if (source is not None and source.portable) or (dest is not None and dest.portable):
            me = identity.read(ws)
            is_source = me is not None and source is not None and source.repo_id == me
            is_dest = me is not None and dest is not None and dest.repo_id == me
            if is_dest or is_source:
                return LOCAL if is_dest and is_source else INCOMING if is_dest else OUTGOING
            return INCOMING if has_file else OUTGOING
    repos = state.extra.get("repos") if state else None
    if isinstance(repos, dict):
        def holds(oid: object) -> bool:
            return isinstance(oid, str) and ws.holds(oid)

        source_head, dest_head = repos.get("source"), repos.get("dest")
        is_dest, is_source = holds(dest_head), holds(source_head)
        if is_dest and is_source and source_head == dest_head:
            return LOCAL
        if is_dest != is_source:
            return INCOMING if is_dest else OUTGOING

    def here(path: str | None) -> bool:
        """``path`` is in this work tree, or in another work tree of this repository."""
        if not path:
            return False
        real = workspace.resolved(path)  # entries share a handful of source/dest dirs
        if is_inside(real, ws.workdir):
            return True
        found = discover(real) if os.path.isdir(real) else None
        return found is not None and common_dir(found[0]) == ws.common_dir

    if state:
        is_dest, is_source = here(state.dest_dir), here(state.source_dir)
        if is_dest and is_source:
            return LOCAL
        if is_dest:
            return INCOMING
        if is_source:
            return OUTGOING
    return INCOMING if has_file else OUTGOING


def brief_file(ws: Workspace, refocus_id: str) -> str | None:
    """The path of one refocus's brief in this work tree, live
    (docs/refocus/<id>.md) or archived (docs/refocus/archive/<quarter>/<id>.md),
    found with a stat or two, never a listing of docs/refocus/; None when
    there is none. Nothing is found through a symlinked docs/refocus, archive
    or quarter (:func:`_unlinked`): no brief is read through one, as none is
    written through one. Whatever stands at the path itself (a symlink, a FIFO)
    is returned, for its reader to refuse (:func:`atomic.read_bytes`)."""
    if not _unlinked(ws, ws.refocus_dir):
        return None
    path = ws.brief_path(refocus_id)
    if os.path.lexists(path):
        return path
    for quarter in sorted(_quarters(ws), key=lambda e: e.name):
        candidate = os.path.join(quarter.path, f"{refocus_id}.md")
        if os.path.lexists(candidate):
            return candidate
    return None


class Catalog:
    """Refocus entries of one repository: all of them (:meth:`load`), or only
    those a command touches (:meth:`load_ids`, :func:`select`)."""

    def __init__(self, ws: Workspace):
        self.ws = ws
        self.entries: dict[str, Entry] = {}
        self._cache: catalog_cache.Cache | None = None
        self._new_files: dict[str, list[Any]] = {}
        self._directions: dict[tuple[str | None, str | None, object, object, bool], str] = {}

    @property
    def cache(self) -> catalog_cache.Cache:
        if self._cache is None:
            self._cache = catalog_cache.open_cache(self.ws.git_dir)
            assert self._cache is not None  # created when missing
        return self._cache

    # -- refs -------------------------------------------------------------
    def fresh(self, budget: float | None = None) -> dict[str, str] | None:
        """Make the cache's rows hold every ref as it is now: trusted when the
        refs stamp did not move, else one enumeration of the refs. With a
        ``budget`` (seconds), a cold build stops when it is spent and goes on
        next time; then {id: tip} of every ref is returned (None: complete)."""
        if self.cache.fresh():
            return None
        tips, _, complete = self._sync_tips(time.monotonic() + budget if budget is not None else None)
        return None if complete else tips

    def _list_refs(self) -> Callable[[], tuple[float, tuple[str | None, float], dict[str, str]]]:
        """The refs stamped, then listed by a git started now (:func:`refs.tips_started`):
        the callable returned waits for the listing, and gives (when the stamp was
        taken, the stamp and its newest mtime, {id: tip})."""
        started = time.time()
        stamp = catalog_cache.refs_stamp(self.ws.git_dir)
        listing = refs.tips_started(self.ws.git_dir)
        return lambda: (started, stamp, listing())

    def _sync_tips(self, deadline: float | None = None,
                   listed: Callable[[], tuple[float, tuple[str | None, float], dict[str, str]]] | None = None
                   ) -> tuple[dict[str, str], dict[str, catalog_cache.Record], bool]:
        """Enumerate refs/refocus/* once (``listed``: as :meth:`_list_refs` started
        it), rebuild the rows whose tip moved, drop the rows of deleted refs;
        return ({id: tip}, {id: rebuilt record the cache could not keep}, and
        whether every row was rebuilt before ``deadline``)."""
        started, (stamp, newest), tips = (listed or self._list_refs())()
        cache = self.cache
        known = cache.tips()
        moved = [(rid, tip) for rid, tip in tips.items() if known.get(rid) != tip]
        changed: dict[str, catalog_cache.Record] = {}
        # kept a chunk at a time: a cold build cut short (a hook past its timeout) is not lost
        reader = self._read(moved)
        large = len(moved) > CHUNK
        with _lean_libgit2(large), contextlib.closing(reader), cache.bulk() if large else contextlib.nullcontext():
            for _ in range(0, len(moved), CHUNK):
                if deadline is not None and time.monotonic() > deadline:
                    return tips, changed, False
                records = list(itertools.islice(reader, CHUNK))
                if not self._keep(lambda: cache.put(records, lean=large)):  # noqa: B023 - called within this iteration
                    changed.update((r.id, r) for r in records)
        gone = [rid for rid in known if rid not in tips]
        settled = catalog_cache.stamp_if_settled(stamp, newest, started)
        if gone or cache.stamp() != settled:
            def finish() -> None:
                cache.drop(gone)
                cache.set_stamp(settled)

            self._keep(finish)
        return tips, changed, True

    def _keep(self, write: Callable[[], object]) -> bool:
        """Run ``write`` in one cache transaction; a cache that cannot be written is only slower."""
        try:
            with self.cache.transaction():
                write()
        except catalog_cache.Error:
            return False
        return True

    def _read(self, items: list[tuple[str, str]]) -> Generator[catalog_cache.Record, None, None]:
        """The records of ``items``, (id, tip) pairs, read from git in order:
        one git cat-file for many, or for any number while libgit2 is not
        loaded (no loading it for them); through libgit2 for a few when it is."""
        if len(items) > BULK or not self.ws.repo_loaded:
            return catalog_cache.read_records(self.ws, items)
        return (catalog_cache.read_record(self.ws.repo, rid, oid) for rid, oid in items)

    def _filled(self, items: list[tuple[str, str]]) -> dict[str, catalog_cache.Record]:
        """:meth:`_read` of ``items`` as {id: record}, and the rows kept (a
        :attr:`~catalog_cache.Record.lean` row gets its state)."""
        with contextlib.closing(self._read(items)) as reader:
            read = {rec.id: rec for rec in reader}
        self._keep(lambda: self.cache.put(read.values()))
        return read

    def _records(self, ids: Collection[str]) -> dict[str, catalog_cache.Record]:
        """The records of ``ids`` as their refs are now (a ref lookup each)."""
        found: dict[str, catalog_cache.Record | None] = {}
        stale = []
        cache = self.cache
        for rid in ids:
            oid = self.ws.ref_target(ref_name(rid)) if RefocusId.is_valid(rid) else None
            if oid is None:
                continue
            rec = cache.record(rid)
            if rec is None or rec.tip != oid or rec.lean:
                stale.append((rid, oid))
                rec = None
            found[rid] = rec
        read = self._filled(stale) if stale else {}
        return {rid: rec if rec is not None else read[rid] for rid, rec in found.items()}

    # -- files ------------------------------------------------------------
    def _file_key(self, path: str) -> str:
        """How the cache names a brief file: relative to the work tree when inside it."""
        return relative_inside(path, self.ws.workdir) or path

    def _file_info(self, path: str, key: str, snapshot: str | None,
                   cached: list[Any] | None) -> tuple[str | None, str | None, bool]:
        """(file status, error, equal to snapshot), re-reading the file only
        when its size, mtime or the snapshot it is compared with changed."""
        from gitrefocus.model.brief import Brief

        try:
            st = os.lstat(path)
        except OSError as exc:
            return None, f"cannot read {path}: {exc.strerror}", False
        if not stat.S_ISREG(st.st_mode):  # a directory or symlink named <id>.md is no brief
            kind = "a symlink" if stat.S_ISLNK(st.st_mode) else "not a regular file"
            return None, f"{relative_inside(path, self.ws.workdir) or path} is {kind}; it is skipped", False
        sig = [st.st_mtime_ns, st.st_size, snapshot]
        if cached and cached[:3] == sig:
            return cached[3], cached[4], bool(cached[5])
        try:
            data = _read_regular(path)
        except OSError as exc:
            return None, f"cannot read {path}: {exc.strerror}", False
        equal = snapshot is not None and git.blob_hash(data) == snapshot
        status: str | None = None
        error: str | None = None
        if not equal:  # equal to the ref's snapshot: no need to parse
            try:
                status = Brief.parse(data, key).status
            except RefocusError as exc:
                error = str(exc)
        self._new_files[key] = sig + [status, error, int(equal)]
        return status, error, equal

    def _entry(self, rid: str, rec: catalog_cache.Record | None, file: tuple[str, bool] | None,
               key: str | None, cached_file: list[Any] | None) -> Entry:
        entry = Entry(id=rid)
        if rec is not None:
            if rec.text is None:  # read_record found the id or the tip unreadable
                # one corrupt refocus is reported (doctor) and skipped, never fatal
                entry.problems.append(f"{ref_name(rid)} is unreadable: {rec.error}")
                entry.corrupt = True
            else:
                try:
                    entry.state = rec.state
                    entry.snapshot = rec.snapshot
                    entry.tip = rec.tip
                except (TypeError, ValueError, KeyError, AttributeError) as exc:
                    entry.problems.append(f"{ref_name(rid)} is unreadable: {exc}")
                    entry.corrupt = True
        if file is not None:
            entry.path, entry.archived = file
            status, error, equal = self._file_info(entry.path, key or entry.path, entry.snapshot, cached_file)
            entry.file_error = error
            entry.file_matches_ref = equal
            entry.file_status = status if not equal else entry.status
        s = entry.state
        # entries share a handful of (source, dest) pairs: decide each pair once
        memo = ((s.source_dir, s.dest_dir, s.extra.get("source_repo_id"), s.extra.get("dest_repo_id"),
                 entry.path is not None) if s else (None, None, None, None, entry.path is not None))
        direction = self._directions.get(memo)
        if direction is None:
            direction = self._directions[memo] = _direction(self.ws, s, entry.path is not None)
        entry.direction = direction
        return entry

    def _save_files(self) -> None:
        if self._new_files:
            files, self._new_files = self._new_files, {}
            self._keep(lambda: self.cache.put_files(files))

    # -- loading ------------------------------------------------------------
    def load(self, only: str | None = None) -> "Catalog":
        """Every refocus: one enumeration of refs/refocus/* and one listing of
        docs/refocus/ (``only``: just that id, see :meth:`load_ids`)."""
        if only is not None:
            return self.load_ids([only])
        tips, unsaved, _ = self._sync_tips()
        files = self._listed()
        file_rows = self.cache.files()

        def add(rid: str, rec: catalog_cache.Record | None) -> None:
            file = files.get(rid)
            key = self._file_key(file[0]) if file else None
            self.entries[rid] = self._entry(rid, rec, file, key, file_rows.get(key) if key else None)

        lean = []
        for rec in self.cache.records():  # streamed: a row is parsed, folded into its entry, let go
            if tips.get(rec.id) == rec.tip and rec.id not in unsaved:
                if rec.lean:
                    lean.append((rec.id, rec.tip))
                else:
                    add(rec.id, rec)
        for rec in self._filled(lean).values() if lean else ():
            add(rec.id, rec)
        for rid in tips:
            if rid not in self.entries:  # the cache could not keep it
                add(rid, unsaved.get(rid) or self._records([rid]).get(rid))
        for rid in files:
            if rid not in self.entries:
                add(rid, None)
        self._save_files()
        return self

    def stream(self) -> Iterator[Entry]:
        """Every refocus, as :meth:`load` finds them, newest id first, one at a
        time: none is kept in :attr:`entries`, so ``list --all`` of 100k
        refocuses holds their rows, not their entries."""
        tips, unsaved, _ = self._sync_tips()
        files = self._listed()
        file_rows = self.cache.files()
        kept = self.cache.tips()
        # the rows the cache holds as the refs are now, streamed in id order; the few others
        # (a ref the cache could not keep, a brief without a ref) merged into that order
        others = sorted({rid for rid, tip in tips.items() if kept.get(rid) != tip or rid in unsaved}
                        | (files.keys() - tips.keys()), reverse=True)
        del kept
        cached = ((rec.id, rec) for rec in self.cache.records(newest_first=True)
                  if tips.get(rec.id) == rec.tip and rec.id not in unsaved)
        lone = ((rid, None) for rid in others)
        merged = heapq.merge(cached, lone, key=lambda pair: pair[0], reverse=True)
        # lean rows a window at a time: their states read from git, and kept by a connection of its
        # own (this one is reading the rows); a cache in memory (this connection's alone) keeps none
        with catalog_cache.aside(self.cache) as write:
            while window := list(itertools.islice(merged, STREAM_WINDOW)):
                lean = [(rid, rec.tip) for rid, rec in window if rec is not None and rec.lean]
                read: dict[str, catalog_cache.Record] = {}
                if lean:
                    with contextlib.closing(self._read(lean)) as reader:
                        read = {r.id: r for r in reader}
                    if self.cache.path is not None:
                        write(functools.partial(catalog_cache.Cache.put, records=list(read.values())))
                for rid, rec in window:
                    if rec is None and rid in tips:
                        rec = unsaved.get(rid) or self._records([rid]).get(rid)
                    elif rec is not None and rec.lean:
                        rec = read[rid]
                    file = files.get(rid)
                    key = self._file_key(file[0]) if file else None
                    yield self._entry(rid, rec, file, key, file_rows.get(key) if key else None)
        self._save_files()

    def _listed(self) -> dict[str, tuple[str, bool]]:
        """:func:`_brief_files`, for a full load; the census is made to agree with
        that listing, so whatever a census kept by our writes missed (another
        writer in the same clock tick) ends at the next full load."""
        started = time.time()
        stamp, newest = census_stamp(self.ws)
        files = _brief_files(self.ws)
        live, archived = _census_of(files)
        settled = catalog_cache.stamp_if_settled(stamp, newest, started)
        try:
            agrees = self.cache.census_ids() == (live, archived) and self.cache.census_stamp() == settled
        except catalog_cache.Error:
            return files
        if not agrees:
            self._keep_census(live, archived, settled)
        return files

    def _keep_census(self, live: set[str], archived: set[str], stamp: str | None) -> bool:
        """Store a census as listed, with the directories' stamp (None: listed again next time)."""
        def keep() -> None:
            self.cache.replace_census(live, archived)
            self.cache.set_census_stamp(stamp)

        return self._keep(keep)

    def census(self) -> bool:
        """Make the cache's census of brief names (which ids have a brief file,
        live or only archived) hold the directories as they are now: trusted
        while their stamp (:func:`census_stamp`) is the one stored with it,
        which our own writes keep (:func:`briefs_changing`); else listed again.
        False when it could not be written (read the directories instead).
        Call after :meth:`fresh`: which names have a ref is read from its rows."""
        started = time.time()
        stamp, newest = census_stamp(self.ws)
        if self.cache.census_stamp() == stamp:
            return True
        live, archived = _brief_ids(self.ws, set(self.cache.ids(suffix=".md")))
        # a directory changed in the last clock tick may change again unseen: listed again next time
        return self._keep_census(live, archived, catalog_cache.stamp_if_settled(stamp, newest, started))

    def unsettled(self) -> set[str]:
        """Ids whose brief file needs a look: no ref, not equal to the ref's
        snapshot, unreadable or not a regular file. Makes the rows fresh first
        (:meth:`fresh`). Only the briefs that can still change a refocus are
        watched (:meth:`Entry.watched`): those of open refocuses, of refocuses
        finished in the last WATCHED_DAYS (a write cut short leaves its brief
        behind: the next command brings it forward), and those without a ref.
        An older finished refocus cannot change status by an edit of its brief
        (doctor, which reads every brief, still reports such a file), so a
        history's finished briefs cost a listing of their names, not a stat or
        a hash each. A watched file not known by its size, mtime and the ref's
        snapshot (cached) is read and hashed once, and remembered when it equals
        the snapshot. (What reconciling and the problem lists need.)"""
        started = time.time()
        stale = not self.cache.fresh()
        listed = self._list_refs() if stale else None  # git lists the refs while the briefs are listed
        stamp, newest = census_stamp(self.ws)
        listing = _brief_listing(self.ws)
        if listed is not None:
            self._sync_tips(listed=listed)
        snapshots = self.cache.snapshots()
        files = _brief_files(self.ws, snapshots, listing)
        if self.cache.census_stamp() != stamp:  # the census of this listing: :meth:`census` need not list again
            live, archived = _census_of(files)
            self._keep_census(live, archived, catalog_cache.stamp_if_settled(stamp, newest, started))
        since = watched_since()
        watched = {*self.cache.ids_where(statuses=lifecycle.ACTIVE), *(r[0] for r in self.cache.finished_since(since))}
        out = set()
        for rid, (path, _) in files.items():
            if rid in snapshots and rid not in watched:
                continue
            snapshot = snapshots.get(rid)
            if snapshot is None or not self._settled(path, self._file_key(path), snapshot):
                out.add(rid)  # no ref, or a tip without brief.md; or the file differs
        self._save_files()
        return out

    def _settled(self, path: str, key: str, snapshot: str) -> bool:
        """The brief file ``path`` is a regular file equal to ``snapshot``: by its cached
        row when its size and mtime are still those compared, else read and hashed (and
        remembered when equal)."""
        row = self.cache.file(key)
        try:
            st = os.lstat(path)
        except OSError:
            return False
        if not stat.S_ISREG(st.st_mode):  # a symlink, a directory, a FIFO...
            return False
        if row is not None and row[0] == st.st_mtime_ns and row[1] == st.st_size and row[2] == snapshot:
            return bool(row[5])
        sig = _hash_brief(path)
        if sig is None or sig[2] != snapshot:
            return False
        self._new_files[key] = [sig[0], sig[1], snapshot, None, None, 1]
        return True

    def load_ids(self, ids: Collection[str]) -> "Catalog":
        """Only the entries ``ids`` (those with a ref or a brief here): a ref
        lookup and a stat or two each, whatever the size of the repository."""
        records = self._records(ids)
        for rid in ids:
            path = brief_file(self.ws, rid) if RefocusId.is_valid(rid) else None
            if rid not in records and path is None:
                continue
            file = (path, path != self.ws.brief_path(rid)) if path is not None else None
            key = self._file_key(path) if path is not None else None
            self.entries[rid] = self._entry(rid, records.get(rid), file, key, self.cache.file(key) if key else None)
        self._save_files()
        return self

    def each(self, ids: Sequence[str], chunk: int = 16) -> Iterator[Entry]:
        """The entries ``ids`` in order, loaded ``chunk`` at a time as they are asked
        for (:meth:`load_ids`): a caller that stops after a few has loaded a few."""
        for start in range(0, len(ids), chunk):
            part = ids[start:start + chunk]
            self.load_ids(part)
            yield from (self.entries[rid] for rid in part if rid in self.entries)

    def get(self, rid: str | None) -> Entry | None:
        """The entry ``rid``, loaded if it is not yet (None: no such refocus here)."""
        if not rid:
            return None
        if rid not in self.entries:
            self.load_ids([rid])
        return self.entries.get(rid)


WATCHED_DAYS = 7  # a finished refocus's brief is watched for edits this long (Catalog.unsettled)


def watched_since() -> str:
    """The time (as the index keeps it) since which a finished refocus's brief is watched."""
    return clock.iso(clock.now() - _dt.timedelta(days=WATCHED_DAYS))


def load(ws: Workspace, only: str | None = None) -> Catalog:
    return Catalog(ws).load(only)


def select(ws: Workspace, *, statuses: Collection[str] = (), unreceived: Collection[str] = (),
           session_id: str | None = None, budget: float | None = None) -> Catalog:
    """The entries whose ref's state has one of ``statuses``, or one of
    ``unreceived`` and was not received yet, or whose child session is
    ``session_id``: found through the cache's index, so the cost follows the
    entries found, not the entries held. Brief files without a ref are not
    found this way (``load`` and doctor see them).

    With a ``budget`` (seconds) a cold cache is built only that long (see
    :meth:`Catalog.fresh`); until it is complete, the child of ``session_id``
    is still found by key (its id ends in the session id's first 6 hex
    digits), and the other entries may be missed."""
    cat = Catalog(ws)
    partial = cat.fresh(budget)
    ids = set(cat.cache.ids_where(statuses=statuses, unreceived=unreceived, session_id=session_id))
    if partial is not None and session_id:
        ids.update(rid for rid in partial if rid.endswith("-" + session_id[:6]))
    return cat.load_ids(sorted(ids))


def waiting(cat: Catalog) -> list[Entry]:
    """Outgoing refocuses of ``cat`` whose result came back and was not received yet."""
    return sorted(
        (e for e in cat.entries.values()
         if e.outgoing and e.status in lifecycle.RETURNED and not (e.state and e.state.received_at)),
        key=lambda e: e.id,
    )


def noteworthy(ws: Workspace, *, also: Collection[str] = ()) -> Catalog:
    """The entries ``status`` shows, found through the index: open, a result
    not received, unreadable, conflicted after a merge, a brief file that is
    not settled (see :meth:`Catalog.unsettled`), and ``also``."""
    cat = Catalog(ws)
    ids = cat.unsettled()  # the rows made fresh first
    cache = cat.cache
    ids.update(cache.ids_where(statuses=lifecycle.ACTIVE, unreceived=lifecycle.RETURNED))
    ids.update(cache.unreadable(), cache.with_conflicts(), also)
    return cat.load_ids(sorted(ids))


@dataclass
class Overview:
    """What INDEX.md shows, read through the index: the entries that can be
    active or recent, loaded; the others only counted."""

    catalog: Catalog
    archived: int  # entries whose brief is archived
    others: int  # entries neither archived nor loaded, nor counted below (finished before the cutoff)
    more_active: int = 0  # open entries past the limit, not loaded
    more_recent: int = 0  # entries finished since the cutoff past the limit, not loaded


def overview(ws: Workspace, cutoff: _dt.datetime, limit: int | None = None) -> Overview:
    """Load the entries that are open, finished at or after ``cutoff``,
    unreadable, or only a brief file; count the rest. With a ``limit``, only
    the newest ``limit`` open ones and the newest ``limit`` finished since the
    cutoff are loaded, and the others of each counted. Read from the cache's
    index and its census of brief names (see :meth:`Catalog.census`): costs
    the loaded entries, not a read, or even a listing, of every entry."""
    cat = Catalog(ws)
    cat.fresh()
    cache = cat.cache
    if not cat.census():
        return _overview_listed(cat, cutoff, limit)
    lone = cache.without_ref()
    shown, more_active, more_recent = _newest(cat, cutoff, limit)
    wanted = {*shown, *cache.unreadable(), *lone}
    cat.load_ids(sorted(wanted - cache.archived_among(wanted)))
    archived, archived_with_ref = cache.archived_counts()
    everything = cache.count() - archived_with_ref + len(lone)
    return Overview(catalog=cat, archived=archived, more_active=more_active, more_recent=more_recent,
                    others=everything - len(cat.entries) - more_active - more_recent)


def _overview_listed(cat: Catalog, cutoff: _dt.datetime, limit: int | None) -> Overview:
    """:func:`overview` from a listing of the brief directories (when the census could not be kept)."""
    ref_ids = set(cat.cache.ids())
    live, archived = _brief_ids(cat.ws, set(cat.cache.ids(suffix=".md")))
    shown, more_active, more_recent = _newest(cat, cutoff, limit, archived.intersection)
    cat.load_ids(sorted({*shown, *cat.cache.unreadable(), *(live - ref_ids)} - archived))
    everything = len((ref_ids | live) - archived)
    return Overview(catalog=cat, archived=len(archived), more_active=more_active, more_recent=more_recent,
                    others=everything - len(cat.entries) - more_active - more_recent)


def _newest(cat: Catalog, cutoff: _dt.datetime, limit: int | None,
            archived_among: Callable[[set[str]], set[str]] | None = None) -> tuple[list[str], int, int]:
    """The ids of the newest ``limit`` open refocuses and of the newest ``limit``
    finished at or after ``cutoff`` (all of them without a limit), their briefs
    not archived (by the census, or ``archived_among`` when there is none), by
    the cache's rows; and how many of each are left out. Times compare as the
    index keeps them, as text (ops/index_md judges the rows it is given)."""
    cache = cat.cache
    if archived_among is None:  # sqlite picks the newest and counts the rest
        (active, more_active), (recent, more_recent) = (cache.newest(limit, statuses=lifecycle.ACTIVE),
                                                        cache.newest(limit, since=clock.iso(cutoff)))
        return active + recent, more_active, more_recent
    found = (cache.ids_where(statuses=lifecycle.ACTIVE),
             [rid for rid, _, status in cache.finished_since(clock.iso(cutoff)) if status not in lifecycle.ACTIVE])
    active, recent = (sorted(set(ids) - archived_among(set(ids)), reverse=True) for ids in found)
    cut = len(active) + len(recent) if limit is None else limit
    return active[:cut] + recent[:cut], len(active[cut:]), len(recent[cut:])


def known_ids(ws: Workspace) -> set[str]:
    """Every id with a ref or a brief file here (names only: cheap)."""
    ids = set(refs.tips(ws.git_dir))
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
    """Resolve a full id, unique prefix, 6-hex suffix or unique slug. A full
    id that is here costs a ref lookup; only the others list every name."""
    text = (text or "").strip()
    if RefocusId.is_valid(text) and (ws.ref_target(ref_name(text)) is not None
                                     or brief_file(ws, text) is not None):
        return text
    known = known_ids(ws)
    matches = match_ids(known, text)
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise RefocusError(f"unknown refocus id {text!r}{_did_you_mean(known, text)} (see `git refocus list`).")
    more = f" and {len(matches) - SHOWN_MATCHES} more" if len(matches) > SHOWN_MATCHES else ""
    raise RefocusError(f"ambiguous refocus id {text!r}: {len(matches)} match ({', '.join(matches[:SHOWN_MATCHES])}"
                       f"{more}); give more of the id or slug.")


SHOWN_MATCHES = 5  # of an ambiguous id's matches, named in the error


def _did_you_mean(ids: Iterable[str], text: str) -> str:
    """The closest slugs or ids to a mistyped ``text``, as git suggests a command."""
    import difflib

    ids = list(ids)
    by_slug = {rid[11:-7]: rid for rid in ids}
    close = difflib.get_close_matches(text, list(by_slug), n=3, cutoff=0.6)
    close = [by_slug[s] for s in close] or difflib.get_close_matches(text, list(ids), n=3, cutoff=0.6)
    return f"; did you mean {' or '.join(close)}?" if close else ""
