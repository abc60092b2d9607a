"""The hook wiring, one table for every way it is installed: ``init --claude``
(project or user ``settings.json``), ``hooks/settings.json`` (for copying by
hand) and the plugin's ``hooks/hooks.json``.

Merges with what is there (other hooks, other settings are kept) and is
idempotent: our entries are recognised by their command and never duplicated.

Claude Code runs a command registered both in a settings file and in a plugin
once per source (settings files among themselves are de-duplicated). So the
plugin's copy says ``--plugin`` and stands aside when a settings file already
registers the same hook (:func:`registered_in_settings`).
"""

from __future__ import annotations

import json
import os
import stat

from gitrefocus.errors import RefocusError
from gitrefocus.store import atomic

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

COMMAND = "git refocus hook {}"
PLUGIN_FLAG = "--plugin"
# event -> (handler, matcher or None for every occurrence, timeout in seconds)
HOOKS = {
    "SessionStart": ("session-start", "startup|resume|clear|compact|fork", 10),
    "SessionEnd": ("session-end", None, 2),
    "PostToolUse": ("post-tool-use", "Write|Edit|MultiEdit|NotebookEdit|Bash", 5),
    "Stop": ("stop", None, 5),
}


def command(name: str, plugin: bool = False) -> str:
    return COMMAND.format(name) + (f" {PLUGIN_FLAG}" if plugin else "")


def snippet(plugin: bool = False) -> dict[str, Any]:
    """The ``{"hooks": …}`` object: for a settings file, or (``plugin``) for the plugin."""
    hooks = {}
    for event, (name, matcher, timeout) in HOOKS.items():
        entry: dict[str, object] = {"hooks": [{"type": "command", "command": command(name, plugin), "timeout": timeout}]}
        if matcher:
            entry = {"matcher": matcher, **entry}
        hooks[event] = [entry]
    return {"hooks": hooks}


def merged(settings: dict[str, Any]) -> dict[str, Any]:
    out = dict(settings)
    hooks = dict(out.get("hooks") or {})
    if not isinstance(out.get("hooks", {}), dict):
        raise RefocusError(".claude/settings.json: 'hooks' must be an object.")
    for event, entries in snippet()["hooks"].items():
        current = list(hooks.get(event) or [])
        ours = entries[0]["hooks"][0]["command"]
        at = [i for i, e in enumerate(current) if _has_command(e, ours)]
        if not at:
            current.append(entries[0])
        elif current[at[0]] != entries[0] and len(current[at[0]].get("hooks") or []) == 1:
            current[at[0]] = entries[0]  # ours, from an older version (e.g. a narrower matcher)
        hooks[event] = current
    out["hooks"] = hooks
    return out


def _has_command(entry: object, command: str) -> bool:
    return isinstance(entry, dict) and any(isinstance(h, dict) and h.get("command") == command
                                           for h in entry.get("hooks") or [])


def install(workdir: str, dry_run: bool = False) -> list[str]:
    """Merge our hooks into <workdir>/.claude/settings.json; return files changed."""
    return install_into(os.path.join(workdir, ".claude"), dry_run)


def install_into(claude_dir: str, dry_run: bool = False) -> list[str]:
    """Merge our hooks into <claude_dir>/settings.json (a project's .claude or ~/.claude)."""
    path = os.path.join(claude_dir, "settings.json")
    try:
        with open(path, encoding="utf-8") as fh:
            current = json.load(fh)
    except FileNotFoundError:
        current = {}
    except (ValueError, UnicodeDecodeError) as exc:
        raise RefocusError(f"{path} is not valid JSON ({exc}); fix it and run again.") from None
    if not isinstance(current, dict):
        raise RefocusError(f"{path} must hold a JSON object.")
    new = merged(current)
    if new == current:
        return []
    if not dry_run:
        atomic.write_text(path, json.dumps(new, indent=2) + "\n")
    return [path]


def uninstall_from(claude_dir: str, dry_run: bool = False, up_to: str | None = None) -> list[str]:
    """Remove the hook entries that run ``git refocus hook`` from <claude_dir>/settings.json
    (an event left with none is dropped; a file left empty is removed, and the directories
    it leaves empty below ``up_to``); return the files changed."""
    path = os.path.join(claude_dir, "settings.json")
    try:
        with open(path, encoding="utf-8") as fh:
            current = json.load(fh)
    except FileNotFoundError:
        return []
    except (ValueError, UnicodeDecodeError) as exc:
        raise RefocusError(f"{path} is not valid JSON ({exc}); fix it and run again.") from None
    hooks = current.get("hooks") if isinstance(current, dict) else None
    if not isinstance(hooks, dict):
        return []
    ours = {command(name) for name, _, _ in HOOKS.values()}
    kept = {}
    for event, entries in hooks.items():
        left = [e for e in entries if not any(_has_command(e, c) for c in ours)] if isinstance(entries, list) else entries
        if left:
            kept[event] = left
    if kept == hooks:
        return []
    if not dry_run:
        new = {k: v for k, v in current.items() if k != "hooks"}
        if kept:
            new["hooks"] = kept
        if new:
            atomic.write_text(path, json.dumps(new, indent=2) + "\n")
        else:
            from gitrefocus.ops import teardown

            teardown.remove_file(path, up_to)
    return [path]


def user_claude_dir(env: Mapping[str, str] = os.environ) -> str:
    """~/.claude, or $CLAUDE_CONFIG_DIR where the client is told to keep its settings."""
    return env.get("CLAUDE_CONFIG_DIR") or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".claude")


def registered_in_settings(name: str, env: Mapping[str, str] = os.environ) -> bool:
    """True when a settings file the client reads (user, project, project-local) already runs
    ``git refocus hook NAME``: then the plugin's copy of that hook must not run as well."""
    project = env.get("CLAUDE_PROJECT_DIR") or os.getcwd()
    return (_registered(os.path.join(user_claude_dir(env), "settings.json"), name)
            or registered_in_project(project, name))


def registered_in_project(directory: str, name: str = "session-start") -> bool:
    """``directory/.claude/settings.json`` (or ``settings.local.json``) runs ``git refocus hook NAME``."""
    return any(_registered(os.path.join(directory, ".claude", f), name) for f in ("settings.json", "settings.local.json"))


def _registered(path: str, name: str) -> bool:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError, UnicodeDecodeError):
        return False
    hooks = data.get("hooks") if isinstance(data, dict) else None
    wanted = command(name)
    return isinstance(hooks, dict) and any(_has_command(e, wanted) for entries in hooks.values()
                                           if isinstance(entries, list) for e in entries)


def wire_subtree(workdir: str, directory: str, dry_run: bool = False) -> list[str]:
    """Claude Code runs a project's hooks only from ``.claude/settings.json`` in the directory
    it starts in (2.1.330 and 2.1.197: a session started below the repository root runs none
    of the root's). So a subdirectory a child or its parent works in gets the same hooks when
    the repository's root has them (``init --claude``); the files changed. Routes that wire
    every directory (``~/.claude``, the plugin) need nothing here."""
    if os.path.realpath(directory) == os.path.realpath(workdir) or not registered_in_project(workdir):
        return []
    claude_dir = os.path.join(directory, ".claude")
    path = os.path.join(claude_dir, "settings.json")
    atomic.refuse_symlinks(path)
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):  # a FIFO would block the read, a directory fail it
            raise RefocusError(f"{path} is not a regular file; move it away and run this again.")
    except FileNotFoundError:
        pass
    return install_into(claude_dir, dry_run)
