"""The git CLI for the tests: build real repositories and read back what git itself sees.

Every test runs under the hermetic fixture (tests/conftest.py): its own HOME and
gitconfig, a fixed identity, fixed author/committer dates and an editor that fails.
Helpers that need distinct, advancing commit times (:func:`commit_files`) set them.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def git_run(cwd, *args, env=None, input=None) -> subprocess.CompletedProcess:
    """``git -C cwd args`` as it ran (exit status, stdout, stderr): for when a failure is the point."""
    return subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True, env=env, input=input)


def git(cwd, *args, check=True, env=None, input=None) -> str:
    """``git -C cwd args``; its stdout. Fails the test when git fails (unless check=False)."""
    proc = git_run(cwd, *args, env=env, input=input)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


def env(**extra) -> dict:
    """This process's environment with ``extra`` applied (a value of None removes the variable)."""
    out = dict(os.environ)
    for k, v in extra.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = v
    return out


def make_repo(path: Path, *, commit: bool = True) -> Path:
    """A new repository at ``path`` (branch main), with one commit of README.md unless commit=False."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q")
    if commit:
        (path / "README.md").write_text(f"# {path.name}\n")
        git(path, "add", "README.md")
        git(path, "commit", "-q", "-m", "initial")
    return path


# -- making commits --------------------------------------------------------------------------
def commit(repo, message: str, *extra, env=None) -> str:
    """Commit what is staged (possibly nothing) with ``message`` and extra ``git commit`` args; the new oid."""
    git(repo, "commit", "-q", "--allow-empty", "-m", message, *extra, env=env)
    return git(repo, "rev-parse", "HEAD").strip()


_clock = [1_700_000_000]


def commit_files(repo: Path, message: str, files: dict[str, str] | None = None, *, when: int | None = None) -> str:
    """Write ``files`` (path -> content), stage everything (``git add -A``), commit; the new oid.

    Each commit gets its own, later, timestamp (or ``when``, epoch seconds), so
    time-ordered walks are deterministic.
    """
    for rel, text in (files or {}).items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git(repo, "add", "-A")
    if when is None:
        _clock[0] += 60
        when = _clock[0]
    dated = env(GIT_AUTHOR_DATE=f"@{when} +0000", GIT_COMMITTER_DATE=f"@{when} +0000")
    return commit(repo, message, env=dated)


def filler(repo: Path, n: int, tag: str = "work") -> None:
    """``n`` commits that each change src/<tag>.txt."""
    for i in range(n):
        commit_files(repo, f"{tag} {i}", {f"src/{tag}.txt": f"{tag} {i}\n"})


# -- reading back --------------------------------------------------------------------------
def body(repo, rev: str = "HEAD") -> str:
    """The commit message exactly as stored."""
    return git(repo, "cat-file", "commit", rev).split("\n\n", 1)[1]


def trailers(repo, rev: str = "HEAD") -> list[str]:
    """The Refocus-Id values git itself parses from the commit message."""
    parsed = git(repo, "interpret-trailers", "--parse", input=body(repo, rev))
    return [line.split(":", 1)[1].strip() for line in parsed.splitlines() if line.lower().startswith("refocus-id:")]


def note(repo, rev: str = "HEAD") -> str:
    """The refs/notes/refocus note on ``rev`` ("" when there is none)."""
    return git(repo, "notes", "--ref=refocus", "show", rev, check=False)


def refs(repo, prefix: str = "refs/") -> dict[str, str]:
    """Every ref under ``prefix``: name -> oid."""
    out = git(repo, "for-each-ref", "--format=%(refname) %(objectname)", prefix)
    return dict(line.split() for line in out.splitlines())


def event_kinds(repo, rid: str) -> list[str]:
    """The event kinds in refs/refocus/<rid>, oldest first (first parents, merge markers left out)."""
    out = git(repo, "log", "--reverse", "--first-parent", "--no-merges", "--format=%s", f"refs/refocus/{rid}")
    return [line.split(": ", 1)[1] for line in out.splitlines()]


def cli_count(repo: Path, path: str) -> tuple[str, int]:
    """What the git CLI says: the last commit that changed PATH and the commits on HEAD since."""
    last = git(repo, "log", "-1", "--format=%H", "--", path).strip()
    return last, int(git(repo, "rev-list", "--count", f"{last}..HEAD").strip())


def remote_with_clones(tmp_path: Path, *names: str) -> tuple[Path, list[Path]]:
    """A bare remote at ``tmp_path/remote.git`` holding one commit on main, and a clone of it
    under ``tmp_path/<name>`` for each name."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    seed = make_repo(tmp_path / "seed")
    git(seed, "push", "-q", str(remote), "main")
    clones = []
    for name in names:
        git(tmp_path, "clone", "-q", str(remote), str(tmp_path / name))
        clones.append(tmp_path / name)
    return remote, clones
