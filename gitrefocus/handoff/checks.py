"""A model's section checked against the transcript and git before the brief trusts it.

Used for every section a model wrote — the five extractor subagents, ``--extractor-cmd`` /
``--extractor claude``, and the warm mode's own account — on top of the seed's validation
contract (``sections.validate``: parse, schema, pointer shape):

* every pointer must resolve: a ``transcript:L<n>`` must name a line the spine holds, a
  ``commit:`` a commit git has, a ``file:`` a path git knows;
* every verbatim quote (in double quotes, 12 characters or more) must be found in the
  transcript: at the line its pointer names, else anywhere (its pointer is then added —
  the warm mode quotes from memory and cannot know line numbers), else it is marked;
* a section whose claims all lack a pointer that resolves is not trusted: finalize shows
  the built-in extractor's section under a marker instead.
"""

from __future__ import annotations

import bisect
import re

from gitrefocus.handoff import spine as sp
from gitrefocus.handoff.sections import (
    Pointer,
    Section,
    SectionRejected,
    inline_pointers,
    parse_answer,
    transcript_ref_lines,
    validate,
)
from gitrefocus.model.records import dataclass, field

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from collections.abc import Callable

QUOTE_MIN = 12
QUOTE_NOT_FOUND = "[quote not found in the transcript]"
_QUOTE_RE = re.compile(r'"([^"\n]{%d,2000})"|“([^”\n]{%d,2000})”' % (QUOTE_MIN, QUOTE_MIN))
_ELLIPSIS_RE = re.compile(r"\s*(?:…|\.\.\.|\[\.\.\.\])\s*")
_FOLD = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "—": "-", "–": "-"})
NOT_CHECKED = frozenset({"code_state"})  # its quotes are git's words (commit subjects), not the transcript's


def normalized(text: str) -> str:
    """Text as quotes are compared: typographic quotes and dashes folded, whitespace collapsed,
    case folded."""
    return " ".join(text.translate(_FOLD).split()).casefold()


_norm = normalized


class TranscriptIndex:
    """The spine's lines and words, for resolving pointers and finding quotes."""

    def __init__(self, messages: list[sp.Message]) -> None:
        self.lines: dict[str, list[int]] = {}     # source ("" = main file) -> sorted lines the spine holds
        self._messages = messages
        self._starts: list[int] = []
        self._labels: list[tuple[str, int]] = []
        self._words: str | None = None
        for message in messages:
            for block in message.blocks:
                self.lines.setdefault(message.source, []).append(block.line)
            if message.last_line > message.line:
                self.lines.setdefault(message.source, []).append(message.last_line)
        for lines in self.lines.values():
            lines.sort()

    @property
    def _text(self) -> str:
        """Every block's words, normalized, one block a line: built on the first quote looked
        up (resolving pointers, all the built-in brief needs, does without it)."""
        if self._words is None:
            texts: list[str] = []
            pos = 0
            for message in self._messages:
                for block in message.blocks:
                    if not block.text:
                        continue
                    words = _norm(block.text if block.kind != sp.ANSWER else f"{block.note or ''} {block.text}")
                    self._starts.append(pos)
                    self._labels.append((message.source, block.line))
                    texts.append(words)
                    pos += len(words) + 1
            self._words = "\n".join(texts)
        return self._words

    def holds(self, source: str, first: int, last: int) -> bool:
        """Whether the spine holds a line of ``source`` within [first, last]."""
        lines = self.lines.get(source)
        if not lines:
            return False
        i = bisect.bisect_left(lines, first)
        return i < len(lines) and lines[i] <= last

    def find(self, quote: str) -> list[tuple[str, int]]:
        """Where (source, line) the quote's words occur, earliest first (each fragment of a
        quote cut with an ellipsis must occur in the same block)."""
        parts = [p for p in (_norm(x) for x in _ELLIPSIS_RE.split(quote)) if len(p) >= 4]
        if not parts:
            return []
        longest = max(parts, key=len)
        found: list[tuple[str, int]] = []
        start = self._text.find(longest)
        while start >= 0 and len(found) < 20:
            i = bisect.bisect_right(self._starts, start) - 1
            end = self._starts[i + 1] - 1 if i + 1 < len(self._starts) else len(self._text)
            block = self._text[self._starts[i]:end]
            if all(p in block for p in parts) and self._labels[i] not in found:
                found.append(self._labels[i])
            start = self._text.find(longest, start + 1)
        return found


