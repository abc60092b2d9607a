"""``complete --save-transcript``: commit the child's transcript, scrubbed.

Only on explicit consent (the flag; never a default). The transcript is
located and scrubbed *before* anything is recorded, so a missing transcript
refuses the whole completion instead of half-doing it (SPEC §10, seed 000 §14).
"""

from __future__ import annotations

import os
from collections.abc import Callable

from gitrefocus.errors import RefocusError
from gitrefocus.model.events import RefocusState
from gitrefocus.model.ids import TRANSCRIPTS_DIR
from gitrefocus.model.records import dataclass, field
from gitrefocus.store import atomic
from gitrefocus.store.transcripts import find_transcript
from gitrefocus.store.workspace import Workspace

LFS_LINE = f"{TRANSCRIPTS_DIR}/*.jsonl filter=lfs diff=lfs merge=lfs -text"
MAX_BYTES = 512 * 1024 * 1024


@dataclass
class PreparedTranscript:
    source: str
    text: str
    redactions: list[dict] = field(default_factory=list)


Scrubber = Callable[[str], tuple[str, list[dict]]]


def prepare(ws: Workspace, state: RefocusState, scrub: Scrubber) -> PreparedTranscript:
    """Find the child's transcript and scrub it with ``scrub`` (the handoff's JSONL
    scrubber, passed in by the command so ops/ does not depend on handoff/): every line's
    JSON-escaped form and its decoded strings, before a byte is written."""
    sid = state.child_session_id
    path = find_transcript(state.dest_dir or ws.workdir, sid) if sid else None
    if path is None:
        raise RefocusError(f"--save-transcript: no transcript for child session {sid} under ~/.claude/projects; nothing was recorded.")
    if os.path.getsize(path) > MAX_BYTES:
        raise RefocusError(f"--save-transcript: {path} is larger than 512 MB; nothing was recorded.")
    with open(path, "rb") as fh:
        text = fh.read().decode("utf-8", errors="replace")
    scrubbed, redactions = scrub(text)
    return PreparedTranscript(source=path, text=scrubbed, redactions=redactions)


def write(ws, rid: str, prepared: PreparedTranscript) -> list[str]:
    target = os.path.join(ws.transcripts_dir, f"{rid}.jsonl")
    atomic.write_text(target, prepared.text)
    written = [target]
    attributes = os.path.join(ws.workdir, ".gitattributes")
    try:
        current = atomic.read_bytes(attributes).decode("utf-8")
    except FileNotFoundError:
        current = ""
    if LFS_LINE not in current.splitlines():
        atomic.write_text(attributes, current + ("" if not current or current.endswith("\n") else "\n") + LFS_LINE + "\n")
        written.append(attributes)
    return written
