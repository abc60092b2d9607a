"""Text shown to a person: control characters made visible
(docs/ARCHITECTURE.md, "Trust boundaries").

Briefs, results, transcripts and whatever a remote sent may carry escape
sequences; printed raw (or written into a file a person ``cat``\\s, such as
INDEX.md) they would move the cursor, set the window title or hide text.
Text parsed from JSON may hold what no file can: see :func:`strict_json`.
"""

from __future__ import annotations

import json
import re

TYPE_CHECKING = False  # no `typing` at run time: hooks import this module
if TYPE_CHECKING:
    from typing import TypeVar

    _T = TypeVar("_T")

# C0 controls but newline and tab, DEL, C1 controls: what a terminal obeys as a command
_CONTROL = dict.fromkeys([*range(0x00, 0x09), *range(0x0b, 0x20), 0x7f, *range(0x80, 0xa0)])
_CONTROL_TABLE = {c: f"\\x{c:02x}" for c in _CONTROL}
_LINE_TABLE = {**_CONTROL_TABLE, 0x0a: "\\x0a", 0x09: "\\x09"}


def neutralise(text: str) -> str:
    """``text`` with terminal control characters shown as ``\\xNN`` (like git
    quoting a refname; ``--json`` escapes them already)."""
    return text.translate(_CONTROL_TABLE) if not text.isprintable() else text


def one_line(text: str) -> str:
    """:func:`neutralise`, newlines and tabs too: a value inside one line (a table cell)."""
    return text.translate(_LINE_TABLE) if not text.isprintable() else text


# -- JSON from outside: text that UTF-8 can hold -------------------------------------------------
# json.loads takes a "\ud800" escape (and, from bytes, a surrogate written as UTF-8 bytes) and
# hands on a lone surrogate: a str no file, note, ref or sqlite row can take, so one such value
# fails whatever command writes it out, far from where it came in.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def strict_json(data: bytes | str) -> object:
    """The JSON value in ``data``, or ValueError where it is not text UTF-8 can hold: bytes
    that do not decode strictly (UnicodeDecodeError), or a lone surrogate escape (``"\\ud800"``).
    The encodings are json.loads's own (UTF-8 with or without a BOM, UTF-16, UTF-32), but strict
    where it would pass surrogates through. For what this tool wrote and reads back from elsewhere
    (an event blob from a remote)."""
    if isinstance(data, bytes):
        text = data.decode(json.detect_encoding(data))  # a strict decoder: no surrogate gets through
        value = json.loads(text)
        lone = _SURROGATE_ESCAPE.search(text) is not None and _holds_surrogate(value)
    else:
        value = json.loads(data)
        lone = holds_lone_surrogate(data, value)
    if lone:
        raise ValueError("it holds a lone surrogate escape, which is not text")
    return value


def holds_lone_surrogate(text: str, value: object) -> bool:
    """Whether ``value``, parsed from the JSON ``text``, holds a lone surrogate (cheap when
    ``text`` has no surrogate, as a character or as an escape)."""
    return _LONE_SURROGATE.search(text) is not None or (
        _SURROGATE_ESCAPE.search(text) is not None and _holds_surrogate(value))


def replaced_json(data: bytes) -> object:
    """The JSON value in ``data`` read as a person's tool reads text: bytes that are not UTF-8
    and lone surrogate escapes become U+FFFD. For input this tool takes as it comes (hook stdin)."""
    text = data.decode("utf-8", "replace")
    value = json.loads(text)
    return without_surrogates(value) if _SURROGATE_ESCAPE.search(text) else value


def without_surrogates(value: _T) -> _T:
    """``value`` (a parsed JSON value) with every lone surrogate, in keys too, as U+FFFD."""
    out: object = value
    if isinstance(value, str):
        out = _LONE_SURROGATE.sub("\ufffd", value)
    elif isinstance(value, list):
        out = [without_surrogates(v) for v in value]
    elif isinstance(value, dict):
        out = {without_surrogates(k): without_surrogates(v) for k, v in value.items()}
    return out  # type: ignore[return-value]  # the same shape, rebuilt


def _holds_surrogate(value: object) -> bool:
    if isinstance(value, str):
        return _LONE_SURROGATE.search(value) is not None
    if isinstance(value, list):
        return any(_holds_surrogate(v) for v in value)
    if isinstance(value, dict):
        return any(_holds_surrogate(k) or _holds_surrogate(v) for k, v in value.items())
    return False
