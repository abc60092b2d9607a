"""Where Claude Code keeps a session's transcript."""

from __future__ import annotations

import os

from gitrefocus.brief import encode_project_dir


def config_dir() -> str:
    return os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".claude")


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
