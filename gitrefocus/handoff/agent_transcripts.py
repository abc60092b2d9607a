"""Codex CLI rollouts and Gemini CLI chats, read as the records of a Claude Code transcript.

The handoff's reader (``prepare.py``) knows one record shape: Claude Code's (``type`` user or
assistant, a ``message`` with content blocks, ``tool_use`` and ``tool_result`` blocks tied by
id, ``uuid``/``parentUuid``, ``promptSource`` where the user typed). The other agents' files
are turned into that shape here, record by record, after each raw record was scrubbed of
secrets (``jsonl.read_lines``), so nothing downstream sees a secret or needs to know the agent.

**Codex CLI** (0.169.0) writes a rollout: JSON lines ``{"timestamp", "type", "payload"}``.
``session_meta`` names the session (``id``), its ``cwd``, ``cli_version`` and git branch;
``response_item`` holds what the model saw and said: ``message`` (role ``user``, ``developer``
or ``assistant``; ``content`` items ``input_text``/``output_text``), ``function_call``
(``name``, JSON ``arguments``, ``call_id``), ``function_call_output``, ``custom_tool_call``
(``apply_patch``, its patch in ``input``), ``reasoning``; ``compacted`` holds a compaction's
summary; ``event_msg``, ``turn_context`` and the rest repeat or describe and are skipped.
The user's own words are the ``user`` messages whose content kinds say ``user.text``
(``internal_chat_message_metadata_passthrough.content_item_kinds``); before those were
written, a user message that opens with one of the client's own tags (``<environment_context>``,
``# AGENTS.md instructions``, …) is the client's.

**Gemini CLI** (0.61.0) writes a chat: JSON lines, the first ``{"sessionId", "projectHash",
"startTime", "kind"}``, then records ``{"id", "timestamp", "type", "content", …}`` (``user``,
``gemini``, ``info``, ``error``, …), a record written again under its id when it grows (a
``gemini`` record gains its ``toolCalls``: ``name``, ``args``, ``result``), and ``{"$set": …}``
lines that update the session (their ``messages`` hold records too). ``<session_context>``
opens a chat (the client's), and a SessionStart hook's context is prefixed to the user's first
prompt as ``<hook_context>…</hook_context>``. Before 0.5x a chat was one ``.json`` object with a
``messages`` list.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO

from gitrefocus.handoff import jsonl

CLAUDE, CODEX, GEMINI = "claude", "codex", "gemini"
CODEX_KINDS = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted", "world_state"})
CODEX_CLIENT_TAGS = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<INSTRUCTIONS>",
                     "<skill>", "<user_shell_command>", "<turn_aborted>", "<subagent_notification>")
GEMINI_CLIENT_TAGS = ("<session_context>",)
HOOK_CONTEXT_RE = re.compile(r"\A\s*<hook_context>.*?</hook_context>\s*", re.S)
# what the reader calls the tools (Claude Code's names), from each agent's
SHELL_TOOLS = {"exec_command": "cmd", "shell_command": "command", "shell": "command", "run_shell_command": "command",
               "local_shell": "command"}
GEMINI_FILE_TOOLS = {"write_file": "Write", "replace": "Edit", "read_file": "Read"}
PATCH_FILE_RE = re.compile(r"^\*\*\* (?:Add|Update) File: (.+)$", re.M)
PROBE = 64 * 1024


def detect(path: str) -> str:
    """Which agent wrote the transcript at ``path``, from its first record: a Codex rollout's
    (``{"type": "session_meta", "payload": …}`` or another rollout kind with a payload) or a
    Gemini chat's (``sessionId`` with ``projectHash``/``kind`` and no ``type``; an old ``.json``
    chat's ``messages``); anything else is read as Claude Code's."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(PROBE)
    except OSError:
        return CLAUDE
    first = head.split(b"\n", 1)[0].strip()
    try:
        record = json.loads(first.decode("utf-8", "replace"))
    except ValueError:
        record = None
    if isinstance(record, dict):
        kind = record.get("type")
        if isinstance(kind, str) and kind in CODEX_KINDS and isinstance(record.get("payload"), dict):
            return CODEX
        if isinstance(record.get("sessionId"), str) and "type" not in record and \
                ("projectHash" in record or "kind" in record or "messages" in record):
            return GEMINI
        return CLAUDE
    if path.endswith(".json") and re.match(rb'\s*\{', head) and b'"sessionId"' in head and b'"messages"' in head:
        return GEMINI
    return CLAUDE


