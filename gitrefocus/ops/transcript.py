"""``complete --save-transcript``: commit the child's transcript, scrubbed.

Only on explicit consent (the flag; never a default). The transcript is
located and scrubbed *before* anything is recorded, so a missing transcript
refuses the whole completion instead of half-doing it (docs/secrets.md).
"""

from __future__ import annotations

import os
from collections.abc import Callable

from gitrefocus.errors import RefocusError
from gitrefocus.model.events import RefocusState
from gitrefocus.model.ids import TRANSCRIPTS_DIR
from gitrefocus.model.place import DEST
from gitrefocus.model.records import dataclass, field
from gitrefocus.ops import places
from gitrefocus.store import atomic
from gitrefocus.store.transcripts import find_for
from gitrefocus.store.workspace import Workspace

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from typing import Any

LFS_LINE = f"{TRANSCRIPTS_DIR}/*.jsonl filter=lfs diff=lfs merge=lfs -text"
MAX_BYTES = 512 * 1024 * 1024


@dataclass
class PreparedTranscript:
    source: str
    text: str
    redactions: list[dict[str, Any]] = field(default_factory=list)


Scrubber = Callable[[str], tuple[str, list[dict[str, object]]]]


def child_sessions(state: RefocusState) -> list[str]:
    """The child's session ids, the likeliest first: the one spawn gave it, or (Codex, which
    chooses its own) those that opened the refocus, newest first."""
    from gitrefocus.model import agents

    if agents.of_state(state.extra) == agents.CODEX:
        return list(reversed(state.sessions))
    return [state.child_session_id] if state.child_session_id else []


def find_source(ws: Workspace, state: RefocusState) -> str | None:
    """The child's transcript on this machine (whichever agent ran it), or None."""
    from gitrefocus.model import agents

    dest = places.local_dir(ws, state, DEST) or ws.workdir
    agent = agents.of_state(state.extra)
    return next((found for sid in child_sessions(state) for found in [find_for(agent, dest, sid)] if found), None)


def prepare(ws: Workspace, state: RefocusState, scrub: Scrubber) -> PreparedTranscript:
    """Find the child's transcript and scrub it with ``scrub`` (the handoff's JSONL
    scrubber, passed in by the command so ops/ does not depend on handoff/): every line's
    JSON-escaped form and its decoded strings, before a byte is written."""
    ids = child_sessions(state)
    sid = ids[0] if ids else None
    path = find_source(ws, state)
    if path is None:
        from gitrefocus.model import agents

        where = {"claude": "~/.claude/projects", "codex": "Codex CLI's sessions",
                 "gemini": "Gemini CLI's chats"}[agents.of_state(state.extra)]
        raise RefocusError(f"--save-transcript: no transcript for child session {sid} under {where}; nothing was recorded.")
    if os.path.getsize(path) > MAX_BYTES:
        raise RefocusError(f"--save-transcript: {path} is larger than 512 MB; nothing was recorded.")
    text = atomic.read_file(path, MAX_BYTES).decode("utf-8", errors="replace")  # never blocks on a FIFO
    scrubbed, redactions = scrub(text)
    return PreparedTranscript(source=path, text=scrubbed, redactions=redactions)


def write(ws: Workspace, rid: str, prepared: PreparedTranscript) -> list[str]:
    target = os.path.join(ws.transcripts_dir, f"{rid}.jsonl")
    atomic.write_text(target, prepared.text)
    return [target] + ensure_attributes(ws)


def _attributes(ws: Workspace) -> tuple[str, str]:
    path = os.path.join(ws.workdir, ".gitattributes")
    try:
        return path, atomic.read_text(path)
    except FileNotFoundError:
        return path, ""


def attributes_ok(ws: Workspace) -> bool:
    """Whether ``.gitattributes`` has the LFS line for saved transcripts."""
    return LFS_LINE in _attributes(ws)[1].splitlines()


def ensure_attributes(ws: Workspace) -> list[str]:
    """Add the LFS line to ``.gitattributes`` unless it is there; the file written, if any."""
    path, current = _attributes(ws)
    if LFS_LINE in current.splitlines():
        return []
    atomic.write_text(path, current + ("" if not current or current.endswith("\n") else "\n") + LFS_LINE + "\n")
    return [path]
