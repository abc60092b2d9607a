"""The Claude Code process a hook runs under: evidence of which child a session continues.

A ``/clear`` gives the session a new id in the *same* client process, and names no
predecessor anywhere (not in the hook's input, not in the new transcript: checked with
2.1.330 and 2.1.197). ``claude --resume ID --fork-session`` starts a new process whose
command line names the session it forks. So the client process is the evidence: the
SessionStart hook records the child's client (:func:`key`) when it recognises the child,
and a cleared or forked session is the child only when its client is that same process,
or was started to resume the child's session (:func:`resumed_session`). No evidence, not
the child: recency proves nothing (an unrelated session in the same directory is as
recent as the child).

The client is the nearest ancestor of the hook named ``claude`` (the native binary, or a
``node …/claude-code/cli.js``). On Linux it is read from /proc; elsewhere from ``ps``.
"""

from __future__ import annotations

import os
import re
import subprocess

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
MAX_DEPTH = 16  # hook <- git <- sh <- client is 3; wrappers and shims add a few
PROC = "/proc"
CLI_SCRIPTS = ("claude-code/cli.js", "claude-code/cli.mjs")
GEMINI_SCRIPTS = ("gemini-cli/bundle/gemini.js", "gemini-cli/dist/index.js")


class Client:
    """One client process: its id, when it started (so a reused pid is another process)
    and its command line."""

    __slots__ = ("pid", "started", "argv")

    def __init__(self, pid: int, started: str, argv: list[str]) -> None:
        self.pid, self.started, self.argv = pid, started, argv

    @property
    def key(self) -> str:
        """A name for this process, unique on this machine across reboots (a local-state file name)."""
        return f"{self.pid}.{self.started}"

    def resumed_session(self) -> str | None:
        """The session this client was started to continue (``--resume ID``, ``-r ID``; Codex's
        ``resume [OPTIONS] ID``), if any."""
        if self.argv and os.path.basename(self.argv[0]) == "codex" and "resume" in self.argv:
            at = self.argv.index("resume")  # the id is positional, after any options
            return next((a for a in self.argv[at + 1:] if _UUID.fullmatch(a)), None)
        for i, arg in enumerate(self.argv):
            if arg in ("--resume", "-r") and i + 1 < len(self.argv):
                return self.argv[i + 1]
            if arg.startswith("--resume="):
                return arg.split("=", 1)[1]
        return None


def find(start: int | None = None, agent: str = "claude") -> Client | None:
    """The client process of ``agent`` among the ancestors of ``start`` (default: this
    process's parent), or None when there is none to be found."""
    pid = os.getppid() if start is None else start
    read = _from_proc if os.path.isdir(os.path.join(PROC, "self")) else _from_ps
    for _ in range(MAX_DEPTH):
        if pid <= 1:
            return None
        info = read(pid)
        if info is None:
            return None
        ppid, started, name, argv = info
        if _is_client(name, argv, agent):
            return Client(pid, started, argv)
        pid = ppid
    return None


def _is_client(name: str, argv: list[str], agent: str = "claude") -> bool:
    if agent == "codex":  # the native binary (npm's codex.js wrapper spawns it)
        return name == "codex" or bool(argv and os.path.basename(argv[0]) == "codex")
    if agent == "gemini":  # node running the bundle
        return any(arg.endswith(GEMINI_SCRIPTS) for arg in argv[1:3])
    if name == "claude" or (argv and os.path.basename(argv[0]) == "claude"):
        return True
    return any(arg.endswith(CLI_SCRIPTS) for arg in argv[1:3])


def _boot_id() -> str:
    try:
        with open(os.path.join(PROC, "sys", "kernel", "random", "boot_id"), encoding="ascii") as fh:
            return fh.read().strip().replace("-", "")[:12]
    except OSError:
        return "boot"


def _from_proc(pid: int) -> tuple[int, str, str, list[str]] | None:
    """(parent pid, start time, command name, argv) from /proc/<pid>."""
    base = os.path.join(PROC, str(pid))
    try:
        with open(os.path.join(base, "stat"), "rb") as fh:
            stat = fh.read().decode("utf-8", "replace")
        with open(os.path.join(base, "cmdline"), "rb") as fh:
            argv = [a.decode("utf-8", "replace") for a in fh.read().split(b"\0") if a]
    except OSError:
        return None
    name, _, rest = stat.partition(" (")[2].rpartition(") ")  # the name may hold spaces and parens
    fields = rest.split()
    if len(fields) < 20 or not fields[1].isdigit():
        return None
    return int(fields[1]), f"{_boot_id()}.{fields[19]}", name, argv


def _from_ps(pid: int) -> tuple[int, str, str, list[str]] | None:
    """The same from ``ps`` (macOS and the BSDs have no /proc)."""
    try:
        out = subprocess.run(["ps", "-o", "ppid=", "-o", "lstart=", "-o", "args=", "-p", str(pid)],
                             capture_output=True, text=True, timeout=2, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    words = out.stdout.split()
    if out.returncode != 0 or len(words) < 7 or not words[0].isdigit():
        return None
    # lstart is five words ("Tue Nov 25 19:32:39 2026"); args follow (split on spaces: a best effort)
    started = "".join(c for c in "".join(words[1:6]) if c.isalnum())
    argv = words[6:]
    return int(words[0]), started, os.path.basename(argv[0]), argv
