"""prepare: a Claude Code transcript -> a deduplicated, linear, tool-output-free spine.

Deterministic, no model, one streaming pass over each file, memory bounded by
what is kept (capped texts and one small index entry per record), not by the
size of the transcript. What it does, in the words of the handoff skill
(docs/handoff.md):

* records are deduplicated by ``uuid`` (resume replays); the earliest copy wins;
* assistant lines sharing ``message.id`` are merged into one message;
* forks in the ``parentUuid`` tree are linearized when they are recording
  artifacts (siblings with equal timestamps, parallel tool calls); a real
  rewind (the user went back and replaced a prompt) keeps the branch that
  leads to the leaf and records the abandoned one as a one-line marker;
* sidechains and subagent files collapse to one-line outcomes with pointers;
* ``toolUseResult`` payloads and tool output are dropped (a tool error or a
  refused tool use leaves a marker, never the output);
* user text and plaintext thinking are kept; signature-only thinking is counted;
* the user's words are read wherever a client records them: typed prompts, messages
  typed while the assistant worked (``queue-operation`` records, ``queued_command``
  attachments), answers to the assistant's multiple-choice questions (in tool results),
  and the arguments of custom slash commands;
* record types that carry no conversation are skipped, lines that are not JSON
  are counted and skipped.
"""

from __future__ import annotations

import contextlib
import gc
import os
import re
from collections import Counter, OrderedDict, deque

from gitrefocus.errors import RefocusError
from gitrefocus.handoff import forks, jsonl
from gitrefocus.handoff import spine as sp
from gitrefocus.handoff.records import (
    ASKED_TOOLS,
    CLARIFY,
    CLIENT,
    COMPACT_SUMMARY,
    CONVERSATION,
    INTERRUPTED,
    NOTIFICATION,
    REJECTED,
    REJECTED_ALT,
    TITLE_KINDS,
    UNKNOWN,
    USER_SAID,
    WRITE_TOOLS,
    cap,
    decode_record,
    gated_bytes,
    joined_text,
    notification_text,
    one_line,
    output_head,
    output_startswith,
    output_text,
    prompt_text,
    question_answers,
    queued_text,
    reader_view,
    record_origin,
    tool_summary,
    user_text,
)
from gitrefocus.handoff.scrub import scrub_text
from gitrefocus.handoff.sidechains import Sidechain, insert_by_time, read_subagent
from gitrefocus.handoff.transcript_paths import TranscriptSource, is_subagent_file
from gitrefocus.model.records import dataclass, field

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from gitrefocus.handoff.spine import Message

USER_CAP = 6000          # characters of one user message kept
ASSISTANT_CAP = 3000
THINKING_CAP = 2000
COMPACT_CAP = 3000
TOOL_SUMMARY_CAP = 200
TEXT_BUDGET = 8_000_000   # characters of text kept in all (~flat memory); past it each text keeps only
OVER_BUDGET_CAP = 120     # this many (a pasted-log monster cannot exhaust memory)
MAX_RECORDS = 600_000     # main-file records; ~10x a heavy 100 MB session
MAX_MESSAGES = 150_000
MAX_SIDECHAINS = 5_000
TOOL_NAMES_KEPT = 4096    # recent tool_use ids -> tool names
OPEN_MESSAGES = 64        # recent message ids still open for merging split lines
QUEUE_CAP = 64            # prompts waiting in the client's queue, at most
QUEUED_SEEN = 64          # recent queued texts remembered, to keep one copy of each
QUEUED_REACH = 2000       # lines within which a second record of the same queued text is a copy
MAX_TASKS = 200           # a task list (TaskCreate / TaskUpdate) longer than this keeps its first ones
_TASK_ID_RE = re.compile(r"Task #(\w+)")
# a plan's steps: its numbered items and its third- and fourth-level headings
_PLAN_STEP_RE = re.compile(r"^ {0,3}(?:\d+[.)]|#{3,4})\s+(\S.*)$", re.M)
INTERRUPT_TEXT = "[the user interrupted the assistant]"
# tools that only wait for something: refusing one without a word is an interruption
WAIT_TOOLS = frozenset({"TaskOutput", "BashOutput", "AgentOutputTool", "Monitor", "Sleep", "Wait"})
REFUSED = (REJECTED, REJECTED_ALT)
DIRECT_BOUND = 300_000   # a spine up to this many characters is handed over whole
CHUNK_BOUND = 100_000    # otherwise it is cut into chunks of about this size


