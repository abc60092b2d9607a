"""ops/index_md.py: INDEX.md as the writers refresh it (through the catalog's index,
loading only what can be shown) says exactly what a full rebuild says, and is not
rewritten when nothing visible changed."""

from __future__ import annotations

import os

from tests.runner import refocus, spawn_args

OLD = {"GIT_REFOCUS_NOW": "2026-01-10T12:00:00Z"}
NOW = {"GIT_REFOCUS_NOW": "2026-06-01T12:00:00Z"}


def finish(src, dest, rid, env, summary="Done."):
    refocus("start", rid, cwd=dest, env=env)
    refocus("complete", rid, "--summary", summary, "--no-material-changes", "none", cwd=dest, env=env)


def index_text(dest) -> str:
    return (dest / "docs/refocus/INDEX.md").read_text()


def history(src, dest) -> dict[str, str]:
    """Refocuses of every kind INDEX.md sorts: archived, older, open (old and new), recent results
    and abandons, a brief file without a ref and a file that is no brief; {slug: id}."""
    ids = {}
    for slug, env in [("archived-one", OLD), ("old-result", OLD), ("old-open", OLD), ("new-result", NOW),
                      ("new-open", NOW), ("abandoned-now", NOW)]:
        ids[slug] = refocus(*spawn_args(dest, slug), cwd=src, env=env).json["id"]
    finish(src, dest, ids["archived-one"], OLD)
    refocus("abandon", ids["old-result"], "--reason", "superseded", cwd=src, env=OLD)  # gc keeps it: older
    finish(src, dest, ids["new-result"], NOW)
    refocus("abandon", ids["abandoned-now"], "--reason", "not needed", cwd=src, env=NOW)
    refocus("gc", "--days", "1", cwd=dest, env={"GIT_REFOCUS_NOW": "2026-01-12T12:00:00Z"})
    assert (dest / "docs/refocus/archive").is_dir()
    # a brief file without a ref (copied from elsewhere), and one that is not a brief at all
    stray = (dest / "docs/refocus" / f"{ids['new-open']}.md").read_text().replace(
        ids["new-open"], "2026-05-30-stray-copy-" + ids["new-open"][-6:])
    (dest / "docs/refocus/2026-05-30-stray-copy-{}.md".format(ids["new-open"][-6:])).write_text(stray)
    (dest / "docs/refocus/notes.md").write_text("not a brief\n")
    return ids


def test_refreshed_index_equals_a_full_rebuild(repos, monkeypatch):
    src, dest = repos
    history(src, dest)
    for key, value in NOW.items():
        monkeypatch.setenv(key, value)
    from gitrefocus.ops import index_md
    from gitrefocus.store import catalog, catalog_cache
    from gitrefocus.store.workspace import Workspace

    ws = Workspace.open(str(dest))
    try:
        full = index_md.render(catalog.load(ws))
        refreshed = index_md.render_model(ws, index_md.overview_model(ws))
    finally:
        catalog_cache.forget()
    assert refreshed == full
    assert "1 archived" in full and "1 older finished entries" in full, full
    assert "stray-copy" in full and "new-result" in full and "old-open" in full

    refocus("index", cwd=dest, env=NOW)
    assert index_text(dest) == full


def test_each_section_lists_its_newest_rows_and_points_to_list_for_the_rest(repos, monkeypatch):
    """A refresh loads a bounded set (the newest rows of each section) and says what it leaves out,
    exactly as a full rebuild (what doctor compares INDEX.md with) says it."""
    src, dest = repos
    ids = history(src, dest)
    for key, value in NOW.items():
        monkeypatch.setenv(key, value)
    from gitrefocus.ops import index_md
    from gitrefocus.store import catalog, catalog_cache
    from gitrefocus.store.workspace import Workspace

    monkeypatch.setattr(index_md, "INDEX_ROWS", 1)
    ws = Workspace.open(str(dest))
    try:
        full = index_md.render(catalog.load(ws))
        bounded = index_md.overview_model(ws, index_md.INDEX_ROWS)
        refreshed = index_md.render_model(ws, bounded)
        listed = index_md.overview_model(ws)
    finally:
        catalog_cache.forget()
    assert refreshed == full
    stray = next(rid for rid in bounded.catalog.entries if "stray-copy" in rid)  # a brief without a ref: loaded
    assert set(bounded.catalog.entries) == {ids["new-open"], ids["new-result"], stray}, "only the rows shown"
    active, recent = full.split("## Recent")
    assert active.count("\n| 2026-") == 1 and "new-open" in active and "old-open" not in active
    assert "(2 more not shown; `git refocus list` shows them.)" in active
    assert recent.count("\n| 2026-") == 1 and "new-result" in recent and "abandoned-now" not in recent
    assert "(1 more not shown; `git refocus list` shows them.)" in recent
    assert "1 older finished entries not shown" in recent, "the rows left out are not counted as older"
    assert len(listed.active) == 3 and len(listed.recent) == 2, "list still shows every row"


def test_index_is_not_rewritten_when_nothing_visible_changed(spawned):
    src, dest, out = spawned
    rid = out["id"]
    finish(src, dest, rid, {})
    before = os.stat(dest / "docs/refocus/INDEX.md")
    text = index_text(dest)
    refocus("receive", rid, cwd=src)  # received_at is not shown in INDEX.md
    after = os.stat(dest / "docs/refocus/INDEX.md")
    assert index_text(dest) == text
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_a_refresh_overtaken_by_another_writer_leaves_index_md_current(initialized, monkeypatch):
    """Two writers refresh INDEX.md at once (32 parallel writers did, once in CI): one renders,
    another moves a ref and writes INDEX.md, then the first writes. The file must show the later
    state, not the first writer's render: doctor finds nothing, and the text is what
    `git refocus index` writes from nothing."""
    import shutil

    from gitrefocus.ops import index_md
    from gitrefocus.store import catalog_cache
    from gitrefocus.store.workspace import Workspace

    src, dest = initialized
    rid = refocus(*spawn_args(dest), cwd=src).json["id"]
    real = index_md.render_model
    overtaken: list[str] = []

    def render_then_overtaken(ws, m):
        text = real(ws, m)
        if not overtaken:  # another process moves the ref and refreshes INDEX.md meanwhile
            overtaken.append(text)
            refocus("start", rid, cwd=dest, own_process=True)  # not this process: its cache is open
        return text

    monkeypatch.setattr(index_md, "render_model", render_then_overtaken)
    try:
        index_md.refresh(Workspace.open(str(dest)))
    finally:
        catalog_cache.forget()
    assert overtaken and "| in-progress |" not in overtaken[0]
    written = index_text(dest)
    assert refocus("doctor", "--json", cwd=dest, check=False).json["problems"] == 0
    shutil.rmtree(dest / ".git/refocus/cache")
    refocus("index", cwd=dest)
    assert written == index_text(dest) and "| in-progress |" in written
