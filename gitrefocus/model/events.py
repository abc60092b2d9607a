"""Events of a refocus and the state they fold into.

An event is immutable JSON (``schema`` versioned). The state of a refocus is a
pure fold of its events in chain order, so two clones holding the same events
in the same order agree on the status without trusting each other's snapshot.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import asdict, dataclass, field

from gitrefocus.model import lifecycle

SCHEMA = 1

SPAWNED, STARTED, COMPLETED, ABANDONED, EDITED = "spawned", "started", "completed", "abandoned", "edited"
RECEIVED, LINKED, SESSION_ENDED = "received", "linked", "session-ended"
KINDS = (SPAWNED, STARTED, COMPLETED, ABANDONED, EDITED, RECEIVED, LINKED, SESSION_ENDED)
# Events that rewrite the brief document; the others carry the previous snapshot.
DOC_KINDS = frozenset({SPAWNED, STARTED, COMPLETED, ABANDONED, EDITED})

STATE_KEYS = (
    "id", "status", "slug", "child_session_id", "source_session_id", "spawn_mode",
    "spawned_at", "launched_at", "completed_at", "source_dir", "dest_dir",
    "parent_refocus_id", "assigned_to",
)


@dataclass(frozen=True)
class Event:
    refocus_id: str
    kind: str
    at: str
    actor: dict = field(default_factory=dict)
    data: dict = field(default_factory=dict)
    event_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    schema: int = SCHEMA

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, sort_keys=True, indent=1) + "\n"

    @classmethod
    def from_json(cls, text: str | bytes) -> "Event":
        raw = json.loads(text)
        if not isinstance(raw, dict) or "kind" not in raw or "refocus_id" not in raw:
            raise ValueError("not a refocus event")
        if raw.get("schema", 1) > SCHEMA:
            raise ValueError(f"event schema {raw['schema']} is newer than this git-refocus understands")
        known = {k: raw[k] for k in ("refocus_id", "kind", "at", "actor", "data", "event_id", "schema") if k in raw}
        return cls(**known)

    @property
    def sort_key(self) -> tuple[str, str]:
        return (self.at, self.event_id)


def initial_state(meta: dict) -> dict:
    state = {k: meta.get(k) for k in STATE_KEYS}
    state.update(
        schema=SCHEMA, received_at=None, result=None, reason=None, sessions=[],
        conflicts=[], last_event=None, last_event_at=None, events=0,
    )
    return state


def apply(state: dict | None, event: Event) -> tuple[dict, bool]:
    """Fold one event into the state. Returns (new state, applied?).

    An event whose transition is not legal from the current status (which can
    only happen after two clones diverged) is kept in the log but listed in
    ``conflicts`` and changes nothing else.
    """
    if event.kind == SPAWNED or state is None:
        if event.kind != SPAWNED:
            state = initial_state({"id": event.refocus_id, "status": lifecycle.RESERVED})
        else:
            state = initial_state(event.data.get("meta", {}))
            state["status"] = lifecycle.RESERVED
    else:
        state = dict(state, sessions=list(state["sessions"]), conflicts=list(state["conflicts"]))
    applied = True
    data = event.data
    cur = state["status"]
    if event.kind == STARTED:
        sid = data.get("session_id")
        if cur == lifecycle.IN_PROGRESS:
            pass  # a second session opened it: recorded, no transition
        elif lifecycle.is_legal(cur, lifecycle.IN_PROGRESS):
            state["status"] = lifecycle.IN_PROGRESS
            state["launched_at"] = state["launched_at"] or event.at
        else:
            applied = False
        if applied and sid and sid not in state["sessions"]:
            state["sessions"].append(sid)
    elif event.kind == COMPLETED:
        new = data.get("status", lifecycle.RESULT)
        if lifecycle.is_legal(cur, new):
            state["status"] = new
            state["completed_at"] = event.at
            state["result"] = data.get("result")
            state["received_at"] = None
        else:
            applied = False
    elif event.kind == ABANDONED:
        if lifecycle.is_legal(cur, lifecycle.ABANDONED):
            state["status"] = lifecycle.ABANDONED
            state["reason"] = data.get("reason")
        else:
            applied = False
    elif event.kind == EDITED:
        new = data.get("to")
        if new and new != cur:
            if lifecycle.is_legal(cur, new):
                state["status"] = new
                if new == lifecycle.ABANDONED:
                    state["reason"] = data.get("reason")
            else:
                applied = False
    elif event.kind == RECEIVED:
        if cur in lifecycle.RETURNED:
            state["received_at"] = event.at
        else:
            applied = False
    if not applied:
        state["conflicts"].append({"event_id": event.event_id, "kind": event.kind, "at": event.at, "status": cur})
    state["last_event"] = event.kind
    state["last_event_at"] = event.at
    state["events"] += 1
    return state, applied


def merge(ours: list[Event], theirs: list[Event]) -> list[Event]:
    """Union of two event logs in a deterministic, symmetric order.

    The common prefix stays as it is; the two tails are interleaved like the
    merge step of merge sort on (timestamp, event id), which keeps each side's
    own order (causality within a clone) and gives both clones the same result.
    """
    n = 0
    while n < len(ours) and n < len(theirs) and ours[n].event_id == theirs[n].event_id:
        n += 1
    out = list(ours[:n])
    seen = {e.event_id for e in out}
    a, b = ours[n:], theirs[n:]
    i = j = 0
    while i < len(a) or j < len(b):
        if j >= len(b) or (i < len(a) and a[i].sort_key <= b[j].sort_key):
            event, i = a[i], i + 1
        else:
            event, j = b[j], j + 1
        if event.event_id not in seen:
            seen.add(event.event_id)
            out.append(event)
    return out
