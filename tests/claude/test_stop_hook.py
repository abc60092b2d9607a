"""The Stop hook: loops per session, stop_hook_active, damaged state, refocus ties.
(tests/e2e/test_loop_claude.py drives the same hook through the real client.)"""

from __future__ import annotations

import json

import pytest

from tests.claude.hookcall import hook
from tests.gitrepo import make_repo
from tests.runner import refocus

SID, OTHER = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"


@pytest.fixture
def repo(tmp_path):
    return make_repo(tmp_path / "work")


def start(repo, *extra, session=SID):
    return refocus("loop", "start", "--promise", "DONE", "--session", session, *extra, "--json", cwd=repo).json["loop"]


def stop(repo, message, session=SID, active=False):
    r = hook("stop", {"session_id": session, "cwd": str(repo), "hook_event_name": "Stop",
                      "stop_hook_active": active, "last_assistant_message": message}, repo)
    assert r.returncode == 0, r
    return json.loads(r.stdout) if r.stdout.strip() else None


def loops(repo):
    return {x["id"]: x for x in refocus("loop", "list", "--json", cwd=repo).json["loops"]}


def test_blocks_with_the_prompt_until_the_promise(repo):
    loop = start(repo, "--max-iterations", "5", "--prompt", "Run the tests again.")
    first = stop(repo, "still red")
    assert first["decision"] == "block" and first["reason"].startswith("Run the tests again.")
    assert "<promise>DONE</promise>" in first["reason"] and "iteration 2 of 5" in first["reason"]
    assert stop(repo, "green now\n<promise>DONE</promise>", active=True) is None
    got = loops(repo)[loop["id"]]
    assert (got["status"], got["iteration"], got["ended"], got["foreground"]) == ("done", 2, "promise", False)
    assert stop(repo, "anything") is None, "a finished loop never blocks again"


def test_loop_list_numbers_the_iteration_as_the_hook_tells_it(repo):
    loop = start(repo, "--max-iterations", "5")
    assert f"{loop['id']}" in refocus("loop", "list", cwd=repo).stdout
    row = lambda: next(ln for ln in refocus("loop", "list", cwd=repo).stdout.splitlines() if loop["id"] in ln)  # noqa: E731
    assert " 1/5 " in row(), "the first iteration is under way"
    first = stop(repo, "still red")
    assert "iteration 2 of 5" in first["reason"]
    assert " 2/5 " in row(), row()
    assert "iteration 3 of 5" in stop(repo, "still red, another way", active=True)["reason"]
    assert " 3/5 " in row(), row()
    refocus("loop", "cancel", cwd=repo, env={"CLAUDE_CODE_SESSION_ID": SID})
    assert " 2/5 " in row(), "a loop that ended shows the iterations that ran"


@pytest.mark.parametrize("message,met", [
    ("<promise>DONE</promise>", True), ("all good\n  DONE  \n", True), ("<promise> DONE\n</promise>", True),
    ("I am not DONE yet", False), ("<promise>NOT DONE</promise>", False), ("", False),
])
def test_what_counts_as_the_promise(repo, message, met):
    start(repo, "--max-iterations", "5")
    assert (stop(repo, message) is None) is met


def test_max_iterations_lets_the_last_stop_through(repo):
    start(repo, "--max-iterations", "2")
    assert stop(repo, "one")["decision"] == "block"
    assert stop(repo, "two", active=True) is None
    [got] = loops(repo).values()
    assert (got["status"], got["iteration"], got["ended"]) == ("done", 2, "max-iterations")


def test_another_session_in_the_same_repo_is_never_captured(repo):
    loop = start(repo, "--max-iterations", "5")
    assert stop(repo, "other session's answer", session=OTHER) is None
    assert stop(repo, "no payload session", session="") is None
    assert loops(repo)[loop["id"]]["iteration"] == 0
    assert not (repo / ".git/refocus/loops" / f"{OTHER}.json").exists()


def test_stop_hook_active_with_the_same_answer_pauses_instead_of_looping(repo):
    loop = start(repo, "--max-iterations", "5")
    assert stop(repo, "same words")["decision"] == "block"
    assert stop(repo, "same words", active=True) is None, "blocking again would loop on our own output"
    got = loops(repo)[loop["id"]]
    assert (got["status"], got["ended"]) == ("paused", "same answer twice")
    refocus("loop", "resume", "--session", SID, cwd=repo)
    assert stop(repo, "same words")["decision"] == "block", "resume clears the memory of the last answer"


