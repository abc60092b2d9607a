"""The end-to-end harness itself: the real Claude Code client against the scripted API mock."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.e2e.claude_mock import (
    Bash,
    MockAnthropic,
    Text,
    describe,
    project_dir_name,
    read_jsonl,
    tool_result_text,
    tool_results,
)
from tests.gitrepo import git

claude = pytest.mark.claude


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    git(path, "commit", "-q", "--allow-empty", "-m", "initial")
    return path


def write_session_start_hook(repo: Path, body: str) -> None:
    """Install `body` (sh) as the project's SessionStart hook for startup and resume."""
    script = repo.parent / "session-start.sh"
    script.write_text(body)
    settings = {"hooks": {"SessionStart": [{
        "matcher": "startup|resume|clear|compact",
        "hooks": [{"type": "command", "command": f"sh {script}", "timeout": 10}],
    }]}}
    (repo / ".claude").mkdir(exist_ok=True)
    (repo / ".claude" / "settings.json").write_text(json.dumps(settings))


# -- the mock on its own ------------------------------------------------------------------


def post(url: str, body: dict) -> tuple[int, str]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with direct.open(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_mock_streams_a_tool_use_then_answers_side_requests_without_consuming_turns():
    with MockAnthropic([Bash("true"), "after"]) as mock:
        turn = {"model": "m", "stream": True, "tools": [{"name": "Bash"}], "messages": []}
        status, stream = post(mock.url + "/v1/messages?beta=true", turn)
        side = {"model": "haiku", "stream": False, "messages": [{"role": "user", "content": "title?"}]}
        side_status, side_reply = post(mock.url + "/v1/messages", side)
        _, second = post(mock.url + "/v1/messages", dict(turn, stream=False))
        missing, _ = post(mock.url + "/v1/nowhere", {})

    events = [line.removeprefix("event: ") for line in stream.splitlines() if line.startswith("event: ")]
    assert status == 200
    assert events == ["message_start", "content_block_start", "content_block_delta",
                      "content_block_delta", "content_block_stop", "message_delta", "message_stop"]
    assert '"stop_reason": "tool_use"' in stream
    assert side_status == 200 and json.loads(side_reply)["content"][0]["text"] == mock.side_reply
    assert json.loads(second)["content"] == [{"type": "text", "text": "after"}]
    assert missing == 404 and mock.unknown == ["POST /v1/nowhere"]
    assert [r.kind for r in mock.requests] == ["turn", "side", "turn", "other"]
    assert mock.errors == []


def test_mock_answers_and_records_a_broken_or_exhausted_script():
    turn = {"model": "m", "stream": False, "tools": [{"name": "Bash"}], "messages": []}
    with MockAnthropic([lambda request: None]) as mock:
        _, broken = post(mock.url + "/v1/messages", turn)
        _, exhausted = post(mock.url + "/v1/messages", turn)

    assert "MOCK: turn raised TypeError" in json.loads(broken)["content"][0]["text"]
    assert json.loads(exhausted)["content"][0]["text"] == mock.exhausted_reply
    assert len(mock.errors) == 2 and "script exhausted" in mock.errors[1]


# -- the real client ----------------------------------------------------------------------


@claude
def test_scripted_text_reply_is_printed(run_claude, mock_api, repo):
    mock_api.add(Text("Hello from the mock"))

    done = run_claude(repo, "say hello")

    assert done.returncode == 0, describe(done)
    assert done.stdout.strip() == "Hello from the mock"
    assert mock_api.turn_requests[0]["stream"] is True
    assert "say hello" in json.dumps(mock_api.turn_requests[0]["messages"])
    assert mock_api.errors == [] and mock_api.unknown == []


@claude
def test_scripted_bash_command_runs_and_its_result_reaches_the_model(run_claude, mock_api, repo):
    def report_result(request: dict) -> Text:
        results = tool_results(request)
        return Text("saw: " + (tool_result_text(results[0]) if results else "nothing"))

    mock_api.add(Bash('git commit -q --allow-empty -m "scripted commit" && echo "sid=$CLAUDE_CODE_SESSION_ID"'),
                 report_result)

    done = run_claude(repo, "commit please")

    assert done.returncode == 0, describe(done)
    assert git(repo, "log", "-1", "--format=%s").strip() == "scripted commit"
    assert git(repo, "log", "-1", "--format=%an").strip() == "Test Author", "run_claude's git identity"
    first, second = mock_api.turn_requests
    assert tool_results(first) == []
    [result] = tool_results(second)
    assert result["tool_use_id"] == tool_use_id(second), second["messages"][-3:]
    assert tool_result_text(result) == f"sid={done.session_id}"
    assert done.stdout.strip() == f"saw: sid={done.session_id}"
    assert mock_api.errors == []


def tool_use_id(request: dict) -> str | None:
    """The id of the last tool_use the request's history carries."""
    for message in reversed(request["messages"]):
        if message["role"] == "assistant" and isinstance(message["content"], list):
            for block in message["content"]:
                if block.get("type") == "tool_use":
                    return block["id"]
    return None


@claude
def test_session_start_hook_gets_session_json_and_its_context_reaches_the_model(run_claude, mock_api, repo, tmp_path):
    stdin_copy = tmp_path / "hook-stdin.json"
    write_session_start_hook(repo, f"""\
timeout 5 cat > {stdin_copy}
echo '{{"hookSpecificOutput": {{"hookEventName": "SessionStart", "additionalContext": "MARKER-123"}}}}'
""")
    mock_api.add(Text("ok"))

    done = run_claude(repo, "hello")

    assert done.returncode == 0, describe(done)
    assert "MARKER-123" in json.dumps(mock_api.turn_requests[0]["messages"]), "hook context not sent"
    hook_input = json.loads(stdin_copy.read_text())
    assert hook_input["session_id"] == done.session_id
    assert hook_input["hook_event_name"] == "SessionStart"
    assert hook_input["source"] == "startup"
    assert Path(hook_input["cwd"]).resolve() == repo.resolve()
    assert Path(hook_input["transcript_path"]).name == f"{done.session_id}.jsonl"


@claude
def test_exports_written_to_claude_env_file_reach_bash_commands(run_claude, mock_api, repo):
    write_session_start_hook(repo, 'echo "export FOO=bar" >> "$CLAUDE_ENV_FILE"\n')
    mock_api.add(Bash('echo "FOO=$FOO"'), lambda request: Text(tool_result_text(tool_results(request)[0])))

    done = run_claude(repo, "show FOO")

    assert done.returncode == 0, describe(done)
    assert done.stdout.strip() == "FOO=bar"


@claude
def test_transcript_is_written_and_the_session_resumes(run_claude, mock_api, repo, claude_home, transcript, tmp_path):
    sources = tmp_path / "sources.txt"
    write_session_start_hook(repo, f"timeout 5 cat >> {sources}; echo >> {sources}\n")
    mock_api.add(Text("first answer"), Text("second answer"))

    first = run_claude(repo, "first question")
    assert first.returncode == 0, describe(first)
    path = transcript(first.session_id)
    assert path.parent == claude_home / ".claude" / "projects" / project_dir_name(repo.resolve())
    assert "first answer" in json.dumps(read_jsonl(path))

    reused = run_claude(repo, "again", session_id=first.session_id)
    assert reused.returncode != 0 and "already in use" in reused.stderr, describe(reused)

    second = run_claude(repo, "second question", resume=first.session_id)
    assert second.returncode == 0, describe(second)
    assert second.stdout.strip() == "second answer"
    history = json.dumps(mock_api.turn_requests[-1]["messages"])
    assert "first question" in history and "first answer" in history and "second question" in history
    assert [json.loads(line)["source"] for line in sources.read_text().split("\n") if line.strip()] == \
        ["startup", "resume"]
    assert "second answer" in json.dumps(read_jsonl(transcript(first.session_id)))
