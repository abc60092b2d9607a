"""The five built-in extractors: deterministic, no model, the section shapes of
the handoff skill (docs/handoff.md).

They read the prepared spine (never tool output) through one
:class:`~gitrefocus.handoff.analysis.Analysis` and, for Code-state and the
stated-intent-vs-git flags, a read-only :class:`~gitrefocus.handoff.gitstate.GitState`.
Every claim carries an inline pointer and a matching entry in ``pointers``.
Text from the transcript appears only as verbatim quotes in quotation marks;
text that tries to instruct its reader is never quoted, only pointed at.
"""

from __future__ import annotations

import bisect
import os
import re
from collections import Counter
from typing import TypeVar, cast

from gitrefocus.handoff import classify, cues
from gitrefocus.handoff import spine as sp
from gitrefocus.handoff.analysis import (
    _ANNOUNCE_RE,
    APPROVAL_RE,
    FENCE_RE,
    OUTCOME_RE,
    QUESTION_TOOLS,
    READ_ONLY_TOOLS,
    Analysis,
    Quote,
    after_ready,
)
from gitrefocus.handoff.gitstate import GitState, relative_path
from gitrefocus.handoff.prepare import Plan
from gitrefocus.handoff.sections import Pointer, Section

MAX_CORRECTIONS = 12
MAX_HYPOTHESES = 10
MAX_CONSTRAINTS = 10
DOCUMENT_RULES = 3  # rule-like sentences in one user message that make it a document, not the user's rules
DOCUMENT_CHARS = 500  # ... when the message is that long: three rules typed in a line or two are the user's
MAX_DECISIONS = 5  # conclusions listed: the latest that stand (a long session's early findings were passed)
PER_TURN = 1   # conclusions listed per user turn: the turn's latest that stands (an answer always)
LAST_TURN = 2  # ... and the session's last turn, which often ends on two (a review's outcome, the commit after it)
MAX_REQUESTS = 10
MAX_REFUSAL_REQUESTS = 5  # ... and requests typed when refusing a tool use
MAX_TODOS = 8
MAX_FLAGS = 8
MAX_CHANGES = 25
_OMITTED = "[instruction-like text omitted]"
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f\u2028\u2029\x85]")


