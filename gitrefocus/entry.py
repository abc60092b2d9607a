"""The console script. ``git refocus hook EVENT`` runs on every session start
and every tool call, so it goes straight to its handler without importing
click or the command registry; so do the plain listings (``list``, ``status``,
``index``: :mod:`gitrefocus.cli.listings`). Everything else goes through the CLI."""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # no `typing` at run time
if TYPE_CHECKING:
    from collections.abc import Mapping

HOOK_EVENTS = ("session-start", "session-end", "post-tool-use", "stop")
# variables whose value git refocus records or compares as text (paths it only opens may be any bytes)
TEXT_VARIABLES = ("CLAUDE_CODE_SESSION_ID", "CODEX_SESSION_ID", "GIT_REFOCUS_SESSION", "GIT_REFOCUS_CHILD", "SESSION_REFOCUS_ID", "SESSION_REFOCUS_ROLE", "CLAUDE_PROJECT_DIR",
                  "GIT_REFOCUS_NOW")


def not_utf8(args: list[str], environ: Mapping[str, str] | None = None) -> str | None:
    """What in the command line or the environment is not UTF-8 text (Python
    carries such bytes as lone surrogates), as one sentence, or None."""
    import os

    environ = os.environ if environ is None else environ
    for n, arg in enumerate(args, 1):
        if not _utf8(arg):
            return f"argument {n} ({_shown(arg)}) is not valid UTF-8; pass it as UTF-8 text."
    for name in TEXT_VARIABLES:
        value = environ.get(name)
        if value is not None and not _utf8(value):
            return f"the environment variable {name} ({_shown(value)}) is not valid UTF-8; set it as UTF-8 text."
    return None


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _shown(text: str) -> str:
    return repr(text.encode("utf-8", "surrogateescape"))[2:-1][:80]


def anchor_repository_variables() -> None:
    """Make a relative ``GIT_DIR`` / ``GIT_WORK_TREE`` (``git --git-dir=.git/..
    refocus`` passes it as typed) absolute from the directory git refocus
    started in, as git reads them, before ``-C`` moves it."""
    import os

    for name in ("GIT_DIR", "GIT_WORK_TREE"):
        value = os.environ.get(name)
        if value and not os.path.isabs(value):
            os.environ[name] = os.path.abspath(value)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    anchor_repository_variables()
    if args[:1] != ["hook"]:
        bad = not_utf8(args)
        if bad:  # before anything reads them: one line, never a traceback (hooks check their own input)
            sys.stderr.write(f"error: {bad}\n")
            return 2 if not _utf8("".join(args)) else 1
    if args[:1] == ["hook"] and len(args) in (2, 3, 4) and args[1] in HOOK_EVENTS and (
            args[2:] in ([], ["--plugin"]) or (args[2:3] == ["--agent"] and args[3:] in (["codex"], ["gemini"]))):
        from gitrefocus.claude.dispatch import run

        return run(args[1], plugin=args[2:] == ["--plugin"], agent=args[3] if len(args) == 4 else "claude")
    if args[:1] in (["list"], ["status"], ["index"]):
        from gitrefocus.cli import listings

        if listings.plain(args):
            return listings.main(args)
    try:
        from gitrefocus.cli import (
            main as cli_main,  # Ctrl-C while importing: one line, not a traceback
        )
    except KeyboardInterrupt:
        sys.stderr.write("git refocus: interrupted; nothing was written.\n")
        return 130
    return cli_main(argv)
