"""git refocus with the real Claude Code client (docs/delivery.md).

The client runs against the loopback mock; the mock plays the model (scripted
Bash tool calls) and records what the model was sent, so these tests assert on
what really reached the model and what really landed in git.
"""

from __future__ import annotations

import json

import pytest

from tests.e2e.claude_mock import Bash, Text, describe, tool_result_text, tool_results
from tests.e2e.conftest import shim_calls, spawn
from tests.gitrepo import git, make_repo
from tests.runner import refocus

pytestmark = pytest.mark.claude


def test_child_recognised_tags_commits_cannot_fork_and_completes(wired, refocus_path, run_claude, mock_api, transcript,
                                                                 tmp_path):
    src, dest = wired
    out = spawn(src, dest, refocus_path)
    rid, sid = out["id"], out["child_session_id"]
    other = make_repo(dest.parent / "elsewhere")
    mock_api.add(
        Bash("echo \"$SESSION_REFOCUS_ROLE $SESSION_REFOCUS_ID\""),
        Bash("printf '# MCP standard\\n' > MCPSTANDARD.md && git add MCPSTANDARD.md && git commit -q -m 'Write the MCP standard'"
             " && git log -1 --format=%B"),
        Bash(f"git refocus spawn {other} --slug nested --reason r --done-when d; echo exit=$?"),
        Bash("git refocus complete --summary 'Wrote MCPSTANDARD.md.' --dod 1 --artifact MCPSTANDARD.md=the-standard "
             "--material-change architecture.md='MCP servers speak SSH-stdio'"),
        Text("Done."),
    )
    done = run_claude(dest, "Work on the brief.", session_id=sid, extra_env=refocus_path)
    assert done.returncode == 0, describe(done)
    calls = shim_calls(tmp_path)
    assert "hook session-start" in calls and any(c.startswith("complete ") for c in calls), \
        f"the client's hooks and Bash commands must run this source tree's git refocus (shim calls: {calls})"

    # the brief reached the model through the SessionStart hook
    first = json.dumps(mock_api.turn_requests[0])
    assert f"child session of refocus {rid}" in first and "MCPSTANDARD.md exists" in first
    assert "Transport is SSH-stdio via a dispatcher" in first
    results = [tool_result_text(r) for req in mock_api.turn_requests[1:] for r in tool_results(req)]
    assert results[0].strip() == f"child {rid}", "CLAUDE_ENV_FILE exports reached the Bash tool"
    # the agent's own commit carries the trailer
    assert f"Refocus-Id: {rid}" in results[1]
    msg = git(dest, "log", "-1", "--format=%B", "HEAD~1" if "refocus(" in git(dest, "log", "-1", "--format=%s") else "HEAD")
    parsed = git(dest, "interpret-trailers", "--parse", input=msg)
    assert parsed.strip() == f"Refocus-Id: {rid}"
    # a child cannot fork
    assert "Architectural violation: Child sessions cannot fork." in results[2] and "exit=3" in results[2]
    assert not (other / "docs").exists()
    # the agent completed; the source's copy shows the result waiting
    shown = refocus("show", rid, "--json", cwd=dest).json
    assert shown["status"] == "result"
    assert [e["kind"] for e in shown["events"]][:3] == ["spawned", "started", "completed"]
    assert "MCP servers speak SSH-stdio" in (dest / "docs/context/architecture.md").read_text()
    assert transcript(sid).exists()

    # the parent's next session is told the result
    mock_api.add(Text("Noted."))
    before = len(mock_api.turn_requests)
    parent = run_claude(src, "Continue.", extra_env=refocus_path)
    assert parent.returncode == 0, describe(parent)
    told = json.dumps(mock_api.turn_requests[before])
    assert f"{rid} (completed) in {dest.resolve()}:" in told and "Wrote MCPSTANDARD.md." in told
    assert refocus("status", "--json", cwd=src).json["outgoing"]["results_waiting"] == []


def test_child_exiting_without_complete_is_reported_next_time(wired, refocus_path, run_claude, mock_api):
    src, dest = wired
    out = spawn(src, dest, refocus_path, slug="unfinished")
    rid, sid = out["id"], out["child_session_id"]
    mock_api.add(Text("I will stop here without completing."))
    done = run_claude(dest, "Start.", session_id=sid, extra_env=refocus_path)
    assert done.returncode == 0, describe(done)
    assert refocus("show", rid, "--json", cwd=dest).json["status"] == "in-progress"

    git(dest, "config", "refocus.quietHours", "0")  # SessionEnd is unreliable: the lazy check must also catch it
    mock_api.add(Text("ok"))
    before = len(mock_api.turn_requests)
    again = run_claude(dest, "Another task.", extra_env=refocus_path)
    assert again.returncode == 0, describe(again)
    told = json.dumps(mock_api.turn_requests[before])
    assert f"Refocus {rid} is in progress but its child session {sid} has not completed" in told
    assert f"claude --resume {sid}" in told


def test_relaunch_command_from_spawn_starts_the_child(wired, refocus_path, run_claude, mock_api, tmp_path):
    """The printed relaunch command is what the user runs; --session-id must work verbatim."""
    src, dest = wired
    out = spawn(src, dest, refocus_path, slug="verbatim")
    cmd = out["relaunch_command"]
    assert cmd.startswith("cd ") and cmd.endswith(f"claude --session-id {out['child_session_id']}")
    mock_api.add(Text("hello"))
    done = run_claude(dest, "hi", session_id=cmd.split()[-1], extra_env=refocus_path)
    assert done.returncode == 0, describe(done)
    assert refocus("show", out["id"], "--json", cwd=dest).json["status"] == "in-progress"
    assert "hook session-start" in shim_calls(tmp_path), "the SessionStart hook ran this source tree's git refocus"
