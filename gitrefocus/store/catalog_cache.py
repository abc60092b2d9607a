"""The catalog's cache: one sqlite file, ``.git/refocus/cache/catalog.sqlite``.

A row per refocus ref, keyed by the ref's tip: the folded state read from the
tip's ``state.json`` and the blob id of its ``brief.md``, plus the columns the
hot paths look up by (status, child session, received). A row is rebuilt only
when its ref's tip moved, and only that row is written; a row per brief file
holds what the file said, keyed by its size, mtime and the snapshot it was
compared with; and a census row per id with a brief file (live, or only
archived; whether it has a ref row, kept by triggers) lets INDEX.md count 100k
briefs without listing them (see ``catalog.Catalog.census``).

How fresh the rows are is told two ways:

- a full load enumerates ``refs/refocus/*`` once (one ``for-each-ref``) and
  compares tips;
- a lookup by key (the SessionStart hook, spawn, start, ...) trusts the rows
  when the *refs stamp* (inode, mtime and size of ``packed-refs`` and of the
  ``refs/refocus/`` directory) equals the one stored when the rows were last
  known complete. Every ref move git refocus makes goes through
  :func:`gitrefocus.store.refs.cas`, which updates its row and the stamp under
  the database's write lock (:func:`writing`), so the stamp stays valid across
  our own writes; anything else that moves a refocus ref (plain ``git fetch``,
  ``update-ref``, ``pack-refs``) changes the stamp, and the next lookup
  enumerates the refs again. (A foreign ref write within the same filesystem
  clock tick as one of ours can go unseen by lookups until the next full load.)

Everything here is derived: a cache that cannot be opened or written is
dropped and rebuilt, never an error.
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import re
import sqlite3
from collections.abc import Callable, Collection, Generator, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress

from gitrefocus.errors import RefocusError
from gitrefocus.model.ids import RefocusId
from gitrefocus.model.lifecycle import ACTIVE
from gitrefocus.store import eventlog, fastjson, localstate
from gitrefocus.store.workspace import common_dir

TYPE_CHECKING = False  # no `typing` at run time: a listing and the hooks import this module
if TYPE_CHECKING:
    from typing import Any

    from pygit2 import Oid, Repository

    from gitrefocus.model.events import RefocusState
    from gitrefocus.store.workspace import Workspace

DB = ("cache", "catalog.sqlite")
LEGACY = ("cache", "catalog.json")  # the cache before this one: removed when found
VERSION = "10"  # 7: the state column holds state.json as read (the census of brief names needs no new
# version: its table and triggers are made when missing, and an empty census is listed); 8: conflicted;
# 9: a cold build keeps a finished refocus's row without its state (Record.lean), unreadable is error IS NOT NULL;
# 10: the status and finished indexes hold the id too (INDEX.md's newest rows and counts read no table row)
Error = sqlite3.Error
RACY_SECONDS = 0.05  # a stamp this young may not yet show a write in the same clock tick

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS refs (
    id TEXT PRIMARY KEY, tip TEXT NOT NULL, snapshot TEXT, state TEXT, error TEXT,
    status TEXT, child_session_id TEXT, received INTEGER, finished TEXT, conflicted INTEGER);
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY, mtime_ns INTEGER, size INTEGER, snapshot TEXT,
    status TEXT, error TEXT, equal INTEGER);
CREATE TABLE IF NOT EXISTS briefs (
    id TEXT PRIMARY KEY, live INTEGER NOT NULL, has_ref INTEGER NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS briefs_without_ref ON briefs (id) WHERE live = 1 AND has_ref = 0;
CREATE INDEX IF NOT EXISTS briefs_archived ON briefs (has_ref) WHERE live = 0;
"""
# the refs table's secondary indexes: dropped while a cold build puts its rows, then built once
REFS_INDEXES = {
    "refs_by_session": "ON refs (child_session_id)",
    "refs_by_status": "ON refs (status, id)",
    "refs_unreceived": "ON refs (status) WHERE received = 0",
    "refs_by_finished": "ON refs (finished, status, id)",
    "refs_unreadable_v9": "ON refs (id) WHERE error IS NOT NULL",
    "refs_conflicted": "ON refs (id) WHERE conflicted = 1",
}
_CREATE_REFS_INDEXES = tuple(f"CREATE INDEX IF NOT EXISTS {name} {on}" for name, on in REFS_INDEXES.items())
_PUT_BRIEF = "INSERT OR REPLACE INTO briefs SELECT ?1, ?2, EXISTS (SELECT 1 FROM refs WHERE id = ?1)"
_UNARCHIVED = " AND id NOT IN (SELECT id FROM briefs WHERE live = 0)"  # the census's archived ids left out
_PUT_BRIEFS = "INSERT INTO briefs SELECT key, value, EXISTS (SELECT 1 FROM refs WHERE id = key) FROM json_each(?1)"
# has_ref follows the refs rows: the names without a ref are found through an index, never by
# comparing every name with every ref (INSERT OR REPLACE fires only the insert trigger)
TRIGGERS = (
    "CREATE TRIGGER IF NOT EXISTS refs_added AFTER INSERT ON refs "
    "BEGIN UPDATE briefs SET has_ref = 1 WHERE id = NEW.id; END",
    "CREATE TRIGGER IF NOT EXISTS refs_dropped AFTER DELETE ON refs "
    "BEGIN UPDATE briefs SET has_ref = 0 WHERE id = OLD.id; END",
)


