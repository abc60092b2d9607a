"""A refocus handed between different agents, every client the real pinned binary (docs/agents.md).

Claude Code talks to the Anthropic mock (tests/e2e/claude_mock.py), Codex CLI to the Responses
API mock and Gemini CLI to the Gemini API mock (tests/e2e/agent_mocks.py); each mock plays the
model's turns, so what the tests check is what the clients, their hooks and git refocus did:
who was recognised as the child, what it was told, what its commits carry, what the parent was
told, and what `git log --notes=refocus` says about who ran each side.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest

from tests.e2e import agent_mocks as am
from tests.e2e.claude_mock import Bash, Text, describe
from tests.gitrepo import git, make_repo
from tests.runner import git_refocus_on_path, refocus

pytestmark = pytest.mark.claude

REASON = "The parser work belongs in the library."
DONE = "The library parses the new syntax"


@pytest.fixture
def shim(tmp_path) -> Path:
    """A bin directory whose `git-refocus` runs this source tree (for hooks and agents' shells)."""
    return git_refocus_on_path(tmp_path / "shim")


class Agents:
    """The Codex and Gemini CLI homes and environments of one test, with their mocks."""

    def __init__(self, tmp_path: Path, shim: Path, codex_bin: Path | None, gemini_bin: Path | None):
        self.tmp = tmp_path
        self.codex_mock = am.MockResponses().__enter__()
        self.gemini_mock = am.MockGemini().__enter__()
        bins = [str(shim)] + [str(b.parent) for b in (codex_bin, gemini_bin) if b is not None]
        self.home = tmp_path / "agent-home"
        (self.home / ".codex").mkdir(parents=True)
        (self.home / ".codex" / "config.toml").write_text(self.codex_mock.codex_config())
        # Codex runs the model's commands in a login shell, whose PATH comes from the profile: as
        # for a user, `git refocus` must be on the PATH the login shell sets
        (self.home / ".profile").write_text(f"PATH={shlex.quote(str(shim))}:$PATH\nexport PATH\n")
        (self.home / ".gemini").mkdir()
        (self.home / ".gemini" / "settings.json").write_text(
            json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}))
        self.env = {
            "PATH": os.pathsep.join([*bins, os.environ["PATH"]]), "HOME": str(self.home),
            "CODEX_HOME": str(self.home / ".codex"), "MOCK_API_KEY": "test",
            "GEMINI_API_KEY": "test", "GOOGLE_GEMINI_BASE_URL": self.gemini_mock.url,
            "GEMINI_CLI_TRUST_WORKSPACE": "true", "NO_PROXY": "127.0.0.1,localhost",
        }

    def close(self) -> None:
        self.codex_mock.__exit__(None, None, None)
        self.gemini_mock.__exit__(None, None, None)


@pytest.fixture
def agents(tmp_path, shim, codex_bin, gemini_bin):
    a = Agents(tmp_path, shim, codex_bin, gemini_bin)
    yield a
    a.close()


def pickup_run(src: Path, rid: str, env: dict[str, str]) -> None:
    """`git refocus pickup ID --run` from the parent's repository, as a person runs it."""
    child = subprocess.run(["git", "refocus", "pickup", rid, "--run"], cwd=src, env={**os.environ, **env},
                           capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert child.returncode == 0, child.stdout + child.stderr


def init_both(src: Path, dest: Path, env: dict, *flags: str) -> None:
    for repo in (src, dest):
        out = refocus("init", *flags, "--json", cwd=repo, env=env)
        assert out.returncode == 0, out
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "wire git refocus")


def trailer_ids(repo: Path, rev: str = "HEAD") -> list[str]:
    out = git(repo, "log", "-1", "--format=%(trailers:key=Refocus-Id,valueonly)", rev)
    return [line.strip() for line in out.splitlines() if line.strip()]


def notes(repo: Path) -> str:
    return git(repo, "log", "--all", "--notes=refocus", "--format=%N")


def last_event(repo: Path, rid: str) -> str:
    """The kind of the newest event in the refocus's log (its commit subject ends with it)."""
    return git(repo, "log", "-1", "--format=%s", f"refs/refocus/{rid}").rsplit(": ", 1)[-1].strip()


def status(repo: Path, rid: str) -> str:
    return refocus("show", rid, "--json", cwd=repo).json["status"]


