"""prepare: a Claude Code transcript -> a deduplicated, linear, tool-output-free spine.

Deterministic, no model, one streaming pass over each file, memory bounded by
what is kept (capped texts and one small index entry per record), not by the
size of the transcript. What it does, in the words of SPEC §8 / seed 001:

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
* record types that carry no conversation are skipped, lines that are not JSON
  are counted and skipped.
"""

from __future__ import annotations

import os
import re
from array import array
from collections import Counter, OrderedDict
from dataclasses import dataclass, field

from gitrefocus.errors import RefocusError
from gitrefocus.handoff import jsonl
from gitrefocus.handoff import spine as sp
from gitrefocus.handoff.transcript_paths import TranscriptSource

USER_CAP = 6000          # characters of one user message kept
ASSISTANT_CAP = 3000
THINKING_CAP = 2000
COMPACT_CAP = 3000
TOOL_SUMMARY_CAP = 200
TEXT_BUDGET = 32_000_000  # characters of text kept in all; past it each text keeps only
OVER_BUDGET_CAP = 300     # this many (a pasted-log monster cannot exhaust memory)
MAX_RECORDS = 600_000     # main-file records; ~10x a heavy 100 MB session
MAX_MESSAGES = 150_000
MAX_SIDECHAINS = 5_000
OPEN_MESSAGES = 64        # recent message ids still open for merging split lines
DIRECT_BOUND = 300_000   # a spine up to this many characters is handed over whole
CHUNK_BOUND = 100_000    # otherwise it is cut into chunks of about this size

CONVERSATION = {"user", "assistant"}
# record types known to carry no conversation; any other unknown type is skipped too
NON_CONVERSATION = {"attachment", "queue-operation", "progress", "file-history-snapshot", "summary",
                    "system", "custom-title", "tag", "agent-name", "pr-link", "last-prompt"}

_REJECTED = "The user doesn't want to proceed with this tool use."
_REJECTED_ALT = "The user doesn't want to take this action right now."
_USER_SAID = "the user said:\n"
_INTERRUPTED = "[Request interrupted by user"
_REMINDER_RE = re.compile(r"<system-reminder>.*?</system-reminder>", re.S)
_COMMAND_NAME_RE = re.compile(r"<command-name>(.*?)</command-name>", re.S)
_COMMAND_ARGS_RE = re.compile(r"<command-args>(.*?)</command-args>", re.S)
_BASH_INPUT_RE = re.compile(r"<bash-input>(.*?)</bash-input>", re.S)
_TOOL_OUTPUT_TAGS = ("<local-command-stdout>", "<local-command-stderr>", "<bash-stdout>", "<bash-stderr>",
                     "<local-command-caveat>")
_FILE_TOOLS = {"Read", "Edit", "MultiEdit", "Write", "NotebookEdit", "NotebookRead"}
WRITE_TOOLS = {"Edit", "MultiEdit", "Write", "NotebookEdit"}
_TYPE_RE = re.compile(rb'[{,]"type":"([A-Za-z_-]+)"')
_PARENT_RE = re.compile(rb'[{,]"parentUuid":(?:null|"([^"\\]{1,200})")')
_TAIL_UUID_RE = re.compile(rb',"uuid":"([^"\\]{1,200})"([^{}\[\]]*)\}$')
_FAST_LINK_TYPES = {b"progress", b"attachment"}


@dataclass
class Plan:
    """What prepare hands to the extractors (seed 001's plan.json, in memory)."""

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
    todos: list[tuple[str, str, int]]      # (status, content, line) of the last TodoWrite
    stats: Counter
    chunks: list[tuple[int, int]] = field(default_factory=list)

    @property
    def mode(self) -> str:
        return "chunked" if len(self.chunks) > 1 else "direct"

    def header(self) -> list[str]:
        files = ", ".join(os.path.basename(f) for f in self.source.files)
        return [
            f"# spine of session {self.session_id or '?'} (leaf {self.leaf_uuid or '?'})",
            f"# from: {files}",
            "# each line starts with its transcript line label L<n> (or <agent-file>:L<n> for a "
            "subagent file); cite those labels as transcript:L<n>. Tool output has been removed.",
        ]

    def spine_text(self, start: int = 0, end: int | None = None) -> str:
        return sp.render(self.messages[start:end], self.header())

    def to_json(self) -> dict:
        return {
            "mode": self.mode, "leaf_uuid": self.leaf_uuid, "session_id": self.session_id,
            "source_files": list(self.source.files), "cwd": self.cwd, "git_branch": self.git_branch,
            "first_timestamp": self.first_timestamp, "last_timestamp": self.last_timestamp,
            "stats": dict(sorted(self.stats.items())), "chunks": len(self.chunks) or 1,
        }


