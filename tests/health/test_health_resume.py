"""Diff on resume: commits and changed context files since this user's last session start."""

from __future__ import annotations

import json

import pytest

from gitrefocus.errors import RefocusError
from gitrefocus.health import resume
from gitrefocus.store.workspace import Workspace
from tests.gitrepo import commit_files, git, make_repo
from tests.runner import refocus

CTX = "docs/context"


@pytest.fixture
def project(tmp_path):
    repo = make_repo(tmp_path / "proj")
    commit_files(repo, "context", {f"{CTX}/active-context.md": "# Active\n", f"{CTX}/patterns.md": "# Patterns\n"})
    return repo


def since(repo, **kw):
    return resume.changes_since_last_session(ws=Workspace.open(str(repo)), **kw)


def marker_path(repo):
    return repo / ".git/refocus/last-session" / (resume.user_key() + ".json")


def test_first_session_only_writes_the_marker(project):
    assert since(project, update_marker=True) is None, "nothing to compare with on first use"
    marker = json.loads(marker_path(project).read_text())
    assert marker["head"] == git(project, "rev-parse", "HEAD").strip()
    assert sorted(marker["context"]) == [f"{CTX}/active-context.md", f"{CTX}/patterns.md"]
    assert since(project, update_marker=True) is None, "silent when nothing changed"


def test_reports_commits_and_changed_context_files(project):
    since(project, update_marker=True)
    for i in range(7):
        commit_files(project, f"feat: step {i}", {"src/app.txt": f"{i}\n"})
    commit_files(project, "docs: patterns", {f"{CTX}/patterns.md": "# Patterns\n- retry\n"})
    (project / CTX / "decisions").mkdir()
    (project / CTX / "decisions/ADR-003.md").write_text("# ADR-003: x\n")  # not committed yet: still a change
    (project / CTX / "active-context.md").unlink()
    got = since(project, budget="light")
    assert got["total_commits"] == 8 and got["more"] == 5
    assert [c["oneline"].split(" ", 1)[1] for c in got["commits"]] == ["docs: patterns", "feat: step 6", "feat: step 5"]
    assert got["context_files"] == [
        {"path": f"{CTX}/active-context.md", "change": "deleted"},
        {"path": f"{CTX}/decisions/ADR-003.md", "change": "added"},
        {"path": f"{CTX}/patterns.md", "change": "modified"},
    ]
    assert len(since(project, budget="standard")["commits"]) == 5
    assert len(since(project, budget="detailed")["commits"]) == 8
    assert since(project, budget="economy") is None, "economy shows no diff"
    assert len(since(project, budget="standard", max_commits=2)["commits"]) == 2
    text = resume.render(got)
    assert "8 commits):" in text and "| (+5 more)" in text and "docs/context/patterns.md modified" in text
    # read-only calls never moved the marker; the hook's call does, and then there is nothing new
    assert since(project, update_marker=True)["total_commits"] == 8
    assert since(project) is None


def test_budget_comes_from_config(project):
    since(project, update_marker=True)
    for i in range(4):
        commit_files(project, f"c{i}")
    git(project, "config", "refocus.budget", "light")
    assert len(since(project)["commits"]) == 3
    git(project, "config", "refocus.budget", "nonsense")
    assert len(since(project)["commits"]) == 4, "unknown budgets fall back to standard (5)"


def test_after_a_rebase_the_rewritten_commits_are_new(project):
    commit_files(project, "base")
    git(project, "branch", "upstream")
    commit_files(project, "mine")
    since(project, update_marker=True)
    git(project, "checkout", "-q", "upstream")
    commit_files(project, "theirs")
    git(project, "checkout", "-q", "main")
    git(project, "rebase", "-q", "upstream")
    got = since(project)
    assert [c["oneline"].split(" ", 1)[1] for c in got["commits"]] == ["mine", "theirs"]


def test_marker_is_per_user_and_refuses_symlinks(project, tmp_path, monkeypatch):
    since(project, update_marker=True)
    monkeypatch.setenv("USER", "someone-else")
    monkeypatch.setenv("LOGNAME", "someone-else")
    assert resume.user_key() == "someone-else"
    commit_files(project, "new")
    assert since(project, update_marker=True) is None, "another user's first session"
    assert marker_path(project).exists()
    evil = tmp_path / "evil.json"
    evil.write_text(marker_path(project).read_text())
    marker_path(project).unlink()
    marker_path(project).symlink_to(evil)
    with pytest.raises(RefocusError, match="symlink"):
        since(project, update_marker=True)
    assert marker_path(project).is_symlink(), "never written through"


def test_status_shows_changes_read_only(project):
    since(project, update_marker=True)
    commit_files(project, "fix: auth validation")
    (project / CTX / "patterns.md").write_text("# Patterns\n- changed\n")
    before = marker_path(project).read_text()
    model = refocus("status", "--json", cwd=project).json
    lines = model["changes_since_last_session"]
    assert lines[0].startswith("1 commit since ") and lines[1].endswith(" fix: auth validation")
    assert lines[2] == f"{CTX}/patterns.md modified"
    assert marker_path(project).read_text() == before, "status never moves the marker"
    assert "Changes since last session:" in refocus("status", cwd=project).stdout


def test_session_start_lines(project):
    ws = Workspace.open(str(project))
    assert resume.session_start_lines(ws, budget="standard") == []
    for i in range(6):
        commit_files(project, f"work {i}")
    (project / CTX / "decisions").mkdir()
    (project / CTX / "decisions/INDEX.md").write_text("# Decision Index\n")
    lines = resume.session_start_lines(ws, budget="light")
    assert lines[0].startswith("Context files with more than 5 commits since their last change: "
                               f"{CTX}/active-context.md (6 commits behind)")
    assert lines[1].startswith("Since the last session start here (") and "(+3 more)" in lines[1]
    assert "\n" not in lines[1] and f"{CTX}/decisions/INDEX.md added" in lines[1]
    assert lines[2].startswith(f"A decision index is at {CTX}/decisions/INDEX.md")
    assert not any(ln.startswith("Since") for ln in resume.session_start_lines(ws, budget="light"))
