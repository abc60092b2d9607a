"""The user-level registry of repositories (store/registry.py)."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.gitrepo import git, make_repo
from tests.runner import ROOT, refocus


def registry_file(home):
    return home / ".local/state/git-refocus/repositories"


def test_init_and_spawn_register_each_repository_once(repos, hermetic, tmp_path):
    src, dest = repos
    refocus("init", cwd=dest)
    refocus("init", cwd=dest)
    refocus("spawn", dest, "--slug", "one", "--reason", "r", "--done-when", "d", cwd=src)
    refocus("spawn", dest, "--slug", "two", "--reason", "r", "--done-when", "d", cwd=src)
    assert registry_file(hermetic).read_text().splitlines() == [str(dest.resolve()), str(src.resolve())]


def test_dry_run_init_does_not_register(repos, hermetic):
    refocus("init", "--dry-run", cwd=repos[1])
    assert not registry_file(hermetic).exists()


def test_xdg_state_home_is_honoured_when_absolute(repos, tmp_path, hermetic):
    state = tmp_path / "state"
    refocus("init", cwd=repos[0], env={"XDG_STATE_HOME": str(state)})
    assert (state / "git-refocus/repositories").read_text() == f"{repos[0].resolve()}\n"
    refocus("init", cwd=repos[1], env={"XDG_STATE_HOME": "relative/ignored"})
    assert registry_file(hermetic).read_text() == f"{repos[1].resolve()}\n"


def test_a_repository_that_opted_out_is_not_registered(repos, hermetic):
    src, dest = repos
    git(dest, "config", "refocus.global", "false")
    refocus("spawn", dest, "--slug", "one", "--reason", "r", "--done-when", "d", cwd=src)
    assert registry_file(hermetic).read_text().splitlines() == [str(src.resolve())]


def test_parallel_registrations_lose_no_repository(tmp_path, hermetic):
    paths = [make_repo(tmp_path / f"r{i}") for i in range(12)]
    code = ("import sys; from gitrefocus.store import registry; from gitrefocus.store.workspace import Workspace; "
            "registry.register(Workspace.open(sys.argv[1]))")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    procs = [subprocess.Popen([sys.executable, "-c", code, str(p)], env=env) for p in paths]
    assert all(p.wait(60) == 0 for p in procs)
    from gitrefocus.store import registry

    assert sorted(registry.entries()) == sorted(str(p.resolve()) for p in paths)
