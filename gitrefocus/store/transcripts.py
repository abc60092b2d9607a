"""Where Claude Code keeps a session's transcript on disk (the one place that knows), and
where Codex CLI and Gemini CLI keep theirs."""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Iterable

from gitrefocus.model.session import encode_project_dir


def config_dir() -> str:
    """``$CLAUDE_CONFIG_DIR``, else ``~/.claude``."""
    configured = os.environ.get("CLAUDE_CONFIG_DIR")
    if configured:
        return os.path.expanduser(configured)
    return os.path.join(os.path.expanduser("~"), ".claude")


def transcript_path(project_dir: str, session_id: str) -> str:
    return os.path.join(config_dir(), "projects", encode_project_dir(project_dir), f"{session_id}.jsonl")


def find_transcript(project_dirs: str | Iterable[str] | None, session_id: str) -> str | None:
    """The transcript of ``session_id``: under the first of ``project_dirs`` that
    has it, else under any project (the session may have started elsewhere, or
    the client shortened its directory name). Project folders that are
    symlinks are not followed."""
    if isinstance(project_dirs, str):
        project_dirs = [project_dirs]
    for project_dir in project_dirs or []:
        path = transcript_path(project_dir, session_id)
        if os.path.isfile(path):
            return path
    projects = os.path.join(config_dir(), "projects")
    try:
        entries = sorted(os.scandir(projects), key=lambda e: e.name)
    except OSError:
        return None
    for entry in entries:
        path = os.path.join(entry.path, f"{session_id}.jsonl")
        if entry.is_dir(follow_symlinks=False) and os.path.isfile(path):
            return path
    return None


# -- the other agents ------------------------------------------------------------------------
# Codex CLI: $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl (archived ones in
# $CODEX_HOME/archived_sessions/). Gemini CLI: ~/.gemini/tmp/<project>/chats/session-<time>-<first
# 8 of the session id>.jsonl (.json before 0.5x), whose first record names the whole session id;
# <project> is a short name ~/.gemini/projects.json maps the directory to ($GEMINI_CLI_HOME moves ~).
_ID_RE = re.compile(r"^[0-9A-Za-z][0-9A-Za-z_-]{7,127}\Z")  # never a glob pattern
_PROBE = 64 * 1024


def codex_home() -> str:
    return os.environ.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex")


def gemini_dir() -> str:
    home = os.environ.get("GEMINI_CLI_HOME") or os.path.expanduser("~")
    return os.path.join(home, ".gemini")


def find_codex_rollout(session_id: str) -> str | None:
    """The rollout file of Codex session (thread) ``session_id``, or None."""
    if not _ID_RE.match(session_id):
        return None
    home = codex_home()
    patterns = (os.path.join(home, "sessions", "*", "*", "*", f"rollout-*-{session_id}.jsonl"),
                os.path.join(home, "archived_sessions", f"rollout-*-{session_id}.jsonl"))
    for pattern in patterns:
        found = sorted(p for p in glob.glob(pattern) if os.path.isfile(p) and not os.path.islink(p))
        if found:
            return found[-1]
    return None


def find_gemini_chat(session_id: str) -> str | None:
    """The chat file of Gemini session ``session_id``, or None: named by the id's first 8
    characters, and holding the whole id in its first record."""
    if not _ID_RE.match(session_id):
        return None
    pattern = os.path.join(gemini_dir(), "tmp", "*", "chats", f"session-*-{session_id[:8]}.json*")
    for path in sorted(glob.glob(pattern), reverse=True):
        if path.endswith((".json", ".jsonl")) and os.path.isfile(path) and not os.path.islink(path) \
                and first_record_session(path) == session_id:
            return path
    return None


def first_record_session(path: str) -> str | None:
    """``sessionId`` of a Gemini chat's first record (a .jsonl's first line, a .json's object)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(_PROBE)
    except OSError:
        return None
    match = re.search(rb'"sessionId"\s*:\s*"([0-9A-Za-z_-]{8,128})"', head)
    return match.group(1).decode("ascii") if match else None


def find_for(agent: str, project_dirs: str | Iterable[str] | None, session_id: str) -> str | None:
    """The transcript ``agent`` keeps of ``session_id``, or None."""
    if agent == "codex":
        return find_codex_rollout(session_id)
    if agent == "gemini":
        return find_gemini_chat(session_id)
    return find_transcript(project_dirs, session_id)

