"""What the fields of a Claude Code transcript record mean, and small text helpers.

Also the fast line decoder (see :data:`decode_record`), the reading of a tool's output left
undecoded (:func:`output_startswith`, :func:`output_text`) and what the secret gate scans of a
line (:func:`gated_bytes`).
"""

from __future__ import annotations

import functools
import json
import re

from gitrefocus.handoff import spine as sp
from gitrefocus.handoff.jsonl import safe_cut as _safe_cut

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

# Only these carry conversation. Everything else is skipped by type: attachment, progress,
# system, summary, file-history-snapshot, queue-operation, last-prompt, api-request*,
# cost-state, mode, ... (new clients keep adding types; none of them is conversation).
CONVERSATION = {"user", "assistant"}

REJECTED = "The user doesn't want to proceed with this tool use."
REJECTED_ALT = "The user doesn't want to take this action right now."
USER_SAID = "the user said:\n"
# what newer clients put as the "feedback" of a question menu the user chose to clarify: the
# client's own note (how to go on, the questions left unanswered), no word the user typed
CLARIFY = "The user wants to clarify these questions."
INTERRUPTED = "[Request interrupted by user"
REMINDER_RE = re.compile(r"<system-reminder>.*?</system-reminder>", re.S)
# what an IDE extension adds to a prompt (the file open in the editor, the selection): the
# client's words, not the user's
IDE_RE = re.compile(r"<(ide_[a-z_]+)>.*?</\1>", re.S)
_COMMAND_NAME_RE = re.compile(r"<command-name>(.*?)</command-name>", re.S)
_COMMAND_ARGS_RE = re.compile(r"<command-args>(.*?)</command-args>", re.S)
_BASH_INPUT_RE = re.compile(r"<bash-input>(.*?)</bash-input>", re.S)
_FILE_TOOLS = {"Read", "Edit", "MultiEdit", "Write", "NotebookEdit", "NotebookRead"}
WRITE_TOOLS = {"Edit", "MultiEdit", "Write", "NotebookEdit"}
# records naming the session: `summary` (older clients, one per leaf, matched by leafUuid),
# `custom-title` (set by the user) and `ai-title` (2.1.3xx, matched by sessionId)
TITLE_KINDS = ("summary", "custom-title", "ai-title")
# The records whose words can reach the output (the spine, the brief, plan.json). The reader takes
# nothing else from a record of any other type but its uuid links and the count of its type
# (``prepare._Collector._skipped``, which scrubs the type it names), so those are not scrubbed as
# they are read (``jsonl.decoded``).
QUOTED_KINDS = frozenset(CONVERSATION | set(TITLE_KINDS) | {"queue-operation", "attachment"})


