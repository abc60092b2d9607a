"""`git refocus link`: commits made without the hook join a refocus (events + notes), and `log` lists them."""

from __future__ import annotations

from gitrefocus.model import note_line
from tests.gitrepo import commit, git, note
from tests.runner import refocus


def records(repo, rev="HEAD"):
    return note_line.parse(note(repo, rev))


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