class Record:
    """What the cache keeps of one ref: its tip, snapshot blob, and its
    ``state.json`` as text (parsed when first asked for), or why it is unreadable."""

    __slots__ = ("id", "tip", "snapshot", "text", "error", "_state", "_columns")

    def __init__(self, id: str, tip: str, snapshot: str | None, state: RefocusState | None,
                 error: str | None = None, text: str | None = None):
        self.id, self.tip, self.snapshot, self.error, self._state = id, tip, snapshot, error, state
        if text is None and state is not None:
            text = json.dumps(state.to_json(), separators=(",", ":"))
        self.text = text
        self._columns: tuple[Any, ...] | None = None

    @classmethod
    def unparsed(cls, id: str, tip: str, snapshot: str | None, raw: dict[str, Any], text: str) -> Record:
        """The Record of a state :meth:`RefocusState.reads` (``raw``, decoded
        from ``text``): its columns taken from ``raw``, as :meth:`columns`
        takes them from the state, which is built only when asked for."""
        record = cls(id, tip, snapshot, None, None, text)
        get = raw.get
        finished = get("completed_at") or get("last_event_at")
        record._columns = (raw["status"], get("child_session_id"), 1 if get("received_at") else 0,
                           finished if isinstance(finished, str) else None, 1 if get("conflicts") else 0)
        return record

    @property
    def lean(self) -> bool:
        """A row a cold build kept without its state text (a finished refocus,
        see :meth:`Cache.put`): its columns hold, its state is read from git
        when an entry needs it."""
        return self.text is None and self.error is None and self._state is None

    @property
    def state(self) -> RefocusState | None:
        """The folded state (None: unreadable, or :attr:`lean`); a cached text that no longer
        reads raises what :meth:`RefocusState.from_json` raises."""
        if self._state is None and self.text is not None:
            self._state = _parse_state(json.loads(self.text))
        return self._state

    def columns(self) -> tuple[Any, ...]:
        if self._columns is not None:
            return (self.id, self.tip, self.snapshot, self.text, self.error, *self._columns)
        state = self.state
        status = child = finished = None
        received = conflicted = 0
        if state is not None:
            status, child = state.status, state.child_session_id
            received = 1 if state.received_at else 0
            finished = state.completed_at or state.last_event_at
            finished = finished if isinstance(finished, str) else None
            conflicted = 1 if state.conflicts else 0
        return (self.id, self.tip, self.snapshot, self.text, self.error, status, child, received, finished,
                conflicted)


def _parse_state(raw: Any) -> RefocusState:
    from gitrefocus.model.events import RefocusState

    return RefocusState.from_json(raw)


# -- the refs stamp -----------------------------------------------------------
def refs_stamp(git_dir: str) -> tuple[str | None, float]:
    """(stamp, newest mtime in it) of the places refocus refs live; stamp None
    when the ref store cannot be stamped (reftable: always enumerate)."""
    common = common_dir(git_dir)
    if os.path.isdir(os.path.join(common, "reftable")):
        return None, 0.0
    parts, newest = [], 0.0
    for path in (os.path.join(common, "packed-refs"), os.path.join(common, "refs", "refocus")):
        try:
            st = os.stat(path)
        except FileNotFoundError:
            parts.append("-")
            continue
        parts.append(f"{st.st_ino}:{st.st_mtime_ns}:{st.st_size}")
        newest = max(newest, st.st_mtime_ns / 1e9)
    return " ".join(parts), newest


# -- the database ---------------------------------------------------------------
_open: dict[str, Cache] = {}  # one connection per git dir and process


