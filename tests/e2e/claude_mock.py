"""A loopback mock of the Anthropic Messages API that plays a scripted conversation.

    with MockAnthropic([Bash("git commit --allow-empty -m x"), Text("done")]) as mock:
        ...  # run claude with ANTHROPIC_BASE_URL=mock.url
    mock.turn_requests  # the request bodies the model was sent, one per scripted turn

A turn is `Text`, `Bash`, `ToolUse` (any tool the client offers, by name and input), `Calls`
(several tool calls in one assistant message — the client runs `Agent` calls so made
concurrently), a plain string (text), or a callable that gets the request body and returns one
of those, to answer from what the client sent (see `tool_results`).

Facts observed with Claude Code 2.1.330 (native linux-x64 binary, `claude -p`, HOME=<tmp>):
- Endpoints: only `POST /v1/messages?beta=true` (streamed, one request per model turn, with 12
  tools incl. `Bash`, model `claude-opus-5-5`, `x-api-key: test`, header
  `X-Claude-Code-Session-Id`). Without CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC it also sends a
  `HEAD /api/hello` probe first. No token counting, model listing, title or other side
  requests were seen under -p; `is_side_request` still answers tool-less or one-token requests
  with `side_reply` without consuming a turn, and unknown paths get a 404 and land in `unknown`.
- Env that matters: ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY; DISABLE_TELEMETRY,
  DISABLE_ERROR_REPORTING, DISABLE_AUTOUPDATER, DISABLE_UPDATES and
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC keep it off the network (without them it also writes
  `~/.claude/telemetry/1p_failed_events.*`); CLAUDE_CODE_TMPDIR moves its `/tmp/claude-<uid>/`
  and `/tmp/cc-socks/` (unix sockets: keep that path short).
- No onboarding or trust dialog blocks `-p`: nothing needs pre-seeding in `<home>/.claude.json`
  (the client creates it) or `<home>/.claude/settings.json`, and project hooks from
  `<cwd>/.claude/settings.json` run in an untrusted directory. As root,
  `--dangerously-skip-permissions` is refused; `--allowedTools Bash` runs Bash without asking.
- Transcript: `<home>/.claude/projects/<cwd with every non-alphanumeric as "-">/<sid>.jsonl`,
  e.g. `-tmp-pytest-of-root-pytest-3-test-x0-work`. It does not exist yet when SessionStart
  (source `startup`) runs. A second `--session-id SID` fails with "Session ID SID is already
  in use." (exit 1, no hooks run); `--resume SID` works and resends the earlier messages.
- Hooks under -p: SessionStart (source `startup`, or `resume` with --resume), PostToolUse,
  Stop and SessionEnd (reason `other`) all fired; the client exits ~0.5 s after its last turn.
  Stdin is JSON and was closed (`cat` returns): SessionStart has session_id, transcript_path,
  cwd, hook_event_name, source (resume adds seconds_since_last_response, context_tokens, …);
  PostToolUse adds prompt_id, permission_mode, effort, tool_name, tool_input, tool_response
  ({stdout, stderr, interrupted, …}), tool_use_id, duration_ms; Stop adds stop_hook_active,
  last_assistant_message; SessionEnd adds reason.
- SessionStart `additionalContext` reaches the model inside the first user message.
- Subagents (2.1.330 and 2.1.197): the tool is `Agent` (description, prompt, subagent_type,
  run_in_background; 2.1.330 backgrounds agents unless told run_in_background false). A
  subagent's requests come to the same endpoint, with its own system prompt and tools; a
  command's allowed-tools bind them too.
- Hook and Bash-tool processes get CLAUDE_CODE_SESSION_ID, CLAUDECODE=1, CLAUDE_PROJECT_DIR (hooks);
  SessionStart hooks get CLAUDE_ENV_FILE=`<home>/.claude/session-env/<sid>/sessionstart-hook-<n>.sh`,
  and `export NAME=value` lines appended there reach later Bash commands (on resume too).
"""

from __future__ import annotations

import itertools
import json
import logging
import re
import subprocess
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Union
from urllib.parse import urlsplit

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Text:
    """An assistant turn that answers with plain text and ends the turn."""

    text: str


@dataclass(frozen=True)
class Bash:
    """An assistant turn that asks the client to run one command with its Bash tool."""

    command: str
    description: str = "Run a scripted command"


