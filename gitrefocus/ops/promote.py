"""Material changes promoted into ``<dest>/<contextDir>/*``: each ``FILE=SUMMARY`` of a
completion becomes a dated bullet naming the refocus (never twice), then
``refocus.contextSaveCommand`` runs, its failure reported, never blocking the completion."""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Sequence

from gitrefocus.errors import RefocusError
from gitrefocus.model.result import MaterialChange, check_context_file
from gitrefocus.store import atomic, locks
from gitrefocus.store.workspace import is_inside

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from gitrefocus.store.workspace import Workspace


def context_path(ws: Workspace, file: str) -> str:
    check_context_file(file)
    base = os.path.realpath(os.path.join(ws.workdir, ws.setting("contextDir")))
    path = os.path.join(base, file if file.endswith(".md") or "." in os.path.basename(file) else file + ".md")
    real = os.path.realpath(path)
    if not (is_inside(real, base) and real != base and is_inside(real, ws.workdir) and real != ws.workdir):
        raise RefocusError(f"material change file {file!r} resolves outside {ws.setting('contextDir')}/.")
    return path


def bullet(date: str, refocus_id: str, change: MaterialChange) -> str:
    return f"- {date} (refocus {refocus_id}): {change.summary}"


def _promoted(line: str, refocus_id: str, change: MaterialChange) -> bool:
    """Whether ``line`` is the bullet of ``change`` (whatever day it was written)."""
    return line.startswith("- ") and line.endswith(f" (refocus {refocus_id}): {change.summary}")


def _read(path: str) -> str | None:
    try:
        return atomic.read_bytes(path).decode("utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise RefocusError(f"{path} is not valid UTF-8; material changes cannot be added to it.") from None


def missing(ws: Workspace, refocus_id: str, changes: Sequence[MaterialChange]) -> list[MaterialChange]:
    """The changes whose bullet is not in their context file yet (a completion cut short)."""
    out = []
    for change in changes:
        text = _read(context_path(ws, change.file)) or ""
        if not any(_promoted(line, refocus_id, change) for line in text.splitlines()):
            out.append(change)
    return out


def _lock_path(ws: Workspace) -> str:
    return os.path.join(ws.common_dir, "refocus", "context.lock")


def promote(ws: Workspace, refocus_id: str, changes: Sequence[MaterialChange], date: str) -> list[str]:
    """Append one dated bullet per change; re-running adds nothing twice.

    The read-modify-write of each file holds an exclusive lock, so concurrent
    completions never drop each other's bullets."""
    written: list[str] = []
    by_path: dict[str, list[MaterialChange]] = {}
    for change in changes:
        by_path.setdefault(context_path(ws, change.file), []).append(change)
    if not by_path:
        return written
    with locks.exclusive(_lock_path(ws)):
        for path, todo in by_path.items():
            text = _read(path)
            if text is None:
                title = os.path.splitext(os.path.basename(path))[0].replace("-", " ").replace("_", " ")
                text = f"# {title[:1].upper() + title[1:]}\n\n"
            lines = text.splitlines()
            new = [bullet(date, refocus_id, c) for c in todo
                   if not any(_promoted(line, refocus_id, c) for line in lines)]
            new = list(dict.fromkeys(new))
            if not new:
                continue
            if not text.endswith("\n"):
                text += "\n"
            atomic.write_text(path, text + "\n".join(new) + "\n")
            written.append(path)
    return written


def run_context_save(ws: Workspace, refocus_id: str, timeout: float = 120) -> str | None:
    """Run ``refocus.contextSaveCommand`` if set; return a problem, or None."""
    command = ws.setting("contextSaveCommand")
    if not command:
        return None
    env = dict(os.environ, REFOCUS_ID=refocus_id, REFOCUS_DEST=ws.workdir)
    try:
        proc = subprocess.run(
            ["sh", "-c", command], cwd=ws.workdir, env=env, capture_output=True, text=True,
            timeout=timeout, stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return f"refocus.contextSaveCommand timed out after {int(timeout)} s"
    except OSError as exc:
        return f"refocus.contextSaveCommand could not run: {exc}"
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()
        return f"refocus.contextSaveCommand ({shlex.quote(command)}) exited {proc.returncode}" + (f": {tail[-1]}" if tail else "")
    return None
