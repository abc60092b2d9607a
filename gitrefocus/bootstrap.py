"""First use in a repository: the .gitignore entry and the CLAUDE.md link line.

Both are idempotent: running them again changes nothing.
"""

from __future__ import annotations

import os

from gitrefocus import atomic

INDEX_REL = "docs/refocus/INDEX.md"
CLAUDE_LINE = (
    "> 🔀 **Session history (refocus)**: See [docs/refocus/INDEX.md](docs/refocus/INDEX.md) "
    "for incoming briefs and outbound spawns."
)


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except FileNotFoundError:
        return None


def gitignore_change(workdir: str) -> tuple[str, str] | None:
    path = os.path.join(workdir, ".gitignore")
    text = _read(path)
    if text is not None:
        lines = {line.strip() for line in text.splitlines()}
        if INDEX_REL in lines or "/" + INDEX_REL in lines:
            return None
        if text and not text.endswith("\n"):
            text += "\n"
    return path, (text or "") + INDEX_REL + "\n"


def claude_md_change(workdir: str) -> tuple[str, str] | None:
    path = os.path.join(workdir, "CLAUDE.md")
    text = _read(path)
    if text is not None and "docs/refocus/INDEX.md" in text:
        return None
    return path, CLAUDE_LINE + "\n\n" + (text or "") if text else CLAUDE_LINE + "\n"


def planned(workdir: str) -> list[tuple[str, str]]:
    return [c for c in (gitignore_change(workdir), claude_md_change(workdir)) if c]


def ensure(workdir: str) -> list[str]:
    """Apply the bootstrap; return the files written."""
    written = []
    for path, text in planned(workdir):
        atomic.write_text(path, text)
        written.append(path)
    return written
