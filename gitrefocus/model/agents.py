"""The coding agents a refocus can run in, as values: how each names its session to the
commands it runs, how it is (re)launched as a child, and how a hook keeps it working.

Pure data and string functions (imported by hooks: no heavy imports). What each client
actually does is recorded in docs/agents.md and checked on the real binaries by
tests/e2e/test_agent_contracts.py; Claude Code's values are those the rest of the package
used before other agents existed, unchanged.
"""

from __future__ import annotations

import shlex

TYPE_CHECKING = False  # no `typing` at run time: hooks import this module
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from gitrefocus.model.events import RefocusState

CLAUDE, CODEX, GEMINI = "claude", "codex", "gemini"
NAMES = (CLAUDE, CODEX, GEMINI)
DEFAULT = CLAUDE

# The variable through which a launch command tells a child which refocus it is: Codex cannot
# be given a session id, so its child is recognised by this (docs/agents.md).
CHILD_VARIABLE = "GIT_REFOCUS_CHILD"
# A session id set on the launch command, for clients whose shell commands do not see their
# own (Gemini CLI): the child's commands name their session through it.
SESSION_VARIABLE = "GIT_REFOCUS_SESSION"

# The session id as a command the agent runs sees it, in the order they are tried. Claude Code
# and Codex set theirs in every shell command; Gemini CLI sets none there (its launch command
# sets SESSION_VARIABLE). A child started by `pickup --run` gets none of its parent's.
SESSION_ENV = ("CLAUDE_CODE_SESSION_ID", "CODEX_SESSION_ID", SESSION_VARIABLE)
# what marks a process as running inside each agent (in its shell commands and hooks)
_MARKERS = ((CLAUDE, ("CLAUDE_CODE_SESSION_ID", "CLAUDECODE")), (CODEX, ("CODEX_SESSION_ID", "CODEX_THREAD_ID")),
            (GEMINI, ("GEMINI_SESSION_ID", "GEMINI_CLI")))
# variables of a parent's session that must not reach a child it launches
PARENT_ONLY = ("CLAUDE_CODE_SESSION_ID", "CLAUDE_ENV_FILE", "CLAUDE_PROJECT_DIR", "CODEX_SESSION_ID",
               "CODEX_THREAD_ID", "GEMINI_SESSION_ID", "GEMINI_CLI", SESSION_VARIABLE, CHILD_VARIABLE,
               "SESSION_REFOCUS_ROLE", "SESSION_REFOCUS_ID")


def session_from_env(env: Mapping[str, str]) -> str | None:
    """The session a command runs in, from its environment; None outside any agent."""
    for name in SESSION_ENV:
        value = env.get(name)
        if value:
            return value
    return None


def running_in(env: Mapping[str, str]) -> str | None:
    """The agent whose session a command runs in, from its environment; None when none."""
    for name, markers in _MARKERS:
        if any(env.get(marker) for marker in markers):
            return name
    return None


def of_state(extra: Mapping[str, object]) -> str:
    """The agent a refocus's child runs in, as its brief records it (Claude Code when unsaid)."""
    value = extra.get("child_agent")
    return value if isinstance(value, str) and value in NAMES else DEFAULT


def child_session(state: RefocusState) -> str | None:
    """The child's session id: the one spawn gave it, or, for Codex (which chooses its own),
    the last session that opened the refocus."""
    if of_state(state.extra) == CODEX and state.sessions:
        return state.sessions[-1]
    return state.child_session_id


def continue_reply(agent: str, reason: str | None) -> dict[str, str | None]:
    """A stop hook's answer that keeps the agent working, ``reason`` becoming its next prompt."""
    return {"decision": "deny" if agent == GEMINI else "block", "reason": reason}


def _cd(dest_dir: str, home: str | None) -> str:
    from gitrefocus.model.session import shell_dir

    return f"cd {shell_dir(dest_dir, home)} && "


def _pickup(refocus_id: str) -> str:
    return f'"$(git refocus pickup {shlex.quote(refocus_id)})"'


def codex_writable(paths: Sequence[str]) -> str:
    """The ``-c`` value that lets a Codex child write ``paths``: its sandboxes keep every
    ``.git`` read-only, and a child commits and records its result in its repository's git dir
    and hands it to its parent's (the event log, the notes, INDEX.md)."""
    return f"sandbox_workspace_write.writable_roots=[{', '.join(_toml_string(p) for p in paths)}]"


def _toml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def launch_argv(agent: str, *, session_id: str, refocus_id: str, writable: Sequence[str], resume: bool,
                prompt: str | None = None, policies: Sequence[str] = ()) -> list[str]:
    """The argv (after the program) that runs the child of a refocus: a new session (with
    ``prompt``: non-interactively) or, with ``resume``, the child's session again.
    ``writable``: what a Codex child must be able to write besides its work tree; ``policies``:
    the Gemini CLI policy files of a non-interactive child (one lets it run git refocus)."""
    if agent == CODEX:
        sandbox = ["-s", "workspace-write", "-c", codex_writable(writable)]
        if prompt is None:
            return ["resume", *sandbox, session_id] if resume else sandbox
        return ["exec", *sandbox, "resume", session_id, prompt] if resume else ["exec", *sandbox, prompt]
    if agent == GEMINI:
        argv = ["--resume" if resume else "--session-id", session_id]
        if prompt is None:
            return argv
        return argv + [arg for path in policies for arg in ("--policy", path)] + ["-p", prompt]
    argv = ["--resume" if resume else "--session-id", session_id]
    return argv + (["-p", prompt] if prompt is not None else [])


def launch_env(agent: str, *, session_id: str, refocus_id: str) -> dict[str, str]:
    """What the launch command sets for the child: the refocus it is (Codex), the session its
    shell commands belong to (Gemini CLI, whose commands do not see their own)."""
    if agent == CODEX:
        return {CHILD_VARIABLE: refocus_id}
    if agent == GEMINI:
        return {CHILD_VARIABLE: refocus_id, SESSION_VARIABLE: session_id}
    return {}


def relaunch_command(agent: str, dest_dir: str, session_id: str, *, refocus_id: str, writable: Sequence[str],
                     resume: bool = False, pickup: bool = False, home: str | None = None,
                     policies: Sequence[str] = ()) -> str:
    """The shell command a person runs to start (or, with ``resume``, continue) the child, every
    piece from outside shell-quoted; with ``home``, a directory below it is written ``~/…``.
    Claude Code's is :func:`gitrefocus.model.session.relaunch_command`, unchanged."""
    if agent == CLAUDE:
        from gitrefocus.model.session import relaunch_command as claude_command

        return claude_command(dest_dir, session_id, resume=resume, pickup_id=refocus_id if pickup else None,
                              home=home)
    argv = launch_argv(agent, session_id=session_id, refocus_id=refocus_id, writable=writable, resume=resume,
                       prompt="PICKUP" if pickup and not resume else None, policies=policies)
    words = [shlex.quote(a) if a != "PICKUP" else _pickup(refocus_id) for a in argv]
    env = [f"{k}={shlex.quote(v)}" for k, v in launch_env(agent, session_id=session_id, refocus_id=refocus_id).items()]
    return _cd(dest_dir, home) + " ".join([*env, agent, *words])