def _cap(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    head = limit * 2 // 3
    tail = limit - head
    return f"{text[:head]} [... {len(text) - limit} chars cut ...] {text[-tail:]}"


def _one_line(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _prefilter(raw: bytes):
    """Classify a line from raw bytes when that is certain; None means parse it.

    Only two cases are decided here: a record whose *first* key is ``type``
    (snapshots, queue operations, summaries: no conversation, no chain), and a
    progress/attachment record whose top-level keys can be read without
    parsing (it only links the ``parentUuid`` chain). ``"type":"`` preceded by
    ``{`` or ``,`` is structural JSON (inside a string the quotes would be
    escaped), and with no ``{``/``[`` before it, it is a top-level key.
    """
    m = _TYPE_RE.search(raw, 0, 4096)
    if m is None:
        return None
    if raw.find(b"{", 1, m.start()) >= 0 or raw.find(b"[", 1, m.start()) >= 0:
        return None
    kind = m.group(1)
    if m.start() == 0:
        if kind in (b"user", b"assistant", b"system"):
            return None
        return ("skip", kind.decode())
    if kind not in _FAST_LINK_TYPES:
        return None
    parent = _PARENT_RE.search(raw, 0, m.start())
    tail = _TAIL_UUID_RE.search(raw, max(0, len(raw) - 400))
    if parent is None or tail is None or b":{" in tail.group(2) or b'"uuid"' in tail.group(2):
        return None
    p = parent.group(1)
    return ("link", kind.decode(), tail.group(1).decode(), p.decode() if p else None)


def _key(uuid: str):
    """A compact dict key: 16 bytes for a canonical UUID, the string otherwise."""
    if len(uuid) == 36 and uuid[8] == "-":
        try:
            return bytes.fromhex(uuid.replace("-", ""))
        except ValueError:
            pass
    return uuid


class _Graph:
    """The parentUuid tree, one small entry per record, for dedupe and forks."""

    NONE = -1

    def __init__(self):
        self.index: dict = {}
        self.parent = array("q")              # node id, or NONE; unresolved ones wait in `pending`
        self.pending: dict[int, object] = {}  # node -> parent key not seen yet
        self.timestamps: dict[int, str] = {}  # conversation nodes only
        self.message = array("q")             # index into messages, or NONE

    def __len__(self) -> int:
        return len(self.parent)

    def contains(self, uuid: str) -> bool:
        return _key(uuid) in self.index

    def add(self, uuid: str, parent: str | None, timestamp: str | None) -> int:
        node = len(self.parent)
        self.index[_key(uuid)] = node
        target = self.NONE
        if parent:
            pkey = _key(parent)
            target = self.index.get(pkey, self.NONE)
            if target == self.NONE:
                self.pending[node] = pkey
        self.parent.append(target)
        self.message.append(self.NONE)
        if timestamp is not None:
            self.timestamps[node] = timestamp
        return node

    def resolve(self) -> None:
        for node, pkey in self.pending.items():
            self.parent[node] = self.index.get(pkey, self.NONE)
        self.pending.clear()

    def parent_of(self, node: int) -> int | None:
        p = self.parent[node]
        return None if p == self.NONE else p

    def timestamp_of(self, node: int) -> str | None:
        return self.timestamps.get(node)

    def ancestors(self, node: int | None):
        seen = set()
        while node is not None and node not in seen:
            seen.add(node)
            yield node
            node = self.parent_of(node)


class _Collector:
    """One pass over the main transcript."""

    def __init__(self, source: TranscriptSource):
        self.source = source
        self.stats: Counter = Counter()
        self.graph = _Graph()
        self.messages: list[sp.Message] = []
        # message.id -> (message index, blocks seen): only for recent messages, since
        # the client writes the lines of one response together
        self.open_messages: OrderedDict[str, tuple[int, set]] = OrderedDict()
        self.tool_names: dict[str, str] = {}
        self.sidechains: dict[str, _Sidechain] = {}
        self.sidechain_of: dict[str, str] = {}   # uuid -> group, for sidechains without agentId
        self.sidechain_seen: set = set()
        self.text_budget = TEXT_BUDGET
        self.meta = Counter()
        self.cwd = self.git_branch = self.version = self.session_id = self.title = None
        self.first_ts = self.last_ts = None
        self.files_written: list[tuple[str, int]] = []
        self.todos: list[tuple[str, str, int]] = []
        self.leaf_node: int | None = None
        self.leaf_uuid: str | None = None
        self.rewinds: list[tuple[int, sp.Message]] = []

    # -- reading ----------------------------------------------------------
    def read_main(self) -> None:
        try:
            fh = open(self.source.main, "rb")
        except OSError as exc:
            raise RefocusError(f"cannot read transcript {self.source.main!r}: {exc.strerror}.") from None
        with fh:
            for line in jsonl.read_lines(fh, prefilter=_prefilter):
                self.stats["lines"] += 1
                self._line(line)

    def _line(self, line: jsonl.Line) -> None:
        if line.problem:
            self.stats[line.problem.replace("-", "_") + "_lines"] += 1
            return
        if line.lossy_utf8:
            self.stats["non_utf8_lines"] += 1
        if line.skeleton:
            self.stats["huge_lines"] += 1
        quick = line.prefiltered
        if quick is not None:
            self.stats["skipped_" + quick[1].replace("-", "_")] += 1
            if quick[0] == "link" and not self.graph.contains(quick[2]):
                self._check_size()
                self.graph.add(quick[2], quick[3], None)
            return
        record = line.record
        if not isinstance(record, dict):
            self.stats["invalid_json_lines"] += 1
            return
        self.record(record, line.number)

    def record(self, record: dict, number: int) -> None:
        kind = record.get("type")
        uuid = record.get("uuid")
        if not isinstance(uuid, str) or not uuid:
            uuid = None
        if kind not in CONVERSATION:
            self.stats["skipped_" + (kind if isinstance(kind, str) else "untyped").replace("-", "_")] += 1
            if kind == "summary" and isinstance(record.get("summary"), str):
                self.title = _one_line(record["summary"], 160)
            if uuid and not record.get("isSidechain") and not self.graph.contains(uuid):
                parent = record.get("parentUuid") or record.get("logicalParentUuid")
                self._check_size()
                self.graph.add(uuid, parent if isinstance(parent, str) else None, None)
            return
        if uuid and (self.graph.contains(uuid) or _key(uuid) in self.sidechain_seen):
            self.stats["duplicate_records"] += 1
            return
        if record.get("isSidechain") is True:
            self._sidechain(record, uuid, number)
            return
        self._remember_meta(record)
        parent = record.get("parentUuid")
        timestamp = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
        node = None
        self._check_size()
        if uuid:
            # the leaf: the last conversation record of the main chain (also the cache key)
            node = self.graph.add(uuid, parent if isinstance(parent, str) else None, timestamp)
            self.leaf_node, self.leaf_uuid = node, uuid
        index = self._conversation(record, kind, number, timestamp, uuid)
        if index is not None:
            if node is not None:
                self.graph.message[node] = index
            self.stats["records"] += 1

    def _check_size(self) -> None:
        if len(self.graph) >= MAX_RECORDS or len(self.messages) >= MAX_MESSAGES:
            raise RefocusError(
                f"{self.source.main} is too large to distill: more than {MAX_RECORDS:,} records or "
                f"{MAX_MESSAGES:,} messages (a very long session; hand off a shorter one)."
            )

    def _text(self, text: str, limit: int) -> str:
        """Cap one text, and all texts together: past the budget each keeps only a little."""
        if self.text_budget <= 0:
            limit = min(limit, OVER_BUDGET_CAP)
        kept = _cap(text, limit)
        self.text_budget -= len(kept)
        return kept

    def _remember_meta(self, record: dict) -> None:
        for key, attr in (("cwd", "cwd"), ("gitBranch", "git_branch"), ("version", "version")):
            value = record.get(key)
            if isinstance(value, str) and value:
                setattr(self, attr, value)
        sid = record.get("sessionId")
        if self.session_id is None and isinstance(sid, str):
            self.session_id = sid
        ts = record.get("timestamp")
        if isinstance(ts, str):
            if self.first_ts is None:
                self.first_ts = ts
            self.last_ts = ts

    # -- conversation -------------------------------------------------------
    def _conversation(self, record, kind, number, timestamp, uuid) -> int | None:
        message = record.get("message")
        if not isinstance(message, dict):
            self.stats["malformed_records"] += 1
            return None
        if "toolUseResult" in record:
            self.stats["tool_results_stripped"] += 1
        if kind == "user":
            if record.get("isMeta"):
                self.stats["skipped_meta"] += 1
                return None
            msg = self._user(record, message, number)
        else:
            msg = self._assistant(record, message, number)
        if msg is None or isinstance(msg, int):
            return msg
        msg.uuid, msg.timestamp = uuid, timestamp
        msg.last_line = number
        self.messages.append(msg)
        return len(self.messages) - 1

    def _user(self, record: dict, message: dict, number: int):
        content = message.get("content")
        if record.get("isCompactSummary"):
            text = content if isinstance(content, str) else _joined_text(content)
            return sp.Message(sp.COMPACT, number, blocks=[sp.Block(sp.TEXT, self._text(text, COMPACT_CAP), number)])
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
                special = _user_text(item["text"])
                if special is None:
                    continue
                srole, text = special
                if srole != sp.USER:
                    role = srole
                if text:
                    blocks.append(sp.Block(sp.TEXT, self._text(text, USER_CAP), number))
            elif t == "tool_result":
                role = sp.TOOL if role == sp.USER and not blocks else role
                block = self._tool_result(item, number)
                if block is not None:
                    blocks.append(block)
            elif t in ("image", "document"):
                blocks.append(sp.Block(sp.TEXT, f"[{t} attached]", number))
        if not blocks:
            return None
        if role == sp.TOOL and any(b.kind == sp.TEXT for b in blocks):
            role = sp.USER
        return sp.Message(role, number, blocks=blocks)

    def _tool_result(self, item: dict, number: int) -> sp.Block | None:
        text = _joined_text(item.get("content"))
        self.stats["tool_output_chars_stripped"] += len(text)
        tool = self.tool_names.get(item.get("tool_use_id") or "", None)
        if text.startswith((_REJECTED, _REJECTED_ALT)):
            said = text.find(_USER_SAID)
            feedback = text[said + len(_USER_SAID):].strip() if said >= 0 else ""
            return sp.Block(sp.REJECTED, self._text(feedback, USER_CAP), number, tool=tool)
        if item.get("is_error") is True:
            if text.startswith(_INTERRUPTED):
                return None
            return sp.Block(sp.TOOL_ERROR, "(output stripped)", number, tool=tool)
        return None

    def _assistant(self, record: dict, message: dict, number: int):
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if not isinstance(content, list):
            self.stats["malformed_records"] += 1
            return None
        if message.get("model") == "<synthetic>" or record.get("isApiErrorMessage"):
            self.stats["skipped_synthetic"] += 1
            return None
        msg_id = message.get("id") if isinstance(message.get("id"), str) else None
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
        seen: set = set()
        self._assistant_blocks(content, number, msg, seen)
        msg.uuid = record.get("uuid") if isinstance(record.get("uuid"), str) else None
        msg.timestamp = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
        self.messages.append(msg)
        index = len(self.messages) - 1
        if msg_id:
            self.open_messages[msg_id] = (index, seen)
            if len(self.open_messages) > OPEN_MESSAGES:
                self.open_messages.popitem(last=False)
        return index

    def _assistant_blocks(self, content: list, number: int, msg: sp.Message, seen: set) -> None:
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

    def _tool_use(self, item: dict, number: int) -> sp.Block:
        name = item.get("name") if isinstance(item.get("name"), str) else "?"
        tool_id = item.get("id")
        if isinstance(tool_id, str) and len(self.tool_names) < 200_000:
            self.tool_names[tool_id] = name
        data = item.get("input") if isinstance(item.get("input"), dict) else {}
        path = data.get("file_path") or data.get("notebook_path")
        path = path if isinstance(path, str) else None
        if name == "TodoWrite" and isinstance(data.get("todos"), list):
            self.todos = [(str(t.get("status", "?")), _one_line(t.get("content", ""), 160), number)
                          for t in data["todos"][:30] if isinstance(t, dict)]
            summary = "; ".join(f"[{s}] {c}" for s, c, _ in self.todos)
        else:
            summary = _tool_summary(name, data, path)
        if path and name in WRITE_TOOLS and len(self.files_written) < 5000:
            self.files_written.append((path, number))
        return sp.Block(sp.TOOL_USE, _one_line(summary, TOOL_SUMMARY_CAP), number, tool=name, path=path)

    # -- sidechains ---------------------------------------------------------
    def _sidechain(self, record: dict, uuid: str | None, number: int) -> None:
        agent = record.get("agentId") if isinstance(record.get("agentId"), str) else None
        parent = record.get("parentUuid")
        key = agent or (self.sidechain_of.get(parent) if isinstance(parent, str) else None) or f"L{number}"
        if uuid:
            self._check_size()
            self.sidechain_seen.add(_key(uuid))
            if not agent:
                self.sidechain_of[uuid] = key
        chain = self.sidechains.get(key)
        if chain is None:
            if len(self.sidechains) >= MAX_SIDECHAINS:
                key = "overflow"  # a hostile file of countless one-record sidechains
                chain = self.sidechains.get(key)
            if chain is None:
                chain = self.sidechains[key] = _Sidechain(key, "", number, record.get("timestamp"))
        chain.take(record, number, self.stats)

    # -- assembly -----------------------------------------------------------
    def finish(self, subagents: list["_Sidechain"]) -> list[sp.Message]:
        self.graph.resolve()
        keep = self._linearize()
        messages = [m for i, m in enumerate(self.messages) if keep[i] and m.blocks]
        outcomes = [c.outcome() for c in list(self.sidechains.values()) + subagents]
        self.stats["sidechains_collapsed"] += len(outcomes)
        return _insert_by_time(messages, [o for o in outcomes if o is not None])

    def _linearize(self) -> list:
        """Which messages stay, and rewind markers placed in front of replacements."""
        keep: list = [True] * len(self.messages)
        g = self.graph
        if self.leaf_node is None:
            return keep
        on_path = set(g.ancestors(self.leaf_node))
        path_child: dict[int, int] = {}
        for node in on_path:
            parent = g.parent_of(node)
            if parent is not None and parent in on_path:
                path_child[parent] = node
        nodes_of: dict[int, list[int]] = {}
        for node, msg in enumerate(g.message):
            if msg >= 0:
                nodes_of.setdefault(msg, []).append(node)
        fork: dict[int, tuple | None] = {}
        groups: dict[tuple, list[int]] = {}
        for node, msg in enumerate(g.message):
            if msg < 0 or node in on_path:
                continue
            if any(n in on_path for n in nodes_of[msg]):
                continue  # another line of the same merged message is on the path
            result = self._fork_of(node, on_path, fork)
            if result is None:
                continue  # not connected to the leaf's history: keep, cannot judge
            groups.setdefault(result, []).append(msg)
        for (fork_node, branch), msgs in groups.items():
            first = min(msgs)
            child = path_child.get(fork_node)
            replacement = self._first_message_from(child, path_child)
            if not self._is_rewind(branch, child, first, replacement):
                self.stats["forks_linearized"] += 1
                continue
            self.stats["rewinds"] += 1
            for m in set(msgs):
                keep[m] = False
            self.stats["rewound_messages"] += len(set(msgs))
            self._rewind_marker(sorted(set(msgs)), replacement)
        return keep

    def _fork_of(self, node: int, on_path: set, memo: dict):
        trail = []
        current, below = node, None
        result = None
        steps = 0
        while True:
            steps += 1
            if current is None or steps > len(self.graph) + 1:
                result = None
                break
            if current in on_path:
                result = (current, below)
                break
            if current in memo:
                result = memo[current]
                break
            trail.append(current)
            below, current = current, self.graph.parent_of(current)
        for t in trail:
            memo[t] = result
        return result

    def _first_message_from(self, node, path_child) -> int | None:
        steps = 0
        while node is not None and steps <= len(self.graph):
            steps += 1
            if self.graph.message[node] >= 0:
                return self.graph.message[node]
            node = path_child.get(node)
        return None

    def _is_rewind(self, branch, child, first_msg, replacement) -> bool:
        if child is None or replacement is None:
            return False
        g = self.graph
        if g.timestamp_of(branch) is not None and g.timestamp_of(branch) == g.timestamp_of(child):
            return False  # recording artifact: siblings written at the same instant
        return self.messages[first_msg].is_user_turn and self.messages[replacement].is_user_turn

    def _rewind_marker(self, msgs: list[int], replacement: int) -> None:
        first = self.messages[msgs[0]]
        last_line = max(self.messages[m].last_line for m in msgs)
        quote = _one_line(first.text, 150)
        target = self.messages[replacement]
        marker = sp.Block(
            sp.TEXT,
            f"the user went back and replaced {len(msgs)} message(s) (L{first.line}-L{last_line}); "
            f"the abandoned branch began with the user saying: \"{quote}\"",
            first.line,
        )
        self.rewinds.append((replacement, sp.Message(sp.REWIND, first.line, blocks=[marker],
                                                     timestamp=target.timestamp, last_line=last_line)))


class _Sidechain:
    """Collapses one sidechain (in the main file or a subagent file) to an outcome."""

    def __init__(self, key: str, source: str, first_line: int, timestamp):
        self.key, self.source = key, source
        self.first_line = self.last_line = first_line
        self.timestamp = timestamp if isinstance(timestamp, str) else None
        self.prompt: str | None = None
        self.answer: str | None = None
        self.records = self.tool_calls = self.tool_errors = 0
        self.agent_type: str | None = None

    def take(self, record: dict, number: int, stats: Counter) -> None:
        self.records += 1
        self.last_line = number
        if self.timestamp is None and isinstance(record.get("timestamp"), str):
            self.timestamp = record["timestamp"]
        message = record.get("message")
        if not isinstance(message, dict):
            return
        content = message.get("content")
        if "toolUseResult" in record:
            stats["tool_results_stripped"] += 1
        items = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not isinstance(items, list):
            return
        for item in items:
            if not isinstance(item, dict):
                continue
            t = item.get("type")
            if t == "text" and isinstance(item.get("text"), str) and item["text"].strip():
                if record.get("type") == "user" and self.prompt is None and not record.get("isMeta"):
                    self.prompt = _one_line(_REMINDER_RE.sub("", item["text"]), 160)
                elif record.get("type") == "assistant":
                    self.answer = item["text"]
            elif t == "tool_use":
                self.tool_calls += 1
            elif t == "tool_result":
                if item.get("is_error") is True:
                    self.tool_errors += 1
                stats["tool_output_chars_stripped"] += len(_joined_text(item.get("content")))

    def outcome(self) -> sp.Message | None:
        if self.records == 0:
            return None
        name = self.source or f"sidechain {self.key}"
        span = f"{self.source}:L{self.first_line}-L{self.last_line}" if self.source \
            else f"L{self.first_line}-L{self.last_line}"
        answer = f"\"{_one_line(self.answer, 220)}\"" if self.answer else "ended without a final answer"
        asked = f"\"{self.prompt}\"" if self.prompt else "(no prompt recorded)"
        extra = f", {self.tool_errors} tool error(s)" if self.tool_errors else ""
        text = (f"{name} asked {asked} -> {answer} ({self.records} records, {self.tool_calls} tool "
                f"call(s){extra}; {span})")
        message = sp.Message(sp.SIDECHAIN, self.first_line, timestamp=self.timestamp,
                             source=self.source, last_line=self.last_line)
        message.blocks.append(sp.Block(sp.TEXT, text, self.first_line))
        message.failed = self.answer is None
        return message


def _insert_by_time(messages: list[sp.Message], extra: list[sp.Message]) -> list[sp.Message]:
    """Merge ``extra`` into ``messages`` (file order): each goes before the first
    message written after it; without a timestamp, at the end."""
    if not extra:
        return messages
    pending = sorted(extra, key=lambda m: (m.timestamp or "\uffff", m.source, m.line))
    out: list[sp.Message] = []
    j = 0
    for message in messages:
        while j < len(pending) and pending[j].timestamp and message.timestamp \
                and pending[j].timestamp < message.timestamp:
            out.append(pending[j])
            j += 1
        out.append(message)
    out.extend(pending[j:])
    return out


def _joined_text(content) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
    return ""


def _user_text(text: str):
    """(role, text) for a user text block, or None when it is client chatter."""
    if "<system-reminder>" in text:
        text = _REMINDER_RE.sub("", text)
    stripped = text.strip()
    if not stripped:
        return None
    if stripped.startswith(_INTERRUPTED):
        return sp.INTERRUPT, "[the user interrupted the assistant]"
    if stripped.startswith(_TOOL_OUTPUT_TAGS):
        return None
    name = _COMMAND_NAME_RE.search(stripped)
    if name:
        args = _COMMAND_ARGS_RE.search(stripped)
        command = name.group(1).strip()
        arg = args.group(1).strip() if args else ""
        return sp.COMMAND, _one_line(f"{command} {arg}".strip(), 300)
    bash = _BASH_INPUT_RE.search(stripped)
    if bash:
        return sp.COMMAND, "! " + _one_line(bash.group(1), 300)
    return sp.USER, stripped


def _tool_summary(name: str, data: dict, path: str | None) -> str:
    if name == "Bash" and isinstance(data.get("command"), str):
        desc = data.get("description")
        return data["command"] + (f"  # {desc}" if isinstance(desc, str) and desc else "")
    if path and name in _FILE_TOOLS:
        return path
    for key in ("description", "pattern", "url", "query", "prompt", "path", "skill", "plan"):
        value = data.get(key)
        if isinstance(value, str) and value:
            extra = data.get("subagent_type")
            return (f"{extra}: " if isinstance(extra, str) else "") + value
    return ""


def _read_subagent(path: str, stats: Counter) -> "_Sidechain | None":
    label = os.path.basename(path)
    chain = _Sidechain(label, label, 1, None)
    seen: set = set()
    try:
        fh = open(path, "rb")
    except OSError:
        stats["unreadable_subagent_files"] += 1
        return None
    with fh:
        for line in jsonl.read_lines(fh, prefilter=_prefilter):
            if line.problem == "invalid-json":
                stats["invalid_json_lines_subagents"] += 1
            record = line.record
            if not isinstance(record, dict) or record.get("type") not in CONVERSATION:
                continue
            uuid = record.get("uuid")
            if isinstance(uuid, str):
                if uuid in seen:
                    stats["duplicate_records"] += 1
                    continue
                seen.add(uuid)
            if chain.records == 0:
                chain.first_line = line.number
            chain.take(record, line.number, stats)
    return chain if chain.records else None


def prepare(source: TranscriptSource, *, direct_bound: int = DIRECT_BOUND,
            chunk_bound: int = CHUNK_BOUND) -> Plan:
    """Read the transcript (and its subagent files) into a :class:`Plan`."""
    collector = _Collector(source)
    collector.read_main()
    subagents = [c for c in (_read_subagent(p, collector.stats) for p in source.subagents) if c]
    messages = collector.finish(subagents)
    if collector.rewinds:
        before: dict[int, list] = {}
        for replacement, marker in collector.rewinds:
            before.setdefault(id(collector.messages[replacement]), []).append(marker)
        messages = [x for m in messages for x in (*before.get(id(m), ()), m)]
    stats = collector.stats
    if not messages:
        lines = stats["lines"]
        bad = stats["invalid_json_lines"]
        raise RefocusError(
            f"{source.main} holds no Claude Code conversation ({lines} line(s), {bad} not JSON); "
            "is it a session transcript (~/.claude/projects/.../<session-id>.jsonl)?"
        )
    plan = Plan(
        source=source, messages=messages, leaf_uuid=collector.leaf_uuid,
        session_id=collector.session_id or source.session_id, cwd=collector.cwd,
        git_branch=collector.git_branch, first_timestamp=collector.first_ts,
        last_timestamp=collector.last_ts, title=collector.title, version=collector.version,
        files_written=collector.files_written, todos=collector.todos, stats=stats,
    )
    stats["spine_messages"] = len(messages)
    sizes = [sp.rendered_size(m) for m in messages]
    total = sum(sizes)
    stats["spine_chars"] = total
    plan.chunks = sp.chunk(messages, chunk_bound, sizes) if total > direct_bound else [(0, len(messages))]
    return plan

