"""/refocus, /refocus-complete and the refocus-drift skill, driven through the real client
(docs/delivery.md, "Commands in the default permission mode"), against the pinned release and one older 2.1.x release.

The mock plays the model: it checks what the client sent (the expanded command, the skill
listing, the brief from the hooks) and answers with the Bash calls the command file asks for,
so each test proves the text reaches the model and the calls it leads to work.
"""

from __future__ import annotations

import json
import shlex
import subprocess

import pytest

from gitrefocus.claude import install
from tests.e2e import conftest as e2e
from tests.e2e.claude_mock import (
    Bash,
    Text,
    describe,
    last_user_content,
    tool_result_text,
    tool_results,
)
from tests.e2e.conftest import client_env, shim_calls, spawn
from tests.gitrepo import make_repo
from tests.runner import ROOT, refocus

pytestmark = pytest.mark.claude

BOTH_CLIENTS = True  # every test here runs against both client releases (tests/e2e/conftest.py)
PLUGIN = ROOT / "gitrefocus" / "claude" / "plugin"
COMMAND_SENTENCE = "Draft the brief from this conversation"  # from commands/refocus.md
COMPLETE_SENTENCE = "Save the full transcript into the repository? [y/N]"  # from commands/refocus-complete.md
SKILL_DESCRIPTION = "Decide whether this session has drifted into a different CONCEPT"  # skills/refocus-drift


def first_request(mock_api, before=0) -> str:
    return json.dumps(mock_api.turn_requests[before])


def bash_results(mock_api, since=0) -> list[str]:
    return [tool_result_text(r) for req in mock_api.turn_requests[since:] for r in tool_results(req)]


def spawn_by_command(src, dest, mock_api, run_claude, env):
    """Type `/refocus DEST …` in the source; the model drafts from its own transcript (handoff)
    and runs the spawn the command asks for."""
    mock_api.add(
        Bash("git refocus handoff --json"),
        Bash(f"git refocus spawn {shlex.quote(str(dest))} --slug tls --reason 'TLS work belongs in dest.' "
             "--done-when 'TLS on by default' --out-of-scope 'Rotating keys' --context 'Certificates live in certs/' "
             "--json"),
        Text("SPAWNED (see above)"),
    )
    done = run_claude(src, f"/refocus {dest} --slug tls --reason 'TLS work belongs in dest.'", extra_env=env)
    assert done.returncode == 0, describe(done)
    sent = first_request(mock_api)
    assert COMMAND_SENTENCE in sent, "the /refocus command file reached the model"
    assert "--slug tls" in sent, "with its arguments"
    handoff, spawn_result = bash_results(mock_api)[:2]
    drafted = json.loads(handoff)
    assert drafted["session_id"] and drafted["sections"], "handoff read this session's own transcript"
    spawned = json.loads(spawn_result)
    assert spawned["marker"].startswith(f"SPAWNED {spawned['id']} → ")
    listed = refocus("show", spawned["id"], "--json", cwd=dest).json
    assert listed["status"] == "reserved" and "-tls-" in spawned["id"]
    return sent, spawned


def test_refocus_command_after_init_claude_spawns_and_the_skill_reaches_the_model(
        wired, refocus_path, run_claude, mock_api, tmp_path):
    src, dest = wired
    for rel in install.COPIED:
        assert (src / ".claude" / rel).is_file(), f"init --claude installed .claude/{rel}"
    sent, _ = spawn_by_command(src, dest, mock_api, run_claude, refocus_path)
    assert "refocus-drift" in sent and SKILL_DESCRIPTION in sent, "the skill's name and description reach the model"
    assert shim_calls(tmp_path).count("hook session-start") == 1


def test_refocus_command_after_init_claude_user(
        repos, refocus_path, run_claude, mock_api, claude_home, tmp_path):
    src, dest = repos
    env = {**refocus_path, "HOME": str(claude_home)}
    for repo in (src, dest):
        refocus("init", cwd=repo, env=refocus_path)
    refocus("init", "--claude", "--user", cwd=src, env=env)
    assert not (src / ".claude").exists(), "--user leaves the project alone"
    sent, _ = spawn_by_command(src, dest, mock_api, run_claude, refocus_path)
    assert "refocus-drift" in sent and SKILL_DESCRIPTION in sent
    assert shim_calls(tmp_path).count("hook session-start") == 1, "the user-level hooks ran"


