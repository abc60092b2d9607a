"""Sidechains and subagent files, each collapsed to a one-line outcome with a pointer."""

from __future__ import annotations

import os
from collections import Counter

from gitrefocus.handoff import jsonl
from gitrefocus.handoff import spine as sp
from gitrefocus.handoff.records import (
    CONVERSATION,
    REMINDER_RE,
    decode_record,
    gated_bytes,
    one_line,
    reader_view,
)

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from typing import Any


class Sidechain:
    """Collapses one sidechain (in the main file or a subagent file) to an outcome."""

    def __init__(self, key: str, source: str, first_line: int, timestamp: object) -> None:
        self.key, self.source = key, source
        self.first_line = self.last_line = first_line
        self.timestamp = timestamp if isinstance(timestamp, str) else None
        self.prompt: str | None = None
        self.answer: str | None = None
        self.records = self.tool_calls = self.tool_errors = 0
        self.agent_type: str | None = None

    def take(self, record: dict[str, Any], number: int, stats: Counter[str]) -> None:
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
                    self.prompt = one_line(REMINDER_RE.sub("", item["text"]), 160)
                elif record.get("type") == "assistant":
                    self.answer = item["text"]
            elif t == "tool_use":
                self.tool_calls += 1
            elif t == "tool_result" and item.get("is_error") is True:
                self.tool_errors += 1

    def outcome(self) -> sp.Message | None:
        if self.records == 0:
            return None
        name = self.source or f"sidechain {self.key}"
        span = f"{self.source}:L{self.first_line}-L{self.last_line}" if self.source \
            else f"L{self.first_line}-L{self.last_line}"
        answer = f"\"{one_line(self.answer, 220)}\"" if self.answer else "ended without a final answer"
        asked = f"\"{self.prompt}\"" if self.prompt else "(no prompt recorded)"
        extra = f", {self.tool_errors} tool error(s)" if self.tool_errors else ""
        text = (f"{name} asked {asked} -> {answer} ({self.records} records, {self.tool_calls} tool "
                f"call(s){extra}; {span})")
        message = sp.Message(sp.SIDECHAIN, self.first_line, timestamp=self.timestamp,
                             source=self.source, last_line=self.last_line)
        message.blocks.append(sp.Block(sp.TEXT, text, self.first_line))
        message.failed = self.answer is None
        return message


def insert_by_time(messages: list[sp.Message], extra: list[sp.Message]) -> list[sp.Message]:
    """Merge ``extra`` into ``messages`` (file order): each goes before the first
    message written after it; without a timestamp, at the end."""
    if not extra:
        return messages
    pending = sorted(extra, key=lambda m: (m.timestamp or "\uffff", m.source, m.line))
    out: list[sp.Message] = []
    j = 0
    for message in messages:
        at = message.timestamp
        while j < len(pending) and at and (earlier := pending[j].timestamp) and earlier < at:
            out.append(pending[j])
            j += 1
        out.append(message)
    out.extend(pending[j:])
    return out


def read_subagent(path: str, stats: Counter[str], tally: Counter[str] | None = None) -> "Sidechain | None":
    """A subagent file, read as the main transcript is, as one sidechain (None when it holds no
    conversation)."""
    from gitrefocus.handoff.scrub import scrub_text

    label = scrub_text(os.path.basename(path))[0]  # a file name: not from the scrubbed records
    chain = Sidechain(label, label, 1, None)
    seen: set[str] = set()
    try:
        fh = open(path, "rb")
    except OSError:
        stats["unreadable_subagent_files"] += 1
        return None

    def take(record: dict[str, Any], number: int) -> None:
        kind = record.get("type")
        if not isinstance(kind, str) or kind not in CONVERSATION:
            return
        uuid = record.get("uuid")
        if isinstance(uuid, str):
            if uuid in seen:
                stats["duplicate_records"] += 1
                return
            seen.add(uuid)
        if chain.records == 0:
            chain.first_line = number
        chain.take(record, number, stats)

    def take_line(line: jsonl.Line) -> None:
        if line.problem == "invalid-json":
            stats["invalid_json_lines_subagents"] += 1
        if isinstance(line.record, dict):
            take(line.record, line.number)

    with fh:
        if decode_record is None:  # no msgspec: every line through json.loads
            for line in jsonl.read_lines(fh, tally=tally, view=reader_view):
                take_line(line)
        else:
            jsonl.each(fh, decode_record, take, take_line, tally, reader_view, gated_bytes)
    return chain if chain.records else None