def test_a_claude_parent_hands_work_to_a_codex_child_and_receives_its_result(
        tmp_path, agents, shim, mock_api, run_claude):
    src, dest = make_repo(tmp_path / "app"), make_repo(tmp_path / "lib")
    env = {**agents.env}
    init_both(src, dest, env, "--claude")
    setup_codex = refocus("init", "--codex", "--json", cwd=src, env=env)
    assert setup_codex.returncode == 0, setup_codex
    assert [s["changed"] for s in setup_codex.json["steps"] if s["kind"] == "codex"] == [True, True]
    again = refocus("init", "--codex", "--json", cwd=src, env=env).json
    assert [s["changed"] for s in again["steps"] if s["kind"] == "codex"] == [False, False], "init is idempotent"

    # the parent: a real Claude Code session spawns the work for a Codex child
    mock_api.add(Bash(f"git refocus spawn {shlex.quote(str(dest))} --agent codex --slug parser "
                      f"--reason {shlex.quote(REASON)} --done-when {shlex.quote(DONE)} --json"), Text("Spawned."))
    parent = run_claude(src, "Hand the parser work to the library.", extra_env={"PATH": env["PATH"]})
    assert parent.returncode == 0, describe(parent)
    rid, = git(src, "for-each-ref", "--format=%(refname:lstrip=2)", "refs/refocus/").split()
    brief = refocus("show", rid, "--json", cwd=dest).json
    assert brief["status"] == "reserved"
    relaunch = refocus("show", rid, "--json", cwd=src).json["here"]["relaunch"]
    assert f"GIT_REFOCUS_CHILD={rid} codex -s workspace-write" in relaunch

    # the child: Codex, launched for the refocus, commits and completes from its own shell
    agents.codex_mock.add(
        am.Call("exec_command", {"cmd": "git commit -q --allow-empty -m 'Parse the new syntax'"}),
        am.Call("exec_command", {"cmd": "git refocus spawn ../app --reason nested --done-when x"}),
        am.Call("exec_command", {"cmd": "git refocus complete --summary 'Parser done in the library.' --dod 1 "
                                        "--no-material-changes 'no docs changed'"}),
        am.Text("Completed."))
    pickup_run(src, rid, env)
    first = agents.codex_mock.turn_requests[0]
    assert f"child session of refocus {rid}" in " ".join(am.texts_of(first)), "Codex's child got its brief"
    outputs = " ".join(am.texts_of(agents.codex_mock.turn_requests[-1]))
    assert "Child sessions cannot fork" in outputs, "a Codex child cannot spawn"
    work = git(dest, "log", "--format=%H", "--grep", "Parse the new syntax", "-1").strip()
    assert trailer_ids(dest, work) == [rid], "the Codex child's commit carries the trailer"
    assert status(dest, rid) == "result"
    assert "started role=dest status=in-progress" in notes(dest) and "agent=codex" in notes(dest)
    assert "child-agent=codex" in notes(src) and "source-agent=claude" in notes(src)

    # the parent again: the next Claude Code session in the source is told the result, once
    mock_api.add(Text("Noted."))
    before = len(mock_api.turn_requests)
    told = run_claude(src, "Continue.", extra_env={"PATH": env["PATH"]})
    assert told.returncode == 0, describe(told)
    said = json.dumps(mock_api.turn_requests[before])
    assert rid in said and "Parser done in the library." in said
    assert last_event(src, rid) == "received"


def run_gemini(agents: Agents, gemini_bin: Path, cwd: Path, prompt: str, *args: str) -> subprocess.CompletedProcess:
    """A Gemini CLI session as a person runs it (headless; --yolo standing for their approvals)."""
    return subprocess.run([str(gemini_bin), "--yolo", *args, "-p", prompt], cwd=cwd, env={**os.environ, **agents.env},
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)


def run_codex(agents: Agents, codex_bin: Path, cwd: Path, prompt: str, *writable: Path) -> subprocess.CompletedProcess:
    """A Codex CLI session as a person runs it, able to write ``writable`` (its sandbox keeps
    every .git read-only unless named: a parent that spawns writes the destination's)."""
    roots = ", ".join(json.dumps(str(p)) for p in writable)
    return subprocess.run([str(codex_bin), "exec", "--skip-git-repo-check", "-s", "workspace-write",
                           "-c", f"sandbox_workspace_write.writable_roots=[{roots}]", prompt],
                          cwd=cwd, env={**os.environ, **agents.env}, capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)


def spawn_command(dest: Path, agent: str, slug: str) -> str:
    return (f"git refocus spawn {shlex.quote(str(dest))} --agent {agent} --slug {slug} "
            f"--reason {shlex.quote(REASON)} --done-when {shlex.quote(DONE)}")


def the_refocus(src: Path) -> str:
    rid, = git(src, "for-each-ref", "--format=%(refname:lstrip=2)", "refs/refocus/").split()
    return rid


