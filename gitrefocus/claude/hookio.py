"""Reading hook input and writing hook output, cheaply and never blocking."""

from __future__ import annotations

import json
import os
import select
import sys

MAX_INPUT = 8 * 1024 * 1024
MAX_DEPTH = 64  # hook payloads nest a few levels; deeper input is refused before it reaches the parser
CONTEXT_LIMIT = 10_000


def read_input(timeout: float = 1.0, stream=None) -> dict:
    """The hook's stdin JSON; {} when there is none or it is not a JSON object
    within :data:`MAX_INPUT` bytes and :data:`MAX_DEPTH` levels of nesting. Stdin
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


def _parse(raw: bytes) -> dict | None:
    if _depth(raw) > MAX_DEPTH:
        return None
    try:
        data = json.loads(raw.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


_OPEN, _CLOSE, _QUOTE, _ESCAPE = frozenset(b"[{"), frozenset(b"]}"), ord('"'), ord("\\")


def _depth(raw: bytes) -> int:
    """How deep brackets nest in ``raw``, outside strings (one pass, no parser)."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == _ESCAPE:
                escaped = True
            elif byte == _QUOTE:
                in_string = False
        elif byte == _QUOTE:
            in_string = True
        elif byte in _OPEN:
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_DEPTH:
                    return deepest
        elif byte in _CLOSE:
            depth -= 1
    return deepest


def session_start_output(context: str) -> str:
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
