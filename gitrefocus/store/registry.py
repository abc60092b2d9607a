"""The user-level registry of repositories that take part in refocus
(README, "Loops, the global index and the spawn tree").

One absolute work-tree path per line in
``${XDG_STATE_HOME:-~/.local/state}/git-refocus/repositories``. ``init`` and
``spawn`` (source and destination) add to it; ``--global`` commands read it.
A repository opts out with ``git config refocus.global false``.

Why a file under XDG_STATE_HOME and not ``git config --global refocus.repo``:

- it is machine state, not a preference: ``~/.gitconfig`` is often a dotfile
  kept in git and shared between machines, where this machine's paths do not
  belong (XDG puts exactly this kind of data under ``$XDG_STATE_HOME``);
- concurrent spawns in different repositories each add a line: an
  ``O_APPEND`` write of one line never interleaves and needs no lock, while
  ``git config --global --add`` takes ``~/.gitconfig.lock`` and fails outright
  ("could not lock config file") when two writers meet;
- reading it needs no git process and no libgit2 config parse.

Duplicate lines (two writers racing) are harmless: readers de-duplicate, and
``--prune`` rewrites the file (atomically) without them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from gitrefocus.store import atomic

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pygit2 import Config

    from gitrefocus.store.workspace import Workspace

MAX_BYTES = 4 << 20
OPT_OUT_KEY = "refocus.global"


def path(env: Mapping[str, str] = os.environ) -> str:
    base = env.get("XDG_STATE_HOME") or ""
    if not os.path.isabs(base):  # the XDG spec: a relative value is invalid and ignored
        base = os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "git-refocus", "repositories")


def entries() -> list[str]:
    """Registered paths, first occurrence order, without duplicates or blank lines."""
    try:
        with open(path(), "rb") as fh:
            data = fh.read(MAX_BYTES)
    except (FileNotFoundError, NotADirectoryError):
        return []
    out: dict[str, None] = {}
    for raw in data.decode("utf-8", "replace").splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            out.setdefault(line, None)
    return list(out)


def opted_out(config: Config) -> bool:
    """``refocus.global=false`` in a repository's (pygit2) config."""
    try:
        return OPT_OUT_KEY in config and not config.get_bool(OPT_OUT_KEY)
    except Exception:  # noqa: BLE001 - a malformed value: treat as not opted out, like git would warn and go on
        return False


def register(ws: Workspace) -> bool:
    """Add ``ws``'s work tree unless it opted out or is already there; True when added."""
    workdir = ws.workdir
    if "\n" in workdir or "\r" in workdir or opted_out(ws.repo.config):
        return False
    if workdir in entries():
        return False
    target = path()
    os.makedirs(os.path.dirname(target), exist_ok=True)
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(fd, (workdir + "\n").encode("utf-8"))  # one write on O_APPEND: never interleaved
    finally:
        os.close(fd)
    return True


def try_register(*workspaces: Workspace | None) -> None:
    """Register each workspace; a registry that cannot be written never fails the command."""
    for ws in workspaces:
        if ws is None:
            continue
        try:
            register(ws)
        except OSError:
            pass


def remove(paths: set[str]) -> list[str]:
    """Drop ``paths`` (and duplicates) from the registry; returns what was dropped."""
    if not paths:
        return []
    kept = [p for p in entries() if p not in paths]
    dropped = [p for p in entries() if p in paths]
    atomic.write_text(path(), "".join(p + "\n" for p in kept))
    return dropped