@dataclass
class Verdict:
    """What the checks made of one model section."""

    section: Section | None = None
    rejected: str | None = None        # not a valid section at all: placeholder, built-in fallback
    untrusted: str | None = None       # valid, but no claim of it is sourced: built-in fallback, marked
    unresolved: int = 0                # pointers that lead nowhere
    anchored: int = 0                  # verbatim quotes whose pointer finalize added
    quotes_missing: int = 0            # quotes not found in the transcript
    notes: list[str] = field(default_factory=list)


def judge(name: str, answers: list[str], index: TranscriptIndex, resolve: Callable[[Pointer], bool],
          git_words: str = "", origin: str = "extractor") -> Verdict:
    """Accept the first answer that meets the contract, then check it against transcript and git."""
    problem = "empty answer"
    section = None
    for answer in answers:
        try:
            section = validate(parse_answer(answer), name)
            break
        except SectionRejected as exc:
            problem = str(exc)
    if section is None:
        return Verdict(rejected=problem)
    section.origin = origin
    verdict = Verdict()
    cited = {p.locator(): p for p in section.pointers}  # every pointer given, inline or listed
    lines = section.content.split("\n")
    for i, line in enumerate(lines):
        inline = inline_pointers(line)
        cited.update((p.locator(), p) for p in inline)
        if name not in NOT_CHECKED:
            lines[i] = _check_quotes(line, inline, index, resolve, git_words, verdict, section)
    verdict.unresolved = sum(1 for p in cited.values() if not resolve(p))
    section.content = "\n".join(lines)
    section.pointers = [p for p in section.pointers if resolve(p)]
    verdict.section = section
    from gitrefocus.handoff.finalize import enforce_pointers  # (finalize imports this module)

    _, claims, unsourced = enforce_pointers(section, resolve)
    if claims and unsourced == claims:
        verdict.untrusted = (f"none of its {len(cited)} pointer(s) resolve" if cited
                             else "none of its claims carries a pointer")
    if verdict.unresolved:
        verdict.notes.append(f"{verdict.unresolved} pointer(s) did not resolve")
    if verdict.anchored:
        verdict.notes.append(f"{verdict.anchored} quote(s) placed by finalize")
    if verdict.quotes_missing:
        verdict.notes.append(f"{verdict.quotes_missing} quote(s) not found in the transcript")
    return verdict


def _check_quotes(line: str, inline: list[Pointer], index: TranscriptIndex, resolve: Callable[[Pointer], bool],
                  git_words: str, verdict: Verdict, section: Section) -> str:
    added: list[Pointer] = []
    missing = False
    for m in _QUOTE_RE.finditer(line):
        quote = m.group(1) or m.group(2)
        found = index.find(quote)
        if not found:
            if _norm(quote) not in git_words:
                missing = True
            continue
        cited = [p for p in inline if p.type == "transcript" and resolve(p)]
        if any(_covers(p.ref, where) for p in cited for where in found):
            continue
        source, number = found[0]
        pointer = Pointer("transcript", f"{source}:L{number}" if source else f"L{number}", "verbatim quote")
        if pointer not in added and pointer not in inline:
            added.append(pointer)
    if missing and QUOTE_NOT_FOUND not in line:
        verdict.quotes_missing += 1
        line = f"{line} {QUOTE_NOT_FOUND}"
    if added:
        verdict.anchored += len(added)
        line = line + " " + " ".join(f"(`{p.locator()}`)" for p in added)
        section.pointers.extend(p for p in added if p not in section.pointers)
    return line


def _covers(ref: str, where: tuple[str, int]) -> bool:
    parsed = transcript_ref_lines(ref)
    if parsed is None:
        return False
    name, first, last = parsed
    return (name or "") == where[0] and first <= where[1] <= last
