"""``git refocus demo``: a real spawn → start → complete → receive round trip
over two throwaway repositories, narrated step by step."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from typing import Any

from gitrefocus.commands.complete import complete
from gitrefocus.commands.receive import receive
from gitrefocus.commands.show import show
from gitrefocus.commands.spawn import spawn
from gitrefocus.commands.start import start
from gitrefocus.commands.status import status
from gitrefocus.errors import RefocusError
from gitrefocus.model import lifecycle
from gitrefocus.model.ids import ref_name
from gitrefocus.model.records import asdict, dataclass
from gitrefocus.model.result import Result
from gitrefocus.store import git, registry

IDENTITY = ["-c", "user.name=Refocus Demo", "-c", "user.email=demo@example.com"]


def _repo(path: str, readme: str) -> None:
    os.makedirs(path)
    git.run(path, "init", "-q")
    # a demo's repositories stay out of the user's registry: `--global` commands never list them
    git.run(path, "config", registry.OPT_OUT_KEY, "false")
    with open(os.path.join(path, "README.md"), "w", encoding="utf-8") as fh:
        fh.write(readme)
    git.run(path, "add", "README.md")
    git.run(path, "commit", "-q", "-m", "initial", config=IDENTITY)


@dataclass(frozen=True)
class DemoOutcome:
    id: str
    root: str  # where the two repositories were made
    events: list[str]  # the event kinds of the round trip
    kept: bool

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def demo(*, directory: str | None = None, keep: bool = False, say: Callable[[str], object] = print) -> DemoOutcome:
    root = directory or tempfile.mkdtemp(prefix="refocus-demo-")
    memory, mcp = os.path.join(root, "agents-memory"), os.path.join(root, "mcp")
    if directory:
        taken = [os.path.basename(p) for p in (memory, mcp) if os.path.lexists(p)]
        if taken:
            raise RefocusError(f"{directory} already has {' and '.join(taken)} (from an earlier demo?); "
                               "remove them, or give another --dir.")
        try:
            os.makedirs(root, exist_ok=True)
        except OSError as exc:
            raise RefocusError(f"cannot create {directory}: {exc.strerror}.") from None
    kept = bool(keep or directory)
    if not kept:  # the repositories are deleted at the end: do not print paths nobody can visit
        plain = say

        def say(text: str) -> object:
            return plain(text.replace(root + os.sep, "").replace(root, "."))
    # the demo's children are not this shell's session, whatever it is
    env = {k: v for k, v in os.environ.items() if k not in ("SESSION_REFOCUS_ROLE", "SESSION_REFOCUS_ID", "CLAUDE_CODE_SESSION_ID")}
    os.environ.update({"GIT_AUTHOR_NAME": "Refocus Demo", "GIT_AUTHOR_EMAIL": "demo@example.com",
                       "GIT_COMMITTER_NAME": "Refocus Demo", "GIT_COMMITTER_EMAIL": "demo@example.com"})
    try:
        _repo(memory, "# agents/memory\n")
        _repo(mcp, "# mcp\n")
        say(f"1. two repositories: {memory} (source) and {mcp} (destination)")
        spawned = spawn(
            dest=mcp, slug="mcp-standard", cwd=memory, env=env,
            reason="The agent-memory session drifted into designing a platform-wide MCP standard.",
            done_when=["MCPSTANDARD.md exists with sections 3-9", "Review comments integrated"],
            out_of_scope=["Migrating code-executor to the standard"],
            context=["Servers speak SSH-stdio through a dispatcher", "TLS is required from day one"],
        )
        rid = spawned.id
        say(f"2. spawn: {spawned.marker}")
        say(f"   brief: {spawned.brief_path}")
        say(f"   relaunch: {spawned.relaunch_command}")
        child_env = dict(env, CLAUDE_CODE_SESSION_ID=spawned.child_session_id)
        started = start(refocus_id=None, cwd=mcp, env=child_env)
        say(f"3. start (what the child's SessionStart hook does): {rid} is {started.status}")
        with open(os.path.join(mcp, "MCPSTANDARD.md"), "w", encoding="utf-8") as fh:
            fh.write("# MCP standard\n\n## 3. Transport\nSSH-stdio via dispatcher.\n")
        done = complete(
            cwd=mcp, env=child_env, summary="Wrote MCPSTANDARD.md; review integrated.",
            dod=["1", "2"], artifacts=["MCPSTANDARD.md=the standard"],
            follow_ups=[f"{root}/code-executor:migrate-to-standard:code-executor must adopt the standard"],
            material_changes=["architecture.md=MCP servers speak SSH-stdio through one dispatcher"],
        )
        say(f"4. complete: {rid} is {lifecycle.in_words(done.status)}; docs/context/architecture.md updated in the destination")
        waiting = status(cwd=memory).outgoing.results_waiting
        summary = Result.from_dict(waiting[0].result or {}).summary
        say(f"5. status in the source: {len(waiting)} result waiting: {summary}")
        got = receive(cwd=memory).received
        follow_up = Result.from_dict(got[0].result or {}).follow_ups[0]
        say(f"6. receive: {got[0].id} acknowledged; follow-up suggested: {follow_up.slug}")
        events = [e.event.kind for e in show(refocus_id=rid, cwd=memory).events]
        say(f"7. event log {ref_name(rid)}: {' → '.join(events)}")
        if kept:
            say(f"   try: git -C {mcp} log --notes=refocus; git -C {mcp} refocus show {rid}")
        else:
            say("the two repositories are deleted now; `git refocus demo --keep` keeps them to look around.")
        return DemoOutcome(id=rid, root=root, events=events, kept=keep)
    finally:
        if not keep and not directory:
            shutil.rmtree(root, ignore_errors=True)
