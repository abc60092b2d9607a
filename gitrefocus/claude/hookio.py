"""Reading hook input and writing hook output, cheaply and never blocking."""

from __future__ import annotations

import json
import os
import select
import sys
import time

from gitrefocus.model.text import replaced_json

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TextIO

MAX_INPUT = 8 * 1024 * 1024
CONTEXT_LIMIT = 10_000
STARTED = time.monotonic()  # about when the hook began: dispatch imports this module first


def read_input(timeout: float = 1.0, stream: TextIO | None = None) -> dict[str, Any]:
    """The hook's stdin JSON; {} when there is none or it is not a JSON object
    within :data:`MAX_INPUT` bytes and the decoder's nesting limit. Stdin
    may never close, so read with a deadline and stop as soon as a complete JSON
    object arrived."""
    stream = stream or sys.stdin
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return {}
    if os.isatty(fd):
        return {}
    chunks: list[bytes] = []
    size = 0
    while size < MAX_INPUT:
        ready, _, _ = select.select([fd], [], [], timeout)
        if not ready:
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if chunk.rstrip().endswith(b"}"):  # an object can only be complete here: no parse per chunk
            data = _parse(b"".join(chunks))
            if data is not None:
                return data
        timeout = min(timeout, 0.2)
    return _parse(b"".join(chunks)[:MAX_INPUT]) or {}


def _parse(raw: bytes) -> dict[str, Any] | None:
    # json's C decoder bounds nesting itself (RecursionError past the interpreter's limit),
    # at no cost to the large payloads PostToolUse carries
    try:
        # bytes that are not UTF-8 and "\ud800" escapes alike become U+FFFD: a lone surrogate
        # in a session id or cwd failed the hook where it wrote the value out
        data = replaced_json(raw)
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


class Reply:
    """A hook's stdout and what to do once it has been written there.

    The SessionStart hook marks a result received only after the text naming it is on
    its stdout (``delivered``); if the write fails, or the hook dies first, the result
    is still waiting and the next session is told it."""

    __slots__ = ("text", "delivered")

    def __init__(self, text: str, delivered: Callable[[], list[str]] | None = None) -> None:
        self.text = text
        self.delivered = delivered  # a callable, or None


def write_stdout(text: str, stream: TextIO | None = None) -> None:
    """Write ``text`` to stdout and flush it; raise when it could not be written."""
    stream = stream or sys.stdout
    stream.write(text)
    stream.flush()


def session_start_output(context: str) -> str:
    """The SessionStart JSON. Callers size the context to :data:`CONTEXT_LIMIT`
    themselves (what they cut, and what they name, is theirs to choose); this cut
    is the last resort."""
    if len(context) > CONTEXT_LIMIT:
        context = context[: CONTEXT_LIMIT - 80].rstrip() + "\n[git refocus: cut to stay under the 10,000-character hook limit]"
    return json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": context}})


def append_env(lines: dict[str, str]) -> bool:
    """Append ``export NAME=value`` lines to $CLAUDE_ENV_FILE; False if unset."""
    import shlex

    path = os.environ.get("CLAUDE_ENV_FILE")
    if not path:
        return False
    with open(path, "a", encoding="utf-8") as fh:
        for name, value in lines.items():
            fh.write(f"export {name}={shlex.quote(value)}\n")
    return True
