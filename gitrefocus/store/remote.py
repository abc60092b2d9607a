"""Exchanging refocus refs and notes with a git remote, through the git CLI
(it carries the user's credentials). What a fetch brings lands in tracking refs
under ``refs/refocus-remotes/<remote>/``, never in the live refs; merging them
is :mod:`gitrefocus.store.eventmerge` and :func:`gitrefocus.store.notes.merge_notes`.
"""

from __future__ import annotations

import json
import os
import re
from typing import TYPE_CHECKING

from gitrefocus.errors import RefocusError
from gitrefocus.store import git
from gitrefocus.store.identity import IDENTITY_REF
from gitrefocus.store.notes import NOTES_REF
from gitrefocus.store.refs import REF_PREFIX, TRACKING_PREFIX

if TYPE_CHECKING:
    from gitrefocus.store.workspace import Workspace


def names(ws: Workspace) -> list[str]:
    """The repository's remotes."""
    return git.run(ws.workdir, "remote").stdout.split()


_LOCK_RE = re.compile(r"Unable to create '([^']+\.lock)'")
# A rejection that means "the remote moved since we fetched": fetch, merge and push again.
# Anything else the remote refused (a hook, a crash in receive-pack) is an error to report.
_RACE_REASONS = ("fetch first", "non-fast-forward", "stale info", "cannot lock ref", "failed to update ref",
                 "but expected")


def tracking_prefix(remote: str) -> str:
    return f"{TRACKING_PREFIX}{remote}/refocus/"


def tracking_notes(remote: str) -> str:
    return f"{TRACKING_PREFIX}{remote}/notes/refocus"


def tracking_refspecs(remote: str) -> list[str]:
    """Fetch refspecs into tracking refs outside refs/remotes/ (which `git branch -r` lists).

    The notes refspec is a pattern so that a remote without notes yet is not an error.
    """
    base = f"{TRACKING_PREFIX}{remote}"
    return [f"+{REF_PREFIX}*:{base}/refocus/*", f"+{NOTES_REF}*:{base}/notes/refocus*",
            f"+{IDENTITY_REF}*:{base}/identity*"]


def fetch(ws: Workspace, remote: str) -> None:
    """Bring the remote's event logs and notes into this repository's tracking refs."""
    proc = git.run(ws.workdir, "fetch", "--quiet", "--no-tags", "--prune", "--no-write-fetch-head",
                   remote, *tracking_refspecs(remote), config=git.NO_HOOKS, check=False)
    if proc.returncode != 0:
        lock = _LOCK_RE.search(proc.stderr or "")
        if lock:  # git names the lock deep in its output; the last line does not
            raise RefocusError(f"fetching from {remote} failed: {lock.group(1)} exists (left by a writer that did "
                               f"not finish?). Run `git refocus doctor --repair` to remove a stale lock.")
        raise RefocusError(f"fetching from {remote} failed: {git.last_line(proc)}")


def advertised(ws: Workspace, remote: str) -> dict[str, str]:
    """The remote's refocus refs and notes, name -> oid (``git ls-remote``: nothing is
    fetched or written)."""
    proc = git.run(ws.workdir, "ls-remote", remote, f"{REF_PREFIX}*", NOTES_REF, config=git.NO_HOOKS, check=False)
    if proc.returncode != 0:
        raise RefocusError(f"reading {remote} failed: {git.last_line(proc)}")
    out = {}
    for line in proc.stdout.splitlines():
        oid, _, name = line.partition("\t")
        if name.startswith(REF_PREFIX) or name == NOTES_REF:
            out[name] = oid
    return out


