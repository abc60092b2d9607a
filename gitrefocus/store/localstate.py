"""Machine-local state under ``$(git rev-parse --git-dir)/refocus/`` (never synced).

Layout::

    refocus/active              id made active in this worktree, for work with no session id
                                (a person at a terminal; commit-msg hook)
    refocus/sessions/<sid>      id a Claude session works on (commit-msg hook)
    refocus/clients/<key>       id the child session run by one client process works on: how a
                                /clear or fork in that client is known to continue the child
    refocus/mapped/<id>.jsonl   the sessions and clients mapped to that id (the reverse of the
                                two above, read when the refocus finishes)
    refocus/suggested/<id>.jsonl files the agent wrote (post-tool-use hook)
    refocus/cache/              derived data, safe to delete
    refocus/errors.jsonl        hook failures

Nothing here is read or written through a symlink.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Mapping

from gitrefocus.errors import RefocusError
from gitrefocus.model import clock
from gitrefocus.model.agents import session_from_env
from gitrefocus.store import atomic, faults

TYPE_CHECKING = False  # no `typing` at run time: the post-tool-use hook imports this module
if TYPE_CHECKING:
    from typing import Any

_NAME_RE = re.compile(r"^[A-Za-z0-9._-]+\Z")


def state_dir(git_dir: str) -> str:
    return os.path.join(git_dir, "refocus")


def _checked(git_dir: str, *parts: str) -> str:
    for part in parts:
        if not _NAME_RE.match(part) or part in (".", ".."):
            raise RefocusError(f"refusing unsafe local state name {part!r}.")
    path = state_dir(git_dir)
    for part in ("",) + parts:
        path = os.path.join(path, part) if part else path
        try:
            if stat.S_ISLNK(os.lstat(path).st_mode):
                raise RefocusError(f"refusing to use {path}: it is a symlink.")
        except FileNotFoundError:
            break
    return os.path.join(state_dir(git_dir), *parts)


def read(git_dir: str, *parts: str) -> str | None:
    path = _checked(git_dir, *parts)
    try:
        return atomic.read_file(path).decode("utf-8")  # a FIFO put here never blocks the command
    except (FileNotFoundError, NotADirectoryError, UnicodeDecodeError):
        return None


def write(git_dir: str, *parts: str, text: str) -> str:
    path = _checked(git_dir, *parts)
    atomic.write_text(path, text)
    return path


def remove(git_dir: str, *parts: str) -> bool:
    path = _checked(git_dir, *parts)
    if not os.path.lexists(path):
        return False
    faults.point(f"remove {path}")
    try:
        os.unlink(path)
    except FileNotFoundError:
        return False
    faults.wrote(f"remove {path}")
    return True


def append_jsonl(git_dir: str, *parts: str, record: Mapping[str, Any]) -> None:
    path = _checked(git_dir, *parts)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    line = (json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")
    faults.point(f"append {path}")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise RefocusError(f"refusing to append to {path}: it is not a regular file.")
        os.write(fd, line)  # one write on O_APPEND: lines from parallel writers never interleave
    finally:
        os.close(fd)
    faults.wrote(f"append {path}")


def read_jsonl(git_dir: str, *parts: str) -> list[dict[str, Any]]:
    text = read(git_dir, *parts)
    out = []
    for line in (text or "").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            out.append(record)
    return out


# -- the ids the commit-msg hook reads ---------------------------------
def active_id(git_dir: str) -> str | None:
    text = read(git_dir, "active")
    return text.strip().splitlines()[0] if text and text.strip() else None


def set_active(git_dir: str, refocus_id: str) -> None:
    write(git_dir, "active", text=refocus_id + "\n")


def clear_active(git_dir: str, refocus_id: str | None = None) -> None:
    if refocus_id is None or active_id(git_dir) == refocus_id:
        remove(git_dir, "active")


def refocus_for_session(git_dir: str, session_id: str) -> str | None:
    if not _NAME_RE.match(session_id or ""):
        return None
    text = read(git_dir, "sessions", session_id)
    return text.strip().splitlines()[0] if text and text.strip() else None


def active_refocus(git_dir: str, env: Mapping[str, str], session_id: str | None = None, *,
                   worktree: bool = True) -> str | None:
    """The refocus a session works on, in the commit-msg hook's order:
    ``$SESSION_REFOCUS_ID``, then the session map when a session id is known
    (``session_id`` or ``$CLAUDE_CODE_SESSION_ID``), else (with ``worktree``) the
    worktree's ``active`` marker. A known session that is mapped to nothing works
    on no refocus: the marker serves only work with no session id, so a second
    session in the child's directory never acts as the child."""
    if env.get("SESSION_REFOCUS_ID"):
        return env["SESSION_REFOCUS_ID"]
    session_id = session_id or session_from_env(env)
    if session_id:
        return refocus_for_session(git_dir, session_id)
    return active_id(git_dir) if worktree else None


