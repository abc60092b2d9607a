"""Loopback mocks of the model APIs that Codex CLI and Gemini CLI talk to, playing scripted turns.

    with MockResponses([Call("exec_command", {"cmd": "git status"}), Text("done")]) as mock:
        ...  # codex with a model provider whose base_url is mock.url (see codex_config)
    with MockGemini([Text("done")]) as mock:
        ...  # gemini with GOOGLE_GEMINI_BASE_URL=mock.url
    mock.turn_requests  # the request bodies the model was sent, one per scripted turn

A turn is `Text` (answer and end the turn) or `Call` (one tool call, by the client's own tool
name and arguments). Requests past the script get `Text("done")`.

Facts observed with Codex CLI 0.169.0 (`codex exec`, CODEX_HOME=<tmp>, native linux binary):
- One `POST /v1/responses` per model turn (streamed Server-Sent Events, Responses API), with
  the `session-id` header; tools include `exec_command` (arguments `{"cmd": ...}`). The stream
  needs `response.created`, `response.output_item.done` per item and `response.completed`.
- The provider comes from config.toml (`model_provider` and `[model_providers.<name>]` with
  `base_url`, `wire_api = "responses"`, `env_key`); no other network traffic was needed.
- Shell commands the model runs get CODEX_SESSION_ID and CODEX_THREAD_ID (the session id the
  hooks are told).
Facts observed with Gemini CLI 0.61.0 (`gemini -p`, HOME=<tmp>, GEMINI_API_KEY set):
- `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` per turn (one JSON chunk per
  `data:` line), and tool-less `:generateContent` side requests (the model router) that must
  not consume a scripted turn; tools include `run_shell_command` (arguments `{"command": ...}`).
- Shell commands the model runs do NOT get GEMINI_SESSION_ID (their environment is sanitized);
  hooks do.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Union


@dataclass(frozen=True)
class Text:
    """A model turn that answers with plain text and ends the turn."""

    text: str


@dataclass(frozen=True)
class Call:
    """A model turn that calls one of the client's tools."""

    name: str
    args: dict


Turn = Union[Text, Call]


class _Mock:
    """A threaded loopback HTTP server that logs every request and plays ``turns`` in order."""

    def __init__(self, turns: list[Turn] | None = None):
        self.turns: list[Turn] = list(turns or [])
        self.requests: list[dict[str, Any]] = []      # every request: method, path, headers, body
        self.turn_requests: list[dict[str, Any]] = []  # the bodies of requests that took a turn
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    def add(self, *turns: Turn) -> None:
        with self._lock:
            self.turns.extend(turns)

    @property
    def url(self) -> str:
        assert self._server is not None, "start the mock first (use it as a context manager)"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> "_Mock":
        mock = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                mock._log(self, None)
                self._send(404, b"{}", "application/json")

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {"unparsed": raw[:200].decode("latin-1")}
                mock._log(self, body)
                status, data, ctype = mock.answer(self.path, body)
                self._send(status, data, ctype)

            def _send(self, status: int, data: bytes, ctype: str) -> None:
                self.send_response(status)
                self.send_header("content-type", ctype)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    def _log(self, handler: BaseHTTPRequestHandler, body: Any) -> None:
        with self._lock:
            self.requests.append({"method": handler.command, "path": handler.path,
                                  "headers": dict(handler.headers), "body": body})

    def next_turn(self, body: Any) -> Turn:
        with self._lock:
            self.turn_requests.append(body)
            return self.turns.pop(0) if self.turns else Text("done")

    def answer(self, path: str, body: Any) -> tuple[int, bytes, str]:
        raise NotImplementedError


class MockResponses(_Mock):
    """The OpenAI Responses API as Codex CLI streams it."""

    def answer(self, path: str, body: Any) -> tuple[int, bytes, str]:
        if not path.rstrip("/").endswith("/responses"):
            return 404, b"{}", "application/json"
        turn = self.next_turn(body)
        n = len(self.turn_requests)
        if isinstance(turn, Call):
            item: dict[str, Any] = {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}",
                                    "name": turn.name, "arguments": json.dumps(turn.args), "status": "completed"}
        else:
            item = {"type": "message", "id": f"msg_{n}", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": turn.text, "annotations": []}]}
        usage = {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}
        events = [("response.created", {"response": {"id": f"resp_{n}"}}),
                  ("response.output_item.added", {"output_index": 0, "item": item}),
                  ("response.output_item.done", {"output_index": 0, "item": item}),
                  ("response.completed", {"response": {"id": f"resp_{n}", "usage": usage}})]
        data = "".join(f"event: {name}\ndata: {json.dumps({'type': name, **fields})}\n\n" for name, fields in events)
        return 200, data.encode(), "text/event-stream"

    def codex_config(self) -> str:
        """The config.toml lines that point Codex at this mock (its API key: MOCK_API_KEY)."""
        return (f'model = "gpt-5.1-codex"\nmodel_provider = "mock"\n\n[model_providers.mock]\nname = "mock"\n'
                f'base_url = "{self.url}/v1"\nwire_api = "responses"\nenv_key = "MOCK_API_KEY"\n')


class MockGemini(_Mock):
    """The Gemini API (generativelanguage v1beta) as Gemini CLI calls it."""

    def answer(self, path: str, body: Any) -> tuple[int, bytes, str]:
        lowered = path.lower()
        if ":counttokens" in lowered:
            return 200, b'{"totalTokens": 1}', "application/json"
        if "generatecontent" not in lowered:
            return 404, b"{}", "application/json"
        if not isinstance(body, dict) or not body.get("tools"):
            # a side request (the model router, a next-speaker check): JSON the client parses
            part: dict[str, Any] = {"text": json.dumps({"reasoning": "mock", "model_choice": "flash",
                                                        "next_speaker": "user"})}
        else:
            turn = self.next_turn(body)
            part = {"functionCall": {"name": turn.name, "args": turn.args}} if isinstance(turn, Call) \
                else {"text": turn.text}
        chunk = {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
                 "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}}
        if "alt=sse" in lowered:
            return 200, f"data: {json.dumps(chunk)}\n\n".encode(), "text/event-stream"
        return 200, json.dumps(chunk).encode(), "application/json"


def texts_of(body: Any) -> list[str]:
    """Every text a request body carries (both APIs), for finding what reached the model."""
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(body)
    return found