def push(ws: Workspace, remote: str, refnames: list[str]) -> tuple[list[str], list[str]]:
    """Push, without force, every refocus ref (a pattern: git sends only what the
    remote lacks) and the notes if named; return the refs the remote rejected
    and the lock files the remote named as in the way."""
    specs = [f"{REF_PREFIX}*:{REF_PREFIX}*"] if any(r.startswith(REF_PREFIX) for r in refnames) else []
    if NOTES_REF in refnames:
        specs.append(f"{NOTES_REF}:{NOTES_REF}")
    if IDENTITY_REF in refnames:  # only where the remote has none: never forced over another's
        specs.append(f"{IDENTITY_REF}:{IDENTITY_REF}")
    proc = git.run(ws.workdir, "push", "--porcelain", "--no-verify", remote, *specs,
                   config=git.NO_HOOKS, check=False)
    rejected, seen = [], 0
    for line in proc.stdout.splitlines():
        parts = line.split("\t")
        if len(parts) < 2 or ":" not in parts[1]:
            continue
        seen += 1
        if parts[0] == "!":
            ref, summary = parts[1].split(":", 1)[1], (parts[2] if len(parts) > 2 else "")
            if summary and not any(reason in summary for reason in _RACE_REASONS):
                raise RefocusError(f"pushing to {remote} failed: the remote refused {ref}: {summary.strip()}.")
            rejected.append(ref)
    if (proc.returncode != 0 and not rejected) or not seen:
        raise RefocusError(f"pushing to {remote} failed: {git.last_line(proc)}")
    locked = sorted({os.path.normpath(m.group(1)) for m in _LOCK_RE.finditer(proc.stderr or "")})
    return rejected, locked


PUSHED = "pushed"  # local state: {refocus id: the tip last pushed} per remote


def remember(ws: Workspace, remote: str, pushed: dict[str, str]) -> None:
    """Record what a push just gave ``remote`` ({id: oid}): events the remote
    has held, which it may not drop later. One small file, not a ref per id
    (a thousand loose refs cost a second to write)."""
    if not pushed:
        return
    from gitrefocus.store import localstate

    try:
        held = last_pushed(ws, remote)
        held.update(pushed)
        localstate.write(ws.git_dir, PUSHED, f"{remote}.json", text=json.dumps(held, sort_keys=True) + "\n")
    except RefocusError:
        pass  # a remote whose name cannot name a file: its tracking refs alone say what it held


def last_pushed(ws: Workspace, remote: str) -> dict[str, str]:
    """{refocus id: tip} of what this repository pushed to ``remote`` (:func:`remember`)."""
    from gitrefocus.store import localstate

    try:
        raw = json.loads(localstate.read(ws.git_dir, PUSHED, f"{remote}.json") or "{}")
    except (ValueError, RefocusError):
        return {}
    return {k: v for k, v in raw.items() if isinstance(k, str) and isinstance(v, str)} if isinstance(raw, dict) else {}


def local_git_dir(ws: Workspace, remote: str) -> str | None:
    """The git directory of ``remote`` when it is a repository on this machine
    (a path or a file:// URL), else None."""
    url = git.run(ws.workdir, "config", "--get", f"remote.{remote}.url", check=False).stdout.strip()
    if url.startswith("file://"):
        url = url[len("file://"):]
    elif not url or "://" in url or (":" in url.split("/", 1)[0] and not os.path.isabs(url)):
        return None  # a network URL, or scp-like host:path
    path = url if os.path.isabs(url) else os.path.join(ws.workdir, url)
    for candidate in (os.path.join(path, ".git"), path):
        if os.path.isfile(os.path.join(candidate, "HEAD")) and os.path.isdir(os.path.join(candidate, "refs")):
            return os.path.realpath(candidate)
    return None


def stale_locks(ws: Workspace, remote: str) -> list[str]:
    """Ref locks in a remote on this machine that no live process holds."""
    from gitrefocus.store import locks

    git_dir = local_git_dir(ws, remote)
    return [path for path, abandoned in locks.ref_locks(git_dir) if abandoned] if git_dir else []


# -- consent: refocus data leaves the machine only for a remote its owner agreed to ---------------
CONSENT_KEY = "refocus.agreedRemote"  # one value per agreed push URL ("*": every remote)


def push_url(ws: Workspace, remote: str) -> str:
    """Where a push to ``remote`` goes (its pushurl, else its url)."""
    proc = git.run(ws.workdir, "remote", "get-url", "--push", remote, check=False)
    return proc.stdout.strip() if proc.returncode == 0 else ""


def agreed(ws: Workspace, url: str) -> bool:
    """Has the owner agreed that refocus data may be pushed to ``url``? (any config level)"""
    values = git.run(ws.workdir, "config", "--get-all", CONSENT_KEY, check=False).stdout.splitlines()
    return bool(url) and (url in values or "*" in values)


def agree(ws: Workspace, url: str) -> None:
    """Record the owner's agreement for ``url`` in this repository's own config."""
    if not agreed(ws, url):
        git.run(ws.workdir, "config", "--local", "--add", CONSENT_KEY, url)
