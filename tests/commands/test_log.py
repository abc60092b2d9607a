"""`git refocus log`: the commits linked to a refocus, even one known only from trailers."""

from __future__ import annotations

import shutil

from tests.gitrepo import commit, make_repo
from tests.runner import refocus


def test_log_for_an_id_known_only_from_trailers(tmp_path):
    repo = make_repo(tmp_path / "clone")
    rid = "2026-03-03-only-trailers-abc123"
    commit(repo, "work", "-m", f"Refocus-Id: {rid}")
    assert [c["subject"] for c in refocus("log", rid, "--json", cwd=repo).json["commits"]] == ["work"]
    r = refocus("log", "nonsense", cwd=repo, check=False)
    assert r.returncode == 1 and "unknown refocus id" in r.stderr


def test_log_in_an_empty_repository(tmp_path):
    repo = make_repo(tmp_path / "empty", commit=False)
    rid = "2026-03-03-nothing-abc123"
    assert refocus("log", rid, "--json", cwd=repo).json["commits"] == []
    assert "no commits are linked" in refocus("log", rid, cwd=repo).stderr


def test_the_source_logs_the_commits_made_in_the_destination(started):
    src, dest, rid = started
    commit(dest, "feat: standard")
    model = refocus("log", rid, "--json", cwd=src).json
    assert [c["subject"] for c in model["commits"]] == ["feat: standard"] and model["repo"] == str(dest), model
    text = refocus("log", rid, cwd=src)
    assert f"the commits of {rid} are in its destination, {dest}:" in text.stderr and "feat: standard" in text.stdout
    shutil.rmtree(dest)
    gone = refocus("log", rid, cwd=src)
    assert "was worked on in" in gone.stderr and gone.stdout == "", gone
