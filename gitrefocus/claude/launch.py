"""Running a one-shot child from the parent: ``git refocus pickup ID --run``.

The printed relaunch command (``cd DEST && claude --session-id SID -p "$(git refocus
pickup ID)"``) is for a person at a shell. An agent cannot run it in the client's default
permission mode (a ``cd`` before the command and a ``$(...)`` expansion both need
approval), but ``git refocus pickup ID --run`` runs under the /refocus command's own
``Bash(git refocus:*)``: it starts the child in its directory with the pickup prompt, its
output going to ours, and the child may record its result (``Bash(git refocus:*)``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence

from gitrefocus.errors import RefocusError
from gitrefocus.model import agents

CHILD_TOOLS = "Bash(git refocus:*)"
# the parent session's identity must not reach the child (its client sets its own)
PARENT_ONLY = agents.PARENT_ONLY


def gemini_policies(env: Mapping[str, str] = os.environ) -> list[str]:
    """The policies of a non-interactive Gemini CLI child: the file shipped in the package that
    lets it run git refocus (as ``Bash(git refocus:*)`` lets a Claude Code child), and the user's
    own ~/.gemini/policies, which ``--policy`` would otherwise replace (seen with 0.61.0)."""
    from importlib import resources

    ours = str(resources.files("gitrefocus").joinpath("data", "gemini-child-policy.toml"))
    home = env.get("HOME") or os.path.expanduser("~")
    user = os.path.join(home, ".gemini", "policies")
    return [ours, user] if os.path.isdir(user) else [ours]


def run_child(dest_dir: str, session_id: str, prompt: str, *, resume: bool, allowed_tools: Sequence[str] = (),
              env: Mapping[str, str] = os.environ, agent: str = agents.CLAUDE, refocus_id: str = "",
              writable: Sequence[str] = ()) -> int:
    """Run the child session in ``dest_dir`` non-interactively with ``prompt`` (``claude -p``,
    ``codex exec``, ``gemini -p``); its exit status. ``writable``: what a Codex child's sandbox
    must let it write (:func:`gitrefocus.ops.places.child_writable`)."""
    program = shutil.which(agent, path=env.get("PATH"))
    if program is None:
        raise RefocusError(f"`{agent}` is not on PATH; start the child yourself with the relaunch command "
                           "`git refocus spawn` printed.")
    if not os.path.isdir(dest_dir):
        raise RefocusError(f"the child's directory {dest_dir} does not exist here.")
    child_env = {k: v for k, v in env.items() if k not in PARENT_ONLY}
    if agent == agents.CLAUDE:
        tools = [CHILD_TOOLS, *(t for t in allowed_tools if t != CHILD_TOOLS)]
        argv = [program, "--resume" if resume else "--session-id", session_id, "-p", prompt, "--allowedTools", *tools]
    else:
        argv = [program, *agents.launch_argv(agent, session_id=session_id, refocus_id=refocus_id, writable=writable,
                                             resume=resume, prompt=prompt, policies=gemini_policies(env))]
        if agent == agents.GEMINI and allowed_tools:  # Gemini's own names, e.g. run_shell_command(git commit)
            argv[-2:-2] = ["--allowed-tools", *allowed_tools]
        child_env.update(agents.launch_env(agent, session_id=session_id, refocus_id=refocus_id))
    try:
        return subprocess.run(argv, cwd=dest_dir, env=child_env, stdin=subprocess.DEVNULL).returncode
    except OSError as exc:
        raise RefocusError(f"could not start `{agent}`: {exc.strerror}.") from None
