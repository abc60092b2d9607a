"""What Codex CLI and Gemini CLI do with hooks, checked on the real, pinned binaries.

The adapters for these agents (docs/agents.md) rest on these facts: where a session's id and
transcript come from, how a SessionStart hook's context reaches the model, how a Stop /
AfterAgent hook keeps the agent working, what a shell command the model runs can see, how a
session is resumed, and the gate each client puts in front of hooks. A release that changes
one of them fails here first, before any adapter misbehaves.

The binaries come from npm (scripts/install-agent, fixtures in conftest.py); the model is a loopback mock
(tests/e2e/agent_mocks.py). Each hook is a recorder: it saves its stdin and environment and
answers with a reply the test left for it (once).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.e2e.agent_mocks import Call, MockGemini, MockResponses, Text, texts_of

RECORDER = """#!/bin/sh
# record one hook call: stdin and environment; answer with a reply left for this event, once
dir=$(dirname "$0")
n=$(ls "$dir" | grep -c "^$1-.*\\.json$")
cat > "$dir/$1-$n.json"
env > "$dir/$1-$n.env"
if [ -f "$dir/reply-$1" ]; then cat "$dir/reply-$1"; rm -f "$dir/reply-$1"; else printf '{}'; fi
"""


class Recorder:
    """A hook command that records each call under ``directory``."""

    def __init__(self, directory: Path):
        self.dir = directory
        directory.mkdir(parents=True)
        self.script = directory / "record.sh"
        self.script.write_text(RECORDER)
        self.script.chmod(0o755)

    def command(self, event: str) -> str:
        return f"{self.script} {event}"

    def reply(self, event: str, answer: dict) -> None:
        (self.dir / f"reply-{event}").write_text(json.dumps(answer))

    def calls(self, event: str) -> list[dict]:
        return [json.loads((self.dir / f"{event}-{n}.json").read_text())
                for n in range(len(list(self.dir.glob(f"{event}-*.json"))))]

    def env(self, event: str, n: int = 0) -> dict[str, str]:
        lines = (self.dir / f"{event}-{n}.env").read_text().splitlines()
        return dict(line.split("=", 1) for line in lines if "=" in line)


def _base_env(home: Path) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TMPDIR", "TERM")}
    return {**keep, "HOME": str(home), "NO_PROXY": "127.0.0.1,localhost", "GIT_CONFIG_NOSYSTEM": "1"}


def _work(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    return work


# -- Codex CLI ----------------------------------------------------------------------------
class Codex:
    def __init__(self, binary: Path, tmp_path: Path, mock: MockResponses, recorder: Recorder):
        self.binary, self.mock, self.recorder = binary, mock, recorder
        self.home = tmp_path / "home"
        self.codex_home = self.home / ".codex"
        self.codex_home.mkdir(parents=True)
        (self.codex_home / "config.toml").write_text(mock.codex_config())
        hooks = {event: [{"matcher": "startup|resume|clear"} if event == "SessionStart" else {}]
                 for event in ("SessionStart", "Stop")}
        for event, groups in hooks.items():
            groups[0]["hooks"] = [{"type": "command", "command": recorder.command(event), "timeout": 30}]
        (self.codex_home / "hooks.json").write_text(json.dumps({"hooks": hooks}))
        self.env = {**_base_env(self.home), "CODEX_HOME": str(self.codex_home), "MOCK_API_KEY": "test"}

    def run(self, cwd: Path, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(self.binary), "exec", "--skip-git-repo-check", *args], cwd=cwd, env=self.env,
                              capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL)

    def trust_hooks(self, cwd: Path) -> list[str]:
        """Trust the recorder's hooks as the client's own hooks panel does, through
        `codex app-server` (JSON-RPC on stdio): `hooks/list` gives each hook's key and current
        hash, `config/batchWrite` records them under `hooks.state`; the trust status after."""
        proc = subprocess.Popen([str(self.binary), "app-server"], cwd=cwd, env=self.env, text=True,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert proc.stdin is not None and proc.stdout is not None
        stdin, stdout = proc.stdin, proc.stdout

        def call(number: int, method: str, params: dict) -> dict:
            stdin.write(json.dumps({"jsonrpc": "2.0", "id": number, "method": method, "params": params}) + "\n")
            stdin.flush()
            for line in stdout:
                message = json.loads(line)
                if message.get("id") == number:
                    assert "error" not in message, message
                    return message["result"]
            raise AssertionError(f"codex app-server closed before answering {method}")

        try:
            call(1, "initialize", {"clientInfo": {"name": "git-refocus-tests", "version": "0"}})
            stdin.write(json.dumps({"jsonrpc": "2.0", "method": "initialized"}) + "\n")
            hooks = call(2, "hooks/list", {"cwds": [str(cwd)]})["data"][0]["hooks"]
            ours = {h["key"]: {"trusted_hash": h["currentHash"]} for h in hooks
                    if str(self.recorder.script) in h["command"]}
            call(3, "config/batchWrite", {"edits": [{"keyPath": "hooks.state", "mergeStrategy": "upsert",
                                                     "value": ours}]})
            after = call(4, "hooks/list", {"cwds": [str(cwd)]})["data"][0]["hooks"]
            return [h["trustStatus"] for h in after if h["key"] in ours]
        finally:
            stdin.close()
            proc.terminate()
            proc.wait(timeout=30)


@pytest.fixture
def codex(codex_bin: Path, tmp_path: Path):
    with MockResponses() as mock:
        yield Codex(codex_bin, tmp_path, mock, Recorder(tmp_path / "hooks"))


def test_codex_runs_no_untrusted_hook_and_says_nothing(codex, tmp_path):
    work = _work(tmp_path)
    codex.mock.add(Text("answered"))
    proc = codex.run(work, "say hi")
    assert proc.returncode == 0, proc.stderr
    assert "answered" in proc.stdout
    assert codex.recorder.calls("SessionStart") == [] and codex.recorder.calls("Stop") == []


def test_codex_hooks_trusted_through_the_app_server_run(codex, tmp_path):
    work = _work(tmp_path)
    assert codex.trust_hooks(work) == ["trusted", "trusted"]
    codex.recorder.reply("SessionStart", {"hookSpecificOutput": {"hookEventName": "SessionStart",
                                                                 "additionalContext": "BRIEF-MARKER"}})
    codex.recorder.reply("Stop", {"decision": "block", "reason": "CONTINUE-MARKER"})
    codex.mock.add(Call("exec_command", {"cmd": "echo sid=$CODEX_SESSION_ID"}), Text("first"), Text("second"))
    proc = codex.run(work, "do the work")
    assert proc.returncode == 0, proc.stderr

    start, = codex.recorder.calls("SessionStart")
    assert start["hook_event_name"] == "SessionStart" and start["source"] == "startup"
    assert Path(start["cwd"]).resolve() == work.resolve()
    sid = start["session_id"]
    transcript = Path(start["transcript_path"])
    assert transcript.is_file() and sid in transcript.name and transcript.name.startswith("rollout-")
    assert transcript.is_relative_to(codex.codex_home / "sessions")

    # the context goes to the model (as a developer message), in every request of the session
    assert all("BRIEF-MARKER" in texts_of(body) for body in codex.mock.turn_requests)
    # the model's shell commands can tell which session runs them
    assert any(f"sid={sid}" in text for text in texts_of(codex.mock.turn_requests[1]))
    # a Stop that blocks continues the session with the reason as the next user prompt
    stops = codex.recorder.calls("Stop")
    assert [s["stop_hook_active"] for s in stops] == [False, True]
    assert [s["last_assistant_message"] for s in stops] == ["first", "second"]
    assert all(s["session_id"] == sid for s in stops)
    assert any("CONTINUE-MARKER" in text for text in texts_of(codex.mock.turn_requests[-1]))

    # `codex exec resume <id>` continues the same session: SessionStart says resume
    codex.mock.add(Text("resumed"))
    proc = codex.run(work, "resume", sid, "go on")
    assert proc.returncode == 0, proc.stderr
    resumed = codex.recorder.calls("SessionStart")[-1]
    assert resumed["source"] == "resume" and resumed["session_id"] == sid


def test_codex_trust_is_keyed_to_the_hook_it_saw(codex, tmp_path):
    """Editing a trusted hook's command un-trusts it: an installer must re-trust after a change."""
    work = _work(tmp_path)
    assert codex.trust_hooks(work) == ["trusted", "trusted"]
    hooks_file = codex.codex_home / "hooks.json"
    hooks_file.write_text(hooks_file.read_text().replace("record.sh SessionStart", "record.sh  SessionStart"))
    codex.mock.add(Text("answered"))
    assert codex.run(work, "say hi").returncode == 0
    assert codex.recorder.calls("SessionStart") == []
    assert len(codex.recorder.calls("Stop")) == 1


