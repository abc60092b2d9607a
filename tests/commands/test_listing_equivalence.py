"""list / status / index read through the catalog's index (only what they show
is loaded) and say exactly what a full load of every entry says: active,
recent, old, archived, brief-only, corrupt, hand-edited and unreadable briefs,
in both repositories."""

from __future__ import annotations

import pytest

from tests.gitrepo import git
from tests.runner import refocus, spawn_args

OLD = {"GIT_REFOCUS_NOW": "2026-01-10T12:00:00Z"}
NOW = {"GIT_REFOCUS_NOW": "2026-06-01T12:00:00Z"}


def finish(dest, rid, env):
    refocus("start", rid, cwd=dest, env=env)
    refocus("complete", rid, "--summary", "Done.", "--no-material-changes", "none", cwd=dest, env=env)


def full(path):
    """list rows, status model and notices from a full load (the code before the index)."""
    from gitrefocus.commands.status import active, dashboard
    from gitrefocus.ops import index_md
    from gitrefocus.ops.reconcile import fresh_catalog
    from gitrefocus.store import catalog_cache
    from gitrefocus.store.workspace import Workspace

    ws = Workspace.open(str(path))
    try:
        cat, notices = fresh_catalog(ws)
        m = index_md.model(cat)
        board = dashboard(ws, cat).to_json()
        board["active"] = (lambda a: a.to_json() if a else None)(active(ws, cat))
        board["notices"] = notices
        everything = [index_md.row(e, ws).to_json()
                      for e in sorted(cat.entries.values(), key=lambda e: e.id, reverse=True)]
        return [r.to_json() for r in m.active + m.recent], board, notices, index_md.render(cat), everything
    finally:
        catalog_cache.forget()


def lean_build(repo, monkeypatch) -> int:
    """A cold build as a large repository gets one (more than a chunk of refs): the finished
    refocuses' rows kept without their state (catalog_cache.Record.lean). How many were."""
    import shutil
    import sqlite3

    from gitrefocus.store import catalog, catalog_cache
    from gitrefocus.store.workspace import Workspace

    shutil.rmtree(repo / ".git/refocus/cache")
    with monkeypatch.context() as patch:
        patch.setattr(catalog, "CHUNK", 1)
        try:
            catalog.Catalog(Workspace.open(str(repo))).fresh()
        finally:
            catalog_cache.forget()
    with sqlite3.connect(repo / ".git/refocus/cache/catalog.sqlite") as conn:
        return conn.execute("SELECT count(*) FROM refs WHERE state IS NULL AND error IS NULL").fetchone()[0]


@pytest.mark.parametrize("cache", ["built as it went", "cold and lean"])
def test_list_status_and_index_equal_a_full_load(repos, monkeypatch, cache):
    src, dest = repos
    ids = {}
    for slug, env in [("archived-one", OLD), ("old-result", OLD), ("old-open", OLD), ("new-result", NOW),
                      ("new-open", NOW), ("abandoned-now", NOW), ("edited-old", OLD), ("working", NOW)]:
        ids[slug] = refocus(*spawn_args(dest, slug), cwd=src, env=env).json["id"]
    finish(dest, ids["archived-one"], OLD)
    finish(dest, ids["edited-old"], OLD)
    refocus("abandon", ids["old-result"], "--reason", "superseded", cwd=src, env=OLD)
    finish(dest, ids["new-result"], NOW)  # its result waits in src, not received
    refocus("abandon", ids["abandoned-now"], "--reason", "not needed", cwd=src, env=NOW)
    refocus("start", ids["working"], cwd=dest, env=NOW)  # the active marker names it
    refocus("gc", "--days", "1", cwd=dest, env={"GIT_REFOCUS_NOW": "2026-01-12T12:00:00Z"})
    briefs = dest / "docs/refocus"
    assert (briefs / "archive").is_dir()
    # an old finished (archived) brief edited by hand to an illegal status: an edit cannot change a
    # refocus finished long ago, so only doctor reads it; a fresh one's edit is reported by every command
    (edited,) = briefs.glob(f"archive/*/{ids['edited-old']}.md")
    edited.write_text(edited.read_text().replace("status: result", "status: in-progress", 1))
    fresh = briefs / f"{ids['new-result']}.md"
    fresh.write_text(fresh.read_text().replace("status: result", "status: in-progress", 1))
    # a brief without a ref, a directory named like a brief, a ref that is not an event log
    stray = "2026-05-30-stray-copy-" + ids["new-open"][-6:]
    (briefs / f"{stray}.md").write_text((briefs / f"{ids['new-open']}.md").read_text().replace(ids["new-open"], stray))
    (briefs / "2026-05-29-a-directory-abcdef.md").mkdir()
    blob = git(dest, "hash-object", "-w", "--stdin", input="not an event commit\n").strip()
    git(dest, "update-ref", "refs/refocus/2026-05-28-hostile-fedcba", blob)

    for key, value in NOW.items():
        monkeypatch.setenv(key, value)
    for repo in (dest, src):
        lean = cache == "cold and lean"
        assert not lean or lean_build(repo, monkeypatch) >= 3
        listed = refocus("list", "--json", cwd=repo, env=NOW).json
        status = refocus("status", "--json", cwd=repo, env=NOW).json
        refocus("index", cwd=repo, env=NOW)
        assert not lean or lean_build(repo, monkeypatch) >= 3  # list --all meets them all lean
        listed_all = refocus("list", "--all", "--json", cwd=repo, env=NOW).json
        rows, board, notices, text, everything = full(repo)
        assert listed["entries"] == rows
        assert listed_all["entries"] == everything and len(everything) > len(rows)
        assert listed["notices"] == notices
        for key in ("incoming", "outgoing", "divergences", "active", "notices"):
            assert status[key] == board[key], key
        assert (repo / "docs/refocus/INDEX.md").read_text() == text
    # the case is what it claims to be
    assert any("not a legal transition" in n for n in notices) or repo == src
    dest_status = refocus("status", "--json", cwd=dest, env=NOW).json
    problems = " ".join(d["problem"] for d in dest_status["divergences"])
    assert "hostile" in problems and "not a regular file" in problems
    assert dest_status["active"]["id"] == ids["working"]
    src_status = refocus("status", "--json", cwd=src, env=NOW).json
    assert ids["new-result"] in [w["id"] for w in src_status["outgoing"]["results_waiting"]]
    dest_list = refocus("list", "--json", cwd=dest, env=NOW).json
    shown = {e["id"] for e in dest_list["entries"]}
    assert stray in shown and ids["new-open"] in shown and ids["old-open"] in shown
    assert ids["archived-one"] not in shown and ids["old-result"] not in shown
    assert [n[:n.index(" says")] for n in dest_list["notices"] if "not a legal transition" in n] == [
        f"docs/refocus/{ids['new-result']}.md"]
    doctor = refocus("doctor", "--json", cwd=dest, env=NOW, check=False).json
    assert any(f["kind"] == "status-edited" and f["id"] == ids["edited-old"] for f in doctor["findings"])
