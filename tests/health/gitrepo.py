"""Building histories for the health tests, and the git CLI's own answers to check against."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.helpers import git

_clock = [1_700_000_000]


def commit(repo: Path, message: str, files: dict[str, str] | None = None, *, when: int | None = None) -> str:
    """Write ``files`` (path -> content), commit everything, return the new commit id.

    Each commit gets its own, later, timestamp, so time-ordered walks are deterministic.
    """
    for rel, text in (files or {}).items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git(repo, "add", "-A")
    if when is None:
        _clock[0] += 60
        when = _clock[0]
    env = dict(os.environ, GIT_AUTHOR_DATE=f"@{when} +0000", GIT_COMMITTER_DATE=f"@{when} +0000")
    proc = subprocess.run(["git", "-C", str(repo), "commit", "-q", "--allow-empty", "-m", message],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    return git(repo, "rev-parse", "HEAD").strip()


def filler(repo: Path, n: int, tag: str = "work") -> None:
    for i in range(n):
        commit(repo, f"{tag} {i}", {f"src/{tag}.txt": f"{tag} {i}\n"})


def cli_count(repo: Path, path: str) -> tuple[str, int]:
    """What the git CLI says: the last commit that changed PATH and the commits on HEAD since."""
    last = git(repo, "log", "-1", "--format=%H", "--", path).strip()
    return last, int(git(repo, "rev-list", "--count", f"{last}..HEAD").strip())
