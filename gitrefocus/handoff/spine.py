"""The spine: a transcript reduced to the conversation, one labelled line per block.

Every spine line starts with the label of the transcript line it came from
(``L<n>`` for the main file, ``<agent-file>:L<n>`` for a subagent file), so
``transcript:L<n>`` pointers resolve in the real JSONL file, and survive any
later summarizing of the spine text.
"""

from __future__ import annotations

from gitrefocus.model.records import dataclass, field

# message roles
USER = "user"            # text the user typed
ASSISTANT = "assistant"
TOOL = "tool"            # tool results (only errors/rejections survive as blocks)
COMMAND = "command"      # a slash command or `!` shell input the user ran
INTERRUPT = "interrupt"  # the user interrupted the assistant
COMPACT = "compact"      # a compaction summary written by the client
SIDECHAIN = "sidechain"  # a collapsed subagent / sidechain
REWIND = "rewind"        # the user went back and replaced part of the conversation
NOTIFICATION = "notification"  # a background task or agent reporting back (never the user's words)

# block kinds
TEXT = "text"
THINKING = "thinking"
TOOL_USE = "tool_use"
TOOL_ERROR = "tool_error"
REJECTED = "rejected"    # the user refused a tool use (text = their feedback, if any)
ANSWER = "answer"        # the user's answer to the assistant's multiple-choice question (note = the question)
QUEUED = "queued"        # words the user typed while the assistant worked (delivered mid-turn)


@dataclass(slots=True)
class Block:
    kind: str
    text: str
    line: int
    tool: str | None = None
    path: str | None = None
    note: str | None = None


@dataclass(slots=True)
class Message:
    role: str
    line: int
    uuid: str | None = None
    timestamp: str | None = None
    source: str = ""  # "" for the main transcript, else the subagent file's name
    blocks: list[Block] = field(default_factory=list)
    last_line: int = 0
    failed: bool = False  # a sidechain that ended without a final answer

    @property
    def text(self) -> str:
        """All plain text of the message (user or assistant words), joined."""
        return "\n".join(b.text for b in self.blocks if b.kind in WORDS and b.text)

    @property
    def is_user_turn(self) -> bool:
        return self.role == USER and any(b.kind in WORDS and b.text for b in self.blocks)

    def label(self, line: int | None = None) -> str:
        n = self.line if line is None else line
        return f"{self.source}:L{n}" if self.source else f"L{n}"

    def span(self) -> str:
        last = max(self.last_line, self.line)
        if last > self.line:
            return f"{self.label()}-L{last}"
        return self.label()


# blocks that carry someone's own words (a user's queued message counts as a turn of theirs)
WORDS = frozenset({TEXT, QUEUED})
_BLOCK_TITLES = {TEXT: None, THINKING: "thinking", TOOL_ERROR: "tool error", REJECTED: "tool rejected by user",
                 QUEUED: "typed while the assistant worked"}


def _title(message: Message, block: Block) -> str:
    if block.kind == TOOL_USE:
        return f"{message.role} tool_use {block.tool or '?'}"
    if block.kind == ANSWER:
        # the question is the assistant's, shown in one line so it never starts a spine line
        question = " ".join((block.note or "?").split())
        question = question if len(question) <= 120 else question[:119] + "…"
        return f"{message.role} answered the assistant's question \"{question}\""
    special = _BLOCK_TITLES.get(block.kind)
    if special is None:
        return message.role
    if block.tool and block.kind in (TOOL_ERROR, REJECTED):
        special = f"{special} ({block.tool})"
    return special if message.role == TOOL else f"{message.role} {special}"


def render_message(message: Message) -> list[str]:
    out = []
    for block in message.blocks:
        label = message.label(block.line)
        text = block.text or ""
        # every line break (not just \n) starts a continuation line, so no text can
        # begin a line of its own and pass for a label
        first, *rest = text.splitlines() or [""]
        out.append(f"{label} {_title(message, block)}: {first}".rstrip())
        pad = " " * (len(label) + 1)
        out.extend((pad + "| " + more).rstrip() for more in rest)
    return out


def render(messages: list[Message], header: list[str] | None = None) -> str:
    lines = list(header or [])
    for message in messages:
        lines.extend(render_message(message))
    return "\n".join(lines) + "\n"


def rendered_size(message: Message) -> int:
    """``len()`` of the message's lines in :func:`render`, counted without building them."""
    total = 0
    for block in message.blocks:
        label = len(message.label(block.line))
        first, *rest = (block.text or "").splitlines() or [""]
        kept = len(first.rstrip())
        # "<label> <title>: <first>" rstripped: an empty first line takes the ": "'s space with it
        total += label + 1 + len(_title(message, block)) + (2 + kept if kept else 1) + 1
        for more in rest:
            kept = len(more.rstrip())
            total += label + 1 + (2 + kept if kept else 1) + 1  # "<pad>| <more>" rstripped
    return total


def chunk(messages: list[Message], bound: int, sizes: list[int] | None = None) -> list[tuple[int, int]]:
    """Split into [start, end) ranges of at most ``bound`` rendered characters,
    cutting before a user turn where possible (a debugging arc stays together)."""
    ranges: list[tuple[int, int]] = []
    if sizes is None:
        sizes = [rendered_size(m) for m in messages]
    start, size, last_turn = 0, 0, None
    for i, message in enumerate(messages):
        if message.is_user_turn and i > start:
            last_turn = i
        if size + sizes[i] > bound and i > start:
            cut = last_turn if last_turn is not None and last_turn > start else i
            ranges.append((start, cut))
            start = cut
            size = sum(sizes[start:i])
            last_turn = None
        size += sizes[i]
    if start < len(messages):
        ranges.append((start, len(messages)))
    return ranges
