"""Hermetic fixtures: every test gets its own HOME, no system or global git
config, fixed identities, and real git repositories in a temp dir."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import make_repo, refocus, spawn_args

ROOT = Path(__file__).resolve().parent.parent
IDENTITY = {
    "GIT_AUTHOR_NAME": "Ada Author",
    "GIT_AUTHOR_EMAIL": "ada@example.com",
    "GIT_COMMITTER_NAME": "Ada Author",
    "GIT_COMMITTER_EMAIL": "ada@example.com",
}
DROP = ("CLAUDE_CODE_SESSION_ID", "SESSION_REFOCUS_ROLE", "SESSION_REFOCUS_ID", "CLAUDE_PROJECT_DIR",
        "CLAUDE_ENV_FILE", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_REFOCUS_NOW", "NO_COLOR")


@pytest.fixture(autouse=True)
def hermetic(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("home")
    for name in DROP:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_TERMINAL_PROMPT", "0")
    for k, v in IDENTITY.items():
        monkeypatch.setenv(k, v)
    (home / ".gitconfig").write_text("[init]\n\tdefaultBranch = main\n[user]\n\tname = Ada Author\n\temail = ada@example.com\n")
    return home


@pytest.fixture
def repos(tmp_path):
    """Two real repositories, a source and a destination."""
    return make_repo(tmp_path / "src"), make_repo(tmp_path / "dest")


@pytest.fixture
def spawned(repos):
    src, dest = repos
    out = refocus(*spawn_args(dest), cwd=src).json
    return src, dest, out