@dataclass
class Plan:
    """What prepare hands to the extractors (the skill's plan.json, in memory)."""

    source: TranscriptSource
    messages: list[sp.Message]
    leaf_uuid: str | None
    session_id: str | None
    cwd: str | None
    git_branch: str | None
    first_timestamp: str | None
    last_timestamp: str | None
    title: str | None
    version: str | None
    files_written: list[tuple[str, int]]   # (path, spine line) of Edit/Write tool uses
    todos: list[tuple[str, str, int]]      # (status, content, line) of the last todo list
    stats: Counter[str]
    chunks: list[tuple[int, int]] = field(default_factory=list)
    # the steps of the session's last plan (ExitPlanMode), when nothing was edited after it and
    # the user did not refuse it: (step, line)
    plan_steps: list[tuple[str, int]] = field(default_factory=list)
    redactions: Counter[str] = field(default_factory=Counter)  # secrets scrubbed as records were decoded, by kind

    @property
    def mode(self) -> str:
        return "chunked" if len(self.chunks) > 1 else "direct"

    def header(self) -> list[str]:

        # file names come from the file system, not from the scrubbed records
        files = scrub_text(", ".join(os.path.basename(f) for f in self.source.files))[0]
        return [
            f"# spine of session {self.session_id or '?'} (leaf {self.leaf_uuid or '?'})",
            f"# from: {files}",
            "# each line starts with its transcript line label L<n> (or <agent-file>:L<n> for a "
            "subagent file); cite those labels as transcript:L<n>. Tool output has been removed.",
        ]

    def spine_text(self, start: int = 0, end: int | None = None) -> str:
        return sp.render(self.messages[start:end], self.header())

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode, "leaf_uuid": self.leaf_uuid, "session_id": self.session_id,
            "source_files": list(self.source.files), "cwd": self.cwd, "git_branch": self.git_branch,
            "first_timestamp": self.first_timestamp, "last_timestamp": self.last_timestamp,
            "stats": dict(sorted(self.stats.items())), "chunks": len(self.chunks) or 1,
            "redactions": dict(sorted(self.redactions.items())),
        }


