"""Where Claude Code keeps a session's transcript on disk (the one place that knows)."""

from __future__ import annotations

import os
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
