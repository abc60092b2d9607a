"""Where an agent keeps a session's transcript, and which files belong to it.

Claude Code writes ``<config>/projects/<encoded-cwd>/<session-id>.jsonl``, where
``<config>`` is ``$CLAUDE_CONFIG_DIR`` or ``~/.claude`` and ``<encoded-cwd>`` is
the directory the session was started in with every non-alphanumeric
character replaced by ``-``. Subagents write their own files under
``<encoded-cwd>/<session-id>/subagents/agent-<id>.jsonl``; older clients put
``agent-<id>.jsonl`` next to the main file instead.

Codex CLI's rollouts and Gemini CLI's chats are found by session id too (``store.transcripts``)
and read through ``handoff.agent_transcripts``; a transcript given by path is told apart by
its first record. A session id is looked for among every agent's transcripts, and one found
in two agents' is refused rather than guessed: a session of one agent is never read as
another's.
"""

from __future__ import annotations

import json
import os
import re
import stat

from gitrefocus.errors import RefocusError
from gitrefocus.model.records import dataclass, field
from gitrefocus.model.session import encode_project_dir as encode_cwd
from gitrefocus.store.transcripts import config_dir as claude_config_dir
from gitrefocus.store.transcripts import find_transcript

_SESSION_ID_RE = re.compile(r"^[0-9A-Za-z][0-9A-Za-z_-]{7,127}$")
_AGENT_FILE_RE = re.compile(r"^agent-[A-Za-z0-9._-]{1,200}\.jsonl$")  # the name becomes a pointer label
_LEGACY_AGENT_PROBE = 64 * 1024  # bytes read from a legacy agent file to learn its session


@dataclass(frozen=True)
class TranscriptSource:
    """The files one handoff reads: the main transcript and its subagents."""

    main: str
    subagents: tuple[str, ...] = field(default_factory=tuple)
    session_id: str | None = None
    agent: str = "claude"  # whose transcript it is: how its records are read

    @property
    def files(self) -> tuple[str, ...]:
        return (self.main, *self.subagents)


def is_subagent_file(path: str) -> bool:
    """A subagent's own transcript (``agent-<id>.jsonl``), as opposed to a session's."""
    return bool(_AGENT_FILE_RE.match(os.path.basename(path)))


def looks_like_session_id(text: str) -> bool:
    return bool(_SESSION_ID_RE.match(text)) and not text.endswith((".jsonl", ".json"))


def resolve(source: str, cwd: str | None = None, agent: str | None = None) -> TranscriptSource:
    """A transcript path, or a session id looked up among the agents' transcripts (``agent``:
    only that agent's, for the session a command runs in)."""
    if not source:
        raise RefocusError("no transcript given: pass a transcript path or a session id.")
    path = os.path.expanduser(source)
    if os.path.exists(path) or not looks_like_session_id(source):
        return _from_path(path)
    return _from_session_id(source, cwd or os.getcwd(), agent)


def _from_path(path: str) -> TranscriptSource:
    if not os.path.exists(path):
        raise RefocusError(f"transcript {path!r} does not exist (pass a .jsonl path or a session id).")
    if os.path.isdir(path):
        raise RefocusError(f"transcript {path!r} is a directory; pass the session's .jsonl file.")
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise RefocusError(f"transcript {path!r} is not a regular file.")
    if not os.access(path, os.R_OK):
        raise RefocusError(f"transcript {path!r} is not readable.")
    real = os.path.realpath(path)
    from gitrefocus.handoff import agent_transcripts

    agent = agent_transcripts.detect(real)
    if agent != agent_transcripts.CLAUDE:
        return TranscriptSource(real, (), agent_transcripts.session_of(real), agent)
    name = os.path.basename(real)
    stem = name[: -len(".jsonl")] if name.endswith(".jsonl") else None
    session_id = stem if stem and looks_like_session_id(stem) else None
    return TranscriptSource(real, tuple(subagent_files(real, session_id)), session_id)


def _from_session_id(session_id: str, cwd: str, agent: str | None = None) -> TranscriptSource:
    from gitrefocus.store.transcripts import find_codex_rollout, find_gemini_chat

    def finder(name: str) -> str | None:
        if name == "codex":
            return find_codex_rollout(session_id)
        if name == "gemini":
            return find_gemini_chat(session_id)
        return find_transcript(_cwd_candidates(cwd), session_id)

    found = {name: path for name in ("claude", "codex", "gemini") if agent in (None, name)
             for path in [finder(name)] if path}
    if len(found) > 1:
        raise RefocusError(f"session {session_id} has a transcript of more than one agent ({', '.join(found.values())}); "
                           "pass the transcript path instead.")
    if found:
        return _from_path(next(iter(found.values())))
    projects = os.path.join(claude_config_dir(), "projects")
    raise RefocusError(
        f"no transcript for session {session_id} under {projects} "
        f"(looked in {encode_cwd(cwd)}/ and every project), nor among Codex CLI's rollouts or Gemini CLI's chats; "
        "pass the transcript path instead."
    )


def _cwd_candidates(cwd: str) -> list[str]:
    out = []
    for directory in (cwd, os.path.realpath(cwd)):
        while directory and directory not in out:
            out.append(directory)
            parent = os.path.dirname(directory)
            if parent == directory:
                break
            directory = parent
    return out


def subagent_files(main: str, session_id: str | None) -> list[str]:
    """Subagent transcripts belonging to ``main``, in a stable order."""
    project = os.path.dirname(main)
    found = []
    if session_id:
        nested = os.path.join(project, session_id, "subagents")
        found.extend(_agent_files(nested))
        for path in _agent_files(project):
            if _first_session_id(path) == session_id:
                found.append(path)
    return found


def _agent_files(directory: str) -> list[str]:
    try:
        names = sorted(os.listdir(directory))
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return []
    out = []
    for name in names:
        path = os.path.join(directory, name)
        if _AGENT_FILE_RE.match(name) and os.path.isfile(path) and not os.path.islink(path):
            out.append(path)
    return out


def _first_session_id(path: str) -> str | None:
    try:
        with open(path, "rb") as fh:
            head = fh.readline(_LEGACY_AGENT_PROBE)
        record = json.loads(head)
    except (OSError, ValueError):
        return None
    value = record.get("sessionId") if isinstance(record, dict) else None
    return value if isinstance(value, str) else None
