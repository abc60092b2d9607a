"""PostToolUse: files the agent wrote become *suggested* relevant files of the
active refocus (``pickup`` suggests them). Runs after every tool call, so it stays off pygit2."""

from __future__ import annotations

import os
import shlex

from gitrefocus.model import clock
from gitrefocus.model.agents import session_from_env
from gitrefocus.model.ids import RefocusId
from gitrefocus.store import localstate
from gitrefocus.store.workspace import find_git_dir, is_inside

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

WRITE_TOOLS = {"Write": "file_path", "Edit": "file_path", "MultiEdit": "file_path", "NotebookEdit": "notebook_path"}
GIT_PATH_VERBS = {"add", "mv", "rm"}


def written_paths(tool: str, tool_input: dict[str, Any]) -> list[str]:
    if tool in WRITE_TOOLS:
        path = tool_input.get(WRITE_TOOLS[tool])
        return [path] if isinstance(path, str) and path else []
    if tool == "Bash":
        return git_paths(tool_input.get("command") or "")
    return []


def git_paths(command: str) -> list[str]:
    """Paths named by simple ``git add|mv|rm`` commands (cheap, best effort)."""
    out = []
    for part in command.replace("&&", ";").replace("||", ";").split(";"):
        try:
            words = shlex.split(part)
        except ValueError:
            continue
        if len(words) < 3 or words[0] != "git":
            continue
        i = 1
        while i < len(words) and words[i].startswith("-"):
            i += 2 if words[i] in ("-C", "-c") else 1
        if i < len(words) and words[i] in GIT_PATH_VERBS:
            out += [w for w in words[i + 1:] if not w.startswith("-") and w not in (".", "--")]
    return out


def handle(payload: dict[str, Any], env: Mapping[str, str] = os.environ) -> None:
    cwd = payload.get("cwd") or os.getcwd()
    git_dir = find_git_dir(cwd)
    if git_dir is None:
        return
    session_id = payload.get("session_id") or session_from_env(env)
    rid = localstate.active_refocus(git_dir, env, session_id, worktree=False)
    if not rid or not RefocusId.is_valid(rid):
        return
    given = payload.get("tool_input")
    tool_input = given if isinstance(given, dict) else {}
    workdir = os.path.dirname(git_dir) if os.path.basename(git_dir) == ".git" else cwd
    for path in written_paths(payload.get("tool_name") or "", tool_input):
        full = os.path.realpath(os.path.join(cwd, path))
        root = os.path.realpath(workdir)
        if full == root or not is_inside(full, root):
            continue  # outside this repository: not a relevant file of this refocus
        rel = os.path.relpath(full, root)
        localstate.append_jsonl(git_dir, "suggested", f"{rid}.jsonl",
                                record={"path": rel, "tool": payload.get("tool_name"), "at": clock.now_iso()})