def test_plugin_route_round_trip_with_project_hooks_too_fires_each_hook_once(
        repos, refocus_path, run_claude, mock_api, claude_bin, claude_home, claude_tmpdir, tmp_path):
    src, dest = repos
    env = client_env(claude_bin, claude_home, mock_api, claude_tmpdir, refocus_path)
    installed = refocus("init", "--claude", "--plugin", cwd=src, env=env)
    assert "claude plugin install refocus@git-refocus" in installed.stdout
    assert f"claude plugin uninstall {install.PLUGIN_ID}" in installed.stdout, "the undo is printed"
    again = refocus("init", "--claude", "--plugin", "--json", cwd=src, env=env).json
    assert again["changed"] == 0, "installing the plugin twice changes nothing"
    valid = subprocess.run([str(claude_bin), "plugin", "validate", install.plugin_dir()], env=env,
                           capture_output=True, text=True, timeout=60)
    assert valid.returncode == 0, f"`claude plugin validate` refused the shipped plugin:\n{valid.stdout}{valid.stderr}"
    details = subprocess.run([str(claude_bin), "plugin", "details", install.PLUGIN_ID], env=env,
                             capture_output=True, text=True, timeout=60)
    assert details.returncode == 0, details.stderr
    for part in ("refocus-complete", "refocus-drift", "SessionStart", "SessionEnd", "PostToolUse", "Stop"):
        assert part in details.stdout, f"`claude plugin details` lists {part}:\n{details.stdout}"
    refocus("init", "--claude", cwd=src, env=refocus_path)  # the project's hooks as well: no double firing
    refocus("init", cwd=dest, env=refocus_path)

    sent, spawned = spawn_by_command(src, dest, mock_api, run_claude, refocus_path)
    assert SKILL_DESCRIPTION in sent
    calls = shim_calls(tmp_path)
    assert "hook session-start --plugin" in calls, f"the plugin's hooks ran (calls: {calls})"
    # one session start, two Bash calls (handoff, spawn), one stop: each handled once
    for event, times in (("session-start", 1), ("post-tool-use", 2), ("stop", 1)):
        assert calls.count(f"hook {event}") == times, f"{event} ran once per event (calls: {calls})"
    assert sent.count("git refocus notes for this repository") <= 1


def test_child_refuses_refocus_then_completes_with_refocus_complete(
        wired, refocus_path, run_claude, mock_api, tmp_path):
    src, dest = wired
    out = spawn(src, dest, refocus_path, slug="tls")
    rid, sid = out["id"], out["child_session_id"]
    other = make_repo(dest.parent / "elsewhere")
    mock_api.add(Bash(f"git refocus spawn {other} --slug nested --reason r --done-when d --json; echo exit=$?"),
                 Text("A child session cannot fork; I will report it as a follow-up."))
    done = run_claude(dest, f"/refocus {other} --slug nested --reason r", session_id=sid, extra_env=refocus_path)
    assert done.returncode == 0, describe(done)
    assert "Children never fork" in first_request(mock_api)
    refused = bash_results(mock_api)[0]
    assert "Architectural violation: Child sessions cannot fork." in refused and "exit=3" in refused
    assert not (other / "docs").exists()

    before = len(mock_api.turn_requests)
    mock_api.add(Bash("git refocus complete --status completed --summary 'TLS is on by default.' --dod 1 "
                      f"--follow-up '{other}:nested:the work the child could not fork' "
                      "--material-change 'security.md=TLS is on by default' --commit --json"), Text("Completed."))
    done = run_claude(dest, "/refocus-complete completed", resume=sid, extra_env=refocus_path)
    assert done.returncode == 0, describe(done)
    assert COMPLETE_SENTENCE in first_request(mock_api, before), "the /refocus-complete command reached the model"
    shown = refocus("show", rid, "--json", cwd=dest).json
    assert shown["status"] == "result", bash_results(mock_api, before)
    assert "TLS is on by default" in (dest / "docs/context/security.md").read_text()

    mock_api.add(Text("Noted."))
    before = len(mock_api.turn_requests)
    parent = run_claude(src, "Continue.", extra_env=refocus_path)
    assert parent.returncode == 0, describe(parent)
    told = first_request(mock_api, before)
    assert f"{rid} (completed) in {dest.resolve()}:" in told and "TLS is on by default." in told
    assert "the work the child could not fork" in told

    mock_api.add(Text("Nothing new."))
    before = len(mock_api.turn_requests)
    again = run_claude(src, "Anything else?", extra_env=refocus_path)
    assert again.returncode == 0, describe(again)
    assert rid not in first_request(mock_api, before), "a parent is told each result once"


