"""Loops driven by the Stop hook (docs/delivery.md, "Loops"): pure values and the rule.

A loop belongs to one Claude Code session. While it is the session's
foreground loop and ``active``, each time the agent stops is one iteration:
the stop is let through when the last assistant message carries the
completion promise or the loop has run ``max_iterations`` times; otherwise the
Stop hook blocks it and hands the loop prompt back as the reason.

The promise counts only when it is said on purpose: inside
``<promise>…</promise>`` or as a line of its own (whitespace collapsed), so a
message that merely mentions the word does not end the loop.

``stop_hook_active`` (Claude Code sets it on a stop that follows a block) is
honoured: when the agent answers a fed-back prompt with the very message it
gave before, the loop would only be looping on its own output, so it is
paused and the stop let through.

The client honours only so many blocks in a row (8, or
``CLAUDE_CODE_STOP_HOOK_BLOCK_CAP``) and then ends the turn itself. So the loop
pauses instead of giving the block the client would override, and a stop that
comes without ``stop_hook_active`` after a block (the client ended the turn, or
the user interrupted) pauses it too: the next thing the user asks is never
captured by a loop the client already stopped.
"""

from __future__ import annotations

import hashlib
import re

from gitrefocus.model import JSONObject
from gitrefocus.model.records import asdict, dataclass, replace

TYPE_CHECKING = False  # the Stop hook imports this module: no `typing` at run time
if TYPE_CHECKING:
    from typing import Any

ACTIVE, PAUSED, DONE, CANCELLED = "active", "paused", "done", "cancelled"
STATUSES = (ACTIVE, PAUSED, DONE, CANCELLED)
FINISHED = frozenset({DONE, CANCELLED})
# why a loop ended or paused
BY_PROMISE, BY_MAX, BY_CANCEL, BY_STALL = "promise", "max-iterations", "cancelled", "same answer twice"
BY_CAP = "client's limit of blocks in a row"  # paused before the block the client would override
BY_CLIENT = "turn ended by the client"  # a block was not followed by a continuation
CLIENT_BLOCK_CAP = 8  # Claude Code's default; CLAUDE_CODE_STOP_HOOK_BLOCK_CAP changes it, 0 or less lifts it

SCHEMA = 1
MAX_PROMPT = 16_000  # characters; the prompt is sent back on every iteration
MAX_PROMISE = 200
MAX_ITERATIONS = 1000
MAX_LOOPS = 64  # per session
DEFAULT_PROMPT = "Continue working on the task. Check your work against what was asked before you finish."

_ID_RE = re.compile(r"^[0-9a-f]{8}\Z")
_WS_RE = re.compile(r"\s+")


def squash(text: str) -> str:
    """Runs of whitespace as one space, trimmed: how a promise is compared."""
    return _WS_RE.sub(" ", text).strip()


def promise_met(message: str | None, promise: str) -> bool:
    """``<promise>PROMISE</promise>`` in the message, or a line that is exactly PROMISE."""
    if not message or not promise:
        return False
    want = squash(promise)
    for said in re.findall(r"<promise>(.*?)</promise>", message, flags=re.S | re.I):
        if squash(said) == want:
            return True
    return any(squash(line) == want for line in message.splitlines())


def block_cap(setting: str | None) -> int:
    """How many Stop-hook blocks in a row the client honours, as it reads
    ``CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`` (0: no limit)."""
    try:
        value = int((setting or "").strip())
    except ValueError:
        return CLIENT_BLOCK_CAP
    return max(value, 0)


def iterations_per_turn(cap: int) -> int | None:
    """The most iterations a loop gets in one turn: the stop that starts the chain and
    one per block the client honours (None: no limit)."""
    return cap + 1 if cap else None


def digest(message: str | None) -> str:
    return hashlib.sha256((message or "").encode("utf-8", "replace")).hexdigest()[:16]


def check_id(text: str) -> str:
    if not _ID_RE.match(text or ""):
        raise ValueError(f"not a loop id: {text!r}")
    return text


