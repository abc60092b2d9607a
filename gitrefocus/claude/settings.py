"""``init --claude``: wire the four hooks into ``.claude/settings.json``.

Merges with what is there (other hooks, other settings are kept) and is
idempotent: our entries are recognised by their command and never duplicated.
"""

from __future__ import annotations

import json
import os

from gitrefocus.errors import RefocusError
from gitrefocus.store import atomic

COMMAND = "git refocus hook {}"
HOOKS = {
    "SessionStart": ("session-start", "startup|resume|clear|compact", 10),
    "SessionEnd": ("session-end", None, 2),
    "PostToolUse": ("post-tool-use", "Write|Edit|MultiEdit|NotebookEdit|Bash", 5),
    "Stop": ("stop", None, 5),
}


def snippet() -> dict:
    hooks = {}
    for event, (name, matcher, timeout) in HOOKS.items():
        entry: dict[str, object] = {"hooks": [{"type": "command", "command": COMMAND.format(name), "timeout": timeout}]}
        if matcher:
            entry = {"matcher": matcher, **entry}
        hooks[event] = [entry]
    return {"hooks": hooks}


def merged(settings: dict) -> dict:
    out = dict(settings)
    hooks = dict(out.get("hooks") or {})
    if not isinstance(out.get("hooks", {}), dict):
        raise RefocusError(".claude/settings.json: 'hooks' must be an object.")
    for event, entries in snippet()["hooks"].items():
        current = list(hooks.get(event) or [])
        ours = entries[0]["hooks"][0]["command"]
        present = any(isinstance(e, dict) and any(isinstance(h, dict) and h.get("command") == ours for h in e.get("hooks") or [])
                      for e in current)
        if not present:
            current.append(entries[0])
        hooks[event] = current
    out["hooks"] = hooks
    return out


def install(workdir: str, dry_run: bool = False) -> list[str]:
    """Merge our hooks into <workdir>/.claude/settings.json; return files changed."""
    path = os.path.join(workdir, ".claude", "settings.json")
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
