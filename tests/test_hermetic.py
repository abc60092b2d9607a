"""The hermetic fixture itself (tests/conftest.py): what every other test relies on."""

from __future__ import annotations

from tests.gitrepo import git, git_run, make_repo


def test_commits_get_the_pinned_identity_and_dates(tmp_path):
    repo = make_repo(tmp_path / "r")
    assert git(repo, "log", "-1", "--format=%an <%ae> %at %ai|%cn %ct %ci") == \
        "Ada Author <ada@example.com> 1500000000 2017-07-13 21:40:00 -0500|Ada Author 1500000000 2017-07-13 21:40:00 -0500\n"
    assert git(repo, "config", "core.autocrlf") == "input\n" and git(repo, "config", "core.eol") == "lf\n"


def test_an_accidental_editor_fails_at_once(tmp_path):
    repo = make_repo(tmp_path / "r")
    proc = git_run(repo, "commit", "--allow-empty")
    assert proc.returncode != 0 and "editor" in proc.stderr, f"git commit without -m must not wait for an editor: {proc}"


def test_the_repository_registry_stays_inside_the_test_home(tmp_path, hermetic):
    """`init` records the repository in the user-level registry; a test must never write the
    real user's one, whatever XDG_STATE_HOME the person running the tests has set."""
    from tests.runner import refocus

    repo = make_repo(tmp_path / "r")
    refocus("init", cwd=repo)
    registry = hermetic / ".local" / "state" / "git-refocus" / "repositories"
    assert str(repo) in registry.read_text()