class _Draft:
    """Markdown lines plus the pointers they cite."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.pointers: list[Pointer] = []

    def add(self, text: str, *pointers: Pointer) -> None:
        """Add a line; ``{ptr0}``, ``{ptr1}``… place each pointer inline, ``{ptr}``
        places all of them, and without a placeholder they go at the end."""
        refs = [f"(`{_CONTROL_RE.sub('?', p.locator()).replace('`', chr(39))}`)" for p in pointers]
        if "{ptr" in text:
            for i, ref in enumerate(refs):
                text = text.replace("{ptr%d}" % i, ref)
            line = text.replace("{ptr}", " ".join(refs))
        else:
            line = " ".join([text, *refs]) if refs else text
        self.lines.append(line)
        for p in pointers:
            if p not in self.pointers:
                self.pointers.append(p)

    def section(self, name: str, empty: str) -> Section:
        body = "\n".join(self.lines).strip()
        return Section(name, body or empty, self.pointers)


def _plain(value: str | None, cap: int = 160) -> str:
    """A transcript-derived value (path, branch) made safe to show: one line, no directives."""
    text = " ".join(str(value or "").split())
    if cues.looks_like_injection(text):
        return _OMITTED
    text = text.replace("`", "'")
    return text if len(text) <= cap else text[: cap - 1] + "…"


def _same_sentence(one: Quote, other: Quote) -> bool:
    """Whether two quotes are windows of one sentence (of one line)."""
    if one.label != other.label:
        return False
    a, b = one.text.strip(), other.text.strip()
    if a in b or b in a or a[:40] == b[:40]:
        return True
    # two windows of one long sentence, cut around different cues: they overlap
    short, long_ = sorted((a, b), key=len)
    return len(short) >= 60 and any(short[i:i + 30] in long_ for i in range(0, len(short) - 29, 15))


T = TypeVar("T")


def _spread(items: list[T], cap: int) -> list[T]:
    """Keep ``cap`` items: a few of the earliest and the rest from the end."""
    if len(items) <= cap:
        return items
    head = cap // 3
    return items[:head] + items[len(items) - (cap - head):]


# -- 1. Convergence --------------------------------------------------------
# an outcome a later failure report can reverse (the reports: Analysis.failure_reports)
_OUTCOME_RE = OUTCOME_RE


def _request(an: Analysis, index: int) -> tuple[str, list[Pointer]] | None:
    """A user turn as a request: its first sentences, or — for a bare approval — what it
    approved."""
    q = _first_sentence(an, index)
    if q is None:
        return None
    proposal = an.approved(index)
    if proposal is not None:
        return (f"approved {q.md()} {{ptr0}} — the assistant's proposal: {proposal.md()} {{ptr1}}",
                [q.pointer("the user's approval"), proposal.pointer("what the user approved")])
    return f"{q.md()} {{ptr0}}", [q.pointer("the user's request")]


def _reversed(an: Analysis, decisions: list[Quote], n: int, failures: list[int]) -> Quote | bool | None:
    """The user's next failure report (``failures``: the user turns reporting one) that reverses
    the outcome decision ``n`` claimed ("tests pass", "works now"); True when a later conclusion of
    the same kind follows the report (that one says where it landed); None when no report follows,
    or when a later outcome stands between (the report speaks to that one)."""
    q = decisions[n]
    if q.role != "assistant" or not _OUTCOME_RE.search(q.text):
        return None
    at = bisect.bisect_right(failures, q.index)
    if at == len(failures):
        return None
    i = failures[at]
    for d in decisions[n + 1:]:  # in order of the session
        if d.index >= i:
            break
        if d.index > q.index and d.role == "assistant" and _OUTCOME_RE.search(d.text):
            return None
    if any(d.index > i and d.words & q.words and _OUTCOME_RE.search(d.text) for d in decisions):
        return True
    return _first_sentence(an, i)


_STANDS, _RESTATED, _REVERSED = "stands", "restated", "reversed"


def _standing(an: Analysis, decisions: list[Quote], n: int,
              failures: list[int]) -> tuple[str, Quote | None, str]:
    """Whether decision ``n`` still stands: (_STANDS, None, ""); (_REVERSED, the correction or
    failure report that reversed it, how); or (_RESTATED, None, "") when a later statement of
    the same speaker says as much."""
    q = decisions[n]
    c = an.overruled_by(q)
    if c is not None:
        return _REVERSED, c, "the user overruled it"
    if q.words and any(later.words and q.words <= later.words and later.role == q.role
                       for later in decisions[n + 1:]):
        return _RESTATED, None, ""  # judged where it was said last ("Build passes." … "Build and tests pass.")
    report = _reversed(an, decisions, n, failures)
    if report is True:
        return _RESTATED, None, ""  # reversed, then reached again: the later claim is the one that stands
    if isinstance(report, Quote):
        return _REVERSED, report, "the user then reported a failure"
    return _STANDS, None, ""


def convergence(an: Analysis) -> Section:
    d = _Draft()
    messages = an.plan.messages
    if an.user_turns:
        request = _request(an, an.user_turns[-1])
        if request:
            text, pointers = request
            d.add(f"- Final request: {text}", *pointers)
    # not a bare approval (shown with what it approved, among the requests); a user's decision
    # only in answer to the assistant (the session's opening words describe the task, they decide
    # nothing yet)
    decisions = [q for q in an.decisions if not (q.role == "user" and q.question is None and (
        APPROVAL_RE.match(q.text) or an.last_assistant_text(q.index) is None))]
    failures = sorted(an.failure_reports)
    # the latest conclusions that stand (and the latest reversed), judged from the end, as far as
    # needed (each judgement reads the rest of the session); what a long session found early and
    # went past is not listed: the brief is for where it stands now
    tail: list[Quote] = []
    overruled: list[tuple[Quote, Quote, str]] = []
    judged: dict[int, str] = {}
    turns: Counter[int] = Counter()  # conclusions listed per turn: each turn's latest that stand
    for n in range(len(decisions) - 1, -1, -1):
        if (len(tail) >= MAX_DECISIONS and len(overruled) >= 2) or len(judged) >= 500:
            break
        verdict, c, why = _standing(an, decisions, n, failures)
        judged[n] = verdict
        turn = an.user_turns_before(decisions[n].index + (decisions[n].role == "user"))
        limit = LAST_TURN if an.user_turns and turn == an.user_turns[-1] else PER_TURN
        if verdict == _STANDS and len(tail) < MAX_DECISIONS and (turns[turn] < limit
                                                                    or decisions[n].question is not None):
            tail.insert(0, decisions[n])
            turns[turn] += 1
        elif c is not None and len(overruled) < 2:
            overruled.insert(0, (decisions[n], c, why))
    for q in tail:
        if q.question is not None:
            d.add(f"- The user chose {q.md()} when asked {cues.quote_md(_plain(q.question, 160))}",
                  q.pointer("the user's answer"))
            continue
        who = "the user decided" if q.role == "user" else "concluded"
        d.add(f"- {who.capitalize()}: {q.md()}", q.pointer("conclusion / decision"))
    for q, c, why in overruled:
        d.add(f"- Superseded, not concluded: {q.md()} {{ptr0}} — {why} {{ptr1}}",
              q.pointer("superseded conclusion"), c.pointer("the user's correction"))
    found = an.last_assistant_text()
    if found and not found[1].text.rstrip().endswith("?"):  # a closing question is an open thread
        i, message = found
        last = _first_sentence(an, i)
        if last and not _ANNOUNCE_RE.match(last.text) and not _opens_asking(last.text) and \
                not _ends_announcing(message):
            more = _next_sentence(an, i, last) if last.text.rstrip().endswith(":") else None
            after = f" {more.md()}" if more else ""
            d.add(f"- Last word from the assistant: {last.md()}{after}", last.pointer("where the session landed"))
    if messages and messages[-1].is_user_turn:
        m = messages[-1]
        d.add("- The session ended on a user message that was not answered",
              Pointer("transcript", m.label(m.blocks[0].line), "unanswered last message"))
    if not tail:
        d.lines.insert(0, "The session did not state a clear conclusion that still stands; the latest position "
                          "is below.")
    return d.section("convergence", "The transcript holds no statement of a conclusion.")


def _next_sentence(an: Analysis, index: int, after: Quote) -> Quote | None:
    """The sentence after ``after`` in the same message (a lead-in ending in a colon says little)."""
    message = an.plan.messages[index]
    for block in message.blocks:
        if block.kind not in sp.WORDS:
            continue
        at = block.text.find(after.text)
        if at < 0:
            continue
        end = at + len(after.text)
        for a, b, _, _, _, label in an._sentences(index, message, block):
            if a >= end:
                return an._quote(block.text, a, b, None, label, index, message.role)
        return None
    return None


def _ends_announcing(message: sp.Message) -> bool:
    """Whether the session's last text is one sentence leading in to an announced step ("I have
    what I need. Let me write the plan."): the session stopped before that step, so the lead-in
    concludes nothing. A longer text that ends so (a finding, then "Let me fix it.") still states
    where the session landed."""
    blocks = [b for b in message.blocks if b.kind == sp.TEXT and b.text.strip()]
    spans = cues.sentence_spans(blocks[-1].text) if blocks else []
    return len(spans) == 2 and _ANNOUNCE_RE.match(blocks[-1].text[spans[1][0]:spans[1][1]]) is not None


def _opens_asking(text: str) -> bool:
    """Whether ``text`` opens with a question to the user ("Which one do you prefer? Happy to …"):
    it waits on the user's word, whatever follows."""
    spans = cues.sentence_spans(text)
    return bool(spans) and classify.asks(text[spans[0][0]:spans[0][1]])


