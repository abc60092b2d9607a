"""What the fields of a Claude Code transcript record mean, and small text helpers.

Also the raw-bytes pre-filter: a line whose top-level type can be read without
parsing is classified from its bytes (see :func:`prefilter`).
"""

from __future__ import annotations

import re

from gitrefocus.handoff import spine as sp

# Only these carry conversation. Everything else is skipped by type: attachment, progress,
# system, summary, file-history-snapshot, queue-operation, last-prompt, api-request*,
# cost-state, mode, ... (new clients keep adding types; none of them is conversation).
CONVERSATION = {"user", "assistant"}

REJECTED = "The user doesn't want to proceed with this tool use."
REJECTED_ALT = "The user doesn't want to take this action right now."
USER_SAID = "the user said:\n"
INTERRUPTED = "[Request interrupted by user"
REMINDER_RE = re.compile(r"<system-reminder>.*?</system-reminder>", re.S)
_COMMAND_NAME_RE = re.compile(r"<command-name>(.*?)</command-name>", re.S)
_COMMAND_ARGS_RE = re.compile(r"<command-args>(.*?)</command-args>", re.S)
_BASH_INPUT_RE = re.compile(r"<bash-input>(.*?)</bash-input>", re.S)
_TOOL_OUTPUT_TAGS = ("<local-command-stdout>", "<local-command-stderr>", "<bash-stdout>", "<bash-stderr>",
                     "<local-command-caveat>")
_FILE_TOOLS = {"Read", "Edit", "MultiEdit", "Write", "NotebookEdit", "NotebookRead"}
WRITE_TOOLS = {"Edit", "MultiEdit", "Write", "NotebookEdit"}
_TYPE_RE = re.compile(rb'[{,]"type":"([A-Za-z_-]+)"')
_PARENT_RE = re.compile(rb'[{,]"parentUuid":(?:null|"([^"\\]{1,200})")')
_TAIL_UUID_RE = re.compile(rb',"uuid":"([^"\\]{1,200})"([^{}\[\]]*)\}$')
_FAST_LINK_TYPES = {b"progress", b"attachment"}


def cap(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    head = limit * 2 // 3
    tail = limit - head
    return f"{text[:head]} [... {len(text) - limit} chars cut ...] {text[-tail:]}"


def one_line(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def prefilter(raw: bytes):
    """Classify a line from raw bytes when that is certain; None means parse it.

    Only two cases are decided here: a record whose *first* key is ``type``
    (snapshots, queue operations, summaries: no conversation, no chain), and a
    progress/attachment record whose top-level keys can be read without
    parsing (it only links the ``parentUuid`` chain). ``"type":"`` preceded by
    ``{`` or ``,`` is structural JSON (inside a string the quotes would be
    escaped), and with no ``{``/``[`` before it, it is a top-level key.
    """
    m = _TYPE_RE.search(raw, 0, 4096)
    if m is None:
        return None
    if raw.find(b"{", 1, m.start()) >= 0 or raw.find(b"[", 1, m.start()) >= 0:
        return None
    kind = m.group(1)
    if m.start() == 0:
        if kind in (b"user", b"assistant", b"system"):
            return None
        return ("skip", kind.decode())
    if kind not in _FAST_LINK_TYPES:
        return None
    parent = _PARENT_RE.search(raw, 0, m.start())
    tail = _TAIL_UUID_RE.search(raw, max(0, len(raw) - 400))
    if parent is None or tail is None or b":{" in tail.group(2) or b'"uuid"' in tail.group(2):
        return None
    p = parent.group(1)
    return ("link", kind.decode(), tail.group(1).decode(), p.decode() if p else None)


def joined_text(content) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
    return ""


def user_text(text: str):
    """(role, text) for a user text block, or None when it is client chatter."""
    if "<system-reminder>" in text:
        text = REMINDER_RE.sub("", text)
    stripped = text.strip()
    if not stripped:
        return None
    if stripped.startswith(INTERRUPTED):
        return sp.INTERRUPT, "[the user interrupted the assistant]"
    if stripped.startswith(_TOOL_OUTPUT_TAGS):
        return None
    name = _COMMAND_NAME_RE.search(stripped)
    if name:
        args = _COMMAND_ARGS_RE.search(stripped)
        command = name.group(1).strip()
        arg = args.group(1).strip() if args else ""
        return sp.COMMAND, one_line(f"{command} {arg}".strip(), 300)
    bash = _BASH_INPUT_RE.search(stripped)
    if bash:
        return sp.COMMAND, "! " + one_line(bash.group(1), 300)
    return sp.USER, stripped


def tool_summary(name: str, data: dict, path: str | None) -> str:
    if name == "Bash" and isinstance(data.get("command"), str):
        desc = data.get("description")
        return data["command"] + (f"  # {desc}" if isinstance(desc, str) and desc else "")
    if path and name in _FILE_TOOLS:
        return path
    for key in ("description", "pattern", "url", "query", "prompt", "path", "skill", "plan"):
        value = data.get(key)
        if isinstance(value, str) and value:
            extra = data.get("subagent_type")
            return (f"{extra}: " if isinstance(extra, str) else "") + value
    return ""
