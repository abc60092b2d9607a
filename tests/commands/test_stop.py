"""The active marker: `start` only in the destination, `status` shows it, `doctor` flags a
wrong one, `stop` clears it."""

from __future__ import annotations

from tests.gitrepo import commit, trailers
from tests.runner import refocus, spawn_args


def test_start_in_the_source_is_refused_and_marks_nothing(initialized):
    src, dest = initialized
    refocus("init", cwd=src)
    rid = refocus(*spawn_args(dest), cwd=src).json["id"]
    r = refocus("start", rid, cwd=src, check=False)
    assert r.returncode == 1, r
    assert "not here" in r.stderr and str(dest) in r.stderr and "start" in r.stderr
    assert not (src / ".git" / "refocus" / "active").exists()
    commit(src, "source work")
    assert trailers(src) == [], "a source commit must not carry the destination's Refocus-Id"


def test_status_shows_the_active_refocus(started):
    src, dest, rid = started
    text = refocus("status", cwd=dest).stdout
    assert "Active here" in text and rid in text
    doc = refocus("status", "--json", cwd=dest).json
    assert doc["active"] == {"id": rid, "status": "in-progress", "problem": None, "tagging": True}
    assert refocus("status", "--json", cwd=src).json["active"] is None


def test_stop_clears_the_marker_and_commits_go_untagged(started):
    src, dest, rid = started
    commit(dest, "tagged work")
    assert trailers(dest) == [rid]
    r = refocus("stop", cwd=dest)
    assert f"{rid} is no longer active here" in r.stdout
    commit(dest, "untagged work")
    assert trailers(dest) == []
    assert refocus("status", "--json", cwd=dest).json["active"] is None
    assert "no refocus is active here" in refocus("stop", cwd=dest).stdout
    shown = refocus("show", rid, "--json", cwd=dest).json
    assert shown["status"] == "in-progress", "stop records nothing: the refocus keeps its status"


def test_doctor_flags_and_repairs_a_marker_naming_a_foreign_refocus(initialized):
    """A marker left by an old `start` in the source (before it was refused)."""
    src, dest = initialized
    refocus("init", cwd=src)
    rid = refocus(*spawn_args(dest), cwd=src).json["id"]
    (src / ".git" / "refocus" / "active").write_text(rid + "\n")
    status = refocus("status", "--json", cwd=src).json
    assert status["active"]["problem"] and "not here" in status["active"]["problem"]
    assert "git refocus stop" in refocus("status", cwd=src).stderr
    doc = refocus("doctor", "--json", cwd=src, check=False).json
    found = [f for f in doc["findings"] if f["kind"] == "active"]
    assert found and found[0]["repairable"] and str(dest) in found[0]["message"], doc
    refocus("doctor", "--repair", cwd=src, check=False)
    assert not (src / ".git" / "refocus" / "active").exists()


def test_stop_clears_a_marker_naming_a_finished_refocus(started):
    src, dest, rid = started
    refocus("complete", "--summary", "done", "--dod", "1", "--no-material-changes", "test", cwd=dest)
    (dest / ".git" / "refocus" / "active").write_text(rid + "\n")  # as an interrupted complete might leave it
    assert "completed" in (refocus("status", "--json", cwd=dest).json["active"]["problem"] or "")
    refocus("stop", rid[:14], cwd=dest)
    assert not (dest / ".git" / "refocus" / "active").exists()