def _first_sentence(an: Analysis, index: int) -> Quote | None:
    message = an.plan.messages[index]
    for block in message.blocks:
        if block.kind not in sp.WORDS or not block.text.strip():
            continue
        spans = list(an._sentences(index, message, block))
        for a, b, _, _, _, label in after_ready(spans) if message.role == sp.ASSISTANT else spans:
            end = b
            # take up to two short sentences
            more = [s for s in cues.sentence_spans(block.text) if s[0] >= b][:1]
            if more and more[0][1] - a <= cues.QUOTE_CAP and "\n" not in block.text[a:more[0][1]]:
                end = more[0][1]
            return an._quote(block.text, a, end, None, label, index, message.role)
    return None


# -- 2. Dead-ends ----------------------------------------------------------
def dead_ends(an: Analysis) -> Section:
    d = _Draft()
    hyp = _Draft()
    seen_hyp: set[str] = set()
    corrections = _spread(an.corrections, MAX_CORRECTIONS)
    for q in corrections:
        # a follow-up the assistant praised ("great point!") builds on its claim: it overrules none
        h = None if q.index in an.praised else an.hypothesis_before(q.index, q)
        if h and h.label not in seen_hyp and len(seen_hyp) < MAX_HYPOTHESES:
            seen_hyp.add(h.label)
            hyp.add(f"- {h.md()} {{ptr0}} — overruled by the user {{ptr1}}", h.pointer("assistant position"),
                    q.pointer("user correction"))
    for q in _spread(an.abandons, MAX_HYPOTHESES):
        if q.label in seen_hyp or len(seen_hyp) >= MAX_HYPOTHESES * 2:
            continue
        seen_hyp.add(q.label)
        error = an.tool_error_before(q.index)
        source = " (from plaintext thinking)" if q.thinking else ""
        attempt = an.attempt_before(error[1], an.user_turns_before(error[1])) if error else None
        if attempt is not None and _ANNOUNCE_RE.match(attempt.text):
            attempt = None  # "let me run the tests" announces an action; it claims nothing
        if error and attempt and attempt.label != q.label and attempt.label not in seen_hyp:
            seen_hyp.add(attempt.label)
            hyp.add(f"- {attempt.md()} {{ptr0}} — disproved by evidence: a tool error {{ptr1}}; the assistant "
                    f"then dropped it: {q.md()}{source} {{ptr2}}", attempt.pointer("the attempt"),
                    Pointer("transcript", error[0], "tool error"), q.pointer("abandonment cue"))
        elif error:
            hyp.add(f"- {q.md()}{source} {{ptr0}} — abandoned after a tool error {{ptr1}}",
                    q.pointer("abandonment cue"), Pointer("transcript", error[0], "tool error"))
        else:
            hyp.add(f"- {q.md()}{source} {{ptr0}} — abandoned by the assistant", q.pointer("abandonment cue"))
    for message, block in an.refusals:
        label = message.label(block.line)
        hyp.add(f"- A `{_plain(block.tool or 'tool')}` tool use was refused by the user",
                Pointer("transcript", label, "tool use refused"))
    for m in an.rewinds:
        hyp.add(f"- The user rewound the conversation: {_plain(m.blocks[0].text, 260)}",
                Pointer("transcript", m.label(), "rewound branch"))
    for m in an.failed_sidechains:
        hyp.add("- A subagent ended without a final answer", Pointer("transcript", _sidechain_ref(m), "sidechain"))
    if hyp.lines:
        d.add("### Rejected hypotheses")
        d.lines.extend(hyp.lines)
        d.pointers.extend(p for p in hyp.pointers if p not in d.pointers)
    if corrections:
        d.add("### User corrections (verbatim)")
        for q in corrections:
            d.add(f"- > {q.md()} {{ptr}} — overruled the assistant", q.pointer("verbatim user correction"))
    return d.section("dead_ends", "No rejected hypotheses or user corrections were found in the transcript.")


