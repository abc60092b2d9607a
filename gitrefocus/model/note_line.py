"""One line of the audit trail in ``refs/notes/refocus``: its grammar, format and parse.

Grammar (one record per line, each complete on its own)::

    record = timestamp SP "refocus" SP id SP event *(SP field)
    field  = key "=" value
    key    = 1*(ALPHA / DIGIT / "_" / "-")
    value  = bare / quoted
    bare   = 1*(any visible character except '"' and '\\')   ; no spaces
    quoted = a JSON string literal

Lines start with the UTC timestamp so ``git notes merge -s cat_sort_uniq``
keeps them valid and in time order. Example, as ``git log --notes=refocus``
shows it::

    2026-04-26T19:23:00Z refocus 2026-04-26-mcp-standard-a3f91c spawned role=source status=reserved dest=/home/me/mcp
"""

from __future__ import annotations

import json
import re

from gitrefocus.model.records import dataclass, field

_KEY_RE = re.compile(r"^[A-Za-z0-9_-]+\Z")
_BARE_RE = re.compile(r'^[^\s"\\]+$')
_LINE_RE = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z) refocus (\S+) (\S+)((?: .*)?)\Z")
_FIELD_RE = re.compile(r' ([A-Za-z0-9_-]+)=("(?:[^"\\]|\\.)*"|[^\s"\\]+)')


@dataclass(frozen=True)
class NoteRecord:
    at: str
    refocus_id: str
    event: str
    fields: dict[str, str] = field(default_factory=dict)

    def format(self) -> str:
        parts = [self.at, "refocus", self.refocus_id, self.event]
        for key, value in self.fields.items():
            if not _KEY_RE.fullmatch(key):
                raise ValueError(f"bad note key {key!r}")
            value = str(value)
            parts.append(f"{key}={value if _BARE_RE.fullmatch(value) else json.dumps(value)}")
        return " ".join(parts)


def parse_line(line: str) -> NoteRecord | None:
    """Parse one note line; None when the line is not a refocus record."""
    m = _LINE_RE.match(line.rstrip("\n"))
    if not m:
        return None
    rest, fields, pos = m.group(4), {}, 0
    while pos < len(rest):
        fm = _FIELD_RE.match(rest, pos)
        if not fm:
            return None
        raw = fm.group(2)
        try:
            fields[fm.group(1)] = json.loads(raw) if raw.startswith('"') else raw
        except ValueError:
            return None
        pos = fm.end()
    return NoteRecord(at=m.group(1), refocus_id=m.group(2), event=m.group(3), fields=fields)


def parse(text: str) -> list[NoteRecord]:
    return [r for r in (parse_line(line) for line in text.splitlines()) if r is not None]
