"""Events of a refocus and the state they fold into.

An event is immutable JSON (``schema`` versioned). The state of a refocus is a
pure fold of its events in chain order, so two clones holding the same events
in the same order agree on the status without trusting each other's snapshot.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping
from types import MappingProxyType

from gitrefocus.model import JSONObject, clock, lifecycle, place, recorded, records
from gitrefocus.model.records import dataclass, field, replace

TYPE_CHECKING = False  # no `typing` at run time: a listing and the hooks import this module
if TYPE_CHECKING:
    from typing import Any

SCHEMA = 1

SPAWNED, STARTED, COMPLETED, ABANDONED, EDITED = "spawned", "started", "completed", "abandoned", "edited"
RECEIVED, LINKED, SESSION_ENDED = "received", "linked", "session-ended"
LOOP = "loop"  # a loop of the child's session started, ran an iteration, paused, ended (no status change)
KINDS = (SPAWNED, STARTED, COMPLETED, ABANDONED, EDITED, RECEIVED, LINKED, SESSION_ENDED, LOOP)
# Events that rewrite the brief document; the others carry the previous snapshot.
DOC_KINDS = frozenset({SPAWNED, STARTED, COMPLETED, ABANDONED, EDITED})

AGENT_KEYS = ("child_agent", "source_agent")  # in a brief's frontmatter only when not Claude Code
# The frontmatter keys the folded state copies from the spawned event's meta.
STATE_KEYS = (
    "id", "status", "slug", "child_session_id", "source_session_id", "spawn_mode",
    "spawned_at", "launched_at", "completed_at", "source_dir", "dest_dir",
    "parent_refocus_id", "assigned_to",
)


_TIME_RE = re.compile(r"\A\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z\Z")
_EVENT_ID_RE = re.compile(r"\A[0-9A-Za-z-]{1,64}\Z")


def valid_time(at: str) -> bool:
    """Whether ``at`` is a timestamp as events carry it (``clock.FORMAT``): events
    sort by it as text, and a crafted one must never reach the clock's parser."""
    if not _TIME_RE.match(at):
        return False
    try:
        clock.parse(at)
    except ValueError:
        return False
    return True


def new_event_id() -> str:
    """32 hex digits: the creation time in microseconds, then randomness.

    ``at`` has one-second resolution, and events are ordered by ``(at, event_id)``:
    an id that starts with the time keeps two events of one second (an abandon
    just after a completion, on two clones) in the order they happened, where a
    random id would order them by chance."""
    import uuid  # here: only writers make events, and uuid loads platform

    return f"{time.time_ns() // 1000:014x}{uuid.uuid4().hex[:18]}"


@dataclass(frozen=True)
class Event:
    refocus_id: str
    kind: str
    at: str
    actor: JSONObject = field(default_factory=dict)
    data: JSONObject = field(default_factory=dict)
    event_id: str = field(default_factory=new_event_id)
    schema: int = SCHEMA

    def to_json(self) -> str:
        return json.dumps(records.asdict(self), ensure_ascii=False, sort_keys=True, indent=1) + "\n"

    @classmethod
    def from_json(cls, text: str | bytes) -> "Event":
        return cls.from_raw(json.loads(text))

    @classmethod
    def from_raw(cls, raw: object) -> "Event":
        """An event from its decoded JSON; ValueError when it is not one (a crafted
        or corrupt log: wrong types must not reach the code that folds events)."""
        if not isinstance(raw, dict) or "kind" not in raw or "refocus_id" not in raw:
            raise ValueError("not a refocus event")
        schema = raw.get("schema", 1)
        if type(schema) is not int:
            raise ValueError(f"event schema {schema!r} is not a number")
        if schema > SCHEMA:
            raise ValueError(f"event schema {schema} is newer than this git-refocus understands")
        known = {k: raw[k] for k in ("refocus_id", "kind", "at", "actor", "data", "event_id", "schema") if k in raw}
        for key in ("refocus_id", "kind", "at", "event_id"):
            if key in known and not isinstance(known[key], str):
                raise ValueError(f"event {key} must be a string")
        for key in ("actor", "data"):
            if key in known and not isinstance(known[key], dict):
                raise ValueError(f"event {key} must be an object")
        if "at" not in known:
            raise ValueError("event has no time")
        if not valid_time(known["at"]):
            raise ValueError(f"event time {known['at'][:40]!r} is not a UTC timestamp (YYYY-MM-DDTHH:MM:SSZ)")
        if "event_id" in known and not _EVENT_ID_RE.match(known["event_id"]):
            raise ValueError(f"event id {known['event_id'][:40]!r} is not 1 to 64 letters, digits or dashes")
        if len(known["kind"]) > 40 or not known["kind"].isprintable():
            raise ValueError("event kind is not a short name")
        return cls(**known)

    def canonical(self) -> str:
        """The event as one comparable text: two clones hold "the same event"
        only when its id and everything it says agree."""
        return json.dumps(records.asdict(self), ensure_ascii=False, sort_keys=True)

    @property
    def sort_key(self) -> tuple[str, str]:
        return (self.at, self.event_id)