def test_a_gemini_parent_hands_work_to_a_claude_child_and_receives_its_result(
        tmp_path, agents, gemini_bin, mock_api, run_claude):
    src, dest = make_repo(tmp_path / "app"), make_repo(tmp_path / "lib")
    env = agents.env
    init_both(src, dest, env, "--claude")
    assert refocus("init", "--gemini", cwd=src, env=env).returncode == 0

    agents.gemini_mock.add(am.Call("run_shell_command", {"command": spawn_command(dest, "claude", "parser")}),
                           am.Text("Spawned."))
    parent = run_gemini(agents, gemini_bin, src, "Hand the parser work to the library.")
    assert parent.returncode == 0, parent.stderr
    rid = the_refocus(src)
    relaunch = refocus("show", rid, "--json", cwd=src).json["here"]["relaunch"]
    assert relaunch.startswith(f"cd {dest} && claude --session-id ")
    sid = relaunch.rsplit(" ", 1)[1]
    assert "source-agent=gemini" in notes(src) and "child-agent=claude" in notes(src)

    # the child: Claude Code, started with the printed command's session id
    mock_api.add(Bash("git commit -q --allow-empty -m 'Parse the new syntax'"),
                 Bash("git refocus complete --summary 'Parser done by Claude.' --dod 1 --no-material-changes none"),
                 Text("Done."))
    child = run_claude(dest, "Work on the brief.", session_id=sid, extra_env={"PATH": env["PATH"]})
    assert child.returncode == 0, describe(child)
    assert f"child session of refocus {rid}" in json.dumps(mock_api.turn_requests[0])
    work = git(dest, "log", "--format=%H", "--grep", "Parse the new syntax", "-1").strip()
    assert trailer_ids(dest, work) == [rid]
    assert "agent=claude" in notes(dest), "the notes say which agent ran each side"

    # the parent's next Gemini session is told, once
    agents.gemini_mock.add(am.Text("Noted."))
    before = len(agents.gemini_mock.turn_requests)
    again = run_gemini(agents, gemini_bin, src, "Continue.")
    assert again.returncode == 0, again.stderr
    told = " ".join(am.texts_of(agents.gemini_mock.turn_requests[before]))
    assert rid in told and "Parser done by Claude." in told
    assert last_event(src, rid) == "received"


def test_a_codex_parent_hands_work_to_a_gemini_child_that_cannot_fork(tmp_path, agents, codex_bin, gemini_bin):
    src, dest = make_repo(tmp_path / "app"), make_repo(tmp_path / "lib")
    env = agents.env
    init_both(src, dest, env)
    assert refocus("init", "--codex", "--gemini", cwd=src, env=env).returncode == 0

    agents.codex_mock.add(am.Call("exec_command", {"cmd": spawn_command(dest, "gemini", "parser")}), am.Text("Spawned."))
    parent = run_codex(agents, codex_bin, src, "Hand the parser work to the library.",
                       src / ".git", dest, dest / ".git")
    assert parent.returncode == 0, parent.stderr
    rid = the_refocus(src)
    assert "source-agent=codex" in notes(src) and "child-agent=gemini" in notes(src)

    # the child: Gemini CLI, run by pickup --run (its policy lets it run git refocus; the user's
    # own policy here lets it commit too; anything else is denied, headless)
    policies = agents.home / ".gemini" / "policies"
    policies.mkdir()
    (policies / "commit.toml").write_text('[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "git commit"\n'
                                          'decision = "allow"\npriority = 100\n')
    agents.gemini_mock.add(
        am.Call("run_shell_command", {"command": "git refocus spawn ../app --reason nested --done-when x"}),
        am.Call("run_shell_command", {"command": "ls"}),
        am.Call("run_shell_command", {"command": "git commit -q --allow-empty -m 'Parse the new syntax'"}),
        am.Call("run_shell_command", {"command": "git refocus complete --summary 'Parser done by Gemini.' --dod 1 "
                                                 "--no-material-changes none"}),
        am.Text("Done."))
    pickup_run(src, rid, env)
    first = " ".join(am.texts_of(agents.gemini_mock.turn_requests[0]))
    assert f"child session of refocus {rid}" in first, "Gemini's child got its brief"
    outputs = " ".join(am.texts_of(agents.gemini_mock.turn_requests[-1]))
    assert "Child sessions cannot fork" in outputs, "a Gemini child cannot spawn"
    assert "denied by policy" in outputs, "a headless Gemini child runs git refocus, and nothing else unasked"
    assert last_event(dest, rid) == "completed"

    # the child's commit carries no trailer (Gemini runs git without hooks): complete linked it
    work = git(dest, "log", "--format=%H", "--grep", "Parse the new syntax", "-1").strip()
    assert work and trailer_ids(dest, work) == [], "no hook ran"
    assert f"refocus {rid} linked" in git(dest, "notes", "--ref=refocus", "show", work)
    assert refocus("log", rid, "--json", cwd=dest).returncode == 0
    assert "agent=gemini" in notes(dest)

    # the parent's next Codex session is told, once
    agents.codex_mock.add(am.Text("Noted."))
    before = len(agents.codex_mock.turn_requests)
    again = run_codex(agents, codex_bin, src, "Continue.", src / ".git")
    assert again.returncode == 0, again.stderr
    told = " ".join(am.texts_of(agents.codex_mock.turn_requests[before]))
    assert rid in told and "Parser done by Gemini." in told
    assert last_event(src, rid) == "received"