class _Collector:
    """One pass over the main transcript."""

    def __init__(self, source: TranscriptSource) -> None:
        self.source = source
        self.stats: Counter[str] = Counter()
        self.skipped_keys: dict[str | None, str] = {}
        self.redactions: Counter[str] = Counter()
        self.graph = forks.Graph()
        self.messages: list[sp.Message] = []
        # message.id -> (message index, blocks seen): only for recent messages, since
        # the client writes the lines of one response together
        self.open_messages: OrderedDict[str, tuple[int, set[tuple[str, str | None, str]]]] = OrderedDict()
        self.tool_names: OrderedDict[str, str] = OrderedDict()
        self.sidechains: dict[str, Sidechain] = {}
        self.sidechain_of: dict[str, str] = {}   # uuid -> group, for sidechains without agentId
        self.sidechain_seen: set[str] = set()
        self.text_budget = TEXT_BUDGET
        self.cwd: str | None = None
        self.git_branch: str | None = None
        self.version: str | None = None
        self.session_id: str | None = None
        # a subagent's own file passed as the transcript: its sidechain records are the conversation
        self.subagent_file = is_subagent_file(source.main)
        if self.subagent_file:
            self.stats["subagent_file"] = 1
        self.titles: list[tuple[str, str | None, str]] = []   # (kind, leaf uuid or session id, title)
        self.first_ts: str | None = None
        self.last_ts: str | None = None
        self.files_written: list[tuple[str, int]] = []
        self.todos: list[tuple[str, str, int]] = []
        # newer clients keep the todo list as tasks: id -> [status, subject, line]; and the
        # TaskCreate calls whose result (which names the new id) has not come yet
        self.tasks: OrderedDict[str, list[Any]] = OrderedDict()
        self.task_calls: OrderedDict[str, tuple[str, int]] = OrderedDict()
        # the last plan: (tool use id, line, steps), and whether the user refused it
        self.plan: tuple[str | None, int, list[str]] | None = None
        self.plan_refused = False
        self.leaf_node: int | None = None
        self.leaf_uuid: str | None = None
        # the client's prompt queue (2.1.x writes enqueue / dequeue / remove / popAll records):
        # (line, text) of prompts typed while the assistant worked, not yet delivered
        self.queue: deque[tuple[int, str]] = deque()
        # normalized text -> line of queued words already in the spine: newer clients record one
        # message both as queue operations and as a queued_command attachment
        self.queued_seen: OrderedDict[str, int] = OrderedDict()

    # -- reading ----------------------------------------------------------
    def read_main(self) -> None:
        try:
            fh = open(self.source.main, "rb", buffering=1 << 20)
        except OSError as exc:
            raise RefocusError(f"cannot read transcript {self.source.main!r}: {exc.strerror}.") from None
        with fh:
            if self.source.agent != "claude":  # Codex's rollout, Gemini's chat: read as Claude's records
                from gitrefocus.handoff import agent_transcripts

                for number, converted in agent_transcripts.records(self.source.agent, fh, self.redactions):
                    self.stats["lines"] += 1
                    self.record(converted, number)
                return
            if decode_record is None:  # no msgspec: every line through json.loads
                for plain in jsonl.read_lines(fh, tally=self.redactions, view=reader_view):
                    self.stats["lines"] += 1
                    self._line(plain)
                return
            self.stats["lines"] += jsonl.each(fh, decode_record, self.record, self._line, self.redactions,
                                              reader_view, gated_bytes)

    def _line(self, line: jsonl.Line) -> None:
        """A line as :func:`jsonl.read_lines` reads it (the caller counts it)."""
        if line.problem:
            self.stats[line.problem.replace("-", "_") + "_lines"] += 1
            return
        if line.lossy_utf8:
            self.stats["non_utf8_lines"] += 1
        if line.skeleton:
            self.stats["huge_lines"] += 1
        record = line.record
        if not isinstance(record, dict):
            self.stats["non_object_lines"] += 1  # valid JSON, but not a record
            return
        self.record(record, line.number)

    def record(self, record: dict[str, Any], number: int) -> None:
        # once per line: the common cases are decided with as few lookups and calls as they need
        # (the reader's Python per record weighs as much as decoding the line)
        get = record.get
        kind = get("type")
        uuid = get("uuid")
        if uuid.__class__ is not str or not uuid:
            uuid = None
        if kind.__class__ is not str or kind not in CONVERSATION:
            self._other(record, kind if kind.__class__ is str else None, uuid, number)
            return
        graph = self.graph
        if uuid is not None and (uuid in graph.index or uuid in self.sidechain_seen):
            self.stats["duplicate_records"] += 1
            return
        if get("isSidechain") is True and not self.subagent_file:
            self._sidechain(record, uuid, number)
            return
        timestamp = get("timestamp")
        if timestamp.__class__ is not str:
            timestamp = None
        elif self.first_ts is None:
            self.first_ts = self.last_ts = timestamp
        else:
            self.last_ts = timestamp
        # the session's facts: the last value each record states
        value = get("cwd")
        if value and value.__class__ is str:
            self.cwd = value
        value = get("gitBranch")
        if value and value.__class__ is str:
            self.git_branch = value
        value = get("version")
        if value and value.__class__ is str:
            self.version = value
        if self.session_id is None:
            value = get("sessionId")
            if value.__class__ is str:
                self.session_id = value
        if len(graph.parent) >= MAX_RECORDS or len(self.messages) >= MAX_MESSAGES:
            self._too_large()
        node = None
        if uuid:
            # the leaf: the last conversation record of the main chain (also the cache key)
            parent = get("parentUuid")
            node = graph.add(uuid, parent if parent.__class__ is str else None, timestamp)
            self.leaf_node, self.leaf_uuid = node, uuid
        message = get("message")
        if message.__class__ is not dict:
            self.stats["malformed_records"] += 1
            return
        if "toolUseResult" in record:
            self.stats["tool_results_stripped"] += 1
        if kind == "user":
            origin = record_origin(record)
            if origin in (CLIENT, UNKNOWN):
                self.stats["skipped_" + ("meta" if get("isMeta") else origin.replace("-", "_"))] += 1
                return
            msg = self._user(record, message, number, origin)
            if msg is None:
                return
            msg.uuid, msg.timestamp, msg.last_line = uuid, timestamp, number
            self.messages.append(msg)
            index = len(self.messages) - 1
        else:
            found = self._assistant(record, message, number, timestamp)
            if found is None:
                return
            index = found
        if node is not None:
            graph.message[node] = index
        self.stats["records"] += 1

    def _other(self, record: dict[str, Any], kind: str | None, uuid: str | None, number: int) -> None:
        """A record of any type but conversation: what the reader takes from it (a title, queued
        words), then counted, and linked into the parentUuid chain."""
        get = record.get
        if kind in TITLE_KINDS:
            self._title_record(kind, record)
        elif kind == "queue-operation":
            self._queue_operation(record, number)
        elif kind == "attachment":
            attachment = get("attachment")
            if attachment.__class__ is dict and attachment.get("type") == "queued_command":
                self._queued_command(record, attachment, number)
        key = self.skipped_keys.get(kind)
        self.stats[key if key is not None else self._skipped_key(kind)] += 1
        graph = self.graph
        if uuid is not None and not get("isSidechain") and uuid not in graph.index:
            if len(graph.parent) >= MAX_RECORDS or len(self.messages) >= MAX_MESSAGES:
                self._too_large()
            parent = get("parentUuid") or get("logicalParentUuid")
            graph.add(uuid, parent if parent.__class__ is str else None, None)

    def _skipped_key(self, kind: str | None) -> str:
        """``skipped_<type>`` for a stats key (plan.json shows them): a record of a type the reader
        does not quote is not scrubbed as it is read, so its type is scrubbed here, once."""
        key = self.skipped_keys.get(kind)
        if key is None:
            if len(self.skipped_keys) >= 256:  # a hostile file of countless types
                return "skipped_other"
            key = self.skipped_keys[kind] = "skipped_" + (scrub_text(kind)[0] if kind else "untyped").replace("-", "_")[:40]
        return key

    def _title_record(self, kind: str, record: dict[str, Any]) -> None:
        """Remember a title; which one names this session is settled in :meth:`session_title`."""
        field = {"summary": "summary", "custom-title": "customTitle", "ai-title": "aiTitle"}[kind]
        text = record.get(field)
        if not isinstance(text, str) or not text.strip() or len(self.titles) >= 1000:
            return
        key = record.get("leafUuid") if kind == "summary" else record.get("sessionId")
        self.titles.append((kind, key if isinstance(key, str) else None, one_line(text, 160)))

    def session_title(self) -> str | None:
        """The user's custom title, else the client's title for this session, else the summary
        of a leaf in this session's tree (a file may hold summaries of other sessions' leaves)."""
        for wanted in ("custom-title", "ai-title", "summary"):
            for kind, key, text in reversed(self.titles):
                if kind != wanted:
                    continue
                if kind == "summary" and not (key and self.graph.contains(key)):
                    continue
                if kind != "summary" and key and self.session_id and key != self.session_id:
                    continue
                return text
        return None

    def _check_size(self) -> None:
        if len(self.graph.parent) >= MAX_RECORDS or len(self.messages) >= MAX_MESSAGES:
            self._too_large()

    def _too_large(self) -> None:
        raise RefocusError(
            f"{self.source.main} is too large to distill: more than {MAX_RECORDS:,} records or "
            f"{MAX_MESSAGES:,} messages (a very long session; hand off a shorter one)."
        )

    def _scrubbed(self, text: str) -> str:
        """What the spine quotes of a tool's output, scrubbed: records are scrubbed as they are
        read, their tool output is not (``records.output_text``)."""
        text, found = scrub_text(text)
        for _, _, kind in found:
            self.redactions[kind] += 1
        return text

    def _text(self, text: str, limit: int) -> str:
        """Cap one text, and all texts together: past the budget each keeps only a little."""
        if self.text_budget <= 0:
            limit = min(limit, OVER_BUDGET_CAP)
        kept = cap(text, limit)
        self.text_budget -= len(kept)
        return kept

    # -- conversation -------------------------------------------------------
    def _user(self, record: dict[str, Any], message: dict[str, Any], number: int, origin: str | None) -> Message | None:
        content = message.get("content")
        if origin == COMPACT_SUMMARY:
            text = content if isinstance(content, str) else joined_text(content)
            return sp.Message(sp.COMPACT, number, blocks=[sp.Block(sp.TEXT, self._text(text, COMPACT_CAP), number)])
        if origin == NOTIFICATION:
            text = content if isinstance(content, str) else joined_text(content)
            self.stats["notifications"] += 1
            return sp.Message(sp.NOTIFICATION, number, blocks=[sp.Block(sp.TEXT, notification_text(text), number)])
        blocks: list[sp.Block] = []
        role = sp.USER
        items = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not isinstance(items, list):
            self.stats["malformed_records"] += 1
            return None
        for item in items:
            if not isinstance(item, dict):
                continue
            t = item.get("type")
            if t == "text" and isinstance(item.get("text"), str):
                special = user_text(item["text"])
                if special is None:
                    continue
                srole, text = special
                if srole != sp.USER:
                    role = srole
                if text:
                    blocks.append(sp.Block(sp.TEXT, self._text(text, USER_CAP), number))
            elif t == "tool_result":
                role = sp.TOOL if role == sp.USER and not blocks else role
                tool_use_id = item.get("tool_use_id")
                tool = self.tool_names.get(tool_use_id) if isinstance(tool_use_id, str) else None
                if tool in ASKED_TOOLS:
                    answers = self._answers(item, record, number, tool)
                    if answers:
                        blocks.extend(answers)
                        continue
                block = self._tool_result(item, number, tool_use_id, tool)
                if block is not None and block.text == INTERRUPT_TEXT and block.kind == sp.TEXT:
                    role = sp.INTERRUPT
                if block is not None:
                    blocks.append(block)
            elif t in ("image", "document"):
                blocks.append(sp.Block(sp.TEXT, f"[{t} attached]", number))
        if not blocks:
            return None
        if role == sp.TOOL and any(b.kind in (sp.TEXT, sp.ANSWER) for b in blocks):
            role = sp.USER
        if self.queued_seen and role == sp.USER and self._queued_copy(blocks, number):
            return None
        return sp.Message(role, number, blocks=blocks)

    def _answers(self, item: dict[str, Any], record: dict[str, Any], number: int, tool: str) -> list[sp.Block]:
        """The user's answers to an AskUserQuestion call, one block each (the question as note)."""
        if item.get("is_error") is True:
            return []
        content = item.get("content")
        if output_startswith(content, REFUSED):
            return []
        # the client's record of the answers (scrubbed with its record), else the result's text
        pairs = question_answers("", record.get("toolUseResult")) or \
            question_answers(self._scrubbed(output_text(content)), None)
        self.stats["question_answers"] += len(pairs)
        return [sp.Block(sp.ANSWER, self._text(answer.strip(), USER_CAP), number, tool=tool,
                         note=one_line(question, 300)) for question, answer in pairs]

    # -- words typed while the assistant worked ------------------------------
    def _queue_operation(self, record: dict[str, Any], number: int) -> None:
        """The client's prompt queue: ``enqueue`` adds a prompt; ``dequeue`` takes it as the next
        turn (a user record follows); ``remove`` hands it to the model mid-turn (nothing else
        records it in 2.1.39-2.1.42); ``popAll`` puts everything back into the input box."""
        operation = record.get("operation")
        content = record.get("content")
        content = content if isinstance(content, str) else None
        queue = self.queue
        if operation == "enqueue":
            if content is not None and len(queue) < QUEUE_CAP:
                queue.append((number, content))
        elif operation == "dequeue":
            if queue:
                queue.popleft()
        elif operation == "remove":
            line, text = queue.popleft() if queue else (number, content)
            reason = record.get("reason")
            if text is not None and reason in (None, "absorbed_mid_turn"):
                self._queued(content if content is not None else text, line, record.get("timestamp"))
        elif operation == "popAll":
            queue.clear()

    def _queued_command(self, record: dict[str, Any], attachment: dict[str, Any], number: int) -> None:
        """A ``queued_command`` attachment (2.1.2xx on): a prompt typed while the assistant worked,
        unless the client queued it itself (a task notification, another origin)."""
        mode = attachment.get("commandMode")
        origin = attachment.get("origin")
        kind = origin.get("kind") if isinstance(origin, dict) else None
        if mode not in (None, "prompt", "bash") or kind not in (None, "human"):
            self.stats["skipped_queued_not_user"] += 1
            return
        text = prompt_text(attachment.get("prompt"))
        if mode == "bash":
            text = "!" + text
        stamp = record.get("timestamp")
        self._queued(text, number, stamp if isinstance(stamp, str) else None)

    def _queued(self, text: str, line: int, timestamp: str | None) -> None:
        said = queued_text(text)
        if said is None:
            return
        role, words = said
        key = " ".join(words.split())[:500]
        seen = self.queued_seen.get(key)
        if seen is not None and abs(line - seen) <= QUEUED_REACH:
            self.stats["queued_copies"] += 1
            return
        self.queued_seen[key] = line
        if len(self.queued_seen) > QUEUED_SEEN:
            self.queued_seen.popitem(last=False)
        kind = sp.QUEUED if role == sp.USER else sp.TEXT
        if role not in (sp.USER, sp.COMMAND):
            return  # a notification queued as text: never the user's words
        self._check_size()
        self.stats["queued_messages"] += 1
        message = sp.Message(role, line, blocks=[sp.Block(kind, self._text(words, USER_CAP), line)],
                             timestamp=timestamp if isinstance(timestamp, str) else None, last_line=line)
        self.messages.append(message)

    def _queued_copy(self, blocks: list[sp.Block], number: int) -> bool:
        """Whether a typed user record only repeats words already taken from the queue."""
        words = " ".join(b.text for b in blocks if b.kind == sp.TEXT)
        seen = self.queued_seen.get(" ".join(words.split())[:500])
        if seen is not None and 0 <= number - seen <= QUEUED_REACH:
            self.stats["queued_copies"] += 1
            return True
        return False

    def flush_queue(self) -> None:
        """Prompts still queued when the transcript ends were typed, never delivered: the user's
        last words all the same."""
        while self.queue:
            line, text = self.queue.popleft()
            self._queued(text, line, None)

    def _tool_result(self, item: dict[str, Any], number: int, tool_use_id: object, tool: str | None) -> sp.Block | None:
        """A tool's result (``tool``: the name of the call ``tool_use_id`` answers, if known)."""
        content = item.get("content")
        # the tool's output is classified by its head, never quoted but for a refusal's feedback
        refused = output_startswith(content, REFUSED)
        if tool == "TaskCreate" and isinstance(tool_use_id, str) and tool_use_id in self.task_calls:
            self._task_created(tool_use_id, output_head(content), number)
        elif tool == "ExitPlanMode" and self.plan and self.plan[0] == tool_use_id and refused:
            self.plan_refused = True
        if refused:
            text = self._scrubbed(output_text(content))  # a refusal: the user's feedback is quoted
            said = text.find(USER_SAID)
            feedback = text[said + len(USER_SAID):].strip() if said >= 0 else ""
            if feedback.startswith(CLARIFY):
                feedback = ""  # the client's note on a question menu to clarify: the user typed nothing
            if not feedback and (text.startswith(REJECTED_ALT) or tool in WAIT_TOOLS):
                # the user interrupted (often a wait on a background task): no hypothesis was refused
                self.stats["interrupted_tool_uses"] += 1
                return sp.Block(sp.TEXT, INTERRUPT_TEXT, number, tool=tool)
            return sp.Block(sp.REJECTED, self._text(feedback, USER_CAP), number, tool=tool)
        if item.get("is_error") is True:
            if output_startswith(content, (INTERRUPTED,)):
                return None
            return sp.Block(sp.TOOL_ERROR, "(output stripped)", number, tool=tool)
        return None

    def _assistant(self, record: dict[str, Any], message: dict[str, Any], number: int, timestamp: str | None) -> int | None:
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if not isinstance(content, list):
            self.stats["malformed_records"] += 1
            return None
        if message.get("model") == "<synthetic>" or record.get("isApiErrorMessage"):
            self.stats["skipped_synthetic"] += 1
            return None
        msg_id = message.get("id")
        if not isinstance(msg_id, str):
            msg_id = None
        existing = self.open_messages.get(msg_id) if msg_id else None
        if existing is not None:
            self.stats["merged_assistant_lines"] += 1
            index, seen = existing
            target = self.messages[index]
            self._assistant_blocks(content, number, target, seen)
            target.last_line = max(target.last_line, number)
            return index
        # a message with no visible block yet is kept: a later line of it may carry text
        msg = sp.Message(sp.ASSISTANT, number, last_line=number)
        seen = set()
        self._assistant_blocks(content, number, msg, seen)
        uuid = record.get("uuid")
        msg.uuid = uuid if isinstance(uuid, str) else None
        msg.timestamp = timestamp
        self.messages.append(msg)
        index = len(self.messages) - 1
        if msg_id:
            self.open_messages[msg_id] = (index, seen)
            if len(self.open_messages) > OPEN_MESSAGES:
                self.open_messages.popitem(last=False)
        return index

    def _assistant_blocks(self, content: list[Any], number: int, msg: sp.Message,
                          seen: set[tuple[str, str | None, str]]) -> None:
        for item in content:
            if not isinstance(item, dict):
                continue
            t = item.get("type")
            block = None
            if t == "text" and isinstance(item.get("text"), str) and item["text"].strip():
                block = sp.Block(sp.TEXT, self._text(item["text"].strip(), ASSISTANT_CAP), number)
            elif t == "thinking":
                text = item.get("thinking")
                if isinstance(text, str) and text.strip():
                    block = sp.Block(sp.THINKING, self._text(text.strip(), THINKING_CAP), number)
                else:
                    self.stats["thinking_without_text"] += 1
            elif t == "redacted_thinking":
                self.stats["thinking_without_text"] += 1
            elif t == "tool_use":
                block = self._tool_use(item, number)
            if block is None:
                continue
            key = (block.kind, block.tool, block.text[:300])
            if key in seen:
                self.stats["duplicate_blocks"] += 1
                continue
            seen.add(key)
            msg.blocks.append(block)

    def _tool_use(self, item: dict[str, Any], number: int) -> sp.Block:
        given_name, given_input = item.get("name"), item.get("input")
        name = given_name if isinstance(given_name, str) else "?"
        tool_id = item.get("id")
        if isinstance(tool_id, str):
            # a tool's result follows its call closely: remember only the recent calls (flat memory)
            self.tool_names[tool_id] = name
            if len(self.tool_names) > TOOL_NAMES_KEPT:
                self.tool_names.popitem(last=False)
        data = given_input if isinstance(given_input, dict) else {}
        path = data.get("file_path") or data.get("notebook_path")
        path = path if isinstance(path, str) else None
        if name == "TodoWrite" and isinstance(data.get("todos"), list):
            self.todos = [(str(t.get("status", "?")), one_line(t.get("content", ""), 160), number)
                          for t in data["todos"][:30] if isinstance(t, dict)]
            summary = "; ".join(f"[{s}] {c}" for s, c, _ in self.todos)
        else:
            summary = tool_summary(name, data, path)
            if name in ("TaskCreate", "TaskUpdate", "ExitPlanMode"):
                self._task_or_plan(name, data, tool_id, number)
        if path and name in WRITE_TOOLS and len(self.files_written) < 5000:
            self.files_written.append((path, number))
        limit = TOOL_SUMMARY_CAP if self.text_budget > 0 else OVER_BUDGET_CAP
        return sp.Block(sp.TOOL_USE, one_line(summary, limit), number, tool=name, path=path)

    def _task_or_plan(self, name: str, data: dict[str, Any], tool_id: object, number: int) -> None:
        if name == "ExitPlanMode":
            plan = data.get("plan")
            steps = [one_line(m.group(1), 160) for m in _PLAN_STEP_RE.finditer(plan[:20000])][:12] \
                if isinstance(plan, str) else []
            self.plan = (tool_id if isinstance(tool_id, str) else None, number, steps)
            self.plan_refused = False
        elif name == "TaskCreate":
            subject = data.get("subject")
            if isinstance(tool_id, str) and isinstance(subject, str) and subject.strip():
                self.task_calls[tool_id] = (subject, number)
                if len(self.task_calls) > QUEUE_CAP:
                    self.task_calls.popitem(last=False)
        else:
            task = self.tasks.get(str(data.get("taskId")))
            if task is None:
                return
            status, subject = data.get("status"), data.get("subject")
            if status == "deleted":
                del self.tasks[str(data.get("taskId"))]
            elif isinstance(status, str):
                task[0] = status
            if isinstance(subject, str) and subject.strip():
                task[1] = subject
            task[2] = number
            self._tasks_as_todos()

    def _task_created(self, tool_use_id: str, text: str, number: int) -> None:
        subject, line = self.task_calls.pop(tool_use_id)
        found = _TASK_ID_RE.search(text[:200])
        if found and len(self.tasks) < MAX_TASKS:
            self.tasks[found.group(1)] = ["pending", subject, line]
            self._tasks_as_todos()

    def _tasks_as_todos(self) -> None:
        self.todos = [(status, one_line(subject, 160), line) for status, subject, line in
                      list(self.tasks.values())[:30]]

    def open_plan_steps(self) -> list[tuple[str, int]]:
        """The last plan's steps, when nothing was edited after it and it was not refused."""
        if self.plan is None or self.plan_refused:
            return []
        _, line, steps = self.plan
        if any(at > line for _, at in self.files_written):
            return []
        return [(step, line) for step in steps]

    # -- sidechains ---------------------------------------------------------
    def _sidechain(self, record: dict[str, Any], uuid: str | None, number: int) -> None:
        agent = record.get("agentId") if isinstance(record.get("agentId"), str) else None
        parent = record.get("parentUuid")
        key = agent or (self.sidechain_of.get(parent) if isinstance(parent, str) else None) or f"L{number}"
        if uuid:
            self._check_size()
            self.sidechain_seen.add(uuid)
            if not agent:
                self.sidechain_of[uuid] = key
        chain = self.sidechains.get(key)
        if chain is None:
            if len(self.sidechains) >= MAX_SIDECHAINS:
                key = "overflow"  # a hostile file of countless one-record sidechains
                chain = self.sidechains.get(key)
            if chain is None:
                chain = self.sidechains[key] = Sidechain(key, "", number, record.get("timestamp"))
        chain.take(record, number, self.stats)

    # -- assembly -----------------------------------------------------------
    def finish(self, subagents: list[Sidechain]) -> list[sp.Message]:
        """The spine: kept messages in file order, rewind markers, sidechain outcomes."""
        self.graph.resolve()
        keep, rewinds = forks.linearize(self.graph, self.leaf_node, len(self.messages),
                                        lambda i: self.messages[i].is_user_turn, self.stats)
        before: dict[int, list[sp.Message]] = {}
        for rewind in rewinds:
            before.setdefault(rewind.replacement, []).append(self._rewind_marker(rewind))
        messages = [x for i, m in enumerate(self.messages) if keep[i] and m.blocks
                    for x in (*before.get(i, ()), m)]
        outcomes = [c.outcome() for c in list(self.sidechains.values()) + subagents]
        self.stats["sidechains_collapsed"] += len(outcomes)
        return insert_by_time(messages, [o for o in outcomes if o is not None])

    def _rewind_marker(self, rewind: forks.Rewind) -> sp.Message:
        msgs = rewind.abandoned
        first = self.messages[msgs[0]]
        last_line = max(self.messages[m].last_line for m in msgs)
        quote = one_line(first.text, 150)
        target = self.messages[rewind.replacement]
        marker = sp.Block(
            sp.TEXT,
            f"the user went back and replaced {len(msgs)} message(s) (L{first.line}-L{last_line}); "
            f"the abandoned branch began with the user saying: \"{quote}\"",
            first.line,
        )
        return sp.Message(sp.REWIND, first.line, blocks=[marker], timestamp=target.timestamp, last_line=last_line)


