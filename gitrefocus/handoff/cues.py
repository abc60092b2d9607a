"""Cue phrases and verbatim quoting for the built-in (model-free) extractors.

A quote is always an exact substring of the message it came from: sentences
are found by position, never rebuilt, and a long sentence is shortened by
taking a contiguous window around its cue.
"""

from __future__ import annotations

import re

QUOTE_CAP = 200

_SPLIT_RE = re.compile(r"(?<=[.!?])\s+|[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]+")  # every line boundary

# the user overruling the assistant (seed 001 Dead-ends, source 1). Precision first: a plain
# "Stop now.", a new bug report ("the export doesn't work on Windows") or a sentence that merely
# compares ("X rather than Y") is not a correction; see tests/data/cue_corpus.tsv.
CORRECTION_RE = re.compile(
    r"^\W*(?:no(?:pe|pe,)?\b(?![- ](?:worries|problem|rush|need|thanks|longer|one|more|matter|idea|changes?\b))"
    r"|nah\b|wrong\b|not that\b|that'?s not\b|that is not\b)"
    r"|\bthat'?s (?:wrong|incorrect|not (?:it|right|what|how|the))"
    r"|\bnot what I (?:asked|meant|want|said)"
    r"|\b(?:we|I|you) (?:already|just) tried\b|\balready tried\b"
    r"|\bthe (?:real |actual )?(?:issue|problem|bug|cause) is actually\b"
    r"|^\W*actually\b"
    r"|\bI (?:said|told you|asked for|already said)\b"
    r"|\byou(?:'re| are) (?:wrong|mistaken|confusing)"
    r"|\b(?:that|this|it|your (?:fix|change|patch|approach|code|solution|version)|the (?:fix|change|patch))"
    r"(?: still)? (?:doesn'?t|didn'?t|does not|did not|won'?t|will not) (?:work|help|fix)"
    r"|\bstill (?:doesn'?t|does not|didn'?t|isn'?t|is not) (?:work|fixed|right|working)"
    r"|\b(?:please )?don'?t (?:do|use|add|change|touch|create|remove|delete|rename|make|write|run|bother)\b"
    r"|\bdo not (?:do|use|add|change|touch|create|remove|delete|rename|make|write|run)\b"
    r"|\bplease (?:don'?t|do not|stop)\b|\bstop (?:doing|using|adding|changing|touching|editing)\b"
    r"|\b(?:revert|undo) (?:that|this|it|the|your)\b"
    r"|^\W*(?:please )?(?:just )?(?:use|keep|go with|switch to|try|do|make|write|call|put)\b[^.!?]*"
    r"\b(?:instead of|rather than|not)\b"
    r"|\binstead\W*$|\bwrong (?:file|place|approach|repo|branch|function|module)\b",
    re.I,
)
# a standing rule the user set (Basics, Constraints)
CONSTRAINT_RE = re.compile(
    r"\b(?:must(?:n'?t| not)?|never|always|do not|don'?t|no new|only (?:use|touch|change)|"
    r"make sure|required|requirement|avoid|without (?:adding|using|changing|touching)|"
    r"keep (?:it|the|this|them)\b|has to|have to|needs? to be|should never|is not allowed|not allowed)\b",
    re.I,
)
# the assistant dropping a hypothesis (Dead-ends, source 2). "rather than" alone only compares.
ABANDON_RE = re.compile(
    r"\b(?:actually(?=,)|wait(?=[,.!])|that'?s not it|that isn'?t it|let me try a different approach|"
    r"(?:a |another )different approach|scratch that|I was wrong|on second thought|"
    r"(?:that|this|it) (?:didn'?t|doesn'?t|did not|does not) (?:work|help|fix)|my mistake|"
    r"I apologi[sz]e|you'?re (?:right|correct)|you are (?:right|correct)|turns out|"
    r"(?:is|was|isn'?t|wasn'?t) not the (?:cause|issue|problem|culprit)|(?:is|was)n'?t the (?:cause|issue|problem|culprit)|"
    r"ruled? (?:it |that |this )?out|red herring|dead end|won'?t work|"
    r"wrong (?:assumption|hypothesis|approach)|abandon(?:ing)? (?:this|that|the)|giving up on)\b",
    re.I,
)
# a conclusion or decision (Convergence)
DECISION_RE = re.compile(
    r"\b(?:(?:the )?root cause(?: is| was|:)|the (?:real |actual )?(?:issue|problem|bug|cause|culprit) (?:is|was)|"
    r"the fix (?:is|was)|fixed (?:by|it)|(?:I|we) (?:decided|chose|settled)|decision:|"
    r"(?:we'?ll|we will|let'?s) (?:go with|use|keep|stick with)|going with|the answer is|"
    r"(?:I'?ll|I will|I'?m going to) (?:use|go with|switch to|stick with)|switching to|"
    r"in conclusion|this (?:means|explains)|that explains|confirmed|works now|now passes?|all tests pass)\b",
    re.I,
)
_CHANGE_VERBS = (r"(?:add|extract|implement|write|fix|create|refactor|update|remove|delete|rename|move|"
                 r"change|commit|document|wire|split|replace|migrate|port|build|test|clean(?: up)?|handle|"
                 r"introduce|drop|make|finish|complete|restore|revert)")
