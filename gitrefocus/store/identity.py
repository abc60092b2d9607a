"""Which repository this is, in refocus's terms: ``refs/refocus-meta/identity``.

The identity of a repository is a commit made for it once (an empty tree, a
message naming the repository and a random nonce), named by the ref
``refs/refocus-meta/identity``. A refocus records the identity of each side
(``source_repo_id``, ``dest_repo_id``), so whichever copy of the repository
reads it (a linked worktree, a clone that synced, a mirror) knows which side
it is, wherever it lives on disk, and two repositories that share history (a
fork, a template) are two repositories.

- a linked worktree shares the ref (refs are shared by the worktrees of a repository);
- ``git clone`` does not fetch it (only branches and tags): ``git refocus sync``
  adopts the identity the remote holds, or publishes this one where the
  remote has none; a forge's fork or template copies branches only, so it
  starts with none and gets its own;
- it is created when it is first needed (a spawn on either side), not by
  ``init``, so a clone that runs ``init`` before its first ``sync`` still takes
  the identity of the repository it was cloned from.

The design and its alternatives: docs/paths-and-identity.md.
"""

from __future__ import annotations

import os

from gitrefocus.model.place import IDENTITY_RE
from gitrefocus.store import refs
from gitrefocus.store.workspace import load_pygit2

TYPE_CHECKING = False  # no `typing` at run time: listings and hooks import this module
if TYPE_CHECKING:
    from gitrefocus.store.workspace import Workspace

IDENTITY_REF = "refs/refocus-meta/identity"
TRACKED_NAME = "identity"  # refs/refocus-remotes/<remote>/identity: what a remote holds


_held: dict[str, str] = {}  # common dir -> its identity: once set, an identity never changes


def read(ws: Workspace) -> str | None:
    """This repository's identity (hex), or None when it has none yet: one ref
    read, no libgit2 (and none again in this process once found)."""
    found = _held.get(ws.common_dir)
    if found is None:
        target = ws.ref_target(IDENTITY_REF)
        if target is not None and IDENTITY_RE.match(target):
            found = _held[ws.common_dir] = target
    return found


def tracked(ws: Workspace, remote: str) -> str | None:
    """The identity ``remote`` held when sync last fetched from it."""
    target = ws.ref_target(f"{refs.TRACKING_PREFIX}{remote}/{TRACKED_NAME}")
    return target if target is not None and IDENTITY_RE.match(target) else None


def repository_name(ws: Workspace) -> str:
    """The name people know the repository by: its main work tree's directory
    (a linked worktree is named after the repository it belongs to)."""
    common = ws.common_dir
    if os.path.basename(common) == ".git":
        return os.path.basename(os.path.dirname(common))
    return ws.name


def ensure(ws: Workspace) -> str:
    """This repository's identity, made now if it has none (a compare-and-swap:
    of two racing writers, both end with the one that won)."""
    found = read(ws)
    if found is not None:
        return found
    repo = ws.repo
    pygit2 = load_pygit2()
    sig = pygit2.Signature("git-refocus", "git-refocus@localhost")
    message = (f"git refocus: the identity of the repository {repository_name(ws)}\n\n"
               "Refocus briefs and event logs name this commit to say which repository a refocus came from\n"
               "or went to. Clones that sync refocus data share it; see docs/paths-and-identity.md.\n\n"
               f"Nonce: {os.urandom(16).hex()}\n")
    oid = repo.create_commit(None, sig, sig, message, repo.TreeBuilder().write(), [])
    try:
        refs.cas(repo, IDENTITY_REF, oid, None, "refocus: the identity of this repository")
    except refs._Lost:
        pass  # another writer made one first: theirs is the identity
    found = read(ws)
    if found is None:
        found = str(refs.resolve(repo, IDENTITY_REF) or oid)
    return found


def adopt(ws: Workspace, remote: str) -> str | None:
    """Take the identity ``remote`` holds when this repository has none (a clone's
    first sync); the identity adopted, or None."""
    theirs = tracked(ws, remote)
    if theirs is None or read(ws) is not None:
        return None
    repo = ws.repo
    try:
        refs.cas(repo, IDENTITY_REF, load_pygit2().Oid(hex=theirs), None,
                 f"refocus: the identity {remote} holds")
    except refs._Lost:
        return None
    return theirs
