"""store/catalog_cache.py: the catalog's sqlite cache is keyed by ref tips, moves with every
ref git refocus moves, notices refs moved behind its back, survives corruption, and lets a
lookup by key touch only what it finds."""

from __future__ import annotations

import json
import sqlite3

import pytest

from tests.gitrepo import git, refs
from tests.runner import refocus, spawn_args

DB = ".git/refocus/cache/catalog.sqlite"


def rows(repo) -> dict[str, str]:
    """{id: tip} as the cache holds them."""
    with sqlite3.connect(repo / DB) as conn:
        return dict(conn.execute("SELECT id, tip FROM refs"))


def hook(repo, session_id):
    r = refocus("hook", "session-start", cwd=repo,
                input=json.dumps({"session_id": session_id, "cwd": str(repo), "source": "startup"}))
    return json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"] if r.stdout else ""


def tips(repo) -> dict[str, str]:
    return {name[len("refs/refocus/"):]: oid for name, oid in refs(repo, "refs/refocus/").items()}


def test_rows_move_with_the_refs_refocus_moves(spawned):
    src, dest, out = spawned
    rid = out["id"]
    refocus("list", cwd=src)
    refocus("list", cwd=dest)
    assert rows(src) == tips(src) and rows(dest) == tips(dest)
    refocus("start", rid, cwd=dest)  # moves the ref in dest, and in src through propagation
    refocus("complete", "--summary", "Done.", "--no-material-changes", "none", cwd=dest)
    assert rows(dest) == tips(dest), "the writer's own repository"
    assert rows(src) == tips(src), "the counterpart the events were carried to"


def test_a_ref_moved_by_plain_git_is_noticed_by_the_hook(spawned):
    src, dest, out = spawned
    refocus("init", cwd=src)  # src keeps taking part when its last refocus ref is deleted below
    rid = out["id"]
    reserved = tips(src)[rid].strip()
    refocus("start", rid, cwd=dest)
    refocus("complete", "--summary", "Standard written.", "--no-material-changes", "none", cwd=dest)
    refocus("list", cwd=src)  # the cache now says: a result waits in src
    git(src, "update-ref", f"refs/refocus/{rid}", reserved)  # behind the cache's back: back to reserved
    assert "returned" not in hook(src, "parent-1")
    assert json.loads(refocus("list", "--json", cwd=src).stdout)["entries"][0]["status"] == "reserved"
    git(src, "update-ref", "-d", f"refs/refocus/{rid}")
    assert hook(src, "parent-2") == ""
    assert rows(src) == {}


def test_a_result_arriving_by_plain_fetch_reaches_the_parent(repos, tmp_path):
    src, dest = repos
    out = refocus(*spawn_args(dest), cwd=src).json
    rid = out["id"]
    refocus("list", cwd=src)
    # the child finishes in a clone of src's refs that src only fetches from
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(src), str(clone))
    git(clone, "fetch", "-q", str(src), "refs/refocus/*:refs/refocus/*")
    refocus("list", cwd=clone)
    state = refocus("show", rid, "--json", cwd=clone).json
    assert state["status"] == "reserved"
    refocus("start", rid, cwd=dest)
    refocus("complete", "--summary", "From afar.", "--no-material-changes", "none", cwd=dest)
    git(clone, "fetch", "-q", str(src), f"+refs/refocus/{rid}:refs/refocus/{rid}")
    assert "From afar." in hook(clone, "parent-9")


def test_load_of_one_id_reads_one_ref(repos):
    src, dest = repos
    ids = [refocus(*spawn_args(dest, f"topic-{i}"), cwd=src).json["id"] for i in range(3)]
    refocus("show", ids[1], cwd=dest)
    from gitrefocus.store import catalog, catalog_cache
    from gitrefocus.store.workspace import Workspace

    ws = Workspace.open(str(dest))
    catalog_cache.forget()
    (dest / DB).unlink()
    cat = catalog.load(ws, only=ids[1])
    catalog_cache.forget()
    assert list(cat.entries) == [ids[1]]
    assert list(rows(dest)) == [ids[1]], "only the entry asked for was read and cached"


def test_a_corrupt_cache_is_rebuilt(spawned):
    src, dest, out = spawned
    refocus("list", cwd=dest)
    for suffix in ("", "-wal", "-shm"):
        path = dest / (DB + suffix)
        if path.exists():
            path.write_bytes(b"this is not a database" * 100)
    listed = refocus("list", "--json", cwd=dest).json
    assert [e["id"] for e in listed["entries"]] == [out["id"]]
    assert rows(dest) == tips(dest)