def records(agent: str, fh: BinaryIO, tally: Counter[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, Claude-shaped record)`` for each record of a Codex or Gemini file."""
    lines = _scrubbed_lines(fh, tally)
    yield from (_codex(lines) if agent == CODEX else _gemini(lines))


def _scrubbed_lines(fh: BinaryIO, tally: Counter[str]) -> Iterator[tuple[int, Any]]:
    """Each line's record, scrubbed of secrets as it is decoded; an old Gemini chat (one JSON
    object over many lines) as one record."""
    data = fh.read(PROBE)
    fh.seek(0)
    if re.match(rb'\s*\{\s*\n', data) and b'"messages"' in data:  # a pretty-printed .json chat
        from gitrefocus.handoff.scrub import scrub_value
        from gitrefocus.model.text import replaced_json

        try:
            # invalid bytes and "\ud800" escapes as U+FFFD, as jsonl reads a line: a lone
            # surrogate is text the scrubber and every writer after it refuse
            whole = replaced_json(fh.read())
        except (ValueError, RecursionError):
            return
        yield 1, scrub_value(whole, tally)
        return
    from gitrefocus.store import fastjson

    # msgspec decodes each line (json.loads takes what it refuses): the records are scrubbed whole
    for line in jsonl.read_lines(fh, decode=fastjson.make_decoder(), tally=tally):
        if line.record is not None and not line.problem:
            yield line.number, line.record


class _Chain:
    """Claude-shaped records in one line of descent (each the parent of the next)."""

    def __init__(self, prefix: str):
        self.prefix, self.n = prefix, 0
        self.last: str | None = None
        self.session_id: str | None = None
        self.cwd: str | None = None
        self.version: str | None = None
        self.branch: str | None = None

    def make(self, kind: str, content: list[dict[str, Any]], timestamp: object, **extra: Any) -> dict[str, Any]:
        self.n += 1
        uuid = f"{self.prefix}-{self.n}"
        record: dict[str, Any] = {"type": kind, "uuid": uuid, "parentUuid": self.last,
                                  "message": {"role": kind, "content": content}}
        if isinstance(timestamp, str):
            record["timestamp"] = timestamp
        for key, value in (("sessionId", self.session_id), ("cwd", self.cwd), ("version", self.version),
                           ("gitBranch", self.branch)):
            if value:
                record[key] = value
        record.update(extra)
        self.last = uuid
        return record


def _text_items(content: object, *kinds: str) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(str(c.get("text", "")) for c in content
                     if isinstance(c, dict) and (not kinds or c.get("type") in kinds) and isinstance(c.get("text"), str))


# -- Codex --------------------------------------------------------------------------------
def _codex(lines: Iterable[tuple[int, Any]]) -> Iterator[tuple[int, dict[str, Any]]]:
    chain = _Chain("codex")
    for number, record in lines:
        if not isinstance(record, dict) or not isinstance(record.get("payload"), dict):
            continue
        kind, payload, at = record.get("type"), record["payload"], record.get("timestamp")
        if kind == "session_meta":
            chain.session_id = _str(payload.get("id")) or _str(payload.get("session_id")) or chain.session_id
            chain.cwd = _str(payload.get("cwd")) or chain.cwd
            chain.version = _str(payload.get("cli_version")) or chain.version
            git = payload.get("git")
            chain.branch = _str(git.get("branch")) if isinstance(git, dict) else chain.branch
        elif kind == "turn_context":
            chain.cwd = _str(payload.get("cwd")) or chain.cwd
        elif kind == "compacted":
            text = _str(payload.get("message"))
            if text:
                yield number, chain.make("user", [{"type": "text", "text": text}], at, isCompactSummary=True)
        elif kind == "response_item":
            out = _codex_item(chain, payload, at)
            if out is not None:
                yield number, out


def _codex_item(chain: _Chain, item: dict[str, Any], at: object) -> dict[str, Any] | None:
    kind = item.get("type")
    if kind == "message":
        role = item.get("role")
        if role == "assistant":
            text = _text_items(item.get("content"), "output_text")
            return chain.make("assistant", [{"type": "text", "text": text}], at) if text.strip() else None
        if role != "user":
            return None  # developer and system messages are the client's
        text = _text_items(item.get("content"), "input_text")
        if not text.strip():
            return None
        meta = item.get("internal_chat_message_metadata_passthrough")
        kinds = meta.get("content_item_kinds") if isinstance(meta, dict) else None
        typed = ("user.text" in kinds) if isinstance(kinds, list) else not text.lstrip().startswith(CODEX_CLIENT_TAGS)
        return chain.make("user", [{"type": "text", "text": text}], at,
                          **({"promptSource": "typed"} if typed else {"isMeta": True}))
    if kind in ("function_call", "custom_tool_call", "local_shell_call"):
        uses = _codex_tool_uses(item)
        return chain.make("assistant", uses, at) if uses else None
    if kind in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
        call = _str(item.get("call_id"))
        output = item.get("output")
        text = output if isinstance(output, str) else json.dumps(output)[:2000] if output is not None else ""
        return chain.make("user", [{"type": "tool_result", "tool_use_id": call, "content": text}], at) if call else None
    if kind == "reasoning":
        text = _text_items(item.get("summary"), "summary_text")
        return chain.make("assistant", [{"type": "thinking", "thinking": text}], at) if text.strip() else None
    return None


def _codex_tool_uses(item: dict[str, Any]) -> list[dict[str, Any]]:
    name = _str(item.get("name")) or item.get("type", "?")
    call = _str(item.get("call_id")) or _str(item.get("id"))
    raw = item.get("arguments") if "arguments" in item else item.get("input")
    args: Any = raw
    if isinstance(raw, str):
        try:
            args = json.loads(raw)
        except ValueError:
            args = raw
    if name in SHELL_TOOLS or item.get("type") == "local_shell_call":
        given = args.get(SHELL_TOOLS.get(name, "command")) if isinstance(args, dict) else args
        if given is None and isinstance(item.get("action"), dict):
            given = item["action"].get("command")
        command = " ".join(map(str, given)) if isinstance(given, list) else str(given or "")
        return [{"type": "tool_use", "id": call, "name": "Bash", "input": {"command": command}}]
    if name == "apply_patch":
        patch = args if isinstance(args, str) else (args.get("input") or args.get("patch") or "") \
            if isinstance(args, dict) else ""
        paths = PATCH_FILE_RE.findall(str(patch)) or ["?"]
        return [{"type": "tool_use", "id": call if i == 0 else f"{call}-{i}", "name": "Edit",
                 "input": {"file_path": path.strip()}} for i, path in enumerate(paths)]
    return [{"type": "tool_use", "id": call, "name": name, "input": args if isinstance(args, dict) else {}}]


# -- Gemini -------------------------------------------------------------------------------
def _gemini(lines: Iterable[tuple[int, Any]]) -> Iterator[tuple[int, dict[str, Any]]]:
    """A chat's records, each at its latest version (a record is written again as it grows),
    in the order they first appeared."""
    chain = _Chain("gemini")
    latest: dict[str, tuple[int, dict[str, Any]]] = {}
    order: list[str] = []
    anonymous = 0
    for number, record in lines:
        if not isinstance(record, dict):
            continue
        found = [record]
        if isinstance(record.get("$set"), dict):
            found = record["$set"].get("messages") or []
        elif isinstance(record.get("messages"), list):  # an old .json chat, or its first line
            found = record["messages"]
        if isinstance(record.get("sessionId"), str):
            chain.session_id = chain.session_id or record["sessionId"]
        for rec in found if isinstance(found, list) else []:
            if not isinstance(rec, dict) or not isinstance(rec.get("type"), str):
                continue
            key = _str(rec.get("id"))
            if key is None:
                anonymous += 1
                key = f"#{anonymous}"
            if key not in latest:
                order.append(key)
            latest[key] = (number, rec)
    for key in order:
        number, rec = latest[key]
        yield from ((number, out) for out in _gemini_record(chain, rec))


def _gemini_record(chain: _Chain, rec: dict[str, Any]) -> list[dict[str, Any]]:
    kind, at, content = rec.get("type"), rec.get("timestamp"), rec.get("content")
    if kind == "user":
        parts: list[Any] = content if isinstance(content, list) else [{"text": content}] \
            if isinstance(content, str) else []
        results: list[dict[str, Any]] = [p["functionResponse"] for p in parts
                               if isinstance(p, dict) and isinstance(p.get("functionResponse"), dict)]
        if results:
            answers = [{"type": "tool_result", "tool_use_id": _str(r.get("id")) or "?",
                        "content": json.dumps(r.get("response"))[:2000]} for r in results]
            return [chain.make("user", answers, at)]
        text = "\n".join(p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str))
        text = HOOK_CONTEXT_RE.sub("", text)  # a hook's context, prefixed to the prompt by the client
        if not text.strip():
            return []
        client = text.lstrip().startswith(GEMINI_CLIENT_TAGS)
        return [chain.make("user", [{"type": "text", "text": text}], at,
                           **({"isMeta": True} if client else {"promptSource": "typed"}))]
    if kind != "gemini":
        return []  # info, error, warning: the client's own lines
    blocks: list[dict[str, Any]] = []
    for thought in _items(rec.get("thoughts")):
        if isinstance(thought, dict):
            said = " ".join(str(thought.get(k, "")) for k in ("subject", "description")).strip()
            if said:
                blocks.append({"type": "thinking", "thinking": said})
    text = content if isinstance(content, str) else _text_items(content)
    if text.strip():
        blocks.append({"type": "text", "text": text})
    for call in _items(rec.get("toolCalls")):
        if isinstance(call, dict):
            blocks.append(_gemini_tool_use(call))
    return [chain.make("assistant", blocks, at)] if blocks else []


def _gemini_tool_use(call: dict[str, Any]) -> dict[str, Any]:
    name = _str(call.get("name")) or "?"
    given = call.get("args")
    args: dict[str, Any] = given if isinstance(given, dict) else {}
    if name in SHELL_TOOLS:
        return {"type": "tool_use", "id": _str(call.get("id")), "name": "Bash",
                "input": {"command": str(args.get("command") or "")}}
    if name in GEMINI_FILE_TOOLS:
        path = args.get("file_path") or args.get("absolute_path") or args.get("path")
        return {"type": "tool_use", "id": _str(call.get("id")), "name": GEMINI_FILE_TOOLS[name],
                "input": {"file_path": str(path or "?")}}
    return {"type": "tool_use", "id": _str(call.get("id")), "name": name, "input": args}


def _items(value: object) -> list[Any]:
    """``value`` when it is a list (a file may hold anything where a list belongs), else none."""
    return value if isinstance(value, list) else []


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def session_of(path: str) -> str | None:
    """The session id a Codex rollout's name or a Gemini chat's first record gives."""
    name = os.path.basename(path)
    match = re.match(r"rollout-.*-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl\Z", name)
    if match:
        return match.group(1)
    from gitrefocus.store.transcripts import first_record_session

    return first_record_session(path)
