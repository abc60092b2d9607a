"""Notes (audit lines), linkage on completion, `log` and `link`, through the real CLI and git."""

from __future__ import annotations

from gitrefocus.model import note_line
from tests.git.gitutil import commit, note, trailers
from tests.helpers import git, refocus


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
    assert note(dest, amended) == note(dest, second), "notes.rewriteRef carries the note over on amend"
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


def test_log_lists_trailer_and_link_commits_oldest_first(started):
    src, dest, rid = started
    git(dest, "config", "--unset", "notes.displayRef")
    a = commit(dest, "a: by trailer")
    (dest / ".git" / "refocus" / "active").unlink()
    b = commit(dest, "b: made without the hook")
    c = commit(dest, "c: also without")
    commit(dest, "d: unrelated")
    out = refocus("link", rid, f"{a}..{c}", "--json", cwd=dest).json
    assert out["linked"] == [b, c] and out["status"] == "in-progress"
    again = refocus("link", rid, c, "--json", cwd=dest).json
    assert again["linked"] == [] and again["already_linked"] == [c]
    log = refocus("log", rid, "--json", cwd=dest).json
    assert log["version"] == 1 and log["kind"] == "log"
    assert [(x["subject"], x["via"]) for x in log["commits"]] == [
        ("a: by trailer", ["trailer"]), ("b: made without the hook", ["note"]), ("c: also without", ["note"])]
    text = refocus("log", rid, cwd=dest).stdout.splitlines()
    assert text[0].startswith(a[:7]) and text[0].endswith("a: by trailer  (trailer)")
    # link is recorded in the event log (and reaches the source repo)
    kinds = git(src, "log", "--format=%s", f"refs/refocus/{rid}")
    assert f"refocus({rid}): linked" in kinds
    refocus("complete", rid, "--summary", "done", "--no-material-changes", "n/a", cwd=dest)
    for oid, via in ((a, "trailer"), (b, "link"), (c, "link")):
        finals = [r.fields for r in records(dest, oid) if r.event == "linked" and r.fields.get("status") == "result"]
        assert finals == [{"status": "result", "via": via}], oid


def test_link_validates_revisions(started):
    src, dest, rid = started
    r = refocus("link", rid, "no-such-rev", cwd=dest, check=False)
    assert r.returncode == 1 and r.stderr.strip() == "error: unknown revision 'no-such-rev'."
    r = refocus("link", rid, "--", "--all", cwd=dest, check=False)
    assert r.returncode == 1 and "is not a revision" in r.stderr
    r = refocus("link", "2026-01-01-nope-abcdef", "HEAD", cwd=dest, check=False)
    assert r.returncode == 1 and "unknown refocus id" in r.stderr
    r = refocus("link", rid, cwd=dest, check=False)
    assert r.returncode == 2


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


def test_log_for_an_id_known_only_from_trailers(tmp_path):
    from tests.helpers import make_repo

    repo = make_repo(tmp_path / "clone")
    rid = "2026-03-03-only-trailers-abc123"
    commit(repo, "work", "-m", f"Refocus-Id: {rid}")
    assert [c["subject"] for c in refocus("log", rid, "--json", cwd=repo).json["commits"]] == ["work"]
    r = refocus("log", "nonsense", cwd=repo, check=False)
    assert r.returncode == 1 and "unknown refocus id" in r.stderr


def test_log_in_an_empty_repository(tmp_path):
    from tests.helpers import make_repo

    repo = make_repo(tmp_path / "empty", commit=False)
    rid = "2026-03-03-nothing-abc123"
    assert refocus("log", rid, "--json", cwd=repo).json["commits"] == []
    assert "no commits are linked" in refocus("log", rid, cwd=repo).stderr