def test_an_unreadable_ref_is_reported_not_fatal(spawned):
    src, dest, out = spawned
    blob = git(dest, "hash-object", "-w", "--stdin", input="not an event commit\n").strip()
    bad = "2026-01-01-hostile-abcdef"
    git(dest, "update-ref", f"refs/refocus/{bad}", blob)
    listed = refocus("list", "--all", "--json", cwd=dest).json
    by_id = {e["id"]: e for e in listed["entries"]}
    assert by_id[out["id"]]["status"] == "reserved"
    assert any("unreadable" in p for p in by_id[bad]["problems"])
    hook(dest, out["child_session_id"])  # the hook still starts its child
    assert refocus("show", out["id"], "--json", cwd=dest).json["status"] == "in-progress"


def test_a_listing_reads_state_json_only(spawned):
    """A cold build keeps the state and the snapshot's id: a tip whose event.json is
    unreadable still lists with its status."""
    src, dest, out = spawned
    rid = out["id"]
    tip = tips(dest)[rid]
    tree = git(dest, "ls-tree", tip)
    broken = "\n".join(line.replace(line.split()[2], git(dest, "hash-object", "-w", "--stdin", input="{").strip()
                                    ) if line.endswith("event.json") else line for line in tree.splitlines())
    new_tree = git(dest, "mktree", input=broken + "\n").strip()
    commit = git(dest, "commit-tree", new_tree, "-m", f"refocus({rid}): spawned").strip()
    git(dest, "update-ref", f"refs/refocus/{rid}", commit)
    listed = refocus("list", "--json", cwd=dest).json
    assert listed["entries"][0]["status"] == "reserved"


def test_a_cold_build_cut_short_still_finds_the_child_by_key(repos):
    """The SessionStart hook builds a cold cache only for a while (Claude Code kills it at
    10 s); whatever is left, the child of the session is still found by its id's suffix,
    and what was built is kept for the next start."""
    src, dest = repos
    outs = [refocus(*spawn_args(dest, f"topic-{i}"), cwd=src).json for i in range(3)]
    from gitrefocus.model import lifecycle
    from gitrefocus.store import catalog, catalog_cache
    from gitrefocus.store.workspace import Workspace

    (dest / DB).unlink(missing_ok=True)
    ws = Workspace.open(str(dest))
    try:
        cut = catalog.select(ws, statuses=lifecycle.PENDING_LAUNCH, session_id=outs[1]["child_session_id"],
                             budget=-1)  # spent before the first chunk
        assert list(cut.entries) == [outs[1]["id"]]
        assert cut.entries[outs[1]["id"]].state.child_session_id == outs[1]["child_session_id"]
        whole = catalog.select(ws, statuses=lifecycle.PENDING_LAUNCH)
        assert sorted(whole.entries) == sorted(o["id"] for o in outs)
    finally:
        catalog_cache.forget()
    assert rows(dest) == tips(dest)


def test_rows_with_conflicts_are_found_by_query(tmp_path):
    """status loads finished refocuses only when noteworthy; one whose state holds
    conflicted events is found by a query on the cached state."""
    from gitrefocus.model.events import RefocusState
    from gitrefocus.store import catalog_cache

    cache = catalog_cache.open_cache(str(tmp_path))
    try:
        def state(rid, conflicts):
            return RefocusState.from_json({"id": rid, "status": "result", "conflicts": conflicts})

        conflict = {"event_id": "e1", "kind": "spawned", "at": "2026-01-01T00:00:00Z", "status": "reserved"}
        with cache.transaction():
            cache.put([catalog_cache.Record("2026-01-01-calm-aaaaaa", "1" * 40, None, state("calm", [])),
                       catalog_cache.Record("2026-01-01-torn-bbbbbb", "2" * 40, None, state("torn", [conflict])),
                       catalog_cache.Record("2026-01-01-bad-cccccc", "3" * 40, None, None, "unreadable"),
                       # a state.json written by an older or newer client without the key
                       catalog_cache.Record("2026-01-01-old-dddddd", "4" * 40, None, None, None,
                                            '{"id":"old","status":"result"}')])
        assert cache.with_conflicts() == ["2026-01-01-torn-bbbbbb"]
        assert cache.record("2026-01-01-torn-bbbbbb").state.conflicts[0].kind == "spawned"
    finally:
        catalog_cache.forget()


