"""A repository named by GIT_DIR / GIT_WORK_TREE (``git --git-dir=X --work-tree=Y refocus``)
is the one git refocus acts on, as every git it runs does: found by asking git, never by
walking up from the current directory; and a repository refocus opens elsewhere (a spawn's
destination) gets git without those variables, so nothing lands in the named one."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests.gitrepo import git, make_repo, refs
from tests.runner import git_refocus_on_path, source_env, spawn_args


@pytest.fixture
def git_refocus(tmp_path, hermetic):
    """Run ``git [OPTIONS] refocus ARGS`` through git itself, `git-refocus` being this checkout."""
    shim = git_refocus_on_path(tmp_path)
    env = source_env({"PATH": os.pathsep.join([str(shim), os.environ["PATH"]])})

    def run(*argv, cwd, check=True):
        proc = subprocess.run(["git", *map(str, argv)], cwd=str(cwd), env=env, capture_output=True, text=True)
        assert not check or proc.returncode == 0, proc
        return proc
    return run


def local_config(repo) -> str:
    return git(repo, "config", "--local", "--list")


def test_git_dir_names_the_repository_init_sets_up_and_the_one_here_is_untouched(tmp_path, git_refocus):
    here, other = make_repo(tmp_path / "here"), make_repo(tmp_path / "other")
    before = local_config(here)
    git_refocus("--git-dir=../other/.git", "refocus", "init", cwd=here)
    assert (other / ".git/hooks/commit-msg").exists() and "refs/notes/refocus" in local_config(other)
    assert not (here / ".git/hooks/commit-msg").exists(), "the hook went into the repository git did not name"
    assert local_config(here) == before
    # git's rule: with GIT_DIR alone, the current directory is the top of the work tree
    assert "docs/refocus/INDEX.md" in (here / ".gitignore").read_text()
    assert not (other / ".gitignore").exists()


def test_git_dir_and_work_tree_put_everything_in_the_named_repository(tmp_path, git_refocus):
    here, other = make_repo(tmp_path / "here"), make_repo(tmp_path / "other")
    git_refocus(f"--git-dir={other / '.git'}", f"--work-tree={other}", "refocus", "init", cwd=here)
    assert (other / ".git/hooks/commit-msg").exists() and (other / ".gitignore").exists()
    assert (other / "CLAUDE.md").exists()
    assert not (here / ".git/hooks/commit-msg").exists()
    assert not (here / ".gitignore").exists() and not (here / "CLAUDE.md").exists()


def test_work_tree_alone_keeps_the_git_dir_found_here(tmp_path, git_refocus):
    here = make_repo(tmp_path / "here")
    tree = tmp_path / "tree"
    tree.mkdir()
    git_refocus("--work-tree=../tree", "refocus", "init", cwd=here)
    assert (here / ".git/hooks/commit-msg").exists()
    assert (tree / ".gitignore").exists() and not (here / ".gitignore").exists()


def test_a_spawn_from_a_named_repository_writes_the_destination_in_the_destination(tmp_path, git_refocus):
    src, dest = make_repo(tmp_path / "src"), make_repo(tmp_path / "dest")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = git_refocus(f"--git-dir={src / '.git'}", f"--work-tree={src}", "refocus", *spawn_args(dest),
                       cwd=elsewhere)
    rid = json.loads(proc.stdout)["id"]
    assert f"refs/refocus/{rid}" in refs(src) and f"refs/refocus/{rid}" in refs(dest)
    assert (dest / "docs/refocus" / f"{rid}.md").exists()
    assert not (src / "docs/refocus" / f"{rid}.md").exists()
    status = git_refocus("--git-dir=.git", "refocus", "list", "--json", cwd=dest).stdout
    assert rid in status


def test_a_git_dir_that_names_no_repository_is_one_clear_error(tmp_path, git_refocus):
    here = make_repo(tmp_path / "here")
    proc = git_refocus("--git-dir=../nowhere", "refocus", "list", cwd=here, check=False)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc
    assert "GIT_DIR=" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