def _repo_with_commit_hook(tmp_path: Path) -> Path:
    """A repository whose commit-msg hook appends the session ids it can see to the message."""
    work = _work(tmp_path)
    for key, value in (("user.name", "Agent"), ("user.email", "agent@example.com")):
        subprocess.run(["git", "-C", str(work), "config", key, value], check=True)
    hook = work / ".git" / "hooks" / "commit-msg"
    hook.write_text('#!/bin/sh\necho "hook-ran codex=${CODEX_SESSION_ID:-} gemini=${GEMINI_SESSION_ID:-}" >> "$1"\n')
    hook.chmod(0o755)
    return work


def _head_message(work: Path) -> str:
    return subprocess.run(["git", "-C", str(work), "log", "-1", "--format=%B"], capture_output=True,
                          text=True).stdout


COMMIT = "git commit --allow-empty -m probe"


def test_codex_commits_only_with_the_git_dir_writable_and_its_hook_sees_the_session(codex, tmp_path):
    """The workspace-write sandbox keeps .git read-only: a child must be started with its git dir
    among the writable roots; then the commit-msg hook runs and sees CODEX_SESSION_ID."""
    work = _repo_with_commit_hook(tmp_path)
    codex.mock.add(Call("exec_command", {"cmd": COMMIT}), Text("tried"))
    assert codex.run(work, "-s", "workspace-write", "commit").returncode == 0
    assert "Read-only file system" in " ".join(texts_of(codex.mock.turn_requests[-1]))
    assert _head_message(work) == ""

    codex.mock.add(Call("exec_command", {"cmd": COMMIT}), Text("committed"))
    writable = f'sandbox_workspace_write.writable_roots=["{work / ".git"}"]'
    proc = codex.run(work, "-s", "workspace-write", "-c", writable, "commit")
    assert proc.returncode == 0, proc.stderr
    message = _head_message(work)
    assert "hook-ran codex=" in message
    sid = message.split("hook-ran codex=", 1)[1].split()[0]
    assert sid and sid in proc.stdout + proc.stderr  # the session id codex names