def _sidechain_ref(m: sp.Message) -> str:
    if m.source:
        return f"{m.source}:L{m.line}-L{max(m.line, m.last_line)}"
    return f"L{m.line}-L{max(m.line, m.last_line)}"


# -- 3. Code-state ---------------------------------------------------------
def code_state(git: GitState, plan: Plan) -> Section:
    d = _Draft()
    if not git.ok:
        return Section("code_state", f"Git state unavailable: {_plain(git.problem, 300)}.", [])
    where = f"`{_plain(git.root, 200)}`"
    if plan.cwd and git.root and os.path.realpath(plan.cwd) != git.root:
        where += f" (the transcript's working directory was `{_plain(plan.cwd, 200)}`)"
    if git.head:
        head = Pointer("commit", git.head[:12], "HEAD")
        d.add(f"Repository {where}, branch `{_plain(git.branch or 'detached HEAD')}` at {git.head[:10]}", head)
    else:
        d.add(f"Repository {where}, branch `{_plain(git.branch or '?')}` has no commits yet.")
    d.add("")
    d.add("**Changed files** (working tree and index, from git status):")
    if not git.changes:
        d.add("- None: the working tree is clean.")
    for change in git.changes[:MAX_CHANGES]:
        counts = f", +{change.added}/-{change.removed}" if change.added is not None else ""
        state = change.state if change.state == "untracked" else \
            f"{change.state}, {'staged' if change.staged else 'unstaged'}"
        shown = _plain(change.path, 300)  # a file name may hold newlines or directives
        d.add(f"- `{shown}` — {state}{counts}", Pointer("file", shown, state))
    if git.changes_total > MAX_CHANGES:
        d.add(f"- … and {git.changes_total - MAX_CHANGES} more changed path(s).")
    d.add("")
    session = git.session_commits()
    if session:
        d.add(f"**Commits since the session started** ({len(session)}{'+' if len(session) >= 30 else ''}):")
        for commit in session[:15]:
            files = f" — {len(commit.files)} file(s)" if commit.files else ""
            d.add(f"- {commit.short} {_plain(commit.subject, 120)}{files}", Pointer("commit", commit.short, "commit"))
    elif git.commits:
        d.add("**Recent commits** (none since the session started):")
        for commit in git.commits[:5]:
            d.add(f"- {commit.short} {_plain(commit.subject, 120)}", Pointer("commit", commit.short, "commit"))
    staged = sum(1 for c in git.changes if c.staged)
    untracked = sum(1 for c in git.changes if c.state == "untracked")
    unstaged = len(git.changes) - staged - untracked
    d.add("")
    d.add(f"State: {staged} staged, {unstaged} unstaged, {untracked} untracked path(s)." if git.changes
          else "State: nothing staged or uncommitted.")
    return d.section("code_state", "No git state.")


