"""store/workspace: a listing opens its repository, reads its settings, HEAD and refocus refs
without loading libgit2. Each of those reads is held to an oracle nobody here wrote: libgit2
(pygit2) for where the repository is, the git CLI for refs, HEAD and configuration. Anything
the plain reading does not cover (a bare repository, a moved work tree, another user's
repository, another ref store) must be left to libgit2, and give libgit2's answer."""

from __future__ import annotations

import os
import subprocess
import sys

import pygit2
import pytest

from gitrefocus.errors import RefocusError
from gitrefocus.store import workspace
from gitrefocus.store.workspace import Workspace
from tests.gitrepo import commit, git, make_repo
from tests.runner import ROOT, refocus, spawn_args


def libgit2_answer(path) -> tuple[str, str] | None:
    """(git dir, work tree) as libgit2 finds them, resolved; None for no work tree."""
    found = pygit2.discover_repository(os.path.realpath(path))
    if found is None:
        return None
    repo = pygit2.Repository(found)
    if repo.is_bare or repo.workdir is None:
        return None
    return os.path.realpath(repo.path), os.path.realpath(repo.workdir)


def test_an_ordinary_repository_is_found_as_libgit2_finds_it_from_any_depth(tmp_path):
    repo = make_repo(tmp_path / "r")
    (repo / "a" / "b").mkdir(parents=True)
    for where in (repo, repo / "a", repo / "a" / "b"):
        assert workspace.discover(str(where)) == libgit2_answer(where) == (str(repo / ".git"), str(repo))
        ws = Workspace.open(str(where))
        assert (ws.git_dir, ws.workdir) == libgit2_answer(where)
        assert ws._repo is None, "opening needed no libgit2"


def test_a_linked_worktree_and_a_symlinked_path_are_found_as_libgit2_finds_them(tmp_path):
    repo = make_repo(tmp_path / "r")
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "side")
    os.symlink(tmp_path / "wt", tmp_path / "link")
    for where in (tmp_path / "wt", tmp_path / "link"):
        found = workspace.discover(str(where))
        assert found is not None and found == libgit2_answer(where)
        ws = Workspace.open(str(where))
        assert ws.repo.workdir.rstrip("/") == ws.workdir, "libgit2 opened later agrees on the work tree"
        assert ws.head_hex() == git(where, "rev-parse", "HEAD").strip()


@pytest.mark.parametrize("setup", ["core.bare", "core.worktree", "include"])
def test_a_config_that_moves_the_work_tree_is_left_to_libgit2(tmp_path, setup):
    repo = make_repo(tmp_path / "r")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    if setup == "core.bare":
        git(repo, "config", "core.bare", "true")
    elif setup == "core.worktree":
        git(repo, "config", "core.worktree", str(elsewhere))
    else:
        (tmp_path / "more.cfg").write_text("[core]\n\tbare = true\n")
        git(repo, "config", "include.path", str(tmp_path / "more.cfg"))
    assert workspace.discover(str(repo)) is None
    expected = libgit2_answer(repo)
    if expected is None:
        with pytest.raises(RefocusError, match="bare repository"):
            Workspace.open(str(repo))
    else:
        ws = Workspace.open(str(repo))
        assert (ws.git_dir, ws.workdir) == expected


def test_a_bare_repository_and_a_stray_dot_git_are_left_to_libgit2(tmp_path):
    bare = tmp_path / "b.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    assert workspace.discover(str(bare)) is None
    with pytest.raises(RefocusError, match="bare repository"):
        Workspace.open(str(bare))
    repo = make_repo(tmp_path / "r")
    (repo / "sub" / ".git").mkdir(parents=True)  # an empty .git: no repository; libgit2 looks further up
    assert workspace.discover(str(repo / "sub")) is None
    ws = Workspace.open(str(repo / "sub"))
    assert (ws.git_dir, ws.workdir) == libgit2_answer(repo / "sub") == (str(repo / ".git"), str(repo))
    outside = tmp_path / "nothing"
    outside.mkdir()
    assert workspace.discover(str(outside)) is None


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to own a directory as another user")
def test_another_users_repository_is_left_to_libgit2(tmp_path):
    repo = make_repo(tmp_path / "r")
    for base, dirs, files in os.walk(repo):
        for name in dirs + files:
            os.lchown(os.path.join(base, name), 12345, 12345)
    os.lchown(repo, 12345, 12345)
    assert workspace.discover(str(repo)) is None


def test_ref_target_reads_loose_packed_missing_and_symbolic_refs_as_git_does(tmp_path):
    repo = make_repo(tmp_path / "r")
    first = git(repo, "rev-parse", "HEAD").strip()
    second = commit(repo, "second")
    git(repo, "update-ref", "refs/refocus/packed", first)
    git(repo, "pack-refs", "--all")
    git(repo, "update-ref", "refs/refocus/loose", second)
    git(repo, "update-ref", "refs/refocus/both", first)
    git(repo, "pack-refs", "--all")
    git(repo, "update-ref", "refs/refocus/both", second)  # loose now, an older packed line behind it
    git(repo, "symbolic-ref", "refs/refocus/sym", "refs/heads/main")
    ws = Workspace.open(str(repo))
    for name in ("packed", "loose", "both"):
        assert ws.ref_target(f"refs/refocus/{name}") == git(repo, "rev-parse", f"refs/refocus/{name}").strip(), name
    # refocus writes no symbolic ref: one is read as libgit2 reads it, by the name it points to
    assert ws.ref_target("refs/refocus/sym") == "refs/heads/main"
    assert ws.ref_target("refs/refocus/missing") is None
    assert ws.ref_target("refs/refocus/pack") is None, "a prefix of a packed name is not that name"
    (repo / ".git" / "refs" / "refocus" / "garbage").write_text("not an id\n")
    assert ws.ref_target("refs/refocus/garbage") is None  # what libgit2 makes of it: no ref


