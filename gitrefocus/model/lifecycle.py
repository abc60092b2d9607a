"""The status machine of SPEC §5."""

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


def require_transition(refocus_id: str, current: str, new: str) -> None:
    if current not in TRANSITIONS:
        raise RefocusError(f"{refocus_id} has unknown status {current!r}.")
    if not is_legal(current, new):
        allowed = ", ".join(sorted(TRANSITIONS[current])) or "none, it is terminal"
        raise RefocusError(
            f"cannot move {refocus_id} from {current} to {new} (allowed from {current}: {allowed})."
        )