# -- 4. Open-threads & conflicts (with M5) ---------------------------------
def open_threads(an: Analysis, git: GitState) -> Section:
    d = _Draft()
    plan = an.plan
    threads = _Draft()
    found = an.last_assistant_text()
    # what the assistant said in the session's last turn (or its last text, when the last turn
    # holds none): the final state, not a step it reported along the way
    final = an.user_turns[-1] if an.user_turns and found and found[0] > an.user_turns[-1] else \
        (found[0] - 1 if found else len(plan.messages))
    seen: set[str] = set()
    for q in an.open_items:
        if q.index > final and q.text not in seen and len(seen) < 8 and not _ANNOUNCE_RE.match(q.text) \
                and not q.text.rstrip().endswith(":"):
            seen.add(q.text)
            threads.add(f"- {q.md()}", q.pointer("unfinished / next step"))
    refused = _refused_at_the_end(an)
    if refused is not None:
        message, block = refused
        words = f" with the words {cues.quote_md(_plain(block.text, 160))}" if block.text.strip() and \
            not cues.looks_like_injection(block.text) else ""
        threads.add(f"- The session ended on a refused `{_plain(block.tool or 'tool', 40)}`{words}: what it would "
                    f"have done was not done", Pointer("transcript", message.label(block.line), "refused at the end"))
    elif found and not (plan.messages and plan.messages[-1].is_user_turn):
        stopped = _stopped_mid_task(an, *found)
        if stopped:
            threads.add(f"- The session stopped while the assistant was working; its last words: {stopped.md()}",
                        stopped.pointer("the session's last words"))
    todos = [(status, content, line) for status, content, line in plan.todos if status != "completed"]
    asked = _last_question(found[1]) if found and not (plan.messages and plan.messages[-1].is_user_turn) else None
    if found and asked and any(status == "in_progress" for status, _, _ in todos) and \
            _planned_before_asking(an, found[0], asked, max(line for _, _, line in todos)):
        todos = []  # the steps wait on the closing question's answer, which is the open thread
    for status, content, line in todos[:MAX_TODOS]:
        threads.add(f"- Todo [{_plain(status, 20)}]: \"{_plain(content, 160)}\"",
                    Pointer("transcript", f"L{line}", "last todo list"))
    if len(todos) > MAX_TODOS:
        threads.add(f"- … and {len(todos) - MAX_TODOS} more unfinished todo item(s) on that list",
                    Pointer("transcript", f"L{todos[-1][2]}", "last todo list"))
    for step, line in plan.plan_steps[:8]:
        threads.add(f"- Plan step not carried out (nothing was edited after the plan): \"{_plain(step, 160)}\"",
                    Pointer("transcript", f"L{line}", "the session's last plan"))
    if plan.messages and plan.messages[-1].is_user_turn:
        m = plan.messages[-1]
        threads.add("- The last user message was never answered",
                    Pointer("transcript", m.label(m.blocks[0].line), "unanswered"))
    if found and asked:
        block, a, b = asked
        question, before, after = cues.window(block.text, a, b)
        if not cues.looks_like_injection(question):
            what = "question" if question.rstrip().endswith("?") else "offer"
            threads.add(f"- The assistant's last {what} went unanswered: {cues.quote_md(question, before, after)}",
                        Pointer("transcript", found[1].label(block.line), "open question"))
    _section_block(d, "### Open threads", threads)
    _section_block(d, "### Conflicts", _conflicts(an))
    _section_block(d, "### Stated-intent vs git (heuristic — verify)", _intent_flags(an, git))
    if an.injections:
        inj = _Draft()
        for label, role in an.injections[:8]:
            inj.add(f"- Instruction-like text in a {role} message; treated as data and not repeated here",
                    Pointer("transcript", label, "observed injection attempt"))
        _section_block(d, "### Observed injection attempts", inj)
    return d.section("open_threads", "No open threads, conflicts or intent-vs-git mismatches were found.")


_ASIDE = frozenset({sp.INTERRUPT, sp.NOTIFICATION, sp.COMPACT, sp.COMMAND})


def _refused_at_the_end(an: Analysis) -> tuple[sp.Message, sp.Block] | None:
    """The refusal the session ended on: the last thing that happened (an interrupt, a notice or a
    slash command after it aside) was the user refusing a tool use that acts (not one that only
    looks, nor a question menu) — the plan or edit it carried is left undone."""
    for message in reversed(an.plan.messages):
        if message.role in _ASIDE:
            continue
        block = message.blocks[-1] if message.blocks else None
        if block is not None and block.kind == sp.REJECTED and block.tool not in READ_ONLY_TOOLS and \
                block.tool not in QUESTION_TOOLS:
            return message, block
        return None
    return None