@contextlib.contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Python's cycle collector off while reading: the reader makes no reference cycles, yet
    its hundreds of thousands of long-lived messages, blocks and decoded values trigger
    collections that walk all of them again and again (~12% of prepare at 500 MB).

    What the read made is then moved to the oldest generation (``gc.freeze`` and ``unfreeze``:
    two list splices) rather than left in the youngest, whose first collection after
    ``gc.enable`` would walk all of it once more (20 ms of a 100 MB read). Not where the
    process froze objects of its own: ``unfreeze`` would thaw them too."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if not gc.get_freeze_count():
            gc.freeze()
            gc.unfreeze()
        if enabled:
            gc.enable()


def prepare(source: TranscriptSource, *, direct_bound: int = DIRECT_BOUND,
            chunk_bound: int = CHUNK_BOUND) -> Plan:
    """Read the transcript (and its subagent files) into a :class:`Plan`."""
    collector = _Collector(source)
    with _no_cycle_collection():
        collector.read_main()
        collector.flush_queue()
        subagents = [c for c in (read_subagent(p, collector.stats, collector.redactions) for p in source.subagents)
                     if c]
        messages = collector.finish(subagents)
    stats = collector.stats
    if not messages:
        lines = stats["lines"]
        bad = stats["invalid_json_lines"]
        other = stats["non_object_lines"]
        shape = f", {other} JSON but not a record" if other else ""
        if source.agent != "claude":
            who = "Codex CLI" if source.agent == "codex" else "Gemini CLI"
            raise RefocusError(f"{source.main} holds no {who} conversation ({lines} record(s) read); is it a session's "
                               "transcript?")
        raise RefocusError(
            f"{source.main} holds no Claude Code conversation ({lines} line(s), {bad} not JSON{shape}); "
            "is it a session transcript (~/.claude/projects/.../<session-id>.jsonl)?"
        )
    plan = Plan(
        source=source, messages=messages, leaf_uuid=collector.leaf_uuid,
        session_id=collector.session_id or source.session_id, cwd=collector.cwd,
        git_branch=collector.git_branch, first_timestamp=collector.first_ts,
        last_timestamp=collector.last_ts, title=collector.session_title(), version=collector.version,
        files_written=collector.files_written, todos=collector.todos, stats=stats,
        plan_steps=collector.open_plan_steps(),
        redactions=collector.redactions,
    )
    stats["spine_messages"] = len(messages)
    sizes = [sp.rendered_size(m) for m in messages]
    total = sum(sizes)
    stats["spine_chars"] = total
    plan.chunks = sp.chunk(messages, chunk_bound, sizes) if total > direct_bound else [(0, len(messages))]
    return plan

