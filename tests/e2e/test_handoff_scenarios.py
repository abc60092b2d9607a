"""handoff on a transcript the real Claude Code client wrote: a slash command with
arguments, a background agent and its task notification, a conclusion the user overruled,
a rewind, /compact and an image — asserting on what the brief SAYS, not only its shape.

The client runs against the loopback mock (tests/e2e/claude_mock.py); a turn may ask for any
tool (``Tool``), and a callable turn answers a subagent's own requests.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.e2e import claude_mock
from tests.e2e.claude_mock import (
    Bash,
    MockAnthropic,
    Text,
    find_transcript,
    last_user_content,
)
from tests.e2e.conftest import claude_env
from tests.gitrepo import make_repo
from tests.runner import refocus

pytestmark = pytest.mark.claude

REQUEST = "/fix the tokenizer drops trailing commas"
OVERRULED = "I'll use a regex instead."
CORRECTION = "No, keep the tokenizer: a regex cannot handle nesting."
AGENT_RESULT = "No, that is wrong: the parser drops the last comma."  # a subagent's words, not the user's
ABANDONED = "Also rename the module to lexer.py."
AFTER_REWIND = "Leave the module name; add a test for trailing commas."
IMAGE_PROMPT = "What is in this screenshot?"
PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP4z8DwHwAFAAIB5+WlqAAAAABJRU5ErkJggg==")


@dataclass(frozen=True)
class Tool(Bash):
    """Any tool call: ``name`` and its JSON ``arguments``."""

    name: str = "Bash"
    arguments: str = "{}"


@pytest.fixture
def any_tool(monkeypatch):
    plain = claude_mock._content_block

    def block(reply, tool_id):
        if isinstance(reply, Tool):
            return {"type": "tool_use", "id": tool_id, "name": reply.name, "input": json.loads(reply.arguments)}
        return plain(reply, tool_id)

    monkeypatch.setattr(claude_mock, "_content_block", block)


def _claude(binary: Path, home: Path, tmpdir: Path, mock: MockAnthropic, cwd: Path, args: list[str],
            stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = claude_env(home, mock.url, tmpdir)
    proc = subprocess.Popen([str(binary), *args], cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(stdin, timeout=120)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the group we started: hooks, tools, agents
        except ProcessLookupError:
            pass
    assert proc.returncode == 0, f"claude {args} exited {proc.returncode}\n{out}\n{err}"
    assert not mock.errors, mock.errors
    return subprocess.CompletedProcess(args, proc.returncode, out, err)


def _is_subagent(body: dict) -> bool:
    first = (body.get("messages") or [{}])[0]
    return "Survey the parser module" in json.dumps(first.get("content"))


def _assistant_id(path: Path, text: str) -> str:
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if record.get("type") == "assistant" and text in json.dumps(record["message"]["content"]):
            return record["uuid"]
    raise AssertionError(f"no assistant message {text!r} in {path}")


@pytest.fixture
def session(tmp_path, claude_bin, claude_home, claude_tmpdir, any_tool):
    repo = make_repo(tmp_path / "parser")
    (repo / ".claude" / "commands").mkdir(parents=True)
    (repo / ".claude" / "commands" / "fix.md").write_text("Fix this bug: $ARGUMENTS\n")
    sid = str(uuid.uuid4())

    def run(mock, *args, stdin=None):
        return _claude(claude_bin, claude_home, claude_tmpdir, mock, repo, list(args), stdin)

    # 1. a slash command with arguments; a background agent reports back with a notification
    with MockAnthropic() as mock:
        def turn(body):
            if _is_subagent(body):
                return Text(AGENT_RESULT)
            if "task-notification" in json.dumps(last_user_content(body)):
                return Text("The background agent finished its survey.")
            if not any(b.get("type") == "tool_result" for b in last_user_content(body)):
                return Tool("x", "d", "Agent", json.dumps({
                    "description": "Survey the parser", "prompt": "Survey the parser module and report",
                    "subagent_type": "general-purpose", "run_in_background": True}))
            return Text(f"I started a background agent. {OVERRULED}")
        mock.add(*[turn] * 6)
        run(mock, "-p", REQUEST, "--session-id", sid, "--allowedTools", "Bash,Agent")
    # 2. the user overrules the stated conclusion
    with MockAnthropic() as mock:
        mock.add(Text("Okay, keeping the tokenizer."))
        run(mock, "-p", CORRECTION, "--resume", sid)
    # 3. a turn the user then rewinds past
    with MockAnthropic() as mock:
        mock.add(Text("Renamed the module."))
        run(mock, "-p", ABANDONED, "--resume", sid)
    path = find_transcript(claude_home, sid)
    assert path is not None
    with MockAnthropic() as mock:
        mock.add(Text("Added a test for trailing commas."))
        run(mock, "-p", AFTER_REWIND, "--resume", sid, "--resume-session-at",
            _assistant_id(path, "Okay, keeping the tokenizer."))
    # 4. /compact, then 5. a prompt with an image
    with MockAnthropic() as mock:
        mock.add(*[Text("Summary: we kept the tokenizer and added a test.")] * 3)
        run(mock, "-p", "/compact", "--resume", sid)
    with MockAnthropic() as mock:
        mock.add(Text("I see a single red pixel."))
        message = {"type": "user", "message": {"role": "user", "content": [
            {"type": "text", "text": IMAGE_PROMPT},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}]}}
        run(mock, "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
            "--resume", sid, stdin=json.dumps(message) + "\n")
    path = find_transcript(claude_home, sid)
    assert path is not None
    return repo, sid, path


def _section(text: str, heading: str) -> str:
    return text.split(f"## {heading}", 1)[1].split("\n## ", 1)[0]


def test_the_brief_says_who_said_what(session):
    repo, sid, path = session
    raw = path.read_text()
    assert '"task-notification"' in raw and "isCompactSummary" in raw and '"image"' in raw, \
        "the client wrote the records this test is about"
    brief = refocus("handoff", path, "--no-cache", cwd=repo).stdout
    convergence, dead = _section(brief, "Convergence"), _section(brief, "Dead-ends")
    basics = _section(brief, "Basics")
    # the request behind the slash command is the user's, quoted verbatim
    assert f'**What this is:** "{REQUEST}"' in basics
    # the last thing the user typed, not a notification or the client's chatter
    assert f'Final request: "{IMAGE_PROMPT}"' in convergence
    assert "task-notification" not in brief
    # the conclusion the user overruled is not reported as concluded
    assert f'Superseded, not concluded: "{OVERRULED}"' in convergence
    assert f'Concluded: "{OVERRULED}"' not in convergence
    corrections = dead.split("### User corrections (verbatim)", 1)[1]
    assert CORRECTION in corrections
    assert AGENT_RESULT not in corrections, "a background agent's result is not the user's correction"
    # the rewind is reported, with the words of the abandoned branch
    assert "The user rewound the conversation" in dead and ABANDONED in dead
    # every pointer resolves to a line of the file
    lines = raw.splitlines()
    assert all(1 <= int(n) <= len(lines) for n in re.findall(r"transcript:L(\d+)", brief))


def test_the_spine_shows_notifications_compaction_and_images_for_what_they_are(session):
    repo, sid, path = session
    spine = refocus("handoff", path, "--spine", cwd=repo).stdout
    assert re.search(r"^L\d+ notification: Agent \"Survey the parser\" finished", spine, re.M)
    assert re.search(r"^L\d+ compact: ", spine, re.M)
    assert re.search(rf"^L\d+ user: {re.escape(IMAGE_PROMPT)}", spine, re.M) and "[image attached]" in spine
    assert PNG[:40] not in spine
    assert not re.search(r"^L\d+ user: Fix this bug:", spine, re.M), "the expanded command prompt is the client's"