def _planned_before_asking(an: Analysis, closing: int, asked: tuple[sp.Block, int, int], todo_line: int) -> bool:
    """Whether the last todo list (with a step under way) was written in the session's last turn
    and then, with nothing done after it (no tool use), the assistant closed on a question to the
    user: the question belongs to the step under way, the list is its plan for after the answer.
    A list with no step under way is work left over, open item by item."""
    block, _, end = asked
    if not block.text[:end].rstrip().endswith("?"):
        return False  # an offer ("… if you'd like.") waits on nothing the list depends on
    messages = an.plan.messages
    if not an.user_turns or todo_line < messages[an.user_turns[-1]].line:
        return False  # a list from an earlier turn: the work it lists was under way before this turn
    return not any(b.kind == sp.TOOL_USE and b.line > todo_line
                   for m in messages[an.user_turns[-1]:closing + 1] for b in m.blocks)


def _stopped_mid_task(an: Analysis, index: int, message: sp.Message) -> Quote | None:
    """The session's last assistant text when it only announces the next step ("Now let me run
    the tests:") and nothing the assistant said follows: the work stopped midway."""
    blocks = [b for b in message.blocks if b.kind == sp.TEXT and b.text.strip()]
    if not blocks:
        return None
    block = blocks[-1]
    spans = list(an._sentences(index, message, block))
    if not spans:
        return None
    a, b, sentence, _, _, label = spans[-1]
    if not (_ANNOUNCE_RE.match(sentence) or sentence.rstrip().endswith(":")):
        return None
    return an._quote(block.text, a, b, None, label, index, "assistant")


# a question put to the user, wherever it stands in the closing message
_OFFER_RE = re.compile(r"\b(?:want me to|should I|shall I|would you like|do you want|let me know|which (?:one|option)|"
                       r"or should|prefer)\b", re.I)


# ... or an offer that ends it put as a statement, waiting on the user's word ("Ready to commit if you'd
# like.", "Let me know if the wording should change.")
_WISH_RE = re.compile(r"\bif you(?:'d| would)? (?:like|want|prefer)\b|\blet me know (?:if|whether|when|what|which|how)\b|"
                      r"\bwhenever you(?:'re| are) ready\b|\bjust say (?:the word|so)\b", re.I)


def _last_question(message: sp.Message) -> tuple[sp.Block, int, int] | None:
    """The question the session's closing assistant text puts to the user: its last sentence
    ending in a question mark, when the text ends with it or the question offers or asks for a
    choice ("Want me to commit?"); or its last sentence when it offers, waiting on the user's word
    ("Ready to commit if you'd like.")."""
    blocks = [b for b in message.blocks if b.kind == sp.TEXT and b.text.strip()]
    if not blocks:
        return None
    block = blocks[-1]
    spans = cues.sentence_spans(block.text)
    for n in range(len(spans) - 1, -1, -1):
        a, b = spans[n]
        sentence = block.text[a:b].rstrip()
        if n == len(spans) - 1 and _WISH_RE.search(sentence):
            return block, a, b  # an offer put as a statement: "Ready to commit if you'd like."
        if not sentence.endswith("?"):
            continue
        if n == len(spans) - 1 or _OFFER_RE.search(sentence):
            return block, a, b
        return None
    return None


def _section_block(d: _Draft, heading: str, body: _Draft) -> None:
    if not body.lines:
        return
    d.add(heading)
    d.lines.extend(body.lines)
    d.pointers.extend(p for p in body.pointers if p not in d.pointers)


def _conflicts(an: Analysis) -> _Draft:
    """A conclusion later contradicted by the user with no conclusion after it."""
    out = _Draft()
    for q in an.decisions:
        c = an.overruled_by(q)  # a correction that follows and targets it, with nothing restating it
        if c is not None and len(q.words & c.words) >= 2:
            out.add(f"- {q.md()} {{ptr0}} was contradicted by the user {{ptr1}} with no later resolution",
                    q.pointer("decision"), c.pointer("contradiction"))
        if len(out.lines) >= 5:
            break
    return out


def intent_flags(an: Analysis, git: GitState) -> Section | None:
    """The stated-intent-vs-git block on its own (the warm mode adds it to the agent's own
    Open-threads), or None when there is nothing to flag."""
    flags = _intent_flags(an, git)
    if not flags.lines:
        return None
    d = _Draft()
    _section_block(d, "### Stated-intent vs git (heuristic — verify)", flags)
    return d.section("open_threads", "")


