"""The Claude Code hook handlers, driven like the client drives them: JSON on
stdin, CLAUDE_ENV_FILE, session ids. (tests/e2e drives the real binary.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from tests.claude.hookcall import context, hook
from tests.gitrepo import git, make_repo
from tests.runner import ROOT, loaded_by, refocus


def test_child_is_recognised_started_and_briefed(spawned, tmp_path):
    src, dest, out = spawned
    env_file = tmp_path / "env"
    env_file.write_text("")
    r = hook("session-start", {"session_id": out["child_session_id"], "cwd": str(dest), "source": "startup",
                               "hook_event_name": "SessionStart"}, dest, env={"CLAUDE_ENV_FILE": str(env_file)})
    assert r.returncode == 0
    text = context(r)
    assert f"child session of refocus {out['id']}" in text and "1. MCPSTANDARD.md exists" in text
    assert len(text) < 10_000
    assert env_file.read_text() == f"export SESSION_REFOCUS_ROLE=child\nexport SESSION_REFOCUS_ID={out['id']}\n"
    assert (dest / ".git/refocus/sessions" / out["child_session_id"]).read_text().strip() == out["id"]
    shown = refocus("show", out["id"], "--json", cwd=dest).json
    assert shown["status"] == "in-progress" and shown["state"]["launched_at"]
    # a resume of the same session does not record a second start
    hook("session-start", {"session_id": out["child_session_id"], "cwd": str(dest), "source": "resume"}, dest)
    assert [e["kind"] for e in refocus("show", out["id"], "--json", cwd=dest).json["events"]] == ["spawned", "started"]


def test_hook_does_not_hang_when_stdin_stays_open(spawned):
    src, dest, out = spawned
    t0 = time.monotonic()
    r = hook("session-start", {"session_id": out["child_session_id"], "cwd": str(dest)}, dest, stdin_open=True)
    assert r.returncode == 0 and out["id"] in r.stdout
    assert time.monotonic() - t0 < 8


def test_parent_gets_results_and_receipt_is_recorded(spawned):
    src, dest, out = spawned
    refocus("start", out["id"], cwd=dest)
    refocus("complete", "--summary", "Standard written.", "--follow-up", "../ce:migrate:adopt it",
            "--material-change", "architecture.md=SSH-stdio", cwd=dest)
    r = hook("session-start", {"session_id": "parent-2", "cwd": str(src), "source": "startup"}, src)
    text = context(r)
    assert "came back" in text and "Standard written." in text and "Suggested follow-up" in text
    assert refocus("status", "--json", cwd=src).json["outgoing"]["results_waiting"] == []
    assert hook("session-start", {"session_id": "parent-3", "cwd": str(src)}, src).stdout == "", "silent when nothing to say"


def test_silent_outside_git_and_with_nothing_to_say(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    assert hook("session-start", {"session_id": "s", "cwd": str(plain)}, plain).stdout == ""
    repo = make_repo(tmp_path / "repo")
    r = hook("session-start", {"session_id": "s", "cwd": str(repo)}, repo)
    assert r.returncode == 0 and r.stdout == ""


def test_advisories_pending_and_quiet_children(spawned):
    src, dest, out = spawned
    r = hook("session-start", {"session_id": "someone-else", "cwd": str(dest)}, dest)
    assert f"claude --session-id {out['child_session_id']}" in context(r)
    refocus("start", out["id"], "--session-id", out["child_session_id"], cwd=dest)
    hook("session-end", {"session_id": out["child_session_id"], "cwd": str(dest), "reason": "exit"}, dest)
    r = hook("session-start", {"session_id": "someone-else", "cwd": str(dest)}, dest)
    text = context(r)
    assert "has not completed (its session ended)" in text and f"claude --resume {out['child_session_id']}" in text


def test_economy_budget_drops_advisories(spawned):
    src, dest, out = spawned
    git(dest, "config", "refocus.budget", "economy")
    r = hook("session-start", {"session_id": "someone-else", "cwd": str(dest)}, dest)
    assert r.stdout == ""


def test_session_end_records_event_and_warns(spawned):
    src, dest, out = spawned
    refocus("start", out["id"], "--session-id", out["child_session_id"], cwd=dest)
    git(dest, "config", "refocus.contextSaveCommand", "echo saved > saved.txt")
    r = hook("session-end", {"session_id": out["child_session_id"], "cwd": str(dest), "reason": "prompt_input_exit"}, dest)
    assert r.returncode == 0 and "without `git refocus complete`" in r.stderr
    kinds = [e["kind"] for e in refocus("show", out["id"], "--json", cwd=dest).json["events"]]
    assert kinds[-1] == "session-ended"
    for _ in range(50):
        if (dest / "saved.txt").exists():
            break
        time.sleep(0.1)
    assert (dest / "saved.txt").read_text().strip() == "saved"


def test_post_tool_use_suggests_files_and_complete_keeps_them(spawned):
    src, dest, out = spawned
    sid = out["child_session_id"]
    refocus("start", out["id"], "--session-id", sid, cwd=dest)
    for payload in (
        {"tool_name": "Write", "tool_input": {"file_path": str(dest / "MCPSTANDARD.md")}},
        {"tool_name": "Edit", "tool_input": {"file_path": "docs/notes.md"}},
        {"tool_name": "Bash", "tool_input": {"command": "git add src/a.py src/b.py && git commit -m x"}},
        {"tool_name": "Write", "tool_input": {"file_path": "/etc/passwd"}},
        {"tool_name": "Read", "tool_input": {"file_path": "README.md"}},
    ):
        r = hook("post-tool-use", {"session_id": sid, "cwd": str(dest), **payload}, dest)
        assert r.returncode == 0 and r.stdout == ""
    r = refocus("complete", "--summary", "x", "--artifact", "MCPSTANDARD.md=std", "--no-material-changes", "n/a",
                "--json", cwd=dest, env={"CLAUDE_CODE_SESSION_ID": sid})
    assert sorted(r.json["suggested_files"]) == ["docs/notes.md", "src/a.py", "src/b.py"]
    brief = (dest / "docs/refocus" / f"{out['id']}.md").read_text()
    assert "suggested_files:\n  - MCPSTANDARD.md\n  - docs/notes.md\n  - src/a.py\n  - src/b.py\n" in brief


def test_hook_failure_is_logged_and_exits_zero(spawned):
    src, dest, out = spawned
    brief = dest / "docs/refocus" / f"{out['id']}.md"
    brief.write_bytes(b"---\nid: [broken\n---\n")
    r = hook("session-start", {"session_id": out["child_session_id"], "cwd": str(dest)}, dest)
    assert r.returncode == 0 and r.stderr.startswith("git refocus hook session-start:") and r.stderr.count("\n") == 1
    log = (dest / ".git/refocus/errors.jsonl").read_text().splitlines()
    assert json.loads(log[-1])["where"] == "hook session-start"


def test_stop_is_a_silent_no_op(tmp_path):
    repo = make_repo(tmp_path / "r")
    r = hook("stop", {"session_id": "s", "cwd": str(repo), "stop_hook_active": False}, repo)
    assert r.returncode == 0 and r.stdout == "" and r.stderr == ""


def test_claude_settings_merge_is_idempotent_and_keeps_other_hooks(tmp_path):
    from gitrefocus.claude import settings

    repo = make_repo(tmp_path / "r")
    (repo / ".claude").mkdir()
    other = {"permissions": {"allow": ["Bash(ls)"]},
             "hooks": {"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}]}}
    (repo / ".claude/settings.json").write_text(json.dumps(other))
    assert settings.install(str(repo)) == [str(repo / ".claude/settings.json")]
    assert settings.install(str(repo)) == []
    data = json.loads((repo / ".claude/settings.json").read_text())
    assert data["permissions"] == other["permissions"]
    commands = [h["command"] for e in data["hooks"]["SessionStart"] for h in e["hooks"]]
    assert commands == ["echo hi", "git refocus hook session-start"]
    assert set(data["hooks"]) == {"SessionStart", "SessionEnd", "PostToolUse", "Stop"}
    shipped = json.loads((ROOT / "hooks/settings.json").read_text())
    assert shipped == settings.snippet(), "hooks/settings.json is the snippet for manual wiring"


def test_save_transcript_scrubs_and_marks_lfs(spawned, hermetic):
    src, dest, out = spawned
    sid = out["child_session_id"]
    from gitrefocus.store.transcripts import encode_project_dir

    refocus("start", out["id"], "--session-id", sid, cwd=dest)
    child = {"CLAUDE_CODE_SESSION_ID": sid}
    r = refocus("complete", "--summary", "x", "--no-material-changes", "n/a", "--save-transcript", cwd=dest, env=child,
                check=False)
    assert r.returncode == 1 and "no transcript" in r.stderr
    assert refocus("show", out["id"], "--json", cwd=dest).json["status"] == "in-progress", "nothing recorded"
    project = hermetic / ".claude/projects" / encode_project_dir(str(dest.resolve()))
    project.mkdir(parents=True)
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    line = json.dumps({"type": "user", "message": {"role": "user", "content": f"export GITHUB_TOKEN={secret} please"}})
    (project / f"{sid}.jsonl").write_text(line + "\n")
    done = refocus("complete", "--summary", "x", "--no-material-changes", "n/a", "--save-transcript", "--json", cwd=dest,
                   env=child).json
    saved = (dest / "docs/refocus/transcripts" / f"{out['id']}.jsonl").read_text()
    assert secret not in saved and json.loads(saved.splitlines()[0])["type"] == "user"
    assert done["redactions"] and secret not in json.dumps(done["redactions"])
    assert "filter=lfs" in (dest / ".gitattributes").read_text()
    import shutil

    no_lfs = [w for w in done["warnings"] if "git-lfs is not installed" in w]
    assert bool(no_lfs) == (shutil.which("git-lfs") is None), "no LFS promise without git-lfs"
    assert "transcript_saved: true" in (dest / "docs/refocus" / f"{out['id']}.md").read_text()


@pytest.mark.parametrize("session_end", ["ran", "killed after its first write", "never ran"])
def test_an_unfinished_child_is_reported_whether_or_not_session_end_ran(spawned, session_end):
    """SessionEnd is unreliable (killed past its 1.5 s, never run after `claude -p`): the next
    SessionStart and `status` give the same answer through the lazy check."""
    src, dest, out = spawned
    rid, sid = out["id"], out["child_session_id"]
    hook("session-start", {"session_id": sid, "cwd": str(dest), "source": "startup"}, dest)  # the child starts
    assert refocus("show", rid, "--json", cwd=dest).json["status"] == "in-progress"
    if session_end != "never ran":
        kill = {"GIT_REFOCUS_KILL_AFTER_WRITES": "1"} if session_end.startswith("killed") else {}
        subprocess.run([sys.executable, "-m", "gitrefocus", "hook", "session-end"], cwd=dest,
                       input=json.dumps({"session_id": sid, "cwd": str(dest), "reason": "exit"}), text=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT), **kill}, capture_output=True, timeout=60)
    git(dest, "config", "refocus.quietHours", "0")  # the child's exit is the last thing that happened
    told = context(hook("session-start", {"session_id": "next", "cwd": str(dest), "source": "startup"}, dest))
    assert f"Refocus {rid} is in progress but its child session {sid} has not completed" in told
    assert f"claude --resume {sid}" in told
    row, = refocus("status", "--json", cwd=dest).json["incoming"]["in_progress"]
    assert row["id"] == rid and row["quiet"] is True, row
    assert f"{rid}  launched" in (text := refocus("status", cwd=dest).stdout) and "may have exited without complete" in text


def test_the_post_tool_use_hook_loads_nothing_it_does_not_use():
    """Run after every tool call: what it loads is most of its time, so none of the
    command line (click, rich), libgit2, yaml, or dataclasses and inspect."""
    loaded = loaded_by("gitrefocus.claude.dispatch", "gitrefocus.claude.hookio", "gitrefocus.claude.post_tool_use")
    assert loaded == [], f"the post-tool-use hook loaded {loaded}"