@pytest.mark.parametrize("agent", ["codex", "gemini"])
def test_a_loop_ends_on_its_promise(tmp_path, agents, codex_bin, gemini_bin, agent):
    """Loops run through Codex's Stop and Gemini CLI's AfterAgent as through Claude Code's Stop.
    (A Gemini CLI session's commands see no session id, so its loop runs in a child, whose
    launch command names the session.)"""
    src, dest = make_repo(tmp_path / "app"), make_repo(tmp_path / "lib")
    env = agents.env
    init_both(src, dest, env)
    assert refocus("init", f"--{agent}", cwd=src, env=env).returncode == 0
    out = refocus("spawn", dest, "--agent", agent, "--slug", "loop", "--reason", REASON, "--done-when", DONE,
                  "--json", cwd=src, env=env)
    assert out.returncode == 0, out
    rid = out.json["id"]
    mock = agents.codex_mock if agent == "codex" else agents.gemini_mock
    call = "exec_command" if agent == "codex" else "run_shell_command"
    key = "cmd" if agent == "codex" else "command"
    mock.add(am.Call(call, {key: "git refocus loop start --promise 'ALL GREEN' --max-iterations 5 "
                                 "--prompt 'Keep fixing the tests.'"}),
             am.Text("First pass: two tests fail."), am.Text("Second pass: one fails."),
             am.Text("Third pass: all pass.\n<promise>ALL GREEN</promise>"), am.Text("a turn the loop must not ask for"))
    pickup_run(src, rid, env)
    loops = refocus("loop", "list", "--json", cwd=dest).json["loops"]
    assert [(lp["status"], lp["iteration"], lp["ended"]) for lp in loops] == [("done", 3, "promise")]
    assert len(mock.turns) == 1, "the turn after the promise was never asked for"
    fed = [t for t in am.texts_of(mock.turn_requests[-1])
           if "Keep fixing the tests." in t and "loop start" not in t]  # not the command that started it
    assert len(fed) == 2, "the loop prompt went back after the first and second stop, and only then"


ASK = "Please make the parser accept trailing commas in argument lists; do not touch the lexer."


@pytest.mark.parametrize("agent", ["codex", "gemini"])
def test_handoff_reads_the_agents_own_transcript_found_by_its_session_id(tmp_path, agents, codex_bin, gemini_bin,
                                                                          agent):
    """`git refocus handoff SESSION` finds a Codex rollout or a Gemini chat by the session id and
    reads it as that agent's (its client's own context never taken for the user's words)."""
    work = make_repo(tmp_path / "app")
    if agent == "codex":
        agents.codex_mock.add(am.Call("exec_command", {"cmd": "git status --short"}),
                              am.Text("I decided to extend parse_args rather than the lexer; trailing commas "
                                      "are accepted now."))
        done = run_codex(agents, codex_bin, work, ASK, work / ".git")
        sid = next(line.split(": ", 1)[1] for line in done.stderr.splitlines() if line.startswith("session id: "))
    else:
        agents.gemini_mock.add(am.Call("run_shell_command", {"command": "git status --short"}),
                               am.Text("I decided to extend parse_args rather than the lexer; trailing commas "
                                       "are accepted now."))
        done = run_gemini(agents, gemini_bin, work, ASK)
        chat, = (agents.home / ".gemini" / "tmp").glob("*/chats/session-*.jsonl")
        sid = json.loads(chat.read_text().splitlines()[0])["sessionId"]
    assert done.returncode == 0, done.stderr
    out = refocus("handoff", sid, "--json", cwd=work, env=agents.env).json
    brief = out["brief"]
    assert "trailing commas in argument lists" in brief, "the user's words"
    assert "do not touch the lexer" in brief
    assert "<environment_context>" not in brief and "<session_context>" not in brief, "not the client's context"
    source = out["source_files"][0]
    assert ("/.codex/sessions/" in source) if agent == "codex" else ("/.gemini/tmp/" in source)
    assert out["session_id"] == sid
