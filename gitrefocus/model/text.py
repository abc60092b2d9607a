"""Text shown to a person: control characters made visible
(docs/ARCHITECTURE.md, "Trust boundaries").

Briefs, results, transcripts and whatever a remote sent may carry escape
sequences; printed raw (or written into a file a person ``cat``\\s, such as
INDEX.md) they would move the cursor, set the window title or hide text.
"""

from __future__ import annotations

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
