"""Lock files: the ``.lock`` git and libgit2 leave next to a ref while moving it,
and the advisory lock that serialises read-modify-writes of context files.

A ref lock lives milliseconds; one that stays was left by a writer that died
(SIGKILL, power loss). Such a lock makes every later write of that ref fail, so
writers name it (with the repair) instead of retrying for seconds, and
``doctor --repair`` removes it once no live process holds it open.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator

from gitrefocus.errors import RefocusError

STALE_AFTER = 5.0  # seconds: no writer holds a ref lock this long
# where refocus refs live; locks elsewhere are not ours to judge
OWN_PREFIXES = ("refs/refocus/", "refs/notes/refocus", "refs/refocus-remotes/", "refs/refocus-tmp/",
                "refs/refocus-quarantine/")


class StaleLock(RefocusError):
    """A ref is locked by a ``.lock`` file no live writer holds."""


def ref_lock_path(git_common_dir: str, refname: str) -> str:
    return os.path.join(git_common_dir, *refname.split("/")) + ".lock"


def age(path: str) -> float | None:
    try:
        return time.time() - os.lstat(path).st_mtime
    except OSError:
        return None


def stale_ref_lock_error(git_common_dir: str, refname: str) -> StaleLock | None:
    """The error to raise when ``refname`` is locked by a lock file older than a writer lives."""
    path = ref_lock_path(git_common_dir, refname)
    seconds = age(path)
    if seconds is None or seconds < STALE_AFTER:
        return None
    return StaleLock(f"{refname} is locked by {path}, left {int(seconds)} s ago by a writer that did not finish. "
                     f"Run `git refocus doctor --repair` to remove the stale lock.")


def _holders() -> set[str] | None:
    """Every file some process of ours holds open (Linux /proc), or None when unknown."""
    if not os.path.isdir("/proc/self/fd"):
        return None
    held: set[str] = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        fd_dir = f"/proc/{pid}/fd"
        try:
            for fd in os.listdir(fd_dir):
                with contextlib.suppress(OSError):
                    held.add(os.readlink(f"{fd_dir}/{fd}"))
        except OSError:
            continue
    return held


def ref_locks(git_common_dir: str) -> list[tuple[str, bool]]:
    """(lock file, abandoned?) for every lock under refocus's ref namespaces and
    ``packed-refs.lock``. Abandoned: no live process holds it open (where /proc
    tells), else older than :data:`STALE_AFTER`."""
    found = []
    for prefix in {p.split("/")[1] for p in OWN_PREFIXES}:
        top = os.path.join(git_common_dir, "refs", prefix)
        for root, _dirs, files in os.walk(top):
            rel = os.path.relpath(root, git_common_dir).replace(os.sep, "/") + "/"
            for name in files:
                if name.endswith(".lock") and (rel + name).startswith(OWN_PREFIXES):
                    found.append(os.path.join(root, name))
    packed = os.path.join(git_common_dir, "packed-refs.lock")
    if os.path.lexists(packed):
        found.append(packed)
    if not found:
        return []
    held = _holders()
    out = []
    for path in sorted(found):
        if held is not None:
            abandoned = path not in held and (age(path) or 0) >= 1.0
        else:
            abandoned = (age(path) or 0) >= STALE_AFTER
        out.append((path, abandoned))
    return out


@contextlib.contextmanager
def exclusive(path: str) -> Iterator[None]:
    """Hold an advisory lock on ``path`` (created if needed) for the block. The
    kernel drops it when the process dies, so it can never go stale."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