@dataclass(frozen=True, slots=True)
class Conflict:
    """An event kept in the log but not applied: its transition was not legal
    from ``status`` (possible only after two clones diverged)."""

    event_id: str
    kind: str
    at: str
    status: str

    def to_json(self) -> JSONObject:
        return {"at": self.at, "event_id": self.event_id, "kind": self.kind, "status": self.status}

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> "Conflict":
        return cls(event_id=recorded(raw, "event_id"), kind=recorded(raw, "kind"), at=recorded(raw, "at"),
                   status=recorded(raw, "status"))


@dataclass(frozen=True, slots=True)
class RefocusState:
    """The state of one refocus: a pure fold of its events (:func:`apply`).

    Stored as ``state.json`` in every event commit; :meth:`to_json` is exactly
    the object written there, so clones that fold the same events build the
    same commits. Values are carried as the events gave them: ``result`` is
    the completed event's result object, verbatim, and keys this version does
    not know (written by a newer one) are kept in ``extra`` and written back.
    """

    id: str
    status: str
    slug: str | None = None
    child_session_id: str | None = None
    source_session_id: str | None = None
    spawn_mode: str | None = None
    spawned_at: str | None = None
    launched_at: str | None = None
    completed_at: str | None = None
    source_dir: str | None = None
    dest_dir: str | None = None
    parent_refocus_id: str | None = None
    assigned_to: str | None = None
    schema: int = SCHEMA
    received_at: str | None = None
    result: JSONObject | None = None
    reason: str | None = None
    sessions: tuple[str, ...] = ()
    conflicts: tuple[Conflict, ...] = ()
    last_event: str | None = None
    last_event_at: str | None = None
    events: int = 0
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> JSONObject:
        out: JSONObject = {k: getattr(self, k) for k in STATE_KEYS}
        out.update(
            schema=self.schema, received_at=self.received_at, result=self.result, reason=self.reason,
            sessions=list(self.sessions), conflicts=[c.to_json() for c in self.conflicts],
            last_event=self.last_event, last_event_at=self.last_event_at, events=self.events,
        )
        out.update(self.extra)
        return out

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> "RefocusState":
        """Read a ``state.json`` object; missing keys (but the id and the status)
        take their initial value."""
        if "id" not in raw or "status" not in raw:
            raise ValueError("not a refocus state (no id or status)")
        get = raw.get
        conflicts = get("conflicts")
        state: RefocusState = _Unfrozen(
            raw["id"], raw["status"], get("slug"), get("child_session_id"), get("source_session_id"),
            get("spawn_mode"), get("spawned_at"), get("launched_at"), get("completed_at"), get("source_dir"),
            get("dest_dir"), get("parent_refocus_id"), get("assigned_to"), get("schema", SCHEMA),
            get("received_at"), get("result"), get("reason"), tuple(get("sessions") or ()),
            tuple(Conflict.from_json(c) for c in conflicts) if conflicts else (),
            get("last_event"), get("last_event_at"), get("events", 0),
            _NO_EXTRA if raw.keys() <= _FIELDS else {k: v for k, v in raw.items() if k not in _FIELDS},
        )
        state.__class__ = cls  # frozen from here on: see _Unfrozen
        return state

    @staticmethod
    def reads(raw: Any) -> bool:
        """Whether :meth:`from_json` reads ``raw``, a decoded JSON value,
        without building the state: a cold build checks every refocus's state
        so and parses none (tests hold the two to the same answers)."""
        if not isinstance(raw, dict) or "id" not in raw or "status" not in raw:
            return False
        sessions = raw.get("sessions")
        if sessions and isinstance(sessions, (int, float)):  # made a tuple: a number is no sequence
            return False
        conflicts = raw.get("conflicts")  # each read as a Conflict: an object
        return not conflicts or (isinstance(conflicts, list) and all(isinstance(c, dict) for c in conflicts))

    def where(self, side: str) -> place.Place | None:
        """Where ``side`` (``source`` or ``dest``) works, as stored (:mod:`gitrefocus.model.place`)."""
        return place.of({f"{side}_dir": self.source_dir if side == place.SOURCE else self.dest_dir}, self.extra, side)

    def to_row(self) -> list[Any]:
        """The state as one JSON list, a value per field in :data:`ROW_FIELDS`
        order: the compact form the catalog caches (see :meth:`from_row`)."""
        row = [getattr(self, name) for name in ROW_FIELDS]
        row[_SESSIONS] = list(self.sessions)
        row[_CONFLICTS] = [c.to_json() for c in self.conflicts]
        row[_EXTRA] = dict(self.extra)
        return row

    @classmethod
    def from_row(cls, row: list[Any]) -> "RefocusState":
        """Read back :meth:`to_row`; a row of other fields is a TypeError."""
        if len(row) != len(ROW_FIELDS):
            raise TypeError(f"a state row has {len(ROW_FIELDS)} values, not {len(row)}")
        values = list(row)
        values[_SESSIONS] = tuple(values[_SESSIONS])
        values[_CONFLICTS] = tuple(Conflict.from_json(c) for c in values[_CONFLICTS]) if values[_CONFLICTS] else ()
        values[_EXTRA] = values[_EXTRA] or _NO_EXTRA
        state: RefocusState = _Unfrozen(*values)
        state.__class__ = cls  # frozen from here on: see _Unfrozen
        return state


