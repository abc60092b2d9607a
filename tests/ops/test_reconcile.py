"""ops/reconcile.py: a hand edit of a brief's status is imported as an event when it is a legal
transition, and reported (never imported) when it is not."""

from __future__ import annotations

from tests.gitrepo import event_kinds
from tests.runner import refocus


def test_hand_edited_status_is_imported_as_event(spawned):
    src, dest, out = spawned
    rid = out["id"]
    path = dest / "docs/refocus" / f"{rid}.md"
    text = path.read_text().replace("status: reserved", "status: abandoned").replace("reason: null", "reason: wrong dest")
    path.write_text(text + "\nA note the user added.\n")
    listed = refocus("list", "--json", cwd=dest).json
    assert listed["entries"][0]["status"] == "abandoned"
    assert event_kinds(dest, rid)[-1] == "edited"
    assert "A note the user added." in path.read_text()


def test_illegal_hand_edit_is_reported_not_imported(spawned):
    src, dest, out = spawned
    rid = out["id"]
    path = dest / "docs/refocus" / f"{rid}.md"
    path.write_text(path.read_text().replace("status: reserved", "status: result"))
    r = refocus("status", "--json", cwd=dest)
    assert "not a legal transition" in r.stderr
    assert event_kinds(dest, rid) == ["spawned"]
    r = refocus("start", rid, cwd=dest, check=False)
    assert r.returncode == 1 and "not a legal transition" in r.stderr


def test_settle_reconciles_every_unsettled_brief_a_chunk_at_a_time(repos, monkeypatch):
    """A cold cache leaves every brief unsettled; settle loads them in chunks
    (here of one) and still reports each illegal hand edit once."""
    from tests.runner import spawn_args

    src, dest = repos
    rids = [refocus(*spawn_args(dest, f"chunk-{i}"), cwd=src).json["id"] for i in range(3)]
    for rid in rids[:2]:
        path = dest / "docs/refocus" / f"{rid}.md"
        path.write_text(path.read_text().replace("status: reserved", "status: result"))
    from gitrefocus.ops import reconcile
    from gitrefocus.store import catalog, catalog_cache
    from gitrefocus.store.workspace import Workspace

    monkeypatch.setattr(catalog, "CHUNK", 1)
    try:
        notices = reconcile.settle(Workspace.open(str(dest)))
    finally:
        catalog_cache.forget()
    assert sorted(n.split(" says ")[0] for n in notices) == sorted(f"docs/refocus/{rid}.md" for rid in rids[:2])


def test_a_large_cold_build_maps_packs_in_small_windows_and_puts_the_settings_back(repos, monkeypatch):
    """A cold build of more than a chunk reads every state.json with small pack windows
    (libgit2's 1 GiB default maps a whole pack: ~840 MiB RSS at 100k refocuses), and
    leaves the process-wide libgit2 settings as it found them."""
    import shutil

    import pygit2

    from tests.runner import spawn_args

    src, dest = repos
    rids = [refocus(*spawn_args(dest, f"lean-{i}"), cwd=src).json["id"] for i in range(3)]
    from gitrefocus.ops import reconcile
    from gitrefocus.store import catalog, catalog_cache
    from gitrefocus.store.workspace import Workspace

    shutil.rmtree(dest / ".git/refocus/cache", ignore_errors=True)
    windows = []
    read = catalog_cache.read_record

    def spy(repo, rid, oid):
        windows.append((pygit2.settings.mwindow_size, pygit2.settings.mwindow_mapped_limit))
        return read(repo, rid, oid)

    monkeypatch.setattr(catalog_cache, "read_record", spy)
    monkeypatch.setattr(catalog, "CHUNK", 1)
    before = (pygit2.settings.mwindow_size, pygit2.settings.mwindow_mapped_limit)
    try:
        ws = Workspace.open(str(dest))
        assert ws.repo is not None  # libgit2 loaded: a build this small reads through it, not git cat-file
        reconcile.settle(ws)
    finally:
        catalog_cache.forget()
    assert len(windows) >= len(rids)
    assert set(windows) == {(catalog.PACK_WINDOW, catalog.PACK_MAPPED)}
    assert (pygit2.settings.mwindow_size, pygit2.settings.mwindow_mapped_limit) == before
    assert {e["id"] for e in refocus("list", "--all", "--json", cwd=dest).json["entries"]} == set(rids)
