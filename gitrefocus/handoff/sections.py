"""The five section objects of the handoff (docs/handoff.md) and their validation contract.

Every extractor, built-in or external, produces one object per section::

    {"section": "convergence|dead_ends|code_state|open_threads|basics",
     "content": "<markdown>",
     "pointers": [{"type": "transcript|commit|file", "ref": "<locator>", "note": "<= 1 line"}]}

External answers go through the handoff skill's defensive steps: a repair pass for
near-JSON, a schema check, and a pointer check. What fails is dropped and the
caller falls back (or renders a placeholder).
"""

from __future__ import annotations

import json
import re

from gitrefocus.model.records import asdict, dataclass, field
from gitrefocus.model.text import without_surrogates

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

# (section value, file name, rendered heading) in the fixed order of the merge contract
SECTION_SPEC = (
    ("convergence", "convergence.json", "## Convergence"),
    ("dead_ends", "dead_ends.json", "## Dead-ends"),
    ("code_state", "code_state.json", "## Code-state"),
    ("open_threads", "open_threads.json", "## Open-threads & conflicts"),
    ("basics", "basics.json", "## Basics"),
)
SECTION_NAMES = tuple(name for name, _, _ in SECTION_SPEC)
HEADINGS = {name: heading for name, _, heading in SECTION_SPEC}
FILES = {name: fname for name, fname, _ in SECTION_SPEC}
POINTER_TYPES = ("transcript", "commit", "file")
PLACEHOLDER = "_(extraction failed — not available)_"
NOTE_CAP = 200
CONTENT_CAP = 20_000

_TRANSCRIPT_REF_RE = re.compile(r"^(?:(?P<file>[A-Za-z0-9._-]+\.jsonl):)?L(?P<a>\d{1,9})(?:-L?(?P<b>\d{1,9}))?$")
_COMMIT_REF_RE = re.compile(r"^[0-9a-f]{4,64}(?::\S+)?$")
_VALID_ESCAPE_RE = re.compile(r'\\(?!["\\/bfnrtu])')


@dataclass(frozen=True)
class Pointer:
    type: str
    ref: str
    note: str = ""

    def locator(self) -> str:
        return f"{self.type}:{self.ref}"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Section:
    section: str
    content: str
    pointers: list[Pointer] = field(default_factory=list)
    origin: str = "builtin"  # "builtin" | "extractor-cmd" | "cache"

    def to_json(self) -> dict[str, Any]:
        return {"section": self.section, "content": self.content,
                "pointers": [p.to_json() for p in self.pointers]}


class SectionRejected(ValueError):
    """An extractor answer that does not meet the contract; the message says why."""


def parse_answer(text: str) -> object:
    """The skill's defensive parse: JSON, else a repaired JSON, else SectionRejected."""
    if not isinstance(text, str) or not text.strip():
        raise SectionRejected("empty answer")
    candidates = [text.strip()]
    fenced = re.search(r"```(?:json)?\s*(.*?)```", text, re.S)
    if fenced:
        candidates.append(fenced.group(1).strip())
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start:end + 1])
    # a single-line reply is asked for: try lines from the last one up
    candidates.extend(line.strip() for line in reversed(text.splitlines()) if line.strip().startswith("{"))
    for candidate in candidates:
        for attempt in (candidate, _VALID_ESCAPE_RE.sub(r"\\\\", candidate)):
            try:
                # a "\ud800" escape parses to a lone surrogate, which the brief cannot hold
                return without_surrogates(json.loads(attempt, strict=False))
            except ValueError:
                continue
    raise SectionRejected("not JSON, even after the repair pass")


def validate(obj: object, expected: str, *, resolve: Callable[[Pointer], bool] | None = None) -> Section:
    """Schema and pointer check for one section object (the handoff skill, steps 2-3).

    ``resolve(pointer) -> bool`` may reject pointers that do not resolve (a line
    that is not in the spine, a commit that does not exist).
    """
    if not isinstance(obj, dict):
        raise SectionRejected("answer is not a JSON object")
    missing = [k for k in ("section", "content", "pointers") if k not in obj]
    if missing:
        raise SectionRejected(f"missing key(s): {', '.join(missing)}")
    if obj["section"] != expected:
        raise SectionRejected(f"section is {str(obj['section'])[:40]!r}, expected {expected!r}")
    content = obj["content"]
    if not isinstance(content, str) or not content.strip():
        raise SectionRejected("content is empty or not a string")
    if not isinstance(obj["pointers"], list):
        raise SectionRejected("pointers is not an array")
    pointers = []
    for raw in obj["pointers"]:
        pointer = _pointer(raw)
        if pointer is None or (resolve is not None and not resolve(pointer)):
            continue
        if pointer not in pointers:
            pointers.append(pointer)
    if len(content) > CONTENT_CAP:
        content = content[:CONTENT_CAP] + "\n[... section cut at %d characters]" % CONTENT_CAP
    return Section(expected, content.strip(), pointers)


def _pointer(raw: object) -> Pointer | None:
    if not isinstance(raw, dict):
        return None
    kind, ref, note = raw.get("type"), raw.get("ref"), raw.get("note", "")
    if kind not in POINTER_TYPES or not isinstance(ref, str):
        return None
    ref = ref.strip()
    if ref.startswith(kind + ":"):
        ref = ref[len(kind) + 1:]
    if not ref or "\n" in ref or len(ref) > 300:
        return None
    if kind == "transcript" and not _TRANSCRIPT_REF_RE.match(ref):
        return None
    if kind == "commit" and not _COMMIT_REF_RE.match(ref):
        return None
    note = " ".join(note.split()) if isinstance(note, str) else ""
    if len(note) > NOTE_CAP:
        note = note[: NOTE_CAP - 1] + "…"
    return Pointer(kind, ref, note)


def transcript_ref_lines(ref: str) -> tuple[str | None, int, int] | None:
    """(file or None, first line, last line) of a transcript ref, or None."""
    m = _TRANSCRIPT_REF_RE.match(ref)
    if not m:
        return None
    a = int(m.group("a"))
    b = int(m.group("b")) if m.group("b") else a
    return m.group("file"), a, max(a, b)


_INLINE_RE = re.compile(r"`?\b(transcript|commit|file):([^\s`()]+)`?")


def inline_pointers(line: str) -> list[Pointer]:
    """The pointers a line of section text cites inline (``transcript:L12``, `` `commit:abc` ``)."""
    return [Pointer(m.group(1), m.group(2).rstrip(".,;")) for m in _INLINE_RE.finditer(line)]
