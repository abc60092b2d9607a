"""Hermetic fixtures: every test gets its own HOME, no system or global git
config, a fixed identity, fixed commit dates, an editor that fails instead of
opening, and real git repositories in a temp dir (after git-revise's
tests/conftest.py ``hermetic_seal``)."""

from __future__ import annotations

import os

import pytest

from tests.gitrepo import make_repo
from tests.runner import git_refocus_on_path, refocus, spawn_args

IDENTITY = {
    "GIT_AUTHOR_NAME": "Ada Author",
    "GIT_AUTHOR_EMAIL": "ada@example.com",
    "GIT_COMMITTER_NAME": "Ada Author",
    "GIT_COMMITTER_EMAIL": "ada@example.com",
}
# Commits made with the git CLI get the same dates on every run; a test that needs
# distinct or advancing times sets them itself (tests/gitrepo.py:commit_files).
# git refocus's own clock is GIT_REFOCUS_NOW, which tests set where they need it.
DATES = {
    "GIT_AUTHOR_DATE": "1500000000 -0500",
    "GIT_COMMITTER_DATE": "1500000000 -0500",
}
# An accidental editor launch fails the git command at once instead of waiting for
# a terminal; a test that wants an editor passes its own GIT_EDITOR.
EDITOR = {"GIT_EDITOR": "false", "GIT_SEQUENCE_EDITOR": "false"}
DROP = ("CLAUDE_CODE_SESSION_ID", "SESSION_REFOCUS_ROLE", "SESSION_REFOCUS_ID", "CLAUDE_PROJECT_DIR",
        "CLAUDE_ENV_FILE", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_REFOCUS_NOW", "NO_COLOR",
        "GIT_REFOCUS_KILL_AFTER_WRITES", "EDITOR", "VISUAL",
        # another agent's session around the test run (docs/agents.md)
        "CODEX_SESSION_ID", "CODEX_THREAD_ID", "CODEX_HOME", "GEMINI_SESSION_ID", "GEMINI_CLI", "CLAUDECODE",
        "GIT_REFOCUS_CHILD", "GIT_REFOCUS_SESSION")
GITCONFIG = """\
[init]
\tdefaultBranch = main
[user]
\tname = Ada Author
\temail = ada@example.com
[core]
\teol = lf
\tautocrlf = input
[refocus]
\tagreedRemote = *
"""
# The tests' owner has agreed that `sync` may push refocus data to any remote (a user may
# say so in ~/.gitconfig too); tests/commands/test_privacy.py runs without it, as a new user does.


# How scripts/test shares the suite among its xdist workers (`-n auto`): a module at a time, so
# that a module's fixtures are made once; and the real client's tests, whose hooks run under the
# client's time limits, together on one worker, one after another, as they always ran. (The kill
# sweeps kill at a count of writes, not a time: they share out like the rest.) A scheduler of our
# own, not --dist loadgroup's xdist_group marks: with pytest 9.2, xdist 3.8 cannot read the group
# from the test id.
SERIAL = ("tests/e2e/",)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    from xdist.scheduler import LoadScopeScheduling

    class ByModule(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return "serial" if module.startswith(SERIAL) else module

    return ByModule(config, log)


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite tests/golden/*.json from what the commands print now (tests/cli/test_golden.py)")


@pytest.fixture(autouse=True)
def hermetic(tmp_path_factory, monkeypatch):
    return seal(monkeypatch, tmp_path_factory.mktemp("home"))


def seal(monkeypatch, home):
    """Make the environment hermetic with ``home`` as HOME (the autouse fixture's work, for a
    fixture of wider scope to apply with its own MonkeyPatch)."""
    for name in DROP:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    # every XDG base directory inside HOME: the registry lives under XDG_STATE_HOME
    for name, sub in (("XDG_CONFIG_HOME", ".config"), ("XDG_STATE_HOME", ".local/state"),
                      ("XDG_DATA_HOME", ".local/share"), ("XDG_CACHE_HOME", ".cache")):
        monkeypatch.setenv(name, str(home / sub))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_TERMINAL_PROMPT", "0")
    for k, v in {**IDENTITY, **DATES, **EDITOR}.items():
        monkeypatch.setenv(k, v)
    (home / ".gitconfig").write_text(GITCONFIG)
    # the git hooks init installs call `git-refocus` from PATH (post-rewrite): this source tree's,
    # whether pytest runs inside the venv (scripts/test) or not
    bindir = git_refocus_on_path(home / ".local")
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}")
    return home


@pytest.fixture
def repos(tmp_path):
    """Two real repositories, a source and a destination."""
    return make_repo(tmp_path / "src"), make_repo(tmp_path / "dest")


@pytest.fixture
def spawned(repos):
    """A refocus spawned from src into dest: (src, dest, spawn's JSON output)."""
    src, dest = repos
    out = refocus(*spawn_args(dest), cwd=src).json
    return src, dest, out


@pytest.fixture
def initialized(repos):
    """src and dest, dest initialised with `git refocus init` (hook + notes config)."""
    src, dest = repos
    refocus("init", cwd=dest)
    return src, dest


@pytest.fixture
def wired(repos):
    """src and dest, both initialised (so doctor holds both to the same standard)."""
    src, dest = repos
    for repo in (src, dest):
        refocus("init", cwd=repo)
    return src, dest


@pytest.fixture
def started(initialized):
    """A refocus spawned from src into an initialised dest and started there: (src, dest, id)."""
    src, dest = initialized
    rid = refocus(*spawn_args(dest), cwd=src).json["id"]
    refocus("start", rid, cwd=dest)
    return src, dest, rid