def _intent_flags(an: Analysis, git: GitState) -> _Draft:
    out = _Draft()
    if not git.ok:
        if an.plan.files_written or next(an.intents_from_end(), None) is not None:
            out.add(f"- Stated intents could not be checked: {_plain(git.problem, 200)}.")
        return out
    touched = git.touched_paths()
    subjects = [c.subject.lower() for c in git.session_commits()]
    seen: set[str] = set()
    flags = []
    for q in an.intents_from_end():
        if q.text in seen:
            continue
        seen.add(q.text)
        if not _intent_in_git(q.text, touched, subjects, git):
            flags.append(q)
        if len(flags) >= MAX_FLAGS:
            break
    for q in reversed(flags):
        out.add(f"- ⚑ {q.md()} {{ptr}} — stated, but no matching change in git; verify",
                q.pointer("stated intent"))
    edited: dict[str, int] = {}
    for path, line in an.plan.files_written:
        edited[path] = line
    outside = []
    count = 0
    for path, line in edited.items():
        rel = relative_path(path, cast(str, git.root)) if os.path.isabs(path) else path  # ok: root is known
        if rel is None:
            outside.append((path, line))
            continue
        if rel in touched or any(t.endswith("/" + rel) for t in touched):
            continue
        if not os.path.lexists(os.path.join(cast(str, git.root), rel)):
            continue  # created and deleted again within the session: nothing was lost
        if count < MAX_FLAGS:
            out.add(f"- ⚑ The session edited `{_plain(rel, 160)}` {{ptr}} but git shows no change to it "
                    "since the session started; verify", Pointer("transcript", f"L{line}", "edit tool use"))
        count += 1
    if outside:
        path, line = outside[-1]
        out.add(f"- ⚑ {len(outside)} file(s) edited outside `{_plain(git.root, 120)}`, e.g. "
                f"`{_plain(path, 160)}` {{ptr}} — the work may belong to another repository; verify",
                Pointer("transcript", f"L{line}", "edit outside this repository"))
    return out


_REMOVAL_RE = re.compile(r"\b(?:remove|delete|drop|get rid of|clean up|deprecate)\b", re.I)


def _intent_in_git(text: str, touched: set[str], subjects: list[str], git: GitState | None = None) -> bool:
    """Did git record the stated change: a path it names, an identifier or its words in a
    commit subject, or — pickaxe-style — in the lines the session's commits and the working
    tree added (or, for a removal, removed)?"""
    lowered_paths = [t.lower() for t in touched]
    paths = cues.mentioned_paths(text)
    if paths:
        found = any(any(t == p.lower() or t.endswith("/" + p.lower()) or os.path.basename(t) == os.path.basename(p.lower())
                        for t in lowered_paths) for p in paths)
        if found or git is None:
            return found
        deleted = [d.lower() for d in git.pickaxe()[2]]
        return any(any(t == p.lower() or t.endswith("/" + p.lower()) for t in deleted) for p in paths)
    added, removed, _ = git.pickaxe() if git else ("", "", set())
    lines = added + "\n" + removed if _REMOVAL_RE.search(text) else added
    for ident in cues.identifiers(text):
        token = ident.lower()
        if any(token in t for t in lowered_paths) or any(token in s for s in subjects):
            return True
        if len(token) >= 4 and token in lines:
            return True
    words = {w for w in cues.significant_words(text) if len(w) >= 4}
    if any(len(words & cues.significant_words(s)) >= 2 for s in subjects):
        return True
    stems = {os.path.splitext(os.path.basename(t))[0] for t in lowered_paths}
    if words & stems:
        return True
    long_words = {w for w in words if len(w) >= 5}
    return len(long_words) >= 2 and sum(1 for w in long_words if w in lines) >= 2


# -- 5. Basics -------------------------------------------------------------
# the assistant offering to act: an approval of it asks for the work
_OFFER_RE = re.compile(r"\b(?:want me to|should I|shall I|would you like (?:me )?to|do you want (?:me )?to|can I|"
                       r"may I|ready (?:for me )?to|(?:go ahead|proceed|start) (?:and|with)|(?:I|we) can\b)", re.I)
