"""The agents as values: which session a command runs in, and how each child is launched."""

from __future__ import annotations

import shlex

import pytest

from gitrefocus.model import agents
from gitrefocus.model.session import relaunch_command as claude_command

DEST = "/home/u/my repo's/lib"
SID = "7d1c0f4e-2b3a-4c5d-8e9f-0a1b2c3d4e5f"
RID = "2026-11-26-parser-7d1c0f"
WRITABLE = ["/home/u/my repo's/.git", '/tmp/we"ird/.git']


def test_the_session_a_command_runs_in_comes_from_whichever_agent_set_it():
    assert agents.session_from_env({}) is None
    assert agents.session_from_env({"CODEX_SESSION_ID": "c"}) == "c"
    assert agents.session_from_env({"GIT_REFOCUS_SESSION": "g"}) == "g"
    assert agents.session_from_env({"CLAUDE_CODE_SESSION_ID": "a", "CODEX_SESSION_ID": "c"}) == "a"
    assert agents.session_from_env({"CLAUDE_CODE_SESSION_ID": "", "CODEX_SESSION_ID": "c"}) == "c"


@pytest.mark.parametrize("env,agent", [({}, None), ({"CLAUDECODE": "1"}, "claude"),
                                       ({"CODEX_THREAD_ID": "x"}, "codex"), ({"GEMINI_CLI": "1"}, "gemini")])
def test_which_agent_a_command_runs_in(env, agent):
    assert agents.running_in(env) == agent


def test_claude_codes_launch_commands_are_unchanged():
    for resume in (False, True):
        for pickup in (False, True):
            assert agents.relaunch_command("claude", DEST, SID, refocus_id=RID, writable=WRITABLE, resume=resume,
                                           pickup=pickup) == \
                claude_command(DEST, SID, resume=resume, pickup_id=RID if pickup else None)


def test_a_codex_child_is_named_by_its_launch_variable_and_may_write_every_git_dir_it_needs():
    command = agents.relaunch_command("codex", DEST, SID, refocus_id=RID, writable=WRITABLE, pickup=True)
    words = shlex.split(command)
    assert words[:3] == ["cd", DEST, "&&"]
    assert words[3] == f"GIT_REFOCUS_CHILD={RID}" and words[4:7] == ["codex", "exec", "-s"]
    import tomllib

    config = words[words.index("-c") + 1]
    key, _, value = config.partition("=")
    assert key == "sandbox_workspace_write.writable_roots"
    assert tomllib.loads(f"v = {value}")["v"] == WRITABLE, "each path survives the shell and TOML quoting"
    assert command.endswith(f'"$(git refocus pickup {RID})"')
    resumed = shlex.split(agents.relaunch_command("codex", DEST, "codex-sid", refocus_id=RID, writable=WRITABLE,
                                                  resume=True))
    assert resumed[4:6] == ["codex", "resume"] and resumed[-1] == "codex-sid"


def test_a_gemini_child_gets_its_session_id_and_tells_its_shell_commands_which_it_is():
    words = shlex.split(agents.relaunch_command("gemini", DEST, SID, refocus_id=RID, writable=WRITABLE))
    assert words[3:] == [f"GIT_REFOCUS_CHILD={RID}", f"GIT_REFOCUS_SESSION={SID}", "gemini", "--session-id", SID]
    argv = agents.launch_argv("gemini", session_id=SID, refocus_id=RID, writable=(), resume=False, prompt="P",
                              policies=["/a.toml", "/b"])
    assert argv == ["--session-id", SID, "--policy", "/a.toml", "--policy", "/b", "-p", "P"]


def test_the_reply_that_keeps_an_agent_working():
    assert agents.continue_reply("claude", "go on") == {"decision": "block", "reason": "go on"}
    assert agents.continue_reply("codex", "go on") == {"decision": "block", "reason": "go on"}
    assert agents.continue_reply("gemini", "go on") == {"decision": "deny", "reason": "go on"}


def test_a_brief_without_an_agent_is_claude_codes_and_an_unknown_one_is_not_trusted():
    assert agents.of_state({}) == "claude"
    assert agents.of_state({"child_agent": "codex"}) == "codex"
    assert agents.of_state({"child_agent": "rm -rf /"}) == "claude"