@dataclass(frozen=True)
class ToolUse:
    """One tool call: ``name`` (any tool the client offers: Agent, Task, Write, Read, ...) and its input."""

    name: str
    input: dict


@dataclass(frozen=True)
class Calls:
    """An assistant turn that makes several tool calls in ONE message (parallel tool use),
    optionally after some text."""

    uses: tuple[ToolUse, ...]
    text: str = ""


Reply = Union[Text, Bash, Calls, str]
# A turn is a fixed reply, or a function that picks the reply from the request it answers.
Turn = Union[Reply, Callable[[dict], Reply]]


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: Any  # parsed JSON, or None
    kind: str  # "turn" (consumed a scripted turn), "side", or "other"


@dataclass
class MockAnthropic:
    """Serve `script` on 127.0.0.1:<random port> until `stop()`; record every request."""

    script: list[Turn] = field(default_factory=list)
    exhausted_reply: str = "MOCK: the script has no more turns."
    side_reply: str = "Scripted side reply"

    def __post_init__(self) -> None:
        self.script = list(self.script)  # played destructively: never the caller's list
        self.requests: list[RecordedRequest] = []
        self.errors: list[str] = []  # script misalignments: a test should expect none
        self.unknown: list[str] = []  # endpoints the mock does not know, answered 404
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> "MockAnthropic":
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="claude-mock", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> "MockAnthropic":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        assert self._server is not None, "mock server is not running"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    # -- scripting and inspection ---------------------------------------------------------

    def add(self, *turns: Turn) -> None:
        with self._lock:
            self.script.extend(turns)

    @property
    def turn_requests(self) -> list[dict]:
        """Bodies of the main-loop requests, one per scripted turn played, in order."""
        return [r.body for r in self.requests if r.kind == "turn"]

    @property
    def side_requests(self) -> list[dict]:
        return [r.body for r in self.requests if r.kind == "side"]

    def received_text(self) -> str:
        """Every message request body as JSON text, to search for markers."""
        return "\n".join(json.dumps(r.body) for r in self.requests if isinstance(r.body, dict))

    # -- the reply logic, called from handler threads --------------------------------------

    def _next_reply(self, body: dict) -> Text | Bash | Calls:
        with self._lock:
            turn = self.script.pop(0) if self.script else None
        if turn is None:
            self.errors.append(f"script exhausted; request ended with {last_user_content(body)!r:.300}")
            return Text(self.exhausted_reply)
        reply = turn(body) if callable(turn) else turn
        if isinstance(reply, str):
            return Text(reply)
        if not isinstance(reply, (Text, Bash, Calls)):
            raise TypeError(f"a turn must give Text, Bash, Calls or str, not {reply!r}")
        return reply

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _new_id(self, prefix: str) -> str:
        return f"{prefix}_mock{next(self._ids):04d}"


def is_side_request(body: dict) -> bool:
    """True for the client's own calls outside the conversation (titles, quota probes, …).

    The main agent loop always offers tools; side calls offer none or ask for a single token.
    """
    return not body.get("tools") or body.get("max_tokens") == 1


def last_user_content(body: dict) -> list[dict]:
    """The content blocks of the last user message of a request body."""
    for message in reversed(body.get("messages") or []):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return [{"type": "text", "text": content}]
            return list(content or [])
    return []


def tool_results(body: dict) -> list[dict]:
    """The tool_result blocks the client sends back in the last user message."""
    return [block for block in last_user_content(body) if block.get("type") == "tool_result"]


def tool_result_text(block: dict) -> str:
    content = block.get("content")
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content or "")


# -- what the client leaves behind -------------------------------------------------------