def test_a_large_cold_build_makes_the_indexes_once_and_always_puts_them_back(repos, monkeypatch):
    """A cold build of more than a chunk drops the refs table's secondary indexes while its rows
    go in and makes them after: also when the build stops halfway (a hook's budget, an error),
    and when the process dies meanwhile, the next open makes them again."""
    import shutil

    from gitrefocus.store import catalog, catalog_cache
    from gitrefocus.store.workspace import Workspace

    src, dest = repos
    for i in range(3):
        refocus(*spawn_args(dest, f"bulk-{i}"), cwd=src)
    monkeypatch.setattr(catalog, "CHUNK", 1)
    cache_dir = dest / ".git/refocus/cache"

    def indexes() -> set[str]:
        with sqlite3.connect(dest / DB) as conn:
            return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}

    seen = []
    put = catalog_cache.Cache.put

    def spy(self, records, **kw):
        seen.append(set(catalog_cache.REFS_INDEXES) & indexes())
        return put(self, records, **kw)

    monkeypatch.setattr(catalog_cache.Cache, "put", spy)
    try:
        shutil.rmtree(cache_dir)
        catalog.Catalog(Workspace.open(str(dest))).fresh()
        assert seen and not any(seen), "rows went in with their indexes"
        assert set(catalog_cache.REFS_INDEXES) <= indexes()

        catalog_cache.forget()
        shutil.rmtree(cache_dir)

        def broken(self, records, **kw):
            raise RuntimeError("stopped halfway")

        monkeypatch.setattr(catalog_cache.Cache, "put", broken)
        with pytest.raises(RuntimeError):
            catalog.Catalog(Workspace.open(str(dest))).fresh()
        assert set(catalog_cache.REFS_INDEXES) <= indexes()

        catalog_cache.forget()
        with sqlite3.connect(dest / DB) as conn:  # as a process killed mid-build leaves it
            for name in catalog_cache.REFS_INDEXES:
                conn.execute(f"DROP INDEX {name}")
        monkeypatch.setattr(catalog_cache.Cache, "put", put)
        catalog.Catalog(Workspace.open(str(dest))).cache
        assert set(catalog_cache.REFS_INDEXES) <= indexes()
    finally:
        catalog_cache.forget()
    assert [e["id"] for e in refocus("list", "--json", cwd=dest).json["entries"]]


def _empty_cache(path):
    from gitrefocus.store import catalog_cache

    cache = catalog_cache.Cache("unused", catalog_cache._connect(str(path)), str(path))
    return catalog_cache, cache


def test_a_name_sqlite_cannot_take_gets_no_files_row(tmp_path):
    """Undecodable bytes in a brief's path (a lone surrogate) make no row, never an error."""
    catalog_cache, cache = _empty_cache(tmp_path / "c.sqlite")
    with cache.transaction():
        cache.put_files({"docs/refocus/\udcff.md": [1, 2, "e" * 40, None, None, 1],
                         "docs/refocus/é.md": [1, 2, "d" * 40, None, None, 1]})
    assert cache.file("docs/refocus/\udcff.md") is None
    assert cache.file("docs/refocus/é.md") == [1, 2, "d" * 40, None, None, 1]


def test_writes_aside_run_in_a_thread_on_a_connection_of_their_own(tmp_path):
    """catalog_cache.aside: each write runs in its own transaction, on another thread and
    connection, while the body goes on; one that fails is rolled back and dropped, and the
    writes after it still run; leaving the body waits for them all. A cache in memory (or
    unthreaded) runs each write when handed."""
    import threading

    catalog_cache, cache = _empty_cache(tmp_path / "c.sqlite")
    seen: list[tuple[int, object]] = []

    def put(name: str, fail: bool = False):
        def write(target) -> None:
            seen.append((threading.get_ident(), target.conn))
            target.put_files({name: [1, 2, "a" * 40, None, None, 1]})
            if fail:
                raise sqlite3.OperationalError("disk full")
        return write

    with catalog_cache.aside(cache) as write:
        for name, fail in (("one", False), ("broken", True), ("two", False)):
            write(put(name, fail))
    assert [path for (path,) in cache.conn.execute("SELECT path FROM files ORDER BY path")] == ["one", "two"]
    assert len(seen) == 3 and all(ident != threading.get_ident() and conn is not cache.conn for ident, conn in seen)
    assert threading.active_count() == 1  # joined: a fork after it catches no thread

    def bug(target) -> None:
        raise RuntimeError("a bug in a write")

    with pytest.raises(RuntimeError, match="a bug"):  # not lost in the thread: raised on leaving
        with catalog_cache.aside(cache) as write:
            write(bug)
            write(put("after"))
    assert cache.file("after") is None and threading.active_count() == 1

    memory = catalog_cache.Cache("unused", catalog_cache._connect(":memory:"))
    for target, threaded in ((memory, True), (cache, False)):
        seen.clear()
        with catalog_cache.aside(target, threaded=threaded) as write:
            write(put("three"))
            assert target.file("three") is not None  # written already, here
        assert seen == [(threading.get_ident(), target.conn)]