# -- Gemini CLI ---------------------------------------------------------------------------
class Gemini:
    def __init__(self, binary: Path, tmp_path: Path, mock: MockGemini, recorder: Recorder):
        self.binary, self.mock, self.recorder = binary, mock, recorder
        self.home = tmp_path / "home"
        (self.home / ".gemini").mkdir(parents=True)
        hooks = {event: [{**({"matcher": "*"} if event == "SessionStart" else {}),
                          "hooks": [{"name": f"rec-{event}", "type": "command",
                                     "command": recorder.command(event), "timeout": 30000}]}]
                 for event in ("SessionStart", "AfterAgent", "SessionEnd")}
        settings = {"security": {"auth": {"selectedType": "gemini-api-key"}}, "hooks": hooks}
        (self.home / ".gemini" / "settings.json").write_text(json.dumps(settings))
        self.env = {**_base_env(self.home), "GEMINI_API_KEY": "test", "GOOGLE_GEMINI_BASE_URL": mock.url}

    def run(self, cwd: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([str(self.binary), *args], cwd=cwd, env={**self.env, **(env or {})},
                              capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL)


@pytest.fixture
def gemini(gemini_bin: Path, tmp_path: Path):
    with MockGemini() as mock:
        yield Gemini(gemini_bin, tmp_path, mock, Recorder(tmp_path / "hooks"))


def test_gemini_refuses_an_untrusted_folder_headless(gemini, tmp_path):
    work = _work(tmp_path)
    proc = gemini.run(work, "-p", "say hi")
    assert "trusted" in (proc.stdout + proc.stderr)
    assert gemini.mock.turn_requests == [] and gemini.recorder.calls("SessionStart") == []


def test_gemini_hooks_from_user_settings_run(gemini, tmp_path):
    work = _work(tmp_path)
    gemini.recorder.reply("SessionStart", {"hookSpecificOutput": {"hookEventName": "SessionStart",
                                                                  "additionalContext": "BRIEF-MARKER"}})
    gemini.recorder.reply("AfterAgent", {"decision": "deny", "reason": "CONTINUE-MARKER"})
    gemini.mock.add(Call("run_shell_command", {"command": "echo sid=${GEMINI_SESSION_ID:-none}"}),
                    Text("first"), Text("second"))
    proc = gemini.run(work, "--yolo", "-p", "do the work", env={"GEMINI_CLI_TRUST_WORKSPACE": "true"})
    assert proc.returncode == 0, proc.stderr

    start, = gemini.recorder.calls("SessionStart")
    assert start["hook_event_name"] == "SessionStart" and start["source"] == "startup"
    sid = start["session_id"]
    assert Path(start["cwd"]).resolve() == work.resolve()
    assert gemini.recorder.env("SessionStart")["GEMINI_SESSION_ID"] == sid
    transcript = Path(start["transcript_path"])
    assert transcript.is_relative_to(gemini.home / ".gemini" / "tmp") and transcript.parent.name == "chats"
    assert transcript.is_file()

    # the context goes to the model with the prompt
    assert any("BRIEF-MARKER" in text for text in texts_of(gemini.mock.turn_requests[0]))
    # the model's shell commands cannot tell which session runs them
    assert any("sid=none" in text for text in texts_of(gemini.mock.turn_requests[1]))
    # AfterAgent denying retries the turn with the reason; the retry says stop_hook_active
    after = gemini.recorder.calls("AfterAgent")
    assert [a["stop_hook_active"] for a in after] == [False, True]
    assert all(a["session_id"] == sid for a in after)
    assert any("CONTINUE-MARKER" in text for text in texts_of(gemini.mock.turn_requests[-1]))
    end, = gemini.recorder.calls("SessionEnd")
    assert end["session_id"] == sid

    # `gemini --resume <id>` continues the same session: SessionStart says resume
    gemini.mock.add(Text("resumed"))
    proc = gemini.run(work, "--resume", sid, "-p", "go on", env={"GEMINI_CLI_TRUST_WORKSPACE": "true"})
    assert proc.returncode == 0, proc.stderr
    resumed = gemini.recorder.calls("SessionStart")[-1]
    assert resumed["source"] == "resume" and resumed["session_id"] == sid


def test_gemini_shell_commits_run_no_git_hook(gemini, tmp_path):
    """Gemini CLI runs the model's commands with core.hooksPath emptied (and the user's global
    git config replaced by /dev/null): a commit made there never runs the commit-msg hook."""
    work = _repo_with_commit_hook(tmp_path)
    gemini.mock.add(Call("run_shell_command", {"command": COMMIT}), Text("committed"))
    proc = gemini.run(work, "--yolo", "-p", "commit", env={"GEMINI_CLI_TRUST_WORKSPACE": "true"})
    assert proc.returncode == 0, proc.stderr
    assert _head_message(work).strip() == "probe"
    subprocess.run(["git", "-C", str(work), "commit", "-q", "--allow-empty", "-m", "by hand"], check=True)
    assert "hook-ran" in _head_message(work)  # the same hook, from a plain shell
