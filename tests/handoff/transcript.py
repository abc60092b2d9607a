"""Hand-made Claude Code transcripts that mirror what the real client writes.

Record layout and key order follow Claude Code 2.1.330 as observed through the
loopback mock (``parentUuid``, ``isSidechain``, the payload, ``type``, ``uuid``,
``timestamp``, extras, then ``userType``, ``entrypoint``, ``cwd``, ``sessionId``,
``version``, ``gitBranch``); ``layout="legacy"`` writes the older order
(``userType`` … ``gitBranch`` before ``type``). Assistant messages are written one
content block per line sharing ``message.id``; tool results carry
``toolUseResult``; progress, attachment, file-history-snapshot and
queue-operation records sit in between.
"""

from __future__ import annotations

import base64
import datetime as dt
import itertools
import json
import os
import uuid as uuidlib
from pathlib import Path

_counter = itertools.count(1)


def new_uuid() -> str:
    return str(uuidlib.uuid4())


class Session:
    def __init__(self, cwd: str | Path = "/home/dev/project", session_id: str | None = None,
                 start: dt.datetime | None = None, branch: str = "main", sidechain: bool = False,
                 agent_id: str | None = None, layout: str = "2.1"):
        self.cwd = str(cwd)
        self.session_id = session_id or new_uuid()
        self.clock = start or dt.datetime(2026, 1, 5, 9, 0, 0, tzinfo=dt.timezone.utc)
        self.branch = branch
        self.sidechain = sidechain
        self.agent_id = agent_id
        self.layout = layout
        self.parent: str | None = None
        self.lines: list[bytes] = []

    # -- low level ------------------------------------------------------------
    def tick(self, seconds: float = 1.0) -> str:
        self.clock += dt.timedelta(seconds=seconds)
        return self.stamp()

    def stamp(self) -> str:
        return self.clock.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.clock.microsecond // 1000:03d}Z"

    def raw(self, line: str | bytes) -> int:
        self.lines.append(line if isinstance(line, bytes) else line.encode("utf-8"))
        return len(self.lines)

    def record(self, kind: str, body: dict, *, parent: str | None | type = ..., uid: str | None = None,
               timestamp: str | None = None, chain: bool = True, **extra) -> str:
        uid = uid or new_uuid()
        rec = {"parentUuid": self.parent if parent is ... else parent, "isSidechain": self.sidechain}
        if self.agent_id:
            rec["agentId"] = self.agent_id
        where = {"userType": "external", "entrypoint": "cli", "cwd": self.cwd, "sessionId": self.session_id,
                 "version": "2.1.330", "gitBranch": self.branch}
        if self.layout == "legacy":
            rec.update(where)
            rec.update({"type": kind, **body, **extra, "uuid": uid, "timestamp": timestamp or self.tick()})
        else:
            rec.update({**body, "type": kind, "uuid": uid, "timestamp": timestamp or self.tick(), **extra})
            rec.update(where)
        self.raw(json.dumps(rec, ensure_ascii=False, separators=(",", ":")))
        if chain:
            self.parent = uid
        return uid

    @property
    def line_count(self) -> int:
        return len(self.lines)

    # -- conversation -----------------------------------------------------------
    def user(self, text, **kw) -> str:
        self.snapshot()
        return self.record("user", {"message": {"role": "user", "content": text}}, **kw)

    def assistant(self, *blocks: dict, msg_id: str | None = None, timestamp: str | None = None, **kw) -> list[str]:
        """One line per block, sharing message.id (as the real client writes them)."""
        msg_id = msg_id or f"msg_01{next(_counter):022d}"
        stamp = timestamp or self.tick()
        uids = []
        for block in blocks:
            message = {"model": "claude-sonnet-4-5", "id": msg_id, "type": "message", "role": "assistant",
                       "content": [block], "stop_reason": None, "stop_sequence": None,
                       "usage": {"input_tokens": 3, "output_tokens": 12}}
            uids.append(self.record("assistant", {"message": message}, timestamp=stamp,
                                    requestId=f"req_{msg_id[4:]}", **kw))
        return uids

    def tool_result(self, tool_use_id: str, output: str, *, is_error: bool = False, extra: dict | None = None,
                    **kw) -> str:
        result = {"type": "tool_result", "tool_use_id": tool_use_id, "content": output, "is_error": is_error}
        use_result = extra if extra is not None else {"stdout": output, "stderr": "", "interrupted": False}
        return self.record("user", {"message": {"role": "user", "content": [result]}},
                           toolUseResult=use_result, **kw)

    def bash(self, command: str, output: str, *, is_error: bool = False) -> tuple[str, str]:
        tid = f"toolu_01{next(_counter):020d}"
        self.assistant(tool_use("Bash", {"command": command, "description": "run"}, tid))
        self.progress(tid)
        return tid, self.tool_result(tid, output, is_error=is_error)

    def edit(self, path: str, old: str = "a", new: str = "b") -> str:
        tid = f"toolu_01{next(_counter):020d}"
        self.assistant(tool_use("Edit", {"file_path": path, "old_string": old, "new_string": new}, tid))
        self.tool_result(tid, f"The file {path} has been updated.", extra={"filePath": path})
        return tid

    # -- records that carry no conversation ---------------------------------
    def progress(self, tool_use_id: str = "toolu_x") -> str:
        return self.record("progress", {"data": {"type": "hook_progress", "hookEvent": "PostToolUse",
                                                 "hookName": "PostToolUse:Bash", "command": "echo hi"}},
                           toolUseID=tool_use_id, parentToolUseID=tool_use_id)

    def attachment(self) -> str:
        return self.record("attachment", {"attachment": {"type": "hook_success", "hookName": "SessionStart",
                                                         "content": "", "stdout": "ok"}})

    def snapshot(self) -> None:
        self.raw(json.dumps({"type": "file-history-snapshot", "messageId": new_uuid(),
                             "snapshot": {"messageId": new_uuid(), "trackedFileBackups": {},
                                          "timestamp": self.stamp()}, "isSnapshotUpdate": False}))

    def queue_operation(self, content: str | None = "next thing", operation: str = "enqueue", **extra) -> int:
        """A record of the client's prompt queue (2.1.x): enqueue, dequeue, remove, popAll."""
        record = {"type": "queue-operation", "operation": operation, "timestamp": self.stamp(),
                  "sessionId": self.session_id}
        if content is not None:
            record["content"] = content
        return self.raw(json.dumps({**record, **extra}))

    def queued_command(self, prompt, *, mode: str = "prompt", origin: str | None = "human", **extra) -> str:
        """A ``queued_command`` attachment (2.1.2xx): words typed while the assistant worked."""
        attachment = {"type": "queued_command", "prompt": prompt, "commandMode": mode}
        if origin:
            attachment["origin"] = {"kind": origin}
        return self.record("attachment", {"attachment": {**attachment, **extra}})

    def summary(self, text: str) -> None:
        self.raw(json.dumps({"type": "summary", "summary": text, "leafUuid": self.parent}))

    def system(self, content: str = "Conversation compacted", **extra) -> str:
        return self.record("system", {"subtype": "compact_boundary", "content": content, "level": "info",
                                      **extra})

    # -- output -----------------------------------------------------------------
    def write(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"".join(line + b"\n" for line in self.lines))
        return path

    def sections(self, tmp_path: Path, name: str = "t.jsonl") -> dict:
        """The built-in extractors' sections of this session, written to ``tmp_path / name``
        (git read from ``tmp_path``)."""
        from gitrefocus.handoff import extract, gitstate, transcript_paths
        from gitrefocus.handoff import prepare as prep

        plan = prep.prepare(transcript_paths.resolve(str(self.write(Path(tmp_path) / name))))
        return extract.builtin_sections(plan, gitstate.snapshot([str(tmp_path)]))

    def line_of(self, uid: str) -> int:
        """1-based line number of the record with this uuid (first occurrence)."""
        needle = f'"uuid":"{uid}"'.encode()
        for n, line in enumerate(self.lines, 1):
            if needle in line:
                return n
        raise KeyError(uid)


