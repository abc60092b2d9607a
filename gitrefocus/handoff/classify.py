"""Which cue families a sentence belongs to, read where it stands in the conversation.

The cue regexes (``cues.py``) say what a sentence's words are like. Whether the user's "could
we use the regexp from the id package?" overrules the assistant depends on where it stands: it
opens a message answering something the assistant said or did, and the assistant's reply
concedes ("good point"). This module is the one place a sentence's families are decided — by
``analysis.py`` for the built-in extractors, and by the real-session corpus
(``tests/handoff/corpus.py``) when it scores the cue families — so the figures measure what the
extractors do.

The rules, measured on the corpus's tuning sessions (``docs/handoff.md``):

- nothing is overruled before the assistant has said anything: a user sentence with no assistant
  text before it (the session's opening words) is no correction, whatever its words, except the
  words typed when refusing a tool use (they overrule the refused action);
- a user sentence is a **correction** when the correction cue finds it (not in the client's
  "(No answer provided)" placeholder; a leading "No" only as an answer — "No, …", "no wait" —
  not as a determiner: "No error reaches the log"); or when it opens the words typed when refusing a tool
  use and asks no question; or when it opens a message that answers an assistant text, is no
  answer to a question menu, and either the assistant's reply begins by conceding ("you're
  right", "good catch", "good idea") or the sentence opens by pushing back ("but …", "hmm, …",
  "again, …", "no, …", "stop …") without asking a question;
- a user sentence taken as a correction is no **decision** of the user's (it overrules one), and
  a question is no decision of anyone's; a user's first sentence that names one of the options
  the assistant's last text offered ("4 seems like what I would do manually", "I like Option C"
  after a numbered list and a question) is a decision, cue or no cue; so is an assistant's
  sentence opening "Now" and a subject ("Now it uses proper booleans."), how things stand after
  its change (not "Now" and a verb, its next step: "Now add the helper.");
- every other family is its cue regex alone. Position and neighbours were tried for them too
  (the session's last text for open threads, a concession for dead ends, a trailing colon or a
  heading for decisions) and a small logistic model over such features was cross-validated
  (``python -m tests.handoff.cue_model``); neither did better than the cue on its own. Nor,
  on the corpus three times larger, did a logistic model that also reads the sentence's words
  and its neighbours' (cross-validated by repository): alone, added to the rules or vetoing
  their hits, it raised precision only by losing recall or recall only by losing precision,
  but for a point in intent (18 more of 1,521 sentences right, less precise on the repositories
  it never saw), so no weights are shipped (``docs/handoff.md``, "The eleventh round: a learned
  classifier on the larger corpus").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gitrefocus.handoff import cues

FAMILIES = ("correction", "constraint", "decision", "intent", "dead-end", "open-thread")
# whose sentences each family is decided for
ROLES = {"correction": ("user",), "constraint": ("user",), "decision": ("user", "assistant"),
         "intent": ("user", "assistant"), "dead-end": ("assistant",), "open-thread": ("assistant",)}
CUES = {"correction": cues.CORRECTION, "constraint": cues.CONSTRAINT, "decision": cues.DECISION,
        "intent": cues.INTENT, "dead-end": cues.ABANDON, "open-thread": cues.OPEN}

# kinds of words: typed at the prompt (or a slash command's arguments), typed while the assistant
# worked, typed when refusing a tool use, an answer to the assistant's question; the assistant's text
TYPED, QUEUED, REFUSAL, ANSWER, TEXT = "typed", "queued", "refusal", "answer", "text"
REPLY_REACH = 300  # a concession counts when the reply begins with it (within this many characters)


@dataclass(frozen=True)
class Context:
    """Where a sentence stands. ``prior`` is the other party's text before it (for a user
    sentence the assistant's last text, empty when there is none); ``reply`` the beginning of
    the assistant's first text after a user's message."""

    role: str
    kind: str = TEXT
    first: bool = False   # the first sentence of its message
    prior: str = ""
    reply: str = ""


# the assistant conceding what the user just said
CONCEDE_RE = re.compile(r"\b(?:you'?re (?:absolutely |completely |totally )?(?:right|correct)|you are (?:absolutely )?"
                        r"(?:right|correct)|good (?:point|catch|call|idea)|great (?:point|catch|idea|call)|"
                        r"my (?:mistake|bad)|I apologi[sz]e|I was wrong|I stand corrected|fair point)\b", re.I)
# ... of it, a concession of error (the rest praise a suggestion: "good idea", "great point" —
# said as often of an extension as of a correction)
ERROR_CONCEDED_RE = re.compile(
    r"\b(?:you'?re (?:absolutely |completely |totally )?(?:right|correct)|you are (?:absolutely )?(?:right|correct)|"
    r"good catch|great catch|my (?:mistake|bad)|I apologi[sz]e|I was wrong|I stand corrected)\b", re.I)
# a user's message that opens by pushing back on what came before
PUSHBACK_RE = re.compile(r"^\W*(?:(?:but|hmm+|umm+|uh+|nope|again|stop|wait|actually|instead|well|hm+)\b|"
                         + cues.NO_INTERJECTION + ")", re.I)
# a user's message that opens by agreeing with what came before ("yes, …", "okay, let's try …", "yeah I
# think we need this"): the reply's "you're right" agrees back, it concedes no error (not "yes, but …",
# "right now …")
AGREE_RE = re.compile(r"^\W*(?:yes|yeah|yep|yup|ok(?:ay)?|sure|agreed|exactly|sounds good|makes sense|perfect|great|"
                      r"cool|nice|right(?![ \t]+(?:now|away|here|there|after|before|after)\b))\b"
                      r"(?!\W*(?:but|no|not|nope|instead|actually|however|though|although|wait|hmm+)\b)", re.I)
# what a client writes when the user declined a question menu without typing anything
PLACEHOLDER_RE = re.compile(r"^\W*\(no answer provided\)\W*$", re.I)


def correction(sentence: str, ctx: Context, lowered: str | None = None,
               present: frozenset[str] | None = None) -> bool:
    """Whether a user's sentence overrules the assistant (the rules in the module's notes)."""
    if ctx.role != "user" or PLACEHOLDER_RE.match(sentence):
        return False
    if not ctx.prior.strip() and ctx.kind != REFUSAL:
        return False  # before the assistant has said anything there is nothing to overrule (a refusal overrules its action)
    if cues.CORRECTION.search(sentence, lowered, present) is not None:
        return True
    if not ctx.first or ctx.kind == ANSWER:
        return False
    question = sentence.rstrip().endswith("?")
    if ctx.kind == REFUSAL:
        return True  # the words typed when refusing the assistant's action: why, or what instead
    if not ctx.prior.strip() or AGREE_RE.match(sentence):
        return False
    if CONCEDE_RE.search(ctx.reply[:REPLY_REACH]):
        return True
    return PUSHBACK_RE.match(sentence) is not None and not question


# the assistant offering numbered or lettered options ("1. **From the plan** …", "**Option B** …")
_OPTION_ITEM_RE = re.compile(r"(?m)^[ \t]*(?:[-*][ \t]+)?(?:\*\*)?(?:option[ \t]+)?(?:\d{1,2}|[A-Ea-e])[.):](?:\*\*)?[ \t]"
                             r"|\boption[ \t]+(?:\d{1,2}|[A-Ea-e])\b", re.I)
# a user's first words naming one of them: "4", "4 seems like…", "3 and …", "B) I want …", "option 3",
# "I like Option C", "let's go with 2" (a number followed by a noun counts something: "4 tests fail")
# — also after a word of agreement, and several at once: "yeah 2 and 3", "okay now let's do 6,7,8,10",
# "let's implement options 1-4"
_NUMBERS = r"\d{1,2}(?:[ \t]*(?:[-–,&+]|and)[ \t]*\d{1,2})*"
_PICK_RE = re.compile(r"^\W*(?:(?:yes|yeah|yep|ok(?:ay)?|sure|great|good|now|then|so)\W+)*"
                      r"(?:(?:I(?:'d)? (?:like|prefer|pick|choose|go with|think)|"
                      r"let'?s (?:go with|do|take|start with|implement|try|pick)|go with|do|implement|take|(?:I )?prefer)"
                      r"[ \t]+(?:(?:the|just|only|with|implementing)[ \t]+)*"
                      r"(?:(?:suggestions?|options?|items?|points?|steps?|choices?|ideas?|fix(?:es)?)[ \t]+)?)?"
                      r"(?:(?:option|choice|approach)[ \t]+(?:\d{1,2}|[A-Ea-e])\b"
                      r"|" + _NUMBERS + r"\b(?:[ \t]*$|[ \t]*[.,;:!)\-–—]|[ \t]+(?:and|but|or|is|seems|sounds|looks|"
                      r"feels|please|for|with|then|as|makes|would|could|should|i|first|too|only)\b)"
                      r"|[A-Ea-e](?:[ \t]*$|[.):,]))", re.I)


_WORD_RE = re.compile(r"\w+")
# an assistant's text that opens by reporting its work done ("Done.", "All done.", "Fixed.", "Merged origin/main, …")
COMPLETED_RE = re.compile(r"^\W*(?:all done|done|fixed|finished|completed?|created|merged|committed|pushed|"
                          r"implemented)\b(?!\s+(?:yet|with)\b)", re.I)


def reports_done(sentence: str, ctx: Context) -> bool:
    """The first sentence of an assistant's text reporting its work done, naming what ("Done. Added
    the flag …", "Created `CHANGELOG.md`."): a settled outcome. A bare "Done." names nothing."""
    if ctx.role != "assistant" or not ctx.first:
        return False
    m = COMPLETED_RE.match(sentence)
    return m is not None and names_what(sentence, m.end())