def basics(an: Analysis) -> Section:
    d = _Draft()
    plan = an.plan
    if an.user_turns:
        q = _first_sentence(an, an.user_turns[0])
        if q:
            d.add(f"**What this is:** {q.md()}", q.pointer("the session's first request"))
    if plan.title and not cues.looks_like_injection(plan.title):
        d.add(f"Client's session title: \"{_plain(plan.title)}\"", Pointer("transcript", an.first_label(),
                                                                            "session start"))
    asked = _Draft()
    # the user's turns (the last is Convergence's final request) and the words typed when refusing a
    # tool use that ask for something else, in order
    turns: list[int | Quote] = [*_spread(an.user_turns[1:-1], MAX_REQUESTS),
                                *_spread(an.refusal_requests, MAX_REFUSAL_REQUESTS)]
    for entry in sorted(turns, key=lambda t: t if isinstance(t, int) else t.index):
        if isinstance(entry, Quote):
            asked.add(f"- {entry.md()} {{ptr}} — typed when refusing a tool use", entry.pointer("the user's request"))
            continue
        index = entry
        proposal = an.approved(index)
        if proposal is not None and proposal.text.rstrip().endswith("?") and not _OFFER_RE.search(proposal.text):
            continue  # "yes" to "Does this hook design work?" confirms a presentation; it asks for nothing
        request = _request(an, index)
        if request:
            text, pointers = request
            asked.add(f"- {text[0].upper()}{text[1:]}" if text.startswith("approved") else f"- {text}", *pointers)
    _section_block(d, "### What the user asked since", asked)
    vocab = _vocabulary(an)
    if vocab.lines:
        _section_block(d, "### Vocabulary", vocab)
    # a sentence that both corrects and states a rule is shown once, as the correction
    # a message stating many rules is a document the user brought (a plan, a spec, notes pasted in):
    # its lines describe the task, they are not rules the user set for the work, so none is listed
    per_message = Counter(q.index for q in an.constraints)
    documents = {i for i, n in per_message.items() if n >= DOCUMENT_RULES and
                 sum(len(b.text) for b in an.plan.messages[i].blocks) >= DOCUMENT_CHARS}
    constraints = [q for q in an.constraints if q.index not in documents and
                   not any(_same_sentence(q, c) for c in an.corrections)]
    seen: set[str] = set()
    cons = _Draft()
    for q in _spread(constraints, MAX_CONSTRAINTS * 2):
        if q.text in seen or len(seen) >= MAX_CONSTRAINTS:
            continue
        seen.add(q.text)
        cons.add(f"- {q.md()}", q.pointer("user-stated constraint"))
    _section_block(d, "### Constraints", cons)
    env = _Draft()
    first = Pointer("transcript", an.first_label(), "session start")
    facts = []
    if plan.cwd:
        facts.append(f"working directory `{_plain(plan.cwd, 200)}`")
    if plan.git_branch:
        facts.append(f"branch `{_plain(plan.git_branch, 80)}`")
    if plan.version:
        facts.append(f"Claude Code {_plain(plan.version, 40)}")
    if plan.session_id:
        facts.append(f"session `{_plain(plan.session_id, 80)}`")
    if facts:
        env.add("- " + "; ".join(facts), first)
    counts = Counter(path for path, _ in plan.files_written)
    last_line = {path: line for path, line in plan.files_written}
    for path, n in counts.most_common(6):
        shown = (relative_path(path, plan.cwd) if plan.cwd and os.path.isabs(path) else None) or path
        env.add(f"- Edited `{_plain(shown, 200)}` ×{n}", Pointer("transcript", f"L{last_line[path]}", "last edit"))
    _section_block(d, "### Environment / conventions", env)
    return d.section("basics", "The transcript is too thin to establish basics.")


_TERM_RE = re.compile(r"`([^`\n]{2,40})`|\"([A-Za-z][\w -]{1,30})\"")
_MEANS_RE = re.compile(r"\b(?:by|with) [\"`']?([\w -]{2,30}?)[\"`']? I mean\b|\b([\w-]{2,30}) means\b", re.I)


def _vocabulary(an: Analysis) -> _Draft:
    out = _Draft()
    seen: set[str] = set()
    for index in an.user_turns:
        message = an.plan.messages[index]
        for block in message.blocks:
            if block.kind not in sp.WORDS or cues.looks_like_injection(block.text):
                continue
            text = FENCE_RE.sub("", block.text) if "```" in block.text else block.text
            # every match of _MEANS_RE holds "mean" (no other letter folds to m, e, a or n under re.I)
            means = list(_MEANS_RE.finditer(text)) if "mean" in text.lower() else []
            for m in means + list(_TERM_RE.finditer(text)):
                term = next(g for g in m.groups() if g)
                key = term.lower().strip()
                if key in seen or len(seen) >= 8 or key in cues.STOPWORDS or "/" in term or "[redacted" in key:
                    continue  # a redaction is not a term of the user's (nor any term holding one)
                seen.add(key)
                out.add(f"- `{_plain(term, 40)}` — term the user used", Pointer(
                    "transcript", message.label(block.line), "first use"))
    return out


def builtin_sections(plan: Plan, git: GitState, an: Analysis | None = None) -> dict[str, Section]:
    an = an or Analysis(plan)
    return {
        "convergence": convergence(an),
        "dead_ends": dead_ends(an),
        "code_state": code_state(git, plan),
        "open_threads": open_threads(an, git),
        "basics": basics(an),
    }
