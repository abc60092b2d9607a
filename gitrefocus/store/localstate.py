"""Machine-local state under ``$(git rev-parse --git-dir)/refocus/`` (never synced).

Layout::

    refocus/active              id made active in this worktree (commit-msg hook)
    refocus/sessions/<sid>      id a Claude session works on (commit-msg hook)
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
    """The refocus a session works on, in the commit-msg hook's order (SPEC §4.4):
    ``$SESSION_REFOCUS_ID``, the session map, then (with ``worktree``) ``active``."""
    if env.get("SESSION_REFOCUS_ID"):
        return env["SESSION_REFOCUS_ID"]
    session_id = session_id or env.get("CLAUDE_CODE_SESSION_ID")
    mapped = refocus_for_session(git_dir, session_id) if session_id else None
    if mapped or not worktree:
        return mapped
    return active_id(git_dir)


def map_session(git_dir: str, session_id: str, refocus_id: str) -> None:
    write(git_dir, "sessions", session_id, text=refocus_id + "\n")


def unmap_sessions(git_dir: str, refocus_id: str) -> None:
    directory = _checked(git_dir, "sessions")
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return
    for name in names:
        if refocus_for_session(git_dir, name) == refocus_id:
            remove(git_dir, "sessions", name)


def log_error(git_dir: str, where: str, error: BaseException | str) -> None:
    try:
        append_jsonl(git_dir, "errors.jsonl", record={
            "at": clock.now_iso(), "where": where,
            "error": error if isinstance(error, str) else f"{type(error).__name__}: {error}",
        })
    except Exception:
        pass  # the error log must never become an error itself