def text(value: str) -> dict:
    return {"type": "text", "text": value}


def thinking(value: str = "") -> dict:
    signature = base64.b64encode(os.urandom(96)).decode()
    return {"type": "thinking", "thinking": value, "signature": signature}


# what the client writes when the user refuses a tool use and types why (2.1.x); their words follow
REFUSED_SAID = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a "
                "file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\n")


def tool_use(name: str, data: dict, tool_id: str | None = None) -> dict:
    return {"type": "tool_use", "id": tool_id or f"toolu_01{next(_counter):020d}", "name": name, "input": data}


def project_dir(config_dir: Path, cwd: str) -> Path:
    """Where the real client keeps transcripts for a working directory."""
    import re

    return config_dir / "projects" / re.sub(r"[^A-Za-z0-9]", "-", cwd)


def read_line(path: Path, number: int) -> dict:
    with open(path, "rb") as fh:
        for n, line in enumerate(fh, 1):
            if n == number:
                return json.loads(line)
    raise IndexError(number)


def user_text_at(path: Path, number: int) -> str:
    """All user-authored text of the record on line ``number`` (for checking verbatim quotes)."""
    record = read_line(path, number)
    content = record["message"]["content"]
    if isinstance(content, str):
        return content
    out = []
    for item in content:
        if item.get("type") == "text":
            out.append(item["text"])
        elif item.get("type") == "tool_result":
            body = item.get("content")
            out.append(body if isinstance(body, str) else "".join(c.get("text", "") for c in body))
    return "\n".join(out)
