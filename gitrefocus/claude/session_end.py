"""SessionEnd: a child leaving without ``complete`` is recorded and warned about
(the last chance to save the context). Must fit Claude Code's shared 1.5 s budget, so the
context-save command is started detached rather than waited for."""

from __future__ import annotations

import os
import subprocess
import sys

from gitrefocus.model import events as ev
from gitrefocus.model import lifecycle
from gitrefocus.model.agents import session_from_env
from gitrefocus.ops import record
from gitrefocus.store import eventlog, localstate
from gitrefocus.store.workspace import Workspace

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from gitrefocus.model.events import Event

WARNING = "Refocus child exiting without `git refocus complete`: material work may not be surfaced"


def handle(payload: dict[str, Any], env: Mapping[str, str] = os.environ) -> None:
    if payload.get("reason") == "clear":  # the client goes on, under a new session id: not an exit
        return
    ws = Workspace.try_open(payload.get("cwd") or os.getcwd())
    if ws is None:
        return
    session_id = payload.get("session_id") or session_from_env(env)
    rid = localstate.active_refocus(ws.git_dir, env, session_id, worktree=False)
    if not rid:
        return
    tip = eventlog.read_tip(ws.repo, rid)
    if tip is None or tip.state.status != lifecycle.IN_PROGRESS:
        return

    def make(t: eventlog.Tip | None) -> Event:
        return record.new_event(ws, rid, ev.SESSION_ENDED, "child", session_id=session_id, reason=payload.get("reason"))

    record.write_event(ws, rid, make, reconcile=False)
    record.note(ws, ws.head_oid(), rid, "session-ended", role="dest", status="in-progress", session=session_id)
    sys.stderr.write(f"warning: {WARNING} ({rid}).\n")
    command = ws.setting("contextSaveCommand")
    if command:
        subprocess.Popen(
            ["sh", "-c", command], cwd=ws.workdir, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True,
            env=dict(os.environ, REFOCUS_ID=rid, REFOCUS_DEST=ws.workdir),
        )
