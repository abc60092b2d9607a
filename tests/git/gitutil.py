"""Small helpers over the real git CLI for the tests in this package."""

from __future__ import annotations

import os
import subprocess

from tests.helpers import git


def env(**extra) -> dict:
    out = dict(os.environ)
    for k, v in extra.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = v
    return out


def commit(repo, message: str, *extra, env_=None) -> str:
    git(repo, "commit", "-q", "--allow-empty", "-m", message, *extra, env=env_)
    return git(repo, "rev-parse", "HEAD").strip()


def body(repo, rev: str = "HEAD") -> str:
    """The commit message exactly as stored."""
    return git(repo, "cat-file", "commit", rev).split("\n\n", 1)[1]


def trailers(repo, rev: str = "HEAD") -> list[str]:
    """The Refocus-Id values git itself parses from the commit message."""
    proc = subprocess.run(["git", "-C", str(repo), "interpret-trailers", "--parse"], input=body(repo, rev),
                          capture_output=True, text=True, check=True)
    return [line.split(":", 1)[1].strip() for line in proc.stdout.splitlines() if line.lower().startswith("refocus-id:")]


def note(repo, rev: str = "HEAD") -> str:
    return git(repo, "notes", "--ref=refocus", "show", rev, check=False)


def refs(repo, prefix: str = "refs/") -> dict[str, str]:
    out = git(repo, "for-each-ref", "--format=%(refname) %(objectname)", prefix)
    return dict(line.split() for line in out.splitlines())