def map_session(git_dir: str, session_id: str, refocus_id: str) -> None:
    _remember(git_dir, refocus_id, "sessions", session_id)
    write(git_dir, "sessions", session_id, text=refocus_id + "\n")


def _remember(git_dir: str, refocus_id: str, kind: str, name: str) -> None:
    """The reverse of a mapping, appended before the mapping is written: forgetting a
    refocus's mappings reads this one file, not every mapping (a history holds one per
    open refocus); a crash between the two leaves a line naming nothing."""
    append_jsonl(git_dir, "mapped", refocus_id + ".jsonl", record={kind: name})


def _mapped(git_dir: str, refocus_id: str, kind: str) -> list[str]:
    """The names of ``kind`` (sessions, clients) that may map to ``refocus_id``: its reverse
    list; every name when it has none (mapped by a version that kept no such list)."""
    if not os.path.lexists(_checked(git_dir, "mapped", refocus_id + ".jsonl")):
        return _names(git_dir, kind)
    names = {r.get(kind) for r in read_jsonl(git_dir, "mapped", refocus_id + ".jsonl")}
    return sorted(n for n in names if isinstance(n, str) and _NAME_RE.match(n))


def sessions_of(git_dir: str, refocus_id: str) -> list[str]:
    """The session ids mapped to ``refocus_id``."""
    return [name for name in _mapped(git_dir, refocus_id, "sessions")
            if refocus_for_session(git_dir, name) == refocus_id]


def _names(git_dir: str, directory: str) -> list[str]:
    try:
        return sorted(os.listdir(_checked(git_dir, directory)))
    except (FileNotFoundError, NotADirectoryError):
        return []


def unmap_sessions(git_dir: str, refocus_id: str) -> None:
    """Forget every session, and every client process, that works on ``refocus_id``."""
    for name in sessions_of(git_dir, refocus_id):
        remove(git_dir, "sessions", name)
    for key in _mapped(git_dir, refocus_id, "clients"):
        if refocus_for_client(git_dir, key) == refocus_id:
            remove(git_dir, "clients", key)
    remove(git_dir, "mapped", refocus_id + ".jsonl")


def refocus_for_client(git_dir: str, key: str) -> str | None:
    """The refocus whose child session the client process ``key`` ran (see claude/client.py)."""
    if not _NAME_RE.match(key or ""):
        return None
    text = read(git_dir, "clients", key)
    return text.strip().splitlines()[0] if text and text.strip() else None


def map_client(git_dir: str, key: str, refocus_id: str) -> None:
    _remember(git_dir, refocus_id, "clients", key)
    write(git_dir, "clients", key, text=refocus_id + "\n")


def log_error(git_dir: str, where: str, error: BaseException | str) -> None:
    try:
        append_jsonl(git_dir, "errors.jsonl", record={
            "at": clock.now_iso(), "where": where,
            "error": error if isinstance(error, str) else f"{type(error).__name__}: {error}",
        })
    except Exception:  # noqa: BLE001 - the error log must never become an error itself
        pass  # the error log must never become an error itself