def test_a_cache_of_another_version_is_made_anew(spawned):
    """A cache written by another version of git refocus (its tables' columns may differ)
    is dropped and built again, not written through its old columns."""
    src, dest, out = spawned
    db = dest / DB
    refocus("list", cwd=dest)
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE refs")
        conn.execute("CREATE TABLE refs (id TEXT PRIMARY KEY, tip TEXT NOT NULL, snapshot TEXT, state TEXT, "
                     "error TEXT, status TEXT, child_session_id TEXT, received INTEGER, finished TEXT)")
        conn.execute("INSERT INTO refs VALUES ('2026-01-01-stale-aaaaaa', 'x', NULL, NULL, 'old', NULL, NULL, 0, NULL)")
        conn.execute("UPDATE meta SET value = '7' WHERE key = 'version'")
    listed = refocus("status", "--json", cwd=dest).json
    assert listed is not None
    assert rows(dest) == tips(dest)
    with sqlite3.connect(db) as conn:
        assert "conflicted" in [c[1] for c in conn.execute("PRAGMA table_info(refs)")]


def test_a_cold_build_keeps_finished_rows_without_their_state_and_entries_read_it_from_git(repos, monkeypatch):
    """A large cold build keeps a finished refocus's row without its state text (two thirds
    of a row's bytes; listings read its columns). An entry that needs the state reads it
    from git, as libgit2 reads it, and keeps it: by id, in a full load, in a stream."""
    import shutil

    import pygit2

    from gitrefocus.store import catalog, catalog_cache, eventlog
    from gitrefocus.store.workspace import Workspace

    src, dest = repos
    finished = []
    for i in range(2):
        rid = refocus(*spawn_args(dest, f"done-{i}"), cwd=src).json["id"]
        refocus("abandon", rid, "--reason", "not needed", cwd=src)
        finished.append(rid)
    open_one = refocus(*spawn_args(dest, "still-open"), cwd=src).json["id"]
    repo = pygit2.Repository(str(dest))
    truth = {rid: eventlog.state_at(repo, oid)[0].to_json() for rid, oid in tips(dest).items()}

    def lean_rows() -> set[str]:
        with sqlite3.connect(dest / DB) as conn:
            return {r[0] for r in conn.execute("SELECT id FROM refs WHERE state IS NULL AND error IS NULL")}

    def cold(patch) -> catalog.Catalog:
        catalog_cache.forget()
        shutil.rmtree(dest / ".git/refocus/cache", ignore_errors=True)
        cat = catalog.Catalog(Workspace.open(str(dest)))
        cat.fresh()
        assert lean_rows() == set(finished), "finished rows lean, the open one whole"
        assert cat.cache.unreadable() == []
        return cat

    with monkeypatch.context() as patch:
        patch.setattr(catalog, "CHUNK", 1)
        try:
            cat = cold(patch)
            entry = cat.load_ids([finished[0]]).entries[finished[0]]
            assert entry.state.to_json() == truth[finished[0]]
            assert lean_rows() == {finished[1]}, "the state read is kept"
            cat = cold(patch)
            assert {e.id: e.state.to_json() for e in cat.stream()} == truth
            catalog_cache.forget()  # the rows kept by stream's own connection are seen by a new one
            assert lean_rows() == set()
            cat = cold(patch)
            assert {rid: e.state.to_json() for rid, e in cat.load().entries.items()} == truth
            assert lean_rows() == set()
            assert open_one in truth
        finally:
            catalog_cache.forget()



def test_the_newest_rows_of_index_md_and_their_counts_read_no_table_row(spawned):
    """INDEX.md's sections (the newest open refocuses, the newest finished since the
    cutoff, and how many more of each) are answered from the status and finished
    indexes alone: at 100k rows a table row read per open refocus cost milliseconds
    on every write."""
    from gitrefocus.model import lifecycle
    from gitrefocus.store import catalog_cache

    src, _, _ = spawned
    refocus("list", cwd=src)
    cache = catalog_cache.open_cache(str(src / ".git"))
    assert cache is not None
    statements: list[str] = []
    cache.conn.set_trace_callback(statements.append)  # each statement with its values in place
    try:
        cache.newest(50, statuses=lifecycle.ACTIVE)
        cache.newest(50, since="2000-01-01T00:00:00Z")
    finally:
        cache.conn.set_trace_callback(None)
    plans = [row[3] for sql in statements for row in cache.conn.execute(f"EXPLAIN QUERY PLAN {sql}")]
    catalog_cache.forget()
    reads = [p for p in plans if p.startswith(("SEARCH refs", "SCAN refs"))]
    assert len(statements) == 4 and reads, statements
    assert all("COVERING INDEX" in p or "sqlite_autoindex_refs_1" in p for p in reads), plans
