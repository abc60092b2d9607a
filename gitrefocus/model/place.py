"""Where each side of a refocus works, as briefs and events store it.

What enters shared history (a brief committed with ``--commit``, an event log
pushed by ``sync``) must mean the same on every machine. So a side is stored as
a :class:`Place`: the identity of its repository (``refs/refocus-meta/identity``,
see docs/paths-and-identity.md), the repository's name as a hint for people,
and the directory relative to the repository's root (``.`` for the root).
Which directory that is on this machine is decided when it is shown
(:mod:`gitrefocus.ops.places`).

Briefs written before held an absolute path of the machine that spawned them
(``source_dir: /home/me/projects/memory``, no identity): such a place is read
as it was written (:attr:`Place.portable` is false).

Pure: no I/O.
"""

from __future__ import annotations

import posixpath
import re

from gitrefocus.errors import RefocusError
from gitrefocus.model.records import dataclass

TYPE_CHECKING = False  # no `typing` at run time: listings and hooks import this module
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

SOURCE, DEST = "source", "dest"
SIDES = (SOURCE, DEST)
# the frontmatter keys of a side, besides ``<side>_dir``
REPO_NAME, REPO_ID = "{}_repo", "{}_repo_id"
PLACE_KEYS = tuple(key.format(side) for side in SIDES for key in (REPO_NAME, REPO_ID))
IDENTITY_RE = re.compile(r"\A(?:[0-9a-f]{40}|[0-9a-f]{64})\Z")  # a commit id, SHA-1 or SHA-256
NAME_MAX = 100


@dataclass(frozen=True, slots=True)
class Place:
    """One side of a refocus: ``dir`` relative to the root of the repository
    ``repo_id`` names (portable), or an absolute path (written before)."""

    dir: str
    repo_id: str | None = None
    repo_name: str | None = None

    @property
    def portable(self) -> bool:
        return self.repo_id is not None

    def label(self) -> str:
        """How a person is told about it where it is not on this machine: the
        repository's name and the directory in it (``mcp``, ``web/services/api``)."""
        if not self.portable:
            return self.dir
        name = self.repo_name or (self.repo_id or "")[:12]
        return name if self.dir == "." else f"{name}/{self.dir}"


def of(meta: Mapping[str, Any], extra: Mapping[str, Any], side: str) -> Place | None:
    """The place of ``side`` from a brief's frontmatter or a state (``meta``
    holds ``<side>_dir``, ``extra`` the identity keys); None when nothing was recorded."""
    directory = meta.get(f"{side}_dir")
    if not isinstance(directory, str) or not directory:
        return None
    repo_id, name = extra.get(REPO_ID.format(side)), extra.get(REPO_NAME.format(side))
    if not isinstance(repo_id, str) or not IDENTITY_RE.match(repo_id) or not _relative(directory):
        return Place(directory) if posixpath.isabs(directory) else None
    return Place(directory, repo_id, name if isinstance(name, str) and name else None)


def _relative(directory: str) -> bool:
    """A directory stored relative to its repository's root: normal, below it."""
    return directory == "." or (not posixpath.isabs(directory) and posixpath.normpath(directory) == directory
                                and ".." not in directory.split("/") and "\0" not in directory)


def relative_dir(path: str, root: str) -> str:
    """``path`` (absolute, resolved) as stored: relative to ``root``, with ``/``."""
    rel = posixpath.relpath(path.replace("\\", "/"), root.replace("\\", "/"))
    if not _relative(rel):
        raise RefocusError(f"{path} is not inside its repository {root}.")
    return rel


def check(meta: Mapping[str, Any], where: str) -> None:
    """Refuse frontmatter whose places cannot be read: a directory that is
    neither absolute (an older brief) nor relative below its repository's root
    with that repository's identity."""
    for side in SIDES:
        directory, repo_id = meta.get(f"{side}_dir"), meta.get(REPO_ID.format(side))
        name = meta.get(REPO_NAME.format(side))
        if repo_id is not None and (not isinstance(repo_id, str) or not IDENTITY_RE.match(repo_id)):
            raise RefocusError(f"{where}: {REPO_ID.format(side)} must be a repository identity (40 or 64 hex digits).")
        if name is not None and (not isinstance(name, str) or len(name) > NAME_MAX or not name.isprintable()):
            raise RefocusError(f"{where}: {REPO_NAME.format(side)} must be a short name.")
        if not isinstance(directory, str):
            continue  # the schema reports it
        if repo_id is None and not posixpath.isabs(directory):
            raise RefocusError(f"{where}: {side}_dir {directory!r} is relative but {REPO_ID.format(side)} is missing "
                               "(a relative directory is relative to the root of that repository).")
        if repo_id is not None and not _relative(directory):
            raise RefocusError(f"{where}: {side}_dir {directory!r} must be relative to its repository's root "
                               "(like `.` or `services/api`), without `..`.")
