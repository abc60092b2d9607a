"""The handoff cache: ``$(git rev-parse --git-dir)/refocus/cache/handoff/<leaf-uuid>.json``.

Keyed by the transcript's leaf uuid. An entry is reused only
when nothing it was made from has changed: the transcript files (size and
mtime), the repository state Code-state described (HEAD and the status of the
work tree) and the extractor command. It is derived data: deleting it is safe.
"""

from __future__ import annotations

import hashlib
import json
import os
import re

from gitrefocus.errors import RefocusError
from gitrefocus.handoff.gitstate import GitState
from gitrefocus.handoff.transcript_paths import TranscriptSource
from gitrefocus.store import localstate

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from typing import Any

FORMAT = 1
TAIL_BYTES = 256 * 1024
_NAME_RE = re.compile(r"^[A-Za-z0-9._-]{1,100}$")


def entry_name(leaf_uuid: str) -> str:
    if _NAME_RE.match(leaf_uuid) and leaf_uuid not in (".", ".."):
        return f"{leaf_uuid}.json"
    return "h-" + hashlib.sha256(leaf_uuid.encode("utf-8", "replace")).hexdigest()[:32] + ".json"


def sources_key(source: TranscriptSource) -> list[list[object]]:
    out: list[list[object]] = []
    for path in source.files:
        try:
            st = os.stat(path)
            out.append([path, st.st_size, st.st_mtime_ns])
        except OSError:
            out.append([path, None, None])
    return out


def git_key(git: GitState) -> list[object]:
    changes = hashlib.sha256(json.dumps(
        [[c.path, c.state, c.staged, c.added, c.removed] for c in git.changes]).encode()).hexdigest()
    return [git.root, git.head, changes, git.changes_total, git.problem]


def key(source: TranscriptSource, git: GitState, extractor_cmd: str | None) -> dict[str, Any]:
    from gitrefocus import __version__

    return {"format": FORMAT, "tool": __version__, "sources": sources_key(source), "git": git_key(git),
            "extractor": extractor_cmd}


def peek_leaf(path: str) -> tuple[str | None, str | None]:
    """(uuid, cwd) of the last conversation record, from the end of the file only."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - TAIL_BYTES))
            tail = fh.read()
    except OSError:
        return None, None
    lines = tail.split(b"\n")
    if size > TAIL_BYTES:
        lines = lines[1:]  # the first one is probably cut
    for raw in reversed(lines):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(record, dict) or record.get("type") not in ("user", "assistant") \
                or record.get("isSidechain") is True:
            continue
        uuid, cwd = record.get("uuid"), record.get("cwd")
        if isinstance(uuid, str) and uuid:
            return uuid, cwd if isinstance(cwd, str) else None
    return None, None


def load(git_dir: str, leaf_uuid: str, expected: dict[str, Any]) -> dict[str, Any] | None:
    try:
        text = localstate.read(git_dir, "cache", "handoff", entry_name(leaf_uuid))
    except RefocusError:
        return None
    if not text:
        return None
    try:
        entry = json.loads(text)
    except ValueError:
        return None
    if not isinstance(entry, dict) or entry.get("key") != json.loads(json.dumps(expected)):
        return None
    return entry


def store(git_dir: str, leaf_uuid: str, expected: dict[str, Any], payload: dict[str, Any]) -> str | None:
    entry = {"key": expected, "leaf_uuid": leaf_uuid, **payload}
    try:
        return localstate.write(git_dir, "cache", "handoff", entry_name(leaf_uuid),
                                text=json.dumps(entry, ensure_ascii=False) + "\n")
    except (RefocusError, OSError):
        return None  # a cache that cannot be written is not an error
