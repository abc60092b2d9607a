"""Run one hook handler. Imported without click: ``git refocus hook EVENT`` runs
on every session start and every tool call, so its start-up cost counts.

Hooks never prompt, make no network calls and exit 0 even when they fail (the
failure goes to $GIT_DIR/refocus/errors.jsonl and one line to stderr), so a
refocus problem can never block a session.
"""

from __future__ import annotations

import importlib
import os
import sys

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from typing import Any

HANDLERS = {
    "session-start": "gitrefocus.claude.session_start",
    "session-end": "gitrefocus.claude.session_end",
    "post-tool-use": "gitrefocus.claude.post_tool_use",
    "stop": "gitrefocus.claude.stop",
}


# handlers that answer differently for each agent take ``agent=``; the others are the same for all
AGENT_AWARE = ("session-start", "stop")


def run(event: str, plugin: bool = False, agent: str = "claude") -> int:
    """``plugin``: this is the plugin's copy of the hook, which stands aside when a settings
    file registers the same hook (the client would otherwise run both). ``agent``: the client
    that runs the hook (Claude Code, Codex CLI or Gemini CLI: docs/agents.md). Exits 0
    whatever arrives on stdin and whatever fails."""
    payload: dict[str, Any] = {}
    try:
        return _run(event, plugin, payload, agent)
    except BaseException as exc:  # noqa: BLE001 - stdin, the environment, an interrupt: never fail the session
        _log(payload, event, exc)
        try:
            sys.stderr.write(f"git refocus hook {event}: {type(exc).__name__}: {_printable(exc)}\n")
        except Exception:  # noqa: BLE001 - a closed stderr
            pass
        return 0


def _printable(exc: BaseException) -> str:
    return str(exc).encode("utf-8", "backslashreplace").decode("utf-8")[:300]


def _run(event: str, plugin: bool, payload: dict[str, Any], agent: str = "claude") -> int:
    from gitrefocus.claude import hookio

    payload.update(hookio.read_input())
    if plugin:
        from gitrefocus.claude.settings import registered_in_settings

        if registered_in_settings(event):
            return 0
    module = HANDLERS[event]
    if module is None:  # Stop: loops come later; a valid no-op never blocks
        return 0
    try:
        handler = importlib.import_module(module).handle
        out = handler(payload, agent=agent) if agent != "claude" and event in AGENT_AWARE else handler(payload)
        reply = out if isinstance(out, hookio.Reply) else hookio.Reply(out) if out else None
        if reply is not None and reply.text:
            hookio.write_stdout(reply.text + "\n")
        if reply is not None and reply.delivered is not None:
            reply.delivered()  # only once the text is on stdout (a failed write raised above)
    except Exception as exc:  # noqa: BLE001 - a hook must never fail the session
        _log(payload, event, exc)
        sys.stderr.write(f"git refocus hook {event}: {type(exc).__name__}: {_printable(exc)}\n")
    return 0


def _log(payload: dict[str, Any], event: str, exc: BaseException) -> None:
    """Into errors.jsonl of a repository that takes part (one that never ran `init` gets nothing)."""
    try:
        from gitrefocus.store import localstate
        from gitrefocus.store.workspace import Workspace

        ws = Workspace.try_open(payload.get("cwd") or os.getcwd())
        if ws is not None and ws.takes_part:
            localstate.log_error(ws.git_dir, f"hook {event}", exc)
    except Exception:  # noqa: BLE001 - the error log must never fail the hook
        pass
