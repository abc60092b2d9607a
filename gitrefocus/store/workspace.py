"""A repository taking part in refocus: its work tree, git dir and settings."""

from __future__ import annotations

import os
import subprocess
from functools import cached_property

from gitrefocus.errors import RefocusError
from gitrefocus.model.ids import ARCHIVE_DIR, BRIEF_DIR, TRANSCRIPTS_DIR, brief_relpath
from gitrefocus.store import config as _config
from gitrefocus.store import git

TYPE_CHECKING = False  # no `typing` at run time: the post-tool-use hook imports this module
if TYPE_CHECKING:
    from typing import Any, overload

    from pygit2 import Oid, Repository, Signature

REFOCUS_DIR = BRIEF_DIR


def _pygit2() -> Any:  # the module
    import pygit2  # ~120 ms: only where a repository is opened

    return pygit2


def is_inside(path: str, directory: str) -> bool:
    """``path`` is ``directory`` or lies below it. Both must already be absolute
    and resolved (``os.path.realpath``): this compares names, it reads nothing."""
    if directory == os.sep:
        return path.startswith(os.sep)
    directory = directory.rstrip(os.sep)
    return path == directory or path.startswith(directory + os.sep)


def relative_inside(path: str, directory: str) -> str | None:
    """``path`` relative to ``directory`` when it lies inside it, else None.

    A slice, not ``os.path.relpath`` (which normalises both paths again): the
    catalog calls this once per brief, tens of thousands of times a listing."""
    if not is_inside(path, directory):
        return None
    if path == directory.rstrip(os.sep) or path == directory:
        return "."
    return path[len(directory.rstrip(os.sep)) + 1:]


def find_git_dir(path: str) -> str | None:
    """The git dir of the repository containing ``path`` (no pygit2 needed)."""
    probe = os.path.realpath(path)
    while True:
        dotgit = os.path.join(probe, ".git")
        if os.path.isdir(dotgit):
            return dotgit
        if os.path.isfile(dotgit):
            with open(dotgit, encoding="utf-8", errors="replace") as fh:
                line = fh.readline().strip()
            if line.startswith("gitdir:"):
                target = line[7:].strip()
                return os.path.normpath(os.path.join(probe, target))
        parent = os.path.dirname(probe)
        if parent == probe:
            return None
        probe = parent


class Workspace:
    """One git work tree. Construct with :meth:`open`."""

    def __init__(self, repo: Repository, workdir: str):
        self.repo = repo
        self.workdir = workdir

    @classmethod
    def open(cls, path: str = ".", *, what: str = "this directory") -> "Workspace":
        if not os.path.exists(path):
            raise RefocusError(f"{what} {path!r} does not exist.")
        if not os.path.isdir(path):
            raise RefocusError(f"{what} {path!r} is not a directory.")
        pygit2 = _pygit2()
        try:
            gitdir = pygit2.discover_repository(os.path.realpath(path))
        except pygit2.GitError:
            gitdir = None
        if gitdir is None:
            raise RefocusError(f"{what} {path!r} is not inside a git repository.")
        repo: Repository = pygit2.Repository(gitdir)
        if repo.is_bare or repo.workdir is None:
            raise RefocusError(f"{what} {path!r} is in a bare repository; refocus needs a work tree.")
        return cls(repo, os.path.realpath(repo.workdir))

    @classmethod
    def try_open(cls, path: str | None) -> "Workspace | None":
        if not path:
            return None
        try:
            return cls.open(path)
        except RefocusError:
            return None

    # -- places ---------------------------------------------------------
    @property
    def name(self) -> str:
        return os.path.basename(self.workdir)

    @property
    def git_dir(self) -> str:
        return os.path.realpath(self.repo.path)

    @cached_property
    def common_dir(self) -> str:
        commondir = os.path.join(self.git_dir, "commondir")
        if os.path.isfile(commondir):
            with open(commondir, encoding="utf-8") as fh:
                return os.path.realpath(os.path.join(self.git_dir, fh.read().strip()))
        return self.git_dir

    @property
    def refocus_dir(self) -> str:
        return os.path.join(self.workdir, REFOCUS_DIR)

    def brief_path(self, refocus_id: str) -> str:
        return os.path.join(self.workdir, brief_relpath(refocus_id))

    @property
    def archive_dir(self) -> str:
        return os.path.join(self.workdir, ARCHIVE_DIR)

    @property
    def transcripts_dir(self) -> str:
        return os.path.join(self.workdir, TRANSCRIPTS_DIR)

    def rel(self, path: str) -> str:
        return os.path.relpath(path, self.workdir)

    def same_repo(self, other: "Workspace") -> bool:
        return self.common_dir == other.common_dir

    # -- settings -------------------------------------------------------
    if TYPE_CHECKING:
        @overload
        def setting(self, key: _config.IntKey) -> int: ...
        @overload
        def setting(self, key: _config.StrKey) -> str: ...
    def setting(self, key: _config.IntKey | _config.StrKey) -> int | str:
        return _config.get(self.repo.config, key)

    def settings(self, key: str) -> list[str]:
        return _config.get_multi(self.repo.config, key)

    # -- git ------------------------------------------------------------
    def head_oid(self) -> Oid | None:
        try:
            target = self.repo.head.target
        except Exception:  # unborn branch
            return None
        return None if isinstance(target, str) else target  # HEAD is resolved: a commit id

    def git(self, *args: str, check: bool = True, input: str | None = None,
            what: str | None = None) -> subprocess.CompletedProcess[str]:
        """``git -C <workdir> args`` through the one wrapper (:func:`git.run`)."""
        return git.run(self.workdir, *args, check=check, input=input, what=what)

    def signature(self) -> Signature:
        pygit2 = _pygit2()
        try:
            return self.repo.default_signature
        except Exception:
            fallback: Signature = pygit2.Signature("git-refocus", "git-refocus@localhost")
            return fallback
