"""Claude Code sessions as values: the command that (re)launches a child, and
where Claude Code files a session's transcript, as text a person can follow.

Pure string functions; finding a transcript on disk is
:mod:`gitrefocus.store.transcripts`.
"""

from __future__ import annotations

import re
import shlex

_NON_ALNUM_RE = re.compile(r"[^A-Za-z0-9]")


def encode_project_dir(path: str) -> str:
    """The folder name Claude Code gives a working directory under projects/:
    every non-alphanumeric character becomes ``-``."""
    return _NON_ALNUM_RE.sub("-", path)


def transcript_pointer(project_dir: str, session_id: str) -> str:
    """``~/.claude/projects/<encoded dir>/<session id>.jsonl``, for briefs and results."""
    return f"~/.claude/projects/{encode_project_dir(project_dir)}/{session_id}.jsonl"


def shell_dir(path: str, home: str | None = None) -> str:
    """``path`` shell-quoted; below ``home`` written ``~/…`` (the tilde left
    unquoted, so the shell still expands it)."""
    base = (home or "").rstrip("/")
    if base and path.startswith(base + "/"):
        return "~/" + shlex.quote(path[len(base) + 1:])
    return shlex.quote(path)


def relaunch_command(dest_dir: str, session_id: str, *, resume: bool = False,
                     pickup_id: str | None = None, home: str | None = None) -> str:
    """The shell command that starts (or, with ``resume``, continues) a child session.

    With ``pickup_id`` the child runs non-interactively with the brief's pickup
    prompt. Every piece that comes from outside is shell-quoted; with ``home``,
    a directory below it is written ``~/…`` (shorter, for people to read).
    """
    flag = "--resume" if resume else "--session-id"
    command = f"cd {shell_dir(dest_dir, home)} && claude {flag} {shlex.quote(session_id)}"
    if pickup_id is not None:
        command += f' -p "$(git refocus pickup {shlex.quote(pickup_id)})"'
    return command
