"""store/catalog: INDEX.md counts brief files through the cache's census of brief names, kept
current by git refocus's own writes, so a spawn in a repository of 100k briefs does not list
docs/refocus/. A change made by anything else is noticed (the directories' stamp moves) and the
directory is listed again. The oracle: INDEX.md built from nothing (no cache at all)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import time

import pytest

from gitrefocus.ops import index_md
from gitrefocus.store import catalog, catalog_cache
from gitrefocus.store.workspace import Workspace
from tests.gitrepo import git
from tests.runner import refocus, spawn_args

DB = ".git/refocus/cache/catalog.sqlite"
NOW = {"GIT_REFOCUS_NOW": "2026-11-20T12:00:00Z"}


def index_text(repo) -> str:
    return (repo / "docs" / "refocus" / "INDEX.md").read_text()


def from_nothing(repo) -> str:
    """INDEX.md as a first run with no cache at all writes it."""
    shutil.rmtree(repo / ".git" / "refocus" / "cache")
    refocus("index", cwd=repo, env=NOW)
    return index_text(repo)


def census_current(repo) -> bool:
    with sqlite3.connect(repo / DB) as conn:
        row = conn.execute("SELECT value FROM meta WHERE key = 'briefs_stamp'").fetchone()
    return row is not None and row[0] == catalog.census_stamp(Workspace.open(str(repo)))[0]


def settle_dirs() -> None:
    """Let the directories' last change age past the racy window, as between two commands a person types."""
    time.sleep(catalog_cache.RACY_SECONDS * 2)


def test_index_md_from_the_census_equals_one_built_from_nothing(repos):
    src, dest = repos
    ids = [refocus(*spawn_args(dest, slug), cwd=src, env=NOW).json["id"] for slug in ("one", "two", "three")]
    for rid, day in zip(ids[:2], ("2026-01-02", "2026-01-05")):
        refocus("start", rid, cwd=dest, env=NOW)
        refocus("complete", rid, "--summary", "Done.", "--no-material-changes", "none", cwd=dest,
                env={"GIT_REFOCUS_NOW": f"{day}T12:00:00Z"})
        refocus("receive", rid, cwd=src, env=NOW)
    briefs = dest / "docs" / "refocus"

    def step(why: str, action) -> None:
        settle_dirs()
        refocus("index", cwd=dest, env=NOW)  # whatever happened before, the census is current now
        assert census_current(dest), why
        action()
        written = index_text(dest)
        assert written == from_nothing(dest), why
        return written

    # git refocus's own writes: the census follows them without listing
    step("a spawn", lambda: refocus(*spawn_args(dest, "four"), cwd=src, env=NOW))
    text = step("an archive into a new quarter", lambda: refocus("gc", "--days", "320", cwd=dest, env=NOW))
    assert "1 archived" in text
    text = step("an archive into that quarter", lambda: refocus("gc", "--days", "30", cwd=dest, env=NOW))
    assert "2 archived" in text

    # anything else: the directory's stamp moved, so it is listed again
    def orphan() -> None:
        (briefs / "2026-02-02-hand-made-abcdef.md").write_bytes((briefs / f"{ids[2]}.md").read_bytes())
        refocus("index", cwd=dest, env=NOW)

    assert "hand-made" in step("a brief without a ref, made by hand", orphan)

    def removed() -> None:
        (briefs / f"{ids[2]}.md").unlink()
        refocus("index", cwd=dest, env=NOW)

    step("a brief removed by hand", removed)

    def unarchived_ref_dropped() -> None:
        git(dest, "update-ref", "-d", f"refs/refocus/{ids[0]}")  # its brief is archived
        refocus("index", cwd=dest, env=NOW)

    step("the ref of an archived brief deleted", unarchived_ref_dropped)


def test_a_spawn_keeps_the_census_current_so_index_md_lists_nothing(spawned, monkeypatch):
    src, dest, _ = spawned
    settle_dirs()
    refocus("index", cwd=dest)
    refocus(*spawn_args(dest, "second"), cwd=src)  # writes a brief and INDEX.md in dest
    assert census_current(dest)

    def listed(_ws):
        raise AssertionError("docs/refocus/ was listed")

    monkeypatch.setattr(catalog, "_brief_names", listed)
    catalog_cache.forget()
    ws = Workspace.open(str(dest))
    index_md.refresh(ws)
    assert "second" in index_text(dest)
    (dest / "docs" / "refocus" / "2026-02-02-by-hand-abcdef.md").write_text("x")  # not ours: must be listed
    with pytest.raises(AssertionError, match="was listed"):
        index_md.refresh(ws)
    catalog_cache.forget()


def test_a_full_load_puts_right_what_the_census_missed(repos):
    """A foreign write in the same clock tick as one of ours can leave the census short of a
    name while its stamp still matches; the next full load (list --all, doctor, gc, tree)
    lists the directories anyway and puts the census right."""
    src, dest = repos
    rid = refocus(*spawn_args(dest, "one"), cwd=src, env=NOW).json["id"]
    refocus(*spawn_args(dest, "two"), cwd=src, env=NOW)
    refocus("start", rid, cwd=dest, env=NOW)
    refocus("complete", rid, "--summary", "Done.", "--no-material-changes", "none", cwd=dest,
            env={"GIT_REFOCUS_NOW": "2026-01-02T12:00:00Z"})
    refocus("gc", "--days", "30", cwd=dest, env=NOW)
    settle_dirs()
    refocus("index", cwd=dest, env=NOW)
    expected = index_text(dest)
    assert "1 archived" in expected and census_current(dest)
    with sqlite3.connect(dest / DB) as conn:  # the missed write, as the census would hold it
        conn.execute("DELETE FROM briefs WHERE id = ?", (rid,))
    refocus("index", cwd=dest, env=NOW)
    assert "0 archived" in index_text(dest)  # the census is trusted while its stamp matches
    refocus("list", "--all", cwd=dest, env=NOW)
    refocus("index", cwd=dest, env=NOW)
    assert index_text(dest) == expected