ROW_FIELDS = tuple(f.name for f in records.fields(RefocusState))
_SESSIONS, _CONFLICTS, _EXTRA = (ROW_FIELDS.index(name) for name in ("sessions", "conflicts", "extra"))

# The catalog reads every state of a repository on each listing (10,000s). A
# frozen dataclass's __init__ pays an object.__setattr__ per field, four times
# the cost of this plain twin with the same slots; from_json and from_row build
# the twin and give it the frozen class, allowed because the layouts are identical.
_Unfrozen: Any = records.make_dataclass("_Unfrozen", ROW_FIELDS, slots=True)

_NO_EXTRA: Mapping[str, Any] = MappingProxyType({})
_FIELDS = frozenset(STATE_KEYS) | {
    "schema", "received_at", "result", "reason", "sessions", "conflicts", "last_event", "last_event_at", "events",
}


def initial_state(meta: Mapping[str, Any]) -> RefocusState:
    """The state before any event, from a spawned event's frontmatter."""
    values = {k: recorded(meta, k) for k in STATE_KEYS}
    return RefocusState(**values)


def apply(state: RefocusState | None, event: Event) -> tuple[RefocusState, bool]:
    """Fold one event into the state. Returns (new state, applied?).

    An event whose transition is not legal from the current status (which can
    only happen after two clones diverged) is kept in the log but listed in
    ``conflicts`` and changes nothing else.
    """
    if event.kind == SPAWNED and state is not None:
        # a second `spawned` (a crafted or confused log) must not rewrite dest_dir or slug
        conflict = Conflict(event_id=event.event_id, kind=event.kind, at=event.at, status=state.status)
        return replace(state, conflicts=(*state.conflicts, conflict), last_event=event.kind,
                       last_event_at=event.at, events=state.events + 1), False
    if event.kind == SPAWNED:
        meta = event.data.get("meta")
        state = replace(initial_state(meta if isinstance(meta, dict) else {}), status=lifecycle.RESERVED)
        # each side's repository identity and name (model/place.py), carried beside
        # the fold's own keys so that logs written before fold to the same state.json
        extra = {k: meta[k] for k in place.PLACE_KEYS if isinstance(meta, dict) and isinstance(meta.get(k), str)}
        # the agents each side runs in, when not Claude Code (model/agents.py), likewise
        extra.update({k: meta[k] for k in AGENT_KEYS if isinstance(meta, dict) and isinstance(meta.get(k), str)})
        repos = event.data.get("repos")
        if isinstance(repos, dict):  # older refocuses: which commit each side stood on at spawn
            extra["repos"] = repos
        if extra:
            state = replace(state, extra={**state.extra, **extra})
    elif state is None:
        state = initial_state({"id": event.refocus_id, "status": lifecycle.RESERVED})
    applied = True
    data = event.data
    cur = state.status
    status, launched_at, completed_at = cur, state.launched_at, state.completed_at
    received_at, result, reason, sessions = state.received_at, state.result, state.reason, state.sessions
    if event.kind == STARTED:
        sid = data.get("session_id")
        if cur == lifecycle.IN_PROGRESS:
            pass  # a second session opened it: recorded, no transition
        elif lifecycle.is_legal(cur, lifecycle.IN_PROGRESS):
            status = lifecycle.IN_PROGRESS
            launched_at = launched_at or event.at
        else:
            applied = False
        if applied and sid and sid not in sessions:
            sessions = (*sessions, sid)
    elif event.kind == COMPLETED:
        new = data.get("status", lifecycle.RESULT)
        if lifecycle.is_legal(cur, new):
            status, completed_at, result, received_at = new, event.at, data.get("result"), None
        else:
            applied = False
    elif event.kind == ABANDONED:
        if lifecycle.is_legal(cur, lifecycle.ABANDONED):
            status, reason = lifecycle.ABANDONED, data.get("reason")
        else:
            applied = False
    elif event.kind == EDITED:
        new = data.get("to")
        if new and new != cur:
            if lifecycle.is_legal(cur, new):
                status = new
                if new == lifecycle.ABANDONED:
                    reason = data.get("reason")
            else:
                applied = False
    elif event.kind == RECEIVED:
        if cur in lifecycle.RETURNED:
            received_at = event.at
        else:
            applied = False
    conflicts = state.conflicts
    if not applied:
        conflicts = (*conflicts, Conflict(event_id=event.event_id, kind=event.kind, at=event.at, status=cur))
    new_state = replace(
        state, status=status, launched_at=launched_at, completed_at=completed_at, received_at=received_at,
        result=result, reason=reason, sessions=sessions, conflicts=conflicts,
        last_event=event.kind, last_event_at=event.at, events=state.events + 1,
    )
    return new_state, applied


def merge(ours: list[Event], theirs: list[Event]) -> list[Event]:
    """Union of two event logs in a deterministic, symmetric order.

    The common prefix stays as it is; the two tails are interleaved like the
    merge step of merge sort on (timestamp, event id), which keeps each side's
    own order (causality within a clone) and gives both clones the same result.
    Why this order and not Lamport clocks: docs/ARCHITECTURE.md.
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