@dataclass(frozen=True)
class Loop:
    id: str  # 8 hex
    session_id: str
    status: str
    iteration: int  # stops seen while active
    max_iterations: int
    promise: str
    prompt: str
    created_at: str
    updated_at: str
    refocus_id: str | None = None  # the child refocus the session worked on when the loop started
    ended: str | None = None  # why it stopped running (BY_*), or None
    last_digest: str | None = None  # of the last assistant message seen at a stop
    blocks: int = 0  # stops blocked in a row, in this turn (the client caps them)

    @property
    def current(self) -> int:
        """The iteration as the agent is told it (the Stop hook's "iteration N of M"): while
        the loop runs, the one under way (one past the stops seen); once it ended or
        paused, the last one that ran. ``loop list`` and the hook say the same number."""
        return min(self.iteration + 1, self.max_iterations) if self.status == ACTIVE else self.iteration

    def to_json(self) -> JSONObject:
        return asdict(self)

    @classmethod
    def from_json(cls, raw: Any) -> "Loop":
        """A stored loop, checked field by field (the file is local but not trusted blindly)."""
        if not isinstance(raw, dict):
            raise ValueError("a loop must be an object")

        def text(key: str, limit: int, optional: bool = False) -> Any:
            value = raw.get(key)
            if value is None and optional:
                return None
            if not isinstance(value, str) or len(value) > limit:
                raise ValueError(f"loop field {key!r} must be a string of at most {limit} characters")
            return value

        def count(key: str) -> int:
            value = raw.get(key)
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_ITERATIONS:
                raise ValueError(f"loop field {key!r} must be an integer from 0 to {MAX_ITERATIONS}")
            return value

        status = text("status", 16)
        if status not in STATUSES:
            raise ValueError(f"unknown loop status {status!r}")
        return cls(
            id=check_id(text("id", 8)), session_id=text("session_id", 128), status=status,
            iteration=count("iteration"), max_iterations=count("max_iterations"),
            promise=text("promise", MAX_PROMISE), prompt=text("prompt", MAX_PROMPT),
            created_at=text("created_at", 32), updated_at=text("updated_at", 32),
            refocus_id=text("refocus_id", 80, True), ended=text("ended", 64, True),
            last_digest=text("last_digest", 64, True), blocks=count("blocks") if "blocks" in raw else 0,
        )

    def continuation(self) -> str:
        """The reason the Stop hook gives when it blocks: the prompt, and how to end."""
        return (f"{self.prompt}\n\n"
                f"[git refocus loop {self.id}: iteration {self.current} of {self.max_iterations}. "
                f"When it is true, and only then, end your reply with <promise>{self.promise}</promise>.]")


@dataclass(frozen=True)
class StopDecision:
    """What the Stop hook does for one stop: block (with the reason) or let it through."""

    loop: Loop  # after this stop
    block: bool
    outcome: str  # "continue" or why the loop ended or paused (BY_*)

    @property
    def reason(self) -> str | None:
        return self.loop.continuation() if self.block else None


def on_stop(loop: Loop, message: str | None, stop_hook_active: bool, now: str,
            cap: int = CLIENT_BLOCK_CAP) -> StopDecision:
    """One stop of the session whose foreground loop is ``loop`` (which must be active);
    ``cap``: the blocks in a row the client honours (0: no limit)."""
    if loop.blocks and not stop_hook_active:  # our last block was not continued: a new turn
        return StopDecision(replace(loop, status=PAUSED, ended=BY_CLIENT, blocks=0, updated_at=now), False, BY_CLIENT)
    seen = digest(message)
    after = replace(loop, iteration=loop.iteration + 1, updated_at=now, last_digest=seen, blocks=0)
    if promise_met(message, loop.promise):
        return StopDecision(replace(after, status=DONE, ended=BY_PROMISE), False, BY_PROMISE)
    if after.iteration >= loop.max_iterations:
        return StopDecision(replace(after, status=DONE, ended=BY_MAX), False, BY_MAX)
    if stop_hook_active and loop.last_digest == seen:
        return StopDecision(replace(after, status=PAUSED, ended=BY_STALL), False, BY_STALL)
    if cap and loop.blocks >= cap:
        return StopDecision(replace(after, status=PAUSED, ended=BY_CAP), False, BY_CAP)
    return StopDecision(replace(after, blocks=loop.blocks + 1), True, "continue")


@dataclass(frozen=True)
class SessionLoops:
    """Every loop of one session, and which one the Stop hook drives."""

    session_id: str
    foreground: str | None
    loops: tuple[Loop, ...] = ()

    def get(self, loop_id: str | None) -> Loop | None:
        return next((lp for lp in self.loops if lp.id == loop_id), None) if loop_id else None

    @property
    def current(self) -> Loop | None:
        return self.get(self.foreground)

    def put(self, loop: Loop) -> "SessionLoops":
        others = tuple(lp for lp in self.loops if lp.id != loop.id)
        return replace(self, loops=others + (loop,))

    def to_json(self) -> JSONObject:
        return {"schema": SCHEMA, "session_id": self.session_id, "foreground": self.foreground,
                "loops": [lp.to_json() for lp in self.loops]}

    @classmethod
    def from_json(cls, raw: Any, session_id: str) -> "SessionLoops":
        if not isinstance(raw, dict) or raw.get("session_id") != session_id:
            raise ValueError(f"not the loop state of session {session_id}")
        if not isinstance(raw.get("schema"), int) or raw["schema"] > SCHEMA:
            raise ValueError("loop state written by a newer git-refocus")
        items = raw.get("loops")
        if not isinstance(items, list) or len(items) > MAX_LOOPS:
            raise ValueError(f"loop state must list at most {MAX_LOOPS} loops")
        loops = tuple(Loop.from_json(item) for item in items)
        if any(lp.session_id != session_id for lp in loops):
            raise ValueError("a loop of another session is in this session's state")
        foreground = raw.get("foreground")
        if foreground is not None and not any(lp.id == foreground for lp in loops):
            foreground = None
        return cls(session_id=session_id, foreground=foreground, loops=loops)
