"""The status machine (docs/ARCHITECTURE.md, "Lifecycle and guards")."""

from __future__ import annotations

from gitrefocus.errors import RefocusError

RESERVED = "reserved"
BRIEF = "brief"
IN_PROGRESS = "in-progress"
RESULT = "result"
BLOCKED = "blocked"
ABANDONED = "abandoned"

STATUSES = (RESERVED, BRIEF, IN_PROGRESS, RESULT, BLOCKED, ABANDONED)
ACTIVE = frozenset({RESERVED, BRIEF, IN_PROGRESS, BLOCKED})
TERMINAL = frozenset({RESULT, ABANDONED})
PENDING_LAUNCH = frozenset({RESERVED, BRIEF})
RETURNED = frozenset({RESULT, BLOCKED})

TRANSITIONS: dict[str, frozenset[str]] = {
    RESERVED: frozenset({BRIEF, IN_PROGRESS, ABANDONED}),
    BRIEF: frozenset({IN_PROGRESS, ABANDONED}),
    IN_PROGRESS: frozenset({RESULT, BLOCKED, ABANDONED}),
    BLOCKED: frozenset({ABANDONED}),
    RESULT: frozenset(),
    ABANDONED: frozenset(),
}


# A status in the user's words ("completed", not "result").
WORDS = {RESERVED: "reserved (not launched yet)", BRIEF: "waiting for launch", IN_PROGRESS: "in progress",
         RESULT: "completed", BLOCKED: "blocked", ABANDONED: "abandoned"}


def in_words(status: str) -> str:
    return WORDS.get(status, status)


def is_legal(current: str, new: str) -> bool:
    return new in TRANSITIONS.get(current, frozenset())


# What moving to a status is called, for "it can only be ... from here".
VERBS = {BRIEF: "briefed", IN_PROGRESS: "started", RESULT: "completed", BLOCKED: "marked blocked",
         ABANDONED: "abandoned"}


def require_transition(refocus_id: str, current: str, new: str, when: str | None = None) -> None:
    """Refuse an illegal move in the user's words; ``when`` is when ``current`` was reached."""
    if current not in TRANSITIONS:
        raise RefocusError(f"{refocus_id} has unknown status {current!r}.")
    if is_legal(current, new):
        return
    since = f" ({when[:16].replace('T', ' ')})" if when else ""
    if current in TERMINAL or current == new:
        raise RefocusError(f"{refocus_id} is already {in_words(current)}{since}; nothing to do.")
    allowed = " or ".join(VERBS[s] for s in STATUSES if s in TRANSITIONS[current])
    raise RefocusError(f"{refocus_id} is {in_words(current)}{since}, so it cannot be {VERBS.get(new, new)}; "
                       f"from here it can only be {allowed}.")