def project_dir_name(cwd: Path | str) -> str:
    """How the client names a project's transcript directory: every non-alphanumeric becomes `-`."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(cwd))


def find_transcript(home: Path, session_id: str) -> Path | None:
    """`<home>/.claude/projects/<encoded cwd>/<session id>.jsonl`, if the client wrote it."""
    matches = sorted((home / ".claude" / "projects").glob(f"*/{session_id}.jsonl"))
    return matches[0] if matches else None


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def describe(done: subprocess.CompletedProcess[str]) -> str:
    """A failure message with what the client printed."""
    return f"claude exited {done.returncode}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"


# -- the wire format ----------------------------------------------------------------------


def _content_blocks(reply: Text | Bash | Calls, new_id: Callable[[str], str]) -> list[dict]:
    if isinstance(reply, Calls):
        blocks = [{"type": "text", "text": reply.text}] if reply.text else []
        return blocks + [{"type": "tool_use", "id": new_id("toolu"), "name": use.name, "input": use.input}
                         for use in reply.uses]
    return [_content_block(reply, new_id("toolu"))]


def _content_block(reply: Text | Bash, tool_id: str) -> dict:
    if isinstance(reply, Bash):
        return {
            "type": "tool_use",
            "id": tool_id,
            "name": "Bash",
            "input": {"command": reply.command, "description": reply.description},
        }
    return {"type": "text", "text": reply.text}


def _message(model: str, message_id: str, blocks: list[dict]) -> dict:
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": blocks,
        "stop_reason": "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5,
                  "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
    }


def _sse_events(message: dict) -> list[tuple[str, dict]]:
    head = dict(message, content=[], stop_reason=None, usage=dict(message["usage"], output_tokens=1))
    events: list[tuple[str, dict]] = [("message_start", {"type": "message_start", "message": head})]
    for index, block in enumerate(message["content"]):
        if block["type"] == "tool_use":
            start = dict(block, input={})
            partial = json.dumps(block["input"])
            # Split the JSON like the real API does, to exercise the client's reassembly.
            middle = len(partial) // 2
            deltas = [{"type": "input_json_delta", "partial_json": piece}
                      for piece in (partial[:middle], partial[middle:])]
        else:
            start = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": block["text"]}]
        events.append(("content_block_start", {"type": "content_block_start", "index": index,
                                               "content_block": start}))
        events.extend(("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d})
                      for d in deltas)
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events += [
        ("message_delta", {"type": "message_delta",
                           "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                           "usage": {"output_tokens": message["usage"]["output_tokens"]}}),
        ("message_stop", {"type": "message_stop"}),
    ]
    return events


def _handler_for(mock: MockAnthropic) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # keep pytest output clean
            pass

        def do_HEAD(self) -> None:
            self._record(None, "other")
            self._send(200, b"", "application/json")

        def do_GET(self) -> None:
            self._record(None, "other")
            path = urlsplit(self.path).path
            if path == "/v1/models":
                self._send_json(200, {"data": [], "has_more": False, "first_id": None, "last_id": None})
            else:
                self._not_found(path)

        def do_POST(self) -> None:
            raw = self._read_body()
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = None
            path = urlsplit(self.path).path
            if path == "/v1/messages/count_tokens":
                self._record(body, "other")
                self._send_json(200, {"input_tokens": 10})
            elif path == "/v1/messages" and isinstance(body, dict):
                self._answer_messages(body)
            else:
                self._record(body, "other")
                self._not_found(path)

        def _answer_messages(self, body: dict) -> None:
            if is_side_request(body):
                self._record(body, "side")
                reply: Text | Bash | Calls = Text(mock.side_reply)
            else:
                self._record(body, "turn")
                try:
                    reply = mock._next_reply(body)
                except Exception as error:  # noqa: BLE001 - a broken callable turn must not hang the client
                    mock.errors.append(f"turn raised {error!r}")
                    reply = Text(f"MOCK: turn raised {error!r}")
            message = _message(body.get("model") or "claude-mock", mock._new_id("msg"),
                               _content_blocks(reply, mock._new_id))
            if body.get("stream"):
                payload = "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n"
                                  for name, data in _sse_events(message))
                self._send(200, payload.encode(), "text/event-stream")
            else:
                self._send_json(200, message)

        def _not_found(self, path: str) -> None:
            log.warning("claude mock: unknown endpoint %s %s", self.command, self.path)
            mock.unknown.append(f"{self.command} {self.path}")
            self._send_json(404, {"type": "error", "error": {"type": "not_found_error",
                                                             "message": f"mock has no {path}"}})

        def _read_body(self) -> bytes:
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(length) if length else b""

        def _record(self, body: Any, kind: str) -> None:
            mock._record(RecordedRequest(self.command, self.path, dict(self.headers), body, kind))

        def _send_json(self, status: int, data: dict) -> None:
            self._send(status, json.dumps(data).encode(), "application/json")

        def _send(self, status: int, payload: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(payload)

    return Handler
