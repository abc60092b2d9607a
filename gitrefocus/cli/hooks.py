"""``git refocus hook EVENT``: entry points for Claude Code hooks (see
gitrefocus.claude.dispatch; `main` reaches it without importing click)."""

from __future__ import annotations

import click

from gitrefocus.claude.dispatch import HANDLERS, run


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("event", type=click.Choice(sorted(HANDLERS)))
@click.option("--plugin", is_flag=True,
              help="Run as the plugin's copy: do nothing when a settings file wires the same hook.")
@click.option("--agent", type=click.Choice(["claude", "codex", "gemini"]), default="claude", show_default=True,
              help="The client running the hook: its session's markers and its hook replies differ.")
def hook(event: str, plugin: bool, agent: str) -> None:
    """Entry point for Claude Code hooks; reads the hook JSON on stdin.

    \b
    session-start  start the child whose session this is, inject its brief;
                   return results to the parent; advise (sized by refocus.budget)
    session-end    a child leaving without `complete` is recorded and warned about
    post-tool-use  files the agent wrote become suggested relevant files
    stop           drive this session's loop (git refocus loop); silent otherwise

    Wire them with `git refocus init --claude` (or hooks/settings.json), or
    install the plugin (`git refocus init --claude --plugin`).
    Always exits 0; failures are logged to $GIT_DIR/refocus/errors.jsonl.

    \b
    Example:
      git refocus hook session-start < event.json
    """
    raise SystemExit(run(event, plugin=plugin, agent=agent))
