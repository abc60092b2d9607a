"""Has an in-progress child exited without ``complete``? One answer for the SessionStart
advisory and ``status`` (docs/delivery.md): the SessionEnd hook recorded ``session-ended``, or,
since SessionEnd is unreliable (killed past its 1.5 s, never run after ``claude -p``),
the lazy check: its last event and its transcript have been quiet for
``refocus.quietHours``."""

from __future__ import annotations

import os

from gitrefocus.model import clock
from gitrefocus.model.events import RefocusState
from gitrefocus.store.transcripts import find_for


def quiet_hours(state: RefocusState, dest_dir: str | None) -> float:
    """Hours since the child last did anything: its last event or its transcript's last
    write (whichever agent runs it; a Claude Code transcript is filed by ``dest_dir``, the
    child's directory on this machine)."""
    from gitrefocus.model import agents

    last = state.last_event_at
    agent = agents.of_state(state.extra)
    sid = agents.child_session(state)
    transcript = find_for(agent, dest_dir, str(sid)) if sid and dest_dir else None
    if transcript:
        last = max(last or "", clock.iso(clock.parse_epoch(os.path.getmtime(transcript))))
    return clock.age_hours(last)


def why_unfinished(state: RefocusState, quiet: float, limit: float) -> str | None:
    """Why the child looks gone (for "it may have exited without git refocus complete"), or None."""
    if state.last_event == "session-ended":
        return "its session ended"
    if quiet >= limit:
        return f"no activity for {quiet:.1f} h"
    return None