def test_a_census_that_cannot_be_written_is_read_from_a_listing(repos, monkeypatch):
    """When the cache refuses the census (locked past its timeout, a full disk), INDEX.md is
    counted from a listing instead: the same file, never a stale or empty census."""
    src, dest = repos
    rid = refocus(*spawn_args(dest, "one"), cwd=src, env=NOW).json["id"]
    two = refocus(*spawn_args(dest, "two"), cwd=src, env=NOW).json["id"]
    refocus("start", rid, cwd=dest, env=NOW)
    refocus("complete", rid, "--summary", "Done.", "--no-material-changes", "none", cwd=dest,
            env={"GIT_REFOCUS_NOW": "2026-01-02T12:00:00Z"})
    refocus("receive", rid, cwd=src, env=NOW)
    refocus("gc", "--days", "30", cwd=dest, env=NOW)
    briefs = dest / "docs" / "refocus"
    (briefs / "2026-02-02-hand-made-abcdef.md").write_bytes((briefs / f"{two}.md").read_bytes())
    expected = from_nothing(dest)
    assert "1 archived" in expected and "hand-made" in expected

    def refused(self, *args):
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(catalog_cache.Cache, "replace_census", refused)
    monkeypatch.setenv("GIT_REFOCUS_NOW", NOW["GIT_REFOCUS_NOW"])
    shutil.rmtree(dest / ".git" / "refocus" / "cache")
    (dest / "docs" / "refocus" / "INDEX.md").unlink()
    catalog_cache.forget()
    try:
        index_md.refresh(Workspace.open(str(dest)))
    finally:
        catalog_cache.forget()
    assert index_text(dest) == expected


@pytest.mark.parametrize("json_functions", [True, False], ids=["json_each", "row-by-row"])
def test_a_census_is_stored_the_same_by_sqlite_json_or_a_row_at_a_time(tmp_path, monkeypatch, json_functions):
    """replace_census hands sqlite every id in one JSON document when it can; a non-ASCII
    name, or an sqlite without JSON functions, goes a row at a time: the table is the same
    either way, has_ref following the refs rows."""
    cache = catalog_cache.Cache(str(tmp_path), sqlite3.connect(":memory:", isolation_level=None))
    for statement in [*catalog_cache.SCHEMA.split(";"), *catalog_cache.TRIGGERS]:
        if statement.strip():
            cache.conn.execute(statement)
    cache.put([catalog_cache.Record(rid, "t" * 40, None, None, "unreadable") for rid in ("b", 'q"uote', "é")])
    if not json_functions:
        monkeypatch.setattr(catalog_cache, "_PUT_BRIEFS", "INSERT INTO briefs SELECT * FROM no_such_function(?1)")
    ran: list[str] = []
    cache.conn.set_trace_callback(ran.append)

    def census(live: set[str], archived: set[str]) -> list[tuple]:
        ran.clear()
        with cache.transaction():
            cache.replace_census(live, archived)
        return cache.conn.execute("SELECT id, live, has_ref FROM briefs ORDER BY id").fetchall()

    assert census({"a", "b", 'q"uote', "back\\slash"}, {"a", "c"}) == sorted(
        [("a", 1, 0), ("b", 1, 1), ('q"uote', 1, 1), ("back\\slash", 1, 0), ("c", 0, 0)])
    assert any("json_each" in statement for statement in ran) == json_functions
    assert census({"a"}, {"é"}) == [("a", 1, 0), ("é", 0, 1)]  # not ASCII: a row at a time
    assert not any("json_each" in statement for statement in ran)
    assert cache.census_ids() == ({"a"}, {"é"}) and cache.without_ref() == ["a"]


def test_a_quarter_named_with_undecodable_bytes_is_listed_not_fatal(spawned):
    """An archive quarter whose name is not UTF-8 (a directory made by hand, or by another
    system): its briefs are listed, cold and warm, and INDEX.md is written. Such a name was
    once an internal error: sqlite takes no lone surrogate, in the census stamp nor as a
    files row's key; and `--json` wrote the raw byte, no UTF-8 (an error in a UTF-8 locale)."""
    src, dest, out = spawned
    rid = out["id"]
    refocus("list", cwd=dest)
    quarter = os.path.join(os.fsencode(dest / "docs/refocus/archive"), b"q\xff")
    os.makedirs(quarter)
    os.rename(os.fsencode(dest / f"docs/refocus/{rid}.md"), os.path.join(quarter, os.fsencode(f"{rid}.md")))
    for cold in (True, False):
        if cold:
            shutil.rmtree(dest / ".git/refocus/cache")
        listed = refocus("list", "--all", "--json", cwd=dest).json  # UTF-8, the odd byte escaped
        assert [(e["id"], e["archived"]) for e in listed["entries"]] == [(rid, True)]
        assert (dest / listed["entries"][0]["file"]).is_file()  # named as it is on disk
        refocus("index", cwd=dest)
        assert "1 archived" in index_text(dest)
