"""Stop: the loop engine (docs/delivery.md, "Loops and the client's cap").

Runs each time the agent stops. Only this session's own loop state is read
(``$GIT_DIR/refocus/loops/<session_id>.json``), so a session without a loop
costs one failed file open and never imports pygit2. While the foreground
loop is active, the stop is blocked with the loop prompt as the reason
(Claude Code's ``{"decision": "block", "reason": …}``) until the last
assistant message carries the promise or ``max_iterations`` stops were seen.
"""

from __future__ import annotations

import json
import os

from gitrefocus.model import clock
from gitrefocus.model.agents import session_from_env
from gitrefocus.store import localstate, loops
from gitrefocus.store.workspace import find_git_dir

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from gitrefocus.store.workspace import Workspace


def handle(payload: dict[str, Any], env: Mapping[str, str] = os.environ, agent: str = "claude") -> str | None:
    """The reply that continues the loop (Gemini CLI's AfterAgent takes ``deny`` where Claude
    Code's and Codex's Stop take ``block``), or None to let the session stop."""
    session_id = payload.get("session_id") or session_from_env(env)
    git_dir = find_git_dir(payload.get("cwd") or os.getcwd())
    if not isinstance(session_id, str) or not session_id or git_dir is None:
        return None
    git_dir = os.path.realpath(git_dir)
    try:
        state = loops.read(git_dir, session_id)
    except Exception as exc:  # noqa: BLE001 - a damaged loop file lets the stop through
        localstate.log_error(git_dir, "hook stop", exc)
        return None
    if state is None:  # no loop in this session: nothing more to load
        return None
    from gitrefocus.model import loop as lp
    from gitrefocus.model.records import replace

    loop = state.current
    if loop is None or loop.status != lp.ACTIVE:
        return None
    # Gemini CLI's AfterAgent names the turn's answer prompt_response (the answers of a retried
    # turn joined); Claude Code's and Codex's Stop, last_assistant_message
    message = payload.get("last_assistant_message") if agent != "gemini" else payload.get("prompt_response")
    active = payload.get("stop_hook_active") is True
    now = clock.now_iso()
    ws = None
    if loop.refocus_id:
        from gitrefocus.store.workspace import Workspace

        ws = Workspace.try_open(payload.get("cwd") or os.getcwd())
        ended = _refocus_finished(ws, loop.refocus_id)
        if ended:
            loops.write(git_dir, replace(state.put(replace(loop, status=lp.DONE, ended=f"refocus {ended}",
                                                           updated_at=now)), foreground=None), expected=state)
            return None
    cap = lp.block_cap(env.get("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP"))  # the client's own setting: we run under it
    decision = lp.on_stop(loop, message if isinstance(message, str) else None, active, now, cap)
    new_state = state.put(decision.loop)
    if decision.loop.status != lp.ACTIVE and decision.loop.status != lp.PAUSED:
        new_state = replace(new_state, foreground=None)
    loops.write(git_dir, new_state, expected=state)  # another writer in between: this stop goes through
    if ws is not None:
        from gitrefocus.commands.loop import record_event

        problem = record_event(ws, decision.loop, "iteration", outcome=decision.outcome)
        if problem:
            localstate.log_error(git_dir, "hook stop", problem)
    if not decision.block:
        return None
    from gitrefocus.model.agents import continue_reply

    return json.dumps(continue_reply(agent, decision.reason))


def _refocus_finished(ws: Workspace | None, refocus_id: str) -> str | None:
    """The refocus's status when it is no longer in progress (the loop ends with it)."""
    if ws is None:
        return None
    from gitrefocus.model import lifecycle
    from gitrefocus.store import eventlog

    try:
        tip = eventlog.read_tip(ws.repo, refocus_id)
    except Exception:  # noqa: BLE001 - an unreadable log does not end the loop
        return None
    if tip is None or tip.state.status == lifecycle.IN_PROGRESS:
        return None
    return tip.state.status