# a stated intention (Open-threads, M5)
INTENT_RE = re.compile(
    r"(?:\b(?:I'?ll|I will|we'?ll|we will|(?:I'?m|we'?re|I am|we are) going to|plan to|we should|"
    r"I should|next,? (?:I'?ll|we'?ll|I will|we will|we|I)|still need to|needs? to)\s+(?:\w+\s+)?"
    + _CHANGE_VERBS + r"(?:e?d)?\b|\b(?-i:TODO)\b)",
    re.I,
)
# unfinished business near the end (Open-threads)
OPEN_RE = re.compile(
    r"\b(?:(?-i:TODO|FIXME)|next steps?|remaining|still (?:need|needs|fails?|failing|broken|open)|not yet|"
    r"left to do|follow[- ]up|blocked|blocker|unable to|couldn'?t|could not|open question|unresolved|"
    r"haven'?t (?:yet )?(?:been )?|have not|not (?:done|finished|implemented)|pending)\b",
    re.I,
)
# text that tries to instruct whoever reads it (seed 001 SECURITY)
INJECTION_RE = re.compile(
    r"\b(?:ignore|disregard|forget) (?:all |any |the |your )*(?:previous|prior|above|earlier|preceding)\b"
    r"|\bnew (?:instructions?|directives?|system prompt)\b|\bsystem prompt\b|\byou are now\b"
    r"|\bdeveloper mode\b|\bjailbreak|<\s*/?\s*(?:command-name|system|instructions?|assistant|user)\b"
    r"|\b(?:curl|wget)\s+\S+\s*\|\s*(?:ba)?sh\b|\brm -rf /",
    re.I,
)


class Cue:
    """A cue regex behind a cheap gate: every match contains one of ``keys`` (casefolded),
    so a sentence without any of them is skipped without running the regex."""

    def __init__(self, regex: re.Pattern, keys: tuple[str, ...]):
        self.regex = regex
        self.keys = keys

    def search(self, sentence: str, lowered: str | None = None):
        low = sentence.casefold() if lowered is None else lowered
        for key in self.keys:
            if key in low:
                return self.regex.search(sentence)
        return None


CORRECTION = Cue(CORRECTION_RE, ("no", "nah", "wrong", "stop", "tried", "actually", "i said", "told you",
                                 "asked for", "mistaken", "confusing", "work", "help", "fix", "don", "revert",
                                 "undo", "instead", "rather", "not", "incorrect", "already said", "still"))
CONSTRAINT = Cue(CONSTRAINT_RE, ("must", "never", "always", "do not", "don", "no new", "only", "make sure",
                                 "required", "requirement", "avoid", "without", "keep", "has to", "have to",
                                 "need", "not allowed"))
ABANDON = Cue(ABANDON_RE, ("actually", "wait", "not it", "isn't it", "isnt it", "different approach", "scratch",
                           "was wrong", "second thought", "work", "help", "fix", "mistake", "apologi", "right",
                           "correct", "turns out", "the cause", "the issue", "the problem", "the culprit", "rule",
                           "red herring", "dead end", "won", "wrong", "abandon", "giving up"))
