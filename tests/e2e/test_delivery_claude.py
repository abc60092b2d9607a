"""The handover as users run it, through the real client (2.1.330 and 2.1.197): several sessions
in one directory and a /clear in the unrelated one while the child works, a child below the
repository root on each install route, 150 results waiting, a brief past the client's cap, the
plugin commands in the default permission mode, and a loop longer than the client's cap.

The mock plays the model; each test asserts on what reached the model and on what landed in git.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
import uuid
from pathlib import Path

import pytest

from tests.backlog import waiting_results
from tests.e2e import conftest as e2e
from tests.e2e.claude_mock import Bash, Text, describe, last_user_content, tool_result_text, tool_results
from tests.e2e.conftest import client_env, spawn
from tests.gitrepo import git, make_repo
from tests.runner import refocus

pytestmark = pytest.mark.claude
BOTH_CLIENTS = True  # every test here runs against both client releases (tests/e2e/conftest.py)


def said(body: dict) -> str:
    return json.dumps(body.get("messages") or [])


def results_in(mock_api, marker: str) -> list[str]:
    """The Bash results of the requests whose conversation holds ``marker``, in order (the
    requests resend the conversation, so the last such request has them all)."""
    bodies = [b for b in mock_api.turn_requests if marker in said(b)]
    return [tool_result_text(r) for m in (bodies[-1]["messages"] if bodies else [])
            if isinstance(m.get("content"), list) for r in m["content"] if r.get("type") == "tool_result"]


def first_with(mock_api, marker: str) -> str:
    return json.dumps(next(b for b in mock_api.turn_requests if marker in said(b)))


def received(repo) -> set[str]:
    out = git(repo, "for-each-ref", "--format=%(refname:lstrip=2) %(contents:subject)", "refs/refocus/")
    return {line.split()[0] for line in out.splitlines() if line.endswith(": received")}


class StreamSession:
    """A session typed into message by message (`--input-format stream-json`), so a test can act
    between two messages (here: before a /clear)."""

    def __init__(self, claude, env, cwd, session_id):
        args = [str(claude), "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
                "--session-id", session_id, "--allowedTools", "Bash"]
        self.process = subprocess.Popen(args, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True, start_new_session=True)

    def type(self, *messages: str) -> None:
        assert self.process.stdin is not None
        for m in messages:
            self.process.stdin.write(json.dumps({"type": "user", "message": {"role": "user", "content": m}}) + "\n")
        self.process.stdin.flush()

    def finish(self, timeout=150) -> subprocess.CompletedProcess[str]:
        try:
            stdout, stderr = self.process.communicate(timeout=timeout)
        finally:
            e2e._wait_for_group(self.process.pid, e2e.HOOK_GRACE)
            e2e._kill_group(self.process.pid)
        return subprocess.CompletedProcess(self.process.args, self.process.returncode, stdout, stderr)


def test_sessions_side_by_side_and_a_clear_in_the_unrelated_one(
        wired, refocus_path, run_claude, mock_api, claude_bin, claude_home, claude_tmpdir):
    """While the child works, another session in its directory commits and types /clear: its
    commits are not tagged, after /clear it is not the child (the hook says so in one line) even
    with the child's transcript the newest in the project folder, and its complete is refused
    (exit 3, naming the child's session)."""
    src, dest = wired
    out = spawn(src, dest, refocus_path, slug="side")
    rid, sid = out["id"], out["child_session_id"]
    child_waiting, other_first_done, other_done = threading.Event(), threading.Event(), threading.Event()
    complete_args = "--summary 'not mine' --no-material-changes 'n/a'"

    def model(body):
        conversation = said(body)
        steps = len([r for m in body["messages"] if isinstance(m.get("content"), list)
                     for r in m["content"] if r.get("type") == "tool_result"])
        if "CHILD-WORK" in conversation:
            if steps == 0:
                child_waiting.set()
                assert other_done.wait(150), "the other session did not finish"
                return Bash("printf 'x\\n' > child.txt && git add child.txt && git commit -q -m 'child work' "
                            "&& git log -1 --format=%B")
            if steps == 1:
                return Bash("git refocus complete --summary 'Child done.' --dod 1 --no-material-changes 'n/a' --json")
            return Text("Child finished.")
        if "OTHER-AFTER" in conversation:
            if steps == 0:
                return Bash("echo \"role=[$SESSION_REFOCUS_ROLE]\"; git commit --allow-empty -q -m 'after the clear' "
                            f"&& git log -1 --format=%B; git refocus complete {complete_args}; echo exit=$?; "
                            f"git refocus complete {rid} {complete_args}; echo exit=$?")
            return Text("Other session, after the clear.")
        if steps == 0:
            return Bash("printf 'y\\n' > other.txt && git add other.txt && git commit -q -m 'other work' "
                        "&& git log -1 --format=%B")
        other_first_done.set()
        return Text("Other session, first answer.")

    mock_api.add(*[model] * 10)
    child: dict = {}
    thread = threading.Thread(target=lambda: child.setdefault("done", run_claude(
        dest, "CHILD-WORK: work on the brief.", session_id=sid, extra_env=refocus_path, timeout=200)))
    thread.start()
    try:
        assert child_waiting.wait(120), "the child never reached its first turn"
        env = e2e.claude_env(claude_home, mock_api.url, claude_tmpdir, refocus_path)
        other = StreamSession(claude_bin, env, dest, str(uuid.uuid4()))
        other.type("OTHER-FIRST: an unrelated question.")
        assert other_first_done.wait(120), "the other session never answered"
        time.sleep(1.0)  # its Stop hook
        newest = time.time() + 60  # the old rule took the newest other transcript for the cleared session's past
        os.utime(next((claude_home / ".claude" / "projects").glob(f"*/{sid}.jsonl")), (newest, newest))
        other.type("/clear", "OTHER-AFTER: carry on.")
        done = other.finish()
        assert done.returncode == 0, describe(done)
    finally:
        other_done.set()
        thread.join(200)
    assert child["done"].returncode == 0, describe(child["done"])
    assert mock_api.errors == []

    before, = results_in(mock_api, "OTHER-FIRST")
    assert "other work" in before and "Refocus-Id" not in before, "the other session's commit is not the child's"

    cleared = first_with(mock_api, "OTHER-AFTER")
    assert f"this session is the child session of refocus {rid}" not in cleared, "no brief after /clear"
    assert f"began with /clear and is not the child session of refocus {rid}" in cleared
    after, = results_in(mock_api, "OTHER-AFTER")
    assert "role=[]" in after and "Refocus-Id" not in after, "no role, no trailer after /clear"
    assert "works on no refocus here" in after and "exit=1" in after, "complete finds no refocus of its own"
    assert f"{rid} belongs to session {sid}" in after and "exit=3" in after, "the child's is refused"
    assert f"git refocus start {rid} --take-over" in after

    mine = results_in(mock_api, "CHILD-WORK")
    assert f"Refocus-Id: {rid}" in mine[0], "the child's own commit is tagged"
    assert json.loads(mine[1])["status"] == "result"
    kinds = [e["kind"] for e in refocus("show", rid, "--json", cwd=dest).json["events"]]
    assert kinds == ["spawned", "started", "completed"], kinds
    mapped = dest / ".git" / "refocus" / "sessions"
    assert not mapped.exists() or list(mapped.iterdir()) == [], "the other session was never mapped (and complete unmapped the child)"


@pytest.mark.parametrize("route", ["project", "user", "plugin"])
def test_a_child_below_the_root_and_its_parent_in_a_monorepo_directory(
        route, refocus_path, run_claude, mock_api, claude_bin, claude_home, claude_tmpdir, tmp_path):
    mono, dest = make_repo(tmp_path / "mono"), make_repo(tmp_path / "dest")
    web, pkg = mono / "services" / "web", dest / "pkg"
    web.mkdir(parents=True)
    pkg.mkdir()
    env = client_env(claude_bin, claude_home, mock_api, claude_tmpdir, refocus_path)  # `claude` on PATH, HOME
    for repo in (mono, dest):
        refocus("init", *(["--claude"] if route == "project" else []), cwd=repo, env=refocus_path)
    if route == "user":
        refocus("init", "--claude", "--user", cwd=mono, env={**refocus_path, "HOME": str(claude_home)})
    elif route == "plugin":
        refocus("init", "--claude", "--plugin", cwd=mono, env=env)
    out = refocus("spawn", pkg, "--slug", "pkg", "--reason", "The package work belongs in pkg.", "--done-when",
                  "pkg builds", "--json", cwd=web, env={**refocus_path, "CLAUDE_PROJECT_DIR": str(web)}).json
    rid, sid = out["id"], out["child_session_id"]
    assert out["relaunch_command"] == f"cd {pkg.resolve()} && claude --session-id {sid}"

    mock_api.add(Bash("git refocus complete --summary 'Subtree work done.' --dod 1 --no-material-changes 'n/a' "
                      "--json"), Text("Done."))
    child = run_claude(pkg, "Work on the brief.", session_id=sid, extra_env=refocus_path)  # the printed command
    assert child.returncode == 0, describe(child)
    told = json.dumps(mock_api.turn_requests[0])
    assert f"child session of refocus {rid}" in told, f"{route}: the child below the root got its brief"
    brief = dest.resolve() / "docs" / "refocus" / f"{rid}.md"
    assert f"The full brief is {brief}" in told and brief.is_file()
    assert refocus("show", rid, "--json", cwd=dest).json["status"] == "result"

    mock_api.add(Text("Noted."))
    before = len(mock_api.turn_requests)
    parent = run_claude(web, "Continue.", extra_env=refocus_path)
    assert parent.returncode == 0, describe(parent)
    told = json.dumps(mock_api.turn_requests[before])
    assert f"{rid} (completed)" in told and "Subtree work done." in told, f"{route}: the parent in web/ was told"
    assert f"Full result: {brief}" in told
    assert received(mono) == {rid}

    if route != "project":  # hooks installed for every directory: a repository that never took part hears nothing
        plain = make_repo(tmp_path / "plain")
        mock_api.add(Text("Hello."))
        before = len(mock_api.turn_requests)
        done = run_claude(plain, "Hi.", extra_env=refocus_path)
        assert done.returncode == 0, describe(done)
        sent = json.dumps(mock_api.turn_requests[before])
        assert "git refocus: " not in sent and "git refocus notes" not in sent, "no context from the hook"
        assert not (plain / ".git" / "refocus").exists()


def test_150_results_waiting_are_told_a_few_at_a_time_and_marked_only_when_told(
        refocus_path, run_claude, mock_api, tmp_path):
    src, dest, ids = waiting_results(tmp_path / "backlog", 150)
    refocus("init", "--claude", cwd=src, env=refocus_path)
    told: set[str] = set()
    for n in range(2):
        mock_api.add(Text("Noted."))
        before = len(mock_api.turn_requests)
        done = run_claude(src, "Continue.", extra_env=refocus_path)
        assert done.returncode == 0, describe(done)
        text = json.dumps(mock_api.turn_requests[before])
        now = {rid for rid in ids if rid in text}
        assert len(now) == 5 and not now & told, f"session {n}: {len(now)} told"
        told |= now
        assert received(src) == told, "marked received: exactly the results the model was told"
        assert f"{len(ids) - len(told)} more results wait to be received: `git refocus receive`" in text


def test_a_brief_past_the_cap_reaches_the_child_rules_first(
        wired, refocus_path, run_claude, mock_api):
    src, dest = wired
    args = ["spawn", str(dest), "--slug", "long", "--reason", "REASON-MARK: the reason this branch exists."]
    for i in range(60):
        args += ["--done-when", f"criterion {i + 1} " + "spelled out at length " * 6,
                 "--out-of-scope", f"not this {i + 1} " + "spelled out at length " * 6]
    out = refocus(*args, "--json", cwd=src, env=refocus_path).json
    mock_api.add(Text("Starting."))
    done = run_claude(dest, "Work on the brief.", session_id=out["child_session_id"], extra_env=refocus_path)
    assert done.returncode == 0, describe(done)
    told = json.dumps(mock_api.turn_requests[0])
    order = [f"child session of refocus {out['id']}", "This session is a leaf", "/refocus-complete",
             "--status blocked", "REASON-MARK", "Definition of done", "more in the brief)"]
    at = [told.find(part) for part in order]
    assert all(i >= 0 for i in at) and at == sorted(at), dict(zip(order, at))


def run_default_mode(claude, env, cwd, prompt, session_id=None, resume=None):
    """`claude -p` in the client's default permission mode: no --allowedTools at all."""
    session = ["--resume", resume] if resume else ["--session-id", session_id or str(uuid.uuid4())]
    return e2e._run_bounded([str(claude), "-p", prompt, *session], Path(cwd), env, 180)


def test_the_commands_run_as_shipped_without_allowed_tools(
        wired, refocus_path, mock_api, claude_bin, claude_home, claude_tmpdir):
    src, dest = wired
    env = client_env(claude_bin, claude_home, mock_api, claude_tmpdir, refocus_path)  # `claude` on PATH
    mock_api.add(Bash("git refocus handoff --json"),
                 Bash(f"git refocus spawn '{dest}' --slug 'tls' --reason 'TLS work belongs in dest.' "
                      "--done-when 'TLS on by default' --out-of-scope 'Rotating keys' "
                      "--context 'Certificates live in certs/' --json"),
                 Text("SPAWNED (see above)"))
    done = run_default_mode(claude_bin, env, src, f"/refocus {dest} --slug tls --reason 'TLS work belongs in dest.'")
    assert done.returncode == 0, describe(done)
    handoff, spawned = [tool_result_text(r) for b in mock_api.turn_requests for r in tool_results(b)]
    assert json.loads(handoff)["sections"], f"handoff ran under the command's own permissions: {handoff[:300]}"
    rid, sid = json.loads(spawned)["id"], json.loads(spawned)["child_session_id"]

    before = len(mock_api.turn_requests)
    mock_api.add(Bash("git refocus show"),
                 Bash("git refocus complete --status completed --summary 'TLS is on: by default.' --dod 1 "
                      "--artifact 'certs/README.md=where certificates live' "
                      "--follow-up '../ops:rotate-keys:key rotation: needs ops' "
                      "--material-change 'security.md=TLS on by default' --commit --json"),
                 Text("Completed."))
    done = run_default_mode(claude_bin, env, dest, "/refocus-complete completed", session_id=sid)
    assert done.returncode == 0, describe(done)
    shown, completed = [tool_result_text(r) for b in mock_api.turn_requests[before:] for r in tool_results(b)]
    assert "TLS on by default" in shown and "# Events" in shown
    result = json.loads(completed)
    assert result["status"] == "result" and result["commit"], completed
    assert result["result"]["follow_ups"][0]["reason"] == "key rotation: needs ops"
    committed = git(dest, "show", "--name-only", "--format=", result["commit"]).split()
    assert f"docs/refocus/{rid}.md" in committed and "docs/context/security.md" in committed

    def pickup_run(body):
        spawned = json.loads(tool_result_text(tool_results(body)[0]))
        return Bash(f"git refocus pickup {spawned['id']} --run")

    before = len(mock_api.turn_requests)
    mock_api.add(Bash(f"git refocus spawn '{dest}' --slug 'one' --reason 'A quick job.' --done-when 'Job done' "
                      "--oneshot --json"),
                 pickup_run,
                 # the child, started by pickup --run, talks to the same mock
                 Bash("git refocus complete --summary 'One-shot job done.' --dod 1 --no-material-changes 'n/a' "
                      "--json"),
                 Text("CHILD FINISHED"),
                 Bash("git refocus receive"),
                 Text("Received."))
    done = run_default_mode(claude_bin, env, src, f"/refocus {dest} --slug one --reason 'A quick job.' --oneshot")
    assert done.returncode == 0, describe(done)
    assert mock_api.errors == []
    outputs = results_in(mock_api, "Draft the brief from this conversation")  # the parent's, not the child's
    one = json.loads(outputs[0])["id"]
    assert "CHILD FINISHED" in outputs[1], outputs[1]
    assert f"{one}: blocked" not in outputs[-1] and f"{one}: result" in outputs[-1], outputs[-1]
    kinds = [e["kind"] for e in refocus("show", one, "--json", cwd=src).json["events"]]
    assert kinds == ["spawned", "started", "completed", "received"], kinds


PROMPT = "Keep fixing the failing tests."


def test_a_loop_past_the_clients_cap_pauses_and_never_captures_the_next_prompt(
        refocus_path, run_claude, mock_api, tmp_path):
    repo = make_repo(tmp_path / "work")
    refocus("init", "--claude", cwd=repo, env=refocus_path)
    mock_api.add(Bash(f"git refocus loop start --promise 'ALL GREEN' --max-iterations 12 --prompt '{PROMPT}'"),
                 *[Text(f"Pass {n}: still red.") for n in range(1, 10)], Text("a tenth pass the client never asks for"))
    first = run_claude(repo, "Fix the tests.", extra_env=refocus_path)
    assert first.returncode == 0, describe(first)
    warned = tool_result_text(tool_results(mock_api.turn_requests[1])[0])
    assert "Claude Code ends a turn after 8 blocked stops in a row" in warned
    assert len(mock_api.turn_requests) == 10, "loop start, then one iteration and eight blocked stops"
    [loop] = refocus("loop", "list", "--json", cwd=repo).json["loops"]
    assert (loop["status"], loop["iteration"], loop["ended"]) == ("paused", 9, "client's limit of blocks in a row")

    mock_api.script.clear()
    mock_api.add(Text("Here is the answer to your new question."), Text("MUST NOT BE ASKED FOR"))
    before = len(mock_api.turn_requests)
    second = run_claude(repo, "An unrelated question.", resume=first.session_id, extra_env=refocus_path)
    assert second.returncode == 0, describe(second)
    assert len(mock_api.turn_requests) == before + 1, "the next prompt's stop went through: not captured"
    assert PROMPT not in json.dumps(last_user_content(mock_api.turn_requests[-1]))
