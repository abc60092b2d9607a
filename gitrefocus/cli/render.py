"""Output: versioned JSON for scripts, text for people, diagnostics on stderr.

Text goes through rich only when the stream is a terminal (and NO_COLOR is
unset); otherwise it is plain, so pipes and tests see exactly what we wrote.
"""

from __future__ import annotations

import json
import os
import sys

JSON_VERSION = 1
JSON_HELP = "Print a versioned JSON object instead of text."  # the --json option of every command


# C0 controls but newline and tab, DEL, C1 controls: what a terminal obeys as a command
_CONTROL = dict.fromkeys([*range(0x00, 0x09), *range(0x0b, 0x20), 0x7f, *range(0x80, 0xa0)])
_CONTROL_TABLE = {c: f"\\x{c:02x}" for c in _CONTROL}


def neutralise(text: str) -> str:
    """``text`` with terminal control characters shown as ``\\xNN`` (SPEC §13): briefs,
    results, transcripts and remote data must not move the cursor, set the window
    title or hide text. (Like git quoting a refname; ``--json`` escapes them already.)"""
    return text.translate(_CONTROL_TABLE) if not text.isprintable() else text


def _use_rich(stream) -> bool:
    return stream.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def emit_json(kind: str, payload: dict) -> None:
    doc = {"version": JSON_VERSION, "kind": kind}
    doc.update(payload)
    sys.stdout.write(json.dumps(doc, ensure_ascii=False, indent=2, sort_keys=False) + "\n")


def echo(text: str = "") -> None:
    sys.stdout.write(neutralise(text) + "\n")


def raw(text: str) -> None:
    """Text as is but for control characters (a prompt, a rendered brief)."""
    sys.stdout.write(neutralise(text))


def error(message: str) -> None:
    _err(f"error: {message}", "bold red")


def warn(message: str) -> None:
    _err(f"warning: {message}", "yellow")


def note(message: str) -> None:
    _err(message, None)


def warnings(messages: list[str]) -> None:
    """The warnings a command's outcome carries, one line each on stderr."""
    for message in messages:
        warn(message)


def notes(messages: list[str]) -> None:
    for message in messages:
        note(message)


def _err(text: str, style: str | None) -> None:
    text = neutralise(text)
    if style and _use_rich(sys.stderr):
        from rich.console import Console

        Console(stderr=True, markup=False, highlight=False).print(text, style=style)
    else:
        sys.stderr.write(text + "\n")


def table(title: str | None, columns: list[str], rows: list[list[str]]) -> None:
    """A table: rich when stdout is a terminal, aligned plain text otherwise."""
    if _use_rich(sys.stdout):
        from rich.console import Console
        from rich.table import Table

        t = Table(title=title, title_justify="left", show_edge=False)
        for col in columns:
            t.add_column(col)
        for row in rows:
            t.add_row(*(neutralise(v) for v in row))
        Console(markup=False, highlight=False).print(t)
        return
    rows = [[neutralise(v) for v in row] for row in rows]
    if title:
        echo(title)
    widths = [max([len(c)] + [len(r[i]) for r in rows]) for i, c in enumerate(columns)]
    echo("  ".join(c.ljust(w) for c, w in zip(columns, widths)).rstrip())
    for row in rows:
        echo("  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip())