def test_a_loop_longer_than_the_clients_cap_warns_and_pauses_before_the_block_it_would_override(repo):
    """Claude Code honours 8 Stop-hook blocks in a row and then ends the turn itself: the loop
    pauses at the stop where its block would be overridden, instead of staying active and
    capturing the session's next, unrelated prompt."""
    r = refocus("loop", "start", "--promise", "DONE", "--session", SID, "--max-iterations", "12", cwd=repo)
    assert "Claude Code ends a turn after 8 blocked stops in a row" in r.stderr and "after 9 iterations" in r.stderr
    assert stop(repo, "pass 1")["decision"] == "block"
    for n in range(2, 9):
        assert stop(repo, f"pass {n}", active=True)["decision"] == "block", n
    assert stop(repo, "pass 9", active=True) is None, "a ninth block would be overridden by the client"
    [got] = loops(repo).values()
    assert (got["status"], got["iteration"], got["ended"]) == ("paused", 9, "client's limit of blocks in a row")
    assert stop(repo, "an answer to the next, unrelated prompt") is None, "the next prompt is not captured"
    quiet = refocus("loop", "start", "--promise", "DONE", "--session", OTHER, "--max-iterations", "9", cwd=repo)
    assert "blocked stops" not in quiet.stderr
    wide = refocus("loop", "start", "--promise", "DONE", "--session", OTHER, "--max-iterations", "40", cwd=repo,
                   env={"CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": "50"})
    assert "blocked stops" not in wide.stderr, "the client's cap is read where it was raised"


def test_a_turn_the_client_ended_after_a_block_pauses_the_loop(repo):
    loop = start(repo, "--max-iterations", "5")
    assert stop(repo, "first pass")["decision"] == "block"
    assert stop(repo, "an answer to something the user asked after interrupting") is None
    got = loops(repo)[loop["id"]]
    assert (got["status"], got["ended"], got["iteration"]) == ("paused", "turn ended by the client", 1)
    refocus("loop", "resume", "--session", SID, cwd=repo)
    assert stop(repo, "carry on")["decision"] == "block", "resumed, it drives the next turn"


def test_pause_resume_cancel_and_a_second_loop(repo):
    first = start(repo, "--max-iterations", "5")
    refocus("loop", "pause", "--session", SID, cwd=repo)
    assert stop(repo, "x") is None
    refocus("loop", "resume", first["id"][:4], cwd=repo)
    assert stop(repo, "x")["decision"] == "block"
    second = start(repo, "--max-iterations", "9")
    got = loops(repo)
    assert got[first["id"]]["status"] == "paused" and got[second["id"]]["foreground"]
    assert "of 9" in stop(repo, "y")["reason"]
    refocus("loop", "cancel", "--session", SID, cwd=repo)
    assert stop(repo, "z") is None
    r = refocus("loop", "resume", second["id"], cwd=repo, check=False)
    assert r.returncode == 1 and "cancelled" in r.stderr


def test_a_damaged_loop_file_lets_the_stop_through_and_is_logged(repo):
    start(repo, "--max-iterations", "5")
    (repo / ".git/refocus/loops" / f"{SID}.json").write_text('{"schema": 1, "session_id": "someone else"}')
    assert stop(repo, "x") is None
    assert "loop state" in (repo / ".git/refocus/errors.jsonl").read_text()
    r = refocus("loop", "list", cwd=repo)
    assert "unreadable" in r.stderr