def test_holds_answers_as_libgit2_does_for_present_missing_and_malformed_ids(tmp_path):
    repo = make_repo(tmp_path / "r")
    head = git(repo, "rev-parse", "HEAD").strip()
    tree = git(repo, "rev-parse", "HEAD^{tree}").strip()
    asked = [head, tree, "0" * 40, head[:39] + "\n", "HEAD" + head[4:], head.upper(), head[:20], "é" * 40, head]
    ws = Workspace.open(str(repo))
    plain = [ws.holds(oid) for oid in asked]
    assert not ws.repo_loaded, "answered by git, libgit2 not loaded"
    pygit2_repo = pygit2.Repository(str(repo))

    def libgit2(oid):
        try:
            return len(oid) == 40 and oid in pygit2_repo
        except ValueError:
            return False

    assert plain == [libgit2(oid) for oid in asked] == [True, True, False, False, False, True, False, False, True]
    ws.repo  # once libgit2 is loaded, it answers
    assert [ws.holds(oid) for oid in asked] == plain


def test_head_hex_follows_git_on_a_branch_detached_packed_and_unborn(tmp_path):
    repo = make_repo(tmp_path / "r")
    ws = Workspace.open(str(repo))
    assert ws.head_hex() == git(repo, "rev-parse", "HEAD").strip()
    git(repo, "pack-refs", "--all")
    assert not (repo / ".git" / "refs" / "heads" / "main").exists()
    assert ws.head_hex() == git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "--detach")
    assert ws.head_hex() == git(repo, "rev-parse", "HEAD").strip()
    empty = make_repo(tmp_path / "empty", commit=False)
    assert Workspace.open(str(empty)).head_hex() is None
    assert Workspace.open(str(empty)).head_oid() is None


def test_settings_are_what_git_config_says(tmp_path, monkeypatch):
    repo = make_repo(tmp_path / "r")
    assert Workspace.open(str(repo)).setting("recentDays") == 30
    git(repo, "config", "refocus.recentDays", "2k")
    git(repo, "config", "refocus.budget", "light")
    git(repo, "config", "--add", "refocus.searchPaths", "../a")
    git(repo, "config", "--add", "refocus.searchPaths", "../b")
    ws = Workspace.open(str(repo))
    assert ws.setting("recentDays") == 2048 == int(git(repo, "config", "--type=int", "refocus.recentDays").strip())
    assert ws.setting("budget") == "light"
    assert ws.settings("searchPaths") == ["../a", "../b"]
    git(repo, "config", "refocus.archiveDays", "soon")
    with open(repo / ".git" / "config", "a") as fh:
        fh.write("[refocus]\n\tquietHours\n")  # a key without a value
    ws = Workspace.open(str(repo))
    assert ws.setting("archiveDays") == 90 and ws.setting("quietHours") == 24, "malformed or valueless: defaults"
    # git -c on the command line (`git -c refocus.budget=economy refocus ...`) reaches us through git's environment
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "refocus.budget")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "economy")
    assert Workspace.open(str(repo)).setting("budget") == "economy"


def test_a_broken_config_file_gives_the_defaults(tmp_path):
    repo = make_repo(tmp_path / "r")
    Workspace.open(str(repo))
    with open(repo / ".git" / "config", "a") as fh:
        fh.write("[refocus\n")
    assert Workspace.open(str(repo)).setting("recentDays") == 30


def test_listings_and_the_session_start_hook_load_none_of_the_heavy_modules(tmp_path):
    """libgit2 costs a command more to load than a warm listing costs to run: the commands
    the agent and people run most only read, and read without it, the command line's
    click, typing (whose few run-time uses, casts, are on the writers' side), the
    standard dataclasses with inspect (the model's classes are gitrefocus.model.records'),
    and tempfile (the session start writes a marker, index writes INDEX.md: store.atomic)."""
    src, dest = make_repo(tmp_path / "src"), make_repo(tmp_path / "dest")
    refocus(*spawn_args(dest, slug="probe"), cwd=src)
    refocus("list", cwd=dest)  # the cache is warm, as for any listing after the first
    probe = ("import sys, runpy; sys.argv = ['git-refocus'] + sys.argv[1:]\n"
             "from gitrefocus.entry import main\n"
             "try:\n    code = main()\nfinally:\n"
             "    print(' '.join(m for m in ('pygit2', 'click', 'typing', 'dataclasses', 'inspect', 'tempfile') if m in sys.modules) or '-',"
             " file=sys.stderr)\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    hook_input = '{"session_id": "%s", "cwd": "%s", "source": "startup"}'
    cases = [(["list"], None), (["list", "--json"], None), (["status"], None), (["index"], None),
             (["hook", "session-start"], hook_input % ("idle-session", dest))]
    for args, stdin in cases:
        proc = subprocess.run([sys.executable, "-c", probe, *args], cwd=dest, env=env, input=stdin,
                              capture_output=True, text=True)
        assert proc.returncode == 0, (args, proc.stderr)
        loaded = proc.stderr.strip().splitlines()[-1]
        assert loaded == "-", f"{args} loaded {loaded}"
