"""Inherited-context bullets for a brief (``spawn --from-transcript``).

5–15 bullets, about 300 words at most, taken from the handoff's sections in
order of value: where the session landed, what the user corrected, what is
still open, the user's constraints, the code state. Each bullet keeps its
pointer. When the caps force a cut the result says so.
"""

from __future__ import annotations

import re
from typing import Any

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from collections.abc import Iterable

    from gitrefocus.handoff.pipeline import Handoff

MIN_BULLETS = 5
MAX_BULLETS = 15
MAX_WORDS = 300

_BULLET_RE = re.compile(r"^\s*[-*]\s+(?:>\s*)?(.*\S)\s*$")
_LABELLED_RE = re.compile(r"^[A-Z][A-Za-z -]{2,40}: ")  # "Final request: ...", "User correction: ..."
_ABSENCE_RE = re.compile(r"^(?:No |None\b|Nothing\b|Stated intents could not be checked|Git state unavailable)")
_PREFIX = {
    "convergence": "Landed",
    "dead_ends": "Dead-end",
    "open_threads": "Open",
    "basics": "Basics",
}


class InheritedContext(tuple[list[str], bool]):
    """``(bullets, cut)``: the bullets (``list[str]``) and whether the caps cut anything.

    Unpacks as a pair (``bullets, cut = inherited_context(...)``) and also offers
    ``.bullets``, ``.cut``, ``.warning`` (a sentence for the user, or None) and
    ``.handoff`` (the full :class:`~gitrefocus.handoff.pipeline.Handoff`).
    """

    warning: str | None
    handoff: Any

    def __new__(cls, bullets: Iterable[str], cut: bool = False, *, warning: str | None = None,
                handoff: Handoff | None = None) -> InheritedContext:
        self = super().__new__(cls, (list(bullets), bool(cut)))
        self.warning = warning
        self.handoff = handoff
        return self

    @property
    def bullets(self) -> list[str]:
        return self[0]

    @property
    def cut(self) -> bool:
        return self[1]


def _bullets(content: str) -> list[str]:
    out = []
    heading = None
    for line in content.split("\n"):
        if line.startswith("#"):
            heading = line.lstrip("#").strip().lower()
            continue
        if line.startswith("**What this is:**"):
            out.append(line.replace("**", ""))
            continue
        m = _BULLET_RE.match(line)
        if not m or "[unsourced]" in line or "more line(s) cut" in line or _ABSENCE_RE.match(m.group(1)):
            continue
        text = m.group(1).replace("**", "")
        if heading and heading.startswith("user corrections"):
            text = "User correction: " + text
        out.append(text)
    return out


def _basics_rank(bullet: str) -> int:
    if bullet.startswith("What this is"):
        return 0
    if bullet.startswith('"'):
        return 1  # a quoted user constraint
    return 3 if "term the user used" in bullet else 2


def _words(text: str) -> int:
    return len(text.split())


def select(sections: dict[str, Any]) -> tuple[list[str], bool]:
    """Pick bullets from section objects (name -> Section); (bullets, cut)."""
    pools = {name: _bullets(section.content) for name, section in sections.items()}
    # within a section, the most load-bearing first: the user's own words, then constraints
    pools["dead_ends"] = sorted(pools.get("dead_ends", []), key=lambda b: not b.startswith("User correction"))
    pools["basics"] = sorted(pools.get("basics", []), key=_basics_rank)
    code = sections.get("code_state")
    code_line = None
    if code is not None:
        head = next((ln for ln in code.content.split("\n") if ln.startswith("Repository")), None)
        state = next((ln for ln in code.content.split("\n") if ln.startswith("State:")), None)
        if head:
            code_line = "Code-state: " + head + (f" — {state[len('State: '):]}" if state else "")
    order = [("convergence", 3), ("dead_ends", 5), ("open_threads", 3), ("basics", 3)]
    chosen: list[str] = []
    for name, take in order:
        for text in pools.get(name, [])[:take]:
            prefix = "" if _LABELLED_RE.match(text) else _PREFIX[name] + ": "
            chosen.append(prefix + text)
    if code_line:
        chosen.insert(min(len(chosen), 6), code_line)
    # top up towards the minimum from whatever is left
    for name, take in order:
        if len(chosen) >= MIN_BULLETS:
            break
        for text in pools.get(name, [])[take:]:
            if len(chosen) >= MIN_BULLETS:
                break
            chosen.append(("" if _LABELLED_RE.match(text) else _PREFIX[name] + ": ") + text)
    cut = False
    if len(chosen) > MAX_BULLETS:
        chosen, cut = chosen[:MAX_BULLETS], True
    while sum(_words(b) for b in chosen) > MAX_WORDS and len(chosen) > MIN_BULLETS:
        chosen.pop()
        cut = True
    total = sum(_words(b) for b in chosen)
    if total > MAX_WORDS:
        cut = True
        trimmed: list[str] = []
        budget = MAX_WORDS
        for b in chosen:
            words = b.split()
            share = max(8, budget // max(1, len(chosen) - len(trimmed)))
            if len(words) > share:
                b = " ".join(words[:share]) + " …"
            budget -= min(len(words), share)
            trimmed.append(b)
        chosen = trimmed
    return chosen, cut


def inherited_context(transcript_path_or_session_id: str, cwd: str | None = None, *,
                      extractor_cmd: str | None = None, use_cache: bool = True) -> InheritedContext:
    """Bullets for a brief's "Inherited context" section, from a transcript.

    Returns ``(bullets, cut)`` as an :class:`InheritedContext`: ``cut`` is True,
    and ``.warning`` says why, when the 15-bullet / ~300-word caps removed anything.
    Raises :class:`~gitrefocus.errors.RefocusError` for a missing or unusable transcript.
    """
    from gitrefocus.handoff.pipeline import handoff

    result = handoff(transcript_path_or_session_id, cwd=cwd, extractor_cmd=extractor_cmd, use_cache=use_cache)
    bullets, cut = select(result.brief.sections)
    warning = None
    if cut:
        warning = (f"inherited context was cut to {len(bullets)} bullet(s) / ~{MAX_WORDS} words; "
                   "the full handoff is available with `git refocus handoff`.")
    elif len(bullets) < MIN_BULLETS:
        warning = f"the transcript yielded only {len(bullets)} inherited-context bullet(s)."
    return InheritedContext(bullets, cut, warning=warning, handoff=result)
