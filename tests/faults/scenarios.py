"""Every command that writes, each from a starting state built with the CLI.

A scenario builds its starting state in a :class:`~tests.faults.world.World` and
names the one command the sweeps run against it (with its working directory,
environment and stdin) and the repositories whose state counts.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tests.faults.world import World

SUMMARY = "Wrote the transport standard."
CHANGE = "architecture.md=MCP servers speak SSH-stdio"


@dataclass
class Command:
    args: list[str]
    cwd: str  # a repository of the world, by name
    env: dict[str, str] = field(default_factory=dict)
    stdin: str | None = None


@dataclass
class Scenario:
    name: str
    repos: list[str]
    build: Callable[[World], Command]  # builds the starting state; returns the command to run
    clean_start: bool = True  # doctor calls the starting state consistent (not so before `init`)


def _spawn_args(dest: Path, slug: str = "mcp-standard") -> list[str]:
    return ["spawn", str(dest), "--slug", slug, "--reason", "MCP work drifted into this repository.",
            "--done-when", "MCPSTANDARD.md exists", "--done-when", "Review integrated", "--json"]


def _pair(w: World) -> tuple[Path, Path]:
    src, dest = w.repo("src"), w.repo("dest")
    for repo in (src, dest):
        w.refocus("init", cwd=repo)
    return src, dest


def _spawned(w: World) -> tuple[Path, Path, str, str]:
    src, dest = _pair(w)
    out = json.loads(w.refocus(*_spawn_args(dest), cwd=src).stdout)
    return src, dest, out["id"], out["child_session_id"]


def _started(w: World) -> tuple[Path, Path, str, str]:
    src, dest, rid, sid = _spawned(w)
    w.refocus("start", rid, "--session-id", sid, cwd=dest)
    (dest / "work.txt").write_text("the child's work\n")
    w.git(dest, "add", "work.txt")
    w.git(dest, "commit", "-q", "-m", "the child's work", env=w.env(CLAUDE_CODE_SESSION_ID=sid))
    return src, dest, rid, sid


def _transcript(w: World, dest: Path, sid: str) -> None:
    from gitrefocus.model.session import encode_project_dir

    project = w.home / ".claude/projects" / encode_project_dir(str(dest))
    project.mkdir(parents=True, exist_ok=True)
    (project / f"{sid}.jsonl").write_text(json.dumps({"type": "user", "message": {"content": "build it"}}) + "\n"
                                          + json.dumps({"type": "assistant", "message": {"content": "done"}}) + "\n")


def init(w: World) -> Command:
    w.repo("repo")
    return Command(["init"], "repo")


def spawn(w: World) -> Command:
    src, dest = _pair(w)
    return Command(_spawn_args(dest)[:-1], "src")


def start(w: World) -> Command:
    _src, _dest, rid, sid = _spawned(w)
    return Command(["start", rid, "--session-id", sid], "dest")


def session_start_hook(w: World) -> Command:
    _src, dest, _rid, sid = _spawned(w)
    env_file = w.home / "claude-env"
    env_file.write_text("")
    payload = {"session_id": sid, "cwd": str(dest), "hook_event_name": "SessionStart", "source": "startup",
               "transcript_path": str(w.home / "t.jsonl")}
    return Command(["hook", "session-start"], "dest", {"CLAUDE_ENV_FILE": str(env_file),
                                                       "CLAUDE_CODE_SESSION_ID": sid}, json.dumps(payload))


def complete(w: World) -> Command:
    _src, dest, rid, sid = _started(w)
    _transcript(w, dest, sid)
    return Command(["complete", rid, "--summary", SUMMARY, "--material-change", CHANGE, "--save-transcript"], "dest",
                   {"CLAUDE_CODE_SESSION_ID": sid})


def complete_commit(w: World) -> Command:
    _src, _dest, rid, sid = _started(w)
    return Command(["complete", rid, "--summary", SUMMARY, "--material-change", CHANGE, "--commit"], "dest",
                   {"CLAUDE_CODE_SESSION_ID": sid})


def abandon_source(w: World) -> Command:
    _src, _dest, rid, _sid = _started(w)
    return Command(["abandon", rid, "--reason", "the source gave up"], "src")


def abandon_dest(w: World) -> Command:
    _src, _dest, rid, sid = _started(w)
    return Command(["abandon", rid, "--reason", "the child gave up"], "dest", {"CLAUDE_CODE_SESSION_ID": sid})


def receive(w: World) -> Command:
    _src, dest, rid, sid = _started(w)
    w.refocus("complete", rid, "--summary", SUMMARY, "--material-change", CHANGE, cwd=dest,
              env=w.env(CLAUDE_CODE_SESSION_ID=sid))
    return Command(["receive", rid], "src")


def link(w: World) -> Command:
    _src, dest, rid, _sid = _started(w)
    (dest / "late.txt").write_text("made without the hook\n")
    w.git(dest, "add", "late.txt")
    w.git(dest, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "made without the hook")
    return Command(["link", rid, "HEAD"], "dest")


def gc(w: World) -> Command:
    src, dest = _pair(w)
    old = w.env(GIT_REFOCUS_NOW="2025-01-02T10:00:00Z")
    out = json.loads(w.refocus(*_spawn_args(dest), cwd=src, env=old).stdout)
    w.refocus("start", out["id"], cwd=dest, env=old)
    w.refocus("complete", out["id"], "--summary", SUMMARY, "--no-material-changes", "none", cwd=dest, env=old)
    w.git(dest, "add", "docs/refocus")
    w.git(dest, "commit", "-q", "-m", "the brief")
    for repo in (src, dest):  # INDEX.md as of the sweep's clock
        w.refocus("index", cwd=repo)
    return Command(["gc"], "dest")


def sync(w: World) -> Command:
    """A spawns into dest, which completes; A syncs; B, another clone of A's repository,
    syncs and learns the whole log, the notes and INDEX.md."""
    remote = w.root / "remote.git"
    w.git(w.root, "init", "-q", "--bare", str(remote))
    seed = w.repo("seed")
    w.git(seed, "push", "-q", str(remote), "main")
    for name in ("A", "B"):
        w.git(w.root, "clone", "-q", str(remote), str(w.root / name))
        w.refocus("init", cwd=w.root / name)
    a, dest = w.root / "A", w.repo("dest")
    w.refocus("init", cwd=dest)
    out = json.loads(w.refocus(*_spawn_args(dest), cwd=a).stdout)
    w.refocus("start", out["id"], cwd=dest)
    w.refocus("complete", out["id"], "--summary", SUMMARY, "--no-material-changes", "none", cwd=dest)
    w.refocus("sync", cwd=a)
    return Command(["sync"], "B")


def loop_start(w: World) -> Command:
    _src, _dest, _rid, sid = _started(w)
    return Command(["loop", "start", "--promise", "TESTS PASS", "--max-iterations", "3", "--session", sid], "dest",
                   {"CLAUDE_CODE_SESSION_ID": sid})


def stop(w: World) -> Command:
    _src, _dest, _rid, sid = _started(w)
    return Command(["stop"], "dest", {"CLAUDE_CODE_SESSION_ID": sid})


SCENARIOS = [
    Scenario("init", ["repo"], init, clean_start=False),
    Scenario("spawn", ["src", "dest"], spawn),
    Scenario("start", ["src", "dest"], start),
    Scenario("session-start hook", ["src", "dest"], session_start_hook),
    Scenario("complete", ["src", "dest"], complete),
    Scenario("complete --commit", ["src", "dest"], complete_commit),
    Scenario("abandon (source)", ["src", "dest"], abandon_source),
    Scenario("abandon (dest)", ["src", "dest"], abandon_dest),
    Scenario("receive", ["src", "dest"], receive),
    Scenario("link", ["src", "dest"], link),
    Scenario("gc", ["src", "dest"], gc),
    Scenario("sync", ["B"], sync),
    Scenario("loop start", ["src", "dest"], loop_start),
    Scenario("stop", ["src", "dest"], stop),
]
BY_NAME = {s.name: s for s in SCENARIOS}