class Cache:
    def __init__(self, git_dir: str, conn: sqlite3.Connection, path: str | None = None):
        self.git_dir = git_dir
        self.conn = conn
        self.path = path  # the database file (None: in memory, this connection's alone)

    # -- meta
    def _meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def _set_meta(self, key: str, value: str | None) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def stamp(self) -> str | None:
        return self._meta("refs_stamp")

    def set_stamp(self, stamp: str | None) -> None:
        self._set_meta("refs_stamp", stamp)

    def moves(self) -> str | None:
        """How many ref moves git refocus recorded here (:func:`moved`): read twice
        and compared, it tells whether another writer moved a ref in between."""
        return self._meta("moves")

    def count_move(self) -> None:
        self._set_meta("moves", str(int(self.moves() or 0) + 1))

    def fresh(self) -> bool:
        """The rows hold every refocus ref as it is now (see the module docstring)."""
        stored = self.stamp()
        return stored is not None and stored == refs_stamp(self.git_dir)[0]

    # -- refs
    def tips(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT id, tip FROM refs"))

    def record(self, rid: str) -> Record | None:
        row = self.conn.execute("SELECT id, tip, snapshot, state, error FROM refs WHERE id = ?", (rid,)).fetchone()
        return _record(row) if row else None

    def records(self, ids: Iterable[str] | None = None, *, newest_first: bool = False) -> Iterator[Record]:
        if ids is None:
            order = " ORDER BY id DESC" if newest_first else ""
            cur = self.conn.execute("SELECT id, tip, snapshot, state, error FROM refs" + order)
            return (_record(r) for r in cur)
        return (r for r in (self.record(rid) for rid in ids) if r is not None)

    def ids_where(self, *, statuses: Iterable[str] = (), unreceived: Iterable[str] = (),
                  session_id: str | None = None) -> list[str]:
        """Ids whose state has one of ``statuses``, or one of ``unreceived``
        and no received_at, or whose child session is ``session_id``."""
        out: set[str] = set()
        for wanted, extra in ((list(statuses), ""), (list(unreceived), " AND received = 0")):
            if wanted:
                marks = ",".join("?" * len(wanted))
                out.update(r[0] for r in self.conn.execute(f"SELECT id FROM refs WHERE status IN ({marks}){extra}",
                                                           wanted))
        if session_id:
            out.update(r[0] for r in self.conn.execute("SELECT id FROM refs WHERE child_session_id = ?",
                                                       (session_id,)))
        return sorted(out)

    def unreadable(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT id FROM refs WHERE error IS NOT NULL")]

    def finished_since(self, since: str) -> list[tuple[str, str, str | None]]:
        """(id, completed_at else last event, status) of the rows whose time sorts at or after ``since``."""
        return self.conn.execute("SELECT id, finished, status FROM refs WHERE finished >= ?", (since,)).fetchall()

    def newest(self, limit: int | None, *, statuses: Collection[str] = (), since: str | None = None
               ) -> tuple[list[str], int]:
        """The newest ``limit`` ids (all without one) with one of ``statuses``, or else
        finished (none of ACTIVE) at or after ``since``, their briefs not all archived; and
        how many more there are."""
        wanted = list(statuses) or list(ACTIVE)
        where = (f"FROM refs WHERE status {'' if statuses else 'NOT '}IN ({','.join('?' * len(wanted))})"
                 + ("" if statuses else " AND finished >= ?") + _UNARCHIVED)
        args = (*wanted, *(() if statuses else (since,)))
        ids = [r[0] for r in self.conn.execute(f"SELECT id {where} ORDER BY id DESC LIMIT ?", (*args, limit or -1))]
        (total,) = self.conn.execute(f"SELECT count(*) {where}", args).fetchone()
        return ids, total - len(ids)

    def snapshots(self) -> dict[str, str | None]:
        """{id: blob id of brief.md at the tip} of every row."""
        return dict(self.conn.execute("SELECT id, snapshot FROM refs"))

    def with_conflicts(self) -> list[str]:
        """Ids whose state holds events that conflicted after a merge."""
        return [r[0] for r in self.conn.execute("SELECT id FROM refs WHERE conflicted = 1")]

    def ids(self, suffix: str = "") -> list[str]:
        """Every id (each followed by ``suffix``: a brief's file name is ``<id>.md``)."""
        # one string split in C: a row tuple per id costs several times more at 100k
        (joined,) = self.conn.execute("SELECT group_concat(id || ?, char(10)) FROM refs", (suffix,)).fetchone()
        return joined.split("\n") if joined else []

    def put(self, records: Iterable[Record], *, lean: bool = False) -> None:
        """Rows of ``records``. ``lean`` (a cold build): a finished refocus's
        row without its state text, two thirds of its bytes (its columns are
        what listings ask of it; the few entries loaded read their state from
        git, and keep it)."""
        rows = (r.columns() for r in records)
        if lean:
            rows = (row if row[4] is not None or row[5] in ACTIVE else (*row[:3], None, *row[4:]) for row in rows)
        self.conn.executemany("INSERT OR REPLACE INTO refs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)

    def drop(self, ids: Iterable[str]) -> None:
        self.conn.executemany("DELETE FROM refs WHERE id = ?", ((rid,) for rid in ids))

    # -- files
    def file(self, path: str) -> list[Any] | None:
        if not storable(path):
            return None
        row = self.conn.execute("SELECT mtime_ns, size, snapshot, status, error, equal FROM files WHERE path = ?",
                                (path,)).fetchone()
        return list(row) if row else None

    def files(self) -> dict[str, list[Any]]:
        cur = self.conn.execute("SELECT path, mtime_ns, size, snapshot, status, error, equal FROM files")
        return {r[0]: list(r[1:]) for r in cur}

    def put_files(self, rows: dict[str, list[Any]]) -> None:
        # in key order: b-tree appends, twice as fast as a directory's order for a cold build
        self.conn.executemany("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?)",
                              ((path, *rows[path]) for path in sorted(rows) if storable(path)))

    def _put_json(self, statement: str, doc: str, row_statement: str,
                  rows: Callable[[], Iterable[tuple[Any, ...]]]) -> None:
        """Rows put by one ``statement`` walking the JSON document ``doc``, sqlite
        doing the work (and letting go of the GIL all along); when the document
        is not ASCII (JSON would not carry every name to sqlite and back
        unchanged) or this sqlite has no JSON functions, ``rows()`` a row at a
        time through ``row_statement``."""
        if doc.isascii():
            try:
                self.conn.execute(statement, (doc,))
                return
            except sqlite3.OperationalError:  # no JSON functions
                pass
        self.conn.executemany(row_statement, rows())

    # -- the census of brief names (see catalog.Catalog.census)
    def census_stamp(self) -> str | None:
        return self._meta("briefs_stamp")

    def set_census_stamp(self, stamp: str | None) -> None:
        self._set_meta("briefs_stamp", stamp)

    def census_ids(self) -> tuple[set[str], set[str]]:
        """(ids with a live brief, ids with only archived ones), as the census holds them."""
        live: set[str] = set()
        archived: set[str] = set()
        for rid, is_live in self.conn.execute("SELECT id, live FROM briefs"):
            (live if is_live else archived).add(rid)
        return live, archived

    def replace_census(self, live: Iterable[str], archived: Iterable[str]) -> None:
        """The census as listed: ``live`` ids, and ``archived`` ones (a live brief wins)."""
        live = set(live)
        ids = sorted({*live, *archived})  # in key order: b-tree appends (strings sort 3x faster than pairs)
        self.conn.execute("DELETE FROM briefs")
        # one statement at 100k: 0.2 s instead of 0.45 s (the document made in C: JSON's true and
        # false are sqlite's 1 and 0)
        doc = json.dumps(dict(zip(ids, map(live.__contains__, ids), strict=True)), ensure_ascii=False)
        self._put_json(_PUT_BRIEFS, doc, _PUT_BRIEF, lambda: ((rid, rid in live) for rid in ids))

    def set_census(self, rid: str, live: bool, archived: bool) -> None:
        """One id's place in the census (neither: no brief file left)."""
        if not (live or archived):
            self.conn.execute("DELETE FROM briefs WHERE id = ?", (rid,))
            return
        self.conn.execute(_PUT_BRIEF, (rid, int(live)))

    def without_ref(self) -> list[str]:
        """Ids with a live brief and no ref row."""
        return [r[0] for r in self.conn.execute("SELECT id FROM briefs WHERE live = 1 AND has_ref = 0")]

    def archived_counts(self) -> tuple[int, int]:
        """(ids whose briefs are all archived, of which those with a ref row)."""
        total, with_ref = self.conn.execute(
            "SELECT count(*), coalesce(sum(has_ref), 0) FROM briefs WHERE live = 0").fetchone()
        return total, with_ref

    def archived_among(self, ids: Iterable[str]) -> set[str]:
        return {rid for rid in ids if self.conn.execute(
            "SELECT 1 FROM briefs WHERE id = ? AND live = 0", (rid,)).fetchone()}

    def count(self) -> int:
        """How many ref rows."""
        return int(self.conn.execute("SELECT count(*) FROM refs").fetchone()[0])

    @contextmanager
    def bulk(self) -> Iterator[None]:
        """Around a build that puts many rows (a cold cache): the refs table's
        secondary indexes are dropped while the rows go in and made once
        after, a sort instead of a b-tree insert per row and index (at 100k
        rows 0.9 s instead of 2.3 s). Indexes lost to a crash meanwhile are
        made again when the cache is next opened."""
        try:
            with self.transaction():
                for name in REFS_INDEXES:
                    self.conn.execute(f"DROP INDEX IF EXISTS {name}")
        except Error:
            pass  # locked or read-only: the rows go in with their indexes
        try:
            yield
        finally:
            try:
                with self.transaction():
                    for statement in _CREATE_REFS_INDEXES:
                        self.conn.execute(statement)
            except Error:
                pass  # made again on the next open

    @contextmanager
    def transaction(self) -> Iterator[Cache]:
        """One write transaction (rolled back, and the cache left as it was, on any error)."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")


def _record(row: tuple[Any, ...]) -> Record:
    rid, tip, snapshot, state, error = row
    return Record(rid, tip, snapshot, None, error, state)


def _connect(path: str, *, made: bool = False) -> sqlite3.Connection:
    """A connection to the cache at ``path``, its tables made (``made``: known
    made, by another connection of this process: not touched, and no write
    lock taken for it)."""
    conn = sqlite3.connect(path, timeout=30, isolation_level=None)  # transactions are explicit
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    if made:
        return conn
    conn.execute("BEGIN IMMEDIATE")
    try:
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
        except sqlite3.OperationalError:  # no meta table: a new file
            row = None
        current = row is not None and row[0] == VERSION
        if not current:  # another version's tables (their columns may differ): made anew
            tables = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'")
            for (name,) in tables.fetchall():
                conn.execute(f'DROP TABLE "{name}"')  # its indexes and triggers with it
        for statement in [*SCHEMA.split(";"), *_CREATE_REFS_INDEXES, *TRIGGERS]:
            if statement.strip():
                conn.execute(statement)
        if not current:
            conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('version', ?)", (VERSION,))
    except sqlite3.Error:
        conn.rollback()
        raise
    conn.execute("COMMIT")
    return conn


def open_cache(git_dir: str, *, create: bool = True) -> Cache | None:
    """The cache of ``git_dir`` (None when it does not exist and ``create`` is
    false). One that cannot be opened is removed and built again; when even
    that fails, an in-memory one is used (the load is then only slower)."""
    cached = _open.get(git_dir)
    if cached is not None:
        return cached
    try:
        path = localstate._checked(git_dir, *DB)
    except RefocusError:
        return _remember(git_dir, _connect(":memory:")) if create else None
    if not create and not os.path.exists(path):
        return None
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        localstate.remove(git_dir, *LEGACY)
    except (OSError, RefocusError):
        pass  # connecting fails below, and an in-memory cache is used
    for attempt in range(2):
        try:
            return _remember(git_dir, _connect(path), path)
        except sqlite3.DatabaseError:
            if attempt:
                break
            for suffix in ("", "-wal", "-shm"):
                try:
                    os.unlink(path + suffix)
                except OSError:
                    pass
        except OSError:
            break
    return _remember(git_dir, _connect(":memory:")) if create else None


def _remember(git_dir: str, conn: sqlite3.Connection, path: str | None = None) -> Cache:
    cache = Cache(git_dir, conn, path)
    _open[git_dir] = cache
    return cache


def forget(git_dir: str | None = None) -> None:
    """Close the connections this process holds (all, or of one git dir)."""
    for key in [k for k in _open if git_dir is None or k == git_dir]:
        try:
            _open.pop(key).conn.close()
        except sqlite3.Error:
            pass


def storable(text: str) -> bool:
    """Whether sqlite can take ``text``: not a name with undecodable bytes (lone surrogates)."""
    if text.isascii():
        return True
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


Write = Callable[[Cache], object]


@contextmanager
def aside(cache: Cache, threaded: bool = True) -> Iterator[Callable[[Write], None]]:
    """Writes handed to the callable yielded run in a thread of their own, on a
    connection of their own, while the body goes on: sqlite lets go of the GIL
    while it works, so a large write takes the other core. Each write is one
    transaction; one that fails is rolled back and dropped (everything here is
    derived: the next reader does it again); anything else a write raises
    stops the writes after it, and is raised when the body is left, which
    waits for them all.
    Unthreaded, or for a cache in memory (its connection's alone), each runs
    when handed."""
    def run(target: Cache, write: Write) -> None:
        try:
            with target.transaction():
                write(target)
        except Error:
            pass

    if not threaded or cache.path is None:
        yield functools.partial(run, cache)
        return
    import queue
    import threading

    path = cache.path
    writes: queue.SimpleQueue[Write | None] = queue.SimpleQueue()
    raised: list[BaseException] = []  # what a write raised beyond sqlite's errors: raised here, after

    def work() -> None:
        try:
            conn = _connect(path, made=True)
        except (sqlite3.Error, OSError):
            conn = None
        try:
            while (write := writes.get()) is not None:
                if raised or conn is None:
                    continue  # the writes after one that raised are not made
                try:
                    run(Cache(cache.git_dir, conn, path), write)
                except BaseException as exc:  # noqa: BLE001 - handed to the body's thread
                    raised.append(exc)
        finally:
            if conn is not None:
                conn.close()

    thread = threading.Thread(target=work, name="refocus-cache-aside", daemon=True)
    thread.start()
    try:
        yield writes.put
    finally:
        writes.put(None)
        thread.join()
    if raised:  # (when the body raised, its exception goes on instead)
        raise raised[0]


def stamp_if_settled(stamp: str | None, newest: float, started: float) -> str | None:
    """``stamp`` unless it is so young that a write in the same clock tick could hide behind it."""
    return stamp if stamp is not None and newest < started - RACY_SECONDS else None


@contextmanager
def writing(git_dir: str) -> Iterator[Cache | None]:
    """Hold the cache's write lock around a ref move (None: no cache yet, nothing to keep)."""
    try:
        cache = open_cache(git_dir, create=False)
    except (OSError, sqlite3.Error):
        cache = None
    if cache is None:
        yield None
        return
    try:
        cache.conn.execute("BEGIN IMMEDIATE")
    except sqlite3.Error:
        yield None
        return
    try:
        yield cache
    except BaseException:
        cache.conn.execute("ROLLBACK")
        raise
    try:
        cache.conn.execute("COMMIT")
    except sqlite3.Error:
        cache.conn.execute("ROLLBACK")


def read_record(repo: Repository, rid: str, oid: Oid | str) -> Record:
    """What the cache keeps of ``refs/refocus/<rid>`` at ``oid``: reads the
    tip's ``state.json`` and the id of its ``brief.md``, nothing else. An
    unreadable tip (not a commit, no state.json, a bad state) or a ref name
    that is not a refocus id is a Record with the reason, never an exception."""
    try:
        RefocusId(rid)
    except RefocusError as exc:
        return Record(rid, str(oid), None, None, str(exc))
    try:
        state, snapshot = eventlog.state_at(repo, oid)
        return Record(rid, str(oid), str(snapshot) if snapshot else None, state)
    except Exception as exc:  # noqa: BLE001 - anything a hostile ref can make libgit2 or json raise
        return Record(rid, str(oid), None, None, f"{type(exc).__name__}: {exc}" if not isinstance(
            exc, (KeyError, ValueError)) else str(exc))


# git maps a pack in 1 GiB windows by default: reading every tip of a 100k-refocus
# repository (a 500 MB pack) kept ~600 MiB resident; with these, ~210 MiB and no slower
LEAN_PACKS = ("-c", "core.packedGitWindowSize=16m", "-c", "core.packedGitLimit=128m",
              "-c", "core.deltaBaseCacheLimit=16m")


READ_CHUNK = 512  # tips whose trees are asked for at once by read_records
# states read before msgspec is worth importing to decode them: it saves about 3 us a state
# against json.loads, and its import (typing_extensions, inspect, decimal) costs 15 ms
FAST_JSON_MIN = 5000


SPLIT_MIN = 4096  # tips read before a second git shares the reading (on a machine with more than one core)


def read_records(ws: Workspace, items: Sequence[tuple[str, Oid | str]],
                 ways: int | None = None) -> Generator[Record, None, None]:
    """:func:`read_record` of many refs, in order, for a cold build: see
    :func:`_read_records`. Git's reading is most of a cold build's time, one
    core's worth: past SPLIT_MIN tips on a machine with more cores, ``ways``
    (default 2) gits share it, chunk by chunk in turn, each reading ahead
    while this parses what another answered. Closing the iterator early
    stops them all."""
    if ways is None:
        ways = 2 if len(items) >= SPLIT_MIN and _cores() > 1 else 1
    chunks = [items[at:at + READ_CHUNK] for at in range(0, len(items), READ_CHUNK)]
    ways = max(1, min(ways, len(chunks)))
    decode = fastjson.make_decoder() if len(items) >= FAST_JSON_MIN else None  # one decoder serves every git's share
    readers = [_read_records(ws, [item for chunk in chunks[way::ways] for item in chunk], decode)
               for way in range(ways)]
    try:
        for reader in readers:
            next(reader, None)  # each git started, and given its first chunks
        for at, chunk in enumerate(chunks):
            for record in itertools.islice(readers[at % ways], len(chunk)):
                assert record is not None
                yield record
    finally:
        for reader in readers:
            reader.close()


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _read_records(ws: Workspace, items: Sequence[tuple[str, Oid | str]], decode: Callable[[bytes], Any] | None
                  ) -> Generator[Record | None, None, None]:
    """:func:`read_record` of many refs, in order, for a cold build: one ``git
    cat-file --batch-command``, the object walk done in C. For each tip, git
    checks it is a commit and prints its tree, whose entries name
    ``state.json`` and ``brief.md``; git then prints ``state.json`` by its id.
    (Asking for ``<tip>:state.json`` and ``<tip>:brief.md`` instead makes git
    read each commit and tree twice: a third more of its time.) Tips go a
    chunk at a time, the trees of the chunk after next asked for before this
    chunk's states are read, so git always has work while this parses; a
    thread feeds git, so neither side can wait on the other's full pipe; a
    build of 100k refs holds a few chunks at a time. Any tip that does not
    read cleanly that way (not a commit, no state.json blob, an odd tree, a
    bad state; every tip when this git is older than 2.36) is read by
    :func:`read_record`, so a hostile ref gets the same Record either way.
    The first thing yielded is None, once git has its first chunks (see
    :func:`read_records`, which starts every git so). Closing the iterator
    early stops git. ``decode`` decodes a state faster than json.loads
    (:func:`fastjson.make_decoder`), or is None."""
    import queue
    import threading

    from gitrefocus.store import git

    if not items:
        return
    proc = git.popen(ws.git_dir, "--git-dir=.", "cat-file", "--batch-command", "--buffer", stdin=True, stderr=False,
                     config=LEAN_PACKS, bufsize=git.PIPE_BYTES)  # a read takes what git got ahead, not 8 KiB of it
    assert proc.stdin is not None and proc.stdout is not None
    stdin, out = proc.stdin, proc.stdout
    git.widen_pipe(out.fileno())  # it stalled whenever a chunk of rows was being written
    asks: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()

    def feed() -> None:
        try:
            while (ask := asks.get()) is not None:
                stdin.write(ask)
                stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            pass  # git stopped (it failed, or the reader closed early): the reader sees it
        finally:
            with suppress(OSError, ValueError):
                stdin.close()

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()

    def header() -> tuple[bytes, bytes, int] | None:
        """(oid, type, size) of the next answer, None for a missing object;
        EOFError when git stopped answering."""
        line = out.readline()
        if not line.endswith(b"\n"):
            raise EOFError
        parts = line.split()
        if len(parts) == 3 and parts[2].isdigit():
            return parts[0], parts[1], int(parts[2])
        return None  # "<name> missing" (or "ambiguous": not for full ids)

    def content(size: int) -> bytes:
        data = out.read(size + 1)
        if len(data) != size + 1:
            raise EOFError
        return data[:-1]

    def ask_trees(chunk: Sequence[tuple[str, Oid | str]]) -> bytes:
        return "".join(f"info {oid}\ncontents {oid}^{{tree}}\n" for _, oid in chunk).encode()

    def read_trees(chunk: Sequence[tuple[str, Oid | str]]) -> list[tuple[str, str] | None]:
        """(state.json id, brief.md id) of each tip of ``chunk``, None for one read by read_record."""
        plan: list[tuple[str, str] | None] = []
        for rid, oid in chunk:
            tip, tree = header(), header()
            data = content(tree[2]) if tree is not None else b""
            # a tip named by anything but its id (a symbolic ref's target) is read_record's to judge
            ok = tip is not None and tip[1] == b"commit" and tip[0] == str(oid).encode() \
                and tree is not None and tree[1] == b"tree"
            # an entry's id is as wide as the tree's own: 20 bytes, or 32 in a SHA-256 repository
            plan.append(_tree_ids(data, len(tree[0]) // 2) if ok and tree and RefocusId.is_valid(rid) else None)
        return plan

    def read_states(chunk: Sequence[tuple[str, Oid | str]], plan: list[tuple[str, str] | None]) -> list[Record]:
        answers = []  # all read before any tip is read by read_record, which may take a while
        for ids in plan:
            blob = header() if ids is not None else None
            answers.append((blob, content(blob[2]) if blob is not None else b""))
        records = []
        for (rid, oid), ids, (blob, data) in zip(chunk, plan, answers, strict=True):
            record = None
            if ids is not None and blob is not None and blob[1] == b"blob":
                record = _clean_record(rid, oid, data, ids[1], decode)
            records.append(record if record is not None else read_record(ws.repo, rid, oid))
        return records

    chunks = [items[at:at + READ_CHUNK] for at in range(0, len(items), READ_CHUNK)]
    done = 0  # tips yielded
    try:
        asks.put(b"".join(ask_trees(c) for c in chunks[:2]) + b"flush\n")
        yield None  # primed: git is at work before the first record is asked for
        before: tuple[Sequence[tuple[str, Oid | str]], list[tuple[str, str] | None]] | None = None
        for at, chunk in enumerate(chunks):
            try:
                plan = read_trees(chunk)
                states = "".join(f"contents {ids[0]}\n" for ids in plan if ids is not None).encode()
                following = ask_trees(chunks[at + 2]) if at + 2 < len(chunks) else b""
                asks.put(states + following + b"flush\n")
                records = read_states(*before) if before is not None else []
            except EOFError:  # git older than 2.36, or it died: every tip left is read one at a time
                yield from (read_record(ws.repo, r, o) for r, o in items[done:])
                return
            before = chunk, plan
            for record in records:
                done += 1
                yield record
        assert before is not None
        try:
            records = read_states(*before)
        except EOFError:
            yield from (read_record(ws.repo, r, o) for r, o in items[done:])
            return
        yield from records
    finally:
        asks.put(None)
        if proc.poll() is None:
            proc.kill()
        out.close()
        proc.wait()
        writer.join()


def _event_tree(width: int) -> re.Pattern[bytes]:
    """The raw tree of every event commit git refocus writes, its ids ``width`` bytes wide."""
    return re.compile(rb"100644 brief\.md\0(.{%d})100644 event\.json\0.{%d}100644 state\.json\0(.{%d})"
                      % (width, width, width), re.S)


_EVENT_TREES = {20: _event_tree(20), 32: _event_tree(32)}


def _tree_ids(data: bytes, width: int) -> tuple[str, str] | None:
    """(state.json id, brief.md id) in hex from a tree's raw entries; None
    when either is missing or the tree is not strictly in git's order (where
    git and libgit2 could find different entries: read_record decides)."""
    usual = _EVENT_TREES.get(width)
    m = usual.fullmatch(data) if usual is not None else None
    if m is not None:  # the tree an event commit has: in order, in one C call
        return m[2].hex(), m[1].hex()
    state = brief = None
    last = b""
    at, end = 0, len(data)
    while at < end:
        space = data.find(b" ", at)
        nul = data.find(b"\0", space + 1) if space >= 0 else -1
        if nul < 0 or nul + 1 + width > end:
            return None
        name = data[space + 1:nul]
        key = name + b"/" if data[at:space] == b"40000" else name  # git sorts a tree as if named "<name>/"
        if key <= last:
            return None
        last = key
        if name == b"state.json":
            state = data[nul + 1:nul + 1 + width].hex()
        elif name == b"brief.md":
            brief = data[nul + 1:nul + 1 + width].hex()
        at = nul + 1 + width
    return (state, brief) if state is not None and brief is not None else None


def _clean_record(rid: str, oid: Oid | str, data: bytes, brief: str, decode: Callable[[bytes], Any] | None
                  ) -> Record | None:
    """The Record of a tip whose state.json read cleanly through cat-file, or
    None (:func:`read_record` then reads it and says what is wrong)."""
    from gitrefocus.model.events import RefocusState

    try:
        # the text kept is the one json.loads decodes, so it reads back the same
        # (a lone surrogate, which json.loads takes, is no text: no file or row can hold it)
        raw, text = fastjson.loads_text(data, decode, text_only=True)
    except Exception:  # noqa: BLE001 - read again, one at a time, for the exact reason
        return None
    return Record.unparsed(rid, str(oid), brief, raw, text) if RefocusState.reads(raw) else None


def moved(cache: Cache, repo: Repository, rid: str, new: Oid | None, stamp_before: str | None) -> None:
    """Record a ref move made under :func:`writing`: its row, and the refs stamp
    when the rows were complete just before it. Never raises: the ref has moved,
    and a cache that missed it still holds the old stamp, so readers re-enumerate."""
    try:
        cache.count_move()
        if new is None:
            cache.drop([rid])
        else:
            cache.put([read_record(repo, rid, new)])
        if stamp_before is not None and cache.stamp() == stamp_before:
            cache.set_stamp(refs_stamp(cache.git_dir)[0])
    except sqlite3.Error:
        pass


