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
from gitrefocus.store.transcripts import find_transcript
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


def find_source(ws: Workspace, state: RefocusState) -> str | None:
    """The child's transcript on this machine, or None."""
    sid = state.child_session_id
    return find_transcript(places.local_dir(ws, state, DEST) or ws.workdir, sid) if sid else None


def prepare(ws: Workspace, state: RefocusState, scrub: Scrubber) -> PreparedTranscript:
    """Find the child's transcript and scrub it with ``scrub`` (the handoff's JSONL
    scrubber, passed in by the command so ops/ does not depend on handoff/): every line's
    JSON-escaped form and its decoded strings, before a byte is written."""
    sid = state.child_session_id
    path = find_source(ws, state)
    if path is None:
        raise RefocusError(f"--save-transcript: no transcript for child session {sid} under ~/.claude/projects; nothing was recorded.")
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
