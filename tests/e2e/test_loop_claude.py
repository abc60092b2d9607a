"""Loops with the real Claude Code client: the Stop hook keeps a session working
(docs/delivery.md, "Loops and the client's cap").

Every scripted turn the mock plays is one model response; each response that
ends without a tool call makes the client run its Stop hook, so the number of
turns the mock served is the number of iterations the loop allowed.
"""

from __future__ import annotations

import json
import threading
import uuid

import pytest

from tests.e2e.claude_mock import Bash, Text, describe, last_user_content
from tests.e2e.conftest import spawn
from tests.gitrepo import git, make_repo
from tests.runner import refocus

pytestmark = pytest.mark.claude

PROMPT = "Keep fixing the failing tests."


@pytest.fixture
def repo(tmp_path, refocus_path):
    """One repository with the Claude Code hooks (Stop included) wired by `init --claude`."""
    path = make_repo(tmp_path / "work")
    refocus("init", "--claude", cwd=path, env=refocus_path)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "wire git refocus")
    return path


def start_loop(max_iterations: int, promise: str = "ALL GREEN") -> Bash:
    return Bash(f"git refocus loop start --promise '{promise}' --max-iterations {max_iterations} --prompt '{PROMPT}'")


def fed_back(requests: list[dict]) -> int:
    """How many requests carried the loop prompt as the newest user input (one per blocked stop)."""
    return sum(PROMPT in json.dumps(last_user_content(r)) for r in requests)


def loops_of(repo) -> list[dict]:
    return refocus("loop", "list", "--json", cwd=repo).json["loops"]


def test_promise_on_the_third_turn_stops_after_exactly_three_iterations(repo, refocus_path, run_claude, mock_api):
    mock_api.add(start_loop(5), Text("First pass: two tests still fail."), Text("Second pass: one test fails."),
                 Text("Third pass: everything passes.\n<promise>ALL GREEN</promise>"))
    done = run_claude(repo, "Fix the tests.", extra_env=refocus_path)
    assert done.returncode == 0, describe(done)
    assert mock_api.errors == [], "the client asked for more turns than the loop should allow"
    assert len(mock_api.turn_requests) == 4, "loop start + three iterations"
    assert fed_back(mock_api.turn_requests) == 2, "the prompt went back after the first and second stop only"
    [loop] = loops_of(repo)
    assert (loop["status"], loop["iteration"], loop["ended"]) == ("done", 3, "promise")
    assert loop["session_id"] == done.session_id


def test_a_promise_never_printed_stops_at_max_iterations(repo, refocus_path, run_claude, mock_api):
    mock_api.add(start_loop(3), Text("Attempt one."), Text("Attempt two."), Text("Attempt three."),
                 Text("an extra turn the loop must not ask for"))
    done = run_claude(repo, "Fix the tests.", extra_env=refocus_path)
    assert done.returncode == 0, describe(done)
    assert len(mock_api.turn_requests) == 4, "loop start + exactly max-iterations (3) responses"
    assert len(mock_api.script) == 1, "the fourth iteration was never requested"
    [loop] = loops_of(repo)
    assert (loop["status"], loop["iteration"], loop["ended"]) == ("done", 3, "max-iterations")


def test_a_second_session_started_meanwhile_is_not_captured(repo, refocus_path, run_claude, mock_api):
    a_waiting, b_done = threading.Event(), threading.Event()

    def a_second_turn(body):  # session A holds its turn open until B has run to its end
        a_waiting.set()
        assert b_done.wait(90), "session B did not finish"
        return Text("A: first pass done.")

    mock_api.add(start_loop(5), a_second_turn, Text("B: a quick answer."), Text("A: second pass."),
                 Text("A: done.\n<promise>ALL GREEN</promise>"))
    sid_a, results = str(uuid.uuid4()), {}
    thread = threading.Thread(target=lambda: results.setdefault("a", run_claude(
        repo, "Fix the tests.", session_id=sid_a, extra_env=refocus_path)))
    thread.start()
    try:
        assert a_waiting.wait(90), "session A never reached its second turn"
        before = len(mock_api.turn_requests)
        b = run_claude(repo, "Unrelated question.", extra_env=refocus_path)
        assert b.returncode == 0, describe(b)
        assert len(mock_api.turn_requests) == before + 1, "session B's stop went through after one turn"
        mid = [x for x in loops_of(repo) if x["status"] == "active"]
        assert [(x["session_id"], x["iteration"]) for x in mid] == [(sid_a, 0)], "B's stop did not touch A's loop"
    finally:
        b_done.set()
        thread.join(150)
    assert results["a"].returncode == 0, describe(results["a"])
    assert mock_api.errors == []
    [loop] = loops_of(repo)
    assert (loop["session_id"], loop["status"], loop["iteration"]) == (sid_a, "done", 3)


def test_cancel_lets_the_next_stop_through(repo, refocus_path, run_claude, mock_api):
    mock_api.add(start_loop(5), Text("One pass."), Bash("git refocus loop cancel"), Text("Stopping here."),
                 Text("an extra turn the loop must not ask for"))
    done = run_claude(repo, "Fix the tests.", extra_env=refocus_path)
    assert done.returncode == 0, describe(done)
    assert len(mock_api.turn_requests) == 4 and len(mock_api.script) == 1
    assert fed_back(mock_api.turn_requests) == 1
    [loop] = loops_of(repo)
    assert (loop["status"], loop["iteration"], loop["ended"]) == ("cancelled", 1, "cancelled")


def test_a_childs_loop_is_tied_to_its_refocus_and_ends_with_complete(wired, refocus_path, run_claude, mock_api):
    src, dest = wired
    out = spawn(src, dest, refocus_path, slug="looped")
    rid, sid = out["id"], out["child_session_id"]
    mock_api.add(start_loop(5), Text("Working on the standard."),
                 Bash("git refocus complete --summary 'Done.' --dod 1 --no-material-changes 'investigation only'"),
                 Text("Completed the refocus."), Text("an extra turn the loop must not ask for"))
    done = run_claude(dest, "Work on the brief.", session_id=sid, extra_env=refocus_path)
    assert done.returncode == 0, describe(done)
    assert len(mock_api.turn_requests) == 4, "after complete the next stop went through"
    [loop] = loops_of(dest)
    assert loop["refocus_id"] == rid and loop["status"] == "done" and loop["ended"] == "refocus result"
    events = refocus("show", rid, "--json", cwd=dest).json["events"]
    loop_events = [e for e in events if e["kind"] == "loop"]
    actions = [e["data"]["action"] for e in loop_events]
    assert actions[:2] == ["started", "iteration"], actions
    assert loop_events[1]["data"]["outcome"] == "continue"