# the assistant drawing an inference: "So the hook does send the field — we just don't parse it." (not a
# plan, "So I'll …", "So let's …", a condition, a guess, a question word, nor a lead-in ending in a colon)
INFERENCE_RE = re.compile(
    r"^[\s*_>-]*so\b,?[ \t]+(?!(?:I|I'?ll|I'?m|we|we'?ll|let'?s|let|lets|if|maybe|perhaps|probably|you|should|shall|"
    r"could|would|can|what|how|why|which|where|when|far|now|then|basically|essentially|either|in)\b)"
    r"(?![^\n]*:[\W_]*$)", re.I)
_SO_MARKUP = " \t*_>-"


# the assistant stating how things stand after its change: "Now" and a subject ("Now it uses proper
# booleans.", "Now the list is sorted newest first.", "Now `cmd` sends the full name.", "Now there's a
# single source of truth."), not "Now" and a verb, the step it tells itself to take next ("Now add the
# helper.", "Now let me run the tests.")
STATE_RE = re.compile(r"^[\s*_>-]*now,?[ \t]+(?:(?:it|they|this|these|that|both|all|each|every|the|there)(?=[\s'’])|`)",
                      re.I)


def reports_state(sentence: str, ctx: Context) -> re.Match[str] | None:
    """An assistant's sentence saying how things stand now that its change is made."""
    if ctx.role != "assistant" or sentence.lstrip(_SO_MARKUP)[:3].casefold() != "now":
        return None
    return STATE_RE.match(sentence)


