"""One pass over the spine that finds every cue the built-in extractors use.

Each finding is a :class:`Quote`: an exact substring of one message (never
rebuilt, shortened only by taking a contiguous window), with the label of the
transcript line it came from. Sentences that try to instruct their reader are
recorded by position only, never quoted.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from gitrefocus.handoff import classify, cues
from gitrefocus.handoff import spine as sp
from gitrefocus.handoff.prepare import Plan
from gitrefocus.handoff.sections import Pointer
from gitrefocus.model.records import dataclass

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from collections.abc import Iterator
    from re import Match

    from gitrefocus.handoff.spine import Block, Message

    # a sentence of a message where it stands: (start, end, sentence, casefolded, cue keys, label)
    Span = tuple[int, int, str, str, frozenset[str], str]

QUESTION_TOOLS = frozenset({"AskUserQuestion"})
_HYPOTHESIS_RE = re.compile(r"\b(?:I think|probably|likely|I suspect|suspect|might be|may be|seems|appears|"
                            r"the (?:issue|problem|cause|bug) (?:is|was)|must be|should be|looks like)\b", re.I)
_ACK_RE = re.compile(r"^\W*(?:you'?re|you are) (?:right|correct)\W*$|^\W*(?:my mistake|I apologi[sz]e)\W*$", re.I)
# the assistant conceding what the user just said: the user's words overruled a claim of its
CONCEDE_RE = classify.CONCEDE_RE
# the cues that mark a dead end on their own: the assistant says in so many words that a claim,
# cause or attempt of its was wrong ("actually", "wait", "a different approach", "won't work" are
# how it thinks aloud, in real sessions mostly about a retry or a hypothetical)
STRONG_ABANDON_RE = re.compile(
    r"\b(?:I was wrong|that'?s not it|that isn'?t it|scratch that|on second thought|red herring|dead end|"
    r"(?:is|was|isn'?t|wasn'?t) not the (?:cause|issue|problem|culprit)|(?:is|was)n'?t the (?:cause|issue|problem|culprit)|"
    r"ruled? (?:it |that |this )?out|wrong (?:assumption|hypothesis|approach)|turns out|I made (?:that|it) up|"
    r"(?:that|this|it) (?:didn'?t|did not) (?:work|help|fix)|abandon(?:ing)? (?:this|that|the)|"
    r"(?:is|would be|seems|'s) (?:overkill|over-?engineer(?:ed|ing)|(?:too )?risky)|failed because|"
    r"(?:is|was) a non-issue|defeats the purpose|buys (?:us )?nothing)\b" + cues.RETRACTED, re.I)
# a bare approval of what the assistant proposed ("yes", "ok, do it", "sounds good")
APPROVAL_RE = re.compile(
    r"^\W*(?:yes|yeah|yep|yup|ok(?:ay)?|sure|go ahead|go for it|do it|please do|sounds good|lgtm|perfect|great|"
    r"continue|proceed|correct|right|agreed|approved?|let'?s do (?:it|that|this))"
    r"(?:[\s,.!]+(?:please|do it|go ahead|go for it|thanks|thank you|let'?s do (?:it|that|this)|"
    r"(?:let'?s )?(?:implement|proceed|go)(?: (?:it|that|this|with it))?|that works|continue|sounds good|yes))*\W*$",
    re.I)
# what an assistant says before acting, not a claim: "let me check", "now let me run the tests" (not "let me
# know …", which asks the user)
_ANNOUNCE_RE = re.compile(r"^\W*(?:(?:now|first|next|ok(?:ay)?|great|good|perfect|done)\W+)*(?:let me(?! know\b)|let's|I'll|I will|"
                          r"I'm going to|I need to|going to)\b", re.I)
# the assistant saying it is ready, not what it found: its own understanding ("Now I have a clear
# picture.", "I have enough context.", "The issue is clear now."), the reading it did ("I've reviewed
# the codebase.") or a pointer to what follows ("Here's my suggestion."); a short sentence only
READY_RE = re.compile(
    r"^\W*(?:(?:good|great|perfect|ok(?:ay)?|alright|right|now|so|yes)\W+)*(?:"
    r"I (?:now )?understand(?: now)?(?: (?:the|this|it) ?\w*)?\W*$"
    r"|I (?:now )?(?:have|'ve got|got|understand|see)(?: now)? (?:a |an |the |all the |enough |everything )?"
    r"(?:[\w-]+ ){0,2}(?:picture|context|understanding|overview|view|idea|information|everything I need)\b"
    r"|(?:the|this|that|it|everything)(?: (?:issue|problem|cause|picture|situation|flow|code|bug))? (?:is|'s) "
    r"(?:now |all )?clear(?: now)?\W*$"
    r"|I(?:'ve| have) (?:now )?(?:reviewed|read|explored|examined|analy[sz]ed|gone through|looked (?:at|through)|"
    r"gathered)\b(?: (?!and\b|but\b|so\b)[\w`'./-]+){0,4}\W*$"
    r"|here(?:'s| is) (?:my|what I)\b[^.!?]*[.:]\W*$)", re.I)
READY_WORDS = 9  # a readiness sentence longer than this says something else too

# a user's report that something failed, and an outcome the assistant claimed that it can reverse
# (a word of prose: "fails" inside a branch or file name, "fix-ci-fails", reports nothing)
FAILURE_RE = re.compile(r"(?<![\w/.-])(?:fail(?:s|ed|ing|ures?)?|broken|(?:does|do|did)(?:n'?t| not) work|not working|"
                        r"still (?:see|get|getting|seeing|happens|there)|same (?:error|problem|issue))(?![\w/-])", re.I)
# ... said of the work, not named as a topic ("the failure isn't propagated" reports no failure of it)
_FAILED_RE = re.compile(r"(?<![\w/.-])(?:fail(?:s|ed|ing)?|broken|(?:does|do|did)(?:n'?t| not) work|not working)"
                        r"(?![\w/-])", re.I)
OUTCOME_RE = re.compile(r"\b(?:pass(?:es|ed|ing)?|works?|working|fixed|succeed(?:s|ed)?|clean|green|resolved)\b",
                        re.I)
# a request put as a suggestion: "can we …", "could you …", "can the X also …", "any way to …", "any chance
# …", "let's …", "we could …", "it should also …", "how about …", "why not …", "… instead?"
SUGGEST_RE = re.compile(r"\b(?:can|could) (?:we|you|it|the \w+)\b|\bany (?:way|chance)\b|\blet'?s\b|\bwe could\b|"
                        r"\bshould (?:also|we|it|rather)\b|\bhow about\b|\bwhat about\b|\bwhy not\b|\binstead\b",
                        re.I)
# what the client writes as the feedback of a refused question menu: no words of the user's
_PLACEHOLDER_RE = re.compile(r"^\W*\(no answer provided\)\W*$", re.I)
# a user's turn that adds to the work rather than reverses it ("it should also check …")
EXTEND_RE = re.compile(r"\b(?:also|as well|additionally|too)\b", re.I)
# ... unless it objects: "this means tests would also fail on my machine" reports a fault, it adds nothing
OBJECTION_RE = re.compile(r"\b(?:fail(?:s|ed|ing|ures?)?|friction|problem|wrong|broken|bug)\b", re.I)
FENCE_RE = re.compile(r"```.*?(?:```|$)", re.S)
COMPLETED_RE = classify.COMPLETED_RE  # a text that opens by reporting its work done
# words quoted in a user's message (code pasted from a review: fmt.Errorf("IsInstalled failed: %w", err))
_QUOTED_RE = re.compile(r'`[^`\n]*`|"[^"\n]*"')
# tools that only look: refusing one drops no approach of the assistant's (no dead end)
READ_ONLY_TOOLS = frozenset({"Read", "Grep", "Glob", "LS", "LSP", "WebFetch", "WebSearch", "NotebookRead",
                             "TodoRead", "TaskList", "TaskGet", "TaskOutput", "BashOutput", "ListMcpResourcesTool",
                             "ReadMcpResourceTool"})


_ASSISTANT = classify.Context("assistant")
_WORDS_RE = re.compile(r"\w+")
_LIST_ITEM_RE = re.compile(r"\s*(?:[-*+]|\d{1,2}[.)])\s")
# messages that are neither party's work in a turn: a background task reporting back, a compaction
_ASIDE_ROLES = frozenset({sp.NOTIFICATION, sp.COMPACT})


def ready(sentence: str) -> bool:
    """Whether ``sentence`` only says the assistant is ready (``READY_RE``), nothing it found."""
    return len(_WORDS_RE.findall(sentence)) <= READY_WORDS and READY_RE.match(sentence) is not None


def after_ready(spans: list[Span]) -> list[Span]:
    """The sentences of an assistant's text from where it starts saying something: after an opening
    that only says it is ready ("Good. Now I have the full picture. …")."""
    for k, span in enumerate(spans[:3]):
        if ready(span[2]):
            if all(len(_WORDS_RE.findall(before[2])) <= 2 for before in spans[:k]):
                return spans[k + 1:]
            break
    return spans


def _blank(m: Match[str]) -> str:
    return " " * len(m.group())


@dataclass
class Quote:
    """A verbatim excerpt of one message, with where it came from."""

    text: str
    cut_before: bool
    cut_after: bool
    label: str
    index: int   # position of the message in plan.messages
    role: str
    thinking: bool = False
    question: str | None = None  # for the user's answer to a multiple-choice question: the question

    def md(self) -> str:
        return cues.quote_md(self.text, self.cut_before, self.cut_after)

    @functools.cached_property
    def words(self) -> set[str]:
        """Its significant words, computed once: the overruling checks compare every decision
        with every later correction. (Never mutate the set.)"""
        return cues.significant_words(self.text)

    def pointer(self, note: str) -> Pointer:
        return Pointer("transcript", self.label, note)



class Analysis:
    """One pass over the spine, finding every cue the five extractors use."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.corrections: list[Quote] = []
        # the user turns that report a failure ("`make test` fails", "it's still broken"), each with
        # the sentence saying so (in order: a turn's first such sentence)
        self.failure_reports: dict[int, Quote] = {}
        self.constraints: list[Quote] = []
        self.abandons: list[Quote] = []
        self.decisions: list[Quote] = []
        self.open_items: list[Quote] = []
        self.injections: list[tuple[str, str]] = []
        self.refusals: list[tuple[sp.Message, sp.Block]] = []
        # the words typed when refusing a tool use that ask for something else: (message index, the
        # request's first sentence) — "can we read it instead of sleeping?", "let's call it X"
        self.refusal_requests: list[Quote] = []
        self.rewinds: list[sp.Message] = []
        self.failed_sidechains: list[sp.Message] = []
        self.user_turns: list[int] = []
        # (index of the user turn conceded to, the assistant's concession)
        self.concessions: list[tuple[int, Quote]] = []
        # the user turns taken as corrections only because the reply praised them ("great point!")
        # and that ask or add ("can we also …?"), and the words typed when refusing a tool use that
        # add ("it should also check …"): an extension, which reverses no conclusion of the
        # assistant's and overrules none of its claims
        self.praised: set[int] = set()
        self._opened: set[int] = set()  # the user messages whose first sentence has been read
        self._awaiting_reply = False
        self._scan()
        self._closing_reports()
        self._conceded_corrections()
        self._failure_corrections()

    def _scan(self) -> None:
        # open threads are read only near the end (extract.open_threads): look for them there
        messages = self.plan.messages
        self.tail_start = max(0, len(messages) - max(15, len(messages) // 10))
        last_turn = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].is_user_turn), None)
        if last_turn is not None and last_turn < self.tail_start:
            self.tail_start = last_turn
        for index, message in enumerate(self.plan.messages):
            if message.role == sp.REWIND:
                self.rewinds.append(message)
            elif message.role == sp.SIDECHAIN and message.failed:
                self.failed_sidechains.append(message)
            if message.is_user_turn:
                self.user_turns.append(index)
                self._awaiting_reply = True
            for block in message.blocks:
                if block.kind == sp.REJECTED and block.tool in QUESTION_TOOLS:
                    if block.text:  # declining the menu to type an answer: the user's words, no refusal
                        self._user_sentences(index, message, block, kind=classify.ANSWER)
                elif block.kind == sp.REJECTED:
                    if block.tool not in READ_ONLY_TOOLS:
                        self.refusals.append((message, block))
                    if block.text:
                        self._user_sentences(index, message, block, refusal=True)
                        self._refusal_request(index, message, block)
                elif block.kind in sp.WORDS and message.role == sp.USER:
                    self._user_sentences(index, message, block)
                elif block.kind == sp.ANSWER:
                    self._answer(index, message, block)
                elif block.kind == sp.TEXT and message.role == sp.ASSISTANT:
                    self._assistant_sentences(index, message, block)
                elif block.kind == sp.THINKING:
                    self._assistant_sentences(index, message, block, thinking=True)

    def _sentences(self, index: int, message: Message, block: Block,
                   thinking: bool = False) -> Iterator[tuple[int, int, str, str, frozenset[str], str]]:
        text = block.text
        fenced = [(m.start(), m.end()) for m in FENCE_RE.finditer(text)] if "```" in text else []
        label = message.label(block.line)
        for a, b in cues.sentence_spans(text):
            if any(fa <= a < fb for fa, fb in fenced) or text[a:a + 4] == "    ":
                continue  # code and pasted logs are not statements
            sentence = text[a:b]
            low = sentence.casefold()
            present = cues.NEEDLES.found(low)  # every cue's keys, in one pass over the sentence
            if cues.looks_like_injection(sentence, low, present):
                if (label, message.role) not in self.injections:
                    self.injections.append((label, message.role))
                continue
            yield a, b, sentence, low, present, label

    def _quote(self, text: str, a: int, b: int, match: Match[str] | None, label: str, index: int, role: str,
               thinking: bool = False) -> Quote:
        cue = (a + match.start(), a + match.end()) if match else None
        q, before, after = cues.window(text, a, b, cue)
        return Quote(q, before, after, label, index, role, thinking)

    def _user_sentences(self, index: int, message: Message, block: Block, refusal: bool = False,
                        kind: str = classify.TYPED) -> None:
        per_message = 0
        first = index not in self._opened
        prior = self.last_assistant_text(index)
        context = classify.Context("user", classify.REFUSAL if refusal else
                                   classify.QUEUED if block.kind == sp.QUEUED else kind,
                                   prior=prior[1].text[-600:] if prior else "")
        for a, b, sentence, low, present, label in self._sentences(index, message, block):
            if refusal and _PLACEHOLDER_RE.match(sentence):
                continue
            if index not in self.failure_reports and message.is_user_turn and not refusal:
                m = FAILURE_RE.search(_QUOTED_RE.sub(_blank, sentence))  # a quoted "…failed: %w" reports nothing
                if m and not sentence.rstrip().endswith("?"):  # "can you explain why they fail?" reports none
                    self.failure_reports[index] = self._quote(block.text, a, b, m, label, index, "user")
            ctx = classify.Context(context.role, context.kind, first=first, prior=context.prior)
            first = False
            self._opened.add(index)
            corrects = classify.correction(sentence, ctx, low, present)
            if corrects and per_message < 2:
                m = cues.CORRECTION.search(sentence, low, present)
                self.corrections.append(self._quote(block.text, a, b, m, label, index, "user"))
                per_message += 1
                if refusal and ctx.first and m is None and EXTEND_RE.search(sentence) and \
                        not OBJECTION_RE.search(sentence):
                    # refusing to ask for more ("even more, can the switch logic also be shared?"):
                    # the work goes further, the claim before it stands
                    self.praised.add(index)
            m = cues.CONSTRAINT.search(sentence, low, present)
            if m:
                self.constraints.append(self._quote(block.text, a, b, m, label, index, "user"))
            if corrects or classify.asks(sentence):
                continue  # a correction overrules a decision, it is none of the user's own; a question settles nothing
            m = cues.DECISION.search(sentence, low, present)
            if m or classify.picks(sentence, ctx):
                self.decisions.append(self._quote(block.text, a, b, m, label, index, "user"))

    def _refusal_request(self, index: int, message: Message, block: Block) -> None:
        """The first sentence of the words typed when refusing a tool use, when it asks for
        something else: a suggestion ("any way to pass a function in?", "can the switch logic also
        be shared?", "let's call it X", "it should also check …") or a change (the intent cue). A
        question that only asks what is known ("do we know what the prompt looks like?") and a
        prohibition ("don't run CI") ask for no work."""
        first = next(self._sentences(index, message, block), None)
        if first is None or _PLACEHOLDER_RE.match(first[2]):
            return
        a, b, sentence, low, present, label = first
        if SUGGEST_RE.search(sentence) or (cues.INTENT.search(sentence, low, present) and not sentence.rstrip().endswith("?")
                                           and not cues.CONSTRAINT.search(sentence, low, present)):
            self.refusal_requests.append(self._quote(block.text, a, b, None, label, index, "user"))

    def _answer(self, index: int, message: Message, block: Block) -> None:
        """The user's answer to the assistant's question is a decision of theirs; its words can
        also correct or constrain, like anything else the user typed."""
        if not block.text.strip() or cues.looks_like_injection(block.text) or \
                cues.looks_like_injection(block.note or ""):
            return
        q, before, after = cues.window(block.text, 0, len(block.text))
        label = message.label(block.line)
        self.decisions.append(Quote(q, before, after, label, index, "user", question=block.note))
        if len(block.text) > 40:  # a typed answer, not a chosen label: read it as the user's words
            self._user_sentences(index, message, block, kind=classify.ANSWER)

    def _assistant_sentences(self, index: int, message: Message, block: Block, thinking: bool = False) -> None:
        turn = self.user_turns[-1] if self.user_turns else -1
        first_reply = self._awaiting_reply
        if not thinking:
            self._awaiting_reply = False  # the assistant's first text after the turn answers it
        opening = len(block.text) - len(block.text.lstrip())
        opens = True
        for a, b, sentence, low, present, label in self._sentences(index, message, block, thinking):
            first_sentence, opens = opens, False
            m = cues.ABANDON.search(sentence, low, present)
            conceded = CONCEDE_RE.search(sentence) if first_reply and not thinking and \
                a - opening < classify.REPLY_REACH else None
            if conceded:
                # a concession is not a hypothesis of its own: the claim it gives up is the one the
                # user's turn overruled (the reply begins by conceding)
                if not any(t == turn for t, _ in self.concessions):
                    self.concessions.append((turn, self._quote(block.text, a, b, conceded, label, index,
                                                               "assistant", thinking)))
                m = None
            elif m and not STRONG_ABANDON_RE.search(sentence):
                m = None  # "actually, ...", "wait", "a different approach": thinking aloud
            elif m and m.group().lower() == "failed because" and self.tool_error_before(index) is None:
                m = None  # explaining a failure the user asked about, not an attempt of its own that just failed
            if m:
                self.abandons.append(self._quote(block.text, a, b, m, label, index, "assistant", thinking))
            if thinking:
                continue
            for cue, found in ((cues.DECISION, self.decisions), (cues.OPEN, self.open_items)):
                if (cue is cues.OPEN and index < self.tail_start) or \
                        (cue is cues.DECISION and (classify.asks(sentence) or ready(sentence))):
                    continue
                m = cue.search(sentence, low, present)
                if m is None and cue is cues.DECISION and first_sentence:
                    m = COMPLETED_RE.match(sentence)  # "Done. Added the flag …": a text that opens by reporting work done
                if m is None and cue is cues.DECISION:
                    m = classify.infers(sentence, _ASSISTANT)  # "So the hook does send it — we just don't parse it."
                if m is None and cue is cues.DECISION:
                    m = classify.reports_state(sentence, _ASSISTANT)  # "Now it uses proper booleans."
                if m:
                    end = b
                    if cue is cues.DECISION and len(sentence.strip()) < 20:
                        # "Works." says little: the sentence after it says what works
                        more = [s for s in cues.sentence_spans(block.text) if s[0] >= b][:1]
                        nxt = block.text[more[0][0]:more[0][1]] if more else ""
                        if more and more[0][1] - a <= cues.QUOTE_CAP and "\n" not in block.text[a:more[0][1]] \
                                and not _ANNOUNCE_RE.match(nxt) and not nxt.rstrip().endswith(":"):
                            end = more[0][1]
                    if end == b and m.re is COMPLETED_RE and not classify.names_what(sentence, m.end()):
                        continue  # a bare "Done." names nothing done
                    found.append(self._quote(block.text, a, end, m, label, index, "assistant"))

    def _closing_reports(self) -> None:
        """The conclusion of a turn is its final report: when the assistant worked in a turn (used a
        tool) and then wrote a text that ends it (nothing of the assistant's after it before the
        user speaks again: no tool use, no interrupt, no refusal), that text's opening joins the
        decisions, cue or no cue ("All tasks are complete.", "Done. I made two changes:"), unless
        it says nothing yet: a question, an announced next step, a heading, a lead-in to a list
        ("Here's what I found:") or one bare word ("Pushed."). A turn that ends on a tool use made
        no report. The extractors list a turn's latest conclusion that stands, so a step narrated
        mid-turn concludes nothing once the turn reports. A report whose prose already states a
        conclusion keeps it; one whose conclusions are all list items ("- Changed the test to …")
        is stated by its opening, which is then the one the turn lands on (it follows them in the list)."""
        messages = self.plan.messages
        # a question menu put to the user hands the turn over as the user's next message does
        menus = [i for i, m in enumerate(messages) if m.role != sp.ASSISTANT and any(
            b.kind == sp.ANSWER or (b.kind == sp.REJECTED and b.tool in QUESTION_TOOLS) for b in m.blocks)]
        bounds = sorted({*self.user_turns, *menus, len(messages)})
        # the assistant texts whose prose already states a conclusion
        stated = {d.index for d in self.decisions if d.role == "assistant" and not _LIST_ITEM_RE.match(d.text)}
        added = False
        for start, end in zip(bounds, bounds[1:], strict=False):
            found = self._closing_text(start, end)
            if found is None:
                continue
            index, message, block = found
            if index in stated:
                continue  # the report states its conclusion in its prose (a list item is a detail of it)
            if not any(b.kind == sp.TOOL_USE and b.tool not in QUESTION_TOOLS
                       for m in messages[start + 1:index + 1] for b in m.blocks):
                continue  # a reply without work: an answer or a discussion, no report of work done
            quote = self._opening(index, message, block)
            if quote is not None:
                self.decisions.append(quote)
                added = True
        if added:
            self.decisions.sort(key=lambda q: q.index)  # stable: a message's own order is kept

    def _closing_text(self, start: int, end: int) -> tuple[int, sp.Message, sp.Block] | None:
        """The assistant's text that ends the turn of messages [start, end): the last thing the
        assistant did before the user spoke again or was handed a question menu (None when that
        was a tool use, or the user interrupted or refused it)."""
        for i in range(end - 1, start, -1):
            m = self.plan.messages[i]
            if m.role in _ASIDE_ROLES:
                continue
            if m.role != sp.ASSISTANT or not m.blocks:
                return None
            blocks = m.blocks
            while blocks and blocks[-1].kind == sp.TOOL_USE and blocks[-1].tool in QUESTION_TOOLS:
                blocks = blocks[:-1]  # the menu itself: what came before it ends the turn
            if not blocks:
                continue
            last = blocks[-1]
            if last.kind != sp.TEXT or not last.text.strip():
                return None
            return i, m, next(b for b in m.blocks if b.kind == sp.TEXT and b.text.strip())
        return None

    def _opening(self, index: int, message: Message, block: Block) -> Quote | None:
        """The opening of a closing report: its first sentence, with the next one when the first is
        short ("Perfect! I found and fixed the issue."); None when it says nothing yet."""
        spans = after_ready(list(self._sentences(index, message, block)))
        if not spans:
            return None
        a, b, sentence, _, _, label = spans[0]
        if classify.asks(sentence) or _ANNOUNCE_RE.match(sentence) or sentence.lstrip().startswith("#"):
            return None
        end = b
        if len(spans) > 1 and len(sentence.strip()) < 20 and spans[1][1] - a <= cues.QUOTE_CAP and \
                "\n" not in block.text[a:spans[1][0]]:
            nxt = spans[1][2]
            if classify.asks(nxt) or _ANNOUNCE_RE.match(nxt):
                return None  # "Done. Want me to commit?": nothing named
            end = spans[1][1]
        elif len(_WORDS_RE.findall(sentence)) < 2:
            return None  # "Pushed." alone names nothing
        if block.text[a:end].rstrip().endswith(":") and not COMPLETED_RE.match(sentence):
            return None  # a lead-in to what follows ("All clean. Here's what was done:"), not "Done. I made:"
        return self._quote(block.text, a, end, None, label, index, "assistant")

    def _conceded_corrections(self) -> None:
        """A user turn the assistant conceded to ("you're right", "good point") corrected it, cue
        or no cue: its first sentence joins the corrections (in order)."""
        have = {c.index for c in self.corrections}
        added = False
        for turn, concession in self.concessions:
            if turn in have or self.last_assistant_text(turn) is None:
                continue
            message = self.plan.messages[turn]
            for block in message.blocks:
                if block.kind not in sp.WORDS:
                    continue
                first = next(self._sentences(turn, message, block), None)
                if first and classify.AGREE_RE.match(first[2]):
                    break  # "okay, let's try the pty approach" — "You're right": agreement answered, no error
                if first:
                    a, b, sentence, _, _, label = first
                    self.corrections.append(self._quote(block.text, a, b, None, label, turn, "user"))
                    asks = classify.asks(sentence)
                    error = classify.ERROR_CONCEDED_RE.search(concession.text)
                    if (asks or EXTEND_RE.search(sentence)) and error and error.group().casefold() in ("good catch",
                                                                                                     "great catch"):
                        error = None  # "are we missing tests for this?" — "Good catch on the tests": an omission
                    if not error and not OBJECTION_RE.search(sentence) and (asks or EXTEND_RE.search(sentence)):
                        self.praised.add(turn)  # praise for a follow-up question or an addition
                    else:  # it overrules: none of its words is a decision of the user's
                        self.decisions = [d for d in self.decisions if d.index != turn or d.role != "user"]
                    have.add(turn)
                    added = True
                break
        if added:
            self.corrections.sort(key=lambda q: q.index)

    def _failure_corrections(self) -> None:
        """A failure report answering an outcome the assistant had just claimed ("all tests
        pass" … "`mise run test:ci` fails") tells it that what it did failed: a correction."""
        have = {c.index for c in self.corrections}
        added = False
        for index, report in self.failure_reports.items():
            found = self.last_assistant_text(index)
            if index in have or found is None:
                continue
            claimed = any(d.index == found[0] and d.role == "assistant" and OUTCOME_RE.search(d.text)
                          for d in self.decisions)
            if claimed and _FAILED_RE.search(report.text):
                self.corrections.append(report)
                added = True
        if added:
            self.corrections.sort(key=lambda q: q.index)

    def intents_from_end(self) -> Iterator[Quote]:
        """The stated intentions to change the work, the latest first, found as they are asked
        for: the stated-intent-vs-git check reads back from the end and stops after a few flags,
        so a long session's early turns are seldom read for them at all. (The user's sentences
        taken as corrections are not read as intents.)"""
        messages = self.plan.messages
        for index in range(len(messages) - 1, -1, -1):
            message = messages[index]
            found: list[Quote] = []
            for block in message.blocks:
                if message.role == sp.ASSISTANT:
                    if block.kind != sp.TEXT:
                        continue
                    role = "assistant"
                elif (block.kind in sp.WORDS and message.role == sp.USER) or \
                        (block.kind == sp.REJECTED and block.text) or \
                        (block.kind == sp.ANSWER and len(block.text) > 40 and
                         not cues.looks_like_injection(block.note or "")):
                    role = "user"
                else:
                    continue
                corrected = [c.text for c in self.corrections if c.index == index] if role == "user" else []
                for a, b, sentence, low, present, label in self._sentences(index, message, block):
                    if corrected and any(c in sentence for c in corrected):
                        continue
                    m = cues.INTENT.search(sentence, low, present)
                    if m:
                        found.append(self._quote(block.text, a, b, m, label, index, role))
            yield from reversed(found)

    @functools.cached_property
    def intents(self) -> list[Quote]:
        """Every stated intention, in order (see :meth:`intents_from_end`)."""
        return list(reversed(list(self.intents_from_end())))

    # -- shared lookups -----------------------------------------------------
    def last_assistant_text(self, before: int | None = None) -> tuple[int, sp.Message] | None:
        end = len(self.plan.messages) if before is None else before
        for i in range(end - 1, -1, -1):
            m = self.plan.messages[i]
            if m.role == sp.ASSISTANT and m.text.strip():
                return i, m
        return None

    def hypothesis_before(self, index: int, correction: Quote | None = None) -> Quote | None:
        """The assistant claim a user correction at ``index`` overruled: in the assistant's last
        text before it, the sentence sharing the most words with the correction (two at least),
        else the first that states a hypothesis; None when no sentence is clearly the one (an
        acknowledgement, a plan or a summary is not what a correction overrules)."""
        found = self.last_assistant_text(index)
        if found is None:
            return None
        i, message = found
        words = correction.words if correction is not None else set()
        best, best_shared, hypothesis = None, 1, None
        said_at = self.plan.messages[index].line if index < len(self.plan.messages) else None
        for block in message.blocks:
            if block.kind != sp.TEXT or not block.text.strip() or \
                    (said_at is not None and not message.source and block.line > said_at):
                continue  # a claim the assistant wrote after the user's words is not what they overrule
            for a, b, sentence, _, _, label in self._sentences(i, message, block):
                if sentence.rstrip().endswith("?") or sentence.lstrip().startswith(("|", "#")):
                    continue  # a question, a table row or a heading claims nothing
                shared = len(words & cues.significant_words(sentence)) if words else 0
                if shared > best_shared:
                    best, best_shared = (block.text, a, b, None, label), shared
                m = _HYPOTHESIS_RE.search(sentence) if hypothesis is None else None
                if m:
                    hypothesis = (block.text, a, b, m, label)
        chosen = best or hypothesis
        if chosen is None:
            return None
        text, a, b, m, label = chosen
        return self._quote(text, a, b, m, label, i, "assistant")

    def user_turns_before(self, index: int) -> int:
        """Index of the last user turn before ``index`` (-1 if none)."""
        before = [i for i in self.user_turns if i < index]
        return before[-1] if before else -1

    def next_user_turn(self, index: int) -> int | None:
        for i in self.user_turns:
            if i > index:
                return i
        return None

    def overruled_by(self, decision: Quote) -> Quote | None:
        """The user correction that overruled ``decision``: one that follows it and targets it —
        in the user's very next turn, aimed at the claim (the sentence of the assistant's last
        text the correction is about, :meth:`hypothesis_before`) or sharing a word with it; or a
        later one about the same things (three words in common: two, turns later, are mostly the
        session's topic) — with no later conclusion restating it."""
        if decision.role == "user":
            return None
        nxt = self.next_user_turn(decision.index)
        words = decision.words
        for c in self.corrections:
            if c.index <= decision.index or c.index in self.praised:
                continue
            shared = len(words & c.words)
            targeted = shared >= (2 if c.index == nxt else 3)
            if not targeted and c.index == nxt:
                targeted = shared >= 1
                last = self.last_assistant_text(c.index)
                if not targeted and last is not None and last[0] == decision.index:
                    # the claim the correction aims at, or one that builds on it (said after it
                    # in the same text: "The problem is probably X. I'll switch to Y.")
                    target = self.hypothesis_before(c.index, c)
                    if target is not None and target.label == decision.label:
                        text = last[1].text
                        at, own = text.find(target.text), text.find(decision.text)
                        targeted = target.text in decision.text or decision.text in target.text or \
                            0 <= at < own
            if targeted:
                restated = any(d.index > c.index and len(words & d.words) >= 2
                               for d in self.decisions)
                return None if restated else c
        return None

    def approved(self, index: int) -> Quote | None:
        """For a user turn that only approves ("yes", "go ahead"): what it approved — the
        question or proposal that ends the assistant's last text before it."""
        message = self.plan.messages[index]
        if not APPROVAL_RE.match(message.text.strip()):
            return None
        found = self.last_assistant_text(index)
        if found is None:
            return None
        i, prior = found
        proposal, question = None, None
        for block in prior.blocks:
            if block.kind != sp.TEXT:
                continue
            for a, b, sentence, low, present, label in self._sentences(i, prior, block):
                if sentence.rstrip().endswith("?"):
                    question = (block.text, a, b, label)
                elif cues.INTENT.search(sentence, low, present) and not _ANNOUNCE_RE.match(sentence):
                    proposal = (block.text, a, b, label)
        chosen = question or proposal
        if chosen is None:
            return None
        text, a, b, label = chosen
        return self._quote(text, a, b, None, label, i, "assistant")

    def tool_error_before(self, index: int, reach: int = 4) -> tuple[str, int] | None:
        """(label, message index) of a tool error shortly before ``index``, no user turn between."""
        for i in range(index - 1, max(-1, index - reach - 1), -1):
            m = self.plan.messages[i]
            if m.is_user_turn:
                return None
            for b in m.blocks:
                if b.kind == sp.TOOL_ERROR:
                    return m.label(b.line), i
        return None

    def attempt_before(self, index: int, stop: int) -> Quote | None:
        """What the assistant said it was trying just before message ``index`` (after ``stop``):
        the attempt a tool error disproved, not the next one it announces."""
        found = self.last_assistant_text(index)
        if found is None or found[0] <= stop:
            return None
        return self.hypothesis_before(found[0] + 1)

    def first_label(self) -> str:
        m = self.plan.messages[0]
        return m.label(m.blocks[0].line) if m.blocks else m.label()
