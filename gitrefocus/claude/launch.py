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

CHILD_TOOLS = "Bash(git refocus:*)"
# the parent session's identity must not reach the child (its client sets its own)
PARENT_ONLY = ("CLAUDE_CODE_SESSION_ID", "SESSION_REFOCUS_ROLE", "SESSION_REFOCUS_ID", "CLAUDE_ENV_FILE",
               "CLAUDE_PROJECT_DIR")


def run_child(dest_dir: str, session_id: str, prompt: str, *, resume: bool, allowed_tools: Sequence[str] = (),
              env: Mapping[str, str] = os.environ) -> int:
    """Run ``claude -p PROMPT`` as the child session in ``dest_dir``; its exit status."""
    claude = shutil.which("claude", path=env.get("PATH"))
    if claude is None:
        raise RefocusError("`claude` is not on PATH; start the child yourself with the relaunch command "
                           "`git refocus spawn` printed.")
    if not os.path.isdir(dest_dir):
        raise RefocusError(f"the child's directory {dest_dir} does not exist here.")
    tools = [CHILD_TOOLS, *(t for t in allowed_tools if t != CHILD_TOOLS)]
    argv = [claude, "--resume" if resume else "--session-id", session_id, "-p", prompt, "--allowedTools", *tools]
    child_env = {k: v for k, v in env.items() if k not in PARENT_ONLY}
    try:
        return subprocess.run(argv, cwd=dest_dir, env=child_env, stdin=subprocess.DEVNULL).returncode
    except OSError as exc:
        raise RefocusError(f"could not start `claude`: {exc.strerror}.") from None