def cap(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    head = limit * 2 // 3
    tail = limit - head
    return f"{text[:head]} [... {len(text) - limit} chars cut ...] {text[-tail:]}"


def one_line(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def joined_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
    return ""


# -- who wrote a `user` record ------------------------------------------------
# Origins of a `type: "user"` record. Only USER_TYPED is the person at the keyboard.
USER_TYPED = "typed"              # the user's own prompt
USER_COMMAND = "command"          # a slash command or `!` shell input the user ran
INTERRUPT_MARK = "interrupt"      # the client's "[Request interrupted by user]" marker
NOTIFICATION = "notification"     # a background task or agent reporting back
COMPACT_SUMMARY = "compact"       # the client's compaction summary
CLIENT = "client"                 # anything else the client injected (meta, caveats, hooks, ...)
TOOL_OUTPUT = "tool-output"       # tool results and local command output
UNKNOWN = "unknown"               # a marker we do not know: never the user's

# THE table. Each row: (field, values, origin). Rows are tried in order on the record's
# fields, as each client generation writes them; the first row whose field holds one of
# the values decides. ``None`` as values means "the field is present and true".
#   2.1.3xx writes promptSource / turnOrigin / origin.kind on every prompt; the values
#   come from the client's own list (its set of non-human turn origins is scheduled,
#   task_notification, auto_continuation, peer, host_synthetic, system).
#   2.0.x–2.1.x before that write only isMeta / isCompactSummary and text markers.
ORIGIN_FIELDS: tuple[tuple[str, frozenset[str] | None, str], ...] = (
    ("isCompactSummary", None, COMPACT_SUMMARY),                 # all generations
    ("isMeta", None, CLIENT),                                    # caveats, expanded slash prompts, image paths
    ("isVisibleInTranscriptOnly", None, CLIENT),
    ("origin.kind", frozenset({"task-notification", "task", "agent-stopped-by-user"}), NOTIFICATION),
    ("turnOrigin", frozenset({"task_notification"}), NOTIFICATION),
    ("origin.kind", frozenset({"peer", "peer-send-message", "scheduled", "scheduled-trigger", "coordinator",
                               "channel", "hook", "hooks"}), CLIENT),
    ("turnOrigin", frozenset({"scheduled", "auto_continuation", "peer", "host_synthetic", "system"}), CLIENT),
    ("promptSource", frozenset({"system"}), CLIENT),
    ("origin.kind", frozenset({"human"}), USER_TYPED),
    ("turnOrigin", frozenset({"human", "sdk"}), USER_TYPED),
    ("promptSource", frozenset({"typed", "queued", "suggestion_accepted", "sdk"}), USER_TYPED),
)
# fields whose presence with a value outside the table means an origin we do not know
_ORIGIN_MARKERS = ("origin.kind", "turnOrigin", "promptSource")
# text markers (older clients, and the body of records the fields call typed): prefix -> origin
ORIGIN_PREFIXES: tuple[tuple[str, str], ...] = (
    ("<task-notification>", NOTIFICATION),
    (INTERRUPTED, INTERRUPT_MARK),
    ("<local-command-stdout>", TOOL_OUTPUT), ("<local-command-stderr>", TOOL_OUTPUT),
    ("<bash-stdout>", TOOL_OUTPUT), ("<bash-stderr>", TOOL_OUTPUT),
    ("<local-command-caveat>", CLIENT),
    ("Caveat: The messages below were generated by the user while running local commands", CLIENT),
    ("<user-prompt-submit-hook>", CLIENT),
    # a prompt a hook blocked: the client writes its own message in the user's place, and the
    # user's words come back only when they submit them again
    ("Operation stopped by hook:", CLIENT),
    ("<command-message>", USER_COMMAND), ("<command-name>", USER_COMMAND), ("<bash-input>", USER_COMMAND),
)


def _field(record: dict[str, Any], path: str) -> object:
    value: object = record
    for part in path.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


_ORIGIN_KEYS = frozenset(path.split(".")[0] for path, _, _ in ORIGIN_FIELDS) | frozenset(
    path.split(".")[0] for path in _ORIGIN_MARKERS)


# -- the reader's view of a record ---------------------------------------------------
# Every field the handoff's reader reads (prepare.py, sidechains.py, the origin table above).
# A record whose raw line holds a secret's trigger is cut down to these before it is scrubbed
# (``scrub.scrub_decoded``): what the reader never reads — tool output kept twice in
# ``toolUseResult``, progress payloads, file snapshots, a Write's content, image data — is
# dropped rather than scrubbed, so nothing downstream can quote it. Reading a new field means
# adding it here (tests/handoff/test_handoff_fastpath.py holds the handoff with and without the
# view to the same result).
_RECORD_KEYS = frozenset({
    "type", "uuid", "parentUuid", "logicalParentUuid", "isSidechain", "timestamp", "cwd", "gitBranch",
    "version", "sessionId", "agentId", "message", "isMeta", "isApiErrorMessage", "isCompactSummary",
    "isVisibleInTranscriptOnly", "origin", "turnOrigin", "promptSource", "operation", "content", "reason",
    "attachment", "summary", "customTitle", "aiTitle", "leafUuid",
})
_MESSAGE_KEYS = frozenset({"role", "content", "id", "model"})
# content blocks, and the items of a tool result's content
_BLOCK_KEYS = frozenset({"type", "text", "thinking", "name", "id", "input", "tool_use_id", "content", "is_error"})
_INPUT_KEYS = frozenset({"file_path", "notebook_path", "command", "description", "pattern", "url", "query",
                         "prompt", "path", "skill", "plan", "subagent_type", "todos", "subject", "taskId", "status"})
_ATTACHMENT_KEYS = frozenset({"type", "commandMode", "origin", "prompt"})


def reader_view(record: object) -> object:
    """``record`` with only what the reader reads (a new value; ``record`` is not changed). A
    content block's ``content`` (a tool's output) becomes an :class:`Output`: it is read only
    through :func:`output_head` and :func:`output_text`, and the scrub walk leaves it alone."""
    if not isinstance(record, dict):
        return record
    out = {k: v for k, v in record.items() if k in _RECORD_KEYS}
    if "toolUseResult" in record:  # only its answers are read (and that it was there)
        result = record["toolUseResult"]
        out["toolUseResult"] = {"answers": result["answers"]} if isinstance(result, dict) and "answers" in result \
            else {}
    message = out.get("message")
    if isinstance(message, dict):
        message = out["message"] = {k: v for k, v in message.items() if k in _MESSAGE_KEYS}
        if isinstance(message.get("content"), list):
            message["content"] = [_block_view(b) for b in message["content"]]
    attachment = out.get("attachment")
    if isinstance(attachment, dict):
        out["attachment"] = {k: v for k, v in attachment.items() if k in _ATTACHMENT_KEYS}
    return out


def _block_view(block: object) -> object:
    if not isinstance(block, dict):
        return block
    out = {k: v for k, v in block.items() if k in _BLOCK_KEYS}
    if isinstance(out.get("input"), dict):
        out["input"] = {k: v for k, v in out["input"].items() if k in _INPUT_KEYS}
    if "content" in out and not _is_output(out["content"]):
        out["content"] = Output(out["content"])
    return out


# -- a tool's output -----------------------------------------------------------------
# A tool result's ``content`` is most of a transcript's bytes, and the handoff quotes almost
# none of it: the reader classifies a result by the head of its first text (a refusal, an
# interruption, a task's id) and quotes only a refusal's feedback and the answers to a
# question. So the fast decoder leaves it undecoded (``msgspec.Raw``), ``reader_view`` wraps a
# decoded one in :class:`Output`, neither is scrubbed as its record is read, and whoever quotes
# :func:`output_text` scrubs what it quotes (docs/secrets.md).
class Output:
    """A tool result's ``content`` as json.loads decoded it, kept out of the scrub walk."""

    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:  # a Raw and an Output of the same JSON are equal
        if _is_output(other):
            return bool(_output_value(self) == _output_value(other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Output({self.value!r})"


def _is_output(value: object) -> bool:
    return value.__class__ is Output or value.__class__ is _Raw


def _output_value(content: object) -> object:
    """The JSON value of a tool result's content (a Raw one decoded as json.loads would)."""
    if content.__class__ is Output:
        return content.value
    if content.__class__ is not _Raw:
        return content
    return _loads(content)  # type: ignore[arg-type]


def _loads(data: bytes) -> object:
    """What the reader of :mod:`jsonl` gives for ``data`` (msgspec where it can; else json.loads,
    invalid UTF-8 and lone surrogates replaced), or None for what is not JSON."""
    if _decode_any is not None:
        try:
            return _decode_any(data)
        except Exception:  # noqa: BLE001 - json.loads gets its turn, as in jsonl._decode
            pass
    from gitrefocus.handoff.jsonl import _decode

    try:
        return _decode(bytes(data))[0]
    except ValueError:
        return None


def _first_text(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        for c in value:
            if isinstance(c, dict) and isinstance(c.get("text"), str):
                text: str = c["text"]
                return text
    return ""


def output_text(content: object) -> str:
    """The first text of a tool result's content (the string, or its first text item), whole and
    NOT scrubbed: scrub what you quote of it."""
    return _first_text(_output_value(content))


@functools.lru_cache(maxsize=16)
def _prefix_bytes(prefixes: tuple[str, ...]) -> tuple[tuple[bytes, ...], frozenset[int], int]:
    encoded = tuple(p.encode() for p in prefixes)
    return encoded, frozenset(p[0] for p in encoded if p) | {0x5C}, max(map(len, encoded))


def output_startswith(content: object, prefixes: tuple[str, ...]) -> bool:
    """Whether :func:`output_text` starts with one of ``prefixes`` (ASCII, no quote or backslash),
    decided on the bytes of an undecoded string as far as they are the text's characters as
    they are (up to its first escape)."""
    if content.__class__ is _Raw:
        view = memoryview(content)  # type: ignore[arg-type]
        if len(view) > 2 and view[0] == 0x22:
            encoded, firsts, longest = _prefix_bytes(prefixes)
            if view[1] not in firsts:  # the common case: the first character rules them all out
                return False
            start = bytes(view[1:longest + 1])
            escape, end = start.find(b"\\"), start.find(b'"')
            literal = start[:min(i for i in (escape, end, len(start)) if i >= 0)]
            undecided = False
            for wanted in encoded:
                if literal.startswith(wanted):
                    return True
                undecided |= escape == len(literal) and wanted.startswith(literal)
            if not undecided:
                return False
    return output_head(content, max(len(p) for p in prefixes)).startswith(prefixes)


def output_head(content: object, limit: int = 200) -> str:
    """The first ``limit`` characters of :func:`output_text`, to classify a result by (never to
    quote: not scrubbed). A long undecoded string is decoded only that far."""
    if content.__class__ is _Raw:
        view = memoryview(content)  # type: ignore[arg-type]
        span = 6 * limit + 16  # a character is at most 6 bytes (\uXXXX) of JSON
        if len(view) > span + 2 and view[0] == 0x22:  # a long string: decode its head alone
            head = _safe_cut(bytes(view[1:span]))
            end = len(head)
            while end > 0 and head[end - 1] & 0xC0 == 0x80:
                end -= 1  # nor inside a UTF-8 sequence: its continuation bytes,
            if end > 0 and head[end - 1] >= 0xC0:
                end -= 1  # and the byte that starts it
            value = _loads(b'"' + head[:end] + b'"')
            return value[:limit] if isinstance(value, str) else ""
    return output_text(content)[:limit]


# -- what the secret gate scans of a decoded line ------------------------------------------
def gated_bytes(raw: bytes, record: object) -> bytes | None:
    """What the secret gate (``scrub.trigger_gate``) must scan for ``record``, decoded from the
    line ``raw`` by :data:`decode_record`, to know whether its view holds a secret: nothing for a
    record of a type the reader quotes nothing of (:data:`QUOTED_KINDS`); for a record of tool
    results only, its view without the tools' output (encoded as JSON: most of the line's bytes
    are that output and the client's copy of it, which the reader never quotes as read); else
    the line itself."""
    if record.__class__ is not dict:
        return raw
    kind = record.get("type")
    if kind.__class__ is not str:
        return raw
    if kind not in QUOTED_KINDS:
        return None
    if kind == "user" and _encode is not None:
        message: Any = record.get("message")
        content = message.get("content") if message.__class__ is dict else None
        if content.__class__ is list and content and all(
                b.__class__ is dict and b.get("type") == "tool_result" for b in content):
            probe = dict(record)
            probe["message"] = {**message, "content": [{k: v for k, v in b.items() if k != "content"}
                                                       for b in content]}
            try:
                return _encode(probe)
            except Exception:  # noqa: BLE001 - a value msgspec will not write: scan the line instead
                return raw
    return raw


# -- decoding a line ---------------------------------------------------------------
def _decoder() -> Callable[[bytes], object] | None:
    """msgspec's decoder of a whole JSON line (None without msgspec)."""
    from gitrefocus.store import fastjson

    return fastjson.make_decoder()


class _NoRaw:
    """Stands for ``msgspec.Raw`` without msgspec: nothing is one."""


def _codecs() -> tuple[Callable[[bytes], object] | None, Callable[[object], bytes] | None, type]:
    """msgspec's plain decoder and encoder, and its ``Raw`` type (Nones and :class:`_NoRaw` without it)."""
    try:
        import msgspec
    except ImportError:
        return None, None, _NoRaw
    return msgspec.json.Decoder().decode, msgspec.json.Encoder().encode, msgspec.Raw


_decode_any, _encode, _Raw = _codecs()


def _view_decoder() -> Callable[[bytes], object] | None:
    """A decoder of one line straight to :func:`reader_view` of what json.loads gives, a block's
    ``content`` left undecoded (``msgspec.Raw``, read by :func:`output_head` / :func:`output_text`);
    None without msgspec. The view is a schema, so msgspec skips the value of every other field
    as it parses (tool output kept twice, progress payloads, signatures, a Write's content)
    instead of building strings nobody reads."""
    try:
        import msgspec
    except ImportError:
        return None
    from typing import Any, TypedDict, Union

    def viewed(name: str, keys: frozenset[str], **fields: object) -> object:
        """Any JSON value; an object is cut down to ``keys`` (each ``Any`` unless in ``fields``)."""
        schema = TypedDict(name, {k: fields.get(k, Any) for k in sorted(keys)}, total=False)  # type: ignore[misc]
        return Union[schema, str, list, None, bool, int, float]

    block = viewed("Block", _BLOCK_KEYS, input=viewed("Input", _INPUT_KEYS), content=msgspec.Raw)
    message = viewed("Message", _MESSAGE_KEYS, content=Union[str, list[block], dict, None, bool, int, float])  # type: ignore[valid-type]
    schema = viewed("Record", _RECORD_KEYS | {"toolUseResult"}, message=message,
                    attachment=viewed("Attachment", _ATTACHMENT_KEYS),
                    toolUseResult=viewed("ToolUseResult", frozenset({"answers"})))
    decode = msgspec.json.Decoder(schema).decode

    def decode_view(raw: bytes) -> object:
        record = decode(raw)
        if record.__class__ is dict:
            result = record.get("toolUseResult", record)
            if result is not record and result.__class__ is not dict:
                record["toolUseResult"] = {}  # not an object: nothing of it is read
        return record
    return decode_view


# ``decode_record(raw)``: the line's JSON value cut to :func:`reader_view`, as
# ``reader_view(json.loads(raw))`` gives it, in about a fifth of the time json.loads takes.
# It refuses what json.loads takes with a twist (NaN, invalid UTF-8, lone surrogate escapes):
# jsonl._parse hands those to json.loads. Held to json.loads in
# tests/handoff/test_handoff_fastpath.py.
decode_record = _view_decoder()


def record_origin(record: dict[str, Any]) -> str | None:
    """The origin the record's fields state, or None when they state none (older clients)."""
    if _ORIGIN_KEYS.isdisjoint(record):
        return None  # no field of the table: the common case, decided without walking it
    for path, values, origin in ORIGIN_FIELDS:
        value = _field(record, path)
        if value is None or value is False:
            continue
        if values is None:
            if value is True:
                return origin
        elif isinstance(value, str) and value in values:
            return origin
    if any(_field(record, path) is not None for path in _ORIGIN_MARKERS):
        return UNKNOWN
    return None


def text_origin(text: str) -> str:
    """The origin a user text block's own markers state (the record's fields said typed or nothing)."""
    stripped = text.lstrip()
    for prefix, origin in ORIGIN_PREFIXES:
        if stripped.startswith(prefix):
            return origin
    return USER_TYPED


_TAG_RE = re.compile(r"<(status|summary|result|task-id)>(.*?)</\1>", re.S)


def notification_text(text: str) -> str:
    """A background task's notification in one line: its status and summary, and the start of
    its result (the task's words, never the user's)."""
    tags = {m.group(1): one_line(m.group(2), 300) for m in _TAG_RE.finditer(text[:20000])}
    summary = tags.get("summary") or "a background task reported back"
    status = tags.get("status")
    out = f"{summary}" + (f" ({status})" if status else "")
    if tags.get("result"):
        out += f"; result: {one_line(tags['result'], 220)}"
    return out


def user_text(text: str) -> tuple[str, str] | None:
    """(role, text) for a user text block, or None when it is client chatter."""
    if "<system-reminder>" in text:
        text = REMINDER_RE.sub("", text)
    if "<ide_" in text:
        text = IDE_RE.sub("", text)
    stripped = text.strip()
    if not stripped:
        return None
    origin = text_origin(stripped)
    if origin == INTERRUPT_MARK:
        return sp.INTERRUPT, "[the user interrupted the assistant]"  # prepare.INTERRUPT_TEXT
    if origin == NOTIFICATION:
        return sp.NOTIFICATION, notification_text(stripped)
    if origin in (TOOL_OUTPUT, CLIENT):
        return None
    if origin == USER_COMMAND:
        name = _COMMAND_NAME_RE.search(stripped)
        if name:
            args = _COMMAND_ARGS_RE.search(stripped)
            command = name.group(1).strip()
            arg = args.group(1).strip() if args else ""
            if arg and command not in BUILTIN_COMMANDS:
                # a custom command with arguments: the arguments are the user's request
                return sp.USER, f"{command} {arg}"
            return sp.COMMAND, one_line(f"{command} {arg}".strip(), 300)
        bash = _BASH_INPUT_RE.search(stripped)
        if bash:
            return sp.COMMAND, "! " + one_line(bash.group(1), 300)
        return None
    return sp.USER, stripped


_TYPED_COMMAND_RE = re.compile(r"^(/[\w:.-]+)(?:\s+(.*))?$", re.S)


def queued_text(text: str) -> tuple[str, str] | None:
    """(role, text) for what the user typed while the assistant worked (a ``queue-operation``
    record's ``content``, a ``queued_command`` attachment's ``prompt``), or None. It is raw
    input: a slash command or ``!`` shell line as typed, not wrapped in tags."""
    stripped = text.strip()
    if not stripped:
        return None
    if stripped.startswith("<"):
        return user_text(stripped)  # a notification or a tagged command: the usual markers decide
    if stripped.startswith("{") and '"task_id"' in stripped and _task_report(stripped):
        return sp.NOTIFICATION, stripped  # a background task's report, queued by the client (2.1.4x)
    command = _TYPED_COMMAND_RE.match(stripped)
    if command and "\n" not in command.group(1):
        name, arg = command.group(1), (command.group(2) or "").strip()
        if arg and name not in BUILTIN_COMMANDS:
            return sp.USER, f"{name} {arg}"
        return sp.COMMAND, one_line(stripped, 300)
    if stripped.startswith("!"):
        return sp.COMMAND, "! " + one_line(stripped[1:], 300)
    return sp.USER, stripped


def _task_report(text: str) -> bool:
    """``text`` is a JSON object naming a background task (``task_id``), as clients of 2.1.4x
    enqueue a task's report; words a user typed in braces are not valid JSON of that shape."""
    try:
        value = json.loads(text)
    except ValueError:
        return False
    return isinstance(value, dict) and isinstance(value.get("task_id"), str)


def prompt_text(prompt: object) -> str:
    """The text of a ``queued_command`` attachment's prompt: a string, or content blocks."""
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, list):
        parts = []
        for item in prompt:
            if isinstance(item, dict):
                if isinstance(item.get("text"), str):
                    parts.append(item["text"])
                elif item.get("type") in ("image", "document"):
                    parts.append(f"[{item['type']} attached]")
        return "\n".join(parts)
    return ""


# "User has answered your questions: "Q"="A", "Q2"="A2". You can now continue ..." (2.0.x-2.1.x)
_ANSWER_PAIR_RE = re.compile(r'"((?:[^"\\]|\\.)*)"="((?:[^"\\]|\\.)*)"', re.S)
ASKED_TOOLS = frozenset({"AskUserQuestion"})


def question_answers(result_text: str, tool_use_result: object) -> list[tuple[str, str]]:
    """(question, answer) pairs of an AskUserQuestion result: from ``toolUseResult.answers`` when
    the client records them, else from the result's text. The answers are the user's words."""
    pairs: list[tuple[str, str]] = []
    answers = tool_use_result.get("answers") if isinstance(tool_use_result, dict) else None
    if isinstance(answers, dict):
        for question, answer in list(answers.items())[:20]:
            if isinstance(question, str) and isinstance(answer, str) and answer.strip():
                pairs.append((question, answer))
        if pairs:
            return pairs
    if "answered your question" in result_text[:200]:
        for m in _ANSWER_PAIR_RE.finditer(result_text[:20000]):
            if m.group(2).strip():
                pairs.append((m.group(1), m.group(2)))
            if len(pairs) >= 20:
                break
    return pairs


# the client's own commands: their arguments are settings, not a request
BUILTIN_COMMANDS = frozenset(
    "/compact /clear /model /config /help /cost /status /login /logout /resume /rewind /memory /init "
    "/permissions /hooks /mcp /agents /add-dir /bug /doctor /export /ide /install-github-app /review "
    "/terminal-setup /vim /context /output-style /statusline /usage /todos /exit /quit /fast /effort".split()
)


def tool_summary(name: str, data: dict[str, Any], path: str | None) -> str:
    if name == "Bash" and isinstance(data.get("command"), str):
        desc = data.get("description")
        command: str = data["command"]
        return command + (f"  # {desc}" if isinstance(desc, str) and desc else "")
    if path and name in _FILE_TOOLS:
        return path
    for key in ("description", "pattern", "url", "query", "prompt", "path", "skill", "plan"):
        value = data.get(key)
        if isinstance(value, str) and value:
            extra = data.get("subagent_type")
            return (f"{extra}: " if isinstance(extra, str) else "") + value
    return ""