def test_oneshot_runs_the_child_from_bash_and_receives_its_result(
        wired, refocus_path, run_claude, mock_api, claude_bin, claude_home, claude_tmpdir, tmp_path):
    src, dest = wired
    env = client_env(claude_bin, claude_home, mock_api, claude_tmpdir, refocus_path)  # `claude` on PATH
    def pickup_run(body):  # the id the spawn call returned
        spawned = json.loads(tool_result_text(tool_results(body)[0]))
        return Bash(f"git refocus pickup {spawned['id']} --run; echo exit=$?")

    mock_api.add(
        Bash(f"git refocus spawn {dest} --slug one --reason 'A quick job for dest.' --done-when 'Job done' "
             f"--oneshot --json"),
        pickup_run,
        # the child, run by the parent's Bash call, talks to the same mock
        Bash("git refocus complete --summary 'One-shot job done.' --dod 1 "
             "--no-material-changes 'investigation only' --json"),
        Text("CHILD FINISHED"),
        Bash("git refocus receive"),
        Text("Received."),
    )
    done = run_claude(src, f"/refocus {dest} --slug one --reason 'A quick job for dest.' --oneshot",
                      extra_env={"PATH": env["PATH"]})
    assert done.returncode == 0, describe(done)
    assert "--oneshot" in first_request(mock_api) and "git refocus pickup <id> --run" in first_request(mock_api)
    results = bash_results(mock_api)
    rid = json.loads(results[0])["id"]
    assert " -p " in json.loads(results[0])["relaunch_command"]
    child = next(r for r in mock_api.turn_requests if f"child session of refocus {rid}" in json.dumps(r))
    assert "Job done" in json.dumps(child), "the child started with its brief"
    ran = next(r for r in results if "exit=" in r)
    assert "CHILD FINISHED" in ran and "exit=0" in ran, ran
    events = [e["kind"] for e in refocus("show", rid, "--json", cwd=src).json["events"]]
    assert events.count("started") == 1 and "completed" in events and "received" in events, events


def run_stream(claude_bin, env, cwd, messages, session_id):
    """Type MESSAGES into one session, as a user would (`--input-format stream-json`)."""
    args = [str(claude_bin), "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
            "--session-id", session_id, "--allowedTools", "Bash"]
    typed = "".join(json.dumps({"type": "user", "message": {"role": "user", "content": m}}) + "\n" for m in messages)
    process = subprocess.Popen(args, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        stdout, stderr = process.communicate(typed, timeout=180)
    finally:
        e2e._wait_for_group(process.pid, e2e.HOOK_GRACE)
        e2e._kill_group(process.pid)
    return subprocess.CompletedProcess(args, process.returncode, stdout, stderr)


@pytest.mark.parametrize("command", ["/compact", "/clear"])
def test_compact_or_clear_in_the_child_keeps_the_brief_with_one_started_event(
        command, wired, refocus_path, mock_api, claude_bin, claude_home, claude_tmpdir, tmp_path):
    src, dest = wired
    out = spawn(src, dest, refocus_path, slug="kept")
    rid, sid = out["id"], out["child_session_id"]
    other = make_repo(dest.parent / "elsewhere")
    # long enough for both clients to compact (2.1.197 skips /compact after a single exchange)
    tasks = [f"{n}-TASK " + "details " * 800 for n in ("FIRST", "SECOND", "THIRD")]

    def model(body):  # /clear makes no request of its own, /compact one (the summary)
        last = json.dumps(last_user_content(body))
        if tool_results(body):
            return Text("Still a leaf.")
        if "AFTER: carry on" in last:
            return Bash(f"git refocus spawn {other} --slug nested --reason r --done-when d; echo exit=$?")
        if "-TASK" in last:
            return Text("Worked on it. " + "notes " * 800)
        return Text("Summary: worked on the first task.")
    mock_api.add(*[model] * 8)
    env = client_env(claude_bin, claude_home, mock_api, claude_tmpdir, refocus_path)
    done = run_stream(claude_bin, env, dest, [*tasks, command, "AFTER: carry on"], sid)
    assert done.returncode == 0, describe(done)
    after = next(r for r in mock_api.turn_requests if "AFTER: carry on" in json.dumps(r))
    text = json.dumps(after)
    assert "FIRST-TASK" not in text, f"{command} dropped the earlier conversation"
    assert f"child session of refocus {rid}" in text and "MCPSTANDARD.md exists" in text, \
        f"after {command} the next request still carries the brief"
    events = [e["kind"] for e in refocus("show", rid, "--json", cwd=dest).json["events"]]
    assert events.count("started") == 1, events
    refused = bash_results(mock_api)[-1]
    assert "Architectural violation: Child sessions cannot fork." in refused and "exit=3" in refused, \
        f"after {command} the session is still a leaf"
