"""Codex CLI and Gemini CLI through git refocus's own commands and hooks (docs/agents.md).

What the real clients do is checked in tests/e2e/test_agent_contracts.py and the round trips in
tests/e2e/test_cross_agent.py; these tests hold what git refocus does with each agent's hook
payloads, launch variables and configuration files, fast and without the clients.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib

import pytest

from tests.gitrepo import git
from tests.runner import ROOT, refocus, source_env, spawn_args


def hook(event: str, payload: dict, cwd, *, agent: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gitrefocus", "hook", event, "--agent", agent],
                          input=json.dumps(payload), cwd=str(cwd), env=source_env(env), capture_output=True,
                          text=True, timeout=60)


def spawned_for(agent: str, src, dest, *extra: str) -> dict:
    return refocus(*spawn_args(dest, "parser", "--agent", agent, *extra), cwd=src).json


def kinds(repo, rid: str) -> list[str]:
    return git(repo, "log", "--reverse", "--format=%s", f"refs/refocus/{rid}").splitlines()


# -- spawn ------------------------------------------------------------------------------------
def test_spawn_for_codex_names_the_agent_in_the_brief_notes_and_launch_command(wired):
    src, dest = wired
    out = spawned_for("codex", src, dest)
    rid = out["id"]
    brief = (dest / "docs" / "refocus" / f"{rid}.md").read_text()
    assert "child_agent: codex" in brief and "source_agent" not in brief
    assert f"GIT_REFOCUS_CHILD={rid} codex -s workspace-write" in out["relaunch_command"]
    assert str(dest / ".git") in out["relaunch_command"] and str(src / ".git") in out["relaunch_command"]
    assert "child-agent=codex" in git(src, "log", "--notes=refocus", "-1", "--format=%N")
    assert "The child runs in codex" in brief


def test_spawn_defaults_to_the_agent_it_runs_in_else_refocus_agent_else_claude(wired):
    src, dest = wired
    inside_codex = refocus(*spawn_args(dest, "one"), cwd=src, env={"CODEX_SESSION_ID": "c0ffee"}).json
    assert "codex " in inside_codex["relaunch_command"]
    brief = (dest / "docs" / "refocus" / f"{inside_codex['id']}.md").read_text()
    assert "child_agent: codex" in brief and "source_agent: codex" in brief
    git(src, "config", "refocus.agent", "gemini")
    assert "gemini --session-id" in refocus(*spawn_args(dest, "two"), cwd=src).json["relaunch_command"]
    git(src, "config", "refocus.agent", "vim")
    bad = refocus(*spawn_args(dest, "three"), cwd=src, check=False)
    assert bad.returncode != 0 and "refocus.agent is 'vim'" in bad.stderr and "Traceback" not in bad.stderr
    git(src, "config", "--unset", "refocus.agent")
    plain = refocus(*spawn_args(dest, "four"), cwd=src).json
    assert " && claude --session-id " in plain["relaunch_command"]
    assert "child_agent" not in (dest / "docs" / "refocus" / f"{plain['id']}.md").read_text()


def test_a_child_launched_for_a_refocus_cannot_spawn(wired):
    src, dest = wired
    rid = spawned_for("codex", src, dest)["id"]
    out = refocus(*spawn_args(src, "nested"), cwd=dest, env={"GIT_REFOCUS_CHILD": rid}, check=False)
    assert out.returncode == 3 and f"GIT_REFOCUS_CHILD={rid}" in out.stderr


# -- the session-start hook -------------------------------------------------------------------
def test_a_codex_session_launched_for_the_refocus_becomes_its_child_and_gets_the_brief(wired):
    src, dest = wired
    rid = spawned_for("codex", src, dest)["id"]
    payload = {"session_id": "codex-session-1", "cwd": str(dest), "source": "startup",
               "hook_event_name": "SessionStart"}
    stranger = hook("session-start", payload, dest, agent="codex")
    assert f"child session of refocus {rid}" not in stranger.stdout, "no launch variable: not the child"
    told = hook("session-start", payload, dest, agent="codex", env={"GIT_REFOCUS_CHILD": rid})
    context = json.loads(told.stdout)["hookSpecificOutput"]["additionalContext"]
    assert f"child session of refocus {rid}" in context
    assert kinds(dest, rid)[-1].endswith("started")
    assert f"refocus {rid} started" in git(dest, "log", "--notes=refocus", "-1", "--format=%N")
    assert "agent=codex" in git(dest, "log", "--notes=refocus", "-1", "--format=%N")
    # its shell commands name the session: the commit-msg hook tags their commits
    git(dest, "commit", "-q", "--allow-empty", "-m", "work", env={**os.environ, "CODEX_SESSION_ID": "codex-session-1"})
    assert f"Refocus-Id: {rid}" in git(dest, "log", "-1", "--format=%B")
    show = refocus("show", rid, "--json", cwd=src).json["here"]["relaunch"]
    assert "codex resume" in show and show.endswith("codex-session-1"), "continued under the id Codex chose"


def test_a_launch_variable_naming_another_agents_refocus_makes_no_child(wired):
    src, dest = wired
    rid = refocus(*spawn_args(dest), cwd=src).json["id"]  # a Claude Code child's
    payload = {"session_id": "codex-session-2", "cwd": str(dest), "source": "startup"}
    out = hook("session-start", payload, dest, agent="codex", env={"GIT_REFOCUS_CHILD": rid})
    assert f"child session of refocus {rid}" not in out.stdout
    assert kinds(dest, rid)[-1].endswith("spawned")


def test_a_gemini_childs_commits_are_linked_when_it_completes(wired):
    src, dest = wired
    out = spawned_for("gemini", src, dest)
    rid, sid = out["id"], out["child_session_id"]
    told = hook("session-start", {"session_id": sid, "cwd": str(dest), "source": "startup"}, dest, agent="gemini",
                env={"GIT_REFOCUS_CHILD": rid, "GIT_REFOCUS_SESSION": sid})
    assert f"child session of refocus {rid}" in told.stdout
    # where a hook does run (a person's own shell with the session exported), the hook tags it
    git(dest, "commit", "-q", "--allow-empty", "-m", "tagged", env={**os.environ, "GIT_REFOCUS_SESSION": sid})
    assert f"Refocus-Id: {rid}" in git(dest, "log", "-1", "--format=%B")
    before = git(dest, "rev-parse", "HEAD").strip()
    # Gemini runs git with hooks disabled: no trailer
    git(dest, "-c", "core.hooksPath=", "commit", "-q", "--allow-empty", "-m", "child work")
    work = git(dest, "rev-parse", "HEAD").strip()
    assert "Refocus-Id" not in git(dest, "log", "-1", "--format=%B")
    done = refocus("complete", "--summary", "Done.", "--dod", "1", "--dod", "2", "--no-material-changes", "n/a",
                   "--json", cwd=dest, env={"GIT_REFOCUS_SESSION": sid, "GIT_REFOCUS_CHILD": rid}).json
    assert any("linked 1 commit" in w for w in done["warnings"])
    assert "via=complete" in git(dest, "notes", "--ref=refocus", "show", work)
    assert "via=complete" not in git(dest, "notes", "--ref=refocus", "show", before), "its trailer linked it"


# -- the stop hook ----------------------------------------------------------------------------
@pytest.mark.parametrize("agent,decision,field", [("codex", "block", "last_assistant_message"),
                                                  ("gemini", "deny", "prompt_response")])
def test_a_loop_is_driven_by_each_agents_stop_hook(wired, agent, decision, field):
    src, _ = wired
    sid = f"{agent}-loop-session"
    refocus("loop", "start", "--promise", "ALL GREEN", "--max-iterations", "3", "--prompt", "Keep going.",
            "--session", sid, cwd=src)
    first = hook("stop", {"session_id": sid, "cwd": str(src), field: "Not yet.", "stop_hook_active": False},
                 src, agent=agent)
    assert json.loads(first.stdout) == {"decision": decision, "reason": json.loads(first.stdout)["reason"]}
    assert "Keep going." in json.loads(first.stdout)["reason"]
    last = hook("stop", {"session_id": sid, "cwd": str(src), field: "Done.\n<promise>ALL GREEN</promise>",
                         "stop_hook_active": True}, src, agent=agent)
    assert last.stdout.strip() == ""
    [loop] = refocus("loop", "list", "--json", cwd=src).json["loops"]
    assert (loop["status"], loop["ended"]) == ("done", "promise")


def test_an_unknown_agent_is_a_usage_error_not_a_silent_hook(wired):
    src, _ = wired
    out = subprocess.run([sys.executable, "-m", "gitrefocus", "hook", "session-start", "--agent", "vim"],
                         input="{}", cwd=str(src), env=source_env(), capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "vim" in out.stderr


# -- init --codex / --gemini -----------------------------------------------------------------
def test_init_wires_each_agent_keeping_what_the_user_has_and_undo_takes_only_ours(wired, tmp_path):
    src, _ = wired
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (home / ".gemini").mkdir()
    theirs = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-me"}]}]}}
    (home / ".codex" / "hooks.json").write_text(json.dumps(theirs))
    (home / ".gemini" / "settings.json").write_text(json.dumps({"theme": "dark", **theirs}))
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin"}  # no codex on PATH: its trust is left to the user

    out = refocus("init", "--codex", "--gemini", "--json", cwd=src, env=env).json
    codex_hooks = json.loads((home / ".codex" / "hooks.json").read_text())["hooks"]
    assert codex_hooks["Stop"][0] == theirs["hooks"]["Stop"][0], "the user's hook is kept, first"
    assert codex_hooks["SessionStart"][0]["hooks"][0]["command"] == "git refocus hook session-start --agent codex"
    gemini = json.loads((home / ".gemini" / "settings.json").read_text())
    assert gemini["theme"] == "dark" and gemini["hooks"]["AfterAgent"][0]["hooks"][0]["command"] == \
        "git refocus hook stop --agent gemini"
    assert gemini["hooks"]["AfterAgent"][0]["hooks"][0]["timeout"] == 10000, "Gemini counts milliseconds"
    assert any("trust the git-refocus hooks in Codex" in s for s in out["by_hand"])
    skill = (home / ".codex" / "skills" / "refocus-drift" / "SKILL.md").read_text()
    assert skill.startswith("---\nname: refocus-drift\n")
    command = tomllib.loads((home / ".gemini" / "commands" / "refocus-complete.toml").read_text())
    assert "{{args}}" in command["prompt"] and "$ARGUMENTS" not in command["prompt"]
    assert command["description"].startswith("Finish this child session's refocus")
    for name in ("AGENTS.md", "GEMINI.md"):
        assert "docs/refocus/INDEX.md" in (src / name).read_text()

    again = refocus("init", "--codex", "--gemini", "--json", cwd=src, env=env).json
    assert [s for s in again["steps"] if s["changed"] and s["kind"] != "codex"] == [], "idempotent"

    refocus("init", "--undo", "--codex", "--gemini", cwd=src, env=env)
    assert json.loads((home / ".codex" / "hooks.json").read_text()) == theirs
    assert json.loads((home / ".gemini" / "settings.json").read_text()) == {"theme": "dark", **theirs}
    assert not (home / ".codex" / "skills" / "refocus").exists()
    assert not (home / ".gemini" / "commands" / "refocus.toml").exists()
    assert not (src / "AGENTS.md").exists() and not (src / "GEMINI.md").exists()


def test_init_refuses_a_hooks_file_it_cannot_read_as_json_and_changes_nothing(wired, tmp_path):
    src, _ = wired
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "hooks.json").write_text("{not json")
    out = refocus("init", "--codex", cwd=src, env={"HOME": str(home)}, check=False)
    assert out.returncode != 0 and "hooks.json is not valid JSON" in out.stderr and "Traceback" not in out.stderr
    assert (home / ".codex" / "hooks.json").read_text() == "{not json"
    assert not (home / ".codex" / "skills").exists()


def test_init_refuses_a_symlinked_settings_file(wired, tmp_path):
    src, _ = wired
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    target = tmp_path / "elsewhere.json"
    target.write_text("{}")
    os.symlink(target, home / ".gemini" / "settings.json")
    out = refocus("init", "--gemini", cwd=src, env={"HOME": str(home)}, check=False)
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert target.read_text() == "{}"


def test_the_gemini_child_policy_lets_it_run_git_refocus_only():
    rules = tomllib.loads((ROOT / "gitrefocus" / "data" / "gemini-child-policy.toml").read_text())["rule"]
    assert rules == [{"toolName": "run_shell_command", "commandPrefix": "git refocus", "decision": "allow",
                      "priority": 100}]


def test_a_codex_childs_rollout_is_its_sign_of_life(tmp_path, monkeypatch):
    """The lazy check of an unfinished child reads the transcript of whichever agent runs it."""
    from gitrefocus.model.events import RefocusState
    from gitrefocus.ops import unfinished

    codex_home = tmp_path / "codex"
    day = codex_home / "sessions" / "2026" / "11" / "26"
    day.mkdir(parents=True)
    sid = "01a2158e-d72c-7731-9e76-af2d1e77e110"
    (day / f"rollout-2026-11-26T01-53-39-{sid}.jsonl").write_text("{}\n")
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    state = RefocusState(id="2026-11-01-x-abcdef", status="in-progress", child_session_id="abcdef00-0000-4000-8000-"
                         "000000000000", last_event_at="2026-01-01T00:00:00Z", sessions=(sid,),
                         extra={"child_agent": "codex"})
    assert unfinished.quiet_hours(state, str(tmp_path)) < 1, "its rollout was written just now"
    claude_state = RefocusState(id=state.id, status=state.status, child_session_id=state.child_session_id,
                                last_event_at=state.last_event_at, sessions=(sid,))
    assert unfinished.quiet_hours(claude_state, str(tmp_path)) > 24 * 300, "a Claude child's transcript: none here"