DECISION = Cue(DECISION_RE, ("root cause", "issue", "problem", "bug", "cause", "culprit", "the fix", "fixed",
                             "decided", "chose", "settled", "decision", "go with", "use", "keep", "stick with",
                             "going with", "the answer", "conclusion", "means", "explains", "confirmed",
                             "works now", "now pass", "tests pass", "switch", "i'll", "i will", "going to"))
INTENT = Cue(INTENT_RE, ("ill", "i'll", "i will", "we'll", "well", "we will", "going to", "plan to", "should",
                         "next", "need", "todo"))
OPEN = Cue(OPEN_RE, ("todo", "fixme", "next step", "remaining", "still", "not yet", "left to do", "follow",
                     "blocked", "blocker", "unable", "couldn", "could not", "open question", "unresolved",
                     "haven", "have not", "not done", "not finished", "not implemented", "pending"))
INJECTION = Cue(INJECTION_RE, ("ignore", "disregard", "forget", "instruction", "directive", "system prompt",
                               "you are now", "developer mode", "jailbreak", "<", "curl", "wget", "rm -rf"))

STOPWORDS = frozenset(
    "a an the and or but if then so to of in on at by for with from into onto that this these those it its "
    "is are was were be been being do does did have has had i we you he she they me us our your my "
    "will would should could can may might must not no yes just also then than there here what which "
    "who how why when where all any some more most other such only own same too very s t ll ve re d "
    "let lets let's make sure need needs add fix use using file files code next now".split()
)
_WORD_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
PATH_RE = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.[A-Za-z][A-Za-z0-9]{0,7})(?![\w/])")
_IDENT_RE = re.compile(r"`([^`\n]{2,80})`|\b([a-z]+_[a-z0-9_]+|[A-Z][A-Z0-9]*_[A-Z0-9_]+|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]+)\b")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence or line of ``text``, whitespace-trimmed."""
    spans = []
    pos = 0
    for m in _SPLIT_RE.finditer(text):
        spans.append((pos, m.start()))
        pos = m.end()
    spans.append((pos, len(text)))
    out = []
    for a, b in spans:
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if b > a:
            out.append((a, b))
    return out


def window(text: str, start: int, end: int, cue: tuple[int, int] | None = None,
           cap: int = QUOTE_CAP) -> tuple[str, bool, bool]:
    """An exact substring of text[start:end] of at most ``cap`` characters, kept
    around ``cue``; returns (quote, cut_before, cut_after)."""
    if end - start <= cap:
        return text[start:end], False, False
    centre = cue[0] if cue else start
    a = max(start, centre - cap // 3)
    b = min(end, a + cap)
    a = max(start, b - cap)
    # snap to word boundaries inside the window
    if a > start:
        space = text.find(" ", a, a + 30)
        if space != -1 and space + 1 < b:
            a = space + 1
    if b < end:
        space = text.rfind(" ", a, b)
        if space > a + cap // 2:
            b = space
    return text[a:b], a > start, b < end


def quote_md(quote: str, cut_before: bool = False, cut_after: bool = False) -> str:
    """A verbatim quote for markdown: the exact substring in quotes, cuts shown outside."""
    return ("…" if cut_before else "") + '"' + quote + '"' + ("…" if cut_after else "")


def significant_words(text: str) -> set[str]:
    return {w.lower() for w in _WORD_RE.findall(text) if w.lower() not in STOPWORDS}


def mentioned_paths(text: str) -> list[str]:
    out = []
    for m in PATH_RE.finditer(text):
        path = m.group(1).strip(".")
        if path and path not in out and not re.fullmatch(r"[\d.]+", path) and not path.startswith("e.g"):
            out.append(path)
    return out


def identifiers(text: str) -> list[str]:
    out = []
    for m in _IDENT_RE.finditer(text):
        token = (m.group(1) or m.group(2) or "").strip()
        if token and token not in out and len(token) <= 80:
            out.append(token)
    return out


def looks_like_injection(text: str, lowered: str | None = None) -> bool:
    return bool(INJECTION.search(text, lowered))
