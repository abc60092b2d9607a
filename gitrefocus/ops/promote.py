"""Material changes promoted into ``<dest>/<contextDir>/*`` (SPEC §6, seed 000 D5)."""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Sequence

from gitrefocus.errors import RefocusError
from gitrefocus.model.result import MaterialChange, check_context_file
from gitrefocus.store import atomic
from gitrefocus.store.workspace import is_inside


def context_path(ws, file: str) -> str:
    check_context_file(file)
    base = os.path.realpath(os.path.join(ws.workdir, ws.setting("contextDir")))
    path = os.path.join(base, file if file.endswith(".md") or "." in os.path.basename(file) else file + ".md")
    real = os.path.realpath(path)
    if not (is_inside(real, base) and real != base and is_inside(real, ws.workdir) and real != ws.workdir):
        raise RefocusError(f"material change file {file!r} resolves outside {ws.setting('contextDir')}/.")
    return path


def bullet(date: str, refocus_id: str, change: MaterialChange) -> str:
    return f"- {date} (refocus {refocus_id}): {change.summary}"


def promote(ws, refocus_id: str, changes: Sequence[MaterialChange], date: str) -> list[str]:
    """Append one dated bullet per change; re-running adds nothing twice."""
    written = []
    by_path: dict[str, list[str]] = {}
    for change in changes:
        by_path.setdefault(context_path(ws, change.file), []).append(bullet(date, refocus_id, change))
    for path, bullets in by_path.items():
        try:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
        except FileNotFoundError:
            title = os.path.splitext(os.path.basename(path))[0].replace("-", " ").replace("_", " ")
            text = f"# {title[:1].upper() + title[1:]}\n\n"
        lines = set(text.splitlines())
        new = [b for b in bullets if b not in lines]
        if not new:
            continue
        if not text.endswith("\n"):
            text += "\n"
        atomic.write_text(path, text + "\n".join(new) + "\n")
        written.append(path)
    return written


def run_context_save(ws, refocus_id: str, timeout: float = 120) -> str | None:
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
