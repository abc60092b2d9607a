"""Where Claude Code keeps a session's transcript (the one place that knows)."""

from __future__ import annotations

import os
import re

_NON_ALNUM_RE = re.compile(r"[^A-Za-z0-9]")


def config_dir() -> str:
    """``$CLAUDE_CONFIG_DIR``, else ``~/.claude``."""
    configured = os.environ.get("CLAUDE_CONFIG_DIR")
    if configured:
        return os.path.expanduser(configured)
    return os.path.join(os.path.expanduser("~"), ".claude")


def encode_project_dir(path: str) -> str:
    """The folder name Claude Code gives a working directory under projects/:
    every non-alphanumeric character becomes ``-``."""
    return _NON_ALNUM_RE.sub("-", path)


def transcript_path(project_dir: str, session_id: str) -> str:
    return os.path.join(config_dir(), "projects", encode_project_dir(project_dir), f"{session_id}.jsonl")


def find_transcript(project_dir: str | None, session_id: str) -> str | None:
    """The transcript of ``session_id``: under its project dir, else any project."""
    if project_dir:
        path = transcript_path(project_dir, session_id)
        if os.path.exists(path):
            return path
    projects = os.path.join(config_dir(), "projects")
    try:
        for name in os.listdir(projects):
            path = os.path.join(projects, name, f"{session_id}.jsonl")
            if os.path.exists(path):
                return path
    except OSError:
        pass
    return None
