"""Cue phrases and verbatim quoting for the built-in (model-free) extractors.

A quote is always an exact substring of the message it came from: sentences
are found by position, never rebuilt, and a long sentence is shortened by
taking a contiguous window around its cue.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from re import Match

    from ahocorasick_rs import AhoCorasick

QUOTE_CAP = 200

# a sentence ends at whitespace after . ! or ?, or at any line boundary; found by a charset scan
# (fast in re) and checked at each hit, the same splits as r"(?<=[.!?])\s+|[<line breaks>]+"
_BOUNDARY_RE = re.compile(r"[.!?\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
_SPACE_RUN_RE = re.compile(r"\s+")
_BREAK_RUN_RE = re.compile(r"[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]+")

# Cue phrases, tuned on the tuning half of the real-session corpus (tests/data/handoff_corpus; the
# held-out half was never used to tune them) and on the hand-written tests/data/cue_corpus.tsv.
# Each family recognises forms, never topics: who says what about whose work.

# the user overruling the assistant (the handoff skill's Dead-ends, source 1). Precision first: a plain
# "Stop now.", a new bug report ("the export doesn't work on Windows") or a sentence that merely
# compares ("X rather than Y") is not a correction.
# "no" said as an answer ("No, use the other branch.", "no wait, …", "no that's the old one"), not as a
# determiner opening a statement ("No prompt context is shown to the user", "No external dependencies"):
# the interjection is followed by punctuation, the sentence's end, or a word that starts a clause
NO_INTERJECTION = (r"no(?![\w'-])(?=\W*$|\s*[,.!;:—–]|\s+-\s|\s+(?:I|I'm|I'd|we|we're|you|you're|it|it's|that|that's|"
                   r"thats|this|they|he|she|the|just|not|don'?t|dont|do|use|please|wait|actually|no|stop|sorry|but|"
                   r"because|why|wrong|keep|leave|revert|undo)\b)")
CORRECTION_RE = re.compile(
    r"^\W*(?:" + NO_INTERJECTION + r"|nope\b"
    r"|nah\b|wrong\b|not that\b|that'?s not\b|that is not\b)"
    r"|\bthat'?s (?:wrong|incorrect|not (?:it|right|what|how|the))"
    r"|\bnot what I (?:asked|meant|want|said)"
    r"|\b(?:we|I|you) (?:already|just) tried\b(?! to)|\balready tried\b(?! to)"
    r"|\bthe (?:real |actual )?(?:issue|problem|bug|cause) is actually\b"
    r"|^\W*actually\b"
    r"|\bI (?:said|told you|asked for|already said)\b|\bmy point (?:is|was)\b"
    r"|\byou(?:'re| are) (?:wrong|mistaken|confusing)"
    r"|\b(?:(?:is|are|was|were|that'?s|it'?s) not|isn'?t|aren'?t) (?:correct|right|true|what)\b"
    r"|\b(?:that|this|it|your (?:fix|change|patch|approach|code|solution|version)|the (?:fix|change|patch))"
    r"(?: still)? (?:doesn'?t|didn'?t|does not|did not|won'?t|will not) (?:work|help|fix)"
    r"|\bstill (?:doesn'?t|does not|didn'?t|isn'?t|is not) (?:work|fixed|right|working)"
    r"|\b(?:it|this|that)(?:'s| is) still (?:\w+ing|there|broken|failing|wrong)\b"
    r"|\b(?:it'?s|it is|we'?re|we are|you'?re|you are) not (?:adding|saving|doing|showing|writing|using|passing|"
    r"calling|reading|running|working|handling|setting|sending)\b"
    r"|(?<!that )(?<!which )(?<!who )\b(?:please )?don'?t (?:do|use|add|change|touch|create|remove|delete|rename|make|write|"
    r"run|bother)\b"
    r"|\bdo not (?:do|use|add|change|touch|create|remove|delete|rename|make|write|run)\b"
    r"|\bplease (?:don'?t|do not|stop)\b|\bstop (?:doing|using|adding|changing|touching|editing)\b"
    r"|\b(?:revert|undo) (?:that|this|it|the|your)\b"
    r"|^\W*(?:please )?(?:just )?(?:use|keep|go with|switch to|try|do|make|write|call|put)\b[^.!?]*"
    r"(?:\binstead of|\brather than|, not)\b"
    r"|\b(?:can'?t|couldn'?t|shouldn'?t|why (?:don'?t|not|aren'?t|are|do|did|is)) we\b[^.!?]*\b(?:instead|just|not)\b"
    r"|\bnot (?:as|in|on|for|with) (?:a|an|the) \w+,? but\b"
    r"|\bI would (?:replace|change)\b"
    r"|\bwe (?:do|did) (?:have|use|need)\b|\bwe (?:don'?t|do not) have an?\b"
    r"|\bit was (?:there|working|fine|right) before\b"
    r"|\binstead\W*$|\bwrong (?:file|place|approach|repo|branch|function|module)\b"
    # challenging what the assistant claimed or built: "have you made it up?", "do we need that?"
    r"|\bmade (?:it|that|this|them) up\b"
    r"|^\W*do we (?:really |even )?need (?:that|this|it|those|these)\W*$"
    r"|\b(?:we|I) (?:don'?t|do not) need (?:the|that|this|those|these|it)\b"
    # redirecting to what exists: "it should use the existing helper instead of duplicating ..."
    r"|\bshould (?:use|call|reuse) (?:the |our )?existing\b|\bshould (?:use|call|reuse)\b[^.!?]*\binstead of\b",
    re.I,
)
# a standing rule the user set (Basics, Constraints)
CONSTRAINT_RE = re.compile(
    r"\b(?:must(?:n'?t| not)?|always|no new|only (?:use|touch|change)|"
    r"make sure|required|requirement|avoid|without (?:adding|using|changing|touching)|"
    r"keep (?:it|the|this|them|our|your)\b|has to|have to|needs? to be|should never|is not allowed|not allowed|"
    r"(?:on|off|enabled|disabled) by default|should (?:not|be|only|always|stay|remain)|(?-i:NOT) have|"
    r"(?:I|we) (?:don'?t|do not) (?:want|need)|(?:I|we) (?:want|need) (?:it |this |that |them )?(?:to be|only)|"
    r"(?:I|we) want to (?:use|keep|have)|I (?:just |only )?want to \w+ (?:the user|users|only|about)|"
    r"only (?:the )?first (?:time|run)|let people|opt[- ]out)\b"
    r"|^\W*(?:please )?(?:do not|don'?t)\b|(?:\.|,|;|and|but|please)\s+(?:do not|don'?t) (?!see|know|think|get|have|"
    r"understand)\w+"
    # an imperative "Keep X" / "No changes to X" heading a line of the user's plan
    r"|^\W*(?:please )?keep\b|^\W*no changes? to\b"
    # "never" as a rule: an imperative ("Never commit …"), after a modal or a person ("we never push
    # to main", "you must never log it"); describing what the code does ("the hook never fires", "edits
    # are never captured") sets no rule, nor does "never mind"
    r"|(?:^\W*|[,;:(]\s*|\b(?:must|should|shall|will|can|could|would|to|please|we|you|I|just|also)\s+)never\b"
    r"(?!\W*mind)",
    re.I,
)
# a claim of the assistant's taken back: "The re-exports are actually needed — …" after calling them
# dead code (not a check: "let me see if it is actually used", "… how it is actually used", nor a
# lead-in or a question)
RETRACTED = (r"|^(?![^.!?]*\b(?:if|whether|how|what|which|where|why)\b)[^?]*?\b(?:is|are|was|were) actually (?:needed|used|required|"
             r"necessary)\b(?![^\n]*[:?][\W_]*$)")
# the assistant dropping a hypothesis or conceding a correction (Dead-ends, source 2). "rather
# than" alone only compares.
ABANDON_RE = re.compile(
    r"\b(?:actually(?=,)|wait(?=[,.!])(?![^.!?]*\?)|that'?s not it|that isn'?t it|let me try a different approach|"
    r"(?:a |another )different approach|scratch that|I was wrong|on second thought|"
    r"(?:that|this|it) (?:didn'?t|doesn'?t|did not|does not) (?:work|help|fix)|my mistake|"
    r"I apologi[sz]e|you'?re (?:right|correct)|you are (?:right|correct)|good (?:point|catch|call)|turns out|"
    r"(?:is|was|isn'?t|wasn'?t) not the (?:cause|issue|problem|culprit)|(?:is|was)n'?t the (?:cause|issue|problem|culprit)|"
    r"is actually (?:fine|correct|ok|right)|ruled? (?:it |that |this )?out|red herring|dead end|won'?t work|"
    r"wrong (?:assumption|hypothesis|approach)|abandon(?:ing)? (?:this|that|the)|giving up on|I made (?:that|it) up|"
    # an option judged and dropped, an attempt explained as failed, a concern found to be nothing
    r"(?:is|would be|seems|'s) (?:overkill|over-?engineer(?:ed|ing)|(?:too )?risky)|failed because|"
    r"(?:is|was) a non-issue|defeats the purpose|buys (?:us )?nothing)\b"
    + RETRACTED,
    re.I,
)
# a conclusion, a decision or a confirmed outcome (Convergence)
DECISION_RE = re.compile(
    r"\b(?:(?:the )?root cause(?: is| was|: *\w)|(?<!when )(?<!where )(?<!how )(?<!why )the (?:real |actual )?"
    r"(?:issue|problem|bug|cause|culprit) (?:is|was)\b(?! *:)|"
    r"the fix (?:is|was|ensures|has been)|fixed (?:by|it)|(?:I|we) (?:decided|chose|settled)|decision:|"
    r"(?:we'?ll|we will|let'?s) (?:go with|use|keep|stick with)|(?:I'?m|we'?re|I am|we are) going with|the answer is|"
    r"(?:I'?ll|I will|I'?m going to) (?:use|go with|switch to|stick with|put)|switching to|"
    r"in conclusion|this (?:means|explains)|that explains|confirmed|works now|(?:is|are) working now|now passes?|"
    r"(?:tests?|build|lint|linting|suite|strategies|checks) (?:all |both )?(?:pass(?:es|ed|ing)?|succeeded)|"
    r"(?:tests?|build|lint|linting|suite|strategies|checks) (?:all )?(?:is|are) clean|"
    r"all (?:\w+ )?(?:tests )?(?:pass(?:es|ing)?|green)|lint is clean|"
    r"(?:is|are) now (?!going)|now (?:uses|calls|sends|shows|reads|includes|takes|returns|creates|has|only|correctly|"
    r"properly|defined|clean)|(?:has|have) been (?:\w+ly )?(?:applied|fixed|addressed|resolved|deleted|removed|updated|"
    r"added|merged|pushed|committed)|(?<!not )(?<!be )(?<!been )committed(?: as|: *`?\w+)|(?:is|are) (?:complete|done|clean|resolved|addressed)(?: and pushed)?|"
    r"(?:already|now) (?:fixed|addressed|resolved|imported|handled|covered)|this fixes|no (?:\w+ )?(?:issue|problem)s?\b"
    r"(?: remains?)?|there it is|(?:that'?s|this is) where)\b"
    r"|^\W*(?:yes|yeah|yep|ok(?:ay)?|sure)\b,?\s+(?:let'?s|go|do|please|add|use|implement|fix|force|\w+ it\b)"
    r"|\blet'?s (?:implement|do|go with|note|take) (?:option|options|both)\b"
    # outcomes and judgements said without the words above
    r"|\b(?:builds|compiles) (?:and|clean(?:ly)?)\b|\b(?:conflicts?|merge) (?:resolved|complete)\b|\bpasses (?:lint|linting|the tests|tests|CI)\b|^\W*works\b"
    r"|\b(?:is|was) a non-issue\b|(?<!which )\b(?:is|are) (?:also )?(?:fine|correct) as[- ]is\b"
    r"|\bthe current (?:code|approach|implementation|behaviou?r|version) is (?:fine|correct|better|right|safe)\b"
    r"|\b(?:PR|pull request) #?\d+ (?:created|opened|merged)\b|\b(?:created|opened) (?:a |the )?(?:draft )?"
    r"(?:PR|pull request)\b"
    # nothing left of a kind ("No conflicts to resolve.", "No new duplication from our changes."), an
    # outcome as expected, an approach judged right
    r"|^[\s*_>-]*no (?:new |more |other |remaining |active |unaddressed |open )?(?:[\w-]+ ){0,2}(?:remains?|"
    r"remaining|left|to (?:resolve|fix|address)|from (?:our|the|my|these|this) change)"
    r"|^[\s*_>-]*no (?:[\w-]+ )?(?:conflicts?|duplicat\w+|issues?|problems?|regressions?|errors?|failures?)"
    r"(?: [\w-]+){0,4}[.!]?$"
    r"|\b(?:fail(?:s|ed)?|pass(?:es|ed)?|works?|worked) as expected\b|\b(?:correct|right) (?:approach|fix)\b",
    re.I,
)
_CHANGE_VERBS = (r"(?:add|extract|implement|write|fix|create|refactor|update|remove|delete|rename|move|"
                 r"change|commit|document|wire|split|replace|migrate|port|build|test|clean(?: up)?|handle|"
                 r"introduce|drop|make|finish|complete|restore|revert|modify|address|stage|consolidate|include|"
                 r"resolve|merge|push|rebase|apply|override|convert|simplify|tackle|sort out|record|"
                 r"append|import|generate|put|populate|set up|adjust|amend|inline)")
# what follows a change verb when it is not a change to the work: a todo list, a plan, a report
_NOT_WORK = (r"(?! (?:the |your |a |an )?(?:todo list|plan\b|(?:final |implementation )?plan|down\b)|"
             r" (?:committed|complete|succeeded|results?|passes|failed)\b|\W*:)")
# a stated intention to change the work (Open-threads, M5): "I'll add", "let me fix", "next we
# should", "can you update", an imperative plan step ("Add X", "- Remove Y")
# (every branch of the leading group starts with a literal: the cue runs this alternative only on
# a sentence that holds one of them)
INTENT_RE = re.compile(
    r"(?:\b(?:I'll|Ill|I will|we'll|well|we will|I'm going to|Im going to|we're going to|were going to|I am going to|we are going to|plan to|we should|"
    r"I should|next,? (?:I'?ll|we'?ll|I will|we will|we|I)|still need to|"
    r"needs? to(?<!that need to)(?<!that needs to)(?<!which need to)(?<!which needs to)|let me|let's|lets|"
    r"(?:can|could|would) (?:you|we)(?: also| please)?|I want (?:to|we|you to)|I would (?:want|suggest|like) "
    r"(?:to|we|you to)|I suggest (?:to|we|you to)|I like (?:to|we|you to)|"
    r"consider|please)\s+(?:\w+\s+)?"
    + _CHANGE_VERBS + r"(?:e?d|ing)?\b" + _NOT_WORK +
    r"|^(?![#|])\W*(?:\*\*[^*:]{0,80}\*\*\W*)?(?:(?:yes|yeah|ok(?:ay)?|now|then|first|also|and)\W+)*"
    + _CHANGE_VERBS + r"\b(?!\w)" + _NOT_WORK +
    r"|\bTODO\b(?<=(?-i:TODO)))",
    re.I,
)
# unfinished business near the end (Open-threads)
OPEN_RE = re.compile(
    r"\b(?:TODO(?<=(?-i:TODO))|FIXME(?<=(?-i:FIXME))|next steps?|still (?:need|needs|fails?|failing|broken|open|pending)|not yet|"
    r"left to do|left for|follow[- ]up|blocked|blocker|unable to|couldn'?t|could not|open questions?|unresolved|"
    r"remain (?:unresolved|open|to be)|haven'?t (?:yet )?(?:been )?|have not|not (?:done|finished|implemented)|pending|"
    r"(?:were|was|is|are|have|has) not (?:been )?(?:run|tested|committed|pushed|verified|fixed|addressed|merged)|"
    r"needs? (?:to be )?(?:fix(?:ed)?|investigation|committing|committed|review)|"
    r"(?:doesn'?t|does not|didn'?t|did not|won'?t) (?:compile|build|pass)|should either)\b",
    re.I,
)
# text that tries to instruct whoever reads it (the handoff skill's SECURITY block)
INJECTION_RE = re.compile(
    r"\b(?:ignore|disregard|forget) (?:all |any |the |your )*(?:previous|prior|above|earlier|preceding)\b"
    r"|\bnew (?:instructions?|directives?|system prompt)\b|\bsystem prompt\b|\byou are now\b"
    r"|\bdeveloper mode\b|\bjailbreak|<\s*/?\s*(?:command-name|system|instructions?|assistant|user)\b"
    r"|\b(?:curl|wget)\s+\S+\s*\|\s*(?:ba)?sh\b|\brm -rf /",
    re.I,
)


class Needles:
    """Which of the cues' keys and literals occur in a (casefolded) text, found in one pass
    over it (Aho-Corasick, from ahocorasick_rs) instead of one substring scan per string:
    the same answer as ``{n for n in strings if n in text}`` (held to it in the tests)."""

    def __init__(self) -> None:
        self.strings: list[str] = []
        self._automaton: AhoCorasick | bool | None = None  # False: no automaton, scan instead

    def add(self, strings: tuple[str, ...]) -> None:
        new = [s for s in dict.fromkeys(strings) if s not in self.strings]
        if "" in new:
            raise ValueError("an empty string occurs in every text: not a cue key")
        if new:
            self.strings.extend(new)
            self._automaton = None

    def found(self, text: str) -> frozenset[str]:
        automaton = self._automaton
        if automaton is None:
            automaton = self._automaton = _automaton(self.strings)
        if not isinstance(automaton, bool):
            try:
                return frozenset(automaton.find_matches_as_strings(text, overlapping=True))
            except UnicodeEncodeError:  # a lone surrogate cannot cross into Rust: scan here
                pass
        return frozenset(s for s in self.strings if s in text)


def _automaton(strings: list[str]) -> AhoCorasick | bool:
    try:
        import ahocorasick_rs
    except ImportError:  # pragma: no cover - a dependency; the substring scans give the same
        return False
    # a DFA: a few hundred short strings make a small one, and it searches fastest
    return ahocorasick_rs.AhoCorasick(strings, implementation=ahocorasick_rs.Implementation.DFA,
                                      store_patterns=True)


NEEDLES = Needles()


class Cue:
    """A cue regex behind cheap gates: every match contains one of ``keys`` (casefolded),
    so a sentence without any of them is skipped without running the regex; and of the
    regex's alternatives only those whose leading literal occurs in the sentence are run,
    each on its own (compiled once): the leftmost of their matches, the first alternative
    on a tie, is the match the whole regex finds, since at each position an alternation
    takes its first alternative that matches there."""

    def __init__(self, regex: re.Pattern[str], keys: tuple[str, ...], veto: re.Pattern[str] | None = None) -> None:
        self.regex = regex
        self.keys = keys
        self.veto = veto  # a sentence this matches (at its start) is not the family's, whatever else it says
        self.alternatives = [(alt, _required_literals(alt)) for alt in _alternatives(regex.pattern)]
        self._always = frozenset(i for i, (_, lits) in enumerate(self.alternatives) if lits is None)
        self._literals = [(lit, i) for i, (_, lits) in enumerate(self.alternatives) for lit in lits or ()]
        self._compiled: list[re.Pattern[str] | None] = [None] * len(self.alternatives)
        self._keyset = frozenset(keys)
        NEEDLES.add(self.keys + tuple(lit for lit, _ in self._literals))

    def search(self, sentence: str, lowered: str | None = None,
               found: frozenset[str] | None = None) -> Match[str] | None:
        """The regex's leftmost match in ``sentence``. ``lowered`` is ``sentence.casefold()`` and
        ``found`` is ``NEEDLES.found(lowered)``, when the caller has them already."""
        low = sentence.casefold() if lowered is None else lowered
        if found is None:
            found = NEEDLES.found(low)
        if self._keyset.isdisjoint(found):
            return None
        if self.veto is not None and self.veto.match(sentence):
            return None
        if "\u0131" in low or "\u0307" in low:
            # dotless i / a dotted capital I: re.I matches them to "i", casefold does not
            return self.regex.search(sentence)
        best = None
        for i in sorted(self._always.union([i for lit, i in self._literals if lit in found])):
            regex = self._compiled[i]
            if regex is None:
                regex = self._compiled[i] = re.compile(self.alternatives[i][0], self.regex.flags)
            m = regex.search(sentence)
            if m is not None and (best is None or m.start() < best.start()):
                best = m
        return best


def _structure(source: str, start: int = 0) -> Iterator[tuple[int, str, int]]:
    """``(index, char, depth)`` of each ``(``, ``)`` and ``|`` of a regex source outside
    escapes and character classes; ``depth`` counts the group a paren opens or closes."""
    depth, i = 0, start
    while i < len(source):
        c = source[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            i = _class_end(source, i)
        elif c == "(":
            depth += 1
            yield i, c, depth
        elif c == ")":
            yield i, c, depth
            depth -= 1
        elif c == "|":
            yield i, c, depth
        i += 1


def _split_top(source: str) -> list[str]:
    """``source`` split at its top-level ``|`` (escapes, classes and groups respected)."""
    parts, start = [], 0
    for i, c, depth in _structure(source):
        if c == "|" and depth == 0:
            parts.append(source[start:i])
            start = i + 1
    parts.append(source[start:])
    return parts


def _class_end(source: str, i: int) -> int:
    """Index of the ``]`` closing the character class opened at ``source[i]``."""
    j = i + 1
    if source[j:j + 1] == "^":
        j += 1
    if source[j:j + 1] == "]":
        j += 1
    while source[j] != "]":
        j += 2 if source[j] == "\\" else 1
    return j


def _alternatives(source: str) -> list[str]:
    """The top-level alternatives of a cue regex, each part of the form ``\\b(?:A|B)\\b``
    distributed into ``\\bA\\b|\\bB\\b`` and a group around the whole regex opened (same
    matches, same priority)."""
    if source.startswith("(?:") and source.endswith(")") and _closes_at(source, 0, len(source) - 1):
        source = source[3:-1]
    out: list[str] = []
    for part in _split_top(source):
        if part.startswith("\\b(?:") and part.endswith(")\\b") and _closes_at(part, 2, len(part) - 3) \
                and len(_split_top(part[5:-3])) > 1:
            out.extend("\\b" + alt + "\\b" for alt in _split_top(part[5:-3]))
        else:
            out.append(part)
    return out


def _closes_at(source: str, open_at: int, close_at: int) -> bool:
    """Whether the group opened at ``source[open_at]`` closes at ``source[close_at]``."""
    for i, c, depth in _structure(source, open_at):
        if c == ")" and depth == 1:
            return i == close_at
    return False


_LITERAL_RE = re.compile(r"[a-z ']+", re.I)


def _required_literals(alternative: str) -> tuple[str, ...] | None:
    """The best of: the leading literal(s), any literal run outside groups, any group that
    is not optional (one literal per branch). Best = longest shortest literal; None if none."""
    candidates = [c for c in [_leading_literals(alternative)] if c]
    depth, i, run = 0, 0, ""
    runs: list[str] = []
    while i < len(alternative):
        c = alternative[i]
        nxt = alternative[i + 1:i + 2]
        if c == "\\":
            runs.append(run)
            run = ""
            i += 2
            continue
        if c == "[":
            runs.append(run)
            run = ""
            i = _class_end(alternative, i) + 1
            continue
        if c == "(":
            if depth == 0:
                runs.append(run)
                run = ""
                start = i
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0 and alternative[start:start + 3] == "(?:" and nxt not in ("?", "*", "{"):
                lits = _branch_literals(alternative[start + 3:i])
                if lits:
                    candidates.append(lits)
        elif depth == 0:
            if c.isalpha() or c in " '":
                if nxt in ("?", "*", "{"):
                    runs.append(run)
                    run = ""
                else:
                    run += c
            else:
                runs.append(run)
                run = ""
        i += 1
    runs.append(run)
    candidates.extend((r.casefold(),) for r in runs if len(r.strip()) >= 2)
    if not candidates:
        return None
    # (a literal's spaces make it no rarer; of two as long, one that is no common word, then
    # the one with fewer branches, is met less often: "bug" gates better than "the ", and
    # "pass|succeeded" better than "test|build|lint|...")
    return max(candidates, key=lambda lits: (min(len(x.strip()) for x in lits),
                                             not any(x.strip() in _COMMON for x in lits), -len(lits)))


_COMMON = frozenset("the a an and or of to in on it is are was we i you not no be this that".split())


def _branch_literals(group: str) -> tuple[str, ...] | None:
    found: list[str] = []
    for branch in _split_top(group):
        lits = _leading_literals(branch)
        if lits is None:
            return None
        found.extend(lits)
    return tuple(found)


def _leading_literals(alternative: str) -> tuple[str, ...] | None:
    """Casefolded strings one of which every match of ``alternative`` contains (its leading
    literal, or one per branch of a leading group); None when there is no such literal."""
    body = alternative[2:] if alternative.startswith("\\b") else alternative
    if body.startswith("(?:"):
        depth, i = 0, 0
        while i < len(body):
            if body[i] == "\\":
                i += 2
                continue
            depth += body[i] == "("
            depth -= body[i] == ")"
            if depth == 0:
                break
            i += 1
        if body[i + 1:i + 2] in ("?", "*", "{") or i >= len(body):
            return None  # an optional group: nothing is certain
        found: list[str] = []
        for branch in _split_top(body[3:i]):
            lits = _leading_literals(branch)
            if lits is None:
                return None
            found.extend(lits)
        return tuple(found)
    m = _LITERAL_RE.match(body)
    if not m:
        return None
    literal = m.group()
    after = body[m.end():m.end() + 1]
    if after in ("?", "*", "{"):
        literal = literal[:-1]   # the last character is optional
    literal = literal.strip() if not literal.endswith(" ") else literal.lstrip()
    return (literal.casefold(),) if len(literal) >= 2 else None


CORRECTION = Cue(CORRECTION_RE, ("no", "nah", "wrong", "stop", "tried", "actually", "i said", "told you",
                                 "asked for", "mistaken", "confusing", "work", "help", "fix", "don", "revert",
                                 "undo", "instead", "rather", "not", "incorrect", "already said", "still",
                                 "my point", "correct", "right", "true", "what", "n't", "but", "would", "prefer",
                                 "we do", "we did", "before", "made", "need", "existing"))
# a question or a heading states no rule ("using interfaces to dictate what is required?",
# "### Step 4: always a fresh id")
_NOT_A_RULE_RE = re.compile(r"^\s*#{1,6}\s|^[^\n]*\?\W*$")
CONSTRAINT = Cue(CONSTRAINT_RE, ("must", "never", "always", "do not", "don", "no new", "only", "make sure",
                                 "required", "requirement", "avoid", "without", "keep", "has to", "have to",
                                 "need", "not allowed", "by default", "should", "not have", "want", "first time",
                                 "first run", "let people", "opt", "no change"), veto=_NOT_A_RULE_RE)
ABANDON = Cue(ABANDON_RE, ("actually", "wait", "not it", "isn't it", "isnt it", "different approach", "scratch",
                           "was wrong", "second thought", "work", "help", "fix", "mistake", "apologi", "right",
                           "correct", "turns out", "the cause", "the issue", "the problem", "the culprit", "rule",
                           "red herring", "dead end", "won", "wrong", "abandon", "giving up", "good point",
                           "good catch", "good call", "is actually", "made that up", "made it up", "overkill",
                           "engineer", "risky", "failed because", "non-issue", "defeats the purpose",
                           "buys"))
# announcing a look, not stating a result: "now let me verify the build passes" concludes nothing
CHECKING_RE = re.compile(
    r"^\W*(?:(?:now|first|next|then|ok(?:ay)?|great|good|perfect|done|also)\W+)*(?:let me|let's|I'll|I will|I'm going to|"
    r"I need to|I should|going to|we need to|need to)\s+(?:also\s+|first\s+|now\s+|quickly\s+)?(?:verify|check|confirm|"
    r"run|re-?run|look|see|read|make sure|ensure|test|double-check|examine|inspect|investigate|search|find|"
    r"explore|review|understand|trace|figure out|debug|compare)\b"
    r"|^\W*(?:now|next|then|first)\W+(?:verify|check|confirm)\b"  # "Now verify it builds and passes tests."
    # naming the skill or agent it will work with: "I'll use the brainstorming skill to explore this"
    r"|^\W*(?:(?:now|first|next|ok(?:ay)?)\W+)*(?:let me|I'll|I will|I'm going to)\s+use\s+(?:the\s+|an?\s+)?"
    r"[\w:./-]+(?:\s+[\w-]+)?\s+(?:skill|agent|subagent)\b", re.I)
DECISION = Cue(DECISION_RE, ("root cause", "issue", "problem", "bug", "cause", "culprit", "the fix", "fixed",
                             "decided", "chose", "settled", "decision", "go with", "use", "keep", "stick with",
                             "going with", "the answer", "conclusion", "means", "explains", "confirmed",
                             "works now", "now pass", "tests pass", "switch", "i'll", "i will", "going to", "pass",
                             "succeeded", "clean", "green", "working now", "now", "been", "complete", "done",
                             "resolved", "addressed", "this fixes", "there it is", "where", "yes", "yeah", "yep",
                             "ok", "sure", "let", "put", "committed", "builds", "compiles", "passes", "works",
                             "non-issue", "as is", "as-is", "the current", "pr", "pull request", "no ",
                             "as expected", "approach", "resolved"), veto=CHECKING_RE)
INTENT = Cue(INTENT_RE, ("ill", "i'll", "i will", "we'll", "well", "we will", "going to", "plan to", "should",
                         "next", "need", "todo", "let", "can", "could", "would", "want", "suggest", "like",
                         "consider", "please", "add", "extract", "implement", "write", "fix", "create", "refactor",
                         "update", "remove", "delete", "rename", "move", "change", "commit", "document", "wire",
                         "split", "replace", "migrate", "port", "build", "test", "clean", "handle", "introduce",
                         "drop", "make", "finish", "complete", "restore", "revert", "modify", "address", "stage",
                         "consolidate", "include", "resolve", "merge", "push", "rebase", "apply", "override",
                         "convert", "simplify", "tackle", "sort out", "record", "use", "append", "import",
                         "generate", "put", "populate", "set up", "adjust", "amend", "inline"))
OPEN = Cue(OPEN_RE, ("todo", "fixme", "next step", "still", "not yet", "left to do", "left for", "follow",
                     "blocked", "blocker", "unable", "couldn", "could not", "open question", "unresolved",
                     "remain", "haven", "have not", "not done", "not finished", "not implemented", "pending",
                     "not run", "not been", "not tested", "not committed", "not pushed", "not verified",
                     "not fixed", "not addressed", "not merged", "need", "compile", "build", "pass",
                     "should either"))
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
    pos = start = 0
    search = _BOUNDARY_RE.search
    while True:
        m = search(text, pos)
        if m is None:
            break
        i = m.start()
        if text[i] in ".!?":
            run = _SPACE_RUN_RE.match(text, i + 1)
            if run is None:
                pos = i + 1
                continue
            spans.append((start, i + 1))
        else:
            run = _BREAK_RUN_RE.match(text, i)
            spans.append((start, i))
        pos = start = run.end()  # type: ignore[union-attr]  # a line boundary matches itself
    spans.append((start, len(text)))
    return trimmed_spans(text, spans)


def trimmed_spans(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` of ``text`` without the whitespace at either end; those left empty are dropped."""
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


def looks_like_injection(text: str, lowered: str | None = None, found: frozenset[str] | None = None) -> bool:
    return bool(INJECTION.search(text, lowered, found))