def test_a_symlinked_loops_directory_is_refused(repo, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (repo / ".git/refocus").mkdir(parents=True)
    (repo / ".git/refocus/loops").symlink_to(outside)
    r = refocus("loop", "start", "--promise", "P", "--max-iterations", "2", "--session", SID, cwd=repo, check=False)
    assert r.returncode == 1 and "symlink" in r.stderr
    assert list(outside.iterdir()) == []


def test_start_needs_a_session_and_sane_values(repo, tmp_path):
    r = refocus("loop", "start", "--promise", "P", "--max-iterations", "2", cwd=repo, check=False)
    assert r.returncode == 1 and "CLAUDE_CODE_SESSION_ID" in r.stderr
    r = refocus("loop", "start", "--promise", "P", "--max-iterations", "0", "--session", SID, cwd=repo, check=False)
    assert r.returncode == 2
    r = refocus("loop", "start", "--promise", "P", "--max-iterations", "2", "--session", "../x", cwd=repo, check=False)
    assert r.returncode == 1 and "unsafe" in r.stderr
    (tmp_path / "p.txt").write_bytes(b"\xff\xfe")
    r = refocus("loop", "start", "--promise", "P", "--max-iterations", "2", "--session", SID,
                "--prompt-file", tmp_path / "p.txt", cwd=repo, check=False)
    assert r.returncode == 1 and "UTF-8" in r.stderr
    (tmp_path / "p.txt").write_text("Prompt from a file.\n")
    loop = start(repo, "--max-iterations", "2", "--prompt-file", str(tmp_path / "p.txt"))
    assert loop["prompt"] == "Prompt from a file."


def test_a_loop_in_a_child_is_tied_to_its_refocus(started):
    src, dest, rid = started
    env = {"SESSION_REFOCUS_ID": rid}
    loop = refocus("loop", "start", "--promise", "DONE", "--max-iterations", "4", "--session", SID, "--json",
                   cwd=dest, env=env).json["loop"]
    assert loop["refocus_id"] == rid
    assert stop(dest, "working")["decision"] == "block"
    refocus("complete", rid, "--summary", "s", "--no-material-changes", "n/a", cwd=dest)
    assert loops(dest)[loop["id"]]["ended"] == "refocus result"
    assert stop(dest, "after complete") is None
    kinds = [(e["kind"], e["data"].get("action")) for e in refocus("show", rid, "--json", cwd=dest).json["events"]]
    assert ("loop", "started") in kinds and ("loop", "iteration") in kinds
    assert kinds.index(("loop", "iteration")) < kinds.index(("completed", None))


def test_a_loop_whose_refocus_was_abandoned_ends_at_the_next_stop(started):
    src, dest, rid = started
    refocus("loop", "start", "--promise", "DONE", "--max-iterations", "4", "--session", SID, cwd=dest,
            env={"SESSION_REFOCUS_ID": rid})
    refocus("abandon", rid, "--reason", "not needed", cwd=dest)
    assert stop(dest, "working") is None
    [got] = loops(dest).values()
    assert (got["status"], got["ended"]) == ("done", "refocus abandoned")


def test_activate_switches_the_foreground_loop(repo):
    first = start(repo, "--max-iterations", "5", "--prompt", "first prompt")
    second = start(repo, "--max-iterations", "5", "--prompt", "second prompt")
    assert stop(repo, "a")["reason"].startswith("second prompt")
    refocus("loop", "activate", first["id"], cwd=repo)
    got = loops(repo)
    assert (got[first["id"]]["status"], got[first["id"]]["foreground"]) == ("active", True)
    assert got[second["id"]]["status"] == "paused"
    assert stop(repo, "b")["reason"].startswith("first prompt")
    text = refocus("loop", "list", cwd=repo).stdout
    assert f"{first['id']}*" in text and "paused" in text


def test_the_hook_module_stays_light():
    from tests.runner import loaded_by

    loaded = loaded_by("gitrefocus.claude.stop")
    assert loaded == [], f"the Stop hook, run on every stop, loaded {loaded}"


def test_concurrent_loop_starts_in_one_session_lose_no_loop(repo):
    """16 `loop start` at once in one session: every loop reported started is in the file
    (the loop file is replaced by compare-and-swap, not by the last writer)."""
    import subprocess
    import sys

    from tests.runner import source_env

    procs = [subprocess.Popen([sys.executable, "-m", "gitrefocus", "loop", "start", "--promise", f"DONE {n}",
                               "--session", SID, "--max-iterations", "3", "--json"], cwd=str(repo),
                              env=source_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for n in range(16)]
    started = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode in (0, 4), err
        if proc.returncode == 0:
            started.append(json.loads(out)["loop"]["id"])
        else:
            assert len([ln for ln in err.splitlines() if ln.strip()]) == 1, err
    held = loops(repo)
    assert started and set(started) <= set(held), f"{len(set(started) - set(held))} started loops vanished"
    assert sum(1 for x in held.values() if x["foreground"]) == 1