def infers(sentence: str, ctx: Context) -> re.Match[str] | None:
    """An assistant's sentence that opens with "So" and states what follows from what it found
    (a user's "so …" is mostly a question or a doubt: not read so)."""
    if ctx.role != "assistant" or sentence.lstrip(_SO_MARKUP)[:2].casefold() != "so":
        return None
    return INFERENCE_RE.match(sentence)


def names_what(sentence: str, after: int) -> bool:
    """Whether a sentence says more than its opening word(s) of completion ("Done." does not)."""
    return _WORD_RE.search(sentence, after) is not None


def picks(sentence: str, ctx: Context) -> bool:
    """A user's first sentence naming one of the options the assistant's last text offered: the
    user's choice, a decision ("4 seems like what I would do manually", "I like Option C")."""
    if ctx.role != "user" or not ctx.first or ctx.kind == REFUSAL or not _PICK_RE.match(sentence) or asks(sentence):
        return False
    if len(_WORD_RE.findall(sentence)) < 2:
        return False  # a bare "4" or "1." says nothing without the option it names
    return "?" in ctx.prior and len(_OPTION_ITEM_RE.findall(ctx.prior)) >= 2


def asks(sentence: str) -> bool:
    """A question settles nothing: no decision ("Are all tests passing?", "…, right?")."""
    return sentence.rstrip().rstrip("*_`)\"'").rstrip().endswith("?")


def families(sentence: str, ctx: Context, lowered: str | None = None,
             present: frozenset[str] | None = None) -> set[str]:
    """The cue families ``sentence`` belongs to, where it stands (``ctx``)."""
    low = sentence.casefold() if lowered is None else lowered
    if present is None:
        present = cues.NEEDLES.found(low)
    found: set[str] = set()
    corrects = correction(sentence, ctx, low, present)
    if corrects:
        found.add("correction")
    for family, cue in CUES.items():
        if family == "correction" or ctx.role not in ROLES[family]:
            continue
        if family == "decision" and (corrects or asks(sentence)):
            continue
        if cue.search(sentence, low, present) is not None or \
                (family == "decision" and (picks(sentence, ctx) or reports_done(sentence, ctx) or
                                           infers(sentence, ctx) is not None or
                                           reports_state(sentence, ctx) is not None)):
            found.add(family)
    return found
