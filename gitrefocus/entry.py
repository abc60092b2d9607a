"""The console script. ``git refocus hook EVENT`` runs on every session start
and every tool call, so it goes straight to its handler without importing
click or the command registry; so do the plain listings (``list``, ``status``,
``index``: :mod:`gitrefocus.cli.listings`). Everything else goes through the CLI."""

from __future__ import annotations

import sys

HOOK_EVENTS = ("session-start", "session-end", "post-tool-use", "stop")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["hook"] and len(args) in (2, 3) and args[1] in HOOK_EVENTS and args[2:] in ([], ["--plugin"]):
        from gitrefocus.claude.dispatch import run

        return run(args[1], plugin=len(args) == 3)
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
