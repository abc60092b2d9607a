"""ops/linkage.py and ops/record.py: the audit note lines git log shows, and the linkage notes a
finished refocus leaves on its commits (they follow amend and rebase)."""

from __future__ import annotations

from gitrefocus.model import note_line
from tests.gitrepo import commit, git, note, trailers
from tests.runner import refocus


def records(repo, rev="HEAD"):
    return note_line.parse(note(repo, rev))


def test_git_log_shows_spawn_start_complete_and_linkage(started):
    src, dest, rid = started
    work = commit(dest, "the work")
    refocus("complete", "--summary", "done", "--no-material-changes", "investigation", cwd=dest)
    shown = git(dest, "log", "--format=%H%n%N")  # notes.displayRef is set by init: no --notes needed
    assert f"refocus {rid} spawned role=dest status=reserved" in shown
    assert f"refocus {rid} started role=dest status=in-progress" in shown
    assert f"refocus {rid} completed role=dest status=result" in shown
    assert [r.format()[21:] for r in records(dest, work) if r.event == "linked"] == [
        f"refocus {rid} linked status=result via=trailer"]
    assert all(r.at.endswith("Z") for r in records(dest, work))


def test_notes_follow_amend_and_rebase(started):
    src, dest, rid = started
    base = git(dest, "rev-parse", "HEAD").strip()
    first = commit(dest, "first")
    second = commit(dest, "second")
    refocus("complete", "--summary", "done", "--no-material-changes", "n/a", cwd=dest)
    assert any(r.event == "linked" for r in records(dest, first))
    git(dest, "commit", "-q", "--amend", "--allow-empty", "-m", "second, amended")
    amended = git(dest, "rev-parse", "HEAD").strip()
    assert amended != second
    carried = note(dest, amended).splitlines()
    assert carried[:-1] == note(dest, second).splitlines(), "notes.rewriteRef carries the note over on amend"
    # the amend dropped the trailer: the post-rewrite hook says where the link came from
    assert carried[-1].endswith(f"refocus {rid} linked status=result via=rewrite replaces={second[:12]}")
    # rebase both commits onto a new base
    git(dest, "checkout", "-q", "-b", "other", base)
    commit(dest, "elsewhere")
    git(dest, "checkout", "-q", "main")
    git(dest, "rebase", "-q", "other")
    rebased_first = git(dest, "rev-parse", "HEAD~1").strip()
    assert rebased_first != first
    assert note(dest, rebased_first) == note(dest, first), "notes.rewriteRef carries notes through rebase"
    assert trailers(dest, "HEAD") == [], "the new message was written after completion"
    log = refocus("log", rid, "--json", cwd=dest).json
    assert [(c["subject"], c["via"]) for c in log["commits"]][-2:] == [
        ("first", ["trailer", "note"]), ("second, amended", ["note"])], "still linked, through the carried note"


def test_abandon_from_the_source_links_commits_in_the_destination(started):
    src, dest, rid = started
    work = commit(dest, "half done")
    refocus("abandon", rid, "--reason", "superseded", cwd=src)
    assert [r.fields for r in records(dest, work) if r.event == "linked"] == [{"status": "abandoned", "via": "trailer"}]


def test_blocked_then_abandoned_names_both(started):
    src, dest, rid = started
    work = commit(dest, "stuck")
    refocus("complete", "--status", "blocked", "--summary", "needs X", "--no-material-changes", "n/a", cwd=dest)
    refocus("abandon", rid, "--reason", "gave up", cwd=dest)
    statuses = [r.fields["status"] for r in records(dest, work) if r.event == "linked"]
    assert statuses == ["blocked", "abandoned"]


def test_a_finish_reads_the_notes_of_its_commits_not_of_the_whole_history(started, monkeypatch):
    """At completion the commits are found by their messages (the trailer) and by the event
    log's ``linked`` events; only their notes are read (a long history's notes are most of
    what a walk with --notes reads). A link the event log never knew of — a note line alone —
    is left to doctor, which finds it and adds the final line."""
    src, dest, rid = started
    by_trailer = commit(dest, "the work")
    git(dest, "commit", "-q", "--no-verify", "--allow-empty", "-m", "an older fix")
    by_link = git(dest, "rev-parse", "HEAD").strip()
    refocus("link", rid, by_link, cwd=dest)
    git(dest, "commit", "-q", "--no-verify", "--allow-empty", "-m", "linked by a note line alone")
    note_only = git(dest, "rev-parse", "HEAD").strip()
    git(dest, "notes", "--ref=refocus", "append", "-m", f"2026-01-01T00:00:00Z refocus {rid} linked via=link",
        note_only)
    from gitrefocus.store import git as store_git

    walks = []
    real = store_git.run

    def watching(cwd, *args, **kw):
        if args[:1] == ("log",) and "--branches" in args and any(a.startswith("--notes=") for a in args):
            walks.append(args)
        return real(cwd, *args, **kw)

    monkeypatch.setattr(store_git, "run", watching)
    refocus("complete", "--summary", "done", "--no-material-changes", "n/a", cwd=dest)
    monkeypatch.undo()
    assert walks == [], "completion walked the history reading every note"
    for oid in (by_trailer, by_link):
        assert "result" in {r.fields.get("status") for r in records(dest, oid) if r.event == "linked"}, oid
    assert {r.fields.get("status") for r in records(dest, note_only) if r.event == "linked"} == {None}
    found = refocus("doctor", "--json", cwd=dest, check=False).json
    assert [(f["kind"], f["id"]) for f in found["findings"]] == [("linkage-missing", rid)], found
    refocus("doctor", "--repair", cwd=dest)
    assert "result" in {r.fields.get("status") for r in records(dest, note_only) if r.event == "linked"}
